"""The registry's schema in both dialects, and opening a registry database safely.

Integrity lives in the database, not only in Python: typed tables (STRICT on SQLite), CHECK
constraints, foreign keys, and triggers that make revision content (text and digest) immutable
and interpretations append-only (only ``known_to`` may be set, once). On PostgreSQL an exclusion
constraint also keeps each revision's interpretations from overlapping in knowledge time.

A SQLite file carries the schema version in ``PRAGMA user_version`` and is marked as an Amend
registry by ``PRAGMA application_id``; a PostgreSQL schema carries both in its
``registry_schema`` table. Either way a database written by a newer Amend is refused. The
connections themselves, and the other dialect differences, are in :mod:`registry.backend`.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from registry import backend
from registry.backend import Database, PostgresDatabase, SQLiteDatabase
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


APPLICATION = "amend-registry"  # the PostgreSQL counterpart of APPLICATION_ID
POSTGRES_TABLES = ("registry_schema", "registry_info", "snapshots", "families", "procedures",
                   "revisions", "interpretations", "scopes", "edges")

# The same tables, columns and rules in PostgreSQL's dialect. Text that is sorted or grouped on
# uses the "C" collation, so ORDER BY gives SQLite's byte order whatever the database's locale.
POSTGRES_DDL = f"""
CREATE TABLE registry_schema (
  application text NOT NULL CHECK (application = '{APPLICATION}'),
  version integer NOT NULL CHECK (version > 0)
);
INSERT INTO registry_schema VALUES ('{APPLICATION}', {SCHEMA_VERSION});
CREATE TABLE registry_info (
  key text COLLATE "C" PRIMARY KEY CHECK (key IN ('name', 'time')),
  value text NOT NULL CHECK (value <> '')
);
CREATE TABLE snapshots (
  id bigint PRIMARY KEY CHECK (id > 0),
  imported_at text NOT NULL,
  source text NOT NULL,
  file_digest text NOT NULL CHECK (length(file_digest) = 64)
);
CREATE TABLE families (
  id text COLLATE "C" PRIMARY KEY CHECK (id <> ''),
  title text NOT NULL,
  aliases text NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(aliases::jsonb) = 'array')
);
CREATE TABLE procedures (
  family text COLLATE "C" NOT NULL REFERENCES families(id),
  id text COLLATE "C" NOT NULL CHECK (id <> ''),
  title text NOT NULL,
  aliases text NOT NULL CHECK (jsonb_typeof(aliases::jsonb) = 'array'),
  PRIMARY KEY (family, id)
);
CREATE TABLE revisions (
  id text COLLATE "C" PRIMARY KEY CHECK (id <> ''),
  family text COLLATE "C" NOT NULL CHECK (family <> ''),
  kind text NOT NULL CHECK (kind IN ('manual', 'bulletin', 'policy', 'translation')),
  language text COLLATE "C" NOT NULL CHECK (language <> ''),
  tenant text COLLATE "C" NOT NULL CHECK (tenant <> ''),
  content text NOT NULL CHECK (content::jsonb IS NOT NULL),
  digest text NOT NULL CHECK (length(digest) = 64),
  first_snapshot bigint NOT NULL REFERENCES snapshots(id)
);
CREATE TABLE interpretations (
  id bigint PRIMARY KEY,  -- assigned by the importer, under the write lock
  revision text COLLATE "C" NOT NULL REFERENCES revisions(id),
  known_from bigint NOT NULL REFERENCES snapshots(id),
  known_to bigint REFERENCES snapshots(id),
  status text NOT NULL CHECK (status IN ('approved', 'draft', 'withdrawn')),
  roles text NOT NULL CHECK (jsonb_typeof(roles::jsonb) = 'array'),
  equivalent_to text COLLATE "C" REFERENCES revisions(id),
  applies text NOT NULL CHECK (applies::jsonb IS NOT NULL),
  supersedes text NOT NULL CHECK (supersedes::jsonb IS NOT NULL),
  canonical text NOT NULL,
  -- The snapshots [known_from, known_to) this interpretation is what the registry knew.
  known_during int8range GENERATED ALWAYS AS (int8range(known_from, known_to)) STORED,
  CHECK (known_to IS NULL OR known_to > known_from),
  -- The key that must not overlap is the revision, on the knowledge-time axis: at every
  -- snapshot a revision has exactly one interpretation (its status, roles, applies,
  -- supersedes, equivalent_to), or the resolver would see the revision twice. Valid-time
  -- overlaps are another matter: two revisions covering one scope at one instant are legal
  -- (resolution decides by supersession, validate reports the rest as findings), and so are
  -- two applies entries of one revision, so no constraint is put on them.
  CONSTRAINT interpretations_never_overlap
    EXCLUDE USING gist (revision WITH =, known_during WITH &&)
);
CREATE UNIQUE INDEX interpretations_one_current ON interpretations(revision)
  WHERE known_to IS NULL;
