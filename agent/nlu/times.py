"""Times of day and visit windows, from normalised text.

"2 pm", "2pm", "10:30", "ten thirty" (-> "10 30"), "at 10", "10 oclock", "half past 2",
"quarter to 11", "noon". An hour with no am/pm is read as a person booking a daytime visit
would mean it: 1-7 are afternoon hours, 8-12 morning or noon. A time implies its window
(docs/call-scripts.md, "Domain rules": morning 08:00-12:00, afternoon 13:00-17:00); outside
both, none.
Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.nlu import lexicon

_NOT_AFTER_NUMBER = rf"(?! ?(?:{lexicon.UNIT_NOUNS}|st|nd|rd|th|days?|weeks?|hours?|minutes?)\b)"
_TIME_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("half", re.compile(r"\bhalf past (?P<h>\d{1,2})\b")),
    ("quarter_past", re.compile(r"\bquarter past (?P<h>\d{1,2})\b")),
    ("quarter_to", re.compile(r"\bquarter to (?P<h>\d{1,2})\b")),
    ("noon", re.compile(r"(?<!before )(?<!after )\b(?:at )?(?:noon|midday|12 noon)\b")),
    ("daypart", re.compile(r"\b(?P<h>\d{1,2})(?: (?P<m>[0-5]\d))? in the "
                           r"(?P<part>morning|afternoon)\b")),
    ("meridiem", re.compile(r"\b(?P<h>\d{1,2})(?:[: ](?P<m>\d{2}))? ?(?P<ampm>am|pm)\b")),
    ("clock", re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})\b")),
    ("oclock", re.compile(r"\b(?P<h>\d{1,2}) oclock\b")),
    ("at", re.compile(rf"\b(?:at|around|about|by) (?P<h>\d{{1,2}})(?: (?P<m>[0-5]\d))?\b"
                      rf"{_NOT_AFTER_NUMBER}")),
    ("spoken", re.compile(rf"\b(?P<h>1[0-2]|[1-9]) (?P<m>[0-5]\d)\b{_NOT_AFTER_NUMBER}")),
)
_WINDOW = re.compile(
    r"\b(?:" + "|".join(sorted(lexicon.WINDOWS, key=len, reverse=True)) + r")\b"
)


@dataclass(frozen=True, slots=True)
class TimeReading:
    text: str
    start: int
    end: int
    value: str  # "HH:MM"
    window: str | None  # the window the time falls in, if any


@dataclass(frozen=True, slots=True)
class WindowReading:
    text: str
    start: int
    end: int
    value: str  # "morning" | "afternoon"


def window_of(hhmm: str) -> str | None:
    """The visit window a time falls in, or None (lunch, evening, night)."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    minutes = hour * 60 + minute
    if 8 * 60 <= minutes < 12 * 60:
        return "morning"
    if 13 * 60 <= minutes < 17 * 60:
        return "afternoon"
    return None


def _daytime_hour(hour: int, ampm: str | None) -> int:
    if ampm == "pm":
        return hour if hour == 12 else hour + 12
    if ampm == "am":
        return 0 if hour == 12 else hour
    return hour + 12 if 1 <= hour <= 7 else hour


def _value(kind: str, match: re.Match[str]) -> str | None:
    if kind == "noon":
        return "12:00"
    hour = int(match.group("h"))
    minute = 0
    if kind == "half":
        minute = 30
    elif kind == "quarter_past":
        minute = 15
    elif kind == "quarter_to":
        hour, minute = hour - 1, 45
    elif match.groupdict().get("m"):
        minute = int(match.group("m"))
    if not 0 <= hour <= 12 or minute > 59:
        if kind == "clock" and hour <= 23:  # "14:30" is already a 24-hour time
            return f"{hour:02d}:{minute:02d}"
        return None
    ampm = match.groupdict().get("ampm")
    if kind == "daypart":
        ampm = "am" if match.group("part") == "morning" else "pm"
    return f"{_daytime_hour(hour, ampm):02d}:{minute:02d}"


def read_times(text: str) -> tuple[TimeReading, ...]:
    """Every time of day in normalised ``text``, left to right, non-overlapping."""
    taken: list[tuple[int, int]] = []
    readings: list[TimeReading] = []
    for kind, pattern in _TIME_PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            value = _value(kind, match)
            if value is None:
                continue
            taken.append((match.start(), match.end()))
            readings.append(TimeReading(match.group(0), match.start(), match.end(), value,
                                        window_of(value)))
    return tuple(sorted(readings, key=lambda r: r.start))


def read_windows(text: str) -> tuple[WindowReading, ...]:
    """Every explicit window word ("morning", "after lunch") in normalised ``text``."""
    return tuple(
        WindowReading(m.group(0), m.start(), m.end(), lexicon.WINDOWS[m.group(0)])
        for m in _WINDOW.finditer(text)
    )
