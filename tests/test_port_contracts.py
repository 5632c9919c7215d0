"""One contract per port, run against the fake (``tests/fakes``) and the real adapter alike.

Every case below takes a fixture parametrized over ``fake`` and ``real`` and asserts the same
expectations on both, so a fake that drifts from what it stands in for fails here, not in a
controller scenario that happens to pass for the wrong reason:

* ``BookingPort``: :class:`tests.fakes.booking.FakeBookingPort` and
  ``tools_sandbox.client.SandboxClient`` against the HTTP sandbox (one server per module,
  reset for every case), including the oracle's view (bookings, notifications, requests) and
  the fault holds the controller tests use;
* ``Resolver`` / ``RevisionSource``: :class:`tests.fakes.registry.FakeRegistry` and
  ``registry.resolver.Registry`` loaded from the same files;
* ``Retriever``: :class:`tests.fakes.retrieval.FakeRetriever` and
  ``retrieval.retriever.ScopedRetriever`` over the real corpus;
* ``Clock``: :class:`tests.fakes.clock.FakeClock` and ``agent.core.clock.FixedClock``.

Two differential tests then ask both implementations the same grid of registry queries and
searches and require identical answers. Holds are released on purpose; the only clock that
runs is the HTTP client's own timeout in the "no answer" cases (a held request never answers).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent.core.clock import Clock, FixedClock, SystemClock
from agent.core.errors import AmendError
from agent.core.gate import AdmissionGate, GateMode, Stamp
from agent.core.ledger import Ledger
from agent.core.ports import (
    BookingOutcomeKind,
    BookingPort,
    HandoffState,
    ProcedureInfo,
    RegistryOutcome,
    ResolutionQuery,
    Resolver,
    RetrievalOutcome,
    RetrievalRequest,
    Retriever,
    RevisionSource,
)
from agent.core.ports import RequestState as S
from agent.core.trace import Trace
from registry import schema, store
from registry.demo import demo_files
from registry.errors import BadQuery
from registry.parse import parse_file
from registry.resolver import Registry
from retrieval.corpus import Corpus
from retrieval.hooks import FetchHold
from retrieval.retriever import ScopedRetriever
from tests.fakes.booking import FakeBookingPort, FakeSandbox
from tests.fakes.clock import FakeClock
from tests.fakes.registry import FakeRegistry
from tests.fakes.retrieval import FakeCorpus, FakeRetriever
from tools_sandbox.client import SandboxClient
from tools_sandbox.server import serve_in_background
from tools_sandbox.service import SandboxConfig

K = BookingOutcomeKind
BACKENDS = ("fake", "real")
NOW = datetime.fromisoformat("2026-12-01T09:00:00+01:00")
TIMES_OUT = 0.5  # an HTTP client timeout (real); on the fake: give up when held
VISIT = {"asset": "P-100", "date": "2026-12-03", "window": "morning", "units": 1,
         "site": "12 Harbour Road, Rotterdam", "account": "ACME-001"}
HOLD = 60_000  # a delay that only a release or a cancellation ends

pytestmark = pytest.mark.anyio


# =========================================================================== BookingPort


@dataclass
class BookingBackend:
    """One implementation of the booking system, as a contract case sees it."""

    kind: str
    admin: Any  # bookings(), notifications(), requests(), seed(), staff_edit(), set_capacity()
    faults: Any  # set(), release()
    _port: Callable[[float | None, str, str], Any]
    _held: Callable[[int], Awaitable[bool]]
    _finished: Callable[[str, str], Awaitable[str]]

    def port(self, *, timeout: float | None = None, subject: str = "tech-17",
             account: str = "ACME-001") -> BookingPort:
        """A client for a caller of tenant acme; ``timeout`` set: it gives up on a hold."""
        return self._port(timeout, subject, account)

    async def held(self, count: int = 1) -> None:
        assert await self._held(count)

    async def finished(self, key: str, account: str = "ACME-001") -> str:
        """Until the system has settled the request ``key``; its status."""
        return await asyncio.wait_for(self._finished(key, account), 10)


@pytest.fixture(scope="module")
def sandbox_server():
    """One real sandbox for the module (reset per case); cancellation waits 0.5 s at most."""
    with serve_in_background(config=SandboxConfig(cancel_wait_s=0.5)) as handle:
        yield handle


def _real_backend(handle) -> tuple[BookingBackend, list[SandboxClient]]:
    tokens: dict[tuple[str, str], str] = {}
    clients: list[SandboxClient] = []

    def port(timeout: float | None, subject: str, account: str) -> SandboxClient:
        if (subject, account) not in tokens:
            tokens[(subject, account)] = handle.admin.mint("acme", subject, account)
        client = SandboxClient(handle.base_url, tokens[(subject, account)],
                               timeout=timeout or 10.0)
        clients.append(client)
        return client

    async def finished(key: str, account: str) -> str:
        while True:
            rows = await asyncio.to_thread(handle.admin.requests)
            status = next((r["status"] for r in rows
                           if r["key"] == key and r["account"] == account), None)
            if status not in (None, "PENDING"):
                return status
            await asyncio.to_thread(handle.faults.wait_held, 99, 0.05)  # a thread pause

    return BookingBackend("real", handle.admin, handle.faults, port,
                          lambda n: asyncio.to_thread(handle.faults.wait_held, n, 10.0),
                          finished), clients


async def _quiesce(handle) -> None:
    """Release every hold and wait until no request is in flight, so no late write lands in
    the next case's sandbox."""
    handle.faults.release()
    for _ in range(200):
        rows = await asyncio.to_thread(handle.admin.requests)
        if not [r for r in rows if r["status"] == "PENDING"]:
            return
        await asyncio.to_thread(handle.faults.wait_held, 99, 0.05)


@pytest.fixture(params=BACKENDS)
async def booking(request):
    if request.param == "fake":
        sandbox = FakeSandbox()
        yield BookingBackend(
            "fake", sandbox.admin, sandbox.faults,
            lambda timeout, subject, account: sandbox.client("acme", subject, account,
                                                            timeout=timeout),
            lambda n: sandbox.faults.until_held(n, 10.0),
            lambda key, account: _status(sandbox.settled("acme", account, key)))
        await sandbox.aclose()
        return
    handle = request.getfixturevalue("sandbox_server")
    handle.admin.reset()
    backend, clients = _real_backend(handle)
    try:
        yield backend
    finally:
        await _quiesce(handle)
        for client in clients:
            await client.aclose()


async def _status(row_coro) -> str:
    return (await row_coro).status


def _kinds(backend: BookingBackend) -> list[str]:
    return [n["kind"] for n in backend.admin.notifications()]



