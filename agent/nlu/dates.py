"""Dates read against the call's clock, with the domain rules of docs/call-scripts.md pinned.

dateparser reads month names and relative words ("December 3rd", "tomorrow", "in 2 days")
against ``RELATIVE_BASE``. Its defaults are wrong for a booking line in three places, so
those rules are ours:

- a bare weekday ("Thursday") is the next such day within seven days; said ON that weekday it
  is ambiguous (today, or in a week) and comes back with two candidates and no value;
- "next Thursday" while this week's Thursday (weeks start on Monday) is still ahead is
  ambiguous; once it is past (or today) it is the coming one;
- "the 3rd" is the next 3rd at or after today.

A month and day without a year is this year's, unless that is more than two months past, in
which case it is next year's (people say "January 5th" in December). A date in the past is
returned as itself with ``past=True``; it is never moved silently, so the controller can say so
and ask. Everything here is pure and memoised per (text, now).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

import dateparser

from agent.nlu import lexicon

_WD = "|".join(sorted(lexicon.WEEKDAYS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)"
_YEAR = r"(?:,? \d{4})?"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    ("month_day", re.compile(
        rf"\b(?:{lexicon.MONTHS}) (?:the )?\d{{1,2}}{_ORD}?\b{_YEAR}(?! (?:{lexicon.UNIT_NOUNS})\b)"
        rf"|\b(?:the )?\d{{1,2}}{_ORD}? (?:of )?(?:{lexicon.MONTHS})\b{_YEAR}"
    )),
    ("relative", re.compile(rf"\b(?:the )?(?:{lexicon.RELATIVE_DAYS})\b")),
    ("week_of", re.compile(
        rf"\b(?:on )?(?P<wd>{_WD}) next week\b|\bnext week,? (?:on )?(?P<wd2>{_WD})\b"
    )),
    ("weekday", re.compile(
        rf"\b(?:(?P<q>next|this coming|this|coming|last|past) )?(?P<wd>{_WD})s?\b"
    )),
    ("ordinal", re.compile(
        rf"\b(?:the|on) (?P<day>\d{{1,2}}){_ORD}\b"
        rf"(?! (?:{lexicon.ASSET_NOUNS}|1|one|option|choice|time|week|floor)\b)"
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


def _weekday(qualifier: str | None, weekday: int, today: date) -> tuple[date, ...]:
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


def _ordinal(day: int, today: date) -> date | None:
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


def _reading(match: re.Match[str], kind: str, today: date, now: datetime) -> DateReading | None:
    text = match.group(0)
    found: tuple[date, ...] = ()
    if kind == "iso":
        try:
            found = (date.fromisoformat(text),)
        except ValueError:
            return None
    elif kind == "month_day":
        explicit = re.search(r"\d{4}", text) is not None
        value = _month_day(text.removeprefix("the "), today, now, explicit)
        found = (value,) if value else ()
    elif kind == "relative":
        value = _parse(text.removeprefix("the "), now, "future")
        found = (value,) if value else ()
    elif kind == "week_of":
        weekday = lexicon.WEEKDAYS[match.group("wd") or match.group("wd2")]
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)
        found = (monday + timedelta(days=weekday),)
    elif kind == "weekday":
        found = _weekday(match.group("q"), lexicon.WEEKDAYS[match.group("wd")], today)
    elif kind == "ordinal":
        value = _ordinal(int(match.group("day")), today)
        found = (value,) if value else ()
    if not found:
        return None
    isos = tuple(d.isoformat() for d in found)
    value = isos[0] if len(isos) == 1 else None
    past = all(d < today for d in found)
    weekday = lexicon.WEEKDAYS[match.group("wd")] if kind == "weekday" else None
    return DateReading(text, match.start(), match.end(), value, isos if value is None else (),
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
            reading = _reading(match, kind, today, now)
            if reading is not None:
                taken.append((match.start(), match.end()))
                readings.append(reading)
    return tuple(sorted(readings, key=lambda r: r.start))


def is_past(iso: str, now: datetime) -> bool:
    """True when ``iso`` (a date) is before the call's local date."""
    return date.fromisoformat(iso) < now.date()
