"""An in-memory booking system of record and its client: ``agent.core.ports.BookingPort`` with no
HTTP, no SQLite and no threads.

It has the same two halves as the real thing, so the same rules sit in the same places:

* :class:`FakeSandbox` is ``tools_sandbox`` (service + idempotency + faults + admin routes):
  it answers with :class:`Reply` values that carry the status and error code the HTTP API
  would send. Idempotency per (tenant, account, key): same key and payload replays the stored
  answer, another payload is ``key_reused`` (422), a key still in flight is
  ``request_in_flight`` (409), a request that failed before commit may run again. Reschedule
  and cancel are conditional on the version (412 ``version_mismatch`` with the current record,
  checked at commit time, after any hold); already in the requested state is a 200 with no
  write. Another account's booking is 404. Slots have a capacity (default 4). Every write
  appends one notification (confirmation / change / cancellation) and one booking event;
  staff edits bump the version without a key. Request bodies are checked as the API's schema
  checks them, before any key is recorded.
* :class:`FakeBookingPort` is ``tools_sandbox.client.SandboxClient``: replies become
  :class:`~agent.core.ports.BookingOutcome` by the client's table (2xx COMMITTED after a read-back,
  a 2xx whose version skipped ours REJECTED_STALE ``stale_commit``, 412 REJECTED_STALE, 409 in
  flight and 422 key reused CONFLICT, other 4xx and 503 FAILED, no answer UNKNOWN).

Faults use the sandbox's vocabulary (``op``, ``delay_ms``, ``hang``, ``drop_response``,
``fail_before_commit``, ``ignore_precondition``, ``uncancellable``, ``nth``, ``probability``)
and are driven by asyncio events, never by the clock:

* a **delay** holds the request until :meth:`FakeFaults.release` or until its cancellation is
  requested (an ``uncancellable`` delay ignores the cancellation); its length is not simulated;
* a **hang** holds until released or cancelled, then fails before commit (503, retryable);
* a **dropped response** commits, then holds the answer until released;
* a client built with a ``timeout`` gives up the moment its request is held (a hold always
  outlasts a client timeout here) and reports UNKNOWN, while the request stays held on the
  "server"; without one it waits for the answer.

Not modelled (use the real sandbox for these): notification delivery faults
(``send_notification``), ``duplicate_delivery``, the 24-hour key retention, tokens and the
unreachable-server case. ``tests/test_port_contracts.py`` runs the same cases against this fake
and the real sandbox-backed client.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import random
import re
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from agent.core.errors import AmendError
from agent.core.ops import Visit, VisitChanges
from agent.core.ports import (
    BookingOutcome,
    BookingOutcomeKind,
    BookingRecord,
    HandoffState,
    RequestState,
)

K = BookingOutcomeKind
OPS = ("create_booking", "reschedule_booking", "cancel_booking")
FLAGS = ("drop_response", "fail_before_commit", "hang", "ignore_precondition", "uncancellable")
BOOKING_KEYS = ("ref", "account", "asset", "date", "window", "time", "units", "site", "contact",
                "status", "version")
WINDOW_HOURS = {"morning": ("08:00", "12:00"), "afternoon": ("13:00", "17:00")}
CHANGE_FIELDS = ("date", "window", "time", "units", "site", "contact")
DATE_RE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
TIME_RE = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")
REF_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
SETTLE_GUARD_S = 5.0  # a safety net, not a synchronisation device (see request_cancel)


class FakeUnavailable(AmendError):
    """A read (get, bookings, handoff) was refused, as ``SandboxUnavailable`` is."""


class FakeAdminError(RuntimeError):
    """An oracle call was refused (unknown booking, stale staff edit), as ``SandboxAdminError``."""


def window_of(time: str) -> str | None:
    for name, (start, end) in WINDOW_HOURS.items():
        if start <= time <= end:
            return name
    return None


def fingerprint(*parts: object) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def booking_json(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in BOOKING_KEYS}


def record_of(body: Mapping[str, Any]) -> BookingRecord:
    return BookingRecord(**{k: body[k] for k in BOOKING_KEYS})


def message(kind: str, booking: Mapping[str, Any]) -> str:
    """The notification text, as the sandbox's outbox renders it."""
    when = booking["time"] or booking["window"]
    verb = {"confirmation": "is booked", "change": "was changed",
            "cancellation": "was cancelled"}[kind]
    return (f"Service visit {booking['ref']} for {booking['asset']} on {booking['date']} "
            f"({when}) at {booking['site']} {verb}.")


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True, slots=True)
class Reply:
    """What the HTTP API would answer: a status, an error code, and the body's record."""

    status: int
    code: str = ""
    message: str = ""
    body: dict[str, Any] | None = None  # the booking (or handoff) of a 2xx
    current: dict[str, Any] | None = None  # the record a 412 carries
    replayed: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def error(status: int, code: str, text: str, current: dict | None = None) -> Reply:
    return Reply(status, code, text, current=current)