async def test_create_commits_the_verified_record_with_one_confirmation(booking):
    port = booking.port()
    outcome = await port.create("q1:a1", 2, VISIT)
    assert (outcome.kind, outcome.request_state, outcome.replayed) == (
        K.COMMITTED, S.SUCCEEDED, False)
    record = outcome.record
    assert (record.account, record.asset, record.date, record.window, record.time,
            record.units, record.site, record.contact, record.status, record.version) == (
        "ACME-001", "P-100", "2026-12-03", "morning", None, 1, "12 Harbour Road, Rotterdam",
        "tech-17", "confirmed", 1)  # contact defaults to the token's subject
    assert await port.get(record.ref) == record
    assert await port.bookings() == (record,)
    [note] = booking.admin.notifications()
    assert (note["kind"], note["booking_ref"], note["booking_version"], note["dedupe_key"]) == (
        "confirmation", record.ref, 1, f"{record.ref}:v1:confirmation")
    assert note["body"] == (f"Service visit {record.ref} for P-100 on 2026-12-03 (morning) at "
                            "12 Harbour Road, Rotterdam is booked.")
    [row] = booking.admin.requests()
    assert (row["key"], row["op"], row["status"], row["revision"], row["booking_ref"]) == (
        "q1:a1", "create_booking", "SUCCEEDED", 2, record.ref)
    [created] = booking.admin.bookings()
    assert (created["created_key"], created["tenant"]) == ("q1:a1", "acme")


async def test_an_exact_time_implies_its_window(booking):
    visit = {k: v for k, v in VISIT.items() if k != "window"}
    outcome = await booking.port().create("q1:a1", 0, {**visit, "time": "14:30"})
    assert (outcome.record.window, outcome.record.time) == ("afternoon", "14:30")


async def test_same_key_and_payload_replays_the_outcome_and_writes_nothing(booking):
    port = booking.port()
    first = await port.create("q1:a1", 2, VISIT)
    again = await port.create("q1:a1", 2, VISIT)
    assert (again.kind, again.request_state, again.replayed) == (K.COMMITTED, S.SUCCEEDED, True)
    assert again.record == first.record
    assert len(await port.bookings()) == 1 and _kinds(booking) == ["confirmation"]


async def test_a_replay_reads_the_record_back_as_it_is_now(booking):
    port = booking.port()
    first = await port.create("q1:a1", 2, VISIT)
    await port.reschedule("q1:a2", 3, first.record.ref, 1, {"date": "2026-12-04"})
    again = await port.create("q1:a1", 2, VISIT)
    assert again.replayed and (again.record.version, again.record.date) == (2, "2026-12-04")


async def test_same_key_with_another_payload_or_operation_is_a_conflict(booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 2, VISIT)).record.ref
    other = await port.create("q1:a1", 3, {**VISIT, "window": "afternoon"})
    assert (other.kind, other.request_state, other.record) == (K.CONFLICT, None, None)
    assert "key_reused" in other.detail
    cancel = await port.cancel("q1:a1", 3, ref, 1)
    assert cancel.kind is K.CONFLICT and "key_reused" in cancel.detail
    [only] = await port.bookings()
    assert (only.status, only.version) == ("confirmed", 1)


async def test_reschedule_on_the_current_version_writes_the_next_one_with_a_change_notice(
        booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, {**VISIT, "time": "09:30"})).record.ref
    moved = await port.reschedule("q1:a2", 1, ref, 1, {"date": "2026-12-04"})
    assert (moved.kind, moved.request_state) == (K.COMMITTED, S.SUCCEEDED)
    assert (moved.record.date, moved.record.window, moved.record.time, moved.record.version) == (
        "2026-12-04", "morning", "09:30", 2)
    other_window = await port.reschedule("q1:a3", 2, ref, 2, {"window": "afternoon"})
    assert (other_window.record.window, other_window.record.time) == ("afternoon", None)
    exact = await port.reschedule("q1:a4", 3, ref, 3, {"time": "10:15"})
    assert (exact.record.window, exact.record.time, exact.record.version) == (
        "morning", "10:15", 4)
    assert _kinds(booking) == ["confirmation", "change", "change", "change"]
    assert [(n["booking_version"], n["kind"]) for n in booking.admin.notifications()][1:] == [
        (2, "change"), (3, "change"), (4, "change")]


async def test_a_stale_version_is_rejected_with_the_current_record_and_replayed_as_such(
        booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, VISIT)).record.ref
    booking.admin.staff_edit("acme", ref, {"contact": "desk"})
    stale = await port.reschedule("q1:a2", 1, ref, 1, {"date": "2026-12-04"})
    assert (stale.kind, stale.request_state, stale.replayed) == (
        K.REJECTED_STALE, S.FAILED, False)
    assert (stale.record.version, stale.record.contact, stale.record.date) == (
        2, "desk", "2026-12-03")
    assert "version_mismatch" in stale.detail
    again = await port.reschedule("q1:a2", 1, ref, 1, {"date": "2026-12-04"})
    assert (again.kind, again.replayed, again.record) == (K.REJECTED_STALE, True, stale.record)
    looked = await port.lookup("q1:a2")
    assert (looked.kind, looked.request_state, looked.record) == (
        K.REJECTED_STALE, S.FAILED, stale.record)
    fresh = await port.reschedule("q1:a3", 2, ref, 2, {"date": "2026-12-04"})
    assert (fresh.kind, fresh.record.version, fresh.record.contact) == (K.COMMITTED, 3, "desk")
    assert _kinds(booking) == ["confirmation", "change"]  # the staff edit did not notify


async def test_the_precondition_is_checked_at_commit_time_after_a_hold(booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, VISIT)).record.ref
    booking.faults.set([{"op": "reschedule_booking", "delay_ms": HOLD}])
    pending = asyncio.create_task(port.reschedule("q1:a2", 1, ref, 1, {"date": "2026-12-04"}))
    await booking.held()
    booking.admin.staff_edit("acme", ref, {"window": "afternoon"})
    booking.faults.release()
    outcome = await pending
    assert (outcome.kind, outcome.record.version, outcome.record.window) == (
        K.REJECTED_STALE, 2, "afternoon")


async def test_already_in_the_requested_state_writes_nothing(booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, VISIT)).record.ref
    same = await port.reschedule("q1:a2", 1, ref, 1, {"date": "2026-12-03"})
    assert (same.kind, same.record.version) == (K.COMMITTED, 1)
    assert _kinds(booking) == ["confirmation"]
    for contact in ("desk", "office"):
        booking.admin.staff_edit("acme", ref, {"contact": contact})
    # Already there, but the record is two versions past the one the change was built on:
    # a success the client cannot tell from a commit over a newer version.
    skipped = await port.reschedule("q1:a3", 2, ref, 1, {"date": "2026-12-03"})
    assert (skipped.kind, skipped.request_state, skipped.record.version) == (
        K.REJECTED_STALE, S.SUCCEEDED, 3)
    assert "stale_commit" in skipped.detail


