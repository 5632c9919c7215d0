"""The caller's turn read against the repair question it answers (:mod:`agent.service.repair`).

A plain "yes" to a question that proposed values gives those values; "the second one" picks an
option of a closed choice. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from agent.core.names import ASSET, BOOKING_REF, OPENED, VISIT_DATE
from agent.service.repair import CONFIRMATION, PERSON, REQUEST, TARGET, Asked, Step
from agent.understanding.nlu import dates, intents
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import Intent, Proposal, SlotValue


def read_answer(asked: Asked | None, p: Proposal, text: str,
                bookings: tuple[tuple[str, str, str], ...] = (),
                now: datetime | None = None) -> Proposal:
    """The caller's turn read against the question it answers.

    A plain "yes" to a question that proposed values (a yes/no on the most likely value, a
    choice with one option) gives those values; to "Is it about booking a service visit?" it is
    a booking request. So does a yes that opens a turn with values of its own ("Did you mean
    morning, P-100?" "Yes, Wednesday the 9th in the morning"): the values proposed that the
    turn does not give otherwise. "The first one" / "the second" picks an option of a closed
    choice. Asked which booking, a turn whose values all describe one of the caller's
    ``bookings`` (ref, asset, date) that the question left open names it ("The Thursday one."):
    they say which visit, not new values for it; so does "the later one" of those it named,
    and a week that holds one of them ("the one next week"; ``now`` is the call's clock).
    Any other turn is left as understood.
    """
    if asked is None:
        return p
    field = asked.question.field
    named = None
    if field == BOOKING_REF:
        offered = set(asked.options) | set(asked.question.candidates)
        days = {ref: day for ref, _, day in bookings if ref in offered}
        # picks range over the options the question named, or over every booking it was
        # about once a yes/no on one of them is on the table ("Do you mean booking HR-1?"
        # "The later one, please.")
        options = tuple(o for o in asked.options if o in days)
        named = _booking_described(p, offered, bookings) \
            or _picked(text, options if len(options) > 1 else tuple(days), days) \
            or _booking_in_week(p, text, offered, bookings, now)
    if named is not None:
        return replace(p, intent=Intent.INFORM, slots=(SlotValue(BOOKING_REF, named, text),),
                       reason=p.reason + "; named a booking asked about")
    given = {s.field for s in p.slots if s.value is not None or s.candidates}
    if p.intent is Intent.YES and asked.proposes:
        if field == REQUEST:
            return replace(p, intent=Intent.BOOK, reason=p.reason + "; yes to a repair question")
        extra = tuple(SlotValue(name, value, text) for name, value in asked.proposes
                      if name not in given)
        if extra:
            return replace(p, intent=Intent.INFORM, slots=p.slots + extra,
                           reason=p.reason + "; yes to a repair question")
    if _opens_with_yes(asked, p, text):
        extra = tuple(SlotValue(name, value, text) for name, value in _proposed(asked)
                      if name not in given)
        if extra:
            return replace(p, slots=p.slots + extra,
                           reason=p.reason + "; opened with yes to a repair question")
    if asked.step is Step.CLOSED_CHOICE and len(asked.options) > 1 and field not in (
            CONFIRMATION, PERSON, OPENED, REQUEST, TARGET):
        pick = _picked(text, asked.options, {o: o for o in asked.options}
                       if field == VISIT_DATE else {})
        if pick is not None:
            slots = tuple(s for s in p.slots if s.field != field)
            return replace(p, intent=Intent.INFORM, slots=slots + (
                SlotValue(field, pick, text),),
                reason=p.reason + "; picked an option of a repair question")
    return p


def _booking_described(p: Proposal, offered: set[str],
                       bookings: tuple[tuple[str, str, str], ...]) -> str | None:
    """The one booking asked about (``offered``, or any when the question named none) that
    every value of the turn describes, if the turn names only an asset or a day."""
    if p.intent not in (
            Intent.INFORM, Intent.CORRECTION, Intent.BOOK, Intent.RESCHEDULE, Intent.CANCEL):
        return None
    values = [(s.field, s.value) for s in p.slots]
    if not values or p.withdrawn or any(f not in (ASSET, VISIT_DATE) or v is None
                                        for f, v in values):
        return None
    fits = [ref for ref, asset, day in bookings if (not offered or ref in offered)
            and all(v == (asset if f == ASSET else day) for f, v in values)]
    return fits[0] if len(fits) == 1 else None


def _booking_in_week(p: Proposal, text: str, offered: set[str],
                     bookings: tuple[tuple[str, str, str], ...],
                     now: datetime | None) -> str | None:
    """The one booking asked about that falls in the week the turn names as a whole ("the
    one next week"), when the turn gives no value of its own."""
    if now is None or any(s.value is not None or s.candidates for s in p.slots):
        return None
    weeks = dates.read_weeks(normalise(text), now)
    fits = [ref for ref, _, day in bookings if (not offered or ref in offered)
            and any(w.holds(day) for w in weeks)]
    return fits[0] if len(fits) == 1 else None


def settled_by_yes(asked: Asked | None, p: Proposal, text: str) -> frozenset[str]:
    """The fields a yes settles: of the values the question on the table proposed ("Did you
    mean morning, P-100?"), those the turn (read with :func:`read_answer`) holds as proposed,
    when it is a yes or opens with one. A value the turn gives otherwise ("Yes, but the
    afternoon") is the turn's own. What the yes settles is as sure as the yes was heard; the
    turn's other values are as sure as their own words (:mod:`agent.service.turn_steps`)."""
    if asked is None or not _proposed(asked) or asked.question.field == REQUEST:
        return frozenset()
    if not (p.intent is Intent.YES or _opens_with_yes(asked, p, text)):
        return frozenset()
    held = {(s.field, s.value) for s in p.slots if s.value is not None and not s.candidates}
    return frozenset(name for name, value in _proposed(asked) if (name, value) in held)


def settled_by_restating(asked: Asked | None, p: Proposal) -> frozenset[str]:
    """The fields an answer settles by saying again what the question on the table proposed
    ("Did you mean Thursday 10 December, at 14:30, P-200?" "Thursday at half past two, pump
    P-200."): the caller heard the values read back and gave them again, and two hearings of
    their words agree. Only when every value the turn gives is one the question proposed, and
    it takes nothing back; an action is still read back in full before anything is done. A
    value said otherwise, or a turn that opens with a no, settles nothing."""
    if asked is None or not _proposes_visit_values(asked):
        return frozenset()
    if p.intent is not Intent.INFORM or p.withdrawn or p.cleared:
        return frozenset()
    if any(s.candidates for s in p.slots):
        return frozenset()
    given = {(s.field, s.value) for s in p.slots if s.value is not None}
    if not given or not given <= set(_proposed(asked)):
        return frozenset()
    return frozenset(name for name, _ in given)


def _proposed(asked: Asked) -> tuple[tuple[str, str], ...]:
    """The values a yes to ``asked`` settles: those it proposed, those it read back together
    from one unclear turn ("Did you mean morning, P-100?"), or the one value a check of one
    field names ("Did you mean afternoon?", a correction heard unclearly)."""
    candidates = asked.question.candidates
    one = ((asked.question.field, candidates[0]),) if len(candidates) == 1 else ()
    return asked.proposes or asked.question.together or one


def _proposes_visit_values(asked: Asked) -> bool:
    """``asked`` is a repair question that proposed values of a field of the visit (not a
    confirmation, an offer of a person, the request, the field meant, or "opened?")."""
    return bool(_proposed(asked)) \
        and asked.question.field not in (CONFIRMATION, PERSON, REQUEST, TARGET, OPENED)


def _opens_with_yes(asked: Asked, p: Proposal, text: str) -> bool:
    """A turn with values of its own that opens with a yes to a repair question that proposed
    values of a field of the visit."""
    return _proposes_visit_values(asked) and p.intent in (Intent.INFORM, Intent.CORRECTION) \
        and intents.starts_with_yes(normalise(text))


# One pick of an option the question named: "the second one", "the later one you mentioned",
# "that last booking". Several picks may make one answer if they agree: "The second one you
# mentioned, the later one."
_PICK = (r"(?:(?:the|that|it'?s|its|it is|um+|uh+|er+|erm)\s+)*"
         r"(?P<w>first|former|second|latter|last|earlier|earliest|later|latest)"
         r"(?:\s+(?:one|visit|booking|option|day|date))?"
         r"(?:\s+(?:you|that you)\s+(?:mentioned|said|named|listed|gave|read out|offered))?")
_AROUND = (r"(?:\W|\b(?:yes|yeah|yep|oh|um+|uh+|er+|erm|please|thanks|thank you|i think|i'?d say"
           r"|sorry|then|so|that'?s it|that one|no)\b)*")
_ONE_PICK = re.compile(rf"\b{_PICK}")
_ONLY_AROUND = re.compile(_AROUND)


def _picked(text: str, options: tuple[str, ...], days: dict[str, str]) -> str | None:
    """The option a turn of picks only chooses, or None: by its place in the question's
    ``options`` ("the first", "the second", "the last") or, where ``days`` gives each option
    its day, by time ("the earlier one", "the latest"). Picks that disagree choose nothing."""
    said = text.lower().strip()
    picks = list(_ONE_PICK.finditer(said))
    if len(options) < 2 or not picks or not _ONLY_AROUND.fullmatch(_ONE_PICK.sub(" ", said)):
        return None  # a turn of picks and the words around them only
    by_day = sorted(options, key=lambda o: days.get(o, ""))
    timed = len(days) == len(options) and len(set(days.values())) == len(options)
    chosen = set()
    for match in picks:
        word = match.group("w")
        if word.startswith(("earl", "lat")) and word != "latter":
            if not timed:
                return None
            chosen.add(by_day[0] if word.startswith("earl") else by_day[-1])
        else:
            chosen.add(options[0] if word in ("first", "former")
                       else options[1] if word == "second" else options[-1])
    return chosen.pop() if len(chosen) == 1 else None