CREATE INDEX interpretations_by_equivalent ON interpretations(equivalent_to)
  WHERE equivalent_to IS NOT NULL;
-- One row per (applies entry, configuration, region): an entry covers its scope as a unit.
CREATE TABLE scopes (
  interp bigint NOT NULL REFERENCES interpretations(id),
  entry integer NOT NULL CHECK (entry >= 0),
  family text COLLATE "C" NOT NULL,
  procedure text COLLATE "C" NOT NULL CHECK (procedure <> ''),
  configuration text COLLATE "C" NOT NULL CHECK (configuration <> ''),
  region text COLLATE "C" NOT NULL CHECK (region <> ''),
  from_key bigint NOT NULL,
  to_key bigint CHECK (to_key IS NULL OR to_key > from_key)
);
CREATE INDEX scopes_lookup ON scopes(family, procedure, region, configuration, from_key);
CREATE TABLE edges (
  interp bigint NOT NULL REFERENCES interpretations(id),
  family text COLLATE "C" NOT NULL,
  procedure text COLLATE "C" NOT NULL CHECK (procedure <> ''),
  superseded text COLLATE "C" NOT NULL REFERENCES revisions(id),
  decision text NOT NULL CHECK (decision <> '')
);
CREATE INDEX edges_by_procedure ON edges(family, procedure);
CREATE OR REPLACE FUNCTION registry_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation'; END $$;
CREATE TRIGGER revisions_content_immutable BEFORE UPDATE ON revisions FOR EACH ROW
  EXECUTE FUNCTION registry_refuse('revision content is immutable: import a new revision id');
CREATE TRIGGER revisions_never_deleted BEFORE DELETE ON revisions FOR EACH ROW
  EXECUTE FUNCTION registry_refuse('revisions are never deleted: withdraw them with a correction');
CREATE TRIGGER interpretations_append_only BEFORE UPDATE ON interpretations FOR EACH ROW
  WHEN (OLD.known_to IS NOT NULL OR NEW.known_to IS NULL OR NEW.id IS DISTINCT FROM OLD.id
    OR NEW.revision IS DISTINCT FROM OLD.revision OR NEW.known_from IS DISTINCT FROM OLD.known_from
    OR NEW.status IS DISTINCT FROM OLD.status OR NEW.roles IS DISTINCT FROM OLD.roles
    OR NEW.equivalent_to IS DISTINCT FROM OLD.equivalent_to
    OR NEW.applies IS DISTINCT FROM OLD.applies OR NEW.supersedes IS DISTINCT FROM OLD.supersedes
    OR NEW.canonical IS DISTINCT FROM OLD.canonical)
  EXECUTE FUNCTION
    registry_refuse('interpretations are append-only: only known_to may be set, once');
CREATE TRIGGER interpretations_never_deleted BEFORE DELETE ON interpretations FOR EACH ROW
  EXECUTE FUNCTION registry_refuse('interpretations are history and are never deleted');
CREATE TRIGGER scopes_immutable BEFORE UPDATE ON scopes FOR EACH ROW
  EXECUTE FUNCTION registry_refuse('scopes are history and never change');
CREATE TRIGGER edges_immutable BEFORE UPDATE ON edges FOR EACH ROW
  EXECUTE FUNCTION registry_refuse('supersession edges are history and never change');
"""


def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
    uri = f"file:{path.resolve()}?mode={'ro' if read_only else 'rw'}"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _refuse_other_version(label: str, version: int) -> None:
    """BadDatabase unless ``version`` is the schema this build reads."""
    if version > SCHEMA_VERSION:
        raise BadDatabase(f"{label}: written by a newer Amend (registry schema {version}, this "
                          f"build reads {SCHEMA_VERSION}); upgrade Amend to use it")
    if version < SCHEMA_VERSION:
        raise BadDatabase(f"{label}: registry schema {version} is older than {SCHEMA_VERSION} "
                          f"and has no migration; re-import its files into a new --db")


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
    _refuse_other_version(str(path), version)


def open_existing(target: str | Path, read_only: bool) -> Database:
    """Open a registry database that must exist (a file, or a ``postgresql://`` URL).

    Changes nothing in it. Raises :class:`BadDatabase` naming the target and what to do.
    """
    if backend.is_url(target):
        return _open_postgres(str(target), read_only)
    path = Path(target)
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
    return SQLiteDatabase(conn, str(path))


def create(target: str | Path) -> Database:
    """Create a new registry database with the schema (side effect: writes ``target``).

    A file must not exist yet and its directory must be writable; on a PostgreSQL URL the
    current schema must hold no registry and no table of a registry table's name. Raises
    :class:`BadDatabase` otherwise.
    """
    if backend.is_url(target):
        return _create_postgres(str(target))
    path = Path(target)
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
    return SQLiteDatabase(conn, str(path))


def memory() -> Database:
    """A fresh in-memory registry (tests, benchmarks)."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript("BEGIN;" + DDL + f"PRAGMA user_version = {SCHEMA_VERSION};"
                       f"PRAGMA application_id = {APPLICATION_ID}; COMMIT;")
    return SQLiteDatabase(conn, ":memory:")


