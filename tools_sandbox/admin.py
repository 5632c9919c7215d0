"""Test and demo routes under ``/admin``: mint tokens, seed, inspect everything, faults, reset.

They exist only when the sandbox runs with ``testing`` on (``serve_in_background`` does; ``amend
sandbox serve`` needs ``--test-mode``). They see every account, because the oracle of a scripted
call must judge the system of record, not what one caller can see. No authentication: they
bind to 127.0.0.1 only.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from agent.core.errors import InvalidInput
from tools_sandbox import models as m
from tools_sandbox.conventions import ApiError, respond
from tools_sandbox.faults import RULE_SCHEMA
from tools_sandbox.idempotency import error
from tools_sandbox.service import booking_json
from tools_sandbox.store import now_iso

# ``?tenant=``: only that tenant's rows (a call or a demo tab that shares one sandbox).
TenantQuery = Annotated[str | None, Query(min_length=1, max_length=200,
                                          description="Only this tenant's rows.")]

# ``?ref=``: only the booking with that reference (in each tenant that has one): an oracle
# that checks one call's booking without reading every tenant's.
RefQuery = Annotated[str | None, Query(min_length=1, max_length=64,
                                       description="Only the booking with this reference.")]

router = APIRouter(prefix="/admin", tags=["admin (test mode only)"])
SeedRef = Annotated[str, *m.code(m.REF_PATTERN, "a booking ref: 1-64 of A-Z a-z 0-9 _ . : -")]
Capacity = Annotated[int, *m.integer(0, 10_000)]
SeedText = Annotated[str, *m.text(200, min_length=0)]


class SeedBooking(m.Slot):
    """A booking that exists before a call (docs/call-scripts.md ``sandbox.bookings``)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    ref: SeedRef | None = None
    tenant: m.Name | None = None
    account: m.Name
    asset: m.Name
    units: m.Units = 1
    site: SeedText = ""
    contact: SeedText = ""
    status: Literal["confirmed", "cancelled"] = "confirmed"
    version: m.Version = 1


class Seed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tenant: m.Name
    bookings: list[SeedBooking] = Field(max_length=1000)


class SlotCapacity(BaseModel):
    model_config = ConfigDict(extra="forbid")
    date: m.IsoDate
    window: m.Window
    capacity: Capacity


FaultRule = Annotated[dict, WithJsonSchema(RULE_SCHEMA)]  # FaultPlan checks it, naming the key


class FaultList(BaseModel):
    faults: list[FaultRule] = Field(max_length=100)
    tenant: str | None = Field(default=None, min_length=1, max_length=200,
                               description="Replace only this tenant's rules (each rule is "
                                           "scoped to it); other tenants' rules stay.")


@router.post("/tokens", response_model=m.Token)
async def mint_token(body: m.TokenRequest, request: Request):
    """Mint a bearer token for a test subject bound to tenant + account (role caller|staff)."""
    token = request.app.state.service.store.mint_token(body.tenant, body.subject, body.account,
                                                       body.role)
    return {"token": token, **body.model_dump()}


@router.post("/seed", responses={409: {"model": m.Error, "description": "A ref already exists"}})
async def seed(body: Seed, request: Request):
    """Insert bookings as they are (no notifications). Returns ``refs``: handle -> booking ref.

    All or nothing: a duplicate ref rejects the whole seed.
    """
    service = request.app.state.service
    stamp = now_iso()

    def insert_all() -> dict[str, str]:
        refs: dict[str, str] = {}
        for i, b in enumerate(body.bookings):
            tenant = b.tenant or body.tenant
            ref = b.ref or service.new_ref(tenant)
            if service.store.booking(tenant, ref) is not None or ref in refs.values():
                raise ApiError(error(409, "ref_exists", f"seed: booking {i} has ref {ref!r}, "
                                     "which already exists; nothing was seeded"))
            row = {"ref": ref, "tenant": tenant, "account": b.account,
                   "asset": b.asset, "date": b.date, "window": b.window, "time": b.time,
                   "units": b.units, "site": b.site, "contact": b.contact, "status": b.status,
                   "version": b.version, "created_key": None, "revision": None,
                   "created_at": stamp, "updated_at": stamp}
            service.store.insert_booking(row)
            service.store.record_event(tenant, ref, b.version, "seed", "admin", None, None,
                                       None, None)
            refs[b.ref or f"#{i}"] = ref
        return refs

    refs = service.store.atomically(insert_all)
    return {"refs": refs}


@router.get("/bookings")
async def all_bookings(request: Request, tenant: TenantQuery = None, ref: RefQuery = None):
    """Every booking of every account (the oracle's view), or one tenant's, or the one with a
    reference. Read-only."""
    rows = request.app.state.service.store.all_bookings(tenant, ref)
    return {"bookings": [{**booking_json(r), "tenant": r["tenant"],
                          "created_key": r["created_key"]} for r in rows]}


@router.get("/notifications")
async def all_notifications(request: Request, tenant: TenantQuery = None):
    """Every notification of every account, or one tenant's. Read-only."""
    return {"notifications": request.app.state.service.store.all_notifications(tenant)}


@router.get("/events")
async def booking_events(request: Request):
    """Every booking version ever written, with the version it was built on. Read-only."""
    return {"events": request.app.state.service.store.events()}


@router.get("/requests")
async def all_requests(request: Request):
    """Every idempotency record of every account. Read-only."""
    return {"requests": request.app.state.service.store.all_requests()}


@router.put("/slots")
async def set_capacity(body: SlotCapacity, request: Request):
    """Set the capacity of one (date, window)."""
    request.app.state.service.store.set_capacity(body.date, body.window, body.capacity)
    return body.model_dump()


@router.get("/faults")
async def get_faults(request: Request, tenant: TenantQuery = None):
    """The rules in force, the held requests, and the calls counted per op (all of them, or
    ``tenant``'s: what a tenant's ``nth`` counts over)."""
    plan = request.app.state.service.faults
    return {"faults": [r.as_dict() for r in plan.rules], "held": plan.held,
            "calls": {op: plan.calls(op, tenant) for op in
                      ("create_booking", "reschedule_booking", "cancel_booking",
                       "send_notification")}}


@router.put("/faults")
async def set_faults(body: FaultList, request: Request):
    """Replace every fault rule (docs/call-scripts.md vocabulary) and restart the call counters;
    with ``tenant``, only that tenant's rules and counters (calls sharing one sandbox)."""
    request.app.state.service.faults.set(body.faults, tenant=body.tenant)
    return await get_faults(request)


@router.post("/faults")
async def add_fault(body: FaultRule, request: Request):
    """Add one fault rule, keeping the counters (the chat ``/faults`` command)."""
    request.app.state.service.faults.add(body)
    return await get_faults(request)


@router.post("/faults/release")
async def release_faults(request: Request):
    """End every delay, hang and dropped-response hold now."""
    return {"released": request.app.state.service.faults.release()}


@router.post("/reset")
async def reset(request: Request):
    """Delete everything (bookings, keys, notifications, tokens, handoffs) and clear faults."""
    service = request.app.state.service
    service.faults.release()
    service.faults.clear()
    service.store.reset()
    return {"reset": True}


def install(app) -> None:
    app.include_router(router)

    @app.exception_handler(InvalidInput)
    async def _bad_input(request: Request, exc: InvalidInput):
        return respond(error(422, "invalid_input", str(exc)))
