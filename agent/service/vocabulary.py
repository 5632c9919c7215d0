"""The dialogue's closed sets: the desk in :class:`Focus`, the :class:`Offer` a reply leaves
standing for the next turn, why a call goes to a person (:class:`HandoffReason`) and why an
action was cancelled (:class:`CancelReason`).

The values are public where they reach the trace (``handoff`` and ``action_cancelled``
``reason``; docs/call-scripts.md).
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
    BOOKING_REFUSED = "booking_refused"  # the system of record refused twice in a row
    UNRESOLVED_AUTHORITY = "unresolved_authority"  # the registry cannot say which revision


class CancelReason(StrEnum):
    """Why an action was cancelled (``action_cancelled``/``action_cancel_requested`` ``reason``;
    ``detail`` names the field or the re-check's decision where there is one)."""

    SUPERSEDED = "superseded"  # a correction met it (the ON_CORRECTION row)
    CALLER_CANCELLED = "caller_cancelled"  # the caller cancelled while it was a draft
    CALLER_DECLINED = "caller_declined"  # the caller said no to its read-back
    MISSING_FIELD = "missing_field"  # a field it needs was cleared (detail: the field)
    RECHECK_REFUSED = "recheck_refused"  # the re-check before sending said no (detail: why)
    CALL_ENDED = "call_ended"  # the call ended with it still a draft
    WITHDRAWN = "withdrawn"  # dispatched, then withdrawn before the target committed it
    TARGET_CANCELLED = "target_cancelled"  # the system of record cancelled it on request
    STALE_ON_RETRY = "stale_on_retry"  # a retry's basis changed meanwhile