async def test_cancel_is_conditional_and_a_cancelled_booking_cannot_be_moved(booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, VISIT)).record.ref
    cancelled = await port.cancel("q1:a2", 1, ref, 1)
    assert (cancelled.kind, cancelled.record.status, cancelled.record.version) == (
        K.COMMITTED, "cancelled", 2)
    assert [r.status for r in await port.bookings()] == ["cancelled"]  # listed, cancelled
    twice = await port.cancel("q1:a3", 2, ref, 2)
    assert (twice.kind, twice.record.version) == (K.COMMITTED, 2)  # nothing written
    moved = await port.reschedule("q1:a4", 3, ref, 2, {"date": "2026-12-04"})
    assert (moved.kind, moved.request_state) == (K.FAILED, S.FAILED)
    assert "booking_cancelled" in moved.detail
    assert _kinds(booking) == ["confirmation", "cancellation"]


async def test_another_accounts_booking_is_not_found_and_never_touched(booking):
    booking.admin.seed("acme", [{"ref": "BK-OTHER", "account": "ACME-002", "asset": "P-777",
                                 "date": "2026-12-07", "window": "morning", "site": "x",
                                 "contact": "someone"}])
    port = booking.port()
    assert await port.get("BK-OTHER") is None and await port.get("BK-NOPE") is None
    refused = await port.cancel("q1:a1", 0, "BK-OTHER", 1)
    assert (refused.kind, refused.request_state, refused.record) == (K.FAILED, S.FAILED, None)
    assert "404" in refused.detail
    assert (await port.lookup("q1:a1")).request_state is S.FAILED  # received, refused
    [other] = booking.admin.bookings()
    assert (other["status"], other["version"]) == ("confirmed", 1)
    owner = booking.port(subject="tech-9", account="ACME-002")
    assert (await owner.get("BK-OTHER")).asset == "P-777"
    assert await port.bookings() == ()


async def test_a_full_slot_refuses_a_create_and_a_move_into_it(booking):
    booking.admin.set_capacity("2026-12-03", "morning", 1)
    port = booking.port()
    await port.create("q1:a1", 0, VISIT)
    full = await port.create("q1:a2", 0, {**VISIT, "asset": "P-200"})
    assert (full.kind, full.request_state) == (K.FAILED, S.FAILED) and "slot_full" in full.detail
    assert (await port.lookup("q1:a2")).request_state is S.FAILED
    other = (await port.create("q1:a3", 0, {**VISIT, "window": "afternoon"})).record
    move = await port.reschedule("q1:a4", 1, other.ref, 1, {"window": "morning"})
    assert move.kind is K.FAILED and "slot_full" in move.detail
    assert len(await port.bookings()) == 2


async def test_a_malformed_request_is_refused_before_its_key_is_recorded(booking):
    port = booking.port()
    mismatch = await port.create("q1:a1", 0, {**VISIT, "time": "14:00"})  # not the morning
    no_day = await port.create("q1:a2", 0, {**VISIT, "date": "2026-02-30"})
    ref = (await port.create("q1:a3", 0, VISIT)).record.ref
    nothing = await port.reschedule("q1:a4", 1, ref, 1, {})
    for outcome, key in ((mismatch, "q1:a1"), (no_day, "q1:a2"), (nothing, "q1:a4")):
        assert (outcome.kind, outcome.request_state) == (K.FAILED, S.FAILED), key
        assert (await port.lookup(key)).request_state is S.NOT_FOUND, key
    assert [r["key"] for r in booking.admin.requests()] == ["q1:a3"]


async def test_lookup_and_cancel_request_by_key(booking):
    port = booking.port()
    for unknown in (await port.lookup("q9:never"), await port.request_cancel("q9:never")):
        assert (unknown.kind, unknown.request_state) == (K.FAILED, S.NOT_FOUND)
    created = await port.create("q1:a1", 2, VISIT)
    found = await port.lookup("q1:a1")
    assert (found.kind, found.request_state, found.replayed, found.record) == (
        K.COMMITTED, S.SUCCEEDED, False, created.record)
    late = await port.request_cancel("q1:a1")  # finished work is never undone
    assert (late.kind, late.request_state, late.record) == (
        K.COMMITTED, S.SUCCEEDED, created.record)
    assert [r.status for r in await port.bookings()] == ["confirmed"]


async def test_a_failure_before_commit_is_failed_and_the_same_key_may_run_again(booking):
    booking.faults.set([{"op": "create_booking", "fail_before_commit": True, "nth": 1}])
    port = booking.port()
    failed = await port.create("q1:a1", 2, VISIT)
    assert (failed.kind, failed.request_state) == (K.FAILED, S.FAILED) and "503" in failed.detail
    assert await port.bookings() == ()
    assert (await port.lookup("q1:a1")).request_state is S.FAILED
    retried = await port.create("q1:a1", 2, VISIT)
    assert (retried.kind, retried.replayed) == (K.COMMITTED, False)
    assert len(await port.bookings()) == 1


async def test_only_the_nth_call_of_an_op_is_faulted(booking):
    booking.faults.set([{"op": "create_booking", "fail_before_commit": True, "nth": 2}])
    port = booking.port()
    kinds = [(await port.create(f"q1:a{i}", 0, {**VISIT, "date": f"2026-12-0{i + 2}"})).kind
             for i in range(1, 4)]
    assert kinds == [K.COMMITTED, K.FAILED, K.COMMITTED]


async def test_a_dropped_response_is_unknown_and_the_key_finds_the_booking(booking):
    booking.faults.set([{"op": "create_booking", "drop_response": True, "nth": 1}])
    port = booking.port(timeout=TIMES_OUT)
    lost = await port.create("q1:a1", 2, VISIT)
    assert (lost.kind, lost.record, lost.request_state) == (K.UNKNOWN, None, None)
    assert "q1:a1" in lost.detail
    found = await port.lookup("q1:a1")
    assert (found.kind, found.request_state) == (K.COMMITTED, S.SUCCEEDED)
    again = await port.create("q1:a1", 2, VISIT)  # a retry with the same key: a replay
    assert (again.kind, again.replayed, again.record.ref) == (K.COMMITTED, True, found.record.ref)
    assert len(await port.bookings()) == 1


async def test_a_hang_is_unknown_and_cancelling_it_proves_nothing_was_written(booking):
    booking.faults.set([{"op": "create_booking", "hang": True}])
    port = booking.port(timeout=TIMES_OUT)
    assert (await port.create("q1:a1", 2, VISIT)).kind is K.UNKNOWN
    pending = await port.lookup("q1:a1")
    assert (pending.kind, pending.request_state) == (K.CONFLICT, S.PENDING)
    assert "still in flight" in pending.detail
    cancelled = await port.request_cancel("q1:a1")
    assert (cancelled.kind, cancelled.request_state) == (K.FAILED, S.CANCELLED)
    assert (await port.lookup("q1:a1")).request_state is S.CANCELLED
    assert await port.bookings() == () and booking.admin.notifications() == []


