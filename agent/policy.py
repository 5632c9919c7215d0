"""Seed 001's decision matrix as data: what a correction does to an action in each state.

Pure lookups, so the table can be read, tested and printed on its own. The controller's booking
desk carries the steps out.
"""

from __future__ import annotations

from enum import StrEnum

from agent.actions import ActionStatus
from agent.ports import BookingOutcomeKind, RequestState


class Step(StrEnum):
    """The allowed next step. One meaning per member."""

    REPROPOSE = "repropose"  # not dispatched: cancel the draft, build a new one from the ledger
    CANCEL_THEN_RECONCILE = "cancel_then_reconcile"  # pending: request_cancel, look up by key
    AMEND_COMMITTED = "amend_committed"  # committed: conditional reschedule (expected_version)
    RECONCILE_FIRST = "reconcile_first"  # unknown: look up by key before any new action
    PROPOSE_NEW = "propose_new"  # the old request is proven not to have happened
    CONFIRM = "confirm"  # the request is proven to have happened: speak from its record
    RETRY_SAME_KEY = "retry_same_key"  # proven absent after a timeout: same key, same payload
    EXPLAIN_AND_ASK = "explain_and_ask"  # 412: fetch the latest, explain, ask; never overwrite
    HANDOFF = "handoff"  # irreversible or still uncertain: a person takes over
    NOTHING = "nothing"  # terminal and irrelevant (already cancelled or failed)


# Condition at correction time -> allowed next step (seed 001, "Decision matrix").
ON_CORRECTION: dict[ActionStatus, Step] = {
    ActionStatus.PROPOSED: Step.REPROPOSE,
    ActionStatus.COMMITTING: Step.CANCEL_THEN_RECONCILE,
    ActionStatus.CANCEL_REQUESTED: Step.RECONCILE_FIRST,
    ActionStatus.UNKNOWN: Step.RECONCILE_FIRST,
    ActionStatus.COMMITTED: Step.AMEND_COMMITTED,
    ActionStatus.CANCELLED: Step.NOTHING,
    ActionStatus.FAILED: Step.NOTHING,
}

# What the system of record says about a request looked up by its key, after a cancel request
# or a timeout. PENDING after we asked to cancel means it is still uncertain: a person decides.
AFTER_LOOKUP: dict[RequestState, Step] = {
    RequestState.CANCELLED: Step.PROPOSE_NEW,
    RequestState.FAILED: Step.PROPOSE_NEW,
    RequestState.NOT_FOUND: Step.PROPOSE_NEW,
    RequestState.SUCCEEDED: Step.CONFIRM,
    RequestState.PENDING: Step.HANDOFF,
}

# What a dispatch's direct answer leads to.
AFTER_DISPATCH: dict[BookingOutcomeKind, Step] = {
    BookingOutcomeKind.COMMITTED: Step.CONFIRM,
    BookingOutcomeKind.REJECTED_STALE: Step.EXPLAIN_AND_ASK,
    BookingOutcomeKind.UNKNOWN: Step.RECONCILE_FIRST,
    BookingOutcomeKind.CONFLICT: Step.RECONCILE_FIRST,
    BookingOutcomeKind.FAILED: Step.PROPOSE_NEW,
}


def on_correction(status: ActionStatus) -> Step:
    return ON_CORRECTION[ActionStatus(status)]


def after_lookup(state: RequestState | None, *, after_timeout: bool = False,
                 retried: bool = False) -> Step:
    """The step after looking a request up by its key.

    After a timeout, "absent" (not found, failed) allows ONE retry with the same key, never a
    new key; absent again, or no answer at all, hands off to a person.
    """
    if state is None:
        return Step.HANDOFF
    step = AFTER_LOOKUP[RequestState(state)]
    if after_timeout and state in (RequestState.NOT_FOUND, RequestState.FAILED):
        return Step.HANDOFF if retried else Step.RETRY_SAME_KEY
    return step


def after_dispatch(kind: BookingOutcomeKind) -> Step:
    return AFTER_DISPATCH[BookingOutcomeKind(kind)]
