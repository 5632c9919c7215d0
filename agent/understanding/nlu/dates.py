"""Dates read against the call's clock, with the domain rules of docs/call-scripts.md pinned.

dateparser reads month names and relative offsets ("December 3rd", "Dec 3", "3rd of Dec",
"tomorrow", "in 2 days", "in 2 weeks", "a week tomorrow") against ``RELATIVE_BASE``. Its defaults
are wrong for a booking line in several places, so those rules are ours:

- a bare weekday ("Thursday", "Thurs", "Thu") is the next such day within seven days; said ON
  that weekday it is ambiguous (today, or in a week) and comes back with two candidates and no
  value;
- "next Thursday" while this week's Thursday (weeks start on Monday) is still ahead is
  ambiguous; once it is past (or today) it is the coming one;
- "the 3rd" / "the third" is the next 3rd at or after today;
- "Tuesday next week", "next week Tuesday" and "Tuesday of next week" are the Tuesday of the
  week after this one;
- "a week on Friday", "Friday week" and "the Friday after next" are the Friday after the coming
  one ("two weeks on Friday", "Friday fortnight": the one after that);
- "end of the week" is this week's Friday (next week's once this week's is past), "end of next
  week" next week's; "the start of next week" is next Monday; "early next week" is Monday or
  Tuesday of next week and "late next week" Thursday or Friday (candidates: the agent asks);
  "the weekend" is Saturday or Sunday;
- "the first of next month" is the 1st of the next month ("the 15th of this month" likewise);
- "in a couple of days" is two days from today.

A month and day without a year is this year's, unless that is more than two months past, in
which case it is next year's (people say "January 5th" in December). A date in the past is
returned as itself with ``past=True``; it is never moved silently, so the controller can say so
and ask. Everything here is pure and memoised per (text, now); the day arithmetic of the rules
is in :mod:`agent.understanding.nlu.date_rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

import dateparser

from agent.understanding.nlu import lexicon, ordinals
from agent.understanding.nlu.date_rules import (
    next_month,
    of_month,
    ordinal_date,
    week_after,
    week_of,
    week_part,
    weekday_dates,
    weeks_said,
)

_WD = ordinals.WD
_ORD = ordinals.ORD
# "a week on Friday" without its "a", unless a word before makes "week" another week's
_BARE_WEEK = "".join(f"(?<!{w} )" for w in ("this", "next", "last", "that", "the", "same",
                                            "every", "each", "per", "one"))
_YEAR = r"(?:,? \d{4})?"
_MONTH = rf"(?:{lexicon.MONTHS})"
# Weekday abbreviations that are also everyday words ("we sat down", "the sun", "we'd" heard as
# "wed", "c'mon"): a weekday only when the words around them do not make them the other word.
_NOT_A_WEEKDAY: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "sat": (re.compile(r"(?:\b(?:i|we|you|they|he|she|it|who|was|were|had|have|has|been|just"
                       r"|and)|')\s*$"),
            re.compile(r"^\s*(?:down|on|in|at|there|here|with|by|around|up|out|back)\b")),
    "sun": (re.compile(r"(?:\b(?:the|a|in|of|some|more|no)|')\s*$"),
            re.compile(r"^\s*(?:is|was|shines|shining|came|comes|goes|went|set|sets|rise"
                       r"|rises|cream|light|screen|'s)\b")),
    "wed": (re.compile(r"(?:\b(?:got|get|getting|newly|be|were|was|are|is)|')\s*$"),
            re.compile(r"^\s*(?:like|love|need|prefer|want|be|rather|have|appreciate|take"
                       r"|do|go|need|better|ask|come|call|also|still|just|probably|really)\b")),
    "mon": (re.compile(r"'\s*$"), re.compile(r"^(?!)")),
}
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    # the first of next month, the 15th of this month, the start of next month
    ("of_month", re.compile(
        r"\b(?:the )?(?:(?P<day>\d{1,2})" + _ORD + r"?|(?P<edge>start|beginning|end))"
        r" of (?:the )?(?P<which>next|this|following|coming) month\b")),
    ("month_end", re.compile(r"\b(?:the )?end of (?:the|this) month\b")),
    ("month_day", re.compile(
        # not "January 1st thing": "first thing" with the comma before it lost is a window
        rf"\b{_MONTH} (?:the )?\d{{1,2}}{_ORD}?\b{_YEAR}(?! (?:{lexicon.UNIT_NOUNS}|thing)\b)"
        rf"|\b(?:the )?\d{{1,2}}{_ORD}? (?:of )?{_MONTH}\b{_YEAR}"
    )),
    # end of the week, start of next week, early next week, the weekend
    ("week_part", re.compile(
        r"\b(?:the )?(?P<part>end|start|beginning|middle|early|earlier|late|later"
        r"|latter part|first part|back end|front end)(?: part)?(?: of)?(?: the)?"
        r" (?P<which>this|next|the) week\b(?! \d)"
        r"|\b(?P<mid>mid|midweek) next week\b"
        r"|\b(?P<weekend>(?:this|next|the) weekend)\b")),
    # a week on Friday (or "week on Friday": a recogniser drops the "a"), Friday week, 2 weeks
    # on Friday, Friday fortnight, the Friday after next
    ("week_after", re.compile(
        rf"\b(?:(?:(?P<n>a|1|2|3) (?P<unit>weeks?|fortnight)|{_BARE_WEEK}(?P<unit1>week|fortnight))"
        rf" (?:on|from|come) (?:this )?(?P<wd>{_WD})"
        rf"|(?P<wd2>{_WD}) (?P<unit2>week|fortnight)(?!s| \d)"
        rf"|(?:the )?(?P<wd3>{_WD}) after next)\b")),
    # a week tomorrow, a week today, tomorrow week, a week from today, this time next week, two
    # weeks from tomorrow, a fortnight today, "week from tomorrow" (a recogniser drops the "a")
    ("week_from_day", re.compile(
        rf"\b(?:(?:(?P<n>a|1|2|3) (?P<unit>weeks?|fortnight)|{_BARE_WEEK}(?P<unit1>week|fortnight))"
        r" (?:from |on |after )?(?P<day>today|tomorrow|now)"
        r"|(?P<day2>today|tomorrow) (?P<unit2>week|fortnight)|this time next week)\b")),
    # "that's all for today", "that's it for today": the call's end, not a day
    ("relative", re.compile(
        r"(?<!\ball for )(?<!\bit for )(?<!\beverything for )(?<!\benough for )(?<!\bdone for )"
        r"\b(?:the )?(?:day after tomorrow|day before yesterday|today|tomorrow|tomorow|tommorow"
        r"|tmrw|yesterday)\b"
        r"|\bin (?:(?P<n>\d{1,2}|a|a couple of|couple of) (?P<unit>days?|weeks?)|a fortnight)"
        r"(?:'? time)?\b")),
    ("week_of", re.compile(
        rf"\b(?:on )?(?P<wd>{_WD})(?: of)? (?P<q>next|this|the following) week\b"
        rf"|\b(?P<q2>next|this) week,? (?:on )?(?P<wd2>{_WD})\b"
        rf"|\b(?:on )?(?P<wd3>{_WD}),? the week after next\b"
        rf"|\bthe week after next,? (?:on )?(?P<wd4>{_WD})\b"
    )),
    ("weekday", re.compile(
        rf"\b(?:(?P<q>next|this coming|this|coming|last|past) )?(?P<wd>{_WD})s?\b"
    )),
    ("ordinal", re.compile(
        rf"\b(?:(?:the|on|on the) )?(?:(?P<day>\d{{1,2}}){_ORD}|(?<=the )(?P<forth>forth)"
        # "Thursday the 10", "Thursday, the 10": a recogniser writes "the tenth" after a
        # weekday without its suffix
        r"|(?:(?<=day the )|(?<=day, the ))(?P<bare>\d{1,2})"
        r"(?![\d:.]| ?(?:am|pm|oclock|15|30|45)\b))\b"
        # ("the 2nd one", "the 3rd visit": a rank; "the 17th one": the visit on the 17th,
        # ordinals.ordinal_heads_a_noun)
        rf"(?! (?:{lexicon.ASSET_NOUNS}|option|choice|time|week|floor|thing|of all"
        r"|place|call|attempt|try|line|shift|quarter|half|person|row|box|item"
        r"|generation|version|edition|unit|step|year|day|month|point"
        # "third and last, please book ...": a caller counting what they called about
        r"|and (?:last|final)(?:ly)?)\b)"
    )),
)


@dataclass(frozen=True, slots=True)
class DateReading:
    """One date expression found in the text. ``value`` is None when it is ambiguous."""

    text: str
    start: int
    end: int
    value: str | None
    candidates: tuple[str, ...] = ()
    past: bool = False
    weekday: int | None = None  # set for a weekday phrase ("Thursday"), which a date may pin


def _settings(now: datetime, prefer: str) -> dict[str, object]:
    return {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "PREFER_DATES_FROM": prefer,
        "RETURN_AS_TIMEZONE_AWARE": False,
        "REQUIRE_PARTS": ["day"],
    }


@lru_cache(maxsize=2048)
def _parse(text: str, now: datetime, prefer: str) -> date | None:
    parsed = dateparser.parse(text, languages=["en"], settings=_settings(now, prefer))
    return parsed.date() if parsed is not None else None


def warm_up(now: datetime) -> None:
    """Pay dateparser's first-call cost (loading its language data) ahead of the first turn."""
    _parse("december 3rd", now, "current_period")
    _parse("tomorrow", now, "future")


