"""The booking service: create, reschedule, cancel and staff edits over the store.

Each caller operation runs through :class:`~tools_sandbox.idempotency.Executor`, so its business
write, its ``booking_events`` row, its one notification and the finishing of its idempotency
key are a single database transaction. Preconditions are checked at commit time, after any
injected delay, so a staff edit that lands during the delay is seen (RFC 9110 If-Match: 412).

Visibility: a booking of another account (or tenant) answers 404, exactly like a booking that
does not exist. A 403 would confirm to a stranger that the reference exists.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Coroutine
from dataclasses import dataclass

from agent.core.ops import Op, spec
from tools_sandbox.faults import FaultDecision, FaultPlan
from tools_sandbox.idempotency import Caller, Executor, Reply, Work, error, fingerprint, with_etag
from tools_sandbox.models import BookingCreate, window_of
from tools_sandbox.outbox import Outbox, message
from tools_sandbox.store import BOOKING_COLUMNS, Store, now_iso


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """How a sandbox runs. ``testing`` enables fault injection, admin routes and token minting."""

    testing: bool = True
    seed: int = 0
    default_capacity: int = 4  # places per (date, window) unless /admin/slots says otherwise
    retention_s: float = 24 * 3600  # how long a finished idempotency key is remembered
    max_hold_s: float = 120.0  # upper bound of a hang or a dropped response
    cancel_wait_s: float = 2.0  # how long POST /v1/requests/{key}/cancel waits to settle
    workers: int = 1  # processes sharing the database (> 1 only on PostgreSQL)


def booking_json(row: dict) -> dict:
    return {k: row[k] for k in BOOKING_COLUMNS}


def merge_slot(current: dict, changes: dict) -> dict | str:
    """The booking's date/window/time after ``changes``, or an error message."""
    out = dict(changes)
    if "time" in changes:
        implied = window_of(changes["time"])
        if "window" in changes and changes["window"] != implied:
            return f"time {changes['time']} is in the {implied}, not the {changes['window']}"
        out["window"] = implied
    elif "window" in changes and changes["window"] != current["window"]:
        out["time"] = None  # a new window without a time drops the old exact time
    return out


