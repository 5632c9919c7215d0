"""Seed 001's decision matrix, row by row, on the fakes and against the real sandbox.

Every row runs twice (``backend``): on the in-memory booking system of ``tests.fakes`` and
against the real HTTP sandbox, registry and corpus, so the real path of the matrix stays
covered. Races are forced with the booking system's holds (a delayed request stays PENDING
until cancelled or released) and with the order of awaited turns, never with sleeps.
"""

from __future__ import annotations

import pytest

from agent.core.actions import ActionStatus
from agent.service.dialogue import ControllerOptions
from tests.controller_support import BACKENDS, call

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("backend", BACKENDS)]
HOLD = 60_000  # a delay that only a cancellation or an explicit release ends


async def _book_wednesday(c) -> None:
    await c.say("I'd like a service visit for pump P-100 on Wednesday afternoon.")
    await c.say("Yes, please go ahead.")


async def test_case_2_correction_while_queued_locally_kills_the_queued_item(backend):
    async with call(backend=backend) as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        # "Yes" queues the dispatch; the correction is handled before the worker runs.
        await c.say("yes")
        await c.say("Sorry, Thursday morning, not Wednesday.")
        first = c.controller.actions[0]
        assert first.status is ActionStatus.CANCELLED
        assert c.events("dispatch_refused") or not c.events("action_dispatched", action=first.id)
        await c.say("yes")
        await c.settle()
        assert [(b["date"], b["window"]) for b in c.bookings()] == [("2026-12-03", "morning")]
        assert not c.events("action_dispatched", action=first.id)


async def test_no_recheck_fault_lets_the_stale_queued_item_commit(backend):
    async with call(agent_faults=["no_recheck_before_dispatch"], backend=backend) as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        await c.say("yes")
        await c.say("Sorry, Thursday morning, not Wednesday.")
        await c.settle()
        assert "2026-12-02" in [b["date"] for b in c.bookings()]  # the oracle must catch this


async def test_case_3_dispatched_and_pending_is_cancelled_then_reconciled_before_a_new_create(
        backend):
    async with call(faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}],
                    backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_dispatched", op="create_booking")
        await c.held()
        await c.say("Sorry, Thursday morning, not Wednesday.")
        await c.until("action_reconciled")
        await c.until("confirmation_requested", count=2)
        old = c.controller.actions[0]
        assert old.status is ActionStatus.CANCELLED
        names = c.names()
        assert names.index("action_cancel_requested") < names.index("action_reconciled")
        assert names.count("action_dispatched") == 1  # nothing new before reconciliation
        await c.say("Yes.")
        await c.settle()
        assert [(b["date"], b["window"]) for b in c.bookings()] == [("2026-12-03", "morning")]
        assert not [b for b in c.world.sandbox.admin.bookings() if b["date"] == "2026-12-02"
                    and b["status"] == "confirmed"]
        assert c.field("visit_date").version == 2


async def test_pending_request_that_completed_anyway_is_rescheduled_never_created_twice(
        backend):
    async with call(faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}],
                    backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_dispatched", op="create_booking")
        await c.held()
        key = c.controller.actions[0].idempotency_key
        c.world.sandbox.faults.release()  # the target completes; the agent has not read it yet
        assert await c.request_finished(key) == "SUCCEEDED"
        await c.say("Sorry, Thursday morning, not Wednesday.")
        await c.until("confirmation_requested", op="reschedule_booking")
        assert "already sent" in c.sink.last and "can't take it back" in c.sink.last
        await c.say("yes")
        await c.settle()
        [booking] = c.bookings()
        assert (booking["date"], booking["window"], booking["version"]) == (
            "2026-12-03", "morning", 2), "\n".join(str(e.to_dict()) for e in c.trace.events)
        assert [n["kind"] for n in c.notifications()] == ["confirmation", "change"]
        assert len(c.events("action_dispatched", op="create_booking")) == 1


async def test_case_4_correction_after_commit_is_a_confirmed_reschedule_with_a_change_notice(
        backend):
    async with call(backend=backend) as c:
        await _book_wednesday(c)
        await c.settle()
        reply = await c.say("Actually make it Thursday morning.")
        assert "already sent" in reply and "recalled" not in reply
        assert c.events("confirmation_requested")[-1].get("op") == "reschedule_booking"
        await c.say("yes")
        await c.settle()
        [booking] = c.bookings()
        assert (booking["date"], booking["version"]) == ("2026-12-03", 2)
        spoken = c.events("confirmation_spoken")[-1]
        assert (spoken.get("ref"), spoken.get("version")) == (booking["ref"], 2)
        assert "It's moved" in c.sink.last