def _month_day(text: str, today: date, now: datetime, explicit_year: bool) -> date | None:
    parsed = _parse(text, now, "current_period")
    if parsed is None:
        return None
    if explicit_year:
        return parsed
    try:
        this_year = parsed.replace(year=today.year)
    except ValueError:  # February 29th outside a leap year
        return None
    if this_year < today and (today - this_year).days > 62:
        return this_year.replace(year=today.year + 1)
    return this_year


def _relative(match: re.Match[str], today: date, now: datetime) -> tuple[date, ...]:
    text = match.group(0).removeprefix("the ")
    text = re.sub(r"^tomorow|^tommorow|^tmrw", "tomorrow", text)
    if match.group("unit") or "fortnight" in text:
        count = match.group("n") or "a"
        number = 2 if "couple" in count else 1 if count == "a" else int(count)
        unit = match.group("unit") or "fortnight"
        days = number * (14 if unit == "fortnight" else 7 if unit.startswith("week") else 1)
        value = _parse(f"in {days} days", now, "future")
        return (value,) if value else ()
    value = _parse(text, now, "future")
    return (value,) if value else ()


def _is_weekday_word(text: str, match: re.Match[str]) -> bool:
    """False for an abbreviation that the words around it make an everyday word ("we sat")."""
    guards = _NOT_A_WEEKDAY.get(match.group("wd"))
    if guards is None:
        return True
    before, after = guards
    return not before.search(text[:match.start("wd")]) \
        and not after.search(text[match.end("wd"):])


