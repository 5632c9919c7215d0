"""The sandbox's store: schema, one connection, and small typed reads and writes.

This is the only module that touches the database. Two backends share every query:

- :class:`SQLiteStore` (the default, embedded): one SQLite file in WAL mode, schema created with
  sqlite-utils. One process writes; its event loop never interleaves two transactions.
- :class:`PostgresStore` (``postgresql://...``, psycopg 3): many worker processes share one
  database, so every guarantee is the database's: transactions are SERIALIZABLE and re-run on a
  serialization failure, an idempotency key is claimed with ``INSERT ... ON CONFLICT DO
  NOTHING``, and a request left PENDING by a worker that died is released by checking the
  worker's session advisory lock, not by anything in memory.

The queries are written once, with ``?`` placeholders and portable SQL (``ON CONFLICT``,
``RETURNING``, ``"window"`` quoted because it is a reserved word in PostgreSQL).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import sqlite_utils

from agent.core.db_url import redact
from agent.core.errors import InvalidInput

BOOKING_COLUMNS = ("ref", "account", "asset", "date", "window", "time", "units", "site",
                   "contact", "status", "version")
TABLES = ("tokens", "slots", "bookings", "booking_events", "requests", "notifications",
          "handoffs")
T = TypeVar("T")
ORPHAN_BODY = {"error": {"code": "worker_stopped", "message": "the server process handling this "
                         "request stopped before it committed; nothing was written, retry with "
                         "the same key"}}


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def is_postgres(db: str | None) -> bool:
    return bool(db) and str(db).startswith(("postgresql://", "postgres://"))


def open_store(db: str) -> Store:
    """A store over ``db``: a ``postgresql://`` URL, or else a SQLite file path."""
    return PostgresStore(db) if is_postgres(db) else SQLiteStore(db)


def _create_schema(db: sqlite_utils.Database) -> None:
    """Create every table if missing (side effect: DDL on ``db``)."""
    # db.table(name) is a Table; db[name] could also be a View, which has no create().
    db.table("tokens").create({"token": str, "tenant": str, "subject": str, "account": str,
                               "role": str, "created_at": str}, pk="token", if_not_exists=True)
    db.table("slots").create({"date": str, "window": str, "capacity": int},
                             pk=("date", "window"), if_not_exists=True)
    db.table("bookings").create({
        "ref": str, "tenant": str, "account": str, "asset": str, "date": str, "window": str,
        "time": str, "units": int, "site": str, "contact": str, "status": str, "version": int,
        "created_key": str, "revision": int, "created_at": str, "updated_at": str,
    }, pk=("tenant", "ref"),
        not_null={"tenant", "account", "asset", "date", "window", "status", "version"},
        if_not_exists=True)
    db.table("bookings").create_index(["tenant", "account"], if_not_exists=True)
    db.table("bookings").create_index(["date", "window", "status"], if_not_exists=True)
    # Every version a booking ever had, with who wrote it and the version it was built on:
    # the history checker's evidence for "no stale commit".
    db.table("booking_events").create({
        "id": int, "ref": str, "version": int, "op": str, "actor": str, "key": str,
        "expected_version": int, "prior_version": int, "revision": int, "at": str,
        "tenant": str,
    }, pk="id", if_not_exists=True)
    db.table("requests").create({
        "tenant": str, "account": str, "key": str, "op": str, "fingerprint": str,
        "status": str, "cancel_requested": int, "retryable": int, "revision": int,
        "booking_ref": str, "response_status": int, "response_body": str,
        "created_at": str, "updated_at": str, "created_ts": float, "owner": int,
    }, pk=("tenant", "account", "key"), if_not_exists=True)
    db.table("notifications").create({
        "id": int, "tenant": str, "account": str, "booking_ref": str, "booking_version": int,
        "kind": str, "contact": str, "dedupe_key": str, "body": str, "status": str,
        "attempts": int, "deliveries": int, "created_at": str, "delivered_at": str,
        "owner": int,
    }, pk="id", if_not_exists=True)
    # A booking's reference is unique within its tenant (each company numbers its own), so
    # the outbox's dedupe key is too.
    db.table("notifications").create_index(["tenant", "dedupe_key"], unique=True,
                                           if_not_exists=True)
    for table, column in (("requests", "owner"), ("notifications", "owner"),
                          ("booking_events", "tenant")):  # a file from an earlier version
        if column not in db.table(table).columns_dict:
            db.table(table).add_column(column, int if column == "owner" else str)
    db.table("handoffs").create({
        "id": str, "tenant": str, "account": str, "status": str, "version": int,
        "state": str, "resolution": str, "created_at": str, "updated_at": str,
    }, pk="id", if_not_exists=True)


