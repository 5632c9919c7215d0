"""RuleProposer: the deterministic default :class:`agent.understanding.proposals.Proposer`.

One turn in, one :class:`Proposal` out; no state is kept between turns (the ledger in the
context is the memory). Steps: normalise; split off negated stretches ("not Thursday") and read
them as withdrawals; read the rest as slot values; look for the correction signals, authority
boundaries and uncertain recognition; pick the intent and the correction kind by a fixed
precedence. A past date is proposed as itself and named in ``reason`` (the controller refuses
it). Side effects: none, apart from warming and filling dateparser's and our own memo caches.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime

from agent.core.names import ASSET, BOOKING_REF, OPENED, UNITS, VISIT_DATE, VISIT_TIME, VISIT_WINDOW
from agent.core.speech import Utterance
from agent.understanding import trust
from agent.understanding.nlu import corrections, dates, intents, shifts, times
from agent.understanding.nlu.normalise import normalise
from agent.understanding.nlu.precedence import authority_proposal, choose_intent, choose_kind
from agent.understanding.nlu.withdrawals import DECISION_FIELDS, read_turn, said_as_a_target
from agent.understanding.proposals import (
    CorrectionKind,
    Intent,
    Proposal,
    ProposalContext,
    SlotRole,
    SlotValue,
)

_CHANGES_THE_TASK = (Intent.BOOK, Intent.RESCHEDULE, Intent.CANCEL)
LOW_CONFIDENCE = trust.CONFIDENCE_FLOOR  # below it, the proposer doubts what it read
_NUMBER = re.compile(r"\b(\d{1,3})\b")


class RuleProposer:
    """Deterministic understanding. Construct once per process: construction warms dateparser."""

    def __init__(self, warm_at: datetime | None = None) -> None:
        dates.warm_up(warm_at or datetime.now().astimezone())
        normalise("warm up at two pm on the third")

    def propose(self, utterance: Utterance, context: ProposalContext) -> Proposal:
        """Read one final turn (pure with respect to ``context``; nothing is accepted here)."""
        text = normalise(utterance.text or "")
        if not text:
            return Proposal(Intent.UNKNOWN, confidence=utterance.confidence, reason="empty turn")
        text = _without_salutation(text, context)
        reading, withdrawn = read_turn(text, context)
        boundary = corrections.authority_boundary(text, context, reading.foreign_assets)
        if boundary is not None:
            return authority_proposal(text, boundary, utterance, context)
        cleared = corrections.cleared_fields(text, reading.slots)
        referent = corrections.find_referent(text, context)
        slots = list(reading.slots)
        if referent is not None:
            slots = [s for s in slots if s.field != referent.field]
            if referent.value is not None or referent.candidates:
                slots.append(SlotValue(referent.field, referent.value, referent.text,
                                       candidates=referent.candidates))
        if cleared:
            slots = [s for s in slots if s.field not in cleared]
        slots, counted_from = shifts.with_shift(text, slots, context)  # "push it back a day"
        if counted_from is not None and (VISIT_DATE, counted_from) not in withdrawn:
            # "push the Wednesday visit back a day": the visit moves off the day it names
            withdrawn = (*withdrawn, (VISIT_DATE, counted_from))
        slots = _answer_to_expected(text, slots, context)
        uncertain, slots = _uncertainty(utterance, context, slots, withdrawn)
        intent, corrective = choose_intent(text, slots, withdrawn, cleared, referent, context)
        if intent is Intent.RESCHEDULE:
            slots = _open_day_of_the_booking(text, slots, context)
        if intent in (Intent.CORRECTION, Intent.RESCHEDULE):
            slots = _the_booking_put_right(slots, withdrawn, context)
        if intent is Intent.CANCEL:
            slots, withdrawn = _not_where_a_move_went(text, slots, withdrawn)
        if uncertain and context.expecting is not None and intent in _CHANGES_THE_TASK \
                and not any(s.value is not None or s.candidates for s in slots):
            # "Let's move it in." heard at 0.26 for "The morning." while the agent asks for the
            # window: a new task heard unclearly and naming nothing is no answer, and no reason
            # to drop the question (the repair ladder takes its next step)
            intent = Intent.UNKNOWN
        kind = choose_kind(intent, corrective, slots, withdrawn, cleared, referent, uncertain,
                           context)
        if kind is CorrectionKind.REFERENT and intent is Intent.BOOK \
                and intents.adds_another(text):
            # "also the other pump needs a service too": a visit more, for the asset "the
            # other" names, not "I meant the other pump" about the visit already asked for
            kind, referent = CorrectionKind.NONE, None
        reasons = [f"intent {intent.value}", f"correction {kind.value}"]
        if reading.past_dates:
            reasons.append("past date " + ", ".join(reading.past_dates))
        # an opening yes consents only to a question on the table: after a booking is
        # confirmed, "Great, thanks. ... Could you make it an hour later?" thanks the agent
        # and asks for a change, which is read back before it is made
        go_ahead = intent is not Intent.NO and (intents.says_go_ahead(text) or (
            intents.starts_with_yes(text) and context.pending_confirmation and (
                intent is Intent.CORRECTION or _repeats_held(slots, intent, context))))
        slots = _with_roles(slots, intent, context)
        return Proposal(
            intent=intent,
            slots=tuple(slots),
            correction=kind,
            withdrawn=withdrawn,
            cleared=cleared,
            ambiguous_fields=(context.active_date_fields
                              if kind is CorrectionKind.AMBIGUOUS_TARGET else ()),
            referent=referent.value if referent else None,
            go_ahead=go_ahead,
            confidence=min(utterance.confidence, 1.0),
            reason="; ".join(reasons),
        )


def _without_salutation(text: str, context: ProposalContext) -> str:
    """``text`` without the greeting by the part of the day that opens it ("Morning, could somebody
    come out tomorrow first thing?" names the morning once, by "first thing"), when the turn
    opens the call's business: nothing accepted yet and no question on the table. Later,
    "Morning, I think" answers "morning or afternoon?"."""
    if context.expecting is not None or context.pending_confirmation or context.offered \
            or context.ledger.values():
        return text
    return text[times.opening_salutation(text):]


def _repeats_held(slots: list[SlotValue], intent: Intent, context: ProposalContext) -> bool:
    """"Yes, Friday", "yes, that's right, P-100 in the morning": a yes whose values are all
    already held repeats the read-back, so it is the yes (a value not held is a correction)."""
    return intent is Intent.INFORM and context.pending_confirmation and bool(slots) and all(
        s.value is not None and not s.candidates and context.ledger.value(s.field) == s.value
        for s in slots)


def _open_day_of_the_booking(text: str, slots: list[SlotValue],
                             context: ProposalContext) -> list[SlotValue]:
    """A move of a visit's part of the day or time names the visit by a day open between two
    readings ("Monday's appointment in Utrecht, could we make it the afternoon instead?", said
    on a Monday): the one reading a booking of the caller's is on, of the asset said if any, is
    the visit's day. Not a day the visit goes "to": that stays open, and the agent asks."""
    said = next((s for s in slots if s.field == VISIT_DATE), None)
    if said is None or said.value is not None or len(_weekdays(said.candidates)) != 1 \
            or not any(s.field in (VISIT_WINDOW, VISIT_TIME) for s in slots) \
            or said_as_a_target(text, said.text):
        return slots
    asset = next((s.value for s in slots if s.field == ASSET and s.value), None)
    booked = {day for _, booked_asset, day in context.bookings
              if day in said.candidates and asset in (None, booked_asset)}
    if len(booked) != 1:
        return slots
    return [replace(s, value=booked.pop(), candidates=()) if s is said else s for s in slots]


_WHEN = (VISIT_DATE, VISIT_WINDOW, VISIT_TIME)


def _the_booking_put_right(slots: list[SlotValue], withdrawn: tuple[tuple[str, str], ...],
                           context: ProposalContext) -> list[SlotValue]:
    """A change that takes back the day one booking of the caller's is on, naming no asset, is
    a change of that booking, whatever asset a question since has made the call's ("what's
    the torque on P-100?", then "the visit should be on the tenth, not the ninth", with P-200
    booked on the ninth): the asset is the booking's again, so the booking moves and no visit
    for the other asset is offered."""
    if any(s.field == ASSET for s in slots):
        return slots
    taken_back = {value for field, value in withdrawn if field == VISIT_DATE}
    named = {asset for _, asset, day in context.bookings if day in taken_back}
    if len(named) != 1 or context.ledger.value(ASSET) in (None, *named):
        return slots
    asset = named.pop()
    return [*slots, SlotValue(ASSET, asset, asset)]


def _not_where_a_move_went(text: str, slots: list[SlotValue],
                           withdrawn: tuple[tuple[str, str], ...]
                           ) -> tuple[list[SlotValue], tuple[tuple[str, str], ...]]:
    """A cancel names the visit by the day, part of the day or time it has, not by where a
    move the caller gave up on would have taken it ("the Utrecht visit on Wednesday, could we
    move it to Thursday? Oh, actually, just cancel it": Wednesday's). The value said after
    "to" is dropped, and the one it had replaced is the visit's again."""
    out = []
    for slot in slots:
        parts = [part.strip() for part in slot.text.split("/")]
        if slot.field not in _WHEN or not said_as_a_target(text, parts[-1]):
            out.append(slot)
            continue
        before = [value for field, value in withdrawn if field == slot.field]
        if len(parts) > 1 and len(before) == 1:
            out.append(replace(slot, value=before[0], text=parts[0], candidates=()))
            withdrawn = tuple(w for w in withdrawn if w != (slot.field, before[0]))
    return out, withdrawn


def _weekdays(days: tuple[str, ...]) -> set[int]:
    """The weekdays of ``days`` (one weekday: a day open between two readings, not "Thursday or
    Tuesday")."""
    try:
        return {date.fromisoformat(day).weekday() for day in days}
    except ValueError:
        return set()


def _with_roles(slots: list[SlotValue], intent: Intent,
                context: ProposalContext) -> list[SlotValue]:
    """``to`` for the values a correction or a move gives, ``new`` for everything else.

    Values that only identify the visit being moved or called off stay ``new``: a booking
    reference, the booked asset named again, every value of a cancellation.
    """
    if intent not in (Intent.CORRECTION, Intent.RESCHEDULE):
        return slots
    out = []
    for slot in slots:
        identifies = slot.field == BOOKING_REF or (
            intent is Intent.RESCHEDULE and slot.field == ASSET
            and slot.value == context.ledger.value(ASSET))
        out.append(slot if identifies else replace(slot, role=SlotRole.TO))
    return out


# A yes that closes the answer: "Thursday afternoon, yes.", "the morning, yes please"
_CLOSING_YES = re.compile(r"(?:^|[ ,])(?:yes|yeah|yep|that'?s right|that is right|correct)"
                          r"(?:,? (?:please|thanks|thank you))?[ .!]*$")


def _repeats_the_check(slots: list[SlotValue], context: ProposalContext) -> bool:
    """Every value the answer says is the one the check read back for its field ("Did you mean
    Thursday 3 December, in the afternoon, P-100?" "Thursday afternoon, yes.")."""
    return bool(slots) and all(
        (record := context.ledger.get(s.field)) is not None and not record.usable
        and record.candidates == (s.value,) for s in slots)


def _answer_to_expected(text: str, slots: list[SlotValue],
                        context: ProposalContext) -> list[SlotValue]:
    """A bare yes/no answers "was it opened?"; a bare number answers "how many units?"."""
    if context.expecting == UNITS and not any(s.field == UNITS for s in slots):
        numbers = _NUMBER.findall(text)
        if len(numbers) == 1 and 0 < int(numbers[0]):
            # "ten" after "did you mean 2 or 10 units?" is the count, not ten o'clock.
            return [*(s for s in slots if s.text.strip() != numbers[0]),
                    SlotValue(UNITS, numbers[0], numbers[0])]
    held = context.ledger.get(context.expecting) if context.expecting else None
    if held is not None and not held.usable and len(held.candidates) == 1 \
            and held.candidates[0] in context.offered \
            and not any(s.field == context.expecting for s in slots) \
            and (intents.answer_intent(text) is Intent.YES
                 or _CLOSING_YES.search(text) and _repeats_the_check(slots, context)):
        # "Did you mean P-100?" "Yes": the one candidate held back, which the question named
        # (not "Which procedure is it about?" "Great, thanks."), is now the caller's word,
        # and so is every other value held back from the same unclear turn, because the check
        # read them back together ("Thursday 3 December, in the morning?").
        given = {s.field for s in slots}
        together = [(name, record.candidates[0]) for name, record in context.ledger.fields
                    if name not in given and not record.usable and len(record.candidates) == 1
                    and record.updated_at == held.updated_at]
        return [*slots, *(SlotValue(name, value, text) for name, value in together)]
    if context.expecting == OPENED and not any(s.field == OPENED for s in slots):
        answer = intents.answer_intent(text)
        if answer is Intent.YES:
            return [*slots, SlotValue(OPENED, "yes", text)]
        if answer is Intent.NO:
            return [*slots, SlotValue(OPENED, "no", text)]
    return slots


def _uncertainty(utterance: Utterance, context: ProposalContext, slots: list[SlotValue],
                 withdrawn: tuple[tuple[str, str], ...] = ()) -> tuple[bool, list[SlotValue]]:
    """Not heard clearly (agent/understanding/trust.py: the value words, the no-speech
    probability, what the call expects, else the confidence), or alternatives that disagree on
    a decision field: keep every candidate."""
    uncertain = not trust.heard_clearly(utterance, slots, trust.expected(context),
                                        floor=LOW_CONFIDENCE,
                                        withdrawn=withdrawn)
    if uncertain:
        slots = [_with_confidence(s, utterance.confidence) for s in slots]
    primary = intents.answer_intent(normalise(utterance.text or ""))
    for alternative in utterance.alternatives:
        alt_text = normalise(alternative)
        other, _ = read_turn(alt_text, context)
        alt_answer = intents.answer_intent(alt_text)
        if primary and alt_answer and primary is not alt_answer:
            uncertain = True
        for index, slot in enumerate(slots):
            if slot.field not in DECISION_FIELDS:
                continue
            theirs = other.value(slot.field)
            if theirs is None or theirs.value == slot.value:
                continue
            mine = (slot.value,) if slot.value is not None else slot.candidates
            heard = (theirs.value,) if theirs.value is not None else theirs.candidates
            if set(heard) <= set(mine):
                continue
            uncertain = True
            candidates = tuple(dict.fromkeys((*mine, *heard)))
            slots[index] = SlotValue(slot.field, None, slot.text,
                                     min(slot.confidence, utterance.confidence), candidates)
    return uncertain, slots


def _with_confidence(slot: SlotValue, confidence: float) -> SlotValue:
    return SlotValue(slot.field, slot.value, slot.text, min(slot.confidence, confidence),
                     slot.candidates)
