"""The sandbox's HTTP contract: every status code and replay rule of issue 5, over real HTTP."""

from __future__ import annotations

import concurrent.futures as cf
import time

import httpx
import pytest

from tools_sandbox.server import serve_in_background
from tools_sandbox.service import SandboxConfig

VISIT = {"asset": "P-100", "date": "2026-12-02", "window": "afternoon",
         "site": "12 Harbour Road, Rotterdam"}


@pytest.fixture(scope="module")
def sandbox(sandbox_db):
    with serve_in_background(sandbox_db, seed=7) as handle:
        yield handle


@pytest.fixture
def api(sandbox):
    sandbox.admin.reset()
    token = sandbox.admin.mint("acme", "tech-17", "ACME-001")
    with httpx.Client(base_url=sandbox.base_url, timeout=5,
                      headers={"Authorization": f"Bearer {token}"}) as client:
        yield client


def create(api, key="q1:a1", body=VISIT, **headers):
    return api.post("/v1/bookings", json=body, headers={"Idempotency-Key": key, **headers})


def change(api, ref, op, key, body=None, if_match=None):
    headers = {"Idempotency-Key": key}
    if if_match is not None:
        headers["If-Match"] = f'"{if_match}"'
    return api.post(f"/v1/bookings/{ref}/{op}", json=body, headers=headers)


def code(response) -> str:
    return response.json()["error"]["code"]


# ---------------------------------------------------------------- authentication and visibility

def test_request_without_token_is_401(sandbox):
    response = httpx.get(f"{sandbox.base_url}/v1/bookings")
    assert response.status_code == 401 and code(response) == "unauthenticated"


def test_unknown_token_is_401(sandbox):
    response = httpx.get(f"{sandbox.base_url}/v1/bookings",
                         headers={"Authorization": "Bearer not-a-token"})
    assert response.status_code == 401


def test_another_accounts_booking_is_404_not_403(sandbox, api):
    ref = create(api).json()["ref"]
    stranger = sandbox.admin.mint("acme", "someone", "OTHER-9")
    for method, path in (("GET", f"/v1/bookings/{ref}"),
                         ("POST", f"/v1/bookings/{ref}/cancel")):
        response = httpx.request(method, f"{sandbox.base_url}{path}",
                                 headers={"Authorization": f"Bearer {stranger}",
                                          "Idempotency-Key": "x", "If-Match": '"1"'})
        assert response.status_code == 404, (method, path)
    assert api.get(f"/v1/bookings/{ref}").status_code == 200


# ---------------------------------------------------------------- idempotency

def test_post_without_idempotency_key_is_400(api):
    response = api.post("/v1/bookings", json=VISIT)
    assert response.status_code == 400 and code(response) == "idempotency_key_required"


def test_create_returns_201_with_etag_and_records_the_revision(api, sandbox):
    response = create(api, **{"Amend-Revision": "4"})
    assert response.status_code == 201
    body = response.json()
    assert body["version"] == 1 and body["status"] == "confirmed"
    assert body["contact"] == "tech-17"  # default contact: the token's subject
    assert response.headers["ETag"] == '"1"'
    assert api.get("/v1/requests/q1:a1").json()["revision"] == 4


def test_same_key_same_payload_replays_the_stored_response(api, sandbox):
    first = create(api)
    again = create(api)
    assert again.status_code == 201 and again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert len(sandbox.admin.bookings()) == 1


def test_same_key_different_payload_is_422(api, sandbox):
    create(api)
    response = create(api, body={**VISIT, "window": "morning"})
    assert response.status_code == 422 and code(response) == "key_reused"
    assert len(sandbox.admin.bookings()) == 1


def test_keys_are_scoped_per_account(api, sandbox):
    other = sandbox.admin.mint("acme", "tech-99", "ACME-002")
    create(api, key="shared")
    response = httpx.post(f"{sandbox.base_url}/v1/bookings", json=VISIT,
                          headers={"Authorization": f"Bearer {other}",
                                   "Idempotency-Key": "shared"})
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response.headers
    assert {b["account"] for b in sandbox.admin.bookings()} == {"ACME-001", "ACME-002"}