async def test_correction_that_says_go_ahead_skips_the_second_confirmation(backend):
    async with call(backend=backend) as c:
        await _book_wednesday(c)
        await c.settle()
        await c.say("actually make it Thursday, go ahead")
        await c.settle()
        assert len(c.events("confirmation_requested")) == 1
        assert [b["date"] for b in c.bookings()] == ["2026-12-03"]


async def test_case_10_timeout_is_reconciled_by_key_and_never_duplicated(backend):
    async with call(faults=[{"op": "create_booking", "drop_response": True, "nth": 1}],
                    client_timeout=1.0, backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_reconciled")
        await c.settle()
        assert len(c.bookings()) == 1
        keys = {e.request for e in c.events("action_dispatched")}
        assert len(keys) == 1
        assert c.events("action_reconciled")[0].get("state") == "SUCCEEDED"
        assert "It's booked" in c.sink.last


async def test_unknown_outcome_still_pending_after_lookup_hands_off_with_explicit_state(backend):
    async with call(faults=[{"op": "create_booking", "hang": True, "nth": 1}],
                    client_timeout=1.0,
                    options=ControllerOptions(reconcile_budget_s=0.5), backend=backend) as c:
        await _book_wednesday(c)
        handoff = await c.until("handoff")
        assert handoff.get("reason") == "outcome_unknown"
        assert c.events("action_reconciled")[0].get("state") == "PENDING"
        assert "still working on it" in c.sink.said
        assert len(c.events("action_dispatched")) == 1  # no retry while it may still happen
        assert c.controller.actions[0].status is ActionStatus.UNKNOWN
        c.world.sandbox.faults.release()
        await c.settle()
        assert not c.events("confirmation_spoken")


async def test_case_11_retry_with_new_key_fault_is_the_duplicate_risk_the_oracle_catches(backend):
    async with call(faults=[{"op": "create_booking", "drop_response": True, "nth": 1}],
                    agent_faults=["retry_with_new_key"], client_timeout=1.0, backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_dispatched", count=2)
        await c.settle()
        keys = [e.request for e in c.events("action_dispatched")]
        assert len(set(keys)) == 2
        assert len(c.bookings()) == 2  # a duplicate: exactly what the fault is there to show


async def test_case_13_staff_edit_conflict_fetches_latest_explains_and_asks(backend):
    async with call(backend=backend) as c:
        await _book_wednesday(c)
        await c.settle()
        ref = c.bookings()[0]["ref"]
        await c.say("Actually make it Thursday morning.")
        c.world.staff_edit(ref, {"window": "morning"})
        await c.say("yes")
        await c.until("confirmation_requested", reason="staff_changed")
        assert "Someone on our team" in c.sink.last
        [booking] = c.bookings()
        assert (booking["date"], booking["window"], booking["version"]) == (
            "2026-12-02", "morning", 2)  # the staff edit stands; nothing was overwritten
        await c.say("yes")
        await c.settle()
        [booking] = c.bookings()
        assert (booking["date"], booking["version"]) == ("2026-12-03", 3)


async def test_case_15_target_ignoring_the_precondition_is_never_reported_done(backend):
    async with call(faults=[{"op": "reschedule_booking", "ignore_precondition": True}],
                    backend=backend) as c:
        await _book_wednesday(c)
        await c.settle()
        ref = c.bookings()[0]["ref"]
        await c.say("Actually make it Thursday morning.")
        c.world.staff_edit(ref, {"window": "morning"})
        await c.say("yes")
        await c.settle()
        assert not c.events("confirmation_spoken", op="reschedule_booking")
        assert c.events("commit_unverified")[0].get("ref") == ref
        assert c.events("handoff")[-1].get("reason") == "unverified_commit"
        assert "It's moved" not in c.sink.said


async def test_case_14_cancel_while_the_action_is_preparing_kills_the_draft(backend):
    async with call(backend=backend) as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        reply = await c.say("cancel it")
        assert "Nothing was booked" in reply
        assert c.controller.actions[0].status is ActionStatus.CANCELLED
        await c.say("yes")
        await c.settle()
        assert c.bookings() == [] and not c.events("action_dispatched")


async def test_case_16_notification_cannot_be_recalled_and_the_caller_is_told_so(backend):
    async with call(backend=backend) as c:
        await _book_wednesday(c)
        await c.settle()
        reply = await c.say("Sorry, Thursday morning, not Wednesday.")
        assert "already sent" in reply and "can't take it back" in reply
        await c.say("yes")
        await c.settle()
        kinds = [n["kind"] for n in c.notifications()]
        assert kinds == ["confirmation", "change"]
        assert "recalled" not in c.sink.said and "withdrawn the message" not in c.sink.said


async def test_cancel_of_a_committed_booking_needs_one_confirmation(backend):
    async with call(backend=backend) as c:
        await _book_wednesday(c)
        await c.settle()
        await c.say("Please cancel that booking.")
        assert c.events("confirmation_requested")[-1].get("op") == "cancel_booking"
        await c.say("yes")
        await c.settle()
        assert c.bookings() == []
        assert "It's cancelled" in c.sink.last


async def test_confirm_from_plan_fault_claims_the_plan_before_any_record_exists(backend):
    async with call(faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}],
                    agent_faults=["confirm_from_plan"], backend=backend) as c:
        await _book_wednesday(c)
        claim = c.events("confirmation_spoken")[0]
        assert claim.get("ref") is None and claim.get("date") == "2026-12-02"
        assert "It's booked" in c.sink.last  # spoken while the request is still pending
        await c.until("action_dispatched")
        await c.held()
        await c.say("Sorry, Thursday morning, not Wednesday.")
        await c.until("action_reconciled")
        assert not [b for b in c.bookings() if b["date"] == "2026-12-02"]  # the claim was false