async def test_a_released_hang_failed_before_commit_and_may_run_again(booking):
    booking.faults.set([{"op": "create_booking", "hang": True, "nth": 1}])
    port = booking.port(timeout=TIMES_OUT)
    assert (await port.create("q1:a1", 2, VISIT)).kind is K.UNKNOWN
    booking.faults.release()
    assert await booking.finished("q1:a1") == "FAILED"
    looked = await port.lookup("q1:a1")
    assert (looked.kind, looked.request_state) == (K.FAILED, S.FAILED) and "503" in looked.detail
    retried = await port.create("q1:a1", 2, VISIT)
    assert (retried.kind, retried.replayed) == (K.COMMITTED, False)


async def test_a_key_in_flight_is_a_conflict_and_cancelling_it_ends_it_cancelled(booking):
    booking.faults.set([{"op": "create_booking", "delay_ms": HOLD}])
    port = booking.port()
    first = asyncio.create_task(port.create("q1:a1", 2, VISIT))
    await booking.held()
    busy = await port.create("q1:a1", 2, VISIT)
    assert (busy.kind, busy.request_state) == (K.CONFLICT, S.PENDING)
    reused = await port.create("q1:a1", 2, {**VISIT, "window": "afternoon"})
    assert (reused.kind, reused.request_state) == (K.CONFLICT, None)
    cancelled = await port.request_cancel("q1:a1")
    assert (cancelled.kind, cancelled.request_state) == (K.FAILED, S.CANCELLED)
    ended = await first
    assert (ended.kind, ended.request_state) == (K.FAILED, S.CANCELLED)
    assert "request_cancelled" in ended.detail
    assert await port.bookings() == () and booking.admin.notifications() == []


async def test_an_uncancellable_request_completes_anyway(booking):
    booking.faults.set([{"op": "create_booking", "delay_ms": HOLD, "uncancellable": True}])
    port = booking.port()
    first = asyncio.create_task(port.create("q1:a1", 2, VISIT))
    await booking.held()
    asked = await port.request_cancel("q1:a1")
    assert (asked.kind, asked.request_state) == (K.CONFLICT, S.PENDING)
    assert "cancel requested" in asked.detail
    booking.faults.release()
    done = await first
    assert (done.kind, done.request_state) == (K.COMMITTED, S.SUCCEEDED)
    assert (await port.lookup("q1:a1")).request_state is S.SUCCEEDED
    assert len(await port.bookings()) == 1


async def test_a_target_that_ignores_the_precondition_is_reported_as_a_stale_commit(booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, VISIT)).record.ref
    booking.admin.staff_edit("acme", ref, {"contact": "desk"})
    booking.faults.set([{"op": "cancel_booking", "ignore_precondition": True}])
    outcome = await port.cancel("q1:a2", 1, ref, 1)
    assert (outcome.kind, outcome.request_state) == (K.REJECTED_STALE, S.SUCCEEDED)
    assert "stale_commit" in outcome.detail
    assert (outcome.record.status, outcome.record.version) == ("cancelled", 3)


async def test_a_handoff_is_queued_once_per_question_and_revision(booking):
    port = booking.port()
    state = HandoffState("q1", 3, (("visit_date", "2026-12-03", 2, "confirmed"),),
                         (("a1", "create_booking", "unknown"),), ("which week",), "unknown")
    ticket = await port.handoff(state)
    assert ticket.startswith("HO-") and await port.handoff(state) == ticket
    with pytest.raises(AmendError):  # same key, another state: refused, never merged
        await port.handoff(replace(state, reason="other"))
    assert await port.handoff(replace(state, revision=4)) != ticket


async def test_bookings_lists_this_accounts_bookings_cancelled_ones_included(booking):
    booking.admin.seed("acme", [
        {"ref": "BK-A1", "account": "ACME-001", "asset": "P-100", "date": "2026-12-07",
         "window": "morning", "site": "s", "contact": "c"},
        {"ref": "BK-A2", "account": "ACME-001", "asset": "P-200", "date": "2026-12-08",
         "time": "14:00", "site": "s", "contact": "c", "status": "cancelled", "version": 3},
        {"ref": "BK-B1", "account": "ACME-002", "asset": "P-900", "date": "2026-12-07",
         "window": "morning", "site": "s", "contact": "c"}])
    mine = await booking.port().bookings()
    assert [(r.ref, r.window, r.status, r.version) for r in mine] == [
        ("BK-A1", "morning", "confirmed", 1), ("BK-A2", "afternoon", "cancelled", 3)]


async def test_staff_edits_bump_the_version_and_are_refused_when_stale_or_unknown(booking):
    port = booking.port()
    ref = (await port.create("q1:a1", 0, VISIT)).record.ref
    edited = booking.admin.staff_edit("acme", ref, {"window": "afternoon"}, notify=True)
    assert (edited["window"], edited["version"]) == ("afternoon", 2)
    assert _kinds(booking) == ["confirmation", "change"]
    assert booking.admin.staff_edit("acme", ref, {"window": "afternoon"})["version"] == 2
    with pytest.raises(RuntimeError):
        booking.admin.staff_edit("acme", ref, {"window": "morning"}, expected_version=1)
    with pytest.raises(RuntimeError):
        booking.admin.staff_edit("acme", "BK-NOPE", {"window": "morning"})
    assert (await port.get(ref)).version == 2


# =========================================================================== Resolver

CONFLICT_YAML = """
registry: conflict
time: instants
families:
  - id: pump-seal
    title: pump seal
    procedures:
      - {id: seal-torque, title: seal torque, aliases: ["torque for the pump seal"]}
revisions:
  - {id: m-1, family: pump-seal, kind: manual, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU],
                valid: ["2025-01-01T00:00:00+01:00", null]}],
     text: "Tighten to 40 Nm."}
  - {id: m-2, family: pump-seal, kind: manual, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU],
                valid: ["2025-01-01T00:00:00+01:00", null]}],
     text: "Tighten to 55 Nm."}
"""
TICKS_YAML = """
registry: corrections
time: ticks
revisions:
  - id: manual-A
    family: pump-seal
    kind: manual
    language: en
    status: approved
    tenant: "*"
    applies:
      - {procedure: seal-torque, configurations: [C2], regions: [EU], valid: [0, null]}
    text: "Tighten the C2 seal bolts to 40 Nm."
  - id: bulletin-B
    family: pump-seal
    kind: bulletin
    language: en
    status: STATUS
    tenant: "*"
    applies:
      - {procedure: seal-torque, configurations: [CONFIGS], regions: [EU], valid: [5, null]}
    supersedes:
      - {revision: manual-A, procedure: seal-torque, decision: AD-17}
    text: "Service bulletin B: tighten the C2 seal bolts to 45 Nm."
"""

