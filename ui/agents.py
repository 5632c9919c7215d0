"""``amend call --agents N --db postgresql://...``: one batch of calls in N agent processes.

The processes share one system of record and one registry, as a team's agents would (issue
17). The parent process serves the sandbox on the PostgreSQL database (one uvicorn process:
fault rules and holds stay coherent) and imports the demo registry into the same database.
Then it starts N agent processes. Each takes its share of the scripts and runs them, a few
at a time, each call whole in one process (affinity per call). A call's world is a tenant of
its own in the shared sandbox, with its own faults (``ui.bootstrap.SharedSystems``), so
concurrent calls never see each other's bookings or faults.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import queue
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ui.bootstrap import SharedSystems

SHARED_CAPACITY = 10**6  # every call books the same few days; capacity is not what is tested


def check_database(db: str) -> None:
    """Refuse a ``--db`` that is not a reachable PostgreSQL URL, in one line (``amend bench``,
    ``amend demo``), before anything is started or written."""
    import click

    if not db.startswith(("postgresql://", "postgres://")):
        raise click.BadParameter(f"{db!r} is not a PostgreSQL URL; give "
                                 "postgresql://user@host:port/database", param_hint="--db")
    import psycopg

    from agent.core.db_url import redact

    try:
        psycopg.connect(db, connect_timeout=10).close()
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.BadParameter(f"cannot connect to {redact(db)}: {first}; check that the "
                                 "server runs and the URL is right", param_hint="--db") from None


@contextlib.contextmanager
def serve_shared(db: str, registry_db: str | None = None) -> Iterator[SharedSystems]:
    """The systems agent processes share: the demo registry imported into ``registry_db``
    (default: ``db``) and the sandbox served from ``db`` in this process, in test mode (one
    uvicorn process: fault rules and holds stay coherent). Stopped on exit."""
    from registry.demo import demo_files
    from registry.store import import_path
    from tools_sandbox.server import serve_in_background
    from tools_sandbox.service import SandboxConfig
    from ui.bootstrap import SharedSystems

    registry_db = registry_db or db
    for file in demo_files():
        import_path(registry_db, file)
    config = SandboxConfig(testing=True, default_capacity=SHARED_CAPACITY)
    with serve_in_background(db, config=config) as sandbox:
        yield SharedSystems(sandbox.base_url, registry_db)


def run_on_agents(paths: list[str], mode: str, *, agents: int, concurrency: int, db: str,
                  artifacts: Path | None, settings: Any, verify_heard: bool,
                  on_done: Callable[[], None], agent_main: Callable[..., None]
                  ) -> tuple[list, list[str], dict | None]:
    """Run ``paths`` on ``agents`` processes; returns (results in the given order, skipped
    notes, the speech models' description of the first call that ran).

    ``agent_main(n, paths, mode, concurrency, shared, artifacts, settings, verify_heard,
    events)`` is what each process runs (``ui.call_cli.agent_main``, a module-level function
    so that a spawned process can import it); it puts ``("call", n, None)`` on ``events``
    after each call and ``("results", n, (results, skipped, meta))`` at the end."""
    with serve_shared(db) as shared:
        ctx = multiprocessing.get_context("spawn")
        events: Any = ctx.Queue()
        shares = [share for share in (paths[i::agents] for i in range(agents)) if share]
        per_agent = max(1, math.ceil(concurrency / agents))
        procs = [ctx.Process(target=agent_main, name=f"amend-agent-{n}", daemon=True,
                             args=(n, share, mode, per_agent, shared, artifacts, settings,
                                   verify_heard, events))
                 for n, share in enumerate(shares)]
        for proc in procs:
            proc.start()
        outcomes: dict[int, tuple] = {}
        try:
            while len(outcomes) < len(procs):
                try:
                    kind, n, payload = events.get(timeout=1.0)
                except queue.Empty:
                    dead = [p.name for i, p in enumerate(procs)
                            if i not in outcomes and not p.is_alive()]
                    if dead:
                        raise RuntimeError(f"agent process {dead[0]} stopped before it "
                                           "reported its calls; run the batch without "
                                           "--agents to see why") from None
                    continue
                if kind == "call":
                    on_done()
                else:
                    outcomes[n] = payload
        finally:
            for proc in procs:
                proc.join(timeout=30)
                if proc.is_alive():
                    proc.kill()
    merged: dict[int, Any] = {}
    skipped: list[str] = []
    meta = None
    for n in range(len(shares)):
        results, notes, described = outcomes[n]
        results_iter = iter(results)
        skipped += notes
        meta = meta or described
        skipped_paths = {note.split(":", 1)[0] for note in notes}
        for index in range(n, len(paths), agents):  # the indexes this share was cut from
            if paths[index] not in skipped_paths:
                merged[index] = next(results_iter)
    return [merged[i] for i in sorted(merged)], skipped, meta
