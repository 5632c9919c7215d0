"""Both database backends for the registry and retrieval tests (issue 17).

A test that touches a database asks for one of these fixtures and runs once on each backend,
SQLite (the default, embedded) and PostgreSQL (the session's throwaway cluster, ``pg_cluster``
in conftest.py, skipped loudly where PostgreSQL is missing):

* ``backend``: "sqlite" or "postgresql";
* ``db_target``: where a new registry may be created: a file path, or a fresh database's URL;
* ``registry_from``: a factory, ``registry_from("registry.yaml", ...)`` → a :class:`Registry`
  with seed files (or paths) imported in order;
* ``corpus_at``: a factory of empty :class:`Corpus` objects.

On PostgreSQL every registry or corpus of a test gets its own schema of the test's database
(``options=-csearch_path=`` in the URL), which is cheaper than a database each. Everything a
factory opened is closed when the test ends.

Test modules import the fixtures by their function names (``backend_param`` and so on, with
``# noqa: F401``) and use them by their fixture names.
"""

from __future__ import annotations

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


@pytest.fixture(params=BACKENDS, name="backend")
def backend_param(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(name="db_target")
def db_target_fixture(backend: str, request: pytest.FixtureRequest, tmp_path: Path
                      ) -> str | Path:
    """A place for a new registry: ``tmp_path/registry.db``, or a fresh empty database."""
    if backend == "sqlite":
        return tmp_path / "registry.db"
    return request.getfixturevalue("pg_dsn")


class Places:
    """New, empty places for registries and corpora of one backend, for one test."""

    def __init__(self, backend: str, request: pytest.FixtureRequest, tmp_path: Path):
        self.backend = backend
        self._dsn = request.getfixturevalue("pg_dsn") if backend == "postgresql" else None
        self._tmp = tmp_path
        self._count = 0
        self._opened: list[Any] = []

    def target(self) -> str | Path:
        """A new place: a file path (not created yet), or the URL of a new, empty schema."""
        self._count += 1
        if self._dsn is None:
            return self._tmp / f"registry-{self._count}.db"
        name = f"s{self._count}"
        with connect(self._dsn) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return with_search_path(self._dsn, name)

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