def test_key_in_flight_is_409_with_retry_after(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "delay_ms": 60_000}])
    with cf.ThreadPoolExecutor(1) as pool:
        first = pool.submit(create, api)
        assert sandbox.faults.wait_held(1)
        second = create(api)
        assert second.status_code == 409 and code(second) == "request_in_flight"
        assert second.headers["Retry-After"] == "1"
        assert api.get("/v1/requests/q1:a1").json()["status"] == "PENDING"
        sandbox.faults.release()
        assert first.result(5).status_code == 201
    assert len(sandbox.admin.bookings()) == 1


def test_invalid_body_is_422_with_one_line_message(api):
    response = create(api, body={**VISIT, "date": "2026-02-30"})
    assert response.status_code == 422
    assert "calendar date" in response.json()["error"]["message"]
    response = create(api, key="k2", body={**VISIT, "window": None, "time": "12:30"})
    assert response.status_code == 422 and "outside" in response.json()["error"]["message"]


def test_exact_time_implies_its_window(api):
    body = {**VISIT, "window": None, "time": "14:00"}
    assert create(api, body=body).json()["window"] == "afternoon"


def test_full_slot_is_409_slot_full(api, sandbox):
    sandbox.admin.set_capacity("2026-12-02", "afternoon", 1)
    assert create(api).status_code == 201
    response = create(api, key="q1:a2")
    assert response.status_code == 409 and code(response) == "slot_full"


# ---------------------------------------------------------------- conditional writes

def test_change_without_precondition_is_428(api):
    ref = create(api).json()["ref"]
    response = change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03"})
    assert response.status_code == 428 and code(response) == "precondition_required"
    assert change(api, ref, "cancel", "q1:a3").status_code == 428


def test_stale_if_match_is_412_with_the_current_record(api):
    ref = create(api).json()["ref"]
    assert change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03"}, 1).status_code == 200
    response = change(api, ref, "reschedule", "q1:a3", {"window": "morning"}, 1)
    assert response.status_code == 412 and code(response) == "version_mismatch"
    assert response.json()["current"]["version"] == 2
    assert api.get(f"/v1/bookings/{ref}").json()["window"] == "afternoon"


def test_expected_version_in_the_body_works_like_if_match(api):
    ref = create(api).json()["ref"]
    response = change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03",
                                                         "expected_version": 1})
    assert response.status_code == 200 and response.headers["ETag"] == '"2"'
    response = change(api, ref, "cancel", "q1:a3", {"expected_version": 1})
    assert response.status_code == 412


def test_change_already_in_requested_state_is_200_and_writes_nothing(api, sandbox):
    ref = create(api).json()["ref"]
    same = change(api, ref, "reschedule", "q1:a2", {"date": VISIT["date"]}, 1)
    assert same.status_code == 200 and same.json()["version"] == 1
    assert change(api, ref, "cancel", "q1:a3", None, 1).json()["version"] == 2
    again = change(api, ref, "cancel", "q1:a4", None, 2)
    assert again.status_code == 200 and again.json()["status"] == "cancelled"
    assert [n["kind"] for n in sandbox.admin.notifications()] == ["confirmation",
                                                                  "cancellation"]


def test_reschedule_of_cancelled_booking_is_409(api):
    ref = create(api).json()["ref"]
    change(api, ref, "cancel", "q1:a2", None, 1)
    response = change(api, ref, "reschedule", "q1:a3", {"date": "2026-12-04"}, 2)
    assert response.status_code == 409 and code(response) == "booking_cancelled"


def test_staff_edit_bumps_version_and_caller_write_on_old_version_is_412(api, sandbox):
    ref = create(api).json()["ref"]
    edited = sandbox.admin.staff_edit("acme", ref, {"contact": "dispatch desk"})
    assert edited["version"] == 2
    response = change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03"}, 1)
    assert response.status_code == 412
    assert response.json()["current"]["contact"] == "dispatch desk"


# ---------------------------------------------------------------- notifications

