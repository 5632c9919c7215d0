"""The conventions every route of the sandbox booking API follows (see :mod:`tools_sandbox.api`):
the caller's token, the ``Idempotency-Key``, ``Amend-Revision`` and ``If-Match`` headers as
FastAPI dependencies, the precondition rule, error replies and the documented responses.

Shared by :mod:`tools_sandbox.api`, :mod:`tools_sandbox.handoff_routes` and
:mod:`tools_sandbox.admin`, so the route modules import this one and never each other.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from tools_sandbox import models as m
from tools_sandbox.idempotency import Caller, Reply, error

bearer = HTTPBearer(auto_error=False, description="A caller token from POST /admin/tokens")
KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")
ETAG_RE = re.compile(r'^(?:W/)?"?([0-9]{1,10})"?$')
REVISION_RE = re.compile(r"^[0-9]{1,9}$")
Ref = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]

# The headers' schemas in /openapi.json: exactly the values the dependencies below accept.
# (The dependencies read them as optional strings so that a bad value is a 400 naming it.
# A route that needs one says so with REQUIRES_IF_MATCH; a missing one is then a 428.)
HEADER_SCHEMAS: dict[str, dict[str, object]] = {
    "Idempotency-Key": {"type": "string", "minLength": 1, "maxLength": 255,
                        "pattern": "^[!-~]+$"},
    "Amend-Revision": {"type": "string", "pattern": "^[0-9]{1,9}$"},
    "If-Match": {"type": "string", "pattern": '^(W/)?"?[0-9]{1,10}"?$'},
}
REQUIRES_IF_MATCH = {"x-amend-required-headers": ["If-Match"]}  # a route's openapi_extra


class ApiError(Exception):
    def __init__(self, reply: Reply):
        self.reply = reply


def respond(reply: Reply) -> JSONResponse:
    return JSONResponse(reply.body, status_code=reply.status, headers=dict(reply.headers))


BODY_400 = "Malformed body: not UTF-8 JSON"


def _responses(*codes: int) -> dict:
    text = {400: "Missing or malformed Idempotency-Key, If-Match or Amend-Revision, "
                 "or a malformed body",
            401: "No valid caller token", 404: "No such resource for this account",
            409: "Key in flight (Retry-After), request cancelled, slot full or booking "
                 "cancelled", 412: "If-Match / expected_version does not match the current "
                 "version (see `current`), or they disagree with each other",
            422: "Invalid body, or Idempotency-Key reused with a different payload",
            428: "If-Match or expected_version is required", 503: "Injected failure"}
    return {c: {"model": m.Error, "description": text[c]} for c in codes}


def _unauthenticated(message: str) -> Reply:
    reply = error(401, "unauthenticated", message)
    return Reply(reply.status, reply.body, (("WWW-Authenticate", "Bearer"),))  # RFC 9110


async def caller(request: Request,
                 creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Caller:
    if creds is None:
        raise ApiError(_unauthenticated("send Authorization: Bearer <token>"))
    row = request.app.state.service.store.one("SELECT * FROM tokens WHERE token = ?",
                                              creds.credentials)
    if row is None:
        raise ApiError(_unauthenticated("unknown token; mint one first"))
    return Caller(row["tenant"], row["subject"], row["account"], row["role"])


async def idempotency_key(key: str | None = Header(
        None, alias="Idempotency-Key",
        description="Required on every POST. Same key + same payload replays the response "
                    "(Idempotent-Replayed: true); scoped per account; kept 24 h.")) -> str:
    if key is None or not KEY_RE.match(key):
        raise ApiError(error(400, "idempotency_key_required", "send an Idempotency-Key header "
                             "of 1-255 visible ASCII characters, unique per logical request"))
    return key


async def amend_revision(value: str | None = Header(
        None, alias="Amend-Revision",
        description="The agent revision this request was built on (recorded)")) -> int | None:
    if value is None:
        return None
    if not REVISION_RE.match(value):
        raise ApiError(error(400, "bad_revision", "Amend-Revision must be a non-negative "
                             "integer"))
    return int(value)


async def if_match(value: str | None = Header(
        None, alias="If-Match",
        description='The booking version the change was built on, as an ETag: "3"')) -> int | None:
    if value is None:
        return None
    found = ETAG_RE.match(value.strip())
    if not found:
        raise ApiError(error(400, "bad_if_match", 'If-Match must be a version ETag such as "3"'))
    return int(found.group(1))  # "0" is well formed and matches no version: 412


# Dependencies are async on purpose: FastAPI runs plain `def` ones in a thread pool.
Who = Annotated[Caller, Depends(caller)]
Key = Annotated[str, Depends(idempotency_key)]
Revision = Annotated[int | None, Depends(amend_revision)]
Match = Annotated[int | None, Depends(if_match)]


def precondition(header: int | None, body: int | None) -> int:
    if header is None and body is None:
        raise ApiError(error(428, "precondition_required", "send If-Match: \"<version>\" or "
                             "expected_version: read the booking first"))
    if header is not None and body is not None and header != body:
        # Both are preconditions on the one current version: they cannot both hold (RFC 9110).
        raise ApiError(error(412, "conflicting_preconditions",
                             f"If-Match says version {header}, expected_version says {body}: "
                             "both cannot hold; send one"))
    return header if header is not None else body  # type: ignore[return-value]
