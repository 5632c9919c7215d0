"""Races on the wire: one key sent 50 times at once, and a staff edit racing a caller's write."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tools_sandbox.server import serve_in_background

VISIT = {"asset": "P-100", "date": "2026-12-03", "window": "morning", "site": "12 Harbour Road"}


@pytest.fixture(scope="module")
def sandbox(sandbox_db):
    with serve_in_background(sandbox_db, seed=5) as handle:
        yield handle


@pytest.fixture
async def http(sandbox):
    sandbox.admin.reset()
    token = sandbox.admin.mint("acme", "tech-17", "ACME-001")
    async with httpx.AsyncClient(base_url=sandbox.base_url, timeout=10,
                                 headers={"Authorization": f"Bearer {token}"},
                                 limits=httpx.Limits(max_connections=50)) as client:
        yield client


async def fifty_at_once(http) -> list[httpx.Response]:
    return await asyncio.gather(*(http.post("/v1/bookings", json=VISIT,
                                            headers={"Idempotency-Key": "q1:a1"})
                                  for _ in range(50)))


@pytest.mark.anyio
async def test_fifty_concurrent_identical_requests_make_exactly_one_booking(http, sandbox):
    responses = await fifty_at_once(http)
    assert {r.status_code for r in responses} == {201}
    fresh = [r for r in responses if "Idempotent-Replayed" not in r.headers]
    assert len(fresh) == 1
    assert {r.json()["ref"] for r in responses} == {fresh[0].json()["ref"]}
    assert len(sandbox.admin.bookings()) == 1
    assert len(sandbox.admin.notifications()) == 1


@pytest.mark.anyio
async def test_fifty_identical_requests_while_the_first_is_held_get_409_then_one_booking(
        http, sandbox):
    sandbox.faults.set([{"op": "create_booking", "delay_ms": 60_000, "nth": 1}])
    first = asyncio.create_task(http.post("/v1/bookings", json=VISIT,
                                          headers={"Idempotency-Key": "q1:a1"}))
    assert await asyncio.to_thread(sandbox.faults.wait_held, 1)
    others = await fifty_at_once(http)
    assert {r.status_code for r in others} == {409}
    assert all(r.headers["Retry-After"] == "1" for r in others)
    sandbox.faults.release()
    assert (await first).status_code == 201
    retried = await fifty_at_once(http)
    assert {r.headers.get("Idempotent-Replayed") for r in retried} == {"true"}
    assert len(sandbox.admin.bookings()) == 1


@pytest.mark.anyio
async def test_staff_edit_racing_a_callers_conditional_write_loses_no_update(http, sandbox):
    made = (await http.post("/v1/bookings", json=VISIT,
                            headers={"Idempotency-Key": "q1:a1"})).json()
    ref = made["ref"]
    # The caller's reschedule, built on version 1, is held in flight ...
    sandbox.faults.set([{"op": "reschedule_booking", "delay_ms": 60_000, "nth": 1}])
    caller = asyncio.create_task(http.post(
        f"/v1/bookings/{ref}/reschedule", json={"date": "2026-12-04"},
        headers={"Idempotency-Key": "q1:a2", "If-Match": '"1"'}))
    assert await asyncio.to_thread(sandbox.faults.wait_held, 1)
    # ... while a staff member changes the contact (version 2).
    staffed = await asyncio.to_thread(sandbox.admin.staff_edit, "acme", ref,
                                      {"contact": "site manager"})
    assert staffed["version"] == 2
    sandbox.faults.release()
    lost = await caller
    assert lost.status_code == 412 and lost.json()["current"]["contact"] == "site manager"
    # The caller re-reads and re-applies on the current version: both changes survive.
    current = await http.get(f"/v1/bookings/{ref}")
    again = await http.post(f"/v1/bookings/{ref}/reschedule", json={"date": "2026-12-04"},
                            headers={"Idempotency-Key": "q1:a3",
                                     "If-Match": current.headers["ETag"]})
    final = again.json()
    assert (final["date"], final["contact"], final["version"]) == (
        "2026-12-04", "site manager", 3)


@pytest.mark.anyio
async def test_conditional_staff_edit_after_a_caller_commit_is_refused_not_overwriting(
        http, sandbox):
    ref = (await http.post("/v1/bookings", json=VISIT,
                           headers={"Idempotency-Key": "q1:a1"})).json()["ref"]
    await http.post(f"/v1/bookings/{ref}/reschedule", json={"window": "afternoon"},
                    headers={"Idempotency-Key": "q1:a2", "If-Match": '"1"'})
    with pytest.raises(Exception, match="412"):
        await asyncio.to_thread(sandbox.admin.staff_edit, "acme", ref, {"window": "morning"},
                                expected_version=1)
    assert (await http.get(f"/v1/bookings/{ref}")).json()["window"] == "afternoon"