def open_for_import(target: str | Path) -> tuple[Database, bool]:
    """The database an import writes to, and whether this call created it (a new file).

    A missing SQLite file is created with the schema. A PostgreSQL database is only connected
    to: :func:`ensure` checks or creates its schema under the import lock, inside the import's
    own transaction, so a rejected first import leaves it as empty as it was.
    """
    if backend.is_url(target):
        return backend.connect_postgres(str(target), read_only=False), False
    path = Path(target)
    if path.exists():
        return open_existing(path, read_only=False), False
    return create(path), True


def ensure(db: Database) -> None:
    """With the write lock held: check the schema once more, or create it where none is.

    A SQLite database was created or checked when it was opened, so there is nothing to do. A
    PostgreSQL schema may have been created by another process meanwhile, so it is checked
    here, once per connection; creating it is not enough to skip the check next time, because
    the import that creates it may still be rolled back.
    """
    if db.checked:
        return
    version, clashes = _postgres_state(db)
    if version is not None:
        _refuse_other_version(db.label, version)
        db.checked = True
    elif clashes:
        raise _not_a_registry(db.label, clashes)
    else:
        _install_postgres(db)


def remove_files(path: Path) -> None:
    """Delete a database we created ourselves and its WAL side files (undo of :func:`create`)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


# ---------------------------------------------------------------------------- PostgreSQL

def _postgres_state(db: Database) -> tuple[int | None, list[str]]:
    """(the registry schema version, or None where there is no registry; the registry's table
    names that other tables already use there).

    Other applications' tables may share the schema (the sandbox's, say): only a name the
    registry needs makes it unusable.
    """
    names = {name for (name,) in db.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()}
    if "registry_schema" not in names:
        return None, sorted(names & set(POSTGRES_TABLES))
    rows = db.execute("SELECT application, version FROM registry_schema").fetchall()
    if len(rows) != 1 or rows[0][0] != APPLICATION:
        raise _not_a_registry(db.label, ["registry_schema"])
    return rows[0][1], []


def _not_a_registry(label: str, clashes: list[str]) -> BadDatabase:
    return BadDatabase(f"{label}: not an Amend registry database, though its schema has tables "
                       f"of the registry's names ({', '.join(clashes)}); give the registry its "
                       f"own database or schema (options=-csearch_path=NAME in the URL), or "
                       f"pass another --db")


def _install_postgres(db: Database) -> None:
    """Create the extension and the tables in the current transaction (side effect: DDL)."""
    try:
        db.conn.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
    except Exception as exc:
        if not backend.is_database_error(exc):
            raise
        raise BadDatabase(f"{db.label}: the registry needs PostgreSQL's btree_gist extension "
                          f"({backend.one_line(exc)}); have the database owner run CREATE "
                          f"EXTENSION btree_gist there, or pass another --db") from None
    db.conn.execute(POSTGRES_DDL)


def _open_postgres(url: str, read_only: bool) -> PostgresDatabase:
    db = backend.connect_postgres(url, read_only)
    try:
        version, clashes = _postgres_state(db)
        if clashes:
            raise _not_a_registry(db.label, clashes)
        if version is None:
            raise BadDatabase(f"{db.label}: no registry database there; run "
                              f"'amend registry import FILE --db {db.label}' first")
        _refuse_other_version(db.label, version)
    except BaseException:
        db.close()
        raise
    db.checked = True
    return db


def _create_postgres(url: str) -> PostgresDatabase:
    db = backend.connect_postgres(url, read_only=False)
    try:
        db.begin_write()
        try:
            version, clashes = _postgres_state(db)
            if version is not None:
                raise BadDatabase(f"{db.label}: already exists")
            if clashes:
                raise _not_a_registry(db.label, clashes)
            _install_postgres(db)
        except BaseException:
            db.rollback()
            raise
        db.commit()
    except BaseException:
        db.close()
        raise
    return db