@dataclass(frozen=True, slots=True)
class Caller:
    tenant: str
    subject: str
    account: str
    role: str = "caller"


@dataclass
class RequestRow:
    """One idempotency record (the sandbox's ``requests`` table)."""

    tenant: str
    account: str
    key: str
    op: str
    fingerprint: str
    status: str
    revision: int | None
    seq: int
    cancel_requested: bool = False
    retryable: bool = False
    booking_ref: str | None = None
    reply: Reply | None = None
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)

    def view(self) -> dict[str, Any]:
        reply = self.reply
        body = None
        if reply is not None:
            body = dict(reply.body or {}) if reply.ok else {
                "error": {"code": reply.code, "message": reply.message},
                **({"current": reply.current} if reply.current else {})}
        return {"tenant": self.tenant, "account": self.account, "key": self.key, "op": self.op,
                "fingerprint": self.fingerprint, "status": self.status,
                "cancel_requested": int(self.cancel_requested), "retryable": int(self.retryable),
                "revision": self.revision, "booking_ref": self.booking_ref,
                "response_status": reply.status if reply else None,
                "response_body": json.dumps(body) if body is not None else None,
                "created_at": self.created_at, "updated_at": self.updated_at}


# --------------------------------------------------------------------------- faults


@dataclass(frozen=True, slots=True)
class FaultRule:
    op: str
    delay_ms: int = 0
    drop_response: bool = False
    fail_before_commit: bool = False
    hang: bool = False
    ignore_precondition: bool = False
    uncancellable: bool = False
    nth: int | None = None
    probability: float = 1.0

    @classmethod
    def parse(cls, entry: Mapping[str, object] | FaultRule) -> FaultRule:
        """A rule from a ``sandbox.faults`` mapping. Raises ValueError on what the fake does not
        model, so a test never believes it injected a fault that did nothing."""
        if isinstance(entry, FaultRule):
            return entry
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(entry) - known)
        if unknown:
            raise ValueError(f"fake sandbox faults: {unknown} not modelled by the fake "
                             f"(known: {sorted(known)}); use the real sandbox")
        if entry.get("op") not in OPS:
            raise ValueError(f"fake sandbox faults: op {entry.get('op')!r} not modelled; "
                             f"one of {list(OPS)}")
        rule = cls(**dict(entry))  # type: ignore[arg-type]
        if not rule.delay_ms and not any(getattr(rule, f) for f in FLAGS):
            raise ValueError(f"fake sandbox faults: {dict(entry)} injects nothing")
        return rule


@dataclass(frozen=True, slots=True)
class Decision:
    op: str
    call: int
    delay_ms: int = 0
    drop_response: bool = False
    fail_before_commit: bool = False
    hang: bool = False
    ignore_precondition: bool = False
    uncancellable: bool = False


@dataclass(eq=False)
class _Hold:
    released: asyncio.Event
    wakeable: bool