async def test_cancel_while_the_create_is_pending_withdraws_it_and_nothing_is_booked(backend):
    async with call(faults=[{"op": "create_booking", "delay_ms": HOLD}], backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_dispatched")
        await c.held()
        await c.say("cancel it")
        await c.settle()
        assert c.bookings() == []
        assert c.controller.actions[0].status is ActionStatus.CANCELLED
        assert "Nothing was booked" in c.sink.last


async def test_cancel_that_arrives_after_the_create_completed_asks_to_cancel_the_booking(
        backend):
    async with call(faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}],
                    backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_dispatched")
        await c.held()
        key = c.controller.actions[0].idempotency_key
        c.world.sandbox.faults.release()
        assert await c.request_finished(key) == "SUCCEEDED"
        await c.say("cancel it")
        await c.until("confirmation_requested", op="cancel_booking")
        await c.say("yes")
        await c.settle()
        assert c.bookings() == []
        assert [n["kind"] for n in c.notifications()] == ["confirmation", "cancellation"]


async def test_timeout_before_the_request_arrived_retries_once_with_the_same_key(backend):
    async with call(backend=backend) as c:
        real = c.controller.port

        class LostOnTheWay:
            """The first create never reaches the sandbox; the client only sees a timeout."""

            def __init__(self):
                self.creates = 0

            def __getattr__(self, name):
                return getattr(real, name)

            async def create(self, key, revision, booking):
                self.creates += 1
                if self.creates == 1:
                    from agent.core.ports import BookingOutcome, BookingOutcomeKind
                    return BookingOutcome(BookingOutcomeKind.UNKNOWN, detail="timeout")
                return await real.create(key, revision, booking)

        lossy = LostOnTheWay()
        c.controller.port = c.controller.bookings.dispatcher.port = lossy
        await _book_wednesday(c)
        await c.settle()
        first, second = c.events("action_dispatched")
        assert first.request == second.request and second.get("retry") is True
        assert c.events("action_reconciled")[0].get("state") == "NOT_FOUND"
        assert len(c.bookings()) == 1 and "It's booked" in c.sink.last


async def test_case_10_a_slow_target_is_waited_for_by_key_and_confirmed_once(backend):
    async with call(faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}],
                    client_timeout=1.0, backend=backend) as c:
        await _book_wednesday(c)
        await c.until("action_reconciled", state="PENDING")
        c.world.sandbox.faults.release()  # the target finishes while the agent looks it up
        await c.settle()
        assert len(c.bookings()) == 1 and len(c.events("action_dispatched")) == 1
        assert c.events("action_reconciled")[-1].get("state") == "SUCCEEDED"
        assert "It's booked" in c.sink.last
