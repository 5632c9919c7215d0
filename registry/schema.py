"""The registry's SQLite schema, and opening a database file safely.

Integrity lives in the database, not only in Python: STRICT tables, CHECK constraints,
foreign keys, and triggers that make revision content (text and digest) immutable and
interpretations append-only (only ``known_to`` may be set, once). ``PRAGMA user_version``
carries the schema version so that a file written by a newer Amend is refused, and
``PRAGMA application_id`` marks the file as an Amend registry.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlite_utils

from registry.errors import BadDatabase

SCHEMA_VERSION = 1
APPLICATION_ID = 0x414D4E44  # "AMND"

DDL = """
CREATE TABLE registry_info (
  key TEXT PRIMARY KEY CHECK (key IN ('name', 'time')),
  value TEXT NOT NULL CHECK (value <> '')
) STRICT;
CREATE TABLE snapshots (
  id INTEGER PRIMARY KEY CHECK (id > 0),
  imported_at TEXT NOT NULL,
  source TEXT NOT NULL,
  file_digest TEXT NOT NULL CHECK (length(file_digest) = 64)
) STRICT;
CREATE TABLE families (
  id TEXT PRIMARY KEY CHECK (id <> ''),
  title TEXT NOT NULL,
  aliases TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(aliases) AND json_type(aliases) = 'array')
) STRICT;
CREATE TABLE procedures (
  family TEXT NOT NULL REFERENCES families(id),
  id TEXT NOT NULL CHECK (id <> ''),
  title TEXT NOT NULL,
  aliases TEXT NOT NULL CHECK (json_valid(aliases) AND json_type(aliases) = 'array'),
  PRIMARY KEY (family, id)
) STRICT;
CREATE TABLE revisions (
  id TEXT PRIMARY KEY CHECK (id <> ''),
  family TEXT NOT NULL CHECK (family <> ''),
  kind TEXT NOT NULL CHECK (kind IN ('manual', 'bulletin', 'policy', 'translation')),
  language TEXT NOT NULL CHECK (language <> ''),
  tenant TEXT NOT NULL CHECK (tenant <> ''),
  content TEXT NOT NULL CHECK (json_valid(content)),
  digest TEXT NOT NULL CHECK (length(digest) = 64),
  first_snapshot INTEGER NOT NULL REFERENCES snapshots(id)
) STRICT;
CREATE TRIGGER revisions_content_immutable BEFORE UPDATE ON revisions
BEGIN SELECT RAISE(ABORT, 'revision content is immutable: import a new revision id'); END;
CREATE TRIGGER revisions_never_deleted BEFORE DELETE ON revisions
BEGIN SELECT RAISE(ABORT, 'revisions are never deleted: withdraw them with a correction'); END;
CREATE TABLE interpretations (
  id INTEGER PRIMARY KEY,
  revision TEXT NOT NULL REFERENCES revisions(id),
  known_from INTEGER NOT NULL REFERENCES snapshots(id),
  known_to INTEGER REFERENCES snapshots(id),
  status TEXT NOT NULL CHECK (status IN ('approved', 'draft', 'withdrawn')),
  roles TEXT NOT NULL CHECK (json_valid(roles) AND json_type(roles) = 'array'),
  equivalent_to TEXT REFERENCES revisions(id),
  applies TEXT NOT NULL CHECK (json_valid(applies)),
  supersedes TEXT NOT NULL CHECK (json_valid(supersedes)),
  canonical TEXT NOT NULL,
  CHECK (known_to IS NULL OR known_to > known_from)
) STRICT;
CREATE UNIQUE INDEX interpretations_one_current ON interpretations(revision)
  WHERE known_to IS NULL;
CREATE INDEX interpretations_by_equivalent ON interpretations(equivalent_to)
  WHERE equivalent_to IS NOT NULL;
CREATE TRIGGER interpretations_append_only BEFORE UPDATE ON interpretations
WHEN OLD.known_to IS NOT NULL OR NEW.known_to IS NULL OR NEW.id IS NOT OLD.id
  OR NEW.revision IS NOT OLD.revision OR NEW.known_from IS NOT OLD.known_from
  OR NEW.status IS NOT OLD.status OR NEW.roles IS NOT OLD.roles
  OR NEW.equivalent_to IS NOT OLD.equivalent_to OR NEW.applies IS NOT OLD.applies
  OR NEW.supersedes IS NOT OLD.supersedes OR NEW.canonical IS NOT OLD.canonical
