"""Both database backends for the registry and retrieval tests (issue 17).

A test that touches a database asks for one of these fixtures and runs once on each backend,
SQLite (the default, embedded) and PostgreSQL (the session's throwaway cluster, ``pg_cluster``
in conftest.py, skipped loudly where PostgreSQL is missing):

* ``backend``: "sqlite" or "postgresql";
* ``db_target``: where a new registry may be created: a file path, or a new schema's URL;
* ``registry_from``: a factory, ``registry_from("registry.yaml", ...)`` → a :class:`Registry`
  with seed files (or paths) imported in order;
* ``corpus_at``: a factory of empty :class:`Corpus` objects.

On PostgreSQL every registry or corpus gets its own new schema (``options=-csearch_path=`` in
the URL) of one database shared by the session: a schema costs about a millisecond, a new
database (``pg_dsn``) a few hundred on a busy machine. For the registry code an empty schema is
an empty database. Tests of a whole database (the extension's installation, another
application's tables) use ``pg_dsn`` itself. Everything a factory opened is closed when the
test ends.

Test modules import the fixtures by their function names (``backend_param`` and so on, with
``# noqa: F401``) and use them by their fixture names.
"""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from registry_support import SEED

from registry import schema, store
from registry.backend import Database, is_url, with_search_path
from registry.parse import parse_file
from registry.resolver import Registry
from retrieval.corpus import Corpus

BACKENDS = ("sqlite", "postgresql")
_SCHEMAS = itertools.count(1)  # schema names are unique in the session's shared database


@pytest.fixture(params=BACKENDS, name="backend")
def backend_param(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session", name="pg_shared")
def pg_shared_fixture(pg_cluster) -> str:
    """The database whose schemas the session's registries and corpora live in."""
    url = pg_cluster.new_database("backends")
    with connect(url) as conn:
        conn.execute("CREATE EXTENSION btree_gist")
    return url


def new_schema(url: str) -> str:
    """A new, empty schema of the database at ``url``; returns the URL that works in it."""
    name = f"t{next(_SCHEMAS)}"
    with connect(url) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    return with_search_path(url, name)


@pytest.fixture(name="db_target")
def db_target_fixture(backend: str, request: pytest.FixtureRequest, tmp_path: Path
                      ) -> str | Path:
    """A place for a new registry: ``tmp_path/registry.db``, or a new, empty schema."""
    if backend == "sqlite":
        return tmp_path / "registry.db"
    return new_schema(request.getfixturevalue("pg_shared"))


class Places:
    """New, empty places for registries and corpora of one backend, for one test."""

    def __init__(self, backend: str, request: pytest.FixtureRequest, tmp_path: Path):
        self._dsn = request.getfixturevalue("pg_shared") if backend == "postgresql" else None
        self._tmp = tmp_path
        self._count = 0
        self._opened: list[Any] = []

    def target(self) -> str | Path:
        """A new place: a file path (not created yet), or the URL of a new, empty schema."""
        if self._dsn is None:
            self._count += 1
            return self._tmp / f"registry-{self._count}.db"
        return new_schema(self._dsn)

    def empty_registry(self) -> Database:
        """An empty registry database (SQLite in memory, as the tests always used)."""
        db = schema.memory() if self._dsn is None else schema.create(self.target())
        self._opened.append(db)
        return db

    def registry(self, *files: str | Path, **kwargs: Any) -> Registry:
        """A registry with ``files`` (seed names or paths) imported in order."""
        db = self.empty_registry()
        for name in files:
            path = Path(name) if Path(name).is_absolute() else SEED / name
            store.apply_file(db, parse_file(path))
        return Registry(db, **kwargs)

    def corpus(self) -> Corpus:
        """An empty corpus (SQLite in memory, or its own PostgreSQL schema)."""
        corpus = Corpus(None if self._dsn is None else self.target())
        self._opened.append(corpus)
        return corpus

    def close(self) -> None:
        for thing in self._opened:
            thing.close()


@pytest.fixture(name="places")
def places_fixture(backend: str, request: pytest.FixtureRequest, tmp_path: Path):
    places = Places(backend, request, tmp_path)
    yield places
    places.close()


@pytest.fixture(name="registry_from")
def registry_from_fixture(places: Places):
    """``registry_from(*files, now_tick=None, clock=..., policy_version=...)`` → Registry."""
    return places.registry


@pytest.fixture(name="corpus_at")
def corpus_at_fixture(places: Places):
    """``corpus_at()`` → an empty Corpus of the test's backend."""
    return places.corpus


# A statement that makes a registry look written by a newer Amend, per backend.
NEWER_SCHEMA = {"sqlite": f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}",
                "postgresql": "UPDATE registry_schema SET version = version + 1"}


def connect(target: str | Path) -> Any:
    """A plain driver connection in autocommit mode, for SQL behind the registry's back."""
    if is_url(target):
        import psycopg

        return psycopg.connect(str(target), autocommit=True)
    return sqlite3.connect(target, isolation_level=None)


def driver_error(backend: str) -> type[Exception]:
    """The error class a refused statement raises on ``backend``."""
    if backend == "sqlite":
        return sqlite3.DatabaseError
    import psycopg

    return psycopg.Error