def test_each_committed_change_writes_exactly_one_notification_never_recalled(api, sandbox):
    ref = create(api).json()["ref"]
    change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03"}, 1)
    change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03"}, 1)  # replay: no new one
    change(api, ref, "cancel", "q1:a3", None, 2)
    notes = api.get("/v1/notifications").json()["notifications"]
    assert [(n["kind"], n["booking_version"]) for n in notes] == [
        ("confirmation", 1), ("change", 2), ("cancellation", 3)]
    assert len({n["dedupe_key"] for n in notes}) == 3
    assert all(n["contact"] == "tech-17" for n in notes)


def test_notification_faults_retry_and_count_duplicate_deliveries(api, sandbox):
    sandbox.faults.set([{"op": "send_notification", "fail_before_commit": True, "nth": 1},
                        {"op": "send_notification", "duplicate_delivery": True, "nth": 2}])
    create(api)
    with httpx.Client(base_url=sandbox.base_url) as raw:
        # Delivery is background work: poll the outbox until it settles (bounded).
        for _ in range(200):
            note = raw.get("/admin/notifications").json()["notifications"][0]
            if note["status"] == "delivered":
                break
            sandbox.faults.wait_held(1, timeout=0.01)
    assert note["status"] == "delivered"
    assert (note["attempts"], note["deliveries"]) == (2, 2)


# ---------------------------------------------------------------- faults and cancellation

def test_fail_before_commit_is_503_and_the_same_key_may_run_again(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "fail_before_commit": True, "nth": 1}])
    first = create(api)
    assert first.status_code == 503 and sandbox.admin.bookings() == []
    assert api.get("/v1/requests/q1:a1").json()["status"] == "FAILED"
    assert create(api).status_code == 201
    assert len(sandbox.admin.bookings()) == 1


def test_cancel_requested_during_delay_ends_cancelled_with_nothing_written(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "delay_ms": 60_000}])
    with cf.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(create, api)
        assert sandbox.faults.wait_held(1)
        view = api.post("/v1/requests/q1:a1/cancel").json()
        assert view["status"] == "CANCELLED" and view["cancel_requested"] is True
        response = pending.result(5)
    assert response.status_code == 409 and code(response) == "request_cancelled"
    assert sandbox.admin.bookings() == [] and sandbox.admin.notifications() == []


def test_uncancellable_work_completes_anyway_and_polling_shows_it(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "delay_ms": 60_000, "uncancellable": True}])
    with cf.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(create, api)
        assert sandbox.faults.wait_held(1)
        asked = api.post("/v1/requests/q1:a1/cancel", params={"wait_ms": 0}).json()
        assert asked["status"] == "PENDING" and asked["cancel_requested"] is True
        sandbox.faults.release()
        assert pending.result(5).status_code == 201
    view = api.get("/v1/requests/q1:a1").json()
    assert view["status"] == "SUCCEEDED" and view["cancel_requested"] is True
    assert len(sandbox.admin.bookings()) == 1


def test_cancelling_a_finished_request_changes_nothing(api, sandbox):
    create(api)
    view = api.post("/v1/requests/q1:a1/cancel").json()
    assert view["status"] == "SUCCEEDED" and view["cancel_requested"] is False
    assert api.post("/v1/requests/nope/cancel").status_code == 404
    assert api.get("/v1/requests/nope").status_code == 404


def test_drop_response_commits_but_the_client_times_out(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "drop_response": True}])
    with pytest.raises(httpx.ReadTimeout):
        api.post("/v1/bookings", json=VISIT, headers={"Idempotency-Key": "q1:a1"}, timeout=0.3)
    assert api.get("/v1/requests/q1:a1").json()["status"] == "SUCCEEDED"
    assert len(sandbox.admin.bookings()) == 1


def test_hang_writes_nothing_and_a_cancel_ends_it(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "hang": True}])
    with pytest.raises(httpx.ReadTimeout):
        api.post("/v1/bookings", json=VISIT, headers={"Idempotency-Key": "q1:a1"}, timeout=0.3)
    assert api.get("/v1/requests/q1:a1").json()["status"] == "PENDING"
    assert api.post("/v1/requests/q1:a1/cancel").json()["status"] == "CANCELLED"
    assert sandbox.admin.bookings() == []


def test_duplicate_delivery_makes_one_booking(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "duplicate_delivery": True}])
    assert create(api).status_code == 201
    assert len(sandbox.admin.bookings()) == 1