# The same tables on PostgreSQL. Text dates and times keep the JSON contract identical.
PG_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (token text PRIMARY KEY, tenant text, subject text,
    account text, role text, created_at text);
CREATE TABLE IF NOT EXISTS slots (date text, "window" text, capacity integer,
    PRIMARY KEY (date, "window"));
CREATE TABLE IF NOT EXISTS bookings (ref text NOT NULL, tenant text NOT NULL,
    account text NOT NULL, asset text NOT NULL, date text NOT NULL, "window" text NOT NULL,
    time text, units integer, site text, contact text, status text NOT NULL,
    version integer NOT NULL, created_key text, revision bigint, created_at text,
    updated_at text, PRIMARY KEY (tenant, ref));
CREATE INDEX IF NOT EXISTS bookings_tenant_account ON bookings (tenant, account);
CREATE INDEX IF NOT EXISTS bookings_slot ON bookings (date, "window", status);
CREATE TABLE IF NOT EXISTS booking_events (id bigserial PRIMARY KEY, ref text, version integer,
    op text, actor text, key text, expected_version integer, prior_version integer,
    revision bigint, at text, tenant text);
CREATE TABLE IF NOT EXISTS requests (tenant text, account text, key text, op text,
    fingerprint text, status text, cancel_requested integer, retryable integer,
    revision bigint, booking_ref text, response_status integer, response_body text,
    created_at text, updated_at text, created_ts double precision, owner bigint,
    PRIMARY KEY (tenant, account, key));
CREATE TABLE IF NOT EXISTS notifications (id bigserial PRIMARY KEY, tenant text, account text,
    booking_ref text, booking_version integer, kind text, contact text, dedupe_key text,
    body text, status text, attempts integer, deliveries integer, created_at text,
    delivered_at text, owner bigint, UNIQUE (tenant, dedupe_key));
CREATE TABLE IF NOT EXISTS handoffs (id text PRIMARY KEY, tenant text, account text,
    status text, version integer, state text, resolution text, created_at text,
    updated_at text);
