"""What each intent does: the handler table, the desk an intent puts in focus, and the offers a
reply leaves standing for the next turn.

:data:`HANDLERS` maps the proposer's :class:`~agent.understanding.proposals.Intent` to its handler.
The intents of :data:`BEFORE_VALUES` (a person, goodbye) act on the caller's words alone, before
anything the turn said is validated or accepted; the others act on the revised ledger
(:func:`agent.service.turn_steps.decide`). An intent without a handler, or whose handler leaves the
turn open, gets :func:`next_step`: the desk in focus takes its next step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from agent.core.dependencies import Invalidation
from agent.core.ledger import FieldOp
from agent.core.names import (
    ASSET,
    BOOKING_REF,
    CONTACT,
    LANGUAGE,
    SITE,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.core.ops import Op
from agent.core.ports import BookingRecord, held_by
from agent.core.speech import SpeechKind
from agent.service.answer_desk import AnswerDesk
from agent.service.answer_scope import Topic
from agent.service.booking_desk import BookingDesk
from agent.service.booking_questions import confirmation
from agent.service.dialogue import CallContext
from agent.service.invalidation import invalidate_dependents
from agent.service.render import visits_held
from agent.service.repair import PERSON, REQUEST, Question
from agent.service.vocabulary import Focus, HandoffReason, Offer, OfferKind
from agent.service.workflow import Goal, GoalEvent
from agent.understanding.nlu import intents
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import CorrectionKind, Intent, Proposal, SlotRole


class Call(Protocol):
    """What the handlers read and change of a call (the controller has it)."""

    ctx: CallContext
    bookings: BookingDesk
    answers: AnswerDesk
    focus: Focus | None
    offered_person: bool  # the last reply offered a person

    def new_question(self, reason: str) -> None: ...
    async def handoff(self, reason: HandoffReason, ambiguity: tuple[str, ...]) -> None: ...


# A handler gets the offer the last reply made (see take_offer); True when it settled the turn.
Handler = Callable[[Call, Offer | None], Awaitable[bool]]


# -- before the turn's values -----------------------------------------------------------------
def another_visit(call: Call, p: Proposal) -> bool:
    """A request for another visit while this one is unsettled: finish this one first.

    "Book another visit for P-200 on Friday" is a fresh booking request (not a correction)
    whose values differ from the visit on the table. The ledger is left alone: overwriting
    it would cancel or rewrite the first visit. True when deferred: says so, and re-asks a
    standing confirmation.
    """
    ctx, desk = call.ctx, call.bookings
    snap = ctx.ledger.current
    if p.intent is not Intent.BOOK or p.correction is not CorrectionKind.NONE or not any(
            s.value is not None and snap.value(s.field) not in (None, s.value)
            for s in p.slots):
        return False
    draft = desk.draft()
    if desk.in_flight():
        ctx.say(("Let's finish the first visit before the next one.",
                 "That request is still being settled; I'll tell you as soon as it "
                 "is, then we can book the other visit."), SpeechKind.WAITING)
        return True
    if draft is not None:
        desk.workflow.await_yes(draft.id)
        ctx.ask(confirmation(draft, ("Shall I go ahead with the one I just read back?",),
                             ("Let's finish the first visit before the next one.",)))
        return True
    return False


def offer_standing(call: Call) -> bool:
    """The agent's last reply made an offer that stands for this turn (take_offer takes it)."""
    return bool(call.answers.offered_language or call.ctx.repair_offer or call.offered_person
                or call.answers.offered_person)


def take_offer(call: Call) -> Offer | None:
    """The offer the agent's last response made, now cleared: a person, an answer in another
    language, or a person because questions about a field kept failing."""
    answers, ctx = call.answers, call.ctx
    offer = None
    if answers.offered_language:
        offer = Offer(OfferKind.LANGUAGE, answers.offered_language)
    elif ctx.repair_offer:
        offer = Offer(OfferKind.REPAIR, ctx.repair_offer)
    elif call.offered_person or answers.offered_person:
        offer = Offer(OfferKind.PERSON)
    call.offered_person = answers.offered_person = False
    answers.offered_language = ctx.repair_offer = None
    return offer


def offer_person(call: Call, first: str) -> None:
    """Say ``first``, then offer a colleague; the offer stands for the next turn."""
    call.offered_person = True
    call.ctx.ask(Question(PERSON, ("A colleague can help with that.",
                                   "Shall I put you through?"), prefix=(first,), event=""))


