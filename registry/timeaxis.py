"""The registry's time axis: logical ticks or RFC 3339 instants, mapped to sortable integers.

Every valid-time bound is stored twice: as written (for display and citations) and as an
integer key (for half-open comparisons in SQL). Instants with different offsets are compared
as instants: the key is microseconds since the Unix epoch in UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum


class TimeKind(StrEnum):
    TICKS = "ticks"  # logical integers, as in the seed fixture
    INSTANTS = "instants"  # RFC 3339 date-times with an offset


_RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$")
_BARE_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class TimeValueError(ValueError):
    """A time value does not fit the registry's time axis (message says what was expected)."""


def time_key(kind: TimeKind, value: object, from_text: bool = False) -> int:
    """The integer sort key of one bound or query instant; raises :class:`TimeValueError`.

    ``from_text`` accepts a tick written as digits (command-line and query values); in a
    registry file a tick must be a YAML integer.
    """
    if kind is TimeKind.TICKS:
        if isinstance(value, bool) or not isinstance(value, int):
            if from_text and isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
                return int(value.strip())
            raise TimeValueError(f"expected an integer tick, got {value!r}")
        return value
    if not isinstance(value, str):
        raise TimeValueError(
            f"expected an RFC 3339 instant with an offset (quoted), got {value!r}")
    text = value.strip()
    if _BARE_DATE.match(text):
        raise TimeValueError(
            f"bare date {text!r} is not an instant; write it with a time and an offset, "
            f"e.g. '{text}T00:00:00+01:00'")
    if not _RFC3339.match(text):
        raise TimeValueError(
            f"{text!r} is not an RFC 3339 instant with an offset, e.g. '2026-12-01T00:00:00Z'")
    moment = datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def instant_text(kind: TimeKind, value: object) -> str:
    """How an instant is shown: the tick as digits, or the instant as written."""
    return str(value).strip()


def now_text(kind: TimeKind, moment: datetime) -> str:
    """The RFC 3339 text of a clock reading (instants registries only)."""
    if moment.tzinfo is None:
        raise TimeValueError("the clock must return an aware datetime (with an offset)")
    return moment.isoformat()