class FakeFaults:
    """The live rules, per-op call counters and the holds in progress (the sandbox's
    ``FaultPlan``), with asyncio events instead of timers."""

    def __init__(self, rules: Iterable[Mapping | FaultRule] = (), seed: int = 0):
        self.seed = seed
        self._holds: list[_Hold] = []
        self._waiters: set[asyncio.Event] = set()
        self.set(rules)

    @property
    def rules(self) -> tuple[FaultRule, ...]:
        return self._rules

    def set(self, rules: Iterable[Mapping | FaultRule]) -> None:
        """Replace every rule and restart the call counters."""
        self._rules = tuple(FaultRule.parse(r) for r in rules)
        self._calls: dict[str, int] = {}
        self._rngs = {op: random.Random(f"{self.seed}:{op}") for op in OPS}

    def add(self, rule: Mapping | FaultRule) -> None:
        self._rules = (*self._rules, FaultRule.parse(rule))

    def clear(self) -> None:
        self.set(())

    def calls(self, op: str) -> int:
        return self._calls.get(op, 0)

    def decide(self, op: str) -> Decision:
        n = self._calls.get(op, 0) + 1
        self._calls[op] = n
        merged: dict[str, Any] = {}
        for rule in self._rules:
            if rule.op != op or (rule.nth is not None and rule.nth != n):
                continue
            if rule.probability < 1 and self._rngs[op].random() >= rule.probability:
                continue
            merged["delay_ms"] = max(int(merged.get("delay_ms", 0)), rule.delay_ms)
            for name in FLAGS:
                merged[name] = bool(merged.get(name)) or getattr(rule, name)
        return Decision(op=op, call=n, **merged)

    # -- holds ---------------------------------------------------------------------------------
    @property
    def held(self) -> int:
        return len(self._holds)

    async def hold(self, wake: asyncio.Event | None) -> str:
        """Wait until released (or ``wake`` fires); says which ("released" / "woken")."""
        entry = _Hold(asyncio.Event(), wake is not None)
        self._holds.append(entry)
        self._signal()
        waiters = [asyncio.ensure_future(entry.released.wait())]
        if wake is not None:
            waiters.append(asyncio.ensure_future(wake.wait()))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
            self._holds.remove(entry)
        return "released" if entry.released.is_set() else "woken"

    def release(self) -> int:
        """End every hold in progress now. Returns how many."""
        holds = list(self._holds)
        for entry in holds:
            entry.released.set()
        return len(holds)

    async def until_held(self, count: int = 1, timeout: float = 10.0) -> bool:
        """Wait (on an event, not a timer loop) until ``count`` requests are held."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self._holds) < count:
            changed = asyncio.Event()
            self._waiters.add(changed)
            try:
                await asyncio.wait_for(changed.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                return len(self._holds) >= count
            finally:
                self._waiters.discard(changed)
        return True

    def _signal(self) -> None:
        for changed in self._waiters:
            changed.set()


# --------------------------------------------------------------------------- the system


class FakeSandbox:
    """The system of record in memory. Build clients with :meth:`client`; inspect and steer it
    through :attr:`admin` (the oracle's view) and :attr:`faults`."""

    def __init__(self, *, faults: Iterable[Mapping | FaultRule] = (), seed: int = 0,
                 default_capacity: int = 4):
        self.faults = FakeFaults(faults, seed)
        self.default_capacity = default_capacity
        self.admin = FakeAdmin(self)
        self._refs = random.Random(f"refs:{seed}")
        self._handoff_ids = random.Random(f"handoffs:{seed}")
        self._seq = 0
        self.bookings: dict[str, dict[str, Any]] = {}  # ref -> row (with tenant, seq, ...)
        self.requests: dict[tuple[str, str, str], RequestRow] = {}
        self.notifications: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.handoffs: dict[str, dict[str, Any]] = {}
        self.capacity: dict[tuple[str, str], int] = {}
        self._wake: dict[tuple[str, str, str], asyncio.Event] = {}
        self._settled: dict[tuple[str, str, str], asyncio.Event] = {}
        self._stuck: set[tuple[str, str, str]] = set()  # held where cancellation cannot reach
        self._watchers: dict[tuple[str, str, str], list[asyncio.Event]] = {}
        self._tasks: set[asyncio.Task] = set()

    def client(self, tenant: str, subject: str, account: str, *,
               timeout: float | None = None) -> FakeBookingPort:
        """A BookingPort for one caller. ``timeout`` set: the client gives up when held."""
        return FakeBookingPort(self, Caller(tenant, subject, account), timeout=timeout)

    async def aclose(self) -> None:
        """Release every hold and stop the work still running "on the server"."""
        self.faults.release()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def spawn(self, coro: Coroutine[Any, Any, Reply]) -> asyncio.Task[Reply]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # A client that gave up never reads its answer; the failure is still observed here.
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return task

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    def new_ref(self) -> str:
        while True:
            ref = f"BK-{self._refs.randrange(16**6):06X}"
            if ref not in self.bookings:
                return ref

    # -- requests by key -------------------------------------------------------------------------
    def request(self, caller: Caller, key: str) -> RequestRow | None:
        return self.requests.get((caller.tenant, caller.account, key))

    async def settled(self, tenant: str, account: str, key: str) -> RequestRow:
        """Wait until the request under ``key`` exists and is no longer PENDING."""
        scope = (tenant, account, key)
        while (row := self.requests.get(scope)) is None or row.status == "PENDING":
            done = asyncio.Event()
            self._watchers.setdefault(scope, []).append(done)
            await done.wait()
        return row

    def _finish(self, scope, status: str, reply: Reply, *, ref: str | None = None,
                retryable: bool = False) -> None:
        row = self.requests[scope]
        row.status, row.reply, row.retryable = status, reply, retryable
        row.booking_ref = ref or row.booking_ref
        row.updated_at = now_iso()
        for done in self._watchers.pop(scope, ()):
            done.set()

    async def run(self, caller: Caller, key: str, op: str, fp: str, revision: int | None,
                  work: Callable[[Decision], tuple[Reply, str | None]],
                  held: asyncio.Event | None = None) -> Reply:
        """Execute ``work`` at most once per key (the sandbox's ``Executor.run``)."""
        scope = (caller.tenant, caller.account, key)
        row = self.requests.get(scope)
        if row is not None:
            if row.fingerprint != fp or row.op != op:
                return error(422, "key_reused", f"Idempotency-Key {key!r} was already used with "
                             "a different request; use a new key for a new request")
            if row.status == "PENDING":
                return error(409, "request_in_flight", f"a request with key {key!r} is still "
                             "in progress; retry later or look it up")
            if not (row.status == "FAILED" and row.retryable):
                assert row.reply is not None
                return replace(row.reply, replayed=True)
        self.requests[scope] = RequestRow(
            caller.tenant, caller.account, key, op, fp, "PENDING", revision,
            row.seq if row else self._next(), created_at=row.created_at if row else now_iso())
        wake, settled = asyncio.Event(), asyncio.Event()
        self._wake[scope], self._settled[scope] = wake, settled
        try:
            decision = self.faults.decide(op) if op in OPS else Decision(op, 0)
            return await self._execute(scope, decision, work, wake, held)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never leave a key PENDING forever
            self._finish(scope, "FAILED", error(500, "internal", str(exc)), retryable=True)
            raise
        finally:
            settled.set()
            self._wake.pop(scope, None)
            self._settled.pop(scope, None)
            self._stuck.discard(scope)

    async def _execute(self, scope, decision: Decision, work, wake: asyncio.Event,
                       held: asyncio.Event | None) -> Reply:
        row = self.requests[scope]
        if decision.delay_ms:
            await self._hold(scope, held, None if decision.uncancellable else wake)
        if decision.hang:
            await self._hold(scope, held, wake)
            if not row.cancel_requested:
                return self._fail_retryable(scope, "hung", "the request hung and was "
                                            "abandoned; nothing was written")
        if row.cancel_requested and not decision.uncancellable:
            reply = error(409, "request_cancelled", "the request was cancelled before it "
                          "committed; nothing was written")
            self._finish(scope, "CANCELLED", reply)
            return reply
        if decision.fail_before_commit:
            return self._fail_retryable(scope, "unavailable", "injected failure before commit; "
                                        "nothing was written, retry with the same key")
        reply, ref = work(decision)
        self._finish(scope, "SUCCEEDED" if reply.ok else "FAILED", reply, ref=ref)
        if decision.drop_response:
            await self._hold(scope, held, None)  # committed; the answer is lost on the way
        return reply

    async def _hold(self, scope, held: asyncio.Event | None, wake: asyncio.Event | None) -> None:
        if wake is None:
            self._stuck.add(scope)
        if held is not None:
            held.set()  # a client with a timeout gives up now
        try:
            await self.faults.hold(wake)
        finally:
            self._stuck.discard(scope)

    def _fail_retryable(self, scope, code: str, text: str) -> Reply:
        reply = error(503, code, text)
        self._finish(scope, "FAILED", reply, retryable=True)
        return reply

    async def request_cancel(self, caller: Caller, key: str) -> RequestRow | None:
        """Ask a pending request to cancel and let it settle; a finished one is left as it is.

        The sandbox waits up to two seconds for the request to settle; here a request held
        where cancellation cannot reach it (an ``uncancellable`` delay) is answered PENDING at
        once, and any other one is awaited until it has settled (it settles as soon as it
        runs; :data:`SETTLE_GUARD_S` only turns a bug into a PENDING answer, never a hang).
        """
        scope = (caller.tenant, caller.account, key)
        row = self.requests.get(scope)
        if row is None or row.status != "PENDING":
            return row
        row.cancel_requested = True
        row.updated_at = now_iso()
        if scope in self._wake:
            self._wake[scope].set()
        settled = self._settled.get(scope)
        if settled is not None and scope not in self._stuck:
            try:
                await asyncio.wait_for(settled.wait(), SETTLE_GUARD_S)
            except TimeoutError:
                pass  # still pending: the caller looks it up again
        return self.requests.get(scope)

    # -- bookings ----------------------------------------------------------------------------------
    def visible(self, caller: Caller, ref: str) -> dict[str, Any] | None:
        row = self.bookings.get(ref)
        if row is None or row["tenant"] != caller.tenant:
            return None
        if caller.role != "staff" and row["account"] != caller.account:
            return None
        return row

    def bookings_of(self, caller: Caller) -> list[dict[str, Any]]:
        rows = [r for r in self.bookings.values()
                if r["tenant"] == caller.tenant and r["account"] == caller.account]
        return sorted(rows, key=lambda r: (r["seq"], r["ref"]))

    def _full(self, date: str, window: str, excluding: str | None) -> str | None:
        capacity = self.capacity.get((date, window), self.default_capacity)
        booked = sum(1 for r in self.bookings.values() if r["date"] == date
                     and r["window"] == window and r["status"] == "confirmed"
                     and r["ref"] != excluding)
        if booked >= capacity:
            return f"the {window} of {date} is fully booked ({capacity} places); pick another"
        return None

    def create(self, caller: Caller, key: str, revision: int | None, body: dict,
               decision: Decision) -> tuple[Reply, str | None]:
        full = self._full(body["date"], body["window"], None)
        if full:
            return error(409, "slot_full", full), None
        stamp = now_iso()
        row = {"ref": self.new_ref(), "tenant": caller.tenant, "account": caller.account,
               "asset": body["asset"], "date": body["date"], "window": body["window"],
               "time": body["time"], "units": body["units"], "site": body["site"],
               "contact": body["contact"], "status": "confirmed", "version": 1,
               "created_key": key, "revision": revision, "created_at": stamp,
               "updated_at": stamp, "seq": self._next()}
        self.bookings[row["ref"]] = row
        self._event(row["ref"], 1, "create", caller.subject, key, None, None, revision)
        self._notify(row, "confirmation")
        return Reply(201, body=booking_json(row)), row["ref"]

    def change(self, caller: Caller, key: str | None, revision: int | None, ref: str,
               expected: int, changes: dict, decision: Decision, op: str
               ) -> tuple[Reply, str | None]:
        row = self.visible(caller, ref)
        if row is None:
            return error(404, "not_found", f"no booking {ref!r} for this account"), None
        cancelling = op == "cancel_booking"
        if row["status"] == "cancelled" and not cancelling:
            return error(409, "booking_cancelled", f"booking {ref} is cancelled; create a new "
                         "booking instead"), None
        merged = merge_slot(row, changes)
        if isinstance(merged, str):
            return error(422, "invalid_change", merged), None
        diff = {k: v for k, v in merged.items() if row[k] != v}
        if not diff:  # already in the requested state: say so, write nothing
            return Reply(200, body=booking_json(row)), ref
        if row["version"] != expected and not decision.ignore_precondition:
            return error(412, "version_mismatch", f"booking {ref} is at version "
                         f"{row['version']}, not {expected}; re-read it and decide again",
                         current=booking_json(row)), None
        if not cancelling and ("date" in diff or "window" in diff):
            full = self._full(merged.get("date", row["date"]),
                              merged.get("window", row["window"]), ref)
            if full:
                return error(409, "slot_full", full), None
        new = self._write(row, diff, caller.subject, key, expected, revision,
                          "cancel" if cancelling else "reschedule",
                          "cancellation" if cancelling else "change")
        return Reply(200, body=booking_json(new)), ref

    def _write(self, row: dict, diff: dict, actor: str, key: str | None, expected: int | None,
               revision: int | None, event: str, kind: str | None) -> dict:
        prior = row["version"]
        row.update(diff)
        row["version"] = prior + 1
        row["updated_at"] = now_iso()
        self._event(row["ref"], row["version"], event, actor, key, expected, prior, revision)
        if kind:
            self._notify(row, kind)
        return row

    def _event(self, ref: str, version: int, op: str, actor: str, key: str | None,
               expected: int | None, prior: int | None, revision: int | None) -> None:
        self.events.append({"id": len(self.events) + 1, "ref": ref, "version": version,
                            "op": op, "actor": actor, "key": key, "expected_version": expected,
                            "prior_version": prior, "revision": revision, "at": now_iso()})

    def _notify(self, row: dict, kind: str) -> None:
        """One outbox row per write; delivered at once (delivery faults are not modelled)."""
        stamp = now_iso()
        self.notifications.append({
            "id": len(self.notifications) + 1, "tenant": row["tenant"],
            "account": row["account"], "booking_ref": row["ref"],
            "booking_version": row["version"], "kind": kind, "contact": row["contact"],
            "dedupe_key": f"{row['ref']}:v{row['version']}:{kind}", "body": message(kind, row),
            "status": "delivered", "attempts": 1, "deliveries": 1, "created_at": stamp,
            "delivered_at": stamp})

    def staff_edit(self, caller: Caller, ref: str, expected: int | None, changes: dict,
                   notify: bool) -> Reply:
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
            return Reply(200, body=booking_json(row))
        kind = None
        if notify:
            kind = "cancellation" if diff.get("status") == "cancelled" else "change"
        new = self._write(row, diff, f"staff:{caller.subject}", None, expected, None,
                          "staff_edit", kind)
        return Reply(200, body=booking_json(new))

    def add_handoff(self, caller: Caller, state: dict) -> tuple[Reply, str | None]:
        hid = f"HO-{self._handoff_ids.randrange(16**6):06X}"
        row = {"id": hid, "tenant": caller.tenant, "account": caller.account, "status": "open",
               "version": 1, "state": state, "resolution": None}
        self.handoffs[hid] = row
        return Reply(201, body={k: v for k, v in row.items() if k != "tenant"}), None


def merge_slot(current: Mapping[str, Any], changes: Mapping[str, Any]) -> dict | str:
    """The booking's date/window/time after ``changes`` (the sandbox's rule), or an error."""
    out = dict(changes)
    if "time" in changes:
        implied = window_of(changes["time"])
        if "window" in changes and changes["window"] != implied:
            return f"time {changes['time']} is in the {implied}, not the {changes['window']}"
        out["window"] = implied
    elif "window" in changes and changes["window"] != current["window"]:
        out["time"] = None  # a new window without a time drops the old exact time
    return out


# --------------------------------------------------------------------------- request schema


class _Invalid(Exception):
    pass


def _text(name: str, value: object, limit: int) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"{name}: must be a string")
    if len(value) > limit:
        raise _Invalid(f"{name}: at most {limit} characters, got {len(value)}")
    value = value.strip()
    if not value:
        raise _Invalid(f"{name}: must not be empty or blank")
    return value


