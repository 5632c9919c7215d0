"""The booking workflow (agent/service/workflow.py): its goal moves by the GOAL_ON table,
every change is a named transition, and the phase follows the goal, the awaited draft and
whether a request is in flight."""

from __future__ import annotations

import pytest

from agent.service.workflow import (
    GOAL_ON,
    BookingWorkflow,
    Goal,
    GoalEvent,
    Phase,
    next_goal,
)


def test_every_event_has_a_row_and_every_row_names_a_goal():
    assert set(GOAL_ON) == set(GoalEvent)
    for event in GoalEvent:
        for goal in Goal:
            for has_target in (False, True):
                assert isinstance(next_goal(event, goal, has_target), Goal)


@pytest.mark.parametrize(("goal", "has_target", "after"), [
    (Goal.NONE, False, Goal.BOOK), (Goal.NONE, True, Goal.RESCHEDULE),
    (Goal.CANCEL, False, Goal.BOOK), (Goal.CANCEL, True, Goal.RESCHEDULE),
    (Goal.BOOK, True, Goal.BOOK), (Goal.RESCHEDULE, False, Goal.RESCHEDULE)])
def test_asking_for_a_visit_books_or_changes_the_booking_in_hand(goal, has_target, after):
    """"Book a visit" with a booking in hand (this call made it, or the caller named it)
    changes that booking; a task already under way keeps its goal."""
    assert next_goal(GoalEvent.WANT_BOOK, goal, has_target) is after


def test_a_task_from_request_to_yes_to_settled():
    flow = BookingWorkflow()
    assert flow.phase(in_flight=False) is Phase.IDLE
    assert flow.on(GoalEvent.WANT_BOOK) is Goal.BOOK
    assert flow.phase(in_flight=False) is Phase.GATHERING
    flow.await_yes("a1")
    assert flow.phase(in_flight=False) is Phase.AWAITING_YES
    assert flow.answered() == "a1" and flow.awaiting is None and flow.answered() is None
    flow.confirmed()
    flow.go_ahead_at(3)
    assert flow.consent_at(3) and not flow.consent_at(4)
    assert flow.phase(in_flight=True) is Phase.IN_FLIGHT
    flow.adopt("BK-1")
    assert flow.on(GoalEvent.WANT_BOOK) is Goal.BOOK  # under way: unchanged
    flow.on(GoalEvent.NEW_TASK)
    assert (flow.goal, flow.target, flow.awaiting, flow.consent_at(3)) == \
        (Goal.NONE, None, None, False)


def test_another_asset_is_a_new_booking_and_a_dead_draft_awaits_nothing():
    flow = BookingWorkflow()
    flow.adopt("BK-1")
    flow.on(GoalEvent.WANT_RESCHEDULE)
    flow.await_yes("a2")
    flow.draft_gone("a9")
    assert flow.awaiting == "a2"
    flow.draft_gone("a2")
    assert flow.awaiting is None
    assert flow.on(GoalEvent.OTHER_ASSET) is Goal.BOOK and flow.target is None


def test_the_state_is_read_only_outside_its_transitions() -> None:
    flow = BookingWorkflow()
    with pytest.raises(AttributeError):
        flow.goal = Goal.CANCEL  # type: ignore[misc]
    with pytest.raises(AttributeError):
        flow.extra = 1  # type: ignore[attr-defined]


def test_a_refusal_spends_the_go_ahead_and_refusals_count_until_a_record_or_a_new_task():
    flow = BookingWorkflow()
    flow.on(GoalEvent.WANT_BOOK)
    flow.confirmed()
    flow.go_ahead_at(2)
    assert flow.refused() == 1 and not flow.consent_at(2)  # a retry is asked again
    assert flow.refused() == 2
    flow.adopt("BK-1")  # the system of record wrote a booking: the run of refusals ends
    assert flow.refused() == 1
    flow.on(GoalEvent.NEW_TASK)
    assert flow.refused() == 1