class BookingService:
    """All business rules of the sandbox. Lives on the server's event loop."""

    def __init__(self, store: Store, faults: FaultPlan, config: SandboxConfig):
        self.store, self.faults, self.config = store, faults, config
        # One process: refs are a function of the seed. Several: each draws its own sequence
        # (a collision is still caught: the insert conflicts and the transaction is re-run).
        self._rng = random.Random(f"refs:{config.seed}" if config.workers == 1
                                  else f"refs:{config.seed}:{os.getpid()}:{store.owner}")
        self._tasks: set[asyncio.Task] = set()
        self.outbox = Outbox(store, faults, config.max_hold_s, self.spawn)
        self.executor = Executor(store, faults, retention_s=config.retention_s,
                                 max_hold_s=config.max_hold_s, spawn=self.spawn,
                                 after_commit=self._after_commit)

    def spawn(self, coro: Coroutine) -> asyncio.Task:
        """Run ``coro`` in the background, keeping a reference until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def aclose(self) -> None:
        """Cancel background work (deliveries, duplicate deliveries) and wait for it."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def recover(self) -> None:
        """At start: deliver the queued notifications a stopped process left behind, and
        listen for cancels that other processes receive (side effects: background work)."""
        self.executor.listen()
        for nid in self.store.adopt_orphan_notifications():
            self.outbox.schedule(nid)

    def _after_commit(self, work: Work) -> None:
        if work.notification is not None:
            self.outbox.schedule(work.notification)

    def new_ref(self, tenant: str) -> str:
        """A reference not yet used in ``tenant`` (each tenant numbers its own bookings)."""
        while True:
            ref = f"BK-{self._rng.randrange(16**6):06X}"
            if self.store.booking(tenant, ref) is None:
                return ref

    # ------------------------------------------------------------------ reads

    def visible(self, caller: Caller, ref: str) -> dict | None:
        """The booking if this caller may see it (staff: any account of the tenant)."""
        row = self.store.booking(caller.tenant, ref)
        if row is None:
            return None
        if caller.role != "staff" and row["account"] != caller.account:
            return None
        return row

    def get(self, caller: Caller, ref: str) -> Reply:
        row = self.visible(caller, ref)
        if row is None:
            return error(404, "not_found", f"no booking {ref!r} for this account")
        return with_etag(Reply(200, booking_json(row)))

    # ------------------------------------------------------------------ writes

    async def create(self, caller: Caller, key: str, revision: int | None,
                     payload: BookingCreate) -> Reply:
        body = payload.model_dump()
        body["contact"] = body["contact"] or caller.subject
        fp = fingerprint("create", body)
        return await self.executor.run(caller, key, Op.CREATE_BOOKING.value, fp, revision,
                                       lambda decision: self._create(caller, key, revision, body))

    def _create(self, caller: Caller, key: str, revision: int | None, body: dict) -> Work:
        full = self._full(body["date"], body["window"], None)
        if full:
            return _work(error(409, "slot_full", full))
        stamp = now_iso()
        row = {"ref": self.new_ref(caller.tenant), "tenant": caller.tenant,
               "account": caller.account,
               "asset": body["asset"], "date": body["date"], "window": body["window"],
               "time": body["time"], "units": body["units"], "site": body["site"],
               "contact": body["contact"], "status": "confirmed", "version": 1,
               "created_key": key, "revision": revision, "created_at": stamp,
               "updated_at": stamp}
        self.store.insert_booking(row)
        self.store.record_event(caller.tenant, row["ref"], 1, "create", caller.subject, key,
                                None, None, revision)
        kind = spec(Op.CREATE_BOOKING).notification.value
        nid = self.store.add_notification(row, kind, message(kind, row))
        return Work(201, booking_json(row), row["ref"], nid)

    async def change(self, caller: Caller, key: str, revision: int | None, ref: str,
                     expected: int, changes: dict) -> Reply:
        """Reschedule (``changes`` non-empty) or cancel (``changes`` = {"status": ...})."""
        op = Op.CANCEL_BOOKING if changes.get("status") == "cancelled" else Op.RESCHEDULE_BOOKING
        fp = fingerprint(op.value, ref, expected, changes)
        return await self.executor.run(
            caller, key, op.value, fp, revision,
            lambda decision: self._change(caller, key, revision, ref, expected, changes,
                                          decision, op))

    def _change(self, caller: Caller, key: str, revision: int | None, ref: str, expected: int,
                changes: dict, decision: FaultDecision, op: Op) -> Work:
        row = self.visible(caller, ref)
        if row is None:
            return _work(error(404, "not_found", f"no booking {ref!r} for this account"))
        cancelling = op is Op.CANCEL_BOOKING
        if row["status"] == "cancelled" and not cancelling:
            return _work(error(409, "booking_cancelled", f"booking {ref} is cancelled; "
                               "create a new booking instead"))
        merged = merge_slot(row, changes)
        if isinstance(merged, str):
            return _work(error(422, "invalid_change", merged))
        diff = {k: v for k, v in merged.items() if row[k] != v}
        if not diff:  # already in the requested state: say so, write nothing
            return Work(200, booking_json(row), ref)
        if row["version"] != expected and not decision.ignore_precondition:
            return _work(error(412, "version_mismatch",
                               f"booking {ref} is at version {row['version']}, not {expected}; "
                               "re-read it and decide again", current=booking_json(row)))
        if not cancelling and ("date" in diff or "window" in diff):
            full = self._full(merged.get("date", row["date"]),
                              merged.get("window", row["window"]), (row["tenant"], ref))
            if full:
                return _work(error(409, "slot_full", full))
        return self._write(row, diff, caller.subject, key, expected, revision,
                           "cancel" if cancelling else "reschedule", spec(op).notification.value)

    def _write(self, row: dict, diff: dict, actor: str, key: str | None, expected: int | None,
               revision: int | None, event: str, kind: str | None) -> Work:
        if not self.store.update_booking(row["tenant"], row["ref"], row["version"], diff):
            raise RuntimeError(f"booking {row['ref']} changed inside its own transaction")
        new = self.store.booking(row["tenant"], row["ref"])
        assert new is not None  # updated just above, in this transaction
        self.store.record_event(new["tenant"], new["ref"], new["version"], event, actor, key,
                                expected, row["version"], revision)
        nid = self.store.add_notification(new, kind, message(kind, new)) if kind else None
        return Work(200, booking_json(new), new["ref"], nid)

    def staff_edit(self, caller: Caller, ref: str, expected: int | None, changes: dict,
                   notify: bool) -> Reply:
        """A person edits the record (no idempotency key; the version is the guard).

        The read, the version check and the write are one transaction, so an edit racing a
        caller's change in another process is judged against the committed version.
        """
        outcome = self.store.atomically(
            lambda: self._staff_edit(caller, ref, expected, changes, notify))
        if isinstance(outcome, Work):
            self._after_commit(outcome)
            return with_etag(Reply(outcome.status, outcome.body))
        return outcome

    def _staff_edit(self, caller: Caller, ref: str, expected: int | None, changes: dict,
                    notify: bool) -> Reply | Work:
        row = self.visible(caller, ref)
        if row is None:
            return error(404, "not_found", f"no booking {ref!r} in this tenant")
        if expected is not None and row["version"] != expected:
            return error(412, "version_mismatch", f"booking {ref} is at version "
                         f"{row['version']}, not {expected}", current=booking_json(row))
        merged = merge_slot(row, changes)
        if isinstance(merged, str):
            return error(422, "invalid_change", merged)
        diff = {k: v for k, v in merged.items() if row[k] != v}
        if not diff:
            return with_etag(Reply(200, booking_json(row)))
        kind = None
        if notify:
            kind = "cancellation" if diff.get("status") == "cancelled" else "change"
        return self._write(row, diff, f"staff:{caller.subject}", None, expected, None,
                           "staff_edit", kind)

    # ------------------------------------------------------------------ slots

    def _full(self, date: str, window: str, excluding: tuple[str, str] | None) -> str | None:
        capacity = self.store.capacity(date, window, self.config.default_capacity)
        if self.store.booked(date, window, excluding) >= capacity:
            return f"the {window} of {date} is fully booked ({capacity} places); pick another"
        return None

    def slots(self, dates: list[str]) -> list[dict]:
        out = []
        for date in dates:
            for window in ("morning", "afternoon"):
                capacity = self.store.capacity(date, window, self.config.default_capacity)
                booked = self.store.booked(date, window)
                out.append({"date": date, "window": window, "capacity": capacity,
                            "booked": booked, "available": max(0, capacity - booked)})
        return out


def _work(reply: Reply) -> Work:
    return Work(reply.status, reply.body)
