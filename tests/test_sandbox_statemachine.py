"""Hypothesis RuleBasedStateMachine: random operations and faults against a sequential model.

The model is a dict of bookings and a dict of idempotency keys, updated by the rules of issue 5
one request at a time. After every step the sandbox must hold exactly what the model holds,
and have written exactly one notification per committed create, reschedule or cancel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tools_sandbox.server import SandboxHandle, serve_in_background

DATES = ("2026-12-02", "2026-12-03")
WINDOWS = ("morning", "afternoon")
FAULTS = ("none", "fail_before_commit", "duplicate_delivery", "drop_response", "hang")
# A request whose fault holds its answer back (a dropped response, a hang) is given up on after
# NO_ANSWER_SECS; every other request waits as long as the machine needs (ANSWER_SECS): a
# loaded machine must not turn a slow answer into a fault that was never set.
NO_ANSWER_SECS = 0.25
ANSWER_SECS = 30.0
OPS = ("create_booking", "reschedule_booking", "cancel_booking")


@dataclass(frozen=True)
class Model:
    date: str
    window: str
    contact: str
    status: str
    version: int


class SandboxMachine(RuleBasedStateMachine):
    sandbox: ClassVar[SandboxHandle]  # set by the test function below

    def __init__(self) -> None:
        super().__init__()
        self.sandbox.admin.reset()
        for date in DATES:
            for window in WINDOWS:
                self.sandbox.admin.set_capacity(date, window, 1000)
        token = self.sandbox.admin.mint("acme", "tech-17", "ACME-001")
        self.http = httpx.Client(base_url=self.sandbox.base_url, timeout=ANSWER_SECS,
                                 headers={"Authorization": f"Bearer {token}"})
        self.bookings: dict[str, Model] = {}
        self.keys: dict[str, tuple[object, int, dict]] = {}  # key -> (payload, status, body)
        self.notifications = 0
        self.fault = ("none", None)

    def teardown(self):
        self.http.close()
        self.sandbox.faults.release()

    # ------------------------------------------------------------------ helpers

    def post(self, op: str, path: str, key: str, body, headers=None):
        """Send once. Returns the response; when the fault held it back, the request's record."""
        held_back = self.faulted(op) in ("drop_response", "hang")
        try:
            return self.http.post(path, json=body, headers={"Idempotency-Key": key,
                                                             **(headers or {})},
                                  timeout=NO_ANSWER_SECS if held_back else ANSWER_SECS)
        except httpx.ReadTimeout:
            assert held_back, f"{op} {path}: no answer in {ANSWER_SECS} s without a fault"
            if self.faulted(op) == "hang":  # still in flight: cancel it, then it wrote nothing
                view = self.http.post(f"/v1/requests/{key}/cancel").json()
                assert view["status"] == "CANCELLED"
            else:
                self.sandbox.faults.release()
                view = self.http.get(f"/v1/requests/{key}").json()
                assert view["status"] in ("SUCCEEDED", "FAILED")
            return httpx.Response(view["response_status"], json=view["response"])

    def expect_replay(self, key: str, payload, response) -> bool:
        """Apply the replay rules; True if the key was already used (nothing else to model)."""
        if key not in self.keys:
            return False
        old_payload, status, body = self.keys[key]
        if old_payload != payload:
            assert response.status_code == 422
            assert response.json()["error"]["code"] == "key_reused"
        elif status is None:
            return False  # failed before commit: the same request runs again
        else:
            assert response.status_code == status and response.json() == body
        return True

    def faulted(self, op: str) -> str:
        return self.fault[0] if self.fault[1] == op else "none"

    # ------------------------------------------------------------------ rules

    @rule(kind=st.sampled_from(FAULTS), op=st.sampled_from(OPS))
    def set_fault(self, kind, op):
        self.fault = (kind, op)
        self.sandbox.faults.set([] if kind == "none" else [{"op": op, kind: True}])

    @rule(key=st.sampled_from(["c1", "c2", "c3", "c4"]), date=st.sampled_from(DATES),
          window=st.sampled_from(WINDOWS))
    def create(self, key, date, window):
        payload = ("create", date, window)
        body = {"asset": "P-100", "date": date, "window": window, "site": "Harbour"}
        response = self.post("create_booking", "/v1/bookings", key, body)
        if self.expect_replay(key, payload, response):
            return
        if self.faulted("create_booking") == "hang":
            assert response.json()["error"]["code"] == "request_cancelled"
            self.keys[key] = (payload, response.status_code, response.json())
            return
        if self.faulted("create_booking") == "fail_before_commit":
            assert response.status_code == 503  # nothing written; the key may run again
            self.keys[key] = (payload, None, None)
            return
        assert response.status_code == 201, response.text
        made = response.json()
        assert made["ref"] not in self.bookings and made["version"] == 1
        self.bookings[made["ref"]] = Model(date, window, "tech-17", "confirmed", 1)
        self.keys[key] = (payload, 201, made)
        self.notifications += 1

    def _change(self, key, ref, stale, op, changes):
        model = self.bookings[ref]
        expected = model.version - 1 if stale and model.version > 1 else model.version
        path = f"/v1/bookings/{ref}/{'cancel' if op == 'cancel_booking' else 'reschedule'}"
        payload = (op, ref, expected, tuple(sorted(changes.items())))
        response = self.post(op, path, key, changes or None, {"If-Match": f'"{expected}"'})
        if self.expect_replay(key, payload, response):
            return
        if self.faulted(op) == "hang":
            assert response.json()["error"]["code"] == "request_cancelled"
            self.keys[key] = (payload, response.status_code, response.json())
            return
        if self.faulted(op) == "fail_before_commit":
            assert response.status_code == 503
            self.keys[key] = (payload, None, None)
            return
        wanted = {"status": "cancelled"} if op == "cancel_booking" else changes
        if model.status == "cancelled" and op != "cancel_booking":
            status = 409
        elif all(getattr(model, k) == v for k, v in wanted.items()):
            status = 200  # already in the requested state: nothing written
        elif expected != model.version:
            status = 412
        else:
            status = 200
            self.bookings[ref] = replace(model, version=model.version + 1, **wanted)
            self.notifications += 1
        assert response.status_code == status, (response.status_code, response.text)
        if status == 200:
            assert response.json()["version"] == self.bookings[ref].version
        self.keys[key] = (payload, status, response.json())

    @precondition(lambda self: self.bookings)
    @rule(data=st.data(), key=st.sampled_from(["r1", "r2", "r3"]), stale=st.booleans(),
          date=st.sampled_from(DATES))
    def reschedule(self, data, key, stale, date):
        ref = data.draw(st.sampled_from(sorted(self.bookings)))
        self._change(key, ref, stale, "reschedule_booking", {"date": date})

    @precondition(lambda self: self.bookings)
    @rule(data=st.data(), key=st.sampled_from(["x1", "x2"]), stale=st.booleans())
    def cancel(self, data, key, stale):
        ref = data.draw(st.sampled_from(sorted(self.bookings)))
        self._change(key, ref, stale, "cancel_booking", {})

    @precondition(lambda self: self.bookings)
    @rule(data=st.data(), contact=st.sampled_from(["desk", "manager"]))
    def staff_edit(self, data, contact):
        ref = data.draw(st.sampled_from(sorted(self.bookings)))
        model = self.bookings[ref]
        edited = self.sandbox.admin.staff_edit("acme", ref, {"contact": contact})
        if model.contact != contact:
            self.bookings[ref] = replace(model, contact=contact, version=model.version + 1)
        assert edited["version"] == self.bookings[ref].version

    # ------------------------------------------------------------------ invariants

    @invariant()
    def record_matches_the_model(self):
        actual = {b["ref"]: Model(b["date"], b["window"], b["contact"], b["status"],
                                  b["version"]) for b in self.sandbox.admin.bookings()}
        assert actual == self.bookings
        assert len(self.sandbox.admin.notifications()) == self.notifications


def test_random_operations_and_faults_match_the_sequential_model(sandbox_db):
    with serve_in_background(sandbox_db, seed=17) as sandbox:
        SandboxMachine.sandbox = sandbox
        run_state_machine_as_test(SandboxMachine, settings=settings(
            max_examples=30, stateful_step_count=15, deadline=None, derandomize=True,
            database=None, suppress_health_check=list(HealthCheck)))
