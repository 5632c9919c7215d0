"""Idempotent execution of side-effecting requests (Stripe, the IETF draft, Brandur's design).

A request is identified by ``(tenant, account, Idempotency-Key)``. The first arrival claims the
key (a PENDING row), runs under the faults that apply to it, and finishes the row in the *same
transaction* as its business write, so "committed" and "recorded as SUCCEEDED" can never
disagree. Later arrivals with the same key and payload replay the stored response
(``Idempotent-Replayed: true``); a different payload is a 422; a key still in flight is a 409
with ``Retry-After``. A request failed *before* commit (503, a hang, an interrupted server) is
marked retryable: the same key may run it again. Keys are kept for ``retention_s`` (24 h by
default) after they were first used.

Cancellation of work in flight: :meth:`Executor.request_cancel` sets ``cancel_requested`` and
wakes a delayed request, which then ends CANCELLED with nothing written, unless it was already
past the point of no return (or its fault says ``uncancellable``), in which case it completes
and the booking stands. The client tells the two apart with ``GET /v1/requests/{key}``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from enum import StrEnum

from tools_sandbox.faults import OPS, FaultDecision, FaultPlan
from tools_sandbox.store import Store, now_iso


class RequestStatus(StrEnum):
    PENDING = "PENDING"  # claimed; work in flight (possibly held by a fault)
    SUCCEEDED = "SUCCEEDED"  # finished with a 2xx; its write is committed
    FAILED = "FAILED"  # finished with an error; nothing written (retryable if before commit)
    CANCELLED = "CANCELLED"  # cancellation was requested in time; nothing written


# What a key is remembered under: (tenant, account, Idempotency-Key).
Scope = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Caller:
    """The identity behind a token: never taken from a request body."""

    tenant: str
    subject: str
    account: str
    role: str = "caller"


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: dict
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Work:
    """What a business operation returns, inside the transaction that also finishes the key."""

    status: int
    body: dict
    booking_ref: str | None = None
    notification: int | None = None


def error(status: int, code: str, message: str, **extra: object) -> Reply:
    return Reply(status, {"error": {"code": code, "message": message}, **extra})


def fingerprint(*parts: object) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def with_etag(reply: Reply) -> Reply:
    version = reply.body.get("version") if 200 <= reply.status < 300 else None
    if isinstance(version, int):
        return Reply(reply.status, reply.body, (*reply.headers, ("ETag", f'"{version}"')))
    return reply


class Executor:
    """Runs keyed operations; owns the per-request wake/settled events of this process."""

    def __init__(self, store: Store, faults: FaultPlan, *, retention_s: float,
                 max_hold_s: float, spawn: Callable[[Coroutine], object],
                 after_commit: Callable[[Work], None]):
        self._store = store
        self._faults = faults
        self._retention_s = retention_s
        self._max_hold_s = max_hold_s
        self._spawn = spawn
        self._after_commit = after_commit
        self._wake: dict[Scope, asyncio.Event] = {}
        self._settled: dict[Scope, asyncio.Event] = {}
        self._last_purge = 0.0
        # A PENDING row left by a stopped server wrote nothing (commit and SUCCEEDED are one
        # transaction), so it is safe to let its key run again.
        store.release_orphans()

    async def run(self, caller: Caller, key: str, op: str, fp: str, revision: int | None,
                  work: Callable[[FaultDecision], Work], *, duplicate: bool = False) -> Reply:
        """Execute ``work`` at most once per key. Side effects: the requests table, faults."""
        scope = (caller.tenant, caller.account, key)
        self._purge()
        stamp = now_iso()
        row = self._store.claim_request({
            "tenant": caller.tenant, "account": caller.account, "key": key, "op": op,
            "fingerprint": fp, "status": RequestStatus.PENDING, "cancel_requested": 0,
            "retryable": 0, "revision": revision, "booking_ref": None, "response_status": None,
            "response_body": None, "created_at": stamp, "updated_at": stamp,
            "created_ts": time.time(), "owner": self._store.owner})
        if row is not None:  # the key is taken: judge the request against its record
            if row["fingerprint"] != fp or row["op"] != op:
                return error(422, "key_reused", f"Idempotency-Key {key!r} was already used with "
                             "a different request; use a new key for a new request")
            if row["status"] == RequestStatus.PENDING:
                busy = error(409, "request_in_flight", f"a request with key {key!r} is still "
                             "in progress; retry later or GET /v1/requests/{key}")
                return Reply(busy.status, busy.body, (("Retry-After", "1"),))
            reply = Reply(row["response_status"], json.loads(row["response_body"]),
                          (("Idempotent-Replayed", "true"),))
            return with_etag(reply)
        wake, settled = asyncio.Event(), asyncio.Event()
        self._wake[scope], self._settled[scope] = wake, settled
        try:
            decision = (self._faults.decide(op, caller.tenant) if op in OPS and not duplicate
                        else FaultDecision(op=op, call=0))
            if decision.duplicate_delivery:
                # The network delivers this request a second time, right behind the first.
                self._spawn(self.run(caller, key, op, fp, revision, work, duplicate=True))
            return with_etag(await self._execute(scope, decision, work, wake))
        except Exception as exc:  # never leave a key PENDING forever
            self._store.finish_request(*scope, RequestStatus.FAILED, response_status=500,
                                       body={"error": {"code": "internal", "message": str(exc)}},
                                       retryable=True)
            raise
        finally:
            settled.set()
            self._wake.pop(scope, None)
            self._settled.pop(scope, None)

    async def _execute(self, scope: Scope, decision: FaultDecision,
                       work: Callable[[FaultDecision], Work], wake: asyncio.Event) -> Reply:
        if decision.delay_ms:
            await self._faults.hold(decision.delay_ms / 1000,
                                    None if decision.uncancellable else wake)
        if decision.hang:
            await self._faults.hold(self._max_hold_s, wake)
            if not self._cancel_requested(scope):
                return self._fail_retryable(scope, "hung", "the request hung and was abandoned; "
                                            "nothing was written")
        if self._cancel_requested(scope) and not decision.uncancellable:
            reply = error(409, "request_cancelled", "the request was cancelled before it "
                          "committed; nothing was written")
            self._store.finish_request(*scope, RequestStatus.CANCELLED,
                                       response_status=reply.status, body=reply.body)
            return reply
        if decision.fail_before_commit:
            return self._fail_retryable(scope, "unavailable", "injected failure before commit; "
                                        "nothing was written, retry with the same key")
        def commit() -> Work:
            done = work(decision)
            ok = 200 <= done.status < 300
            self._store.finish_request(*scope, RequestStatus.SUCCEEDED if ok
                                       else RequestStatus.FAILED, response_status=done.status,
                                       body=done.body, booking_ref=done.booking_ref)
            return done

        done = self._store.atomically(commit)
        self._after_commit(done)
        if decision.drop_response:
            # Committed; the answer is lost on the way back: the client times out.
            await self._faults.hold(self._max_hold_s)
        return Reply(done.status, done.body)

    def _fail_retryable(self, scope: Scope, code: str, message: str) -> Reply:
        reply = error(503, code, message)
        self._store.finish_request(*scope, RequestStatus.FAILED, response_status=503,
                                   body=reply.body, retryable=True)
        return Reply(reply.status, reply.body, (("Retry-After", "1"),))

    def _cancel_requested(self, scope: Scope) -> bool:
        row = self._store.request(*scope)
        return bool(row and row["cancel_requested"])

    def _purge(self) -> None:
        now = time.time()
        # Sweep at most once a minute (or on every request when retention is shorter).
        if now - self._last_purge >= min(60.0, self._retention_s):
            self._last_purge = now
            self._store.purge_requests(now - self._retention_s)

    def listen(self) -> None:
        """Wake a request this process holds when another process is asked to cancel it
        (side effect: the store's listener; call once, on the server's event loop)."""
        loop = asyncio.get_running_loop()

        def wake(scope: Scope) -> None:
            if scope in self._wake:
                self._wake[scope].set()

        def from_listener(scope: Scope) -> None:  # runs on the listener's thread
            loop.call_soon_threadsafe(wake, scope)

        self._store.listen_for_cancels(from_listener)

    async def request_cancel(self, caller: Caller, key: str, wait_s: float) -> dict | None:
        """Ask a pending request to cancel; wait up to ``wait_s`` for it to settle.

        Returns the request row afterwards (None when the key is unknown). A finished request
        is left as it is: cancellation never undoes committed work.
        """
        scope = (caller.tenant, caller.account, key)
        row = self._store.request_now(*scope)
        if row is None or row["status"] != RequestStatus.PENDING:
            return row
        self._store.mark_cancel_requested(*scope)
        if scope in self._wake:
            self._wake[scope].set()
        else:  # held by another process, if any: it wakes on the announcement
            self._store.announce_cancel(scope)
        settled = self._settled.get(scope)
        if settled is not None and wait_s > 0:
            try:
                await asyncio.wait_for(settled.wait(), wait_s)
            except TimeoutError:
                pass  # still pending: the client polls GET /v1/requests/{key}
        return self._store.request(*scope)
