"""The composition root of the sandbox: store + faults + service + routes = one FastAPI app."""

from __future__ import annotations

import random
from contextlib import asynccontextmanager

from fastapi import FastAPI

from tools_sandbox import admin, api
from tools_sandbox.faults import FaultPlan
from tools_sandbox.handoffs import Handoffs
from tools_sandbox.service import BookingService, SandboxConfig
from tools_sandbox.store import Store

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
"""


def create_app(db_path: str, config: SandboxConfig | None = None,
               faults: FaultPlan | None = None) -> FastAPI:
    """Build the app over the SQLite file ``db_path`` (created if missing; WAL mode).

    ``faults`` is the live plan a caller keeps a handle on; it is refused non-empty unless
    ``config.testing``.
    """
    config = config or SandboxConfig()
    faults = faults if faults is not None else FaultPlan(seed=config.seed,
                                                         enabled=config.testing)
    if faults.rules and not config.testing:
        raise ValueError("faults need testing=True")
    store = Store(db_path)
    service = BookingService(store, faults, config)
    rng = random.Random(f"handoffs:{config.seed}")

    @asynccontextmanager
    async def lifespan(app: FastAPI):
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
    _declare_required_keys(app)
    return app


def _declare_required_keys(app: FastAPI) -> None:
    """Publish Idempotency-Key as required in /openapi.json.

    The route reads it as optional so that a missing key is answered 400 (the idempotency
    contract) rather than FastAPI's generic 422; generated clients must still always send it.
    """
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = build()
            for path in schema["paths"].values():
                for operation in path.values():
                    for param in operation.get("parameters", ()):
                        if param["name"] == "Idempotency-Key":
                            param["required"] = True
                            param["schema"] = {"type": "string", "minLength": 1,
                                               "maxLength": 255, "pattern": "^[!-~]+$"}
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi
