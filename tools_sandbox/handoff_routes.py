"""HTTP routes of the handoff queue (see :mod:`tools_sandbox.handoffs` for the rules)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request

from tools_sandbox import models as m
from tools_sandbox.conventions import (
    REQUIRES_IF_MATCH,
    Key,
    Match,
    Revision,
    Who,
    _responses,
    precondition,
    respond,
)
from tools_sandbox.idempotency import fingerprint

router = APIRouter(prefix="/v1/handoffs", tags=["handoffs"])
Hid = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


@router.post("", status_code=201, response_model=m.Handoff,
             responses=_responses(400, 401, 409, 422))
async def create_handoff(body: m.HandoffCreate, request: Request,
                         who: Who, key: Key,
                         revision: Revision):
    """Queue work for a person, with an explicit state object (versions, effects, ambiguity)."""
    state = body.model_dump()
    handoffs = request.app.state.handoffs
    return respond(await request.app.state.service.executor.run(
        who, key, "create_handoff", fingerprint("handoff", state), revision,
        lambda decision: handoffs.create(who, state)))


@router.get("", response_model=list[m.Handoff], responses=_responses(401))
async def list_handoffs(request: Request, who: Who):
    """Open and resolved handoffs: the account's own, or the tenant's queue for staff."""
    return request.app.state.handoffs.queue(who)


@router.get("/{hid}", response_model=m.Handoff, responses=_responses(401, 404, 422))
async def get_handoff(request: Request, hid: Hid, who: Who):
    """One handoff and its current version (also its ETag)."""
    return respond(request.app.state.handoffs.get(who, hid))


@router.put("/{hid}/state", response_model=m.Handoff, openapi_extra=REQUIRES_IF_MATCH,
            responses=_responses(400, 401, 404, 409, 412, 422, 428))
async def update_handoff_state(body: m.HandoffCreate, request: Request, hid: Hid,
                               who: Who,
                               match: Match):
    """The agent replaces the state object of an open handoff; requires If-Match."""
    expected = precondition(match, None)
    return respond(request.app.state.handoffs.update_state(who, hid, expected,
                                                           body.model_dump()))


@router.put("/{hid}/resolution", response_model=m.Handoff,
            responses=_responses(401, 404, 409, 412, 422))
async def resolve_handoff(body: m.HandoffResolution, request: Request, hid: Hid,
                          who: Who):
    """A staff member returns the work, stamped with the handoff version they read (412 if
    the state changed since)."""
    return respond(request.app.state.handoffs.resolve(who, hid, body.based_on_version,
                                                      body.note))