EDGES_YAML = """
registry: edges
time: ticks
revisions:
  - {id: A, family: pump-seal, kind: manual, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [0, null]},
               {procedure: seal-gap, configurations: [C2], regions: [EU], valid: [0, null]}],
     text: "Manual A."}
  - {id: B, family: pump-seal, kind: bulletin, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [0, null]},
               {procedure: seal-gap, configurations: [C2], regions: [EU], valid: [0, null]}],
     supersedes: [{revision: A, procedure: seal-torque, decision: D-1}],
     text: "Bulletin B."}
  - {id: C, family: pump-seal, kind: bulletin, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C3], regions: [EU], valid: [0, null]}],
     supersedes: [{revision: X, procedure: seal-torque, decision: D-2}],
     text: "Bulletin C."}
  - {id: X, family: pump-seal, kind: bulletin, language: en, status: withdrawn, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C9], regions: [EU], valid: [0, null]}],
     supersedes: [{revision: D, procedure: seal-torque, decision: D-3}],
     text: "Bulletin X, withdrawn, still part of the chain of decisions."}
  - {id: D, family: pump-seal, kind: manual, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C3], regions: [EU], valid: [0, null]}],
     text: "Manual D."}
"""


def _ticks_file(tmp: Path, name: str, *, status: str = "approved",
                configs: str = "C2") -> Path:
    path = tmp / name
    path.write_text(TICKS_YAML.replace("STATUS", status).replace("CONFIGS", configs))
    return path


def make_registry(kind: str, files: list[Path] | tuple[Path, ...], *,
                  clock: Clock | None = None, now_tick: int | None = None):
    """The real SQLite registry or the fake, loaded from the same files in the same order."""
    clock = clock or FixedClock(NOW)
    if kind == "fake":
        return FakeRegistry.from_files(files, clock=clock, now_tick=now_tick)
    db = schema.memory()
    for path in files:
        store.apply_file(db, parse_file(path))
    return Registry(db, clock=clock, now_tick=now_tick)


@pytest.fixture(params=BACKENDS)
def registry_kind(request) -> str:
    return request.param


@pytest.fixture
def demo(registry_kind):
    return make_registry(registry_kind, demo_files())


def seal(configuration: str | None = "C2", region: str | None = "EU", **changes
         ) -> ResolutionQuery:
    base = ResolutionQuery(tenant="acme", roles=("technician",), family="pump-seal",
                           procedure="seal-torque", configuration=configuration, region=region)
    return replace(base, **changes)


def returns(procedure: str = "filter-kit", **changes) -> ResolutionQuery:
    base = ResolutionQuery(tenant="acme", roles=("technician",), family="returns",
                           procedure=procedure, configuration="*", region="EU",
                           fields=(("opened", "yes"),))
    return replace(base, **changes)


def test_the_authoritative_revision_resolves_with_its_scope_token(demo):
    answer = demo.resolve(seal())
    assert (answer.outcome, answer.revision, answer.edition, answer.language) == (
        RegistryOutcome.RESOLVED, "nw-bulletin-b", "nw-bulletin-b", "en")
    assert answer.valid == ("2026-06-01T00:00:00+02:00", "2027-01-01T00:00:00+01:00")
    assert (answer.instant, answer.known_at, answer.historical, answer.label) == (
        NOW.isoformat(), 2, False, "current")
    token = answer.token
    assert (token.tenant, token.configuration, token.region, token.mode, token.instant,
            token.known_at, token.language, token.allowed_revisions) == (
        "acme", "C2", "EU", "current", NOW.isoformat(), 2, "en", ("nw-bulletin-b",))
    assert token.policy_version == "applicability/1" and len(token.cache_key) == 64
    assert demo.snapshot == 2


def test_a_historical_question_is_answered_as_of_its_instant(demo):
    answer = demo.resolve(seal(mode="historical", at="2026-03-01T09:00:00+01:00"))
    assert (answer.outcome, answer.revision, answer.historical) == (
        RegistryOutcome.RESOLVED, "nw-manual-a", True)
    assert answer.label == "as of 2026-03-01T09:00:00+01:00"
    assert answer.token.mode == "historical"


def test_a_missing_scope_input_is_named_and_nothing_is_resolved(demo):
    answer = demo.resolve(seal(region=None))
    assert (answer.outcome, answer.missing, answer.revision, answer.token) == (
        RegistryOutcome.MISSING_SCOPE, ("region",), None, None)
    undated = demo.resolve(seal(mode="historical"))
    assert (undated.outcome, undated.missing, undated.instant) == (
        RegistryOutcome.MISSING_SCOPE, ("at",), "")
    both = demo.resolve(seal(configuration=None, region=None))
    assert both.missing == ("configuration", "region")


def test_no_approved_revision_for_the_scope_is_not_applicable(demo):
    answer = demo.resolve(seal(region="APAC"))
    assert (answer.outcome, answer.revision, answer.token) == (
        RegistryOutcome.NOT_APPLICABLE, None, None)


def test_a_restricted_winner_is_unavailable_and_never_named(demo):
    answer = demo.resolve(seal(configuration="C3"))
    assert (answer.outcome, answer.revision, answer.edition, answer.token) == (
        RegistryOutcome.UNAVAILABLE, None, None, None)  # no fallback to the older manual
    supervisor = demo.resolve(seal(configuration="C3", roles=("supervisor",)))
    assert (supervisor.outcome, supervisor.revision) == (
        RegistryOutcome.RESOLVED, "nw-bulletin-c3-hp")


def test_editions_the_reviewed_translation_or_none(demo):
    german = demo.resolve(seal(language="de"))  # bulletin B has no reviewed German edition
    assert (german.outcome, german.revision) == (RegistryOutcome.NO_EQUIVALENT_EDITION, None)
    later = demo.resolve(seal(language="de", mode="historical",
                              at="2027-02-01T09:00:00+01:00"))
    assert (later.outcome, later.revision, later.edition, later.language) == (
        RegistryOutcome.RESOLVED, "nw-manual-c", "nw-manual-c-de", "de")
    assert later.token.allowed_revisions == ("nw-manual-c", "nw-manual-c-de")


def test_a_draft_never_wins_and_a_tenant_contract_wins_only_for_its_tenant(demo):
    assert demo.resolve(seal(mode="historical", at="2026-12-15T09:00:00+01:00")).revision \
        == "nw-bulletin-b"
    assert demo.resolve(returns()).revision == "returns-eu-2026"
    assert demo.resolve(returns(tenant="globex")).revision == "returns-globex-contract"
    assert demo.resolve(returns("seal-kit")).revision == "returns-eu-2026-seals"