def new_question_if_fresh(call: Call, p: Proposal) -> None:
    """A fresh booking request after a settled one is a new question (a new ledger), and so is
    a move or a cancel of another booking than the one just settled ("the P-100 one, could you
    move it to Wednesday?" after booking P-200): the booking it names is then found afresh.

    Only when nothing is in flight or awaiting an answer, and a request corrects nothing:
    "Actually Thursday" after a booking changes THAT booking instead.
    """
    desk = call.bookings
    if desk.target_ref is None or desk.in_flight() or desk.draft() is not None:
        return
    target = desk.records.get(desk.target_ref)
    if target is not None and target.status == "cancelled" and p.intent in (
            Intent.BOOK, Intent.RESCHEDULE, Intent.CANCEL, Intent.CORRECTION):
        # The booking just called off stands for nothing: "book the same pump for the 11th"
        # asks for a new visit, "move that one" means a booking that still stands
        call.new_question("after_cancellation")
    elif p.intent is Intent.BOOK and p.correction is CorrectionKind.NONE:
        call.new_question("new_booking_request")
    elif p.intent in (Intent.MAINTENANCE_QUESTION, Intent.POLICY_QUESTION) \
            and _settled(call, target) and _names_another_booking(desk, p):
        # A visit settled, then a question about another asset ("how tight should the seal
        # bolts be on the Rotterdam pump?" after moving the Utrecht one): the question is
        # about that asset alone, and the booking keeps its own
        call.new_question("question_about_another_asset")
    elif p.intent in (Intent.RESCHEDULE, Intent.CANCEL) and _names_another_booking(desk, p):
        call.new_question("another_booking")


def _settled(call: Call, target: BookingRecord | None) -> bool:
    """Nothing is left to do for the task: no goal, or its booking already stands as the call
    holds it (a move committed leaves its goal, and the ledger's values are the record's)."""
    if call.bookings.goal is Goal.NONE:
        return True
    held = call.ctx.ledger.current
    return target is not None and all(
        held.value(name) in (None, value) for name, value in (
            (ASSET, target.asset), (VISIT_DATE, target.date), (VISIT_WINDOW, target.window),
            (VISIT_TIME, target.time)))


def _names_another_booking(desk: BookingDesk, p: Proposal) -> bool:
    """The turn names a booking (by reference), an asset, or for a cancel a day, that is not
    the settled target's. A cancel declined and asked for again of another day ("no" to
    "Cancel booking BK-1001 on Tuesday 8 December?", then "cancel the one on the 9th") means
    the booking on that day, not the one it held (a move's day is where it goes, not which)."""
    target = desk.records.get(desk.target_ref or "")
    ref, asset, day = p.slot(BOOKING_REF), p.slot(ASSET), p.slot(VISIT_DATE)
    if ref is not None and ref.value:
        return ref.value != desk.target_ref
    if target is None:
        return False
    if asset is not None and asset.value is not None and asset.value != target.asset:
        return True
    return p.intent is Intent.CANCEL and day is not None and day.value is not None \
        and day.role is not SlotRole.NEGATED and day.value != target.date


# The values only a visit has: a correction that gives one is about the booking.
VISIT_ONLY = frozenset({VISIT_DATE, VISIT_TIME, VISIT_WINDOW, UNITS, SITE, CONTACT})