BEGIN SELECT RAISE(ABORT, 'interpretations are append-only: only known_to may be set, once');
END;
CREATE TRIGGER interpretations_never_deleted BEFORE DELETE ON interpretations
BEGIN SELECT RAISE(ABORT, 'interpretations are history and are never deleted'); END;
-- One row per (applies entry, configuration, region): an entry covers its scope as a unit.
CREATE TABLE scopes (
  interp INTEGER NOT NULL REFERENCES interpretations(id),
  entry INTEGER NOT NULL CHECK (entry >= 0),
  family TEXT NOT NULL,
  procedure TEXT NOT NULL CHECK (procedure <> ''),
  configuration TEXT NOT NULL CHECK (configuration <> ''),
  region TEXT NOT NULL CHECK (region <> ''),
  from_key INTEGER NOT NULL,
  to_key INTEGER CHECK (to_key IS NULL OR to_key > from_key)
) STRICT;
CREATE INDEX scopes_lookup ON scopes(family, procedure, region, configuration, from_key);
CREATE TABLE edges (
  interp INTEGER NOT NULL REFERENCES interpretations(id),
  family TEXT NOT NULL,
  procedure TEXT NOT NULL CHECK (procedure <> ''),
  superseded TEXT NOT NULL REFERENCES revisions(id),
  decision TEXT NOT NULL CHECK (decision <> '')
) STRICT;
CREATE INDEX edges_by_procedure ON edges(family, procedure);
CREATE TRIGGER scopes_immutable BEFORE UPDATE ON scopes
BEGIN SELECT RAISE(ABORT, 'scopes are history and never change'); END;
CREATE TRIGGER edges_immutable BEFORE UPDATE ON edges
BEGIN SELECT RAISE(ABORT, 'supersession edges are history and never change'); END;
"""


def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
    uri = f"file:{path.resolve()}?mode={'ro' if read_only else 'rw'}"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _check_version(conn: sqlite3.Connection, path: Path) -> None:
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise BadDatabase(f"{path}: not a readable registry database ({exc}); "
                          f"restore it from a backup or pass another --db") from None
    if app_id != APPLICATION_ID:
        raise BadDatabase(f"{path}: not an Amend registry database (it holds {tables} other "
                          f"schema objects); pass another --db")
    if version > SCHEMA_VERSION:
        raise BadDatabase(f"{path}: written by a newer Amend (registry schema {version}, this "
                          f"build reads {SCHEMA_VERSION}); upgrade Amend to use it")
    if version < SCHEMA_VERSION:
        raise BadDatabase(f"{path}: registry schema {version} is older than {SCHEMA_VERSION} "
                          f"and has no migration; re-import its files into a new --db")


def open_existing(path: str | Path, read_only: bool) -> sqlite_utils.Database:
    """Open a registry database that must exist. Changes nothing in the file."""
    path = Path(path)
    if path.is_dir():
        raise BadDatabase(f"{path}: is a directory; pass a database file path with --db")
    if path.is_file() and path.stat().st_size == 0:
        raise BadDatabase(f"{path}: is an empty file, not a registry database; delete it or "
                          f"pass another --db")
    if not path.is_file():
        raise BadDatabase(f"{path}: no registry database there; run "
                          f"'amend registry import FILE --db {path}' first")
    try:
        conn = _connect(path, read_only)
    except sqlite3.Error as exc:
        raise BadDatabase(f"{path}: cannot open the registry database ({exc}); "
                          f"check its permissions") from None
    try:
        _check_version(conn, path)
    except BadDatabase:
        conn.close()
        raise
    return sqlite_utils.Database(conn)


def create(path: str | Path) -> sqlite_utils.Database:
    """Create a new registry database file with the schema (side effect: writes ``path``).

    Raises :class:`BadDatabase` if the file exists or its directory is not writable.
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.exists():
        raise BadDatabase(f"{path}: already exists")
    if not parent.is_dir():
        raise BadDatabase(f"{path}: directory {parent} does not exist; create it or pass "
                          f"another --db")
    if not os.access(parent, os.W_OK):
        raise BadDatabase(f"{path}: directory {parent} is not writable; pass another --db")
    try:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript("BEGIN;" + DDL + f"PRAGMA user_version = {SCHEMA_VERSION};"
                           f"PRAGMA application_id = {APPLICATION_ID}; COMMIT;")
    except sqlite3.Error as exc:
        remove_files(path)
        raise BadDatabase(f"{path}: cannot create the registry database ({exc}); "
                          f"pass another --db") from None
    return sqlite_utils.Database(conn)


def memory() -> sqlite_utils.Database:
    """A fresh in-memory registry (tests, benchmarks)."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript("BEGIN;" + DDL + f"PRAGMA user_version = {SCHEMA_VERSION};"
                       f"PRAGMA application_id = {APPLICATION_ID}; COMMIT;")
    return sqlite_utils.Database(conn)


def remove_files(path: Path) -> None:
    """Delete a database we created ourselves and its WAL side files (undo of :func:`create`)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