def test_ignore_precondition_commits_over_a_stale_version(api, sandbox):
    ref = create(api).json()["ref"]
    sandbox.admin.staff_edit("acme", ref, {"contact": "desk"})
    sandbox.faults.set([{"op": "reschedule_booking", "ignore_precondition": True}])
    response = change(api, ref, "reschedule", "q1:a2", {"date": "2026-12-03"}, 1)
    assert response.status_code == 200 and response.json()["version"] == 3
    stale = [e for e in sandbox.admin.events() if e["expected_version"] is not None
             and e["expected_version"] != e["prior_version"]]
    assert len(stale) == 1  # the evidence the history checker uses


def test_nth_fault_hits_only_that_call(api, sandbox):
    sandbox.faults.set([{"op": "create_booking", "fail_before_commit": True, "nth": 2}])
    statuses = [create(api, key=f"k{i}").status_code for i in range(3)]
    assert statuses == [201, 503, 201]


def test_probabilistic_faults_replay_exactly_with_the_same_seed(api, sandbox):
    rule = {"op": "create_booking", "fail_before_commit": True, "probability": 0.5}
    sandbox.admin.set_capacity(VISIT["date"], VISIT["window"], 100)
    runs = []
    for _ in range(2):
        sandbox.admin.set_faults([rule])
        runs.append([create(api, key=f"{len(runs)}-{i}").status_code for i in range(12)])
    assert runs[0] == runs[1] and {201, 503} <= set(runs[0])


def test_bad_fault_rule_is_refused_with_a_clear_message(sandbox):
    with pytest.raises(Exception, match="op 'book' is not one of"):
        sandbox.admin.set_faults([{"op": "book", "hang": True}])


def test_without_test_mode_there_are_no_admin_routes_and_no_faults():
    with serve_in_background(config=SandboxConfig(testing=False)) as handle:
        assert httpx.post(f"{handle.base_url}/admin/tokens", json={}).status_code == 404
        with pytest.raises(Exception, match="disabled"):
            handle.faults.set([{"op": "create_booking", "hang": True}])


# ---------------------------------------------------------------- handoffs and slots

HANDOFF = {"question": "q1", "revision": 3,
           "field_versions": [["visit_date", "2026-12-03", 2, "confirmed"]],
           "pending_effects": [["a1", "create_booking", "unknown"]],
           "ambiguity": ["which Thursday"], "reason": "unknown outcome", "summary": ""}


def test_handoff_resolution_built_on_an_old_version_is_412(api, sandbox):
    made = api.post("/v1/handoffs", json=HANDOFF, headers={"Idempotency-Key": "h1"})
    assert made.status_code == 201 and made.json()["state"]["ambiguity"] == ["which Thursday"]
    hid = made.json()["id"]
    assert api.put(f"/v1/handoffs/{hid}/state", json=HANDOFF).status_code == 428
    moved = api.put(f"/v1/handoffs/{hid}/state", json={**HANDOFF, "revision": 4},
                    headers={"If-Match": '"1"'})
    assert moved.json()["version"] == 2
    staff = sandbox.admin.mint("acme", "agent-7", "*staff*", role="staff")
    resolve = {"based_on_version": 1, "note": "booked Thursday by phone"}
    with httpx.Client(base_url=sandbox.base_url,
                      headers={"Authorization": f"Bearer {staff}"}) as person:
        assert person.put(f"/v1/handoffs/{hid}/resolution", json=resolve).status_code == 412
        done = person.put(f"/v1/handoffs/{hid}/resolution",
                          json={**resolve, "based_on_version": 2})
    assert done.status_code == 200 and done.json()["status"] == "resolved"
    assert api.put(f"/v1/handoffs/{hid}/resolution", json=resolve).status_code == 404


def test_slots_show_capacity_and_bookings(api, sandbox):
    sandbox.admin.set_capacity("2026-12-02", "afternoon", 2)
    create(api)
    slots = api.get("/v1/slots", params={"start": "2026-12-02", "days": 1}).json()["slots"]
    assert slots == [
        {"date": "2026-12-02", "window": "morning", "capacity": 4, "booked": 0, "available": 4},
        {"date": "2026-12-02", "window": "afternoon", "capacity": 2, "booked": 1,
         "available": 1}]


