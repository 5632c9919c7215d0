"""``amend sandbox serve --db postgresql://... --workers N``: N uvicorn processes, one database.

The parent process checks the database (creating the tables), mints the ``--caller`` token,
binds 127.0.0.1:PORT and hands the socket to uvicorn's process supervisor, which starts N
workers and replaces one that dies. Each worker builds its own app from the settings in
``AMEND_SANDBOX_WORKER`` (JSON) and opens its own connection: nothing is shared between
workers but the database, which is why this needs PostgreSQL (:mod:`tools_sandbox.store`).

Per worker: the fault plan (each worker draws from its own copy, seeded alike) and the holds
it injects. A cancel that lands on another worker is announced with NOTIFY and wakes the held
request (:meth:`tools_sandbox.store.PostgresStore.listen_for_cancels`). A notification is
delivered by the worker that wrote it, or adopted by the next worker to start if that one died.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
from collections.abc import Callable

ENV = "AMEND_SANDBOX_WORKER"


def app_from_environment():
    """uvicorn's app factory in each worker process (reads :data:`ENV`)."""
    from tools_sandbox.app import create_app
    from tools_sandbox.faults import FaultPlan
    from tools_sandbox.service import SandboxConfig

    settings = json.loads(os.environ[ENV])
    config = SandboxConfig(**settings["config"])
    plan = FaultPlan(settings["faults"], seed=config.seed, enabled=config.testing)
    return create_app(settings["db"], config, plan)


def serve_workers(db: str, workers: int, config, rules: list, port: int,
                  caller: tuple[str, str, str] | None, echo: Callable[[str], None]) -> None:
    """Run until interrupted (side effects: the database's tables, a token, N processes)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from tools_sandbox.app import KEEP_ALIVE_S
    from tools_sandbox.faults import FaultPlan
    from tools_sandbox.store import PostgresStore

    FaultPlan(rules, seed=config.seed, enabled=config.testing)  # refuse a bad rule here, once
    store = PostgresStore(db)
    try:
        store.release_orphans()
        token = store.mint_token(*caller) if caller else None
    finally:
        store.close()
    config = dataclasses.replace(config, workers=workers)
    os.environ[ENV] = json.dumps({"db": db, "config": dataclasses.asdict(config),
                                  "faults": rules})
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(2048)  # listening now: a client that connects before a worker is up waits
    sock.set_inheritable(True)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    uv = uvicorn.Config("tools_sandbox.workers:app_from_environment", factory=True,
                        workers=workers, log_level="warning", access_log=False, lifespan="on",
                        timeout_graceful_shutdown=2, timeout_keep_alive=KEEP_ALIVE_S)
    echo(f"sandbox listening on {url}  (OpenAPI: {url}/openapi.json; {workers} worker "
         "processes on PostgreSQL)")
    if caller and token:
        echo(f"caller token for {'/'.join(caller)}: {token}")
    Multiprocess(uv, sockets=[sock]).run()