def test_two_candidates_without_a_decision_are_unresolved_authority(registry_kind, tmp_path):
    path = tmp_path / "conflict.yaml"
    path.write_text(CONFLICT_YAML)
    answer = make_registry(registry_kind, [path]).resolve(seal())
    assert (answer.outcome, answer.revision, answer.token) == (
        RegistryOutcome.UNRESOLVED_AUTHORITY, None, None)


def test_a_supersession_holds_for_its_procedure_only_and_through_any_revision(
        registry_kind, tmp_path):
    path = tmp_path / "edges.yaml"
    path.write_text(EDGES_YAML)
    registry = make_registry(registry_kind, [path], now_tick=3)
    assert registry.resolve(seal()).revision == "B"  # B beats A for seal-torque...
    gap = registry.resolve(seal(procedure="seal-gap"))  # ...and for nothing else
    assert (gap.outcome, gap.revision) == (RegistryOutcome.UNRESOLVED_AUTHORITY, None)
    assert registry.resolve(seal("C3")).revision == "C"  # C > X > D: X is no candidate


def test_corrections_and_withdrawals_are_known_as_of_their_snapshot(registry_kind, tmp_path):
    first = _ticks_file(tmp_path, "1.yaml")
    files = [first, first, _ticks_file(tmp_path, "2.yaml", configs="C2, C3"),
             _ticks_file(tmp_path, "3.yaml", status="withdrawn", configs="C2, C3")]
    registry = make_registry(registry_kind, files, now_tick=6)
    assert registry.snapshot == 3  # the same file twice is one snapshot
    at_6 = {"mode": "historical", "at": "6"}
    assert registry.resolve(seal(**at_6)).revision == "manual-A"  # B withdrawn
    assert registry.resolve(seal(**at_6, known_at=1)).revision == "bulletin-B"
    assert registry.resolve(seal("C3", **at_6, known_at=1)).outcome \
        is RegistryOutcome.NOT_APPLICABLE
    assert registry.resolve(seal("C3", **at_6, known_at=2)).revision == "bulletin-B"
    assert registry.resolve(seal("C3", **at_6)).outcome is RegistryOutcome.NOT_APPLICABLE
    assert registry.resolve(seal(**at_6, known_at=0)).outcome is RegistryOutcome.NOT_APPLICABLE
    current = registry.resolve(seal(known_at=1))  # current mode: the registry's now_tick
    assert (current.revision, current.instant) == ("bulletin-B", "6")
    texts = {t.id: t.status for t in registry.revision_texts()}
    assert texts == {"manual-A": "approved", "bulletin-B": "withdrawn"}


def test_malformed_queries_are_errors_not_outcomes(registry_kind, tmp_path):
    registry = make_registry(registry_kind, demo_files())
    for query in (seal(mode="sometime"), seal(known_at=99),
                  seal(mode="historical", at="yesterday")):
        with pytest.raises(BadQuery):
            registry.resolve(query)
    ticks = make_registry(registry_kind, [_ticks_file(tmp_path, "t.yaml")])
    with pytest.raises(BadQuery):  # current mode in a ticks registry needs a "now" tick
        ticks.resolve(seal())


def test_procedures_and_revision_texts_are_the_catalogue(demo):
    torque = ProcedureInfo("pump-seal", "pump seal", "seal-torque", "seal torque", (
        "seal torque", "pump seal torque", "seal bolt torque", "how tight",
        "how tight is the seal", "torque for the pump seal", "tighten the seal bolts"))
    assert torque in demo.procedures()
    assert [p.procedure for p in demo.procedures()] == ["seal-torque", "filter-kit", "seal-kit"]
    texts = {t.id: t for t in demo.revision_texts()}
    assert len(texts) == 15
    policy = texts["returns-eu-2026"]
    assert (policy.family, policy.kind, policy.tenant, policy.roles, policy.procedures) == (
        "returns", "policy", "*", (), ("filter-kit",))
    assert [s[:2] for s in policy.sections] == [("opened", (("opened", "yes"),)),
                                                ("unopened", (("opened", "no"),))]
    assert texts["nw-bulletin-c3-hp"].roles == ("supervisor",)
    assert texts["nw-manual-a-de"].equivalent_to == "nw-manual-a"


def test_the_fake_registry_answers_every_query_of_a_grid_as_the_real_one_does():
    """Differential: the same files, the same grid of queries, identical answers."""
    fake, real = make_registry("fake", demo_files()), make_registry("real", demo_files())
    assert fake.procedures() == real.procedures()
    assert fake.revision_texts() == real.revision_texts()
    assert fake.snapshot == real.snapshot
    topics = [("pump-seal", "seal-torque", c) for c in ("C1", "C2", "C3", None)] + [
        ("returns", p, "*") for p in ("filter-kit", "seal-kit")]
    instants = [None, "2025-06-01T00:00:00+01:00", "2026-07-01T00:00:00+02:00",
                "2027-03-01T12:00:00+01:00"]
    asked = 0
    for (family, procedure, configuration), region, language, roles, tenant, at, known \
            in itertools.product(topics, ("EU", "US", "APAC", None), ("en", "de"),
                                 (("technician",), ("supervisor",)), ("acme", "globex"),
                                 instants, (None, 1)):
        query = ResolutionQuery(tenant=tenant, roles=roles, family=family, procedure=procedure,
                                configuration=configuration, region=region, language=language,
                                mode="current" if at is None else "historical", at=at,
                                known_at=known)
        assert fake.resolve(query) == real.resolve(query), query
        asked += 1
    assert asked == 6 * 4 * 2 * 2 * 2 * 4 * 2


# =========================================================================== Retriever