def test_seeded_bookings_keep_their_ref_handles(api, sandbox):
    refs = sandbox.admin.seed("acme", [{"ref": "old", "account": "ACME-001", "asset": "P-100",
                                        "date": "2026-12-02", "window": "morning",
                                        "version": 3}])
    assert refs == {"old": "old"}
    assert api.get("/v1/bookings/old").headers["ETag"] == '"3"'
    with pytest.raises(Exception, match="already exists"):
        sandbox.admin.seed("acme", [{"ref": "old", "account": "A", "asset": "P",
                                     "date": "2026-12-02", "window": "morning"}])


def test_keys_are_forgotten_after_the_retention_period():
    with serve_in_background(config=SandboxConfig(retention_s=0)) as handle:
        token = handle.admin.mint("acme", "tech-17", "ACME-001")
        with httpx.Client(base_url=handle.base_url,
                          headers={"Authorization": f"Bearer {token}"}) as client:
            first = create(client)
            assert client.get("/v1/requests/q1:a1").status_code == 200
            create(client, key="q1:other")  # any later request sweeps expired keys
            assert client.get("/v1/requests/q1:a1").status_code == 404
            again = create(client)
        assert again.status_code == 201 and again.json()["ref"] != first.json()["ref"]


def test_malformed_if_match_or_revision_is_400_and_conflicting_preconditions_412(api):
    ref = create(api).json()["ref"]
    path = f"/v1/bookings/{ref}/reschedule"
    cases = [({"If-Match": "*"}, {"date": "2026-12-03"}, 400, "bad_if_match"),
             ({"If-Match": '"1"', "Amend-Revision": "soon"}, {"date": "2026-12-03"}, 400,
              "bad_revision"),
             ({"If-Match": '"1"', "Amend-Revision": "\u00b2".encode("latin-1")},
              {"date": "2026-12-03"}, 400, "bad_revision"),  # isdigit(), not int(): was a 500
             # Two preconditions on one version cannot both hold (RFC 9110: 412).
             ({"If-Match": '"1"'}, {"date": "2026-12-03", "expected_version": 2}, 412,
              "conflicting_preconditions"),
             # "0" is a well-formed ETag that matches no version.
             ({"If-Match": '"0"'}, {"date": "2026-12-03"}, 412, "version_mismatch")]
    for i, (headers, body, status, expected) in enumerate(cases):
        response = api.post(path, json=body, headers={"Idempotency-Key": f"k{i}", **headers})
        assert (response.status_code, code(response)) == (status, expected), headers
    assert api.get(f"/v1/bookings/{ref}").json()["version"] == 1


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_notification_left_queued_by_a_stopped_process_is_delivered_at_the_next_start(
        backend, tmp_path, request):
    """The outbox is the database's: a message committed with its booking by a process that
    stopped before delivering it is taken over (once) by the next process to start."""
    from tools_sandbox.store import open_store

    db = (str(tmp_path / "sandbox.db") if backend == "sqlite"
          else request.getfixturevalue("pg_cluster").new_database("outbox"))
    store = open_store(db)
    booking = {"ref": "BK-LEFT01", "tenant": "acme", "account": "ACME-001", "asset": "P-100",
               "date": "2026-12-03", "window": "morning", "time": None, "units": 1,
               "site": "12 Harbour Road", "contact": "tech-17", "status": "confirmed",
               "version": 1, "created_key": "k", "revision": 1, "created_at": "x",
               "updated_at": "x"}
    store.atomically(lambda: (store.insert_booking(booking),
                              store.add_notification(booking, "confirmation", "booked")))
    store.close()  # the writer is gone before it delivered: its row is queued, its owner dead
    with serve_in_background(db) as later:
        deadline = time.monotonic() + 10
        while (rows := later.admin.notifications())[0]["status"] != "delivered":
            assert time.monotonic() < deadline, rows
            time.sleep(0.01)  # polling a condition, not timing a race
    assert [(r["booking_ref"], r["deliveries"]) for r in rows] == [("BK-LEFT01", 1)]


