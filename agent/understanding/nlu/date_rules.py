"""Which days a date phrase names, counted from today: the booking line's own rules.

The arithmetic behind :mod:`agent.understanding.nlu.dates` (see its docstring for the rules):
a bare or qualified weekday, "the 3rd", the first of next month, parts of a week ("end of the
week", "early next week", "the weekend"), "a week on Friday", "Tuesday next week". Each returns
every day the phrase may mean (two when it is ambiguous). Pure.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from agent.understanding.nlu import lexicon


def week_monday(today: date, weeks_ahead: int = 0) -> date:
    """The Monday of this week, or of the week ``weeks_ahead`` weeks on."""
    return today - timedelta(days=today.weekday()) + timedelta(days=7 * weeks_ahead)


def weekday_dates(qualifier: str | None, weekday: int, today: date) -> tuple[date, ...]:
    ahead = (weekday - today.weekday()) % 7
    if qualifier in ("last", "past"):
        return (today - timedelta(days=(today.weekday() - weekday) % 7 or 7),)
    if qualifier == "next":
        if weekday > today.weekday():  # this week's is still ahead: this one, or the one after?
            first = today + timedelta(days=ahead)
            return (first, first + timedelta(days=7))
        return (today + timedelta(days=ahead or 7),)
    if ahead == 0:
        if qualifier == "this":
            return (today,)
        if qualifier in ("coming", "this coming"):
            return (today + timedelta(days=7),)
        return (today, today + timedelta(days=7))
    return (today + timedelta(days=ahead),)


def ordinal_date(day: int, today: date) -> date | None:
    year, month = today.year, today.month
    for _ in range(13):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            return candidate
        month = month % 12 + 1
        year += month == 1
    return None


def next_month(today: date, months: int = 1) -> date:
    """The 1st of the month ``months`` after today's."""
    index = today.year * 12 + today.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def of_month(match: re.Match[str], today: date) -> tuple[date, ...]:
    first = next_month(today, 0 if match.group("which") == "this" else 1)
    edge = match.group("edge")
    if edge == "end":
        return (next_month(first) - timedelta(days=1),)
    try:
        return (first.replace(day=int(match.group("day") or 1)),)
    except ValueError:  # "the 31st of next month" in a month of 30 days
        return ()


def week_part(match: re.Match[str], today: date) -> tuple[date, ...]:
    if match.group("weekend"):
        said = match.group("weekend")
        saturday = week_monday(today) + timedelta(days=5)
        if said.startswith("next") or today > saturday + timedelta(days=1):
            saturday += timedelta(days=7)
        days = tuple(d for d in (saturday, saturday + timedelta(days=1)) if d >= today)
        return days
    if match.group("mid"):
        return (week_monday(today, 1) + timedelta(days=2),)
    part, which = match.group("part"), match.group("which")
    monday = week_monday(today, 1 if which == "next" else 0)
    if part in ("end", "back end"):
        friday = monday + timedelta(days=4)
        if which != "next" and friday < today:  # said at the weekend: the coming week's end
            friday += timedelta(days=7)
        return (friday,)
    if part in ("start", "beginning", "front end"):
        if which != "next" and monday < today:
            return ()  # "the start of this week" is no day to visit on
        return (monday,)
    if part == "middle":
        return (monday + timedelta(days=2),)
    offsets = (0, 1) if part in ("early", "earlier", "first part", "front end") else (3, 4)
    return tuple(d for d in (monday + timedelta(days=o) for o in offsets) if d >= today)


def weeks_said(match: re.Match[str]) -> int:
    """How many weeks "a week", "2 weeks" or "a fortnight" says in a match with the groups
    ``n``, ``unit``, ``unit1`` and ``unit2`` (1 when it names none)."""
    unit = match.group("unit") or match.group("unit1") or match.group("unit2") or "week"
    count = match.group("n")
    return 2 if unit == "fortnight" else int(count) if count and count.isdigit() else 1


def week_after(match: re.Match[str], today: date) -> tuple[date, ...]:
    said = match.group("wd") or match.group("wd2") or match.group("wd3")
    weeks = 1 if match.group("wd3") else weeks_said(match)  # "the Friday after next": 1
    coming = weekday_dates(None, lexicon.WEEKDAYS[said], today)
    return tuple(d + timedelta(days=7 * weeks) for d in coming)


def week_of(match: re.Match[str], today: date) -> tuple[date, ...]:
    said = match.group("wd") or match.group("wd2") or match.group("wd3") or match.group("wd4")
    qualifier = match.group("q") or match.group("q2")
    weeks = 0 if qualifier == "this" else 2 if (match.group("wd3") or match.group("wd4")) else 1
    return (week_monday(today, weeks) + timedelta(days=lexicon.WEEKDAYS[said]),)
