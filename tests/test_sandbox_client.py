"""The agent's booking client: HTTP answers map to typed outcomes, timeouts are UNKNOWN."""

from __future__ import annotations

import asyncio

import pytest

from agent.core.actions import idempotency_key_for
from agent.core.ports import BookingOutcomeKind as K
from agent.core.ports import BookingPort, HandoffState, RequestState
from tools_sandbox.client import SandboxClient
from tools_sandbox.server import serve_in_background

VISIT = {"asset": "P-100", "date": "2026-12-03", "window": "morning", "units": 1,
         "site": "12 Harbour Road, Rotterdam", "contact": "tech-17", "account": "ACME-001"}
KEY = idempotency_key_for("q1", "a1")


@pytest.fixture(scope="module")
def sandbox(sandbox_db):
    with serve_in_background(sandbox_db, seed=3) as handle:
        yield handle


# A client waits ANSWER_SECS, as long as a loaded machine needs for an answer; one facing a
# fault that holds the answer back (a dropped response, a hang) gives up after NO_ANSWER_SECS.
ANSWER_SECS = 30.0
NO_ANSWER_SECS = 0.5


async def booked(client):
    """The test's visit, created. A create that got no answer in time (UNKNOWN: a fresh-clone
    run beside `make test-audio` once lost one on PostgreSQL) is sent again with the same key,
    as the client's contract says: the sandbox replays it, it never books twice."""
    for _ in range(3):
        outcome = await client.create(KEY, 2, VISIT)
        if outcome.kind is not K.UNKNOWN:
            break
    assert outcome.kind is K.COMMITTED and outcome.record is not None, outcome
    return outcome.record.ref


@pytest.fixture
async def client(sandbox):
    sandbox.admin.reset()
    token = sandbox.admin.mint("acme", "tech-17", "ACME-001")
    async with SandboxClient(sandbox.base_url, token, timeout=ANSWER_SECS) as c:
        yield c


@pytest.fixture
async def impatient(sandbox, client):
    # the same caller beside ``client`` (which reset the sandbox), with a token of its own
    token = sandbox.admin.mint("acme", "tech-17", "ACME-001")
    async with SandboxClient(sandbox.base_url, token, timeout=NO_ANSWER_SECS) as c:
        yield c


def test_client_satisfies_the_booking_port() -> None:
    port: BookingPort = SandboxClient("http://127.0.0.1:9", "t")
    assert callable(port.create) and callable(port.lookup)


@pytest.mark.anyio
async def test_create_is_committed_with_the_verified_record(client):
    outcome = await client.create(KEY, 2, VISIT)
    assert outcome.kind is K.COMMITTED and outcome.request_state is RequestState.SUCCEEDED
    record = outcome.record
    assert (record.date, record.window, record.version, record.status) == (
        "2026-12-03", "morning", 1, "confirmed")
    assert await client.get(record.ref) == record
    assert client.sent[-1].revision == 2 and client.sent[-1].key == KEY


@pytest.mark.anyio
async def test_retry_with_the_same_key_is_a_replay_not_a_second_booking(client):
    first = await client.create(KEY, 2, VISIT)
    again = await client.create(KEY, 2, VISIT)
    assert again.kind is K.COMMITTED and again.replayed and again.record.ref == first.record.ref
    assert len(await client.bookings()) == 1


@pytest.mark.anyio
async def test_key_reused_for_another_payload_is_conflict(client):
    await client.create(KEY, 2, VISIT)
    outcome = await client.create(KEY, 3, {**VISIT, "window": "afternoon"})
    assert outcome.kind is K.CONFLICT and "key_reused" in outcome.detail


@pytest.mark.anyio
async def test_reschedule_on_a_stale_version_is_rejected_stale_with_current_record(
        client, sandbox):
    ref = await booked(client)
    sandbox.admin.staff_edit("acme", ref, {"contact": "desk"})
    outcome = await client.reschedule("q1:a2", 3, ref, 1, {"date": "2026-12-04"})
    assert outcome.kind is K.REJECTED_STALE and outcome.record.version == 2
    fresh = await client.reschedule("q1:a3", 4, ref, 2, {"date": "2026-12-04"})
    assert fresh.kind is K.COMMITTED and fresh.record.contact == "desk"
    assert fresh.record.date == "2026-12-04" and fresh.record.version == 3


