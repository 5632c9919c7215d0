"""The sandbox's SQLite store: schema, one connection, and small typed reads and writes.

This is the only module that touches the disk. The schema is created with sqlite-utils; writes
are plain SQL so the same conditional updates (``... WHERE version = ?``) would run on
PostgreSQL. The service runs on one event loop and calls this synchronously, so a
:meth:`Store.transaction` block is never interleaved with another request's writes; WAL mode lets
readers in other processes (``sqlite3 bookings.db``) look while it runs.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import sqlite_utils

BOOKING_COLUMNS = ("ref", "account", "asset", "date", "window", "time", "units", "site",
                   "contact", "status", "version")


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


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
    }, pk="ref", not_null={"tenant", "account", "asset", "date", "window", "status", "version"},
        if_not_exists=True)
    db.table("bookings").create_index(["tenant", "account"], if_not_exists=True)
    db.table("bookings").create_index(["date", "window", "status"], if_not_exists=True)
    # Every version a booking ever had, with who wrote it and the version it was built on:
    # the history checker's evidence for "no stale commit".
    db.table("booking_events").create({
        "id": int, "ref": str, "version": int, "op": str, "actor": str, "key": str,
        "expected_version": int, "prior_version": int, "revision": int, "at": str,
    }, pk="id", if_not_exists=True)
    db.table("requests").create({
        "tenant": str, "account": str, "key": str, "op": str, "fingerprint": str,
        "status": str, "cancel_requested": int, "retryable": int, "revision": int,
        "booking_ref": str, "response_status": int, "response_body": str,
        "created_at": str, "updated_at": str, "created_ts": float,
    }, pk=("tenant", "account", "key"), if_not_exists=True)
    db.table("notifications").create({
        "id": int, "tenant": str, "account": str, "booking_ref": str, "booking_version": int,
        "kind": str, "contact": str, "dedupe_key": str, "body": str, "status": str,
        "attempts": int, "deliveries": int, "created_at": str, "delivered_at": str,
    }, pk="id", if_not_exists=True)
    db.table("notifications").create_index(["dedupe_key"], unique=True, if_not_exists=True)
    db.table("handoffs").create({
        "id": str, "tenant": str, "account": str, "status": str, "version": int,
        "state": str, "resolution": str, "created_at": str, "updated_at": str,
    }, pk="id", if_not_exists=True)


class Store:
    """One SQLite connection (WAL) and the queries the service needs.

    Not thread-safe by design: every call happens on the server's event loop thread.
    """

    def __init__(self, path: str):
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: durable at checkpoints, no fsync per commit; right for a sandbox.
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA busy_timeout=5000")
        _create_schema(sqlite_utils.Database(self.conn))

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (nothing half-written)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def one(self, sql: str, *params) -> dict | None:
        row = self.conn.execute(sql, params).fetchone()
        return dict(row) if row is not None else None

    def all(self, sql: str, *params) -> list[dict]:
        return [dict(r) for r in self.conn.execute(sql, params).fetchall()]

    def reset(self) -> None:
        """Delete every row of every table (side effect: the whole sandbox is emptied)."""
        with self.transaction() as c:
            for table in ("tokens", "slots", "bookings", "booking_events", "requests",
                          "notifications", "handoffs"):
                c.execute(f"DELETE FROM {table}")

    # ------------------------------------------------------------------ bookings

    def booking(self, ref: str) -> dict | None:
        return self.one("SELECT * FROM bookings WHERE ref = ?", ref)

    def bookings_of(self, tenant: str, account: str) -> list[dict]:
        return self.all("SELECT * FROM bookings WHERE tenant = ? AND account = ? "
                        "ORDER BY created_at, ref", tenant, account)

    def all_bookings(self) -> list[dict]:
        return self.all("SELECT * FROM bookings ORDER BY created_at, ref")

    def booked(self, date: str, window: str, excluding: str | None = None) -> int:
        row = self.one("SELECT COUNT(*) AS n FROM bookings WHERE date = ? AND window = ? "
                       "AND status = 'confirmed' AND ref IS NOT ?", date, window, excluding)
        return row["n"] if row else 0

    def capacity(self, date: str, window: str, default: int) -> int:
        row = self.one("SELECT capacity FROM slots WHERE date = ? AND window = ?", date, window)
        return row["capacity"] if row else default

    def insert_booking(self, row: dict) -> None:
        cols = ", ".join(f'"{k}"' for k in row)
        self.conn.execute(f"INSERT INTO bookings ({cols}) VALUES ({', '.join('?' * len(row))})",
                          tuple(row.values()))

    def update_booking(self, ref: str, prior_version: int, changes: dict) -> bool:
        """Conditional write: applies only if the row is still at ``prior_version``."""
        sets = ", ".join(f'"{k}" = ?' for k in changes)
        cur = self.conn.execute(
            f"UPDATE bookings SET {sets}, version = version + 1, updated_at = ? "
            "WHERE ref = ? AND version = ?",
            (*changes.values(), now_iso(), ref, prior_version))
        return cur.rowcount == 1

    def record_event(self, ref: str, version: int, op: str, actor: str, key: str | None,
                     expected: int | None, prior: int | None, revision: int | None) -> None:
        self.conn.execute(
            "INSERT INTO booking_events (ref, version, op, actor, key, expected_version, "
            "prior_version, revision, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (ref, version, op, actor, key, expected, prior, revision, now_iso()))

    def events(self) -> list[dict]:
        return self.all("SELECT * FROM booking_events ORDER BY id")

    # ------------------------------------------------------------------ requests

    def request(self, tenant: str, account: str, key: str) -> dict | None:
        return self.one("SELECT * FROM requests WHERE tenant = ? AND account = ? AND key = ?",
                        tenant, account, key)

    def all_requests(self) -> list[dict]:
        return self.all("SELECT * FROM requests ORDER BY created_ts")

    def put_request(self, row: dict) -> None:
        cols = ", ".join(f'"{k}"' for k in row)
        self.conn.execute(
            f"INSERT OR REPLACE INTO requests ({cols}) VALUES ({', '.join('?' * len(row))})",
            tuple(row.values()))

    def finish_request(self, tenant: str, account: str, key: str, status: str, *,
                       response_status: int, body: dict, booking_ref: str | None = None,
                       retryable: bool = False) -> None:
        self.conn.execute(
            "UPDATE requests SET status = ?, response_status = ?, response_body = ?, "
            "booking_ref = COALESCE(?, booking_ref), retryable = ?, updated_at = ? "
            "WHERE tenant = ? AND account = ? AND key = ?",
            (status, response_status, json.dumps(body), booking_ref, int(retryable), now_iso(),
             tenant, account, key))

    def mark_cancel_requested(self, tenant: str, account: str, key: str) -> None:
        self.conn.execute("UPDATE requests SET cancel_requested = 1, updated_at = ? "
                          "WHERE tenant = ? AND account = ? AND key = ?",
                          (now_iso(), tenant, account, key))

    def purge_requests(self, older_than_ts: float) -> None:
        """Forget finished keys past retention. PENDING rows are kept: work is in flight."""
        self.conn.execute("DELETE FROM requests WHERE created_ts < ? AND status != 'PENDING'",
                          (older_than_ts,))

    # ------------------------------------------------------------------ notifications

    def add_notification(self, booking: dict, kind: str, body: str) -> int:
        cur = self.conn.execute(
            "INSERT INTO notifications (tenant, account, booking_ref, booking_version, kind, "
            "contact, dedupe_key, body, status, attempts, deliveries, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, 0, ?)",
            (booking["tenant"], booking["account"], booking["ref"], booking["version"], kind,
             booking["contact"], f"{booking['ref']}:v{booking['version']}:{kind}", body,
             now_iso()))
        assert cur.lastrowid is not None  # an INSERT always sets it
        return cur.lastrowid

    def notification(self, nid: int) -> dict | None:
        return self.one("SELECT * FROM notifications WHERE id = ?", nid)

    def notifications_of(self, tenant: str, account: str) -> list[dict]:
        return self.all("SELECT * FROM notifications WHERE tenant = ? AND account = ? "
                        "ORDER BY id", tenant, account)

    def all_notifications(self) -> list[dict]:
        return self.all("SELECT * FROM notifications ORDER BY id")
