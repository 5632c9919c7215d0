"""The composition root of the sandbox: store + faults + service + routes = one FastAPI app."""

from __future__ import annotations

import json
import random
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic.json_schema import models_json_schema

from tools_sandbox import admin, api, conventions
from tools_sandbox import models as m
from tools_sandbox.faults import FaultPlan
from tools_sandbox.handoffs import Handoffs
from tools_sandbox.service import BookingService, SandboxConfig
from tools_sandbox.store import open_store

# How long the sandbox's servers keep an idle connection open. Longer than a client's own idle
# expiry (httpx: 5 s): with the two equal (uvicorn's default is 5 s), a client could send on a
# pooled connection in the instant the server closed it, and read no answer (a fresh clone's
# 50 clients on 4 workers, under load: httpx.ReadError).
KEEP_ALIVE_S = 30

DESCRIPTION = """The system of record Amend changes: bookings of service visits, with
idempotency keys, conditional writes, cancellation of work in flight, a notification outbox, a
handoff queue and (test mode only) deterministic fault injection. See tools_sandbox/README.md.

* Auth: `Authorization: Bearer <token>`; tokens are minted by `POST /admin/tokens` (test mode).
  Another account's booking is **404**, never 403, so references do not leak.
* Every `POST` under `/v1` requires `Idempotency-Key` (400 without). Same key + same payload
  replays (`Idempotent-Replayed: true`); other payload 422; still in flight 409 + `Retry-After`.
  Keys are scoped per account and remembered for 24 hours.
* Reschedule/cancel require `If-Match: "<version>"` or `expected_version`: 428 without, 412 on a
  mismatch, 2xx if the booking is already in the requested state.
* Test mode only: the test harness (tokens, seeding, faults, reset) is described apart, at
  `/admin/openapi.json` and `/admin/docs`.
"""


def create_app(db_path: str, config: SandboxConfig | None = None,
               faults: FaultPlan | None = None) -> FastAPI:
    """Build the app over ``db_path``: a SQLite file (created if missing; WAL mode) or a
    ``postgresql://`` URL (tables created if missing; see :mod:`tools_sandbox.store`).

    ``faults`` is the live plan a caller keeps a handle on; it is refused non-empty unless
    ``config.testing``.
    """
    config = config or SandboxConfig()
    faults = faults if faults is not None else FaultPlan(seed=config.seed,
                                                         enabled=config.testing)
    if faults.rules and not config.testing:
        raise ValueError("faults need testing=True")
    store = open_store(db_path)
    service = BookingService(store, faults, config)
    rng = random.Random(f"handoffs:{config.seed}")

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        service.recover()
        yield
        faults.release()
        await service.aclose()
        store.close()

    app = FastAPI(title="Amend sandbox booking API", version="1.0", description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.service = service
    app.state.handoffs = Handoffs(store, lambda: f"HO-{rng.randrange(16**6):06X}")
    api.install(app)
    if config.testing:
        admin.install(app)
    _publish_contracts(app, config.testing)
    return app


def _publish_contracts(app: FastAPI, testing: bool) -> None:
    """``/openapi.json``: the booking API, the same with or without test mode.

    The test harness (``/admin``: tokens, seeding, fault injection, reset) is published apart,
    at ``/admin/openapi.json`` and ``/admin/docs``: a client or fuzzer of the booking API must
    not find "inject a fault" or "delete everything" among its operations.
    """

    def build(routes: list, title: str, description: str) -> dict:
        return _declare(get_openapi(title=title, version=app.version, description=description,
                                    routes=routes, openapi_version=app.openapi_version))

    def openapi() -> dict:
        if app.openapi_schema is None:
            app.openapi_schema = build([r for r in api.route_table(app) if not _is_admin(r)],
                                       app.title, app.description)
        return app.openapi_schema

    # FastAPI's documented way to customise the document; mypy refuses any method assignment.
    app.openapi = openapi  # type: ignore[method-assign]
    if not testing:
        return
    cache: dict[str, dict] = {}

    async def admin_openapi() -> JSONResponse:
        if "doc" not in cache:
            cache["doc"] = build([r for r in api.route_table(app) if _is_admin(r)],
                                 ADMIN_TITLE, admin.__doc__ or "")
        return JSONResponse(cache["doc"])

    async def admin_docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/admin/openapi.json", title=ADMIN_TITLE)

    app.add_api_route("/admin/openapi.json", admin_openapi, include_in_schema=False)
    app.add_api_route("/admin/docs", admin_docs, include_in_schema=False)


ADMIN_TITLE = "Amend sandbox test harness (/admin, test mode only)"


def _is_admin(route) -> bool:
    return (getattr(route, "path", None) or "").startswith("/admin")


def _declare(schema: dict) -> dict:
    """Say in the document what the handlers do beyond what FastAPI infers.

    - Headers read as optional strings (so that a bad or missing one is a 400 naming it, not
      FastAPI's generic 422) get their exact schema; Idempotency-Key is required, and so is
      If-Match where a route's ``openapi_extra`` says so (``conventions.REQUIRES_IF_MATCH``).
    - Every operation with a body may answer 400 ``malformed_body``; every 422 has the one
      error shape (``{"error": {"code", "message"}}``), not FastAPI's default.
    """
    error = {"$ref": "#/components/schemas/Error"}
    for path in schema["paths"].values():
        for operation in path.values():
            required = {"Idempotency-Key", *operation.pop("x-amend-required-headers", ())}
            for param in operation.get("parameters", ()):
                if param["in"] == "header" and param["name"] in conventions.HEADER_SCHEMAS:
                    param["schema"] = dict(conventions.HEADER_SCHEMAS[param["name"]])
                    if param["name"] in required:
                        param["required"] = True
            responses = operation.setdefault("responses", {})
            if "requestBody" in operation and "400" not in responses:
                responses["400"] = {"description": conventions.BODY_400,
                                    "content": {"application/json": {"schema": error}}}
            if "422" in responses:
                responses["422"]["content"] = {"application/json": {"schema": error}}
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    _, defs = models_json_schema([(m.Error, "serialization")],
                                 ref_template="#/components/schemas/{model}")
    for name, definition in defs["$defs"].items():
        components.setdefault(name, definition)
    text = json.dumps(schema["paths"])
    for name in ("HTTPValidationError", "ValidationError"):
        if f"/{name}\"" not in text:
            components.pop(name, None)
    return schema
