"""The agent's booking client: :class:`agent.core.ports.BookingPort` over async httpx.

Every side-effecting call carries the idempotency key the agent derived from question id and
action id (``agent.core.actions.idempotency_key_for``) and the ledger revision it was built on
(``Amend-Revision``; the sandbox stores it with the request). HTTP answers map to one
:class:`~agent.core.ports.BookingOutcomeKind` each:

======================================  =============================================
answer                                  outcome
======================================  =============================================
2xx                                     COMMITTED, with the record read back by ref
2xx whose version skipped ours          REJECTED_STALE (the target ignored If-Match)
412                                     REJECTED_STALE, with the current record
409 in flight, 422 key reused           CONFLICT
409 cancelled/slot full, 4xx, 503       FAILED (nothing written)
timeout, dropped connection, other 5xx  UNKNOWN: call :meth:`lookup` with the same key
======================================  =============================================

The client never retries by itself and never invents a key: after UNKNOWN, the agent looks the
request up by its key and, if it must try again, reuses that key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import httpx

from agent.core.errors import AmendError
from agent.core.ops import Op, Visit, VisitChanges, spec
from agent.core.ports import (
    BookingOutcome,
    BookingOutcomeKind,
    BookingRecord,
    HandoffState,
    RequestState,
)

K = BookingOutcomeKind
BOOKING_KEYS = ("asset", "date", "window", "time", "units", "site", "contact")


class SandboxUnavailable(AmendError):
    """A read (get, bookings, handoff) got no usable answer from the sandbox."""


@dataclass(frozen=True, slots=True)
class SentRequest:
    """What the client sent under a key: the local half of the audit trail."""

    key: str
    op: str
    revision: int
    outcome: str


def record_of(body: dict) -> BookingRecord:
    return BookingRecord(**{f: body[f] for f in BookingRecord.__slots__})


class SandboxClient:
    """Async client of the sandbox. ``timeout`` (seconds) bounds every call; scripted calls
    use short ones so a dropped response becomes UNKNOWN quickly."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 5.0,
                 transport: httpx.AsyncBaseTransport | None = None):
        self._http = httpx.AsyncClient(
            base_url=base_url, transport=transport,
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(timeout, connect=min(timeout, 2.0)))
        self.sent: list[SentRequest] = []

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> SandboxClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ writes

    async def create(self, key: str, revision: int, booking: Visit) -> BookingOutcome:
        """POST /v1/bookings. ``account`` is implied by the token and is not sent."""
        body = {k: v for k, v in booking.items() if v is not None and k != "account"}
        return await self._write(Op.CREATE_BOOKING, key, revision, body, None)

    async def reschedule(self, key: str, revision: int, ref: str, expected_version: int,
                         changes: VisitChanges) -> BookingOutcome:
        body = {k: v for k, v in changes.items() if v is not None}
        return await self._write(Op.RESCHEDULE_BOOKING, key, revision, body, expected_version,
                                 ref)

    async def cancel(self, key: str, revision: int, ref: str,
                     expected_version: int) -> BookingOutcome:
        return await self._write(Op.CANCEL_BOOKING, key, revision, None, expected_version, ref)

    async def _write(self, op: Op, key: str, revision: int, body: dict[str, object] | None,
                     expected: int | None, ref: str | None = None) -> BookingOutcome:
        """POST to the op's route (agent/core/ops.py), keyed; the answer as one outcome."""
        path = spec(op).path(ref)
        headers = {"Idempotency-Key": key, "Amend-Revision": str(revision)}
        if expected is not None:
            headers["If-Match"] = f'"{expected}"'
        try:
            response = await self._http.post(path, json=body, headers=headers)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            outcome = BookingOutcome(K.FAILED, detail=f"sandbox unreachable, nothing sent: {exc}")
        except httpx.HTTPError as exc:
            outcome = BookingOutcome(K.UNKNOWN, detail=f"no answer ({type(exc).__name__}); look "
                                     f"the request up by key {key!r} before anything else")
        else:
            outcome = await self._outcome(response.status_code, _json(response),
                                          response.headers.get("Idempotent-Replayed") == "true",
                                          expected)
        self.sent.append(SentRequest(key, op, revision, outcome.kind.value))
        return outcome

    async def _outcome(self, status: int, body: dict, replayed: bool,
                       expected: int | None) -> BookingOutcome:
        code = (body.get("error") or {}).get("code", "") if isinstance(body, dict) else ""
        message = (body.get("error") or {}).get("message", "") if isinstance(body, dict) else ""
        if 200 <= status < 300:
            record = record_of(body)
            if expected is not None and record.version not in (expected, expected + 1):
                # A correct target either wrote version expected+1 or, already in the requested
                # state, wrote nothing. Anything else means it committed over a newer version.
                return BookingOutcome(K.REJECTED_STALE, record, f"stale_commit: the target "
                                      f"reported success at version {record.version} for a "
                                      f"change built on version {expected}", RequestState.SUCCEEDED,
                                      replayed)
            return BookingOutcome(K.COMMITTED, await self._verified(record), "",
                                  RequestState.SUCCEEDED, replayed)
        if status == 412:
            current = body.get("current")
            return BookingOutcome(K.REJECTED_STALE, record_of(current) if current else None,
                                  f"{code}: {message}", RequestState.FAILED, replayed)
        if code == "request_in_flight":
            return BookingOutcome(K.CONFLICT, None, f"{code}: {message}", RequestState.PENDING)
        if code == "key_reused":
            return BookingOutcome(K.CONFLICT, None, f"{code}: {message}", None)
        if code == "request_cancelled":
            return BookingOutcome(K.FAILED, None, f"{code}: {message}", RequestState.CANCELLED,
                                  replayed)
        if status < 500 or status == 503:
            return BookingOutcome(K.FAILED, None, f"{status} {code}: {message}",
                                  RequestState.FAILED, replayed, code)
        return BookingOutcome(K.UNKNOWN, None, f"{status} {code}: {message}")

    async def _verified(self, record: BookingRecord) -> BookingRecord:
        """Read the booking back by ref; the record returned is what the system holds now."""
        try:
            current = await self.get(record.ref)
        except SandboxUnavailable:
            return record  # the committing transaction's own read is still authoritative
        return current if current is not None and current.version >= record.version else record

    # ------------------------------------------------------------------ requests

    async def lookup(self, key: str) -> BookingOutcome:
        """GET /v1/requests/{key}: what became of a request. Read-only; never a new attempt."""
        return await self._request_state("GET", f"/v1/requests/{key}", key)

    async def request_cancel(self, key: str) -> BookingOutcome:
        """Ask the target to cancel work in flight, then report where it ended (or PENDING)."""
        return await self._request_state("POST", f"/v1/requests/{key}/cancel", key)

    async def _request_state(self, method: str, path: str, key: str) -> BookingOutcome:
        try:
            response = await self._http.request(method, path)
        except httpx.HTTPError as exc:
            return BookingOutcome(K.UNKNOWN, detail=f"lookup of {key!r} got no answer: {exc!r}")
        if response.status_code == 404:
            return BookingOutcome(K.FAILED, detail=f"no request with key {key!r}: never "
                                  "received, so nothing was written",
                                  request_state=RequestState.NOT_FOUND)
        if response.status_code != 200:
            return BookingOutcome(K.UNKNOWN, detail=f"lookup of {key!r}: {response.status_code}")
        view = response.json()
        state = RequestState(view["status"])
        if state is RequestState.PENDING:
            return BookingOutcome(K.CONFLICT, None, "still in flight"
                                  + (" (cancel requested)" if view["cancel_requested"] else ""),
                                  state)
        outcome = await self._outcome(view["response_status"], view["response"] or {}, False,
                                      None)
        return BookingOutcome(outcome.kind, outcome.record, outcome.detail, state)

    # ------------------------------------------------------------------ reads

    async def get(self, ref: str) -> BookingRecord | None:
        """The booking now, or None when this account has no such booking. Read-only."""
        response = await self._read("GET", f"/v1/bookings/{ref}", ok=(200, 404))
        return record_of(response.json()) if response.status_code == 200 else None

    async def bookings(self) -> tuple[BookingRecord, ...]:
        """Every booking of this account, cancelled ones included. Read-only."""
        response = await self._read("GET", "/v1/bookings")
        return tuple(record_of(b) for b in response.json()["bookings"])

    async def handoff(self, state: HandoffState) -> str:
        """Queue a handoff with its explicit state; idempotent per (question, revision)."""
        body = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(state).items()}
        response = await self._read(
            "POST", "/v1/handoffs", ok=(201,), json=body,
            headers={"Idempotency-Key": f"handoff:{state.question}:{state.revision}",
                     "Amend-Revision": str(state.revision)})
        return response.json()["id"]

    async def _read(self, method: str, path: str, ok: tuple[int, ...] = (200,),
                    **kwargs) -> httpx.Response:
        try:
            response = await self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise SandboxUnavailable(f"sandbox {method} {path}: no answer ({exc!r})") from exc
        if response.status_code not in ok:
            raise SandboxUnavailable(f"sandbox {method} {path}: {response.status_code} "
                                     f"{response.text[:200]}")
        return response


def _json(response: httpx.Response) -> dict:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
