"""Run the sandbox in-process on 127.0.0.1 in a uvicorn thread (tests, demo, chat, call runner).

    with serve_in_background(faults=[{"op": "create_booking", "delay_ms": 1500}]) as sandbox:
        token = sandbox.admin.mint("acme", "tech-17", "ACME-001")
        client = SandboxClient(sandbox.base_url, token)
        sandbox.faults.release()          # end a held delay/hang now, deterministically

The handle's :attr:`SandboxHandle.faults` is the live :class:`FaultPlan`: change it at run time
from any thread. :attr:`SandboxHandle.admin` is a small synchronous client of ``/admin``.
"""

from __future__ import annotations

import socket
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import replace

import uvicorn

from tools_sandbox.admin_client import SandboxAdmin
from tools_sandbox.app import KEEP_ALIVE_S, create_app
from tools_sandbox.faults import FaultPlan, FaultRule
from tools_sandbox.service import SandboxConfig


class SandboxHandle:
    """A running sandbox. :meth:`stop` (or leaving the ``with`` block) shuts it down."""

    def __init__(self, server: uvicorn.Server, thread: threading.Thread, base_url: str,
                 faults: FaultPlan, db_path: str, tmp: tempfile.TemporaryDirectory | None):
        self._server, self._thread, self._tmp = server, thread, tmp
        self.base_url = base_url
        self.faults = faults
        self.db_path = db_path
        self.admin = SandboxAdmin(base_url)

    def stop(self, timeout: float = 10.0) -> None:
        """Release every held request, stop uvicorn, join its thread, delete a temp DB."""
        self.faults.release()
        self._server.should_exit = True
        self._thread.join(timeout)
        self.admin.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> SandboxHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve_in_background(db_path: str | None = None,
                        faults: Iterable[FaultRule | Mapping] = (), seed: int = 0,
                        config: SandboxConfig | None = None, port: int = 0,
                        ready_timeout: float = 10.0) -> SandboxHandle:
    """Start the sandbox on 127.0.0.1:``port`` (0 = a free port) and wait until it listens.

    ``db_path=None`` uses a fresh database in a temporary directory, removed by ``stop()``.
    Side effects: a daemon thread running uvicorn; the SQLite file.
    """
    config = replace(config or SandboxConfig(), seed=seed)
    plan = FaultPlan(faults, seed=seed, enabled=config.testing)
    tmp = None
    if db_path is None:
        tmp = tempfile.TemporaryDirectory(prefix="amend-sandbox-")
        db_path = f"{tmp.name}/sandbox.db"
    app = create_app(db_path, config, plan)
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets only then,
    # and without it every keep-alive response waits 40 ms for a delayed ACK (Nagle).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    actual = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           lifespan="on", timeout_graceful_shutdown=2,
                                           timeout_keep_alive=KEEP_ALIVE_S))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name=f"amend-sandbox-{actual}", daemon=True)
    thread.start()
    started = threading.Event()

    def _watch() -> None:
        while not server.started and thread.is_alive():
            started.wait(0.01)
        started.set()

    _watch()
    if not server.started:
        server.should_exit = True
        thread.join(2)
        if tmp is not None:
            tmp.cleanup()
        raise RuntimeError(f"sandbox did not start on 127.0.0.1:{actual}")
    return SandboxHandle(server, thread, f"http://127.0.0.1:{actual}", plan, db_path, tmp)
