"""``amend bench --only sandbox``: idempotent creates per second and GET latency on loopback.

The server runs alone in a child process (``amend sandbox serve``) so the client's own Python
work does not share its GIL. Creates are sent by ``CONCURRENCY`` keep-alive connections per
worker process, with distinct keys; each is a full idempotent write (key claim, booking, event,
notification, key finish in one transaction, outbox delivery). GETs are sequential on one
connection, so p50/p99 are round-trip latencies.

``amend bench --only sandbox --db postgresql://...`` runs it on PostgreSQL twice, with 1 and
with 4 worker processes (the database is emptied of nothing: each run uses its own keys).
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

from agent.bench import BenchRow, median, option, percentile, register

CMD = "amend bench --only sandbox"


CONCURRENCY = 4
BODY = {"asset": "P-100", "date": "2026-12-03", "window": "morning", "site": "12 Harbour Road"}


async def _run(base_url: str, token: str, creates: int, gets: int, connections: int,
               prefix: str) -> tuple[float, list[float], float]:
    import httpx

    headers = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=connections)
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=10,
                                 limits=limits) as http:
        refs: list[str] = []

        async def worker(first: int) -> None:
            for i in range(first, creates, connections):
                response = await http.post("/v1/bookings", json=BODY,
                                           headers={"Idempotency-Key": f"{prefix}-{i}"})
                response.raise_for_status()
                refs.append(response.json()["ref"])

        start = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(connections)))
        rate = creates / (time.perf_counter() - start)
        ref = refs[-1]
        replay_start = time.perf_counter()
        for i in range(min(creates, 200)):
            (await http.post("/v1/bookings", headers={"Idempotency-Key": f"{prefix}-{i}"},
                             json=BODY)).raise_for_status()
        replay_ms = (time.perf_counter() - replay_start) * 1000 / min(creates, 200)
        samples = []
        for _ in range(gets):
            t0 = time.perf_counter_ns()
            (await http.get(f"/v1/bookings/{ref}")).raise_for_status()
            samples.append((time.perf_counter_ns() - t0) / 1e6)
    return rate, samples, replay_ms


@contextmanager
def _server_process(db: str | None = None, workers: int = 1):
    """``amend sandbox serve --test-mode`` in a child process; yields its URL and a token."""
    more = f", '--db', {db!r}, '--workers', '{workers}'" if db else ""
    code = ("import sys; from ui.cli import main; sys.argv = ['amend', 'sandbox', 'serve', "
            "'--port', '0', '--test-mode', '--caller', 'bench/bench/BENCH-1', "
            f"'--capacity', '1000000000'{more}]; main()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None  # stdout=PIPE
    try:
        first, second = proc.stdout.readline().split(), proc.stdout.readline().split()
        if len(first) < 4 or not second:
            raise RuntimeError("the sandbox server process did not start; run "
                               "`amend sandbox serve --test-mode` to see why")
        url, token = first[3], second[-1]
        yield url, token
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@register("sandbox")
def sandbox_bench(quick: bool):
    creates, gets = (300, 300) if quick else (2000, 2000)
    db = option("db")
    if db is None:
        return _rows(None, 1, creates, gets)
    return _rows(db, 1, creates, gets) + _rows(db, 4, creates * 2, gets)


def _rows(db: str | None, workers: int, creates: int, gets: int) -> list[BenchRow]:
    backend = "PostgreSQL" if db else "SQLite"
    command = f"{CMD} --db postgresql://..." if db else CMD
    connections = CONCURRENCY * workers
    with _server_process(db, workers) as (base_url, token):
        rate, samples, replay_ms = asyncio.run(
            _run(base_url, token, creates, gets, connections, f"bench-{workers}-{time.time()}"))
    where = f"{backend}, {workers} worker{'s' if workers > 1 else ''}"
    return [
        BenchRow(f"idempotent creates per second ({where}, {connections} connections)", rate,
                 "req/s", "≥ 500", command),
        BenchRow(f"replayed create (same key) mean ({where})", replay_ms, "ms", "≤ 2 ms",
                 command),
        BenchRow(f"GET booking p50 ({where})", median(samples), "ms", "≤ 2 ms", command),
        BenchRow(f"GET booking p99 ({where})", percentile(samples, 99), "ms", "≤ 10 ms",
                 command),
    ]
