"""HTTP surface of the sandbox booking API (FastAPI). Routes only; rules live in the service,
and the conventions below are carried out by :mod:`tools_sandbox.conventions`.

Conventions every route follows:

- ``Authorization: Bearer <token>``: a token minted by the sandbox, bound to tenant, subject and
  account. Missing or unknown: 401. Another account's booking: 404 (never 403, which would
  confirm that the reference exists).
- Every ``POST`` under ``/v1`` needs ``Idempotency-Key`` (400 without it). ``Amend-Revision``
  (optional) records the agent revision the request was built on.
- Reschedule and cancel need ``If-Match: "<version>"`` or ``expected_version``: 428 without,
  412 on a mismatch (the body's ``current`` holds the record) or when both are sent and
  disagree, 2xx when the booking is already in the requested state.
- Errors are ``{"error": {"code", "message"}}``, every one declared in /openapi.json: 400
  ``malformed_body`` for a body that is not UTF-8 JSON, 405 with ``Allow`` for a method the path
  does not serve, 422 for anything the schema refuses.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated

from fastapi import APIRouter, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import get_route_path

from tools_sandbox import handoff_routes
from tools_sandbox import models as m
from tools_sandbox.conventions import (
    ApiError,
    Key,
    Match,
    Ref,
    Revision,
    Who,
    _responses,
    precondition,
    respond,
)
from tools_sandbox.idempotency import Reply, error

v1 = APIRouter(prefix="/v1")
WRITE = _responses(400, 401, 404, 409, 412, 422, 428, 503)


@v1.get("/slots", response_model=m.SlotList, responses=_responses(401, 422), tags=["slots"])
async def list_slots(request: Request, who: Who, start: Annotated[m.IsoDate, Query()],
                     days: int = Query(7, ge=1, le=62)):
    """The calendar: for each day, the morning and afternoon windows with their capacity.

    The calendar ends on 9999-12-31: days after it are not listed.
    """
    first = dt.date.fromisoformat(start)
    last = min(days, (dt.date.max - first).days + 1)
    dates = [(first + dt.timedelta(days=i)).isoformat() for i in range(last)]
    return {"slots": request.app.state.service.slots(dates)}


@v1.post("/bookings", status_code=201, response_model=m.Booking, responses=WRITE,
         tags=["bookings"])
async def create_booking(body: m.BookingCreate, request: Request,
                         who: Who, key: Key,
                         revision: Revision):
    """Book a visit. One `confirmation` notification is written in the same transaction."""
    return respond(await request.app.state.service.create(who, key, revision, body))


@v1.get("/bookings", response_model=m.BookingList, responses=_responses(401), tags=["bookings"])
async def list_bookings(request: Request, who: Who):
    """This account's bookings, cancelled ones included. Read-only."""
    from tools_sandbox.service import booking_json

    rows = request.app.state.service.store.bookings_of(who.tenant, who.account)
    return {"bookings": [booking_json(r) for r in rows]}


@v1.get("/bookings/{ref}", response_model=m.Booking, responses=_responses(401, 404, 422),
        tags=["bookings"])
async def get_booking(request: Request, ref: Ref, who: Who):
    """One booking with its ETag (= version). Another account's booking is a 404."""
    return respond(request.app.state.service.get(who, ref))


@v1.post("/bookings/{ref}/reschedule", response_model=m.Booking, responses=WRITE,
         tags=["bookings"])
async def reschedule_booking(body: m.Reschedule, request: Request, ref: Ref,
                             who: Who, key: Key,
                             revision: Revision,
                             match: Match):
    """Change date, window, time, units, site or contact; writes one `change` notification."""
    changes = body.changes()
    if not changes:
        return respond(error(422, "no_changes", "give at least one field to change"))
    expected = precondition(match, body.expected_version)
    return respond(await request.app.state.service.change(who, key, revision, ref, expected,
                                                          changes))


@v1.post("/bookings/{ref}/cancel", response_model=m.Booking, responses=WRITE,
         tags=["bookings"])
async def cancel_booking(request: Request, ref: Ref, who: Who, key: Key,
                         revision: Revision, match: Match, body: m.Cancel | None = None):
    """Cancel; writes one `cancellation` notification. Earlier notifications stay delivered."""
    expected = precondition(match, body.expected_version if body else None)
    return respond(await request.app.state.service.change(who, key, revision, ref, expected,
                                                          {"status": "cancelled"}))


def request_view(row: dict) -> dict:
    return {"key": row["key"], "op": row["op"], "status": row["status"],
            "cancel_requested": bool(row["cancel_requested"]), "revision": row["revision"],
            "booking_ref": row["booking_ref"], "response_status": row["response_status"],
            "response": json.loads(row["response_body"]) if row["response_body"] else None,
            "created_at": row["created_at"], "updated_at": row["updated_at"]}


