"""Barge-in as it happens: caller speech over agent speech, from onset to a decision.

At speech onset over agent speech (the VAD, push-to-talk, or a run of loud frames before the
VAD is sure) the generation gate pauses at once. The recognised words then decide
(:func:`audio.barge_in.classify_overlap`):

* a backchannel ("mm-hmm") resumes the same generation;
* a sound that never becomes words resumes it too, once ``noise_resume_secs`` of audio
  passed after the VAD stop (EARLY_RESUME_SECS after a loud onset the VAD never confirmed)
  and the recogniser has nothing pending;
* a real turn cuts it (:meth:`BargeIn.cut`): the conversation invalidates its current
  generation; whatever newer audio the gate holds is invalidated too, and output is never
  left paused.

A turn that already cut the agent stays cut: agent speech that starts again while the caller
goes on is cut at its onset.

The other order counts the same: a reply the agent begins while the caller is already in
their next turn (they spoke again after their last turn ended, before the reply) is held at
once, as if they had spoken over it, and the words decide as above
(:meth:`BargeIn.reply_starting`). On a busy machine the caller's audio reaches the turn
detector late, in a burst: a turn that ended at a pause and the caller going on after it
arrive together, before the reply exists. Without this, the reply to the first half of a
split sentence played to its end over the second half on a loaded machine, while an idle
machine cut it at once.

Busier still, the caller's next turn may not have reached the turn detector at all when the
reply begins: its audio waits unheard in the pipeline's queues (:mod:`audio.backlog`). Then
the reply is held until the agent has heard the audio captured before it began
(``unheard_ms`` on ``barge_in_paused``): speech found in it holds the reply as above, and
without any the reply plays. A wall-clock bound (UNHEARD_HOLD_SECS) ends a hold whose audio
never arrives, traced as a ``backstop``.

The turn intake (:mod:`audio.turn_intake`) tells this object about every transcript
(:meth:`BargeIn.heard`) and settles it when a turn is delivered (:meth:`BargeIn.settle`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from agent.core.session import Conversation
from audio.backlog import InputBacklog
from audio.barge_in import Overlap, classify_overlap
from audio.caller_clock import AudioTimer, CallerVoice, Recogniser, Timers
from audio.generation_gate import GenerationGate
from audio.trace_bridge import TraceBridge

# A pause from a loud onset is reversible: no VAD speech within this much audio resumes.
EARLY_RESUME_SECS = 0.6
# The longest a reply waits, in wall-clock seconds, for caller audio it has not heard to reach
# the agent: a bound for a stalled pipeline, never reached by a merely busy one (the longest
# backlog measured: 14 s, at three times make test-audio's load).
UNHEARD_HOLD_SECS = 30.0


class BargeIn:
    """The barge-in state of the caller's current turn, and what it does to the gate."""

    def __init__(self, gate: GenerationGate, bridge: TraceBridge, voice: CallerVoice,
                 recogniser: Recogniser, timers: Timers, *, noise_resume_secs: float,
                 backlog: InputBacklog | None = None,
                 unheard_hold_secs: float = UNHEARD_HOLD_SECS):
        self.gate = gate
        self.conversation: Conversation | None = None
        self.overlapping = False  # this turn began over agent speech
        self.barged = False  # this turn already invalidated the agent's speech
        self.vad_speaking = False
        self._bridge = bridge
        self._voice = voice
        self._recogniser = recogniser
        self._timers = timers
        self._noise_resume = noise_resume_secs
        self._noise: AudioTimer | None = None
        self._transcribed = False  # a transcript of this turn arrived
        self._words = ""  # the latest transcript of this turn (the turn so far)
        # The caller began a turn (VAD start, push-to-talk) that has not ended yet.
        self.caller_in_turn = False
        self._backlog = backlog
        self._unheard_hold_secs = unheard_hold_secs
        self._unheard: _UnheardHold | None = None  # a reply held for audio not yet heard

    # -- onset ---------------------------------------------------------------------------

    def speech_started(self) -> None:
        """The caller started speaking: over agent speech, pause it at once."""
        self._cancel_noise_timer()
        if self.gate.speaking and not self.gate.paused:
            self.overlapping = True
            self._bridge.speech_onset(self._voice.onset())
            self.gate.pause()
            if self.barged:
                # This turn is already known to be real: whatever started playing meanwhile
                # talks over the caller. Cut it now rather than wait for words.
                self.cut()

    def may_pause_early(self) -> bool:
        """A loud onset may pause the agent before the VAD: it is speaking, unpaused, and
        the VAD has not already heard the caller."""
        return not self.vad_speaking and self.gate.speaking and not self.gate.paused

    def await_vad(self) -> None:
        """After a loud onset paused the agent: resume unless the VAD confirms speech within
        EARLY_RESUME_SECS of audio."""
        if self.gate.paused and not self.barged:
            self._noise = self._timers.after(EARLY_RESUME_SECS, self._resume_after_noise)

    def vad_started(self) -> None:
        self.vad_speaking = True
        self.caller_in_turn = True
        self._found_in_unheard()

    def turn_began(self) -> None:
        """The caller's turn began without the VAD (push-to-talk pressed)."""
        self.caller_in_turn = True
        self._found_in_unheard()

    def turn_ended(self) -> None:
        """The turn detector ended the caller's turn: speech after this is the next one."""
        self.caller_in_turn = False

    def reply_starting(self, generation: int) -> None:
        """The agent is about to speak (a plan with sentences just reached the gate). If the
        caller is already in their next turn, hold the reply at once, as an onset over it
        would have, and let that turn decide: words already in are judged as soon as the
        conversation has handed the plan over (a real turn cuts the reply, anything else lets
        it play); otherwise the words to come, or noise_resume_secs without any, decide.
        Traced as ``barge_in_paused`` with ``caller_first``.

        If instead caller audio captured before now has not reached the agent yet, hold the
        reply until it has (:meth:`_hold_for_unheard`)."""
        if self.gate.paused:
            return
        if not self.caller_in_turn:
            if self._backlog is not None and self._backlog.behind():
                self._hold_for_unheard(generation, self._backlog)
            return
        if not self.gate.pause(generation, caller_first=True):
            return
        self.overlapping = True
        self._cancel_noise_timer()
        if self.barged or self._transcribed:
            # Not from inside the conversation's own speak(): cutting invalidates through it.
            asyncio.get_running_loop().call_soon(self._judge_held_reply)
        elif not self.vad_speaking:
            self._noise = self._timers.after(self._noise_resume, self._resume_after_noise)

    def _hold_for_unheard(self, generation: int, backlog: InputBacklog) -> None:
        """Hold the reply ``generation`` until the audio captured before it is heard (side
        effects: pauses the gate, traced as ``barge_in_paused`` with ``unheard_ms``; a
        wall-clock bound)."""
        unheard = backlog.unheard_secs()
        if not self.gate.pause(generation, unheard_ms=round(unheard * 1000)):
            return
        self._end_unheard_hold()  # (one for an older reply, invalidated meanwhile)
        hold = _UnheardHold(generation, unheard)
        self._unheard = hold
        hold.bound = asyncio.get_running_loop().call_later(
            self._unheard_hold_secs, self._unheard_bound, hold)
        hold.cancel_wait = backlog.when_heard(lambda: self._unheard_heard(hold))

    def _unheard_heard(self, hold: _UnheardHold) -> None:
        """The audio the reply waited for was heard, with no speech in it: it plays."""
        if self._unheard is not hold:
            return  # superseded, or speech was found in it
        self._end_unheard_hold()
        if self.gate.paused and not self.overlapping:
            self.gate.resume()

    def _unheard_bound(self, hold: _UnheardHold) -> None:
        if self._unheard is not hold:
            return
        self._bridge.backstop("unheard_hold", hold.generation,
                              unheard_secs=round(hold.unheard_secs, 2),
                              held_secs=self._unheard_hold_secs)
        self._unheard_heard(hold)

    def _found_in_unheard(self) -> None:
        """The caller's speech was in the audio a held reply waited for: from here the reply
        is held as one the caller was already speaking over (the words decide)."""
        if self._unheard is None:
            return
        self._end_unheard_hold()
        if self.gate.paused and not self.barged:
            self.overlapping = True

    def _end_unheard_hold(self) -> None:
        hold, self._unheard = self._unheard, None
        if hold is not None:
            hold.cancel_wait()
            if hold.bound is not None:
                hold.bound.cancel()

    def _judge_held_reply(self) -> None:
        if not self.gate.paused:
            return  # decided meanwhile
        if self.barged:
            self.cut()
        else:
            self.heard(self._words)

    def vad_stopped(self) -> None:
        self.vad_speaking = False
        if self.gate.paused and not self.barged:
            # No words may follow (a cough, a door): resume once noise_resume_secs of audio
            # passed and the recogniser has nothing pending, unless a transcript came first.
            self._cancel_noise_timer()
            self._noise = self._timers.after(self._noise_resume, self._resume_after_noise)

    def _resume_after_noise(self) -> None:
        if self._recogniser.busy():
            self._noise = self._timers.on_settled(self._resume_after_noise)
            return
        self._noise = None
        if not self.vad_speaking and not self._transcribed:
            self.overlapping = False  # a sound the VAD never took for speech: no turn
        if self.gate.paused and not self.barged:
            self.gate.resume()

    def _cancel_noise_timer(self) -> None:
        if self._noise is not None:
            self._noise.cancel()
        self._noise = None

    # -- words ---------------------------------------------------------------------------

    def heard(self, text: str) -> None:
        """A transcript arrived; ``text`` is the turn so far. Over agent speech, a real turn
        cuts it and anything else resumes it."""
        self._cancel_noise_timer()
        self._transcribed = True
        self._words = text
        if not self.overlapping or self.barged:
            return
        if classify_overlap(text) is Overlap.TURN:
            self.cut()
        elif self.gate.paused:
            self.gate.resume()

    def typed_over_speech(self) -> None:
        """A typed turn arrived while the agent speaks: cut it. A typed turn is whole: unless
        spoken words of this turn are pending, the next sound over agent speech is judged
        afresh, not taken for this turn going on."""
        self.cut()
        if not self._transcribed:
            self.barged = False

    def settle(self) -> tuple[bool, bool]:
        """The turn is delivered: returns whether it began over agent speech and whether it
        cut it, and starts the next turn afresh. Output is never left on hold."""
        overlapping, barged = self.overlapping, self.barged
        self._end_unheard_hold()
        self.overlapping, self.barged, self._transcribed = False, False, False
        self._words = ""
        if self.gate.paused:
            if barged:
                self.cut()
                self.barged = False
            else:
                self.gate.resume()
        return overlapping, barged

    def cut(self) -> None:
        """A real turn over agent speech: the conversation invalidates; make sure it
        happened, and never leave output paused (side effects on the gate)."""
        self.barged = True
        self._cancel_noise_timer()
        self._end_unheard_hold()
        if self.conversation is not None:
            self.conversation.barge_in()
        gate = self.gate
        if (gate.paused or gate.speaking) and gate.latest > gate.floor:
            gate.invalidate(gate.latest, "barge_in")  # the conversation had nothing live
        if gate.paused:
            # Only under the no_audio_flush control can stale audio still be held here: let it
            # play on (that is the failure the control exists to expose), never hang the call.
            gate.resume()

    def stop(self) -> None:
        """The call ends: no decision will come for a pause still waiting for one, so the
        agent's held speech goes on (the gate lets queued audio play out before the end; left
        paused, the end of the call would wait behind it for ever)."""
        self._cancel_noise_timer()
        self._end_unheard_hold()
        if self.gate.paused and not self.barged:
            self.gate.resume()


class _UnheardHold:
    """A reply held until the caller audio captured before it has been heard."""

    def __init__(self, generation: int, unheard_secs: float):
        self.generation = generation
        self.unheard_secs = unheard_secs
        self.cancel_wait: Callable[[], None] = lambda: None
        self.bound: asyncio.TimerHandle | None = None
