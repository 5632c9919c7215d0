"""One caller turn, step by step: understand, then :data:`STEPS` in order (screen, orient, act
on words, validate, revise, invalidate, decide), then plan speech.

:func:`take_turn` runs them under the call's lock (the controller holds it). Each step says its
job in its docstring; a step returns True when it settled the turn, having planned what the
caller hears, and the steps after it are skipped. What each intent does is the handler table
:data:`agent.service.intent_handlers.HANDLERS`. No I/O here: everything outside goes through ports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from agent.core.dependencies import Invalidation
from agent.core.fields import FieldRecord, FieldStatus
from agent.core.ledger import FieldOp, UpdateOutcome
from agent.core.ports import BookingPort
from agent.core.speech import Utterance
from agent.service import validation
from agent.service.inference import implied_ops, implied_target, proposal_context
from agent.service.intent_handlers import (
    BEFORE_VALUES,
    HANDLERS,
    Call,
    another_visit,
    new_question_if_fresh,
    next_step,
    offer_person,
    offer_standing,
    set_focus,
    take_offer,
)
from agent.service.invalidation import invalidate_dependents
from agent.service.render import ask_which_field
from agent.service.repair import TARGET, Question
from agent.service.repair_answers import read_answer, settled_by_restating, settled_by_yes
from agent.service.replies import (
    acknowledge,
    ask_offer_again,
    ask_yes_or_no,
    asked_again,
    say_error,
    speak_rejections,
)
from agent.service.spoken import values_line
from agent.service.vocabulary import HandoffReason, Offer
from agent.understanding import trust
from agent.understanding.proposals import CorrectionKind, Intent, Proposal, Proposer, propose


class TurnCall(Call, Protocol):
    """What the steps read of a call besides what the handlers do (the controller has it)."""

    proposer: Proposer
    port: BookingPort


@dataclass(slots=True)
class Turn:
    """One caller turn as the steps hand it on: each step fills in what it found."""

    utterance: Utterance
    uid: str
    proposal: Proposal
    expect: trust.Expected  # what the call expects to hear (agent/understanding/trust.py)
    offer: Offer | None = None  # the offer the last reply made (orient)
    ops: list[FieldOp] = field(default_factory=list)  # the validated values (validate)
    changed: tuple[str, ...] = ()  # the fields the revision changed (revise)
    invalidation: Invalidation = field(default_factory=Invalidation)  # (invalidate)
    heard: Proposal | None = None  # the proposal, if heard clearly (validate)

    @property
    def source(self) -> str:
        """The provenance of the turn's values in the ledger."""
        return f"utterance:{self.uid}"

    @property
    def asked(self) -> bool:
        """The caller asked a question: the answer desk answers again."""
        return self.proposal.intent in (Intent.MAINTENANCE_QUESTION, Intent.POLICY_QUESTION)

    @property
    def acting_intent(self) -> Intent:
        """The intent the decision acts on: a "go ahead" that changed nothing is a yes."""
        p = self.proposal
        if p.intent is not Intent.CANCEL and p.go_ahead and not self.changed:
            return Intent.YES
        return p.intent


Step = Callable[[TurnCall, Turn], Awaitable[bool]]


async def take_turn(call: TurnCall, utterance: Utterance, uid: str) -> None:
    """One caller turn: understand, the steps until one settles it, then plan speech."""
    ctx = call.ctx
    before = len(ctx.plans)
    ctx.turn_began()
    try:
        turn = await understand(call, utterance, uid)
        for step in STEPS:
            if await step(call, turn):
                break
        await repair_handoff(call)
    except Exception as exc:  # noqa: BLE001 - one bad turn must not end the call
        # The ledger changes only through whole revisions, so nothing is half-written.
        ctx.emit("agent_error", utterance=uid, error=f"{type(exc).__name__}: {exc}")
        if say_error(ctx):
            call.offered_person = True
        return
    plan_speech(call, before, bool(turn.changed))