@pytest.mark.anyio
async def test_target_that_ignores_if_match_is_reported_stale_not_committed(client, sandbox):
    ref = await booked(client)
    sandbox.admin.staff_edit("acme", ref, {"contact": "desk"})
    sandbox.faults.set([{"op": "cancel_booking", "ignore_precondition": True}])
    outcome = await client.cancel("q1:a2", 3, ref, 1)
    assert outcome.kind is K.REJECTED_STALE and "stale_commit" in outcome.detail
    assert outcome.record.status == "cancelled"  # what really happened, for reconciliation


@pytest.mark.anyio
async def test_failure_before_commit_is_failed(client, sandbox):
    sandbox.faults.set([{"op": "create_booking", "fail_before_commit": True}])
    outcome = await client.create(KEY, 2, VISIT)
    assert outcome.kind is K.FAILED and outcome.request_state is RequestState.FAILED
    assert await client.bookings() == ()


@pytest.mark.anyio
async def test_dropped_response_is_unknown_and_lookup_by_key_finds_the_booking(
        client, impatient, sandbox):
    sandbox.faults.set([{"op": "create_booking", "drop_response": True}])
    outcome = await impatient.create(KEY, 2, VISIT)
    assert outcome.kind is K.UNKNOWN and KEY in outcome.detail
    found = await client.lookup(KEY)
    assert found.kind is K.COMMITTED and found.request_state is RequestState.SUCCEEDED
    assert [b.ref for b in await client.bookings()] == [found.record.ref]


@pytest.mark.anyio
async def test_hang_is_unknown_then_cancel_proves_nothing_was_written(
        client, impatient, sandbox):
    sandbox.faults.set([{"op": "create_booking", "hang": True}])
    assert (await impatient.create(KEY, 2, VISIT)).kind is K.UNKNOWN
    pending = await client.lookup(KEY)
    assert pending.kind is K.CONFLICT and pending.request_state is RequestState.PENDING
    cancelled = await client.request_cancel(KEY)
    assert cancelled.kind is K.FAILED and cancelled.request_state is RequestState.CANCELLED
    assert await client.bookings() == ()


@pytest.mark.anyio
async def test_in_flight_key_is_conflict_and_cancel_during_delay_cancels(client, sandbox):
    sandbox.faults.set([{"op": "create_booking", "delay_ms": 60_000}])
    first = asyncio.create_task(client.create(KEY, 2, VISIT))
    assert await asyncio.to_thread(sandbox.faults.wait_held, 1)
    busy = await client.create(KEY, 2, VISIT)
    assert busy.kind is K.CONFLICT and busy.request_state is RequestState.PENDING
    cancelled = await client.request_cancel(KEY)
    assert cancelled.request_state is RequestState.CANCELLED
    assert (await first).request_state is RequestState.CANCELLED


@pytest.mark.anyio
async def test_lookup_of_a_key_never_received_says_not_found(client):
    outcome = await client.lookup("q9:never")
    assert outcome.kind is K.FAILED and outcome.request_state is RequestState.NOT_FOUND


@pytest.mark.anyio
async def test_unreachable_sandbox_is_failed_not_unknown():
    async with SandboxClient("http://127.0.0.1:9", "t", timeout=0.5) as c:
        outcome = await c.create(KEY, 1, VISIT)
    assert outcome.kind is K.FAILED and "nothing sent" in outcome.detail


@pytest.mark.anyio
async def test_handoff_is_queued_once_per_question_revision(client):
    state = HandoffState("q1", 3, (("visit_date", "2026-12-03", 2, "confirmed"),),
                         (("a1", "create_booking", "unknown"),), ("which week",), "unknown")
    assert await client.handoff(state) == await client.handoff(state)


def test_the_sandbox_keeps_an_idle_connection_open_longer_than_a_client_pools_it():
    """A server that closes an idle connection when the client's pool would still reuse it
    makes a race: the client sends in the instant the server closes, and reads no answer (a
    fresh clone, 50 clients on 4 workers under load: httpx.ReadError). Both of the sandbox's
    servers keep idle connections open for KEEP_ALIVE_S, past httpx's own expiry."""
    import httpx

    from tools_sandbox.app import KEEP_ALIVE_S
    from tools_sandbox.server import serve_in_background

    assert KEEP_ALIVE_S > httpx.Limits().keepalive_expiry
    with serve_in_background() as handle:
        assert handle._server.config.timeout_keep_alive == KEEP_ALIVE_S  # uvicorn, as run