def _reading(match: re.Match[str], kind: str, text: str, today: date,
             now: datetime) -> DateReading | None:
    said = match.group(0)
    found: tuple[date, ...] = ()
    weekday: int | None = None
    if kind == "iso":
        try:
            found = (date.fromisoformat(said),)
        except ValueError:
            return None
    elif kind == "of_month":
        found = of_month(match, today)
    elif kind == "month_end":
        found = (next_month(today) - timedelta(days=1),)
    elif kind == "month_day":
        explicit = re.search(r"\d{4}", said) is not None
        value = _month_day(said.removeprefix("the "), today, now, explicit)
        found = (value,) if value else ()
    elif kind == "week_part":
        found = week_part(match, today)
    elif kind == "week_after":
        found = week_after(match, today)
    elif kind == "week_from_day":
        start = today + timedelta(days=1) if "tomorrow" in said else today
        found = (start + timedelta(days=7 * weeks_said(match)),)
    elif kind == "relative":
        found = _relative(match, today, now)
    elif kind == "week_of":
        found = week_of(match, today)
    elif kind == "weekday":
        if not _is_weekday_word(text, match):
            return None
        weekday = lexicon.WEEKDAYS[match.group("wd")]
        found = weekday_dates(match.group("q"), weekday, today)
    elif kind == "ordinal":
        if said[0].isdigit() and not ordinals.bare_ordinal_is_a_day(text, match):
            return None  # "my 3rd call", "a person first": a rank, not a day of the month
        if ordinals.ordinal_heads_a_noun(text, match):
            return None  # "on 2nd thoughts", "the 1st time": the ordinal modifies a noun
        if match.group("bare") and not ordinals.after_a_weekday(text, match):
            return None
        day = match.group("day") or match.group("bare") or 4  # "the forth": the 4th
        value = ordinal_date(int(day), today)
        found = (value,) if value else ()
    if not found:
        return None
    isos = tuple(dict.fromkeys(d.isoformat() for d in found))
    iso = isos[0] if len(isos) == 1 else None
    past = all(d < today for d in found)
    return DateReading(said, match.start(), match.end(), iso, isos if iso is None else (),
                       past, weekday)


@lru_cache(maxsize=2048)
def read_dates(text: str, now: datetime) -> tuple[DateReading, ...]:
    """Every date expression in normalised ``text``, left to right, non-overlapping."""
    today = now.date()
    taken: list[tuple[int, int]] = []
    readings: list[DateReading] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            reading = _reading(match, kind, text, today, now)
            if reading is not None:
                taken.append((match.start(), match.end()))
                readings.append(reading)
    return tuple(sorted(readings, key=lambda r: r.start))


def is_past(iso: str, now: datetime) -> bool:
    """True when ``iso`` (a date) is before the call's local date."""
    return date.fromisoformat(iso) < now.date()


_WEEK = re.compile(r"\b(?:(?P<which>this|next|the following|the coming)\s+week"
                   r"|(?P<after>the week after next))\b")


@dataclass(frozen=True, slots=True)
class WeekReading:
    """A week named as a whole ("next week", "this week", "the week after next"): Monday to
    Sunday, and where it was said in the normalised text."""

    first: date
    last: date
    start: int
    end: int

    def holds(self, day: str) -> bool:
        """Whether the ISO date ``day`` falls in this week."""
        return self.first.isoformat() <= day <= self.last.isoformat()


def read_weeks(text: str, now: datetime) -> tuple[WeekReading, ...]:
    """The weeks normalised ``text`` names as a whole, left to right: no day in them is said,
    so they are no date ("the visit next week" describes a visit; "Tuesday next week" and "this
    time next week" are dates, read by :func:`read_dates`, and no week here). Weeks start on
    Monday."""
    days = read_dates(text, now)
    monday = now.date() - timedelta(days=now.date().weekday())
    out = []
    for match in _WEEK.finditer(text):
        if any(match.start() < r.end and r.start < match.end() for r in days):
            continue
        ahead = 14 if match.group("after") else 0 if match.group("which") == "this" else 7
        first = monday + timedelta(days=ahead)
        out.append(WeekReading(first, first + timedelta(days=6), match.start(), match.end()))
    return tuple(out)