async def understand(call: TurnCall, utterance: Utterance, uid: str) -> Turn:
    """What the caller proposes, read against the question on the table (``proposal``)."""
    ctx = call.ctx
    context = await proposal_context(ctx, call.port, call.answers, call.bookings,
                                     offer=offer_standing(call))
    # A proposer that waits (a model: agent/understanding/model_proposer.py) is awaited; what
    # it refused is on the trace, and the reading is then the rules'.
    proposed = await propose(call.proposer, utterance, context)
    for reason in proposed.rejected:
        ctx.emit("proposal_rejected", utterance=uid, reason=ctx.trace.private(reason))
    proposal = read_answer(ctx.on_table(), proposed, utterance.text or "", context.bookings,
                           context.now)
    ctx.emit("proposal", utterance=uid, intent=str(proposal.intent),
             correction=str(proposal.correction),
             fields=[s.field for s in proposal.slots], go_ahead=proposal.go_ahead,
             source=proposal.source,
             reason=ctx.trace.private(proposal.reason) if proposal.reason else None)
    return Turn(utterance, uid, proposal, trust.expected(context))


async def retell(call: TurnCall, turn: Turn) -> bool:
    """The caller cut into a confirmation of a verified record: say it again, before anything
    else, unless the turn changes the booking (it names values, corrects or cancels: the desk's
    reply then says where the booking stands). A turn that asks nothing new ("Yes. [pause]
    Please go ahead.", "sorry?") is settled by it; a question or a goodbye is answered after it.
    """
    ctx, p = call.ctx, turn.proposal
    told, ctx.unheard = ctx.unheard, None
    if told is None or p.slots or p.intent in (Intent.CORRECTION, Intent.CANCEL) \
            or p.correction not in (CorrectionKind.NONE, CorrectionKind.UNCERTAIN):
        return False
    record = call.bookings.records.get(told.record[0])
    if record is None or record.version != told.record[1]:
        return False  # the booking changed since: the desk says where it stands
    ctx.confirm(told)
    if p.intent in (Intent.YES, Intent.NO, Intent.INFORM, Intent.UNKNOWN):
        take_offer(call)  # the offers of a reply the caller did not hear lapse with it
        return True
    return False


async def screen(call: TurnCall, turn: Turn) -> bool:
    """Change nothing yet: recognition heard a yes and a no, or another visit is asked for."""
    p = turn.proposal
    if p.intent in (Intent.YES, Intent.NO) and p.correction is CorrectionKind.UNCERTAIN \
            and turn.utterance.alternatives and all(len(s.candidates) < 2 for s in p.slots):
        ask_yes_or_no(call.ctx)  # heard both a yes and a no: never act on either (seed 001 #7)
        return True  # the question or offer on the table stands
    if doubtful_yes(p):
        # A yes not heard clearly (agent/understanding/trust.py) consents to nothing: a
        # read-back is not booked on it, nor a call handed over. The question or offer stands
        # and is asked as a yes or a no; a read-back climbs the repair ladder from there. A
        # second doubtful yes to an offer takes it: the caller twice said something like yes,
        # and a colleague or another language is the safe side of that doubt.
        if offer_standing(call):
            if not asked_again(call.ctx):
                ask_offer_again(call.ctx)
                return True
        elif call.ctx.on_table() is not None:
            ask_yes_or_no(call.ctx)
            return True
    return another_visit(call, p)


def doubtful_yes(p: Proposal) -> bool:
    """A yes that gives no value of its own, heard unclearly."""
    return p.intent is Intent.YES and p.correction is CorrectionKind.UNCERTAIN \
        and not any(s.value is not None or s.candidates for s in p.slots)


async def orient(call: TurnCall, turn: Turn) -> bool:
    """Take the last reply's offer, open a new question if fresh, and set the desk in focus."""
    turn.offer = take_offer(call)  # an offer stands for the very next turn only
    new_question_if_fresh(call, turn.proposal)
    set_focus(call, turn.proposal, turn.utterance.text)
    return False


