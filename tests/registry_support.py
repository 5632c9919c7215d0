"""Shared helpers for the registry tests (not a conftest: plain functions, imported by name)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.core.ports import ResolutionQuery
from registry import schema, store
from registry.parse import parse_file
from registry.resolver import Registry

# Seed 003's vectors, kept in this repository as the project's own fixture files.
SEED = Path(__file__).resolve().parent / "fixtures" / "seed-003"


def registry_from(*files: str | Path, now_tick: int | None = None, **kwargs) -> Registry:
    """An in-memory registry with ``files`` imported in order (seed names or paths)."""
    db = schema.memory()
    for name in files:
        path = Path(name) if Path(name).is_absolute() else SEED / name
        store.apply_file(db, parse_file(path))
    return Registry(db, now_tick=now_tick, **kwargs)


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


def dump(db_path: Path) -> tuple:
    """Everything observable in a database file: user_version plus the full SQL dump."""
    import sqlite3

    if not db_path.exists():
        return ("absent",)
    conn = sqlite3.connect(db_path)
    try:
        return (conn.execute("PRAGMA user_version").fetchone()[0], tuple(conn.iterdump()))
    finally:
        conn.close()
