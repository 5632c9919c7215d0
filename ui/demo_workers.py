"""``amend demo --workers N``: N demo processes behind one port, sharing one sandbox and one
registry (issue 17).

The parent process

1. serves the shared systems (:func:`ui.agents.serve_shared`): the sandbox on ``--db`` in test
   mode and the demo registry imported into the same database; without ``--db``, SQLite
   files in a temporary folder, removed at the end;
2. starts N demo processes (spawned). Each builds the app ``amend demo`` builds, except that
   every tab's world is a tenant of its own in the shared systems, and listens on a free
   loopback port;
3. once all are ready, serves the affinity proxy (:mod:`ui.affinity`) on ``--host:--port``;
4. supervises. A process that stops is taken out of rotation at once and started again; the
   browsers it served are moved on their next request. A process that stops before it is
   ready three times in a row is left stopped, with its reason printed.

Ctrl-C stops the proxy, then the processes: each watches a pipe only the parent holds, and
shuts down (gracefully) when it closes, so the processes also go when the parent is killed.
The processes run in sessions of their own: the terminal's Ctrl-C reaches the parent only,
which stops them in order.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import socket
import tempfile
import threading
from typing import Any

from agent.core.db_url import redact
from agent.core.errors import InvalidInput
from ui.affinity import AffinityProxy, Upstreams

READY_TIMEOUT_S = 600.0  # warming Whisper and Piper in N processes on two busy cores
START_FAILURES = 3  # a process that stops this often before it is ready stays stopped
STOP_GRACE_S = 10.0


def worker_main(index: int, shared: Any, options: Any, events: Any, lifeline: Any) -> None:
    """One demo process (the target of a spawned process; module level so it can be found).
    Puts ``("ready", index, port)`` on ``events`` once it accepts connections, or
    ``("failed", index, reason)`` if its app cannot be built."""
    import uvicorn
    from rich.console import Console

    from ui.demo_build import WS_MAX_SIZE, build_demo, quiet_shutdown_logs

    os.setsid()  # the terminal's Ctrl-C is the parent's to handle
    console = Console(stderr=True)
    try:
        app, _hub = build_demo(console, options, shared=shared, label=f"[process {index}] ")
    except Exception as exc:
        events.put(("failed", index, f"{type(exc).__name__}: {exc}"))
        raise SystemExit(1) from None
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only then.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn serves them
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           timeout_graceful_shutdown=3, ws_max_size=WS_MAX_SIZE,
                                           ws_per_message_deflate=False))

    def exit_with_parent() -> None:
        with contextlib.suppress(EOFError, OSError):
            lifeline.recv()  # nothing is ever sent: this returns when the parent's end closes
        server.should_exit = True

    threading.Thread(target=exit_with_parent, name="amend-lifeline", daemon=True).start()
    quiet_shutdown_logs()
    events.put(("ready", index, sock.getsockname()[1]))
    server.run(sockets=[sock])


class Supervisor:
    """Starts, watches and stops the demo processes; keeps :attr:`upstreams` current."""

    def __init__(self, count: int, shared: Any, options: Any, say=print):
        self.count, self.shared, self.options, self.say = count, shared, options, say
        self.upstreams = Upstreams(count)
        self._ctx = multiprocessing.get_context("spawn")
        self._events: Any = self._ctx.Queue()
        self._procs: list[Any] = [None] * count
        self._lifelines: list[Any] = [None] * count
        self._failures = [0] * count  # stops before ready, in a row
        self._ready = [False] * count
        self._reasons: list[str | None] = [None] * count
        self._startup_error: str | None = None
        self._serving = False
        self._stopping = threading.Event()
        self._changed = threading.Condition()
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start every process and wait until all are ready. Raises InvalidInput (with the
        reason) if one cannot start."""
        for index in range(self.count):
            self._start(index)
        for target, name in ((self._consume_events, "events"), (self._watch, "watch")):
            thread = threading.Thread(target=target, name=f"amend-supervisor-{name}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
        with self._changed:
            done = self._changed.wait_for(
                lambda: all(self._ready) or self._startup_error is not None, READY_TIMEOUT_S)
            if self._startup_error is not None:
                raise InvalidInput(f"demo process failed to start: {self._startup_error}")
            if not done:
                raise InvalidInput(f"demo processes not ready after {READY_TIMEOUT_S:.0f} s; "
                                   "try fewer --workers or --no-warm")
            self._serving = True

    def _start(self, index: int) -> None:
        reader, writer = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(target=worker_main, name=f"amend-demo-{index}",
                                 args=(index, self.shared, self.options, self._events, reader))
        proc.start()
        reader.close()  # the child has its copy; the parent keeps only the writing end
        self._procs[index], self._lifelines[index] = proc, writer
        self._ready[index] = False

    def _consume_events(self) -> None:
        while True:
            kind, index, payload = self._events.get()
            if kind == "stop":
                return
            with self._changed:
                if kind == "ready":
                    self.upstreams.set_port(index, payload)
                    self._ready[index], self._failures[index] = True, 0
                    self._reasons[index] = None
                    if self._serving:
                        self.say(f"demo process {index} is back, on port {payload}")
                elif kind == "failed":
                    self._reasons[index] = payload
                self._changed.notify_all()

    def _watch(self) -> None:
        """Wait for any process to end; take it out of rotation and start it again."""
        while not self._stopping.is_set():
            live = {p.sentinel: i for i, p in enumerate(self._procs)
                    if p is not None and p.exitcode is None}
            ended = multiprocessing.connection.wait([*live, self._wake_r])
            if self._stopping.is_set():
                return
            for sentinel in ended:
                if sentinel in live:
                    self._ended(live[sentinel])

    def _ended(self, index: int) -> None:
        proc = self._procs[index]
        proc.join()
        code = proc.exitcode
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        with self._changed:
            self.upstreams.set_port(index, None)
            was_ready = self._ready[index]
            self._ready[index] = False
            reason = self._reasons[index] or how
            if not self._serving:
                self._startup_error = f"process {index}: {reason}"
                self._changed.notify_all()
                return
            if not was_ready:
                self._failures[index] += 1
            if self._failures[index] >= START_FAILURES:
                self.say(f"demo process {index} stopped before it was ready "
                         f"{START_FAILURES} times ({reason}); it stays stopped, the others "
                         "serve every browser")
                self._procs[index] = None
                return
        self.say(f"demo process {index} stopped ({how}); its browsers move to the others "
                 "while it starts again")
        self._close_lifeline(index)
        self._start(index)

    def _close_lifeline(self, index: int) -> None:
        writer, self._lifelines[index] = self._lifelines[index], None
        if writer is not None:
            writer.close()

    def stop(self) -> None:
        """Stop every process: close its lifeline (it shuts down gracefully), then SIGTERM and
        SIGKILL for one that does not."""
        self._stopping.set()
        self._wake_w.send(None)
        self._events.put(("stop", -1, None))
        for thread in self._threads:
            thread.join(STOP_GRACE_S)
        for index in range(self.count):
            self._close_lifeline(index)
        for proc in self._procs:
            if proc is None:
                continue
            proc.join(STOP_GRACE_S)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        self._events.close()
        self._events.join_thread()


def serve_workers(console, host: str, port: int, count: int, db: str | None,
                  options: Any) -> None:
    """Run ``count`` demo processes behind ``host:port`` until Ctrl-C (``amend demo
    --workers``). ``db``: the shared database (PostgreSQL URL or SQLite file), or None for
    temporary SQLite files."""
    import uvicorn
    from rich.markup import escape

    from ui.agents import serve_shared
    from ui.demo_build import WS_MAX_SIZE, quiet_shutdown_logs, url_of

    with contextlib.ExitStack() as stack:
        if db is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="amend-demo-"))
            sandbox_db, registry_db = f"{folder}/sandbox.db", f"{folder}/registry.db"
            where = "temporary SQLite files"
        else:
            sandbox_db = registry_db = db
            where = redact(db)
        with console.status("starting the shared sandbox and registry ..."):
            shared = stack.enter_context(serve_shared(sandbox_db, registry_db))
        console.print(f"shared sandbox: {shared.sandbox_url} (test mode), on {escape(where)}")
        supervisor = Supervisor(count, shared, options, say=console.print)
        stack.callback(supervisor.stop)
        with console.status(f"starting {count} demo processes ..."):
            supervisor.start()
        ports = ", ".join(f"{i}: {p}" for i, p in enumerate(supervisor.upstreams.ports))
        console.print(f"demo processes ready (loopback ports {ports})")
        console.print(f"[bold green]Amend demo:[/] {url_of(host, port)}  ({count} processes, "
                      "each browser kept on one; Ctrl-C stops it; "
                      f"{escape(options.settings.describe())})")
        quiet_shutdown_logs()
        uvicorn.run(AffinityProxy(supervisor.upstreams), host=host, port=port,
                    log_level="warning", lifespan="on", timeout_graceful_shutdown=3,
                    ws_max_size=WS_MAX_SIZE, ws_per_message_deflate=False,
                    server_header=False, date_header=False)  # the processes send their own
    console.print("stopped; every demo process has ended.")