"""


class Store:
    """The queries the service needs, over one connection (see the subclasses).

    Not thread-safe by design: every call happens on the server's event loop thread, and a
    transaction body (:meth:`atomically`) never awaits, so two requests never share one.
    """

    path: str
    owner: int  # this process's identity on the PENDING requests and queued notifications

    def execute(self, sql: str, *params: Any) -> Any:
        """Run one statement; returns a cursor (``rowcount``, ``fetchone``)."""
        raise NotImplementedError

    def atomically(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in one transaction: all of its writes or none (re-run on a conflict)."""
        raise NotImplementedError

    def owners_alive(self, owners: set[int]) -> set[int]:
        """Which of these process identities still hold their requests."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def announce_cancel(self, scope: tuple[str, str, str]) -> None:
        """Tell the other processes that ``scope``'s request should cancel (one process:
        nobody else to tell)."""

    def listen_for_cancels(self, on_cancel: Callable[[tuple[str, str, str]], None]) -> None:
        """Call ``on_cancel(scope)`` (from another thread) when another process announces a
        cancel. One process: nothing to listen for."""

    def one(self, sql: str, *params: Any) -> dict | None:
        row = self.execute(sql, *params).fetchone()
        return dict(row) if row is not None else None

    def all(self, sql: str, *params: Any) -> list[dict]:
        return [dict(r) for r in self.execute(sql, *params).fetchall()]

    def insert(self, table: str, row: dict) -> None:
        cols = ", ".join(f'"{k}"' for k in row)
        self.execute(f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' * len(row))})",
                     *row.values())

    def reset(self) -> None:
        """Delete every row of every table (side effect: the whole sandbox is emptied)."""
        def wipe() -> None:
            for table in TABLES:
                self.execute(f"DELETE FROM {table}")
        self.atomically(wipe)

    # ------------------------------------------------------------------ tokens and slots

    def add_token(self, token: str, tenant: str, subject: str, account: str, role: str) -> None:
        self.execute("INSERT INTO tokens (token, tenant, subject, account, role, created_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)", token, tenant, subject, account, role,
                     now_iso())

    def mint_token(self, tenant: str, subject: str, account: str, role: str = "caller") -> str:
        token = secrets.token_urlsafe(18)
        self.add_token(token, tenant, subject, account, role)
        return token

    def set_capacity(self, date: str, window: str, capacity: int) -> None:
        self.execute('INSERT INTO slots (date, "window", capacity) VALUES (?, ?, ?) '
                     'ON CONFLICT (date, "window") DO UPDATE SET capacity = excluded.capacity',
                     date, window, capacity)

    # ------------------------------------------------------------------ bookings

    def booking(self, tenant: str, ref: str) -> dict | None:
        return self.one("SELECT * FROM bookings WHERE tenant = ? AND ref = ?", tenant, ref)

    def bookings_of(self, tenant: str, account: str) -> list[dict]:
        return self.all("SELECT * FROM bookings WHERE tenant = ? AND account = ? "
                        "ORDER BY created_at, ref", tenant, account)

    def all_bookings(self, tenant: str | None = None, ref: str | None = None) -> list[dict]:
        """Every booking, or one tenant's, or those with one reference (one per tenant)."""
        where = [(column, value) for column, value in (("tenant", tenant), ("ref", ref))
                 if value is not None]
        clause = " AND ".join(f"{column} = ?" for column, _ in where)
        return self.all("SELECT * FROM bookings " + (f"WHERE {clause} " if where else "")
                        + "ORDER BY created_at, ref", *(value for _, value in where))

    def booked(self, date: str, window: str,
               excluding: tuple[str, str] | None = None) -> int:
        """Confirmed bookings in the slot, leaving out ``excluding`` (its tenant and ref)."""
        tenant, ref = excluding or ("", "")
        row = self.one('SELECT COUNT(*) AS n FROM bookings WHERE date = ? AND "window" = ? '
                       "AND status = 'confirmed' AND NOT (tenant = ? AND ref = ?)", date,
                       window, tenant, ref)
        return row["n"] if row else 0

    def capacity(self, date: str, window: str, default: int) -> int:
        row = self.one('SELECT capacity FROM slots WHERE date = ? AND "window" = ?', date,
                       window)
        return row["capacity"] if row else default

    def insert_booking(self, row: dict) -> None:
        self.insert("bookings", row)

    def update_booking(self, tenant: str, ref: str, prior_version: int, changes: dict) -> bool:
        """Conditional write: applies only if the row is still at ``prior_version``."""
        sets = ", ".join(f'"{k}" = ?' for k in changes)
        cur = self.execute(f"UPDATE bookings SET {sets}, version = version + 1, updated_at = ? "
                           "WHERE tenant = ? AND ref = ? AND version = ?",
                           *changes.values(), now_iso(), tenant, ref, prior_version)
        return cur.rowcount == 1

    def record_event(self, tenant: str, ref: str, version: int, op: str, actor: str,
                     key: str | None, expected: int | None, prior: int | None,
                     revision: int | None) -> None:
        self.execute(
            "INSERT INTO booking_events (tenant, ref, version, op, actor, key, expected_version,"
            " prior_version, revision, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            tenant, ref, version, op, actor, key, expected, prior, revision, now_iso())

    def events(self) -> list[dict]:
        return self.all("SELECT * FROM booking_events ORDER BY id")

    # ------------------------------------------------------------------ requests

    def request(self, tenant: str, account: str, key: str) -> dict | None:
        return self.one("SELECT * FROM requests WHERE tenant = ? AND account = ? AND key = ?",
                        tenant, account, key)

    def request_now(self, tenant: str, account: str, key: str) -> dict | None:
        """The key's record, with a PENDING row of a process that died shown as it is now
        treated: failed before commit, retryable (it wrote nothing)."""
        row = self.request(tenant, account, key)
        if row is not None and row["status"] == "PENDING" and row["owner"] != self.owner \
                and self.release_orphans():
            row = self.request(tenant, account, key)
        return row

    def all_requests(self) -> list[dict]:
        return self.all("SELECT * FROM requests ORDER BY created_ts")

    def claim_request(self, row: dict) -> dict | None:
        """Claim ``row``'s key for this process; None when claimed, else the row in the way.

        Atomic in the database, so two processes with one key never both run it: a new key is
        an ``INSERT ... ON CONFLICT DO NOTHING``; a key whose earlier run failed before commit
        (FAILED, retryable, same request) is taken back with a conditional UPDATE. A PENDING
        row of a process that died is released first (:meth:`release_orphans`).
        """
        scope = (row["tenant"], row["account"], row["key"])
        cols = ", ".join(f'"{k}"' for k in row)
        for _ in range(8):
            cur = self.execute(f"INSERT INTO requests ({cols}) VALUES "
                               f"({', '.join('?' * len(row))}) "
                               "ON CONFLICT (tenant, account, key) DO NOTHING", *row.values())
            if cur.rowcount == 1:
                return None
            existing = self.request(*scope)
            if existing is None:
                continue  # purged in between: insert again
            same = existing["fingerprint"] == row["fingerprint"] and existing["op"] == row["op"]
            if same and existing["status"] == "FAILED" and existing["retryable"]:
                cur = self.execute(
                    "UPDATE requests SET status = 'PENDING', cancel_requested = 0, "
                    "retryable = 0, revision = ?, response_status = NULL, "
                    "response_body = NULL, updated_at = ?, owner = ? WHERE tenant = ? AND "
                    "account = ? AND key = ? AND status = 'FAILED' AND retryable = 1",
                    row["revision"], row["updated_at"], self.owner, *scope)
                if cur.rowcount == 1:
                    return None
                continue  # another process took it back first: look again
            if existing["status"] == "PENDING" and existing["owner"] != self.owner \
                    and self.release_orphans():
                continue
            return existing
        raise RuntimeError(f"idempotency key {scope[2]!r} kept changing under this request")

    def release_orphans(self) -> int:
        """Fail (retryable) every PENDING request whose process is gone. Returns how many.

        Commit and SUCCEEDED are one transaction, so a PENDING row of a dead process wrote
        nothing, and the same key may safely run again.
        """
        owners = {r["owner"] for r in self.all(
            "SELECT DISTINCT owner FROM requests WHERE status = 'PENDING'")}
        dead = owners - self.owners_alive(owners)
        released = 0
        for owner in dead:
            released += self.execute(
                "UPDATE requests SET status = 'FAILED', retryable = 1, response_status = 503, "
                "response_body = ?, updated_at = ? WHERE status = 'PENDING' AND "
                + ("owner IS NULL" if owner is None else "owner = ?"),
                json.dumps(ORPHAN_BODY), now_iso(), *(() if owner is None else (owner,))
            ).rowcount
        return released

    def finish_request(self, tenant: str, account: str, key: str, status: str, *,
                       response_status: int, body: dict, booking_ref: str | None = None,
                       retryable: bool = False) -> None:
        self.execute(
            "UPDATE requests SET status = ?, response_status = ?, response_body = ?, "
            "booking_ref = COALESCE(?, booking_ref), retryable = ?, updated_at = ? "
            "WHERE tenant = ? AND account = ? AND key = ?",
            status, response_status, json.dumps(body), booking_ref, int(retryable), now_iso(),
            tenant, account, key)

    def mark_cancel_requested(self, tenant: str, account: str, key: str) -> None:
        self.execute("UPDATE requests SET cancel_requested = 1, updated_at = ? "
                     "WHERE tenant = ? AND account = ? AND key = ?",
                     now_iso(), tenant, account, key)

    def purge_requests(self, older_than_ts: float) -> None:
        """Forget finished keys past retention. PENDING rows are kept: work is in flight."""
        self.execute("DELETE FROM requests WHERE created_ts < ? AND status != 'PENDING'",
                     older_than_ts)

    # ------------------------------------------------------------------ notifications

    def add_notification(self, booking: dict, kind: str, body: str) -> int:
        row = self.execute(
            "INSERT INTO notifications (tenant, account, booking_ref, booking_version, kind, "
            "contact, dedupe_key, body, status, attempts, deliveries, created_at, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, 0, ?, ?) RETURNING id",
            booking["tenant"], booking["account"], booking["ref"], booking["version"], kind,
            booking["contact"], f"{booking['ref']}:v{booking['version']}:{kind}", body,
            now_iso(), self.owner).fetchone()
        return int(row["id"])

    def adopt_orphan_notifications(self) -> list[int]:
        """Take over the queued notifications of processes that are gone; returns their ids.

        A notification is written in the same transaction as its booking change, and the
        process that wrote it delivers it. If that process died first, the message would stay
        queued for ever: the outbox would lose it. Each id is taken with a conditional UPDATE,
        so two processes starting at once never both deliver it.
        """
        rows = self.all("SELECT id, owner FROM notifications WHERE status = 'queued' "
                        "ORDER BY id")
        owners = {r["owner"] for r in rows} - {self.owner}
        dead = owners - self.owners_alive(owners)
        adopted = []
        for r in rows:
            if r["owner"] in dead and self.execute(
                    "UPDATE notifications SET owner = ? WHERE id = ? AND status = 'queued' AND "
                    + ("owner IS NULL" if r["owner"] is None else "owner = ?"),
                    self.owner, r["id"], *(() if r["owner"] is None else (r["owner"],))
            ).rowcount == 1:
                adopted.append(r["id"])
        return adopted

    def notification(self, nid: int) -> dict | None:
        return self.one("SELECT * FROM notifications WHERE id = ?", nid)

    def notifications_of(self, tenant: str, account: str) -> list[dict]:
        return self.all("SELECT * FROM notifications WHERE tenant = ? AND account = ? "
                        "ORDER BY id", tenant, account)

    def all_notifications(self, tenant: str | None = None) -> list[dict]:
        """Every notification, or one tenant's."""
        if tenant is None:
            return self.all("SELECT * FROM notifications ORDER BY id")
        return self.all("SELECT * FROM notifications WHERE tenant = ? ORDER BY id", tenant)


class SQLiteStore(Store):
    """One SQLite file (WAL): the embedded default. One process writes to it."""

    def __init__(self, path: str):
        self.path = path
        # A new identity per process: rows owned by an earlier run of the file are orphans.
        self.owner = random.SystemRandom().randrange(1, 2**62)
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: durable at checkpoints, no fsync per commit; right for a sandbox.
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA busy_timeout=5000")
        _create_schema(sqlite_utils.Database(self.conn))

    def execute(self, sql: str, *params: Any) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def atomically(self, fn: Callable[[], T]) -> T:
        with self._transaction():
            return fn()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (nothing half-written)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def owners_alive(self, owners: set[int]) -> set[int]:
        # One process writes a SQLite sandbox: a PENDING row of any other run is left over.
        return owners & {self.owner}

    def close(self) -> None:
        self.conn.close()


SCHEMA_LOCK = 0x616D656E64  # pg_advisory_xact_lock key: one process creates the schema at a time
CANCEL_CHANNEL = "amend_sandbox_cancel"  # NOTIFY channel: cancel a request held elsewhere
RETRIES = 40  # serialization failures one transaction may meet before it gives up


class PostgresStore(Store):
    """One psycopg connection per process; many processes share the database.

    ``owner`` is a random positive 62-bit number held as a session advisory lock for as long
    as this connection lives: when the process dies, PostgreSQL drops the lock, and any PENDING
    request it held is an orphan (:meth:`Store.release_orphans`).
    """

    def __init__(self, dsn: str):
        import psycopg
        from psycopg.rows import dict_row

        self.path = dsn
        self.owner = random.SystemRandom().randrange(1, 2**62)
        try:
            self.conn = psycopg.connect(dsn, autocommit=True, row_factory=dict_row,
                                        connect_timeout=10)
        except psycopg.Error as exc:
            raise InvalidInput(f"cannot connect to the PostgreSQL database {redact(dsn)}: "
                               f"{str(exc).strip().splitlines()[0]}; check that the server "
                               "runs and the URL is right") from None
        self.conn.execute("SELECT pg_advisory_lock(%s)", (self.owner,))
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            self.conn.execute(PG_SCHEMA)
        self._depth = 0
        self._listener: Any = None

    def execute(self, sql: str, *params: Any) -> Any:
        return self.conn.execute(sql.replace("?", "%s"), params)

    def atomically(self, fn: Callable[[], T]) -> T:
        """SERIALIZABLE, re-run from the start on a serialization failure or deadlock.

        ``fn`` must only read and write through this store (no awaits, no other effects), so
        running it again is safe. A nested call joins the outer transaction.
        """
        import psycopg.errors as pe

        if self._depth:
            return fn()
        for attempt in range(1, RETRIES + 1):
            self._depth += 1
            try:
                self.conn.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                try:
                    result = fn()
                    self.conn.execute("COMMIT")
                    return result
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
            except (pe.SerializationFailure, pe.DeadlockDetected, pe.UniqueViolation):
                if attempt == RETRIES:
                    raise
                # A product back-off (the conflicting transaction commits meanwhile).
                time.sleep(random.uniform(0, 0.001 * attempt))
            finally:
                self._depth -= 1
        raise AssertionError("unreachable")

    def announce_cancel(self, scope: tuple[str, str, str]) -> None:
        self.execute("SELECT pg_notify(?, ?)", CANCEL_CHANNEL, json.dumps(list(scope)))

    def listen_for_cancels(self, on_cancel: Callable[[tuple[str, str, str]], None]) -> None:
        """A daemon thread on a connection of its own, LISTENing on :data:`CANCEL_CHANNEL`:
        a cancel that reaches another worker wakes the request this process holds."""
        import threading

        import psycopg

        conn = psycopg.connect(self.path, autocommit=True)
        conn.execute(f"LISTEN {CANCEL_CHANNEL}")
        stop = threading.Event()

        def listen() -> None:
            try:
                while not stop.is_set():  # wake twice a second to see a close
                    for note in conn.notifies(timeout=0.5):
                        scope = json.loads(note.payload)
                        on_cancel((scope[0], scope[1], scope[2]))
            except psycopg.Error:
                pass  # the server went away: this process no longer hears cancels
            finally:
                conn.close()

        thread = threading.Thread(target=listen, name="amend-cancel-listener", daemon=True)
        thread.start()
        self._listener = (stop, thread)

    def owners_alive(self, owners: set[int]) -> set[int]:
        rows = self.all("SELECT (classid::bigint << 32) | objid::bigint AS owner FROM pg_locks "
                        "WHERE locktype = 'advisory' AND objsubid = 1 AND granted")
        held = {r["owner"] for r in rows}
        return {o for o in owners if o in held}

    def close(self) -> None:
        if self._listener is not None:
            stop, thread = self._listener
            stop.set()
            thread.join(timeout=2)
        self.conn.close()
