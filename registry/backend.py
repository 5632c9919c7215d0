"""The registry's two database backends: SQLite (embedded, the default) and PostgreSQL.

The registry's logic (``store``, ``resolver``, ``findings``, ``explain``) talks to a
:class:`Database` only, so it has one code path for both. What differs between the dialects
lives here, and the DDL of each in :mod:`registry.schema`:

* **placeholders**: the shared SQL is written with SQLite's ``?`` and ``:name``; PostgreSQL gets
  each statement text rewritten once to psycopg's ``%s`` and ``%(name)s``;
* **the import lock**: SQLite's ``BEGIN IMMEDIATE`` takes the file's write lock; on PostgreSQL
  ``BEGIN`` plus ``pg_advisory_xact_lock`` on this schema's registry key makes importers in every
  process wait for each other until the holder's transaction ends;
* **errors**: :func:`is_database_error` recognises either driver's errors.

A *target* is a file path (SQLite) or a ``postgresql://`` URL (:func:`is_url`). psycopg is
imported only when a URL is opened, so the embedded registry never loads it.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from agent.core.db_url import hide_password, redact
from registry.errors import BadDatabase

URL_SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 10
# One advisory lock per registry: the key is derived from the schema the tables live in, so
# registries in two schemas of one database do not wait for each other.
_IMPORT_LOCK = "SELECT pg_advisory_xact_lock(hashtext('amend registry ' || current_schema()))"
# libpq's URI syntax: the user part ends at the first "@" before any "/".
_TOKENS = re.compile(r"'(?:[^']|'')*'|::|\?|:([A-Za-z_]\w*)|%")


def is_url(target: object) -> bool:
    """True for a PostgreSQL URL, False for anything else (a SQLite file path)."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def with_search_path(url: str, schema: str) -> str:
    """``url`` with libpq's ``options=-csearch_path=<schema>``: its tables live in ``schema``."""
    glue = "&" if urlsplit(url).query else "?"
    return f"{url}{glue}options={quote(f'-csearch_path={schema}')}"


def is_database_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an error of either database driver.

    psycopg is looked up in ``sys.modules`` instead of imported: if nothing imported it, no
    PostgreSQL connection exists, so no psycopg error can have been raised.
    """
    if isinstance(exc, sqlite3.DatabaseError):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)


def one_line(exc: BaseException) -> str:
    """A driver's message on one line (libpq's carry tab-indented hints on further lines)."""
    return " ".join(str(exc).split())


@functools.lru_cache(maxsize=256)
def postgres_sql(sql: str) -> str:
    """SQLite-style placeholders as psycopg's: ``?`` → ``%s``, ``:name`` → ``%(name)s``.

    A literal ``%`` is doubled (psycopg reads ``%`` everywhere); quoted literals and ``::``
    casts keep their text.
    """
    def token(m: re.Match[str]) -> str:
        text = m.group(0)
        if text.startswith("'"):
            return text.replace("%", "%%")
        if text == "?":
            return "%s"
        if m.group(1):
            return f"%({m.group(1)})s"
        return "%%" if text == "%" else text

    return _TOKENS.sub(token, sql)


class Database(ABC):
    """One open registry database: a connection of one dialect (the subclass), and a label.

    Not thread-safe by itself, like a bare connection: :class:`registry.resolver.Registry`
    serialises its use with a lock.
    """

    # Whether this connection has seen a registry schema it can use. A SQLite file is checked
    # (or made) when it is opened; a PostgreSQL schema by the first import under its lock
    # (schema.ensure), or when it is opened for reading. Either way once per connection.
    checked = True

    def __init__(self, conn: Any, label: str):
        self.conn = conn
        self.label = label  # the path, or the URL without its password

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """Run one statement written with SQLite placeholders; returns the driver's cursor."""
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    def insert_many(self, table: str, columns: Sequence[str],
                    rows: Sequence[Sequence[Any]]) -> None:
        """Append ``rows`` to ``table`` (a batched INSERT; PostgreSQL overrides it with COPY)."""
        marks = ", ".join("?" * len(columns))
        self.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    @abstractmethod
    def begin_write(self) -> None:
        """Start the import transaction holding the registry's write lock (waits for it)."""

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        self.conn.execute("ROLLBACK")

    def close(self) -> None:
        self.conn.close()


class SQLiteDatabase(Database):
    """A registry file (or ``:memory:``) through :mod:`sqlite3`, in autocommit mode."""

    def begin_write(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")


class PostgresDatabase(Database):
    """A registry in a PostgreSQL database through psycopg 3, in autocommit mode.

    The tables live in the connection's current schema (the first of its ``search_path``,
    ``public`` unless the URL says otherwise).
    """

    checked = False

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        return self.conn.execute(postgres_sql(sql), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(postgres_sql(sql), rows)

    def insert_many(self, table: str, columns: Sequence[str],
                    rows: Sequence[Sequence[Any]]) -> None:
        """COPY: a large import's hundreds of thousands of scope rows in one stream."""
        with self.conn.cursor() as cursor, \
                cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def begin_write(self) -> None:
        self.conn.execute("BEGIN")
        self.conn.execute(_IMPORT_LOCK)


def connect_postgres(url: str, read_only: bool) -> PostgresDatabase:
    """Connect to the database at ``url``; :class:`BadDatabase` naming it if that fails.

    ``read_only`` makes every transaction of the session read-only (the resolver's sessions).
    """
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    label = redact(url)
    try:
        settings = conninfo_to_dict(url)
    except psycopg.Error as exc:
        reason = hide_password(one_line(exc), url)
        raise BadDatabase(f"{label}: not a valid PostgreSQL URL ({reason}); write "
                          f"postgresql://user@host:port/database") from None
    timeout = settings.get("connect_timeout") or CONNECT_TIMEOUT_S
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=timeout)
    except psycopg.Error as exc:
        reason = hide_password(one_line(exc), url)
        raise BadDatabase(f"{label}: cannot connect to PostgreSQL ({reason}); start the "
                          f"server or correct the URL (user, host, port, database), or pass "
                          f"another --db") from None
    if read_only:
        conn.execute("SET default_transaction_read_only = on")
    return PostgresDatabase(conn, label)


def label_of(target: str | Path) -> str:
    """How ``target`` is named in messages: a path as given, a URL without its password."""
    return redact(str(target)) if is_url(target) else str(target)


@contextmanager
def scratch_schema(url: str, name: str) -> Iterator[str]:
    """A new, empty schema ``name`` in the database at ``url`` for the block (benchmarks).

    Yields a URL whose tables live in it; drops it with everything in it afterwards. The
    btree_gist extension is made in the database's usual schema first, so it never lives in,
    and is never dropped with, the scratch schema.
    """
    from psycopg import sql

    admin = connect_postgres(url, read_only=False)
    try:
        admin.conn.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
        admin.conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        try:
            yield with_search_path(url, name)
        finally:
            admin.conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
    finally:
        admin.close()
