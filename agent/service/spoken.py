"""How a value is said aloud: dates, days, times, a visit's when, languages, values read back.

Pure string building, shared by the sentences of :mod:`agent.service.render` and
:mod:`agent.service.repair_words`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from agent.core.names import (
    ASSET,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.understanding.nlu.lexicon import ordinal

LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish",
                  "it": "Italian", "nl": "Dutch"}


def spoken_date(value: str | None) -> str:
    """"Thursday 3 December" for an ISO date; the raw text when it is not one."""
    if not value:
        return "no date"
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return value
    return f"{day.strftime('%A')} {day.day} {day.strftime('%B')}"


def spoken_when(values: Mapping[str, str | None]) -> str:
    """"Thursday 3 December, in the morning" or "..., at 14:00"."""
    when = spoken_date(values.get("date"))
    if values.get("time"):
        return f"{when}, at {values['time']}"
    if values.get("window"):
        return f"{when}, in the {values['window']}"
    return when


def language_name(code: str | None) -> str:
    return LANGUAGE_NAMES.get(code or "", code or "the original language")


def spoken_day(value: str, today: date | None = None, *, month: bool = False) -> str:
    """"Friday the 4th" ("today, Thursday the 3rd"; ``month``: "Friday the 1st of January")."""
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return value
    said = f"{day.strftime('%A')} the {ordinal(day.day)}" \
        + (f" of {day.strftime('%B')}" if month else "")
    if today is not None and (day - today).days in (0, 1):
        return f"{'today' if day == today else 'tomorrow'}, {said}"
    return said


def spoken_time(value: str) -> str:
    """"7 in the morning", "2:30 in the afternoon", "noon" for "07:00", "14:30", "12:00"."""
    try:
        hour, minute = (int(part) for part in value.split(":")[:2])
    except ValueError:
        return value
    if (hour, minute) == (12, 0):
        return "noon"
    half = "in the morning" if hour < 12 else "in the afternoon" if hour < 18 else \
        "in the evening"
    shown = hour % 12 or 12
    return f"{shown}:{minute:02d} {half}" if minute else f"{shown} {half}"


def heard_line(values: tuple[tuple[str, str], ...]) -> str:
    """Several values heard in one turn, read back as one phrase ("Thursday 3 December, in
    the morning, 2 units")."""
    named = dict(values)
    when = {"date": named.get(VISIT_DATE), "window": named.get(VISIT_WINDOW),
            "time": named.get(VISIT_TIME)}
    parts = [spoken_when(when)] if when["date"] else [
        v for k, v in values if k in (VISIT_WINDOW, VISIT_TIME)]
    parts += [f"{v} units" if k == UNITS else v for k, v in values
              if k not in (VISIT_DATE, VISIT_WINDOW, VISIT_TIME)]
    return ", ".join(parts)


def values_line(fields: Mapping[str, str]) -> str:
    shown = []
    for name in (ASSET, VISIT_DATE, VISIT_WINDOW, VISIT_TIME):
        if fields.get(name):
            shown.append(spoken_date(fields[name]) if name == VISIT_DATE else fields[name])
    return ", ".join(shown)