async def act_on_words(call: TurnCall, turn: Turn) -> bool:
    """A person or goodbye acts at once: nothing else the turn said is applied. A goodbye
    that also says go ahead to the read-back on the table ("Yeah, go ahead with that. Cheers,
    bye now.") is that yes (:attr:`Turn.acting_intent`): the caller leaves believing it is
    booked, so it is sent, and what the booking system answers is said as after any yes."""
    p = turn.proposal
    if p.intent is Intent.GOODBYE and p.go_ahead and call.bookings.workflow.awaiting is not None:
        return False
    return p.intent in BEFORE_VALUES and await HANDLERS[p.intent](call, turn.offer)


async def validate(call: TurnCall, turn: Turn) -> bool:
    """Check the proposal against the caller's authority and the call's rules; refuse or ask."""
    ctx, p = call.ctx, turn.proposal
    if p.correction is CorrectionKind.AUTHORITY:
        # A boundary crossed with no value names the caller's identity (the trusted fields
        # of the session); what was crossed is in the reason.
        name = p.slots[0].field if p.slots else "identity"
        ctx.reject(name, f"authority:{p.authority or 'boundary'}")
        offer_person(call, "I can't change that for you: it's outside your account.")
        return True
    if p.correction is CorrectionKind.AMBIGUOUS_TARGET and p.ambiguous_fields:
        fields = tuple(p.ambiguous_fields)
        ctx.ask(Question(TARGET, ask_which_field(fields), options=fields, closed=True,
                         fields=fields))
        return True
    # A turn not heard clearly (agent/understanding/trust.py) holds back every value; alternatives
    # that disagree hold back only the values they disagree on (those arrive with several
    # candidates) - what every hypothesis heard the same is as good as a clear turn, and is read
    # back before booking.
    # A yes to a repair question settles what it proposed as surely as the yes was heard, and
    # the turn's other values are as sure as their own words ("Did you mean morning, P-100?"
    # "Yes, Wednesday the 9th in the morning": the pump and the window are the caller's word,
    # the day is checked if its words were doubtful).
    settled = settled_by_yes(ctx.on_table(), p, turn.utterance.text or "")
    if settled and not trust.heard_clearly(turn.utterance, (), turn.expect,
                                           floor=ctx.options.confidence_floor):
        settled = frozenset()  # the yes itself was doubtful: the whole turn is
    # A check answered by saying its values again: the two hearings agreeing is the evidence
    settled |= settled_by_restating(ctx.on_table(), p)
    own = [s for s in p.slots if s.field not in settled]
    uncertain = bool(own) and not trust.heard_clearly(
        turn.utterance, own, turn.expect, floor=ctx.options.confidence_floor,
        proposal_confidence=p.confidence, withdrawn=p.withdrawn)
    checked = await validation.validate(p, ctx.ledger.current, ctx.caller, ctx.clock.now(),
                                        call.port, turn.source, uncertain=uncertain,
                                        sure=settled)
    if checked.rejections:
        refuse(call, turn, checked)
        return True
    ctx.heard.update(checked.heard)  # "I don't see V-200 on your account" when asked
    ctx.rule_out(p.withdrawn, ((s.field, s.value) for s in p.slots if s.value),
                 declined=p.intent is Intent.NO)
    for record in checked.records:
        call.bookings.records[record.ref] = record
        call.bookings.workflow.adopt(record.ref)
    turn.ops = list(checked.ops)
    turn.heard = None if uncertain else p
    return False


def refuse(call: TurnCall, turn: Turn, checked: validation.Validated) -> None:
    """Say what was refused and why; an hour or a past date refused keeps the rest."""
    ctx, rejections = call.ctx, checked.rejections
    if all(r.reason in ("outside_hours", "past_date") for r in rejections):
        # "Thursday at 7 in the evening": the time is refused, the day is kept.
        refused = {r.field for r in rejections}
        kept = [op for op in checked.ops if op.name not in refused]
        result = ctx.accept(kept, turn.source) if kept else None
        if result is not None and result.outcome is UpdateOutcome.ACCEPTED:
            invalidate_dependents(ctx, call.bookings, result.changed)
    if speak_rejections(ctx, rejections):
        offer_person(call, "I can't make that change: it isn't on your account.")