def _date(value: object) -> str:
    if isinstance(value, str) and DATE_RE.match(value):
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise _Invalid(f"date {value!r} is not a calendar date; use YYYY-MM-DD")


def _time(value: object) -> str:
    if not isinstance(value, str) or not TIME_RE.match(value):
        raise _Invalid(f"time {value!r} is not a 24-hour HH:MM time")
    if window_of(value) is None:
        raise _Invalid(f"time {value} is outside the morning and afternoon windows")
    return value


def _units(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
        raise _Invalid(f"units: a JSON integer 1..100, not {value!r}")
    return value


def _window(value: object) -> str:
    if value not in WINDOW_HOURS:
        raise _Invalid(f"window {value!r}: morning or afternoon")
    return str(value)


def _changes(body: Mapping[str, object]) -> dict[str, object]:
    """A reschedule body as the API's ``BookingChanges`` reads it (omitted = unchanged)."""
    unknown = sorted(set(body) - set(CHANGE_FIELDS))
    if unknown:
        raise _Invalid(f"{unknown}: extra inputs are not permitted")
    out: dict[str, object] = {}
    for name, check in (("date", _date), ("window", _window), ("time", _time),
                        ("units", _units), ("site", lambda v: _text("site", v, 200)),
                        ("contact", lambda v: _text("contact", v, 200))):
        if body.get(name) is not None:
            out[name] = check(body[name])
    if "time" in out and "window" in out and window_of(str(out["time"])) != out["window"]:
        raise _Invalid(f"time {out['time']} is not in the {out['window']}")
    return out


def _create_body(body: Mapping[str, object], subject: str) -> dict[str, object]:
    """A create body as ``BookingCreate`` reads it: window implied by time, defaults filled."""
    unknown = sorted(set(body) - {"asset", "units", "site", "contact", "date", "window", "time"})
    if unknown:
        raise _Invalid(f"{unknown}: extra inputs are not permitted")
    if "date" not in body:
        raise _Invalid("date: field required")
    out: dict[str, object] = {"date": _date(body["date"])}
    window = _window(body["window"]) if body.get("window") is not None else None
    time = _time(body["time"]) if body.get("time") is not None else None
    if time is not None:
        implied = window_of(time)
        if window is not None and window != implied:
            raise _Invalid(f"time {time} is in the {implied}, not the {window}")
        window = implied
    if window is None:
        raise _Invalid("give a window (morning or afternoon) or an exact time")
    out.update(window=window, time=time)
    if "asset" not in body or "site" not in body:
        raise _Invalid("asset and site: field required")
    out["asset"] = _text("asset", body["asset"], 64)
    out["units"] = _units(body["units"]) if "units" in body else 1
    out["site"] = _text("site", body["site"], 200)
    contact = body.get("contact")
    out["contact"] = _text("contact", contact, 200) if contact is not None else subject
    return out


# --------------------------------------------------------------------------- the client


@dataclass(frozen=True, slots=True)
class SentRequest:
    key: str
    op: str
    revision: int
    outcome: str


class FakeBookingPort:
    """``agent.core.ports.BookingPort`` for one caller of a :class:`FakeSandbox`."""

    def __init__(self, sandbox: FakeSandbox, caller: Caller, *, timeout: float | None = None):
        self.sandbox = sandbox
        self.caller = caller
        self.timeout = timeout
        self.sent: list[SentRequest] = []

    async def aclose(self) -> None:
        return None

    # -- writes ------------------------------------------------------------------------------------
    async def create(self, key: str, revision: int, booking: Visit) -> BookingOutcome:
        body = {k: v for k, v in booking.items() if v is not None and k != "account"}
        sandbox, caller = self.sandbox, self.caller

        async def submit(held: asyncio.Event) -> Reply:
            try:
                checked = _create_body(body, caller.subject)
            except _Invalid as exc:
                return error(422, "invalid_request", str(exc))
            return await sandbox.run(caller, key, "create_booking",
                                     fingerprint("create", checked), revision,
                                     lambda d: sandbox.create(caller, key, revision, checked, d),
                                     held)

        return await self._write("create_booking", key, revision, submit, None)

    async def reschedule(self, key: str, revision: int, ref: str, expected_version: int,
                         changes: VisitChanges) -> BookingOutcome:
        body = {k: v for k, v in changes.items() if v is not None}
        return await self._change("reschedule_booking", key, revision, ref, expected_version,
                                  body)

    async def cancel(self, key: str, revision: int, ref: str,
                     expected_version: int) -> BookingOutcome:
        return await self._change("cancel_booking", key, revision, ref, expected_version, None)

    async def _change(self, op: str, key: str, revision: int, ref: str, expected: int,
                      body: dict | None) -> BookingOutcome:
        sandbox, caller = self.sandbox, self.caller

        async def submit(held: asyncio.Event) -> Reply:
            if not REF_RE.match(ref):
                return error(422, "invalid_request", f"ref {ref!r}: not a booking ref")
            if not 0 <= expected < 10**10:
                return error(400, "bad_if_match", 'If-Match must be a version ETag such as "3"')
            if op == "cancel_booking":
                changes: dict[str, object] = {"status": "cancelled"}
            else:
                try:
                    changes = _changes(body or {})
                except _Invalid as exc:
                    return error(422, "invalid_request", str(exc))
                if not changes:
                    return error(422, "no_changes", "give at least one field to change")
            return await sandbox.run(
                caller, key, op, fingerprint(op, ref, expected, changes), revision,
                lambda d: sandbox.change(caller, key, revision, ref, expected, changes, d, op),
                held)

        return await self._write(op, key, revision, submit, expected)

    async def _write(self, op: str, key: str, revision: int,
                     submit: Callable[[asyncio.Event], Coroutine[Any, Any, Reply]],
                     expected: int | None) -> BookingOutcome:
        if not KEY_RE.match(key):
            reply: Reply | None = error(400, "idempotency_key_required", "send an "
                                        "Idempotency-Key of 1-255 visible ASCII characters")
        else:
            reply = await self._exchange(submit)
        if reply is None:
            outcome = BookingOutcome(K.UNKNOWN, detail=f"no answer (ReadTimeout); look the "
                                     f"request up by key {key!r} before anything else")
        else:
            outcome = await self._outcome(reply, reply.replayed, expected)
        self.sent.append(SentRequest(key, op, revision, outcome.kind.value))
        return outcome

    async def _exchange(self, submit) -> Reply | None:
        """Send, and wait for the answer; None when the client gave up (timeout)."""
        held = asyncio.Event()
        task = self.sandbox.spawn(submit(held))
        waiters: set[asyncio.Task[Reply] | asyncio.Task[bool]]
        if self.timeout is None:
            waiters = {task}
        else:
            gave_up = asyncio.ensure_future(held.wait())
            waiters = {task, gave_up}
        try:
            done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters - {task}:
                w.cancel()
        if task not in done:
            return None  # held on the "server": the client's timeout fires first
        try:
            return task.result()
        except Exception as exc:  # noqa: BLE001 - a server error is a 500: outcome unknown
            return error(500, "internal", str(exc))

    async def _outcome(self, reply: Reply, replayed: bool, expected: int | None
                       ) -> BookingOutcome:
        detail = f"{reply.code}: {reply.message}"
        if reply.ok:
            record = record_of(reply.body or {})
            if expected is not None and record.version not in (expected, expected + 1):
                return BookingOutcome(K.REJECTED_STALE, record, f"stale_commit: the target "
                                      f"reported success at version {record.version} for a "
                                      f"change built on version {expected}",
                                      RequestState.SUCCEEDED, replayed)
            return BookingOutcome(K.COMMITTED, await self._verified(record), "",
                                  RequestState.SUCCEEDED, replayed)
        if reply.status == 412:
            current = record_of(reply.current) if reply.current else None
            return BookingOutcome(K.REJECTED_STALE, current, detail, RequestState.FAILED,
                                  replayed)
        if reply.code == "request_in_flight":
            return BookingOutcome(K.CONFLICT, None, detail, RequestState.PENDING)
        if reply.code == "key_reused":
            return BookingOutcome(K.CONFLICT, None, detail, None)
        if reply.code == "request_cancelled":
            return BookingOutcome(K.FAILED, None, detail, RequestState.CANCELLED, replayed)
        if reply.status < 500 or reply.status == 503:
            return BookingOutcome(K.FAILED, None, f"{reply.status} {detail}",
                                  RequestState.FAILED, replayed, reply.code)
        return BookingOutcome(K.UNKNOWN, None, f"{reply.status} {detail}")

    async def _verified(self, record: BookingRecord) -> BookingRecord:
        current = await self.get(record.ref)
        return current if current is not None and current.version >= record.version else record

    # -- requests ----------------------------------------------------------------------------------
    async def lookup(self, key: str) -> BookingOutcome:
        return await self._request_state(self.sandbox.request(self.caller, key), key)

    async def request_cancel(self, key: str) -> BookingOutcome:
        return await self._request_state(await self.sandbox.request_cancel(self.caller, key), key)

    async def _request_state(self, row: RequestRow | None, key: str) -> BookingOutcome:
        if row is None:
            return BookingOutcome(K.FAILED, detail=f"no request with key {key!r}: never "
                                  "received, so nothing was written",
                                  request_state=RequestState.NOT_FOUND)
        state = RequestState(row.status)
        if state is RequestState.PENDING:
            return BookingOutcome(K.CONFLICT, None, "still in flight"
                                  + (" (cancel requested)" if row.cancel_requested else ""),
                                  state)
        assert row.reply is not None
        outcome = await self._outcome(replace(row.reply, replayed=False), False, None)
        return BookingOutcome(outcome.kind, outcome.record, outcome.detail, state)

    # -- reads -------------------------------------------------------------------------------------
    async def get(self, ref: str) -> BookingRecord | None:
        if not REF_RE.match(ref):
            raise FakeUnavailable(f"GET /v1/bookings/{ref}: 422 not a booking ref")
        row = self.sandbox.visible(self.caller, ref)
        return record_of(row) if row is not None else None

    async def bookings(self) -> tuple[BookingRecord, ...]:
        return tuple(record_of(r) for r in self.sandbox.bookings_of(self.caller))

    async def handoff(self, state: HandoffState) -> str:
        """Queue a handoff; idempotent per (question, revision), like the sandbox's."""
        if not state.question.strip() or not state.reason.strip():
            raise FakeUnavailable("POST /v1/handoffs: 422 question and reason must not be blank")
        body = json.loads(json.dumps(asdict(state)))  # tuples as the JSON body carries them
        key = f"handoff:{state.question}:{state.revision}"
        sandbox, caller = self.sandbox, self.caller
        reply = await sandbox.run(caller, key, "create_handoff", fingerprint("handoff", body),
                                  state.revision, lambda d: sandbox.add_handoff(caller, body))
        if reply.status != 201 or reply.body is None:
            raise FakeUnavailable(f"POST /v1/handoffs: {reply.status} {reply.code}")
        return str(reply.body["id"])


# --------------------------------------------------------------------------- the oracle


class FakeAdmin:
    """The test-mode ``/admin`` view (``SandboxAdmin``'s methods): every account, plain dicts."""

    def __init__(self, sandbox: FakeSandbox):
        self._sandbox = sandbox

    def bookings(self) -> list[dict[str, Any]]:
        rows = sorted(self._sandbox.bookings.values(), key=lambda r: (r["seq"], r["ref"]))
        return [{**booking_json(r), "tenant": r["tenant"], "created_key": r["created_key"]}
                for r in rows]

    def notifications(self) -> list[dict[str, Any]]:
        return [dict(n) for n in self._sandbox.notifications]

    def events(self) -> list[dict[str, Any]]:
        return [dict(e) for e in self._sandbox.events]

    def requests(self) -> list[dict[str, Any]]:
        rows = sorted(self._sandbox.requests.values(), key=lambda r: r.seq)
        return [r.view() for r in rows]

    def set_faults(self, faults: Iterable[Mapping]) -> None:
        self._sandbox.faults.set(faults)

    def add_fault(self, fault: Mapping) -> None:
        self._sandbox.faults.add(fault)

    def release(self) -> int:
        return self._sandbox.faults.release()

    def set_capacity(self, date: str, window: str, capacity: int) -> None:
        self._sandbox.capacity[(date, window)] = capacity

    def seed(self, tenant: str, bookings: Iterable[Mapping]) -> dict[str, str]:
        """Insert bookings as they are (no notifications, no keys); handle -> ref."""
        sandbox = self._sandbox
        refs: dict[str, str] = {}
        rows = []
        seq, stamp = sandbox._next(), now_iso()
        for i, raw in enumerate(bookings):
            # seed rows are loose YAML mappings (str/int/date values), read as such
            b: dict[str, Any] = {k: _plain(v) for k, v in dict(raw).items()}
            ref = b.get("ref") or sandbox.new_ref()
            if ref in sandbox.bookings or ref in refs.values():
                raise FakeAdminError(f"seed: booking {i} has ref {ref!r}, which already "
                                     "exists; nothing was seeded")
            time = b.get("time")
            window = b.get("window") or (window_of(time) if time else None)
            if window is None or (time and window_of(time) != window):
                raise FakeAdminError(f"seed: booking {i}: give a window or a time in it")
            rows.append({"ref": ref, "tenant": b.get("tenant") or tenant,
                         "account": b["account"], "asset": b["asset"], "date": b["date"],
                         "window": window, "time": time, "units": int(b.get("units", 1)),
                         "site": b.get("site", ""), "contact": b.get("contact", ""),
                         "status": b.get("status", "confirmed"),
                         "version": int(b.get("version", 1)), "created_key": None,
                         "revision": None, "created_at": stamp, "updated_at": stamp,
                         "seq": seq})
            refs[b.get("ref") or f"#{i}"] = ref
        for row in rows:
            sandbox.bookings[row["ref"]] = row
            sandbox._event(row["ref"], row["version"], "seed", "admin", None, None, None, None)
        return refs

    def staff_edit(self, tenant: str, ref: str, changes: Mapping, *,
                   expected_version: int | None = None, notify: bool = False,
                   subject: str = "staff") -> dict[str, Any]:
        """Edit a booking as staff of ``tenant`` (bumps its version); raises FakeAdminError."""
        staff = Caller(tenant, subject, "*staff*", "staff")
        reply = self._sandbox.staff_edit(staff, ref, expected_version,
                                         {k: _plain(v) for k, v in dict(changes).items()},
                                         notify)
        if not reply.ok:
            raise FakeAdminError(f"staff edit of {ref}: {reply.status} {reply.message}")
        return dict(reply.body or {})

    def reset(self) -> None:
        sandbox = self._sandbox
        sandbox.faults.release()
        sandbox.faults.clear()
        for table in (sandbox.bookings, sandbox.requests, sandbox.handoffs, sandbox.capacity):
            table.clear()
        sandbox.notifications.clear()
        sandbox.events.clear()


def _plain(value: object) -> object:
    """YAML gives dates and times as objects; the API takes ISO text (times as HH:MM)."""
    if isinstance(value, dt.time):
        return value.isoformat(timespec="minutes")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
