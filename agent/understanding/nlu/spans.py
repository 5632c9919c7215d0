"""Stretches of the clock: a bound ("until noon", "after 2") or a range ("between 9 and 11").

A span names no time of day: the caller gave the edges of when they can have the visit, not
when it should start. It names a window when the part of the working day it leaves lies in
one window only ("until noon", "any time before 11" and "from 9 to 11" are the morning;
"after 2" and "between 2 and 4 pm" the afternoon). A span across both windows ("after 10",
"between 11 and 2") or outside the visiting hours names nothing, and the agent asks.

Either way its clock words are no time: the reading masks them before it reads times, so
"until noon" is never a visit at 12:00 (docs/understanding.md, "Hours"). The same rule as
for a day: "after Friday" bounds the day and names none. Pure functions.
"""

from __future__ import annotations

import re

from agent.understanding.nlu.times import (
    NOT_AFTER_NUMBER,
    VISIT_WINDOWS,
    WORKING_DAY,
    WindowReading,
    resolve_hour,
)

_ANY = r"(?:(?:any ?time|anytime|sometime|some time|at any time|whenever) )?"
_UPPER = r"(?:before|until|till|til|up to|up until|no later than|not after|not later than)"
_LOWER = r"(?:after|not before|no earlier than|not earlier than)"


def _edge_pattern(name: str) -> str:
    """An edge of a span, its groups prefixed with ``name``: noon, or a clock hour with its
    minutes and half of the day, not a count ("up to 3 technicians")."""
    return (rf"(?:(?P<{name}noon>noon|midday)|(?P<{name}h>1[0-2]|0?[1-9])"
            rf"(?:[:. ](?P<{name}m>[0-5]\d))?(?: ?oclock)?(?: ?(?P<{name}half>am|pm))?)"
            r"(?![\d:.])" + NOT_AFTER_NUMBER)


# "from 10 to 12" stays two times: said with "move it" it is a correction, the old and the new.
_SPANS = (
    ("range", re.compile(rf"\b{_ANY}(?:between|from) {_edge_pattern('a')}"
                         rf" (?:and|till|until|til|-) {_edge_pattern('b')}")),
    ("upper", re.compile(rf"(?<!not )\b{_ANY}{_UPPER} {_edge_pattern('b')}")),
    ("lower", re.compile(rf"(?<!not )\b{_ANY}{_LOWER} {_edge_pattern('a')}")),
)


def _edge(match: re.Match[str], name: str, half: str | None) -> int | None:
    """One edge in minutes of the day, or None when the hour could be morning or evening."""
    if match.group(f"{name}noon"):
        return 12 * 60
    hour, minute = int(match.group(f"{name}h")), int(match.group(f"{name}m") or 0)
    value, _ = resolve_hour(hour, minute, match.group(f"{name}half") or half)
    if value is None:
        return None
    hours, minutes = value.split(":")
    return int(hours) * 60 + int(minutes)


def _window(start: int, end: int) -> str | None:
    """The one window a stretch of the day overlaps, or None (both, or neither)."""
    hits = [name for name, low, high in VISIT_WINDOWS if max(start, low) < min(end, high)]
    return hits[0] if len(hits) == 1 else None


def _span(kind: str, match: re.Match[str]) -> tuple[int, int] | None:
    groups = match.groupdict()
    if kind == "upper":
        end = _edge(match, "b", None)
        return None if end is None else (WORKING_DAY[0], end)
    if kind == "lower":
        start = _edge(match, "a", None)
        return None if start is None else (start, WORKING_DAY[1])
    # "between 2 and 4 pm": the half of the day said after the range holds for both edges
    start = _edge(match, "a", groups.get("bhalf"))
    end = _edge(match, "b", None)
    if start is None or end is None:
        return None
    return start, end


def read_spans(text: str) -> tuple[tuple[int, int, WindowReading | None], ...]:
    """Every bound or range of the clock in normalised ``text``: ``(start, end, window)``,
    the window the span names or None. Their words are no time of day."""
    found: list[tuple[int, int, WindowReading | None]] = []
    for kind, pattern in _SPANS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end, _ in found):
                continue
            span = _span(kind, match)
            window = _window(*span) if span is not None else None
            found.append((match.start(), match.end(), None if window is None else WindowReading(
                match.group(0), match.start(), match.end(), window)))
    return tuple(sorted(found, key=lambda item: item[0]))
