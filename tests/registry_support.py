"""Shared helpers for the registry tests (not a conftest: plain functions, imported by name).

The fixtures that run a test on both database backends are in ``backend_support``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.core.ports import ResolutionQuery
from registry.backend import is_url

# Seed 003's vectors, kept in this repository as the project's own fixture files.
SEED = Path(__file__).resolve().parent / "fixtures" / "seed-003"


def seed_query(**overrides: Any) -> ResolutionQuery:
    """The seed's defaults: pump-seal / seal-torque, tenant acme, role technician, en."""
    base: dict[str, Any] = {"tenant": "acme", "roles": ("technician",), "family": "pump-seal",
            "procedure": "seal-torque", "configuration": "C2", "region": "EU",
            "mode": "historical", "at": None, "language": "en"}
    base.update(overrides)
    return ResolutionQuery(**base)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def dump(target: str | Path) -> tuple:
    """Everything observable in a registry database: for a file, user_version plus the full
    SQL dump; for a PostgreSQL URL, every table of its current schema with its rows."""
    if is_url(target):
        return _dump_postgres(str(target))
    import sqlite3

    db_path = Path(target)
    if not db_path.exists():
        return ("absent",)
    conn = sqlite3.connect(db_path)
    try:
        return (conn.execute("PRAGMA user_version").fetchone()[0], tuple(conn.iterdump()))
    finally:
        conn.close()


def _dump_postgres(url: str) -> tuple:
    import psycopg

    with psycopg.connect(url) as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
            "ORDER BY tablename")]
        return tuple((name, tuple(sorted(map(repr, conn.execute(f'SELECT * FROM "{name}"')))))
                     for name in tables)