@dataclass
class Search:
    """One retrieval stack: a registry for tokens, a corpus, and retrievers over it."""

    kind: str
    registry: Any
    corpus: Any
    ledger: Ledger
    trace: Trace
    hold: Any = None  # the last retriever's hold control: hold/started/release by request id

    def retriever(self, *, roles=("technician",), gate: AdmissionGate | None = None,
                  current_scope=None, private=(), times_out: str | None = None,
                  held: str | None = None) -> Retriever:
        """``times_out``: the request id whose search gets no answer by the deadline;
        ``held``: the request id whose search waits for ``self.hold.release(held)``."""
        gate = gate or AdmissionGate(self.ledger)
        if self.kind == "fake":
            retriever = FakeRetriever(self.corpus, gate, self.trace, roles=roles,
                                      current_scope=current_scope, private=private)
            if times_out is not None:
                retriever.control.time_out(times_out)
            if held is not None:
                retriever.control.hold(held)
            self.hold = retriever.control
            return retriever
        self.hold = FetchHold()
        for rid in (times_out, held):
            if rid is not None:
                self.hold.hold(rid)  # a timed-out one is never released: the deadline passes
        return ScopedRetriever(self.corpus, gate, self.trace, roles=roles,
                               current_scope=current_scope, private=private,
                               fetch_hook=self.hold,
                               timeout=0.05 if times_out is not None else 2.0)

    def request(self, query: ResolutionQuery, text: str = "seal torque", *,
                reads: tuple[str, ...] = ("asset",), rid: str = "r1",
                scope: str | None = "token", limit: int = 3) -> RetrievalRequest:
        token = self.registry.resolve(query).token
        assert token is not None, query
        stamp = Stamp.of(self.ledger.current, reads,
                         scope=token.cache_key if scope == "token" else scope, request=rid)
        return RetrievalRequest(stamp, token, text, query.fields, limit)

    def events(self) -> list[tuple[str, str | None]]:
        return [(e.name, e.disposition) for e in self.trace.events]


def make_search(kind: str) -> Search:
    registry = make_registry(kind, demo_files())
    corpus = FakeCorpus() if kind == "fake" else Corpus(None)
    corpus.sync(registry.revision_texts(), registry.snapshot)
    ledger = Ledger("q-1")
    ledger.set("asset", "P-100", "utterance:u1")
    return Search(kind, registry, corpus, ledger, Trace(debug=True))


@pytest.fixture(params=BACKENDS)
def search(request):
    made = make_search(request.param)
    yield made
    if request.param == "real":
        made.corpus.close()


ADMITTED = [("retrieval_started", None), ("retrieval_completed", None),
            ("retrieval_admitted", "current")]


async def test_evidence_comes_from_the_allowed_revision_with_full_citations(search):
    request = search.request(seal())
    result = await search.retriever().retrieve(request)
    assert (result.outcome, result.request) == (RetrievalOutcome.EVIDENCE, "r1")
    bundle = result.bundle
    assert bundle.stamp == request.stamp and bundle.token == request.token
    [passage] = bundle.passages
    assert passage.revision == "nw-bulletin-b" and passage.chunk.startswith("nw-bulletin-b#0-")
    assert passage.text.startswith("Service bulletin SB-2026-06: tighten the C2 pump seal")
    assert passage.score > 0
    cite = passage.citation
    assert (cite.request_scope, cite.revision, cite.chunk, cite.language, cite.valid,
            cite.instant, cite.registry_snapshot, cite.policy_version) == (
        request.token.cache_key, "nw-bulletin-b", passage.chunk, "en",
        ("2026-06-01T00:00:00+02:00", "2027-01-01T00:00:00+01:00"), NOW.isoformat(), 2,
        "applicability/1")
    assert len(cite.digest) == 64
    assert search.events() == ADMITTED


async def test_section_conditions_are_hard_filters_that_fail_closed(search):
    opened = await search.retriever().retrieve(search.request(returns(), "return filter kit"))
    [passage] = opened.bundle.passages
    assert passage.text == ("Opened filter kits can be returned within 14 days with a 15 "
                            "percent restocking fee.")
    unopened = await search.retriever().retrieve(
        search.request(returns(fields=(("opened", "no"),)), "return filter kit", rid="r2"))
    assert "30 days for a full refund" in unopened.bundle.passages[0].text
    unknown = await search.retriever().retrieve(
        search.request(returns(fields=()), "return filter kit", rid="r3"))
    assert (unknown.outcome, unknown.bundle) == (RetrievalOutcome.NO_ELIGIBLE_EVIDENCE, None)


async def test_no_query_words_and_unreadable_revisions_give_no_evidence(search):
    words = await search.retriever().retrieve(search.request(seal(), "what is the of it"))
    assert words.outcome is RetrievalOutcome.NO_ELIGIBLE_EVIDENCE
    restricted = search.request(seal("C3", roles=("supervisor",)), rid="r2")
    hidden = await search.retriever(roles=("technician",)).retrieve(restricted)
    assert hidden.outcome is RetrievalOutcome.NO_ELIGIBLE_EVIDENCE
    seen = await search.retriever(roles=("supervisor",)).retrieve(restricted)
    assert seen.bundle.passages[0].revision == "nw-bulletin-c3-hp"
    globex = search.request(returns(tenant="globex"), "return filter kit", rid="r3")
    foreign = replace(globex, token=replace(globex.token, tenant="acme"), stamp=replace(
        globex.stamp, scope=replace(globex.token, tenant="acme").cache_key))
    assert (await search.retriever().retrieve(foreign)).outcome \
        is RetrievalOutcome.NO_ELIGIBLE_EVIDENCE  # another tenant's revision is never evidence


async def test_a_translation_is_cited_with_its_own_language(search):
    request = search.request(seal(language="de", mode="historical",
                                  at="2027-02-01T09:00:00+01:00"), "Dichtungsschrauben")
    [passage] = (await search.retriever().retrieve(request)).bundle.passages
    assert (passage.revision, passage.citation.language) == ("nw-manual-c-de", "de")
    assert passage.citation.valid == ("2027-01-01T00:00:00+01:00", None)


async def test_a_result_for_a_changed_field_is_stale_and_a_closed_question_admits_nothing(
        search):
    request = search.request(seal())
    search.ledger.set("asset", "P-200", "utterance:u2")  # the field the search read moved on
    stale = await search.retriever().retrieve(request)
    assert (stale.outcome, stale.bundle) == (RetrievalOutcome.STALE, None)
    assert search.events()[-1] == ("retrieval_rejected", "stale")
    unrelated = search.request(seal(), reads=("asset",), rid="r2")
    search.ledger.set("visit_date", "2026-12-03", "utterance:u3")  # a field it did not read
    assert (await search.retriever().retrieve(unrelated)).outcome is RetrievalOutcome.EVIDENCE
    search.ledger.close()
    closed = await search.retriever().retrieve(search.request(seal(), rid="r3"))
    assert closed.outcome is RetrievalOutcome.CLOSED
    assert search.events()[-1] == ("retrieval_rejected", "closed")


async def test_a_search_held_across_a_correction_comes_back_stale(search):
    retriever = search.retriever(held="r1")
    late = asyncio.create_task(retriever.retrieve(search.request(seal())))
    await search.hold.started("r1")
    search.ledger.set("asset", "P-200", "utterance:u2")  # "I meant the other pump"
    fresh = await retriever.retrieve(search.request(seal(), rid="r2"))  # not held
    assert fresh.outcome is RetrievalOutcome.EVIDENCE
    search.hold.release("r1")
    assert (await late).outcome is RetrievalOutcome.STALE
    assert [(e.request, e.name) for e in search.trace.events if e.name != "retrieval_started"] \
        == [("r2", "retrieval_completed"), ("r2", "retrieval_admitted"),
            ("r1", "retrieval_completed"), ("r1", "retrieval_rejected")]


