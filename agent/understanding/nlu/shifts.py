"""A visit moved by an amount rather than to a value: "push it back a day", "bring it forward
a week", "two days later", "the day after", "an hour earlier". Pure.

The amount is counted from the value the call holds (the ledger's date, or its clock time for
hours and minutes). With nothing held to count from, nothing is read: the agent asks where
the visit should go. A date or time said in the turn wins over a shift ("push it back to
Friday"), so a shift is read only when the turn names neither.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from agent.core.names import VISIT_DATE, VISIT_TIME
from agent.understanding.proposals import ProposalContext, SlotValue

_AMOUNT = r"(?P<n>an?|\d{1,2}|(?:a )?couple(?: of)?|half an?)"
_UNIT = r"(?P<unit>day|week|hour|minute|min)s?"
_LATER = {"back", "on", "along", "out", "later", "after", "further"}
_EARLIER = {"forward", "forwards", "up", "earlier", "sooner", "before"}
# What a direction word must not lead into: "a week after Monday", "two days before the
# 10th" name their own base; "a week on Friday" is Friday week (the date readers' phrase).
_OWN_BASE = (r"(?! (?:the |next |this )?(?:\d|monday|tuesday|wednesday|thursday|friday"
             r"|saturday|sunday|tomorrow|today|next|that day))")
_MOVED = re.compile(
    # "push it back a day", "bring the visit forward by two days", "move it up a week"
    r"\b(?:push|move|shift|put|bring|knock)\w* (?:[\w'-]+ ){0,3}?"
    r"(?P<dir>back|forwards?|up|on|along|out|later|earlier) (?:by )?"
    + _AMOUNT + " " + _UNIT + r"\b"
    # "a day later", "2 days earlier", "an hour later", "half an hour sooner"
    r"|\b" + _AMOUNT.replace("?P<n>", "?P<n2>") + " " + _UNIT.replace("?P<unit>", "?P<unit2>")
    + r" (?P<dir2>later|earlier|sooner|after|before|further on)\b" + _OWN_BASE
    # "the day after", "the following week", "the day before instead"
    + r"|\bthe (?P<unit3>day|week) (?P<dir3>after|before)\b" + _OWN_BASE
    + r"|\bthe (?:following|next) (?P<unit4>day|week)\b(?! after| before)"
)


def _count(words: str | None) -> float:
    if not words or words in ("a", "an"):
        return 1
    if words.startswith("half"):
        return 0.5
    if "couple" in words:
        return 2
    return int(words)


def read_shift(text: str, context: ProposalContext) -> list[SlotValue]:
    """The date or time a shift in ``text`` lands on, counted from what the call holds; empty
    when the turn shifts nothing, or nothing is held to shift (see the module docstring)."""
    match = _MOVED.search(text)
    if match is None:
        return []
    groups = match.groupdict()
    unit = groups["unit"] or groups["unit2"] or groups["unit3"] or groups["unit4"] or ""
    direction = groups["dir"] or groups["dir2"] or groups["dir3"] or "after"
    sign = -1 if direction.split()[0] in _EARLIER else 1
    amount = _count(groups["n"] or groups["n2"]) * sign
    said = match.group(0)
    if unit in ("day", "week"):
        held = context.ledger.value(VISIT_DATE)
        if held is None or amount != int(amount):
            return []
        days = int(amount) * (7 if unit == "week" else 1)
        moved = date.fromisoformat(held) + timedelta(days=days)
        return [SlotValue(VISIT_DATE, moved.isoformat(), said)]
    held = context.ledger.value(VISIT_TIME)
    if held is None:
        return []  # a window has no clock time to count an hour from: the agent asks
    minutes = int(amount * (60 if unit == "hour" else 1))
    start = datetime.combine(date(2000, 1, 3), datetime.strptime(held, "%H:%M").time())
    moved_time = start + timedelta(minutes=minutes)
    if moved_time.date() != start.date():
        return []  # past midnight: not a time of the same day
    return [SlotValue(VISIT_TIME, moved_time.strftime("%H:%M"), said)]
