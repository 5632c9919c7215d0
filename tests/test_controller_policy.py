"""Seed 001's decision matrix as data: every situation has exactly one row, every row a stable id
and the step seed 001 gives it; the code that decides looks rows up instead of re-coding them;
docs/architecture.md shows every table row by row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import docs_support
import pytest

from agent.core.actions import ActionStatus
from agent.core.ports import BookingOutcome, BookingOutcomeKind, BookingRecord, RequestState
from agent.service import policy
from agent.service.policy import (
    AFTER_DISPATCH,
    AFTER_LOOKUP,
    AFTER_TIMEOUT_LOOKUP,
    BEFORE_DISPATCH,
    ON_CORRECTION,
    TABLES,
    Consent,
    LookupAnswer,
    Step,
    Table,
    after_dispatch,
    after_lookup,
    after_timeout_lookup,
    before_dispatch,
    dispatch_answer,
    lookup_answer,
    on_correction,
)

ROOT = Path(__file__).resolve().parent.parent
# The modules that decide: each looks its rows up in agent/service/policy.py (issue 15).
DECIDERS = ("agent/service/dispatch.py", "agent/service/reconcile.py",
            "agent/service/booking_desk.py")

# Seed 001's matrix, row id by row id: the ids are public (the `decision` trace event carries
# them), so renaming one is a change of the contract, not a refactoring.
SEED_001 = {
    "on_correction/proposed": Step.REPROPOSE,
    "on_correction/committing": Step.CANCEL_THEN_RECONCILE,
    "on_correction/cancel_requested": Step.RECONCILE_FIRST,
    "on_correction/unknown": Step.RECONCILE_FIRST,
    "on_correction/committed": Step.AMEND_COMMITTED,
    "on_correction/cancelled": Step.NOTHING,
    "on_correction/failed": Step.NOTHING,
    "before_dispatch/not_given": Step.ASK_CONFIRMATION,
    "before_dispatch/go_ahead": Step.DISPATCH,
    "before_dispatch/yes": Step.DISPATCH,
    "before_dispatch/no": Step.DROP,
    "after_dispatch/committed": Step.CONFIRM,
    "after_dispatch/rejected_stale": Step.EXPLAIN_AND_ASK,
    "after_dispatch/unknown": Step.RECONCILE_FIRST,
    "after_dispatch/conflict": Step.RECONCILE_FIRST,
    "after_dispatch/failed": Step.PROPOSE_NEW,
    "after_lookup/cancelled": Step.PROPOSE_NEW,
    "after_lookup/failed": Step.PROPOSE_NEW,
    "after_lookup/not_found": Step.PROPOSE_NEW,
    "after_lookup/succeeded": Step.CONFIRM,
    "after_lookup/pending": Step.HANDOFF,
    "after_lookup/no_answer": Step.HANDOFF,
    "after_timeout/succeeded": Step.CONFIRM,
    "after_timeout/succeeded_retried": Step.CONFIRM,
    "after_timeout/not_found": Step.RETRY_SAME_KEY,
    "after_timeout/not_found_retried": Step.HANDOFF,
    "after_timeout/failed": Step.RETRY_SAME_KEY,
    "after_timeout/failed_retried": Step.HANDOFF,
    "after_timeout/cancelled": Step.PROPOSE_NEW,
    "after_timeout/cancelled_retried": Step.PROPOSE_NEW,
    "after_timeout/pending": Step.HANDOFF,
    "after_timeout/pending_retried": Step.HANDOFF,
    "after_timeout/no_answer": Step.HANDOFF,
    "after_timeout/no_answer_retried": Step.HANDOFF,
}

RECORD = BookingRecord(ref="B-1", account="ACME-001", asset="P-100", date="2026-12-03",
                       window="morning", time=None, units=1, site="12 Harbour Road",
                       contact="tech-17", status="confirmed", version=2)
K = BookingOutcomeKind


# ------------------------------------------------------------------ the tables themselves
def test_every_situation_has_exactly_one_row():
    assert set(ON_CORRECTION) == set(ActionStatus)
    assert set(BEFORE_DISPATCH) == set(Consent)
    assert set(AFTER_DISPATCH) == set(BookingOutcomeKind)
    assert set(AFTER_LOOKUP) == set(LookupAnswer)
    assert set(AFTER_TIMEOUT_LOOKUP) == {(a, r) for a in LookupAnswer for r in (False, True)}
    # A lookup answers with a request state, or with nothing to go on.
    assert {str(a) for a in LookupAnswer} == {str(s) for s in RequestState} | {"NO_ANSWER"}


def test_every_row_has_its_seed_001_step_under_a_stable_id():
    rows = [row for table in TABLES for row in table.rows]
    assert {row.id: row.step for row in rows} == SEED_001
    assert len(rows) == len(SEED_001)  # no id twice
    for table in TABLES:
        for row in table.rows:
            assert row.table == table.name and row.id.startswith(f"{table.name}/")
            assert table[row.key] is row.step and table.row(row.key) is row


def test_tables_lists_every_table_in_the_module():
    declared = [value for value in vars(policy).values() if isinstance(value, Table)]
    assert sorted(t.name for t in declared) == sorted(t.name for t in TABLES)


def test_correction_meets_an_action_row_by_row():
    assert on_correction(ActionStatus.PROPOSED).step is Step.REPROPOSE
    assert on_correction(ActionStatus.COMMITTING).step is Step.CANCEL_THEN_RECONCILE
    assert on_correction(ActionStatus.UNKNOWN).step is Step.RECONCILE_FIRST
    assert on_correction(ActionStatus.COMMITTED).id == "on_correction/committed"
    assert on_correction(ActionStatus.COMMITTED).step is Step.AMEND_COMMITTED


def test_one_confirmation_per_action_unless_the_correction_said_go_ahead():
    assert before_dispatch(Consent.NOT_GIVEN).step is Step.ASK_CONFIRMATION
    assert before_dispatch(Consent.GO_AHEAD).step is Step.DISPATCH
    assert before_dispatch(Consent.YES).step is Step.DISPATCH
    assert before_dispatch(Consent.NO).step is Step.DROP


def test_unknown_outcome_retries_once_with_the_same_key_only_when_proven_absent():
    assert after_timeout_lookup(LookupAnswer.NOT_FOUND, retried=False).step \
        is Step.RETRY_SAME_KEY
    assert after_timeout_lookup(LookupAnswer.NOT_FOUND, retried=True).step is Step.HANDOFF
    assert after_timeout_lookup(LookupAnswer.FAILED, retried=True).id \
        == "after_timeout/failed_retried"
    assert after_timeout_lookup(LookupAnswer.PENDING, retried=False).step is Step.HANDOFF
    assert after_timeout_lookup(LookupAnswer.SUCCEEDED, retried=False).step is Step.CONFIRM
    # No answer: still unknown, a person decides.
    assert after_timeout_lookup(LookupAnswer.NO_ANSWER, retried=False).step is Step.HANDOFF


def test_after_a_cancel_request_only_a_proven_absence_allows_a_new_proposal():
    assert after_lookup(LookupAnswer.CANCELLED).step is Step.PROPOSE_NEW
    assert after_lookup(LookupAnswer.SUCCEEDED).step is Step.CONFIRM
    assert after_lookup(LookupAnswer.PENDING).step is Step.HANDOFF
    assert after_lookup(LookupAnswer.NO_ANSWER).step is Step.HANDOFF
    # A request state is a lookup answer of the same name.
    assert after_lookup(RequestState.NOT_FOUND).id == "after_lookup/not_found"


def test_the_direct_answer_to_a_dispatch():
    assert after_dispatch(K.COMMITTED).step is Step.CONFIRM
    assert after_dispatch(K.REJECTED_STALE).step is Step.EXPLAIN_AND_ASK
    assert after_dispatch(K.CONFLICT).step is Step.RECONCILE_FIRST


# ------------------------------------------------------------------ reading answers as keys
@pytest.mark.parametrize("outcome, key", [
    (BookingOutcome(K.COMMITTED, RECORD, "", RequestState.SUCCEEDED), K.COMMITTED),
    # The target wrote over a newer version: a commit, which verify() then refuses to confirm.
    (BookingOutcome(K.REJECTED_STALE, RECORD, "stale_commit", RequestState.SUCCEEDED),
     K.COMMITTED),
    # 412: the record that stands now comes back, nothing was written.
    (BookingOutcome(K.REJECTED_STALE, RECORD, "precondition_failed", RequestState.FAILED),
     K.REJECTED_STALE),
    (BookingOutcome(K.COMMITTED, None, "", RequestState.SUCCEEDED), K.UNKNOWN),
    (BookingOutcome(K.UNKNOWN, None, "timeout"), K.UNKNOWN),
    (BookingOutcome(K.CONFLICT, None, "request_in_flight", RequestState.PENDING), K.CONFLICT),
    (BookingOutcome(K.FAILED, None, "503", RequestState.FAILED), K.FAILED),
])
def test_dispatch_answer_is_what_the_answer_proves(outcome, key):
    assert dispatch_answer(outcome) is key


@pytest.mark.parametrize("outcome, key", [
    (None, LookupAnswer.NO_ANSWER),
    (BookingOutcome(K.UNKNOWN, None, "lookup got no answer"), LookupAnswer.NO_ANSWER),
    (BookingOutcome(K.COMMITTED, None, "", RequestState.SUCCEEDED), LookupAnswer.NO_ANSWER),
    (BookingOutcome(K.COMMITTED, RECORD, "", RequestState.SUCCEEDED), LookupAnswer.SUCCEEDED),
    (BookingOutcome(K.CONFLICT, None, "still in flight", RequestState.PENDING),
     LookupAnswer.PENDING),
    (BookingOutcome(K.FAILED, None, "no request", RequestState.NOT_FOUND),
     LookupAnswer.NOT_FOUND),
    (BookingOutcome(K.FAILED, None, "request_cancelled", RequestState.CANCELLED),
     LookupAnswer.CANCELLED),
])
def test_lookup_answer_is_the_state_or_no_answer(outcome, key):
    assert lookup_answer(outcome) is key


# ------------------------------------------------------------------ the code looks rows up
def _step_uses(source: str) -> list[tuple[int, str]]:
    """Every ``Step.X`` in ``source`` that is not one side of a comparison (``is``, ``==``)."""
    tree = ast.parse(source)
    compared: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            compared.update(id(n) for n in [node.left, *node.comparators])
    return sorted((node.lineno, ast.unparse(node)) for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == "Step" and id(node) not in compared)


@pytest.mark.parametrize("path", DECIDERS)
def test_deciding_code_only_compares_steps_it_looked_up(path):
    """A ``Step`` built, returned or mapped outside agent/service/policy.py is a re-coded row."""
    uses = _step_uses((ROOT / path).read_text(encoding="utf-8"))
    assert uses == [], f"{path} decides a step itself instead of looking it up: {uses}"


def test_the_inline_check_catches_a_re_coded_row():
    sample = ("step = {A.PROPOSED: Step.REPROPOSE}.get(status)\n"
              "if step is Step.REPROPOSE:\n    pass\n"
              "step = Step.CONFIRM if written else step\n")
    assert _step_uses(sample) == [(1, "Step.REPROPOSE"), (4, "Step.CONFIRM")]


# ------------------------------------------------------------------ the docs teach these tables
def _constant_names() -> dict[str, Table]:
    return {name: value for name, value in vars(policy).items() if isinstance(value, Table)}


@pytest.mark.parametrize("name", sorted(_constant_names()))
def test_docs_architecture_shows_every_row_with_its_id_and_step(name):
    """Beyond tests/test_docs_architecture.py (key and step of three tables): every table,
    each row's id in the last column and its step right after the key columns."""
    table = _constant_names()[name]
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    arity = len(next(iter(table))) if isinstance(next(iter(table)), tuple) else 1
    shown = {}
    for cells in docs_support.table_after(text, name, "docs/architecture.md"):
        (row_id,) = re.findall(r"`([^`]+)`", cells[-1])
        (step,) = re.findall(r"`([^`]+)`", cells[arity])
        shown[row_id] = step
    assert shown == {row.id: str(row.step) for row in table.rows}