def test_faults_set_for_one_tenant_hit_only_that_tenants_requests(api, sandbox):
    other = sandbox.admin.mint("globex", "tech-2", "GLX-001")
    sandbox.admin.set_faults([{"op": "create_booking", "fail_before_commit": True}],
                             tenant="acme")
    with httpx.Client(base_url=sandbox.base_url, timeout=5,
                      headers={"Authorization": f"Bearer {other}"}) as globex:
        assert create(globex, key="g1").status_code == 201
    assert create(api, key="a1").status_code == 503
    sandbox.admin.set_faults([], tenant="acme")
    assert create(api, key="a1").status_code == 201
    bad = httpx.put(f"{sandbox.base_url}/admin/faults", json={"faults": [], "tenant": ""})
    assert bad.status_code == 422


def test_references_are_unique_within_a_tenant_not_across_tenants(api, sandbox):
    visit = {"ref": "VISIT", "account": "ACME-001", "asset": "P-100", "date": "2026-12-03",
             "window": "morning"}
    assert sandbox.admin.seed("acme", [visit]) == {"VISIT": "VISIT"}
    assert sandbox.admin.seed("globex", [dict(visit, account="GLX-001", asset="C-7")]) == {
        "VISIT": "VISIT"}
    with pytest.raises(Exception, match="409"):
        sandbox.admin.seed("acme", [visit])
    other = sandbox.admin.mint("globex", "tech-2", "GLX-001")
    with httpx.Client(base_url=sandbox.base_url, timeout=5,
                      headers={"Authorization": f"Bearer {other}"}) as globex:
        assert globex.get("/v1/bookings/VISIT").json()["asset"] == "C-7"
    assert api.get("/v1/bookings/VISIT").json()["asset"] == "P-100"
    assert change(api, "VISIT", "cancel", "c1", if_match=1).status_code == 200
    with httpx.Client(base_url=sandbox.base_url, timeout=5,
                      headers={"Authorization": f"Bearer {other}"}) as globex:
        assert globex.get("/v1/bookings/VISIT").json()["status"] == "confirmed"


def test_admin_views_and_call_counts_narrow_to_one_tenant(api, sandbox):
    """What a demo tab sharing the sandbox shows (``amend demo --workers``): its own rows,
    and its own call count, which its next-call fault is armed from."""
    other = sandbox.admin.mint("globex", "tech-2", "GLX-001")
    with httpx.Client(base_url=sandbox.base_url, timeout=5,
                      headers={"Authorization": f"Bearer {other}"}) as globex:
        assert create(globex, key="g1", body=dict(VISIT, date="2026-12-07")).status_code == 201
        assert create(globex, key="g2", body=dict(VISIT, date="2026-12-08")).status_code == 201
    assert create(api, key="a1").status_code == 201
    assert {b["tenant"] for b in sandbox.admin.bookings()} == {"acme", "globex"}
    assert [b["tenant"] for b in sandbox.admin.bookings("acme")] == ["acme"]
    assert len(sandbox.admin.bookings("globex")) == 2
    assert sandbox.admin.bookings("nobody") == []
    ref = sandbox.admin.bookings("acme")[0]["ref"]
    assert [(b["tenant"], b["ref"]) for b in sandbox.admin.bookings(ref=ref)] == [("acme", ref)]
    assert sandbox.admin.bookings("globex", ref=ref) == []
    assert sandbox.admin.bookings(ref="no-such-ref") == []
    assert {n["tenant"] for n in sandbox.admin.notifications("globex")} <= {"globex"}
    assert sandbox.admin.notifications("nobody") == []
    sandbox.admin.set_faults([], tenant="acme")  # counting per tenant starts with a rule set
    sandbox.admin.set_faults([], tenant="globex")
    assert create(api, key="a2", body=dict(VISIT, date="2026-12-09")).status_code == 201
    assert sandbox.admin.calls("create_booking", "acme") == 1
    assert sandbox.admin.calls("create_booking", "globex") == 0
    bad = httpx.get(f"{sandbox.base_url}/admin/bookings", params={"tenant": ""})
    assert bad.status_code == 422
