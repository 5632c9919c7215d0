"""Accepted fields: a value together with where it came from and how often it was accepted."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FieldStatus(StrEnum):
    """Where a field stands. Only ``CONFIRMED`` values may authorise a side effect."""

    PROPOSED = "proposed"  # understood from the caller, not yet confirmed
    CONFIRMED = "confirmed"  # accepted as the caller's (or a trusted record's) value
    UNRESOLVED = "unresolved"  # withdrawn or ambiguous: the agent must ask
    CLEARED = "cleared"  # deliberately removed ("any day is fine")


@dataclass(frozen=True, slots=True)
class FieldRecord:
    """One accepted field.

    ``source`` is the provenance: ``utterance:<id>``, ``tool:<name>``, ``staff`` or
    ``asset:<id>``. ``version`` counts how many times a value of this field was accepted, so the
    first value is version 1 and a withdrawal or clear also counts. ``updated_at`` is the ledger
    revision at which it last changed. ``candidates`` holds the competing values of an
    unresolved field (uncertain recognition) so neither is lost.
    """

    value: str | None
    source: str
    confidence: float = 1.0
    status: FieldStatus = FieldStatus.CONFIRMED
    version: int = 1
    updated_at: int = 0
    candidates: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        """True when the value may be acted on: confirmed and present."""
        return self.status is FieldStatus.CONFIRMED and self.value is not None


def validate_values(values: object) -> tuple[tuple[str, str], ...]:
    """Copy a caller's mapping into the immutable, sorted snapshot form.

    Raises ``InvalidInput`` for anything but a non-empty dict of non-empty strings, exactly as
    seed 000's ``snapshot`` does. The returned tuple never aliases the argument.
    """
    from agent.core.errors import InvalidInput

    if type(values) is not dict or not values:
        raise InvalidInput("values: a non-empty dict of field name to string value is required")
    for key, value in values.items():
        if type(key) is not str or not key:
            raise InvalidInput(f"values: field names must be non-empty strings, got {key!r}")
        if type(value) is not str or not value:
            raise InvalidInput(f"values[{key!r}]: must be a non-empty string, got {value!r}")
    return tuple(sorted(values.items()))
