"""Jepsen-style runs: concurrent clients, random faults, a recorded history, a checker.

The checker is proven able to fail first (known-answer controls), then a faulty concurrent
workload with a correct client must produce no anomaly.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from agent.core.ports import BookingOutcome, RequestState
from agent.core.ports import BookingOutcomeKind as K
from tools_sandbox.client import SandboxClient, SandboxUnavailable
from tools_sandbox.history import AnomalyKind, History, Phase, check
from tools_sandbox.server import serve_in_background

DATES = ("2026-12-02", "2026-12-03", "2026-12-04")


@pytest.fixture(scope="module")
def sandbox(sandbox_db):
    with serve_in_background(sandbox_db, seed=11) as handle:
        yield handle


@pytest.fixture
def fresh(sandbox):
    sandbox.admin.reset()
    for date in DATES:
        for window in ("morning", "afternoon"):
            sandbox.admin.set_capacity(date, window, 1000)
    return sandbox


def visit(rng: random.Random) -> dict:
    return {"asset": "P-100", "date": rng.choice(DATES),
            "window": rng.choice(("morning", "afternoon")), "site": "12 Harbour Road"}


async def send(history: History, pid: int, f: str, request: str, key: str, call,
               ref: str | None = None) -> tuple[Phase, BookingOutcome]:
    """One attempt: invoke, then ok / fail / info from the typed outcome."""
    history.record(pid, Phase.INVOKE, f, request, key, ref)
    outcome = await call()
    if outcome.kind is K.COMMITTED:
        phase = Phase.OK
    elif outcome.kind in (K.FAILED, K.REJECTED_STALE) and "stale_commit" not in outcome.detail:
        phase = Phase.FAIL
    else:
        phase = Phase.INFO
    record = outcome.record
    history.record(pid, phase, f, request, key, record.ref if record else ref,
                   record.version if record and phase is Phase.OK else None, outcome.detail)
    return phase, outcome


async def logical_request(history, pid, f, request, call_with_key, client, *, new_key_bug=False,
                          ref=None) -> BookingOutcome | None:
    """Send one logical request until its outcome is known (at most 4 attempts).

    The correct client reuses its key after an unknown outcome; the buggy one (a known-answer
    control, agent fault ``retry_with_new_key``) mints a new key.
    """
    key = f"{request}:k0"
    outcome = None
    for attempt in range(4):
        phase, outcome = await send(history, pid, f, request, key,
                                    lambda key=key: call_with_key(key), ref)
        if phase is Phase.OK:
            return outcome
        if phase is Phase.FAIL and outcome.request_state is not None \
                and "unavailable" not in outcome.detail:
            return outcome  # refused for good (stale, cancelled booking, ...)
        if new_key_bug:  # skips the lookup and abandons the key: the duplicate risk
            key = f"{request}:k{attempt + 1}"
            continue
        try:
            looked = await client.lookup(key)
            if looked.request_state is RequestState.PENDING:
                looked = await client.request_cancel(key)  # ends CANCELLED or completed anyway
        except SandboxUnavailable:
            continue  # the look-up itself went unanswered in the 0.3 s (a loaded machine):
            # the outcome is still unknown, and the next attempt reuses the same key
        if looked.kind is K.COMMITTED:
            return looked
    return outcome


async def worker(pid: int, client: SandboxClient, history: History, rng: random.Random,
                 ops: int, refs: list[str], new_key_bug: bool = False) -> None:
    for n in range(ops):
        request = f"p{pid}-r{n}"
        if not refs or rng.random() < 0.5:
            body = visit(rng)
            out = await logical_request(history, pid, "create", request,
                                        lambda key, n=n, body=body: client.create(key, n, body),
                                        client, new_key_bug=new_key_bug)
            if out is not None and out.record is not None:
                refs.append(out.record.ref)
            continue
        ref = rng.choice(refs)
        try:
            current = await client.get(ref)
        except SandboxUnavailable:
            continue  # a read unanswered in the 0.3 s on a loaded machine: changes nothing
        if current is None or current.status == "cancelled":
            continue
        if rng.random() < 0.7:
            changes = {"date": rng.choice(DATES)}
            await logical_request(history, pid, "reschedule", request,
                                  lambda key, n=n, ref=ref, v=current.version, c=changes:
                                  client.reschedule(key, n, ref, v, c), client, ref=ref)
        else:
            await logical_request(history, pid, "cancel", request,
                                  lambda key, n=n, ref=ref, v=current.version:
                                  client.cancel(key, n, ref, v), client, ref=ref)


async def staff(sandbox, refs: list[str], rng: random.Random, edits: int) -> None:
    for i in range(edits):
        await asyncio.sleep(0)  # yield so edits interleave with the workers' requests
        if refs:
            await asyncio.to_thread(sandbox.admin.staff_edit, "acme", rng.choice(refs),
                                    {"contact": f"desk-{i}"})


async def run(sandbox, *, workers: int, ops: int, seed: int, new_key_bug: bool = False,
              staff_edits: int = 0):
    history = History()
    token = sandbox.admin.mint("acme", "tech-17", "ACME-001")
    refs: list[str] = []
    clients = [SandboxClient(sandbox.base_url, token, timeout=0.3) for _ in range(workers)]
    try:
        await asyncio.gather(
            *(worker(p, clients[p], history, random.Random(seed * 100 + p), ops, refs,
                     new_key_bug) for p in range(workers)),
            staff(sandbox, refs, random.Random(seed), staff_edits))
    finally:
        for c in clients:
            await c.aclose()
        sandbox.faults.release()
    return check(history.events, sandbox.admin.bookings(), sandbox.admin.events()), history


FAULTS = [
    # Certain hits first, so every run has unknown outcomes and a cancelled hang ...
    {"op": "create_booking", "drop_response": True, "nth": 2},
    {"op": "create_booking", "hang": True, "nth": 3},
    # ... then seeded random ones.
    {"op": "create_booking", "drop_response": True, "probability": 0.2},
    {"op": "create_booking", "fail_before_commit": True, "probability": 0.15},
    {"op": "create_booking", "duplicate_delivery": True, "probability": 0.2},
    {"op": "create_booking", "hang": True, "probability": 0.1},
    {"op": "cancel_booking", "hang": True, "probability": 0.2},
    {"op": "reschedule_booking", "drop_response": True, "probability": 0.2},
    {"op": "reschedule_booking", "fail_before_commit": True, "probability": 0.15},
    {"op": "cancel_booking", "drop_response": True, "probability": 0.2},
    {"op": "send_notification", "fail_before_commit": True, "probability": 0.3},
]


@pytest.mark.anyio
async def test_checker_catches_a_client_that_retries_unknown_outcomes_with_new_keys(fresh):
    fresh.faults.set([{"op": "create_booking", "drop_response": True}])
    anomalies, _ = await run(fresh, workers=1, ops=1, seed=1, new_key_bug=True)
    assert AnomalyKind.DUPLICATE_BOOKING in {a.kind for a in anomalies}


@pytest.mark.anyio
async def test_checker_catches_a_target_that_commits_over_a_stale_version(fresh):
    token = fresh.admin.mint("acme", "tech-17", "ACME-001")
    history = History()
    async with SandboxClient(fresh.base_url, token, timeout=1) as client:
        _, made = await send(history, 0, "create", "r0", "r0:k0",
                             lambda: client.create("r0:k0", 1, visit(random.Random(0))))
        fresh.admin.staff_edit("acme", made.record.ref, {"contact": "desk"})
        fresh.faults.set([{"op": "reschedule_booking", "ignore_precondition": True}])
        await send(history, 0, "reschedule", "r1", "r1:k0",
                   lambda: client.reschedule("r1:k0", 2, made.record.ref, 1,
                                             {"date": "2026-12-04"}), made.record.ref)
    anomalies = check(history.events, fresh.admin.bookings(), fresh.admin.events())
    assert [a.kind for a in anomalies] == [AnomalyKind.STALE_COMMIT]


def test_checker_catches_a_lost_acknowledged_booking_and_a_phantom_write():
    history = History()
    history.record(0, Phase.INVOKE, "create", "r0", "k0")
    history.record(0, Phase.OK, "create", "r0", "k0", "BK-1", 1)
    bookings = [{"ref": "BK-2", "created_key": "k-unknown"}]
    kinds = {a.kind for a in check(history.events, bookings, [])}
    assert kinds == {AnomalyKind.LOST_BOOKING, AnomalyKind.PHANTOM_WRITE}


@pytest.mark.anyio
async def test_concurrent_clients_under_random_faults_leave_no_anomaly(fresh):
    fresh.faults.set(FAULTS)
    anomalies, history = await run(fresh, workers=4, ops=12, seed=5, staff_edits=6)
    phases = {e.phase for e in history.events}
    assert {Phase.OK, Phase.INFO} <= phases  # the faults really produced unknown outcomes
    ended = {r["status"] for r in fresh.admin.requests()}
    assert {"SUCCEEDED", "CANCELLED"} <= ended  # hung requests were cancelled by key
    assert anomalies == ()
    oks = [e for e in history.events if e.phase is Phase.OK and e.f == "create"]
    assert len(oks) >= 5
