"""The dialogue's closed sets: the desk in :class:`Focus`, the :class:`Offer` a reply leaves
standing for the next turn, and why a call goes to a person (:class:`HandoffReason`).

The values are public where they reach the trace (``handoff`` ``reason``; docs/call-scripts.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Focus(StrEnum):
    """The desk the caller's request is with: the next step is that desk's."""

    BOOKING = "booking"
    QUESTION = "question"


class OfferKind(StrEnum):
    """What the agent's last reply offered; a "yes" on the next turn takes it."""

    PERSON = "person"  # a colleague
    LANGUAGE = "language"  # the answer in another language (``value``: its code)
    REPAIR = "repair"  # a colleague, because questions about ``value`` (a field) kept failing


@dataclass(frozen=True, slots=True)
class Offer:
    """An offer standing for the very next turn only."""

    kind: OfferKind
    value: str = ""  # LANGUAGE: the language code; REPAIR: the field


class HandoffReason(StrEnum):
    """Why the call went to a person (the ``handoff`` event's ``reason``)."""

    CALLER_ASKED = "caller_asked"
    CALLER_ACCEPTED_PERSON = "caller_accepted_person"
    REPAIR_FAILED = "repair_failed"  # the caller accepted a person after failed questions
    REPAIR_EXHAUSTED = "repair_exhausted"  # the questions about a field ran out
    UNVERIFIED_COMMIT = "unverified_commit"  # the system of record confirmed something else
    RECORD_VANISHED = "record_vanished"
    CANCELLATION_UNCONFIRMED = "cancellation_unconfirmed"
    OUTCOME_UNKNOWN = "outcome_unknown"  # a request's result could not be learned
    UNRESOLVED_AUTHORITY = "unresolved_authority"  # the registry cannot say which revision
