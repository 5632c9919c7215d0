"""Seed 001's fail-closed checker, ported, plus the tests the seed asks for."""

import pytest

from agent.core.actions import (
    TERMINAL,
    TRANSITIONS,
    Action,
    ActionStatus,
    Basis,
    CommitDecision,
    idempotency_key_for,
    may_commit,
    propose,
)
from agent.core.errors import IllegalTransition, InvalidInput
from agent.core.fields import FieldStatus
from agent.core.ledger import Ledger

DATE = "visit_date"


def booked_ledger(value="Tuesday 14:00"):
    ledger = Ledger()
    ledger.set(DATE, value, "utterance:u1")
    return ledger


def committing(ledger, reads=(DATE,)):
    return propose("a1", "create_booking", {"date": "x"}, ledger.current, reads).to(
        ActionStatus.COMMITTING)


def test_seed_reference_stale_action_cannot_commit():
    ledger = booked_ledger()
    queued = committing(ledger)
    assert may_commit(ledger.current, queued) is CommitDecision.ALLOWED
    assert ledger.set(DATE, "Thursday 10:00", "utterance:u2") == "accepted"
    assert ledger.current.version(DATE) == 2
    decision = may_commit(ledger.current, queued)
    assert decision is CommitDecision.STALE and not decision.allowed


def test_missing_value_fails_closed():
    ledger = booked_ledger()
    action = committing(ledger, reads=(DATE, "visit_window"))
    assert may_commit(ledger.current, action) is CommitDecision.MISSING_FIELD


def test_action_reading_nothing_fails_closed():
    ledger = booked_ledger()
    action = committing(ledger, reads=())
    assert may_commit(ledger.current, action) is CommitDecision.MISSING_FIELD


def test_empty_idempotency_key_fails_closed():
    ledger = booked_ledger()
    action = Action("a1", "create_booking", (), ledger.question, ledger.revision,
                    (Basis(DATE, 1, "Tuesday 14:00"),), "  ", ActionStatus.COMMITTING)
    assert may_commit(ledger.current, action) is CommitDecision.NO_IDEMPOTENCY_KEY
    with pytest.raises(InvalidInput):
        idempotency_key_for("", "a1")


def test_uncertain_correction_blocks_commit():
    ledger = booked_ledger()
    action = committing(ledger)
    ledger.mark_unresolved(DATE, "utterance:u2", candidates=("2026-12-03", "2026-12-10"),
                           confidence=0.4)
    record = ledger.current.get(DATE)
    assert record.status is FieldStatus.UNRESOLVED
    assert record.candidates == ("2026-12-03", "2026-12-10")
    assert may_commit(ledger.current, action) is CommitDecision.MISSING_FIELD


def test_proposed_value_is_not_enough_to_commit():
    ledger = Ledger()
    ledger.set(DATE, "2026-12-03", "utterance:u1", status=FieldStatus.PROPOSED)
    action = committing(ledger)
    assert may_commit(ledger.current, action) is CommitDecision.UNCONFIRMED


def test_unauthorized_caller_cannot_commit():
    ledger = booked_ledger()
    action = committing(ledger)
    assert may_commit(ledger.current, action, authorized=False) is CommitDecision.UNAUTHORIZED


def test_result_already_committed_is_not_committed_again():
    ledger = booked_ledger()
    action = committing(ledger).to(ActionStatus.COMMITTED, result=(("ref", "BK-1"),))
    assert may_commit(ledger.current, action) is CommitDecision.NOT_COMMITTING
    with pytest.raises(IllegalTransition):
        action.to(ActionStatus.COMMITTING)


def test_timeout_with_unknown_outcome_must_be_reconciled_first():
    ledger = booked_ledger()
    unknown = committing(ledger).to(ActionStatus.UNKNOWN)
    assert may_commit(ledger.current, unknown) is CommitDecision.NOT_COMMITTING
    with pytest.raises(IllegalTransition):
        unknown.to(ActionStatus.COMMITTING)  # no blind retry
    reconciled = unknown.to(ActionStatus.COMMITTED)
    assert reconciled.status is ActionStatus.COMMITTED


def test_same_version_with_another_value_fails_closed():
    ledger = booked_ledger()
    action = committing(ledger)
    forged = Action(action.id, action.op, action.args, action.question,
                    action.based_on_revision, (Basis(DATE, 1, "Friday"),),
                    action.idempotency_key, ActionStatus.COMMITTING)
    assert may_commit(ledger.current, forged) is CommitDecision.VALUE_CHANGED


def test_action_of_another_question_or_closed_question_fails_closed():
    ledger = booked_ledger()
    action = committing(ledger)
    other = booked_ledger()
    assert may_commit(other.current, action) is CommitDecision.WRONG_QUESTION
    ledger.close()
    assert may_commit(ledger.current, action) is CommitDecision.CLOSED


def test_unrelated_correction_leaves_action_committable():
    ledger = booked_ledger()
    ledger.set("units", "1", "default")
    action = committing(ledger)
    ledger.set("site", "12 Harbour Road", "asset:P-100")
    assert may_commit(ledger.current, action) is CommitDecision.ALLOWED


def test_proposal_copies_args_and_records_basis():
    ledger = booked_ledger()
    args = {"date": "2026-12-02"}
    action = propose("a9", "create_booking", args, ledger.current, (DATE,))
    args["date"] = "changed"
    assert action.arg("date") == "2026-12-02"
    assert action.based_on_revision == ledger.revision
    assert action.dependency_vector == ((DATE, 1),)
    assert action.idempotency_key == f"{ledger.question}:a9"


@pytest.mark.parametrize("start", list(ActionStatus))
def test_transition_table_is_explicit(start):
    action = Action("a", "create_booking", (), "q", 0, (), "k", start)
    for target in ActionStatus:
        if target in TRANSITIONS[start]:
            assert action.to(target).status is target
        else:
            with pytest.raises(IllegalTransition):
                action.to(target)


def test_terminal_states_have_no_way_out():
    for status in TERMINAL:
        assert TRANSITIONS[status] == frozenset()
    # A cancellation request is not a cancellation: the target may have completed anyway.
    assert ActionStatus.COMMITTED in TRANSITIONS[ActionStatus.CANCEL_REQUESTED]


def test_an_action_op_is_an_op_with_a_spec():
    """An op given by its value is the Op (so `action.op is Op.X` holds); an op without a
    spec in agent/core/ops.py is refused when the action is built."""
    from agent.core.ops import SPECS, Op

    action = Action("a", "reschedule_booking", (), "q", 0, (), "k")
    assert action.op is Op.RESCHEDULE_BOOKING and set(SPECS) == set(Op)
    with pytest.raises(ValueError):
        Action("a", "send_email", (), "q", 0, (), "k")

