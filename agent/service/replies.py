"""Small reply policies of the controller, and its JSON view for UIs.

Each function states what it says or emits; none touches the ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from agent.core.actions import Action
from agent.core.ledger import LedgerSnapshot
from agent.core.names import REGION, VISIT_DATE
from agent.core.ports import EvidenceBundle, Resolution
from agent.core.speech import SpeechKind
from agent.service.dialogue import CallContext
from agent.service.repair import CONFIRMATION, PERSON, Asked, Question, Step, field_question
from agent.service.spoken import spoken_date, spoken_time, values_line
from agent.service.validation import Rejection


class CallView(Protocol):
    """What :func:`describe` reads of a call (the controller has it): this module needs no
    import of the controller, which imports it."""

    ctx: CallContext

    @property
    def snapshot(self) -> LedgerSnapshot: ...
    @property
    def actions(self) -> Sequence[Action]: ...
    @property
    def last_evidence(self) -> EvidenceBundle | None: ...
    @property
    def last_resolution(self) -> Resolution | None: ...
    @property
    def busy(self) -> bool: ...


def speak_rejections(ctx: CallContext, rejections: tuple[Rejection, ...]) -> bool:
    """Emit ``field_rejected`` for each and ask what the first one needs.

    Returns True when the first crosses an authority boundary: the caller should be offered a
    person (the controller does that), and nothing is asked.
    """
    for r in rejections:
        ctx.reject(r.field, r.reason, r.value)
    first = rejections[0]
    if first.reason.startswith("authority"):
        return True
    if first.reason == "past_date":
        ctx.ask(field_question(VISIT_DATE, ctx.caller, reads=(), prefix=(
            f"{spoken_date(first.value)} has already passed.",)))
    elif first.reason == "outside_hours" and first.value:
        when = ("at night" if first.value == "night" else "in the evening"
                if first.value == "evening" else f"at {spoken_time(first.value)}")
        ctx.ask(field_question(first.field, ctx.caller, reads=(), prefix=(
            f"Sorry, we can't come {when}.",
            "We visit from 8 to 12 and from 1 to 5.")))
    elif first.reason == "trusted_scope":
        # "We bought it in the US": the scope of an answer comes from the records, never from
        # what is said. Say what the answer goes by; asking for the field would invite more.
        held = ctx.ledger.current.value(first.field) or (
            ctx.caller.region if first.field == REGION else None)
        noun = first.field.replace("_", " ")
        ctx.say((f"I can only go by the {noun} in your account's records"
                 + (f", which is {held}." if held else "."),
                 "A colleague can correct the records if they're wrong."), SpeechKind.INFO)
    elif first.reason == "unknown_booking" and first.value:
        # the booking system shows a caller their own account's bookings only: one it does
        # not show is not theirs or does not exist, and which of the two is not said
        ctx.ask(field_question(first.field, ctx.caller, reads=(), prefix=(
            f"I don't see booking {first.value} on your account.",)))
    else:
        ctx.ask(field_question(first.field, ctx.caller, reads=(),
                               prefix=("Sorry, I couldn't use that.",)))
    return False


YES_OR_NO = ("Sorry, I didn't catch that clearly.", "Was that a yes or a no?")


def ask_yes_or_no(ctx: CallContext) -> None:
    """Recognition heard a yes and a no for the same turn, or a yes unclearly: ask again,
    change nothing.

    The question on the table stands: a yes to this one is a yes to it (the values it
    proposed, the action it asked about). A confirmation asked this way again is a repair step.
    """
    sentences = YES_OR_NO
    standing = ctx.on_table()
    if standing is not None and standing.question.field == CONFIRMATION:
        question = replace(standing.question, sentences=sentences, prefix=(), closed=True,
                           event="clarification_requested", fields=(CONFIRMATION,))
    else:
        question = Question(CONFIRMATION, sentences, closed=True, fields=(CONFIRMATION,),
                            proposes=standing.proposes if standing is not None else ())
    ctx.ask(question)


def ask_offer_again(ctx: CallContext) -> None:
    """A yes to an offer was not heard clearly: put the offer again, as the same question.

    An offer asked as a question (a colleague, the repair ladder's offer) is said again with
    its question sentences only (a ``repair`` event, step ``offer_handoff``), and stays the
    same step of the ladder: a "no" to it goes on as a "no" to the offer would (``retry``).
    An offer that came with an answer ("Would that help?") is asked as a yes or a no
    (:func:`ask_yes_or_no`). The offer stands either way.
    """
    standing = ctx.on_table()
    if standing is None or not _offers_a_person(standing):
        ask_yes_or_no(ctx)
        return
    sentences = (YES_OR_NO[0],) + tuple(s for s in standing.sentences if s.endswith("?"))
    ctx.say(sentences, SpeechKind.QUESTION, reads=standing.question.reads)
    ctx.asked = replace(standing, sentences=sentences, turn=ctx.turn)
    ctx.emit("repair", step=str(Step.OFFER_HANDOFF), field=standing.question.field,
             failures=standing.failures)


def asked_again(ctx: CallContext) -> bool:
    """The question on the table was put again because its answer was not heard clearly
    (:func:`ask_yes_or_no`, :func:`ask_offer_again`)."""
    standing = ctx.on_table()
    return standing is not None and (standing.sentences == YES_OR_NO or (
        standing.sentences[:1] == YES_OR_NO[:1] and _offers_a_person(standing)))


def _offers_a_person(asked: Asked) -> bool:
    """The ladder's offer of a person, or a colleague offered as a question of its own."""
    return asked.step is Step.OFFER_HANDOFF or asked.question.field == PERSON


def acknowledge(ctx: CallContext, in_flight: bool, changed: bool) -> None:
    """Nothing else was said this turn: say truthfully what is going on. A turn that changed
    values names them: a correction that also said go ahead ("yes, but at three", "try
    again, but at three") is sent without a read-back, so this is where the caller hears the
    values that go."""
    line = values_line(ctx.ledger.current.values()) if in_flight or changed else ""
    if in_flight:
        ctx.say(("Got it." + (f" {line}." if line else ""),
                 "The earlier request is still being settled.",
                 "I'll tell you as soon as it is."), SpeechKind.WAITING)
    else:
        ctx.say(("Okay." + (f" {line}." if line else ""),))


def say_error(ctx: CallContext) -> bool:
    """The turn failed on our side: ask again, never twice in the same words.

    Returns True when it offered a person instead (the second time in a row).
    """
    sentences = ("Sorry, something went wrong on my side.", "Could you say that again?")
    last = ctx.asked
    again = last is not None and last.sentences == sentences
    if again:
        sentences = ("Sorry, that went wrong on my side again.",
                     "A colleague can help: shall I put you through?")
    ctx.say(sentences, SpeechKind.QUESTION)
    return again


def describe(controller: CallView) -> dict[str, Any]:
    """A JSON-ready summary of a call's state (ledger, actions, evidence). Read-only."""
    snap = controller.snapshot
    evidence = controller.last_evidence
    resolution = controller.last_resolution
    return {
        "question": snap.question, "revision": snap.revision,
        "generation": controller.ctx.generations.current,
        "fields": {n: {"value": r.value, "status": str(r.status), "version": r.version,
                       "source": r.source, "revision": r.updated_at,
                       "candidates": list(r.candidates)} for n, r in snap.fields},
        "actions": [{"id": a.id, "op": a.op, "status": str(a.status),
                     "based_on_revision": a.based_on_revision, "key": a.idempotency_key,
                     "args": dict(a.args), "result": dict(a.result)} for a in controller.actions],
        "resolution": str(resolution.outcome) if resolution else None,
        "citations": [c.revision for c in evidence.citations] if evidence else [],
        "busy": controller.busy, "handed_off": controller.ctx.handed_off,
    }