def set_focus(call: Call, p: Proposal, text: str) -> None:
    """The desk the intent puts in focus, and the booking goal or question topic it sets.
    ``text``: the turn's words, which say whether a visit asked for was worded as a move."""
    desk = call.bookings
    desk.move_named_nothing = p.intent is Intent.RESCHEDULE and not any(
        s.role is SlotRole.TO for s in p.slots)
    if p.intent in (Intent.BOOK, Intent.RESCHEDULE):
        call.focus = Focus.BOOKING
        desk.workflow.on(GoalEvent.WANT_BOOK if p.intent is Intent.BOOK
                         else GoalEvent.WANT_RESCHEDULE)
    elif p.intent is Intent.CANCEL:
        call.focus = Focus.BOOKING
        if desk.target_ref is None and desk.draft() is None and not desk.in_flight():
            desk.workflow.on(GoalEvent.FIND_CANCEL)  # made before this call: find which one
    elif p.intent in (Intent.MAINTENANCE_QUESTION, Intent.POLICY_QUESTION):
        call.focus = Focus.QUESTION
        call.answers.topic = (Topic.POLICY if p.intent is Intent.POLICY_QUESTION
                              else Topic.MAINTENANCE)
    elif p.intent is Intent.CORRECTION and call.focus is Focus.QUESTION \
            and desk.goal is not Goal.NONE and (p.go_ahead or any(
                s.field in VISIT_ONLY for s in p.slots)):
        # Back to the visit after a question: "so yes, please book the compressor visit",
        # "and make the visit Friday". A go-ahead is for an action, and a day, window, time,
        # count or address is a visit's value, never a question's.
        call.focus = Focus.BOOKING
    elif p.intent is Intent.CORRECTION and desk.goal is Goal.NONE \
            and (call.focus is Focus.QUESTION or desk.target_ref is None) \
            and any(s.field in VISIT_ONLY for s in p.slots):
        # With no visit asked for (after a question, or after a booking called off), a day,
        # window or time that changes one the call holds (a "Morning." heard as the window,
        # "this morning" said in the question, the cancelled visit's day) asks for a visit:
        # "then put me down for Thursday afternoon, no, make that Friday afternoon", "could
        # you book the same pump for the Friday after next?". It is read back first.
        call.focus = Focus.BOOKING
        # ... unless it was worded as a move of a visit the account does not have ("could
        # you move our Harbour Road visit to Friday then?" after a cancel found nothing):
        # the caller hears there is none to move before the new one is read back
        moves = desk.holds_no_booking() and \
            intents.explicit_intent(normalise(text)) is Intent.RESCHEDULE
        desk.workflow.on(GoalEvent.WANT_RESCHEDULE if moves else GoalEvent.WANT_BOOK)


# -- the handlers -----------------------------------------------------------------------------
async def to_person(call: Call, offer: Offer | None) -> bool:
    """The caller asked for a person: hand the call over."""
    await call.handoff(HandoffReason.CALLER_ASKED, ())
    return True


async def goodbye(call: Call, offer: Offer | None) -> bool:
    """The caller said goodbye: say it back."""
    call.ctx.say(("Thanks for calling.", "Goodbye."))
    return True


async def cancel(call: Call, offer: Offer | None) -> bool:
    """The caller wants to cancel: settled here when a draft was all there was to cancel, or
    when the cancellation read back to them is what they ask for again (their yes)."""
    if call.bookings.cancel_awaits_yes():
        return call.bookings.yes()
    if call.bookings.cancel_intent():
        call.ctx.say(("Okay, I've dropped that request.", "Nothing was booked."))
        return True
    return False


async def move(call: Call, offer: Offer | None) -> bool:
    """The caller wants a booking moved: settled here when the move read back to them, with
    the values it was read back with, is what they ask for again (their yes: "Move booking
    BK-1 ... Shall I go ahead?" "Move it." as for a cancel). Otherwise the desk goes on."""
    if call.bookings.move_awaits_yes():
        return call.bookings.yes()
    return False


async def agree(call: Call, offer: Offer | None) -> bool:
    """The caller agreed to what was last put to them: the standing offer, else the draft."""
    if offer is None:
        return call.bookings.yes()
    if offer.kind is OfferKind.PERSON:
        await call.handoff(HandoffReason.CALLER_ACCEPTED_PERSON, ())
    elif offer.kind is OfferKind.REPAIR:
        await call.handoff(HandoffReason.REPAIR_FAILED, (f"repair: {offer.value}",))
    else:  # the answer in the language offered
        result = call.ctx.accept([FieldOp.set(LANGUAGE, offer.value, "agent_offer_accepted")],
                                 "agent_offer_accepted")
        invalidate_dependents(call.ctx, call.bookings, result.changed)
        await call.answers.pursue()
    return True


