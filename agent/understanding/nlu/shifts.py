"""A visit moved by an amount rather than to a value: "push it back a day", "bring it forward
a week", "two days later", "the day after", "an hour earlier". Pure.

The amount is counted from the value the call holds: the ledger's date (else the date of the
caller's booking the turn points at), or its clock time for hours and minutes. With nothing
held to count from, nothing is read: the agent asks where the visit should go. Another date or
time said for the field shifted wins over the shift ("push it back to Friday"). An amount the
caller corrects is the corrected one: "put back a week actually two weeks", "an hour later, no,
make that two hours" (the direction said first holds unless the correction says its own).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from agent.core.names import ASSET, VISIT_DATE, VISIT_TIME
from agent.understanding.proposals import ProposalContext, SlotValue

_AMOUNT_WORDS = r"an?|\d{1,2}|(?:a )?couple(?: of)?|half an?"
_UNIT_WORDS = r"day|week|hour|minute|min"
_AMOUNT = rf"(?P<n>{_AMOUNT_WORDS})"
_UNIT = rf"(?P<unit>{_UNIT_WORDS})s?"
_EARLIER = {"forward", "forwards", "up", "earlier", "sooner", "before"}
# What a direction word must not lead into: "a week after Monday", "two days before the
# 10th" name their own base; "a week on Friday" is Friday week (the date readers' phrase).
_OWN_BASE = (r"(?! (?:the |next |this )?(?:\d|monday|tuesday|wednesday|thursday|friday"
             r"|saturday|sunday|tomorrow|today|next|that day))")
_MOVED = re.compile(
    # "push it back a day", "bring the visit forward by two days", "move it up a week", "can
    # they come forward a day", "could it go back a week"
    r"\b(?:(?:push|move|shift|put|bring|knock|bump|slide|nudge)\w*|come|comes|coming|go|goes"
    r"|going) (?:[\w'-]+ ){0,8}?"
    r"(?P<said>(?P<dir>back|forwards?|up|on|along|out|later|earlier) (?:by )?"
    + _AMOUNT + " " + _UNIT + r")\b"
    # "out by a week", "back by two days": the amount with "by" needs no verb
    + r"|\b(?P<said5>(?P<dir5>back|forwards?|out) by " + _AMOUNT.replace("?P<n>", "?P<n5>")
    + " " + _UNIT.replace("?P<unit>", "?P<unit5>") + r")\b"
    # "a day later", "2 days earlier", "an hour later", "half an hour sooner"
    r"|\b" + _AMOUNT.replace("?P<n>", "?P<n2>") + " " + _UNIT.replace("?P<unit>", "?P<unit2>")
    + r" (?P<dir2>later|earlier|sooner|after|before|further on)\b" + _OWN_BASE
    # "the day after", "the following week", "the day before instead"
    + r"|\bthe (?P<unit3>day|week) (?P<dir3>after|before)\b" + _OWN_BASE
    + r"|\bthe (?:following|next) (?P<unit4>day|week)\b(?! after| before)"
)


# A later amount after a correcting word, with at most three words between that are not "not"
# ("no, not a week" withdraws that amount, it does not say it), or right after an amount
# ruled out ("no, not a week, two weeks").
_AMOUNT_CORRECTED = re.compile(
    r"\b(?:(?:actually|no|nope|sorry|i mean|i meant|or rather|rather|make (?:it|that)|wait"
    r"|hang on|scratch that)\b[ ,.]+(?:(?!not\b)[a-z']+[ ,.]+){0,3}?"
    rf"|not (?:{_AMOUNT_WORDS}) (?:{_UNIT_WORDS})s?[ ,.]+)"
    + _AMOUNT + " " + _UNIT
    + r"(?: (?P<dir>later|earlier|sooner|back|forwards?|up|on|out|along))?\b")


def _count(words: str | None) -> float:
    if not words or words in ("a", "an"):
        return 1
    if words.startswith("half"):
        return 0.5
    if "couple" in words:
        return 2
    return int(words)


def with_shift(text: str, slots: list[SlotValue],
               context: ProposalContext) -> tuple[list[SlotValue], str | None]:
    """``slots`` with the value a shift in ``text`` lands on (see the module docstring), and
    the date said in the turn that it counted from, if any.

    A date said in the turn that is the date counted from identifies the visit ("push the
    P-100 booking on Thursday the 3rd out by a week", "push the Wednesday visit back a day"):
    it is replaced by the shifted date, and returned, since the visit moves from it. Any
    other date or time said for the field shifted wins over the shift ("Wednesday the 9th
    instead, and an hour later" moves the day to the 9th and the hour by one)."""
    match = _MOVED.search(text)
    if match is None:
        return slots, None
    groups = match.groupdict()

    def first(name: str) -> str | None:  # the alternative that matched numbers its groups
        return next((v for k, v in groups.items() if v and k.rstrip("0123456789") == name),
                    None)

    unit = first("unit") or ""
    direction = first("dir") or "after"  # "the following day" says no direction: later
    count = _count(first("n"))
    said = first("said") or match.group(0)  # the amount's own words
    corrected = list(_AMOUNT_CORRECTED.finditer(text, match.end()))
    if corrected:  # "... a week actually two weeks": the last amount said is meant
        last = corrected[-1]
        unit, count = last.group("unit"), _count(last.group("n"))
        direction = last.group("dir") or direction
        said = text[last.start("n"):last.end()]
    amount = count * (-1 if direction.split()[0] in _EARLIER else 1)
    if unit in ("day", "week"):
        base = _held_date(slots, context)
        named = [s for s in slots if s.field == VISIT_DATE]
        if base is None or amount != int(amount) or any(
                s.value != base and (s.value is not None or base not in s.candidates)
                for s in named):
            return slots, None
        days = int(amount) * (7 if unit == "week" else 1)
        moved = date.fromisoformat(base) + timedelta(days=days)
        return [*(s for s in slots if s.field != VISIT_DATE),
                SlotValue(VISIT_DATE, moved.isoformat(), said)], base if named else None
    held = context.ledger.value(VISIT_TIME)
    if held is None or any(s.field == VISIT_TIME for s in slots):
        return slots, None  # a window has no clock time to count an hour from: the agent asks
    start = datetime.combine(date(2000, 1, 3), datetime.strptime(held, "%H:%M").time())
    moved_time = start + timedelta(minutes=int(amount * (60 if unit == "hour" else 1)))
    if moved_time.date() != start.date():
        return slots, None  # past midnight: not a time of the same day
    return [*slots, SlotValue(VISIT_TIME, moved_time.strftime("%H:%M"), said)], None


def _held_date(slots: list[SlotValue], context: ProposalContext) -> str | None:
    """The date a shift counts from: the ledger's; else the caller's booking the turn points
    at (the one for the asset it names, or the date it names), or their only booking."""
    held = context.ledger.value(VISIT_DATE)
    if held is not None or not context.bookings:
        return held
    named = {s.field: s.value for s in slots}
    # a day open between two readings ("Tuesday's booking", said on a Tuesday) points at a
    # booking on either
    days = next((s.candidates for s in slots if s.field == VISIT_DATE and s.value is None), ())
    dates = {d for _, asset, d in context.bookings
             if named.get(ASSET) in (None, asset) and named.get(VISIT_DATE) in (None, d)
             and (not days or d in days)}
    return dates.pop() if len(dates) == 1 else None