def _newly_unsettled(held: FieldRecord | None, candidates: tuple[str, ...]) -> bool:
    """Whether candidates leave a field unsettled that was not so already with the same ones:
    never held, held with a value ("No, Monday, or Wednesday" at a read-back of Friday), or
    unsettled between other values. The same candidates again are no news."""
    return held is None or held.status is not FieldStatus.UNRESOLVED \
        or tuple(held.candidates) != tuple(candidates)


async def revise(call: TurnCall, turn: Turn) -> bool:
    """Accept the values, with what trusted records imply, as ONE new ledger revision."""
    ctx, ops = call.ctx, turn.ops
    ops += await implied_target(ctx, call.port, call.bookings, ops, turn.heard,
                                turn.utterance.text or "")
    ops += implied_ops(ctx, call.answers, call.focus, ops, turn.source)
    unsettled = [op for op in ops if op.candidates
                 and _newly_unsettled(ctx.ledger.current.get(op.name), op.candidates)]
    for op in unsettled:
        ctx.emit("field_unresolved", fields=[op.name],
                 candidates=[ctx.trace.private(c) for c in op.candidates])
    if not ops:
        return False
    result = ctx.accept(ops, turn.source)
    if result.outcome is UpdateOutcome.ACCEPTED:
        turn.changed = result.changed
    elif result.outcome is UpdateOutcome.DUPLICATE and turn.proposal.go_ahead:
        return False  # "Yes, Friday morning, go ahead": a yes that repeats what is held
    elif result.outcome is UpdateOutcome.DUPLICATE and turn.proposal.intent in (
            Intent.CORRECTION, Intent.INFORM) and not any(op.candidates for op in ops):
        # (The same candidates again settle nothing: the question is put again, a step up
        # the repair ladder, never "I already have that" of a value the ledger lacks.)
        ctx.emit("correction_duplicate", fields=[op.name for op in ops])
        line = values_line(ctx.ledger.current.values())
        ctx.say(("I already have that.",) + ((f"{line}.",) if line else ()))
        return True
    return False


async def invalidate(call: TurnCall, turn: Turn) -> bool:
    """Exactly the dependents of the changed fields go stale (agent/service/invalidation.py)."""
    turn.invalidation = invalidate_dependents(call.ctx, call.bookings, turn.changed)
    return False


async def decide(call: TurnCall, turn: Turn) -> bool:
    """The intent's handler acts on the revised ledger, else the desk in focus takes a step."""
    if turn.proposal.go_ahead and turn.changed:
        call.bookings.workflow.go_ahead_at(call.ctx.ledger.revision)
    handler = HANDLERS.get(turn.acting_intent)
    if handler is None or not await handler(call, turn.offer):
        await next_step(call, turn.invalidation, turn.asked)
    return True


# The steps after understanding, in order. Each returns True when it settled the turn.
STEPS: tuple[Step, ...] = (retell, screen, orient, act_on_words, validate, revise, invalidate,
                           decide)


async def repair_handoff(call: TurnCall) -> None:
    """The repair ladder ran out while this turn asked again: a person takes the call."""
    ctx = call.ctx
    if ctx.repair_handoff is not None:
        name, ctx.repair_handoff = ctx.repair_handoff, None
        await call.handoff(HandoffReason.REPAIR_EXHAUSTED, (f"repair: {name}",))


def plan_speech(call: TurnCall, before: int, changed: bool) -> None:
    """A turn nothing answered is acknowledged: say truthfully what is going on, and the
    values it changed (``changed``), which a correction that said go ahead sends unread."""
    if len(call.ctx.plans) == before:
        acknowledge(call.ctx, call.bookings.in_flight(), changed)