async def test_a_result_computed_for_another_scope_is_out_of_scope(search):
    foreign = await search.retriever().retrieve(search.request(seal(), scope="another-scope"))
    assert foreign.outcome is RetrievalOutcome.OUT_OF_SCOPE
    moved = search.retriever(current_scope=lambda: "the-scope-now")
    assert (await moved.retrieve(search.request(seal(), rid="r2"))).outcome \
        is RetrievalOutcome.OUT_OF_SCOPE
    assert [d for n, d in search.events() if n == "retrieval_rejected"] == [
        "out_of_scope", "out_of_scope"]


async def test_the_shadow_gate_lets_a_stale_result_through_and_says_so(search):
    request = search.request(seal())
    search.ledger.set("asset", "P-200", "utterance:u2")
    shadow = AdmissionGate(search.ledger, GateMode.SHADOW)
    result = await search.retriever(gate=shadow).retrieve(request)
    assert result.outcome is RetrievalOutcome.EVIDENCE
    admitted = search.trace.events[-1]
    assert (admitted.name, admitted.get("would_be")) == ("retrieval_admitted", "stale")
    assert [r.disposition.value for r in shadow.shadow_log] == ["stale"]


async def test_identifying_text_is_scrubbed_before_trace_and_search(search):
    private = ("tech-17", "ACME-001", "P-100", "12 Harbour Road, Rotterdam")
    retriever = search.retriever(private=private)
    clean = await retriever.retrieve(search.request(seal(), "seal torque"))
    dirty = await retriever.retrieve(search.request(
        seal(), "seal torque tech-17 ACME-001 P-100 12 Harbour Road, Rotterdam "
        "+31 20 555 0100 sam@example.com", rid="r2"))
    traced = [e.get("query") for e in search.trace.events if e.name == "retrieval_started"]
    assert traced == ["seal torque", "seal torque"]
    assert [p.citation for p in dirty.bundle.passages] == [
        p.citation for p in clean.bundle.passages]


async def test_no_answer_by_the_deadline_is_a_timeout_never_no_evidence(search):
    result = await search.retriever(times_out="r1").retrieve(search.request(seal()))
    assert (result.outcome, result.bundle, result.request) == (
        RetrievalOutcome.TIMEOUT, None, "r1")
    completed = search.trace.events[-1]
    assert (completed.name, completed.get("outcome")) == ("retrieval_completed", "timeout")


async def test_the_fake_retriever_ranks_and_cites_every_search_of_a_grid_as_the_real_one():
    """Differential: every scope the demo registry resolves, several phrasings, both filter
    values and both roles, identical passages, scores and citations."""
    fake, real = make_search("fake"), make_search("real")
    queries = [seal(c, r, language=lang, mode=m, at=at, roles=roles)
               for c, r, lang, (m, at), roles in itertools.product(
                   ("C1", "C2", "C3"), ("EU", "US"), ("en", "de"),
                   (("current", None), ("historical", "2026-03-01T09:00:00+01:00"),
                    ("historical", "2027-02-01T09:00:00+01:00")),
                   (("technician",), ("supervisor",)))]
    queries += [returns(p, region=r, fields=f, tenant=t)
                for p, r, f, t in itertools.product(
                    ("filter-kit", "seal-kit"), ("EU", "US"),
                    ((("opened", "yes"),), (("opened", "no"),), ()), ("acme", "globex"))]
    texts = ("seal torque", "how tight are the seal bolts", "tighten bolts cross pattern Nm",
             "return an opened filter kit restocking fee", "Dichtungsschrauben anziehen",
             "refund within days")
    compared = 0
    for query in queries:
        if real.registry.resolve(query).token is None:
            continue
        for text, roles in itertools.product(texts, (("technician",), ("supervisor",))):
            ours = await fake.retriever(roles=roles).retrieve(fake.request(query, text))
            theirs = await real.retriever(roles=roles).retrieve(real.request(query, text))
            assert ours == theirs, (query, text, roles)
            compared += 1
    assert compared > 100
    assert [(e.name, e.disposition, e.get("passages")) for e in fake.trace.events] == [
        (e.name, e.disposition, e.get("passages")) for e in real.trace.events]
    real.corpus.close()


# =========================================================================== Clock


@pytest.fixture(params=["fake", "fixed"])
def stopped_clock(request) -> Clock:
    return FakeClock(NOW) if request.param == "fake" else FixedClock(NOW)


def test_a_stopped_clock_reads_its_aware_instant_and_never_the_wall_clock(stopped_clock):
    first = stopped_clock.now()
    assert first == stopped_clock.now() == NOW and first.utcoffset() == timedelta(hours=1)


@pytest.mark.parametrize("make", [FakeClock, FixedClock], ids=["fake", "fixed"])
def test_a_naive_instant_is_refused(make):
    with pytest.raises(ValueError, match="aware"):
        make(NOW.replace(tzinfo=None))


def test_the_system_clock_is_aware_and_the_fake_moves_only_when_told():
    assert SystemClock().now().tzinfo is not None
    clock = FakeClock(NOW)
    assert clock.advance(days=2) == NOW + timedelta(days=2) == clock.now()
    clock.set("2027-01-01T08:00:00+01:00")
    assert clock.now().isoformat() == "2027-01-01T08:00:00+01:00"
    with pytest.raises(ValueError):
        clock.advance(minutes=-1)


# =========================================================================== shapes


PORTS = [(BookingPort, (FakeBookingPort, SandboxClient)), (Resolver, (FakeRegistry, Registry)),
         (RevisionSource, (FakeRegistry, Registry)), (Retriever, (FakeRetriever, ScopedRetriever)),
         (Clock, (FakeClock, FixedClock, SystemClock))]


@pytest.mark.parametrize(("protocol", "implementations"), PORTS,
                         ids=[p.__name__ for p, _ in PORTS])
def test_every_port_member_exists_with_the_same_parameters(protocol, implementations):
    members = [name for name in vars(protocol) if not name.startswith("_")]
    assert members, protocol
    for cls in implementations:
        for name in members:
            wanted, got = getattr(protocol, name), getattr(cls, name, None)
            assert got is not None, f"{cls.__name__}.{name}"
            if isinstance(wanted, property):
                continue  # snapshot: an int attribute or property on both
            assert inspect.iscoroutinefunction(got) == inspect.iscoroutinefunction(wanted), \
                f"{cls.__name__}.{name}: sync/async differs from {protocol.__name__}"
            assert list(inspect.signature(got).parameters) == list(
                inspect.signature(wanted).parameters), f"{cls.__name__}.{name}"
