"""Reads a tab's session into what the panels show: transcript, latency turns, panel HTML.

Read-only: rendering never changes the session, so any number of polls may run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.core.trace import TraceEvent
from ui import panels
from ui.panels import TranscriptLine, TurnLatency
from ui.session_hub import TabSession

# Controller events that mark "the agent decided what to do" for the waterfall.
DECISIONS = frozenset({"confirmation_requested", "clarification_requested", "action_proposed",
                       "action_dispatched", "retrieval_started", "handoff", "field_rejected",
                       "answer_spoken", "confirmation_spoken"})


def transcript(session: TabSession) -> tuple[TranscriptLine, ...]:
    """Caller turns (from ``user_turn_final``) and agent plans interleaved in trace order.

    With a voice link the output side reports playback (``agent_speech_started``/``stopped``
    with reason ``completed`` or ``cut``): a plan invalidated before it finished playing is cut
    (or dropped, if it never started). Typed-only, the sink's 15 characters per second rule
    decides (docs/call-scripts.md, "Run semantics").
    """
    events = session.trace.events
    started = {e.generation for e in events if e.name == "agent_speech_started"}
    completed = {e.generation for e in events if e.name == "agent_speech_stopped"
                 and e.get("reason") == "completed"}
    reasons = {e.get("invalidated", e.generation): str(e.get("reason") or "")
               for e in events if e.name == "generation_invalidated"}
    if started or session.sink.downstream is not None:
        cut_at = {g: (r if g in started else "dropped before playing")
                  for g, r in reasons.items() if g not in completed}
    else:
        cut_at = dict(session.sink.invalidated)
    lines: list[tuple[float, TranscriptLine]] = []
    for i, e in enumerate(events):
        if e.name == "user_turn_final":
            text = e.get("text")
            if text is None or str(text).startswith("sha256:"):
                text = "(private: run with a debug trace to show the words)"
            if lines and lines[-1][1].text == str(text) and not any(
                    lines[-1][0] < p <= i for p in session.sink.positions):
                continue  # the voice pipeline and the controller both report one turn
            lines.append((i, TranscriptLine("caller", str(text))))
    for plan, position in zip(session.sink.plans, session.sink.positions, strict=True):
        g = plan.generation
        # Spoken after the first ``position`` events: it sits just before event ``position``.
        lines.append((position - 0.5, TranscriptLine("agent", plan.text, g, g in cut_at,
                                                     str(plan.kind), cut_at.get(g, ""))))
    lines.sort(key=lambda item: item[0])
    return tuple(line for _, line in lines)


def latencies(events: Sequence[TraceEvent]) -> tuple[TurnLatency, ...]:
    """One waterfall row per final caller turn, measured from its last voiced frame.

    The voice pipeline emits ``turn_latency`` per answered turn; those rows are used as they
    are. Otherwise rows are derived from the trace: zero is ``last_voiced_t`` on
    ``user_turn_final`` when present, else the event's own time (a typed turn).
    """
    measured = [e for e in events if e.name == "turn_latency"]
    if measured:  # the voice pipeline measured each turn on the monotonic clock: use that
        return tuple(TurnLatency(n + 1, e.get("transcript_ms"), e.get("decision_ms"),
                                 e.get("first_output_ms", e.get("first_tts_audio_ms")))
                     for n, e in enumerate(measured))
    turns: list[TurnLatency] = []
    finals = [i for i, e in enumerate(events) if e.name == "user_turn_final"]
    for n, start in enumerate(finals):
        end = finals[n + 1] if n + 1 < len(finals) else len(events)
        final = events[start]
        zero = final.get("last_voiced_t", final.t)
        window = events[start + 1:end]
        decision = next((e.t for e in window if e.name in DECISIONS), None)
        audio = next((e.t for e in window if e.name == "agent_speech_started"), None)

        def ms(t: float | None, zero: float = zero) -> float | None:
            return None if t is None else max(0.0, (t - zero) * 1000.0)

        turns.append(TurnLatency(n + 1, ms(final.t), ms(decision), ms(audio)))
    return tuple(turns)


@dataclass(frozen=True, slots=True)
class PanelHTML:
    transcript: str
    ledger: str
    actions: str
    evidence: str
    bookings: str
    notifications: str
    trace: str
    waterfall: str
    status: str


async def render_all(session: TabSession) -> PanelHTML:
    """Every panel for ``session`` as it is now."""
    snap = session.conversation.ledger.current
    # Stateless highlight: the rows the latest revision changed (every poll agrees on them).
    changed = tuple(name for name, rec in snap.fields if rec.updated_at == snap.revision)
    world = session.world
    busy = "working…" if session.conversation.busy else "idle"
    status = (f'<span class="amend-status">{panels.esc(session.persona.name or session.persona_id)}'
              f" · question {panels.esc(snap.question)} · revision {snap.revision} · "
              f"{busy}</span>")
    return PanelHTML(
        transcript=panels.render_transcript(transcript(session)),
        ledger=panels.render_ledger(snap, changed),
        actions=panels.render_actions(world.actions()),
        evidence=panels.render_evidence(world.evidence()),
        bookings=panels.render_bookings(await world.bookings()),
        notifications=panels.render_notifications(await world.notifications()),
        trace=panels.render_trace(session.trace.events),
        waterfall=panels.render_waterfall(latencies(session.trace.events)),
        status=status,
    )