async def decline(call: Call, offer: Offer | None) -> bool:
    """The caller said no to the draft awaiting a yes (a no to an offer just lets it lapse).
    A no to "Which booking do you mean?" for a cancel or a move ("No, leave that one alone,
    never mind") drops the request: the agent never picks a booking the caller would not
    name."""
    if offer is not None:
        return False
    desk, asked = call.bookings, call.ctx.on_table()
    awaited, action = desk.no()
    if awaited and action is not None and action.op is Op.CANCEL_BOOKING \
            and not desk.in_flight():
        # "don't cancel it after all": the booking stays, and the cancel is dropped
        desk.workflow.on(GoalEvent.SETTLED)
        ref = dict(action.args)["ref"]
        kept = f"Okay, I won't cancel it. Booking {ref} stays as it is."
        if desk.rebooked(ref):
            # the booking made before the caller corrected its asset stays, as they say; the
            # corrected asset's visit they asked for is read back
            call.ctx.say((kept,))
            await desk.realign()
            return True
        call.ctx.ask(Question(REQUEST, (kept, "Is there anything else I can help with?"),
                              event=""))
        return True
    if awaited:
        call.ctx.say(("Okay, I won't.", "What would you like to change?"), SpeechKind.QUESTION)
        return True
    if asked is not None and asked.question.field == BOOKING_REF and desk.target_ref is None \
            and desk.goal in (Goal.CANCEL, Goal.RESCHEDULE) and not desk.in_flight():
        desk.workflow.on(GoalEvent.SETTLED)
        call.ctx.ask(Question(REQUEST, ("Okay, I'll leave your bookings as they are.",
                                        "Is there anything else I can help with?"), event=""))
        return True
    return False


async def about_terms(call: Call, offer: Offer | None) -> bool:
    """A question about fees, notice, how long a visit takes or what happens if it is
    cancelled or moved: no document of this agent covers them, so it says so and offers a
    colleague. Nothing the turn said is applied, and the request on the table stands."""
    offer_person(call, "I don't have that in my documents, so I won't guess.")
    return True


async def about_visits(call: Call, offer: Offer | None) -> bool:
    """A question about the visits the caller has ("when's the engineer coming?"): answered
    from the booking system's records, never from what the call holds; nothing the turn said
    is applied, and the request on the table stands: the question it answered is put again."""
    try:
        records = await call.bookings.dispatcher.port.bookings()
    except Exception:  # noqa: BLE001 - said plainly; the call goes on
        call.ctx.say(("I can't reach the booking system just now, so I can't tell you.",
                      "Please try again in a moment."), SpeechKind.INFO)
        return True
    mine = sorted(held_by(records, call.ctx.caller.account), key=lambda r: (r.date, r.time or ""))
    asked = call.ctx.on_table()
    call.ctx.say(visits_held(mine, call.ctx.caller), SpeechKind.INFO)
    if asked is not None and asked.question.field:
        # the question the caller answered with theirs is put again, afresh ("Which day would
        # suit you?" "What have we already got booked?" "You have one visit booked: ... Which
        # day would suit you?"), never as a step of the repair ladder
        call.ctx.answered_since_asked = True
        call.ctx.ask(asked.question)
    return True


HANDLERS: dict[Intent, Handler] = {
    Intent.HUMAN: to_person,
    Intent.GOODBYE: goodbye,
    Intent.TERMS_QUESTION: about_terms,
    Intent.STATUS_QUESTION: about_visits,
    Intent.CANCEL: cancel,
    Intent.RESCHEDULE: move,
    Intent.YES: agree,
    Intent.NO: decline,
}
# Intents whose handler acts before the turn's values: nothing said alongside is applied.
BEFORE_VALUES = frozenset({Intent.HUMAN, Intent.GOODBYE, Intent.TERMS_QUESTION,
                           Intent.STATUS_QUESTION})


async def next_step(call: Call, invalidation: Invalidation, asked: bool) -> None:
    """The desk in focus takes its next step; with nothing in focus, ask how to help."""
    if call.focus is Focus.BOOKING:
        await call.bookings.realign()
    elif call.focus is Focus.QUESTION:
        # Answer again only when asked again or when something the answer read changed, or
        # ask again while the question still lacks what it needs: after "not the seal kit",
        # "The impeller." (a part no document covers) climbs the ladder like any answer that
        # settles nothing, never a bare "Okay." under the seal kit's earlier answer
        answers = call.answers
        if asked or answers.stale_after(invalidation) or answers.last_resolution is None \
                or answers.missing(call.ctx.ledger.current) is not None:
            await answers.pursue()
    elif not call.bookings.in_flight():
        call.ctx.ask(Question(REQUEST, ("How can I help?", "I can book a service visit "
                                        "or answer a maintenance question."), event=""))
