"""Across processes (issue 17): `amend sandbox serve --db postgresql://... --workers 4`.

Idempotency keys, conditional writes and the claim of a key must hold between uvicorn worker
processes, which share nothing but the database, and survive a worker killed mid-request.
The Jepsen-style checker (tools_sandbox/history.py) judges each run from the recorded history
and the record itself (bookings and their write log, read straight from PostgreSQL).
"""

from __future__ import annotations

import asyncio
import http.client
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import httpx
import psutil
import psycopg
import pytest
from psycopg.rows import dict_row
from test_sandbox_history import logical_request

from tools_sandbox.client import SandboxClient
from tools_sandbox.history import History, Phase, check

pytestmark = pytest.mark.slow

WORKERS = 4
BODY = {"asset": "P-100", "date": "2026-12-03", "window": "morning", "site": "12 Harbour Road"}
START = ("import sys; from ui.cli import main; sys.argv = ['amend', 'sandbox', 'serve', "
         "'--port', '0', '--test-mode', '--caller', 'acme/tech-17/ACME-001', "
         "'--capacity', '1000000', '--workers', '{workers}', '--db', '{db}'{more}]; main()")


class Workers:
    """A running `amend sandbox serve --workers N` and a direct connection to its database."""

    def __init__(self, dsn: str, workers: int = WORKERS, faults: tuple[str, ...] = ()):
        self.dsn = dsn
        more = "".join(f", '--fault', {f!r}" for f in faults)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", START.format(workers=workers, db=dsn, more=more)],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        first, second = self.proc.stdout.readline().split(), self.proc.stdout.readline().split()
        assert len(first) > 3 and second, "the sandbox did not start"
        self.url, self.token = first[3], second[-1]
        self.db = psycopg.connect(dsn, autocommit=True, row_factory=dict_row)
        self._wait_for_workers(workers)

    def _wait_for_workers(self, n: int) -> None:
        """Until n worker processes hold their database connection (each one's advisory lock)."""
        deadline = time.monotonic() + 60
        while len(self.worker_backends()) < n:
            assert time.monotonic() < deadline, "the workers did not connect in 60 s"
            time.sleep(0.05)  # polling a condition, not timing a race

    def worker_backends(self) -> list[dict]:
        """The workers' database sessions: those holding a session advisory lock."""
        return self.db.execute(
            "SELECT a.pid, a.client_port, a.wait_event_type FROM pg_stat_activity a JOIN "
            "pg_locks l ON l.pid = a.pid WHERE l.locktype = 'advisory' AND l.objsubid = 1 "
            "AND l.granted").fetchall()

    def process_of(self, client_port: int) -> psutil.Process:
        """The worker process whose database connection comes from this local port."""
        for child in psutil.Process(self.proc.pid).children(recursive=True):
            for conn in child.net_connections(kind="tcp"):
                if conn.laddr and conn.laddr.port == client_port:
                    return child
        raise AssertionError(f"no worker holds the connection from port {client_port}")

    def server_side_of(self, client_port: int) -> psutil.Process:
        """The worker process that accepted the TCP connection from this local port (a
        connection still in the listen queue belongs to no process yet: wait for it)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                for conn in child.net_connections(kind="tcp"):
                    if conn.raddr and conn.raddr.port == client_port:
                        return child
            time.sleep(0.01)  # polling a condition, not timing a race
        raise AssertionError(f"no worker accepted the connection from port {client_port}")

    def holder_of(self, key: str) -> psutil.Process:
        """The worker process holding the PENDING request ``key`` (its owner's session)."""
        row = self.db.execute(
            "SELECT a.client_port FROM requests r JOIN pg_locks l ON l.locktype = 'advisory' "
            "AND l.objsubid = 1 AND (l.classid::bigint << 32) | l.objid::bigint = r.owner "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE r.key = %s AND "
            "r.status = 'PENDING'", (key,)).fetchone()
        assert row is not None, f"no worker holds {key!r}"
        return self.process_of(row["client_port"])

    def record(self) -> tuple[list[dict], list[dict]]:
        return (self.db.execute("SELECT * FROM bookings ORDER BY created_at, ref").fetchall(),
                self.db.execute("SELECT * FROM booking_events ORDER BY id").fetchall())

    def stop(self) -> None:
        self.db.close()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            for child in psutil.Process(self.proc.pid).children(recursive=True):
                child.kill()
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def workers(pg_cluster):
    server = Workers(pg_cluster.new_database("workers"))
    try:
        yield server
    finally:
        server.stop()


def test_fifty_clients_with_the_same_keys_on_four_workers_make_one_booking_per_key(workers):
    keys = [f"same-{i}" for i in range(10)]

    async def client(n: int, http: httpx.AsyncClient) -> list[tuple[str, int, str]]:
        seen = []
        for key in keys[n % 10:] + keys[:n % 10]:  # each client walks the keys from its own
            while True:
                r = await http.post("/v1/bookings", json=BODY, headers={"Idempotency-Key": key})
                if r.status_code == 409 and r.json()["error"]["code"] == "request_in_flight":
                    continue  # the key is running in another process: ask again
                assert r.status_code == 201, r.text
                seen.append((key, r.status_code, r.json()["ref"]))
                break
        return seen

    async def main() -> list[tuple[str, int, str]]:
        async with httpx.AsyncClient(
                base_url=workers.url, timeout=30,
                headers={"Authorization": f"Bearer {workers.token}"},
                limits=httpx.Limits(max_connections=50)) as http:
            results = await asyncio.gather(*(client(n, http) for n in range(50)))
        return [r for rs in results for r in rs]

    answers = asyncio.run(main())
    assert len(answers) == 500
    refs_of = {key: {ref for k, _, ref in answers if k == key} for key in keys}
    assert all(len(refs) == 1 for refs in refs_of.values()), refs_of
    bookings, events = workers.record()
    assert Counter(b["created_key"] for b in bookings) == Counter({k: 1 for k in keys})
    assert {b["ref"] for b in bookings} == {r for refs in refs_of.values() for r in refs}
    assert [e["op"] for e in events] == ["create"] * 10
    pids = {b["pid"] for b in workers.worker_backends()}
    assert len(pids) == WORKERS  # the four processes were all there throughout


def test_a_worker_killed_mid_request_loses_nothing_committed_and_a_retry_makes_no_duplicate(
        workers):
    history = History()

    async def run(requests: list[str], pid0: int) -> None:
        clients = [SandboxClient(workers.url, workers.token, timeout=30) for _ in requests]
        try:
            await asyncio.gather(*(logical_request(
                history, pid0 + i, "create", request,
                lambda key, c=c: c.create(key, 1, dict(BODY)), c)
                for i, (request, c) in enumerate(zip(requests, clients, strict=True))))
        finally:
            for c in clients:
                await c.aclose()

    # Committed and acknowledged before anything goes wrong.
    asyncio.run(run([f"before-{i}" for i in range(12)], 0))
    committed = {b["ref"] for b in workers.record()[0]}
    assert len(committed) == 12

    async def kill_one_mid_transaction() -> int:
        lock = await psycopg.AsyncConnection.connect(workers.dsn)
        await lock.execute("BEGIN")
        await lock.execute("LOCK TABLE bookings IN ACCESS EXCLUSIVE MODE")
        flight = asyncio.create_task(run([f"during-{i}" for i in range(8)], 100))
        deadline = time.monotonic() + 30
        while not (waiting := [b for b in workers.worker_backends()
                               if b["wait_event_type"] == "Lock"]):
            assert time.monotonic() < deadline, "no worker reached the bookings table"
            await asyncio.sleep(0.02)  # polling a condition, not timing a race
        victim = workers.process_of(waiting[0]["client_port"])
        os.kill(victim.pid, signal.SIGKILL)  # inside its transaction, its key claimed
        victim.wait(10)
        await lock.execute("ROLLBACK")
        await lock.close()
        await flight
        return victim.pid

    killed = asyncio.run(kill_one_mid_transaction())
    # The killed worker's caller saw its connection drop: an unknown outcome, retried by key.
    assert any(e.phase is Phase.INFO for e in history.events), history.events
    bookings, events = workers.record()
    anomalies = check(history.events, bookings, events)
    assert not anomalies, anomalies
    refs = {b["ref"] for b in bookings}
    assert committed <= refs  # nothing committed before the kill was lost
    made = Counter(b["created_key"].split(":")[0] for b in bookings)
    assert all(made[f"during-{i}"] == 1 for i in range(8)), made  # each retried once, no dupes
    assert killed not in {p.pid for p in psutil.Process(workers.proc.pid).children(True)}
    # The killed worker's claim was released: no key is left PENDING for ever.
    pending = workers.db.execute("SELECT key FROM requests WHERE status = 'PENDING'").fetchall()
    assert pending == []


def test_workers_need_postgresql_and_a_bad_url_is_one_line(tmp_path):
    from click.testing import CliRunner

    from ui.cli import main

    sqlite = CliRunner().invoke(main, ["sandbox", "serve", "--workers", "2", "--db",
                                       str(tmp_path / "s.db")])
    assert sqlite.exit_code == 2 and "needs --db postgresql://" in sqlite.output
    unreachable = CliRunner().invoke(main, ["sandbox", "serve", "--workers", "2", "--db",
                                            "postgresql://amend:secret@127.0.0.1:1/nowhere"])
    assert unreachable.exit_code == 2, unreachable.output
    assert "cannot connect to the PostgreSQL database postgresql://amend@127.0.0.1:1/nowhere" \
        in unreachable.output and "secret" not in unreachable.output


def test_a_last_place_raced_for_by_fifty_clients_on_four_workers_is_booked_once(workers):
    """Capacity is a read-then-write across rows: only a serializable transaction (re-run on a
    conflict) keeps four processes from all seeing one free place.

    The race is forced, not hoped for: the test locks the notifications table, which a create
    writes last, so a worker's transaction stops there having counted the slot and inserted its
    booking. A worker stopped there accepts no connection, so the next client's connection goes
    to another worker; once all four are stopped, the other clients join the queue and the
    lock is let go."""
    workers.db.execute("INSERT INTO slots (date, \"window\", capacity) VALUES (%s, %s, 1)",
                       (BODY["date"], BODY["window"]))
    headers = {"Authorization": f"Bearer {workers.token}"}

    async def post(n: int) -> int:
        async with httpx.AsyncClient(base_url=workers.url, timeout=30, headers=headers) as http:
            r = await http.post("/v1/bookings", json=BODY,
                                headers={"Idempotency-Key": f"last-{n}"})
            return r.status_code

    async def stopped(n: int) -> None:
        deadline = time.monotonic() + 30
        while sum(b["wait_event_type"] == "Lock" for b in workers.worker_backends()) < n:
            assert time.monotonic() < deadline, f"fewer than {n} workers reached the lock"
            await asyncio.sleep(0.02)  # polling a condition, not timing a race

    async def main() -> list[int]:
        lock = await psycopg.AsyncConnection.connect(workers.dsn)
        await lock.execute("BEGIN")
        await lock.execute("LOCK TABLE notifications IN ACCESS EXCLUSIVE MODE")
        replies = []
        for n in range(WORKERS):
            replies.append(asyncio.create_task(post(n)))
            await stopped(n + 1)
        replies += [asyncio.create_task(post(n)) for n in range(WORKERS, 50)]
        await lock.execute("ROLLBACK")
        await lock.close()
        return list(await asyncio.gather(*replies))

    statuses = asyncio.run(main())
    assert Counter(statuses) == Counter({201: 1, 409: 49}), Counter(statuses)
    bookings, _ = workers.record()
    assert len(bookings) == 1


def test_a_cancel_that_reaches_another_worker_wakes_the_held_request(pg_cluster):
    """Every worker holds its first create for two minutes. The cancel is sent over a
    connection that another worker accepted, and the held request still ends CANCELLED at
    once, with nothing written: the cancel is announced to the other workers (PostgreSQL
    NOTIFY), not only in its own process."""
    server = Workers(pg_cluster.new_database("cancel"),
                     faults=('{"op": "create_booking", "delay_ms": 120000, "nth": 1}',))
    headers = {"Authorization": f"Bearer {server.token}"}
    host, port = server.url.removeprefix("http://").split(":")
    try:
        async def main() -> tuple[int, dict, int]:
            async with httpx.AsyncClient(base_url=server.url, timeout=30,
                                         headers=headers) as held_client:
                held = asyncio.create_task(held_client.post(
                    "/v1/bookings", json=BODY, headers={"Idempotency-Key": "held"}))
                deadline = time.monotonic() + 30
                while not server.db.execute("SELECT 1 FROM requests WHERE key = 'held' AND "
                                            "status = 'PENDING'").fetchone():
                    assert time.monotonic() < deadline, "the create never started"
                    await asyncio.sleep(0.02)  # polling a condition, not timing a race
                cancel_status = await asyncio.to_thread(cancel_from_another_worker)
                reply = await held
            return reply.status_code, reply.json(), cancel_status

        def cancel_from_another_worker() -> int:
            holder = server.holder_of("held")
            for _ in range(40):  # the kernel hands each connection to some worker
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                conn.connect()
                if server.server_side_of(conn.sock.getsockname()[1]).pid != holder.pid:
                    conn.request("POST", "/v1/requests/held/cancel", headers=headers)
                    status = conn.getresponse().status
                    conn.close()
                    return status
                conn.close()
            raise AssertionError("every connection went to the holding worker")

        status, body, cancel_status = asyncio.run(main())
        assert cancel_status == 200
        assert status == 409 and body["error"]["code"] == "request_cancelled", body
        assert server.record()[0] == []
    finally:
        server.stop()


def test_an_announced_cancel_reaches_every_other_process_listening(pg_dsn):
    from tools_sandbox.store import PostgresStore

    heard: list[tuple[str, str, str]] = []
    arrived = threading.Event()
    listener, announcer = PostgresStore(pg_dsn), PostgresStore(pg_dsn)
    try:
        listener.listen_for_cancels(lambda scope: (heard.append(scope), arrived.set()))
        announcer.announce_cancel(("acme", "ACME-001", "k1"))
        assert arrived.wait(10)
        assert heard == [("acme", "ACME-001", "k1")]
    finally:
        listener.close()
        announcer.close()
