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

from agent.understanding.nlu import lexicon
from agent.understanding.nlu.date_rules import (
    next_month,
    of_month,
    ordinal_date,
    week_after,
    week_of,
    week_part,
    weekday_dates,
)

_WD = "|".join(sorted(lexicon.WEEKDAYS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)"
# "a week on Friday" without its "a", unless a word before makes "week" another week's
_BARE_WEEK = "".join(f"(?<!{w} )" for w in ("this", "next", "last", "that", "the", "same",
                                            "every", "each", "per", "one"))
# "Wednesday the 16th": an ordinal after "<weekday> the" is a day, whatever follows it
_WEEKDAY_THE = re.compile(rf"\b(?:{_WD}),? the \d{{1,2}}{_ORD}$")
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
        rf"\b{_MONTH} (?:the )?\d{{1,2}}{_ORD}?\b{_YEAR}(?! (?:{lexicon.UNIT_NOUNS})\b)"
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
    # a week tomorrow, a week today, tomorrow week, a week from today, this time next week
    ("week_from_day", re.compile(
        r"\b(?:a week (?:from |on )?(?P<day>today|tomorrow|now)|(?P<day2>today|tomorrow) week"
        r"|this time next week)\b")),
    ("relative", re.compile(
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
        # "Thursday the 10": a recogniser writes "the tenth" after a weekday without its suffix
        r"|(?<=day the )(?P<bare>\d{1,2})(?![\d:.]| ?(?:am|pm|oclock|15|30|45)\b))\b"
        rf"(?! (?:{lexicon.ASSET_NOUNS}|1|one|option|choice|time|week|floor|thing|of all"
        r"|place|call|visit|attempt|try|line|shift|quarter|half|person|row|one|box|item"
        r"|generation|version|edition|unit|step|year|day|month)\b)"
    )),
)
# A bare ordinal ("11th") reads as a date only when no word before it makes it a rank.
_RANK_BEFORE = re.compile(r"\b(?:my|your|our|his|her|their|its|a|an|every|each|this|that"
                          r"|at|in|of|1|the)\s*$")


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


def _bare_ordinal_is_a_day(text: str, match: re.Match[str]) -> bool:
    """"Fri 11th", "from 2nd to 4th", "11th please": a day. "my 3rd call", "a 2nd", "us
    first" (normalised "us 1st"): a rank. "1st" alone is a day only after a weekday."""
    before = text[:match.start()]
    if re.search(rf"\b(?:{_WD})s?,? $", before):
        return True
    if match.group("day") == "1" and before.strip(" ,"):
        return False
    return not _RANK_BEFORE.search(before)


_NEXT_WORD = re.compile(r"\s*(?P<w>[a-z0-9'’:]+)")
_CLOCK_AFTER = re.compile(r"^\s*(?::|am\b|pm\b|o'clock\b|\d|ish\b"
                          r"|(?:in the )?(?:morning|afternoon|evening)\b)")


_ADJECTIVES = frozenset("available free open clear good fine great better best ideal perfect "
                        "early earlier late later same latest earliest".split())


def _after_a_weekday(text: str, match: re.Match[str]) -> bool:
    """A bare number is a day of the month right after "<weekday> the" ("Thursday the 10"),
    read as "Thursday the 10th" is: a day that is not that weekday is asked about."""
    return re.search(rf"\b(?:{_WD}),? the $", text[:match.start("bare")]) is not None


def _is_a_noun(word: str) -> bool:
    return not (word[0].isdigit() or word in lexicon.ORDINAL_DATE_FOLLOWERS
                or word in lexicon.WEEKDAYS or re.fullmatch(lexicon.MONTHS, word))


def _ordinal_heads_a_noun(text: str, match: re.Match[str]) -> bool:
    """True when the ordinal modifies the word after it, so it is a rank, not a day of the month.

    The construction: an ordinal used as a date ends its noun phrase ("the 2nd", "on the 2nd,",
    "Tuesday the 2nd at 10", "the 21st if you can"); an ordinal followed by a noun is an
    adjective ("on 2nd thoughts", "a 2nd opinion", "the 1st time", "2nd visit", "1st thing").
    Words that may follow a day are :data:`lexicon.ORDINAL_DATE_FOLLOWERS`, a weekday, a time
    ("the 4th 10am") and "of" before a month or a month phrase; any other word is the noun the
    ordinal modifies. "1" after an ordinal is the pronoun "one" ("the 2nd 1"), not a time.
    """
    rest = text[match.end():]
    if not rest.strip() or re.match(r"\s*[,.;:!?)-]", rest):
        return False
    nxt = _NEXT_WORD.match(rest)
    if nxt is None:
        return False
    word = nxt.group("w")
    after = rest[nxt.end():]
    if word[0].isdigit():
        return word == "1" and not _CLOCK_AFTER.match(after)
    if word in _ADJECTIVES:  # "the 1st available slot": adjective + noun; "the 4th free?": a day
        later = _NEXT_WORD.match(after)
        return later is not None and not re.match(r"\s*[,.;:!?)-]", after) \
            and _is_a_noun(later.group("w"))
    if word in lexicon.ORDINAL_DATE_FOLLOWERS or word in lexicon.WEEKDAYS:
        return False
    if word == "of":
        return not re.match(rf"\s+(?:the )?(?:{lexicon.MONTHS}|(?:next|this|following|coming"
                            r"|the) month)\b", after) and not _WEEKDAY_THE.search(
                                text[:match.start()] + match.group(0))
    return not re.fullmatch(lexicon.MONTHS, word)


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
        found = (start + timedelta(days=7),)
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
        if said[0].isdigit() and not _bare_ordinal_is_a_day(text, match):
            return None  # "my 3rd call", "a person first": a rank, not a day of the month
        if _ordinal_heads_a_noun(text, match):
            return None  # "on 2nd thoughts", "the 1st time": the ordinal modifies a noun
        if match.group("bare") and not _after_a_weekday(text, match):
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
