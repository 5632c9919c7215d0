"""Seed 001's decision matrix as data: every status and request state has exactly one step."""

from __future__ import annotations

from agent.actions import ActionStatus
from agent.policy import (
    AFTER_DISPATCH,
    AFTER_LOOKUP,
    ON_CORRECTION,
    Step,
    after_lookup,
    on_correction,
)
from agent.ports import BookingOutcomeKind, RequestState


def test_every_action_status_and_outcome_has_a_step():
    assert set(ON_CORRECTION) == set(ActionStatus)
    assert set(AFTER_LOOKUP) == set(RequestState)
    assert set(AFTER_DISPATCH) == set(BookingOutcomeKind)


def test_correction_meets_an_action_row_by_row():
    assert on_correction(ActionStatus.PROPOSED) is Step.REPROPOSE
    assert on_correction(ActionStatus.COMMITTING) is Step.CANCEL_THEN_RECONCILE
    assert on_correction(ActionStatus.UNKNOWN) is Step.RECONCILE_FIRST
    assert on_correction(ActionStatus.COMMITTED) is Step.AMEND_COMMITTED


def test_unknown_outcome_retries_once_with_the_same_key_only_when_proven_absent():
    assert after_lookup(RequestState.NOT_FOUND, after_timeout=True) is Step.RETRY_SAME_KEY
    assert after_lookup(RequestState.NOT_FOUND, after_timeout=True, retried=True) \
        is Step.HANDOFF
    assert after_lookup(RequestState.PENDING, after_timeout=True) is Step.HANDOFF
    assert after_lookup(RequestState.SUCCEEDED, after_timeout=True) is Step.CONFIRM
    assert after_lookup(None, after_timeout=True) is Step.HANDOFF  # no answer: still unknown


def test_after_a_cancel_request_only_a_proven_absence_allows_a_new_proposal():
    assert after_lookup(RequestState.CANCELLED) is Step.PROPOSE_NEW
    assert after_lookup(RequestState.SUCCEEDED) is Step.CONFIRM
    assert after_lookup(RequestState.PENDING) is Step.HANDOFF