KeyPath = Annotated[str, Path(min_length=1, max_length=255)]


@v1.get("/requests/{key}", response_model=m.RequestView, responses=_responses(401, 404, 422),
        tags=["requests"])
async def get_request(request: Request, key: KeyPath, who: Who):
    """Look a request up by its Idempotency-Key: what to do after a timeout. Read-only."""
    row = request.app.state.service.store.request_now(who.tenant, who.account, key)
    if row is None:
        return respond(error(404, "not_found", f"no request with key {key!r} for this account "
                             "(never received, or past the 24 h retention)"))
    return request_view(row)


@v1.post("/requests/{key}/cancel", response_model=m.RequestView,
         responses=_responses(401, 404, 422), tags=["requests"])
async def cancel_request(request: Request, key: KeyPath, who: Who,
                         wait_ms: int | None = Query(None, ge=0, le=10_000,
                                                     description="How long to wait for the "
                                                     "request to settle (default 2000)")):
    """Ask a PENDING request to cancel (`cancel_requested`) and wait briefly for it to settle.

    It ends CANCELLED (nothing written) or SUCCEEDED anyway (the booking stands). Finished
    requests are returned unchanged. Needs no Idempotency-Key: asking twice is harmless.
    """
    service = request.app.state.service
    wait_s = service.config.cancel_wait_s if wait_ms is None else wait_ms / 1000
    row = await service.executor.request_cancel(who, key, wait_s)
    if row is None:
        return respond(error(404, "not_found", f"no request with key {key!r} for this account"))
    return request_view(row)


@v1.get("/notifications", response_model=m.NotificationList, responses=_responses(401),
        tags=["notifications"])
async def list_notifications(request: Request, who: Who):
    """This account's outbox. Delivered messages are history: they are never recalled."""
    rows = request.app.state.service.store.notifications_of(who.tenant, who.account)
    return {"notifications": [{k: v for k, v in r.items() if k != "tenant"} for r in rows]}


@v1.patch("/staff/bookings/{ref}", response_model=m.Booking,
          responses=_responses(400, 401, 404, 412, 422), tags=["staff"])
async def staff_edit(body: m.StaffEdit, request: Request, ref: Ref,
                     who: Who, match: Match):
    """A staff member edits any booking of the tenant and bumps its version (staff token)."""
    if who.role != "staff":
        return respond(error(404, "not_found", "no such staff resource for this token"))
    expected = precondition(match, body.expected_version) if (
        match is not None or body.expected_version is not None) else None
    return respond(request.app.state.service.staff_edit(who, ref, expected, body.changes(),
                                                        body.notify))


def install(app: FastAPI) -> None:
    """Add the /v1 routes and the error handlers that keep every error in one shape."""
    app.include_router(v1)
    app.include_router(handoff_routes.router)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return respond(exc.reply)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        if first.get("type") == "json_invalid":
            return respond(malformed_body(f"not valid JSON ({first.get('ctx', {}).get('error')} "
                                          f"at character {first['loc'][-1]})"))
        where = ".".join(str(p) for p in first.get("loc", ()))
        return respond(error(422, "invalid_request", f"{where}: {first.get('msg', 'invalid')}"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names only the first route whose path matched; list every method.
            headers["Allow"] = ", ".join(allowed_methods(request))
            return respond(Reply(405, error(405, "method_not_allowed",
                                            f"{request.method} is not supported here; use "
                                            f"{headers['Allow']}").body,
                                 tuple(headers.items())))
        if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
            return respond(malformed_body("not UTF-8 text"))
        reply = error(exc.status_code, "http_error", str(exc.detail))
        return respond(Reply(reply.status, reply.body, tuple(headers.items())))


def malformed_body(why: str) -> Reply:
    return error(400, "malformed_body", f"the request body is {why}; send a UTF-8 JSON "
                 "document with Content-Type: application/json")


def route_table(app: FastAPI) -> list:
    """Every route of ``app``, with the routes of included routers flattened."""
    try:
        from fastapi.routing import iter_route_contexts  # FastAPI with lazily included routers
    except ImportError:
        return list(app.routes)
    return list(iter_route_contexts(app.routes))


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this request's path (for a 405's ``Allow``)."""
    path = get_route_path(request.scope)
    methods: set[str] = set()
    for route in route_table(request.app):
        regex, served = getattr(route, "path_regex", None), getattr(route, "methods", None)
        if regex is not None and served and regex.match(path):
            methods |= served
    return sorted(methods)
