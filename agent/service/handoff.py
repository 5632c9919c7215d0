"""Handing a call to a person: an explicit state object, never only a summary."""

from __future__ import annotations

from collections.abc import Iterable

from agent.core.actions import Action, ActionStatus
from agent.core.ports import BookingPort, HandoffState
from agent.core.speech import SpeechKind
from agent.service.dialogue import CallContext
from agent.service.vocabulary import HandoffReason


async def handoff(ctx: CallContext, port: BookingPort, actions: Iterable[Action],
                  reason: HandoffReason, ambiguity: tuple[str, ...] = ()) -> None:
    """Give a person the explicit state (field versions, pending effects, ambiguity).

    Side effects: one handoff in the sandbox queue, a ``handoff`` event, a spoken notice;
    afterwards no new side effect is dispatched in this call.
    """
    if ctx.handed_off:
        return
    ctx.handed_off = True
    snap = ctx.ledger.current
    unresolved = tuple(f"{name}: {'/'.join(r.candidates) or 'unresolved'}"
                       for name, r in snap.fields if str(r.status) == "unresolved")
    state = HandoffState(
        question=snap.question, revision=snap.revision,
        field_versions=tuple((n, r.value, r.version, str(r.status)) for n, r in snap.fields),
        pending_effects=tuple((a.id, a.op, str(a.status)) for a in actions
                              if a.status is not ActionStatus.CANCELLED),
        ambiguity=ambiguity + unresolved, reason=reason,
        summary=f"{reason}; revision {snap.revision}")
    try:
        ticket = await port.handoff(state)
    except Exception as exc:  # noqa: BLE001 - the caller still needs to hear the truth
        ticket = f"not-queued ({type(exc).__name__})"
    ctx.emit("handoff", reason=reason, ticket=ticket,
             pending=[f"{a}:{o}:{s}" for a, o, s in state.pending_effects])
    ctx.say(("I'm passing you to a colleague.",
             "They get everything we've said, including what is still open."), SpeechKind.INFO)

