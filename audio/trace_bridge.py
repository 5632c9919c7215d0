"""The trace bridge: everything the controller adapter puts on the call's trace.

* The generation gate's events become trace events (:meth:`TraceBridge.on_gate_event`):
  ``agent_speech_started`` / ``agent_speech_stopped``, ``barge_in_paused`` (with how long the
  pause took after speech onset) and ``barge_in_resumed``, and ``generation_invalidated``
  unless that invalidation is already on the trace (below). ``tts_first_audio`` stays here:
  it is a latency milestone, not an event.
* The caller's side: ``user_turn_voiced`` (text, confidence, channel, ``last_voiced_t``) as
  a turn goes to the conversation, right before the controller's own ``user_turn_final``, and
  ``backchannel_ignored``.
* Per-turn latency milestones (:class:`~audio.latency.TurnClock`, which emits
  ``turn_latency`` once the answer's first frame plays).

Every event is stamped with the question and revision of the generation it concerns: the
plan's, else the conversation's ledger now.

**Each invalidation is traced once.** A conversation that invalidates through the adapter's
sink may trace ``generation_invalidated`` itself (the controller does, in
``CallContext.invalidate_response``, right before it calls the sink) or not (the benchmarks'
stand-in, :mod:`audio.stand_in`). The gate emits its own event either way. The bridge keeps,
as state, the generations whose invalidation is already on the trace
(:class:`InvalidationsOnTrace`, fed by a listener on the trace, first in line) and relays the
gate's event only for the others. It never reads the trace back.
"""

from __future__ import annotations

from typing import Any

from agent.core.session import Conversation
from agent.core.speech import SpeechPlan
from agent.core.trace import Trace, TraceEvent
from audio.generation_gate import GateEvent, GenerationGate
from audio.latency import TurnClock


class InvalidationsOnTrace:
    """The generations whose ``generation_invalidated`` is on the trace and that the gate has
    not invalidated yet: a listener on the trace (:meth:`note`) fills it; the gate's event for
    a generation consults and forgets it (:meth:`first`)."""

    def __init__(self) -> None:
        self._traced: set[int] = set()
        self._floor = 0  # the gate invalidates only generations above this one

    def note(self, event: TraceEvent) -> None:
        """A trace listener: remember the generation a ``generation_invalidated`` names."""
        if event.name == "generation_invalidated":
            generation = event.get("invalidated", event.generation)
            if generation > self._floor:
                self._traced.add(generation)

    def first(self, generation: int) -> bool:
        """The gate invalidated ``generation``: True if no event on the trace says so yet.
        The gate never invalidates it, or an older one, again: those are forgotten."""
        first = generation not in self._traced
        self._floor = max(self._floor, generation)
        self._traced = {g for g in self._traced if g > self._floor}
        return first


class TraceBridge:
    """Puts the adapter's events on the call's trace (side effect: listens to ``gate`` and
    to ``trace``)."""

    def __init__(self, gate: GenerationGate, trace: Trace):
        self.trace = trace
        self.clock = TurnClock(trace)
        self.plans: dict[int, SpeechPlan] = {}  # every plan spoken, by generation
        self.conversation: Conversation | None = None
        self._onset = 0.0  # monotonic time the caller's speech over the agent began
        self._invalidations = InvalidationsOnTrace()
        self._listen(trace)
        gate.add_listener(self.on_gate_event)

    def bind(self, trace: Trace) -> None:
        """Write to ``trace`` from now on (a conversation that brings its own trace)."""
        if self._invalidations.note in self.trace.listeners:
            self.trace.listeners.remove(self._invalidations.note)
        self.trace = trace
        self.clock.trace = trace
        self._invalidations = InvalidationsOnTrace()
        self._listen(trace)

    def _listen(self, trace: Trace) -> None:
        # First in line: another listener reacting to a controller's invalidation (by
        # invalidating at the gate, say) must find it already noted.
        trace.listeners.insert(0, self._invalidations.note)

    # -- what the adapter tells the bridge ------------------------------------------------

    def planned(self, plan: SpeechPlan) -> None:
        """``plan`` goes to the TTS: its generation's events carry its question and revision,
        and it may be the answer the open turn's latency waits for."""
        self.plans[plan.generation] = plan
        self.clock.decided(plan.generation)

    def speech_onset(self, t: float) -> None:
        """The caller began to speak over the agent at ``t`` (monotonic), just before the
        gate pauses: ``barge_in_paused`` says how long pausing took."""
        self._onset = t

    def turn_voiced(self, text: str, confidence: float, channel: str,
                    last_voiced: float | None, after_generation: int) -> None:
        """A turn goes to the conversation: open its latency row and trace it."""
        self.clock.turn(last_voiced, after_generation)
        where = self._where(after_generation)
        extra: dict[str, Any] = (  # trace data may hold any value (Trace.emit's **data)
            {"last_voiced_t": self.clock.trace_t(last_voiced)} if last_voiced else {})
        self.trace.emit("user_turn_voiced", **where, text=self.trace.private(text),
                        confidence=confidence, channel=channel, **extra)

    def backstop(self, which: str, generation: int, **data: Any) -> None:
        """A bound that exists for a stalled pipeline ended a wait that audio order should
        have ended (``which``: ``turn_hold``, ``recogniser_reach``): on the trace, so a call's
        result shows that it may have depended on the machine's speed."""
        self.trace.emit("backstop", **self._where(generation), which=which, **data)

    def backchannel_ignored(self, text: str, generation: int) -> None:
        """What the caller said over ``generation`` was no turn; playback went on."""
        self.trace.emit("backchannel_ignored", **self._where(generation),
                        text=self.trace.private(text))

    # -- gate events -> trace --------------------------------------------------------------

    def on_gate_event(self, event: GateEvent) -> None:
        data = dict(event.data)
        if event.name == "tts_first_audio":
            self.clock.first_tts_audio(event.generation, event.t)
            return
        if event.name == "barge_in_paused":
            if not held_at_start(data):  # (a reply held at its start has no onset)
                data["onset_to_paused_ms"] = round((event.t - self._onset) * 1000, 1)
        if event.name == "generation_invalidated":
            if not self._invalidations.first(event.generation):
                return  # the conversation traced it before it invalidated through the sink
            data["invalidated"] = event.generation
        self.trace.emit(event.name, **self._where(event.generation), **data)
        if event.name == "agent_speech_started":
            self.clock.first_output(event.generation, event.t)

    def _where(self, generation: int) -> dict:
        plan = self.plans.get(generation)
        if plan is not None:
            return {"question": plan.question, "revision": plan.revision,
                    "generation": generation}
        if self.conversation is not None:
            snap = self.conversation.ledger.current
            return {"question": snap.question, "revision": snap.revision,
                    "generation": generation}
        return {"question": "", "revision": -1, "generation": generation}


def held_at_start(paused: Any) -> bool:
    """A ``barge_in_paused`` event (or its data) held a reply as it began, not speech over
    it: the caller was already in their next turn (``caller_first``) or audio captured before
    it was not heard yet (``unheard_ms``). Such a pause has no onset."""
    return bool(paused.get("caller_first")) or paused.get("unheard_ms") is not None
