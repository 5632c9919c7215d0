"""The Northwind Pumps demo registry: pump-seal torque revisions and return policies.

``load_demo`` imports every ``*.yaml`` here, in name order, into one database. Used by the
demo app and by scripted calls (``registry: default``). All values are invented test data.
"""

from __future__ import annotations

from pathlib import Path

from agent.core.clock import Clock
from registry import schema, store
from registry.parse import parse_file
from registry.resolver import Registry

DEMO_DIR = Path(__file__).parent


def demo_files() -> tuple[Path, ...]:
    return tuple(sorted(DEMO_DIR.glob("*.yaml")))


def load_demo(db_path: str | Path | None = None, clock: Clock | None = None) -> Registry:
    """Import the demo files into ``db_path`` (created if absent; None = in memory).

    Side effect: writes the database file. Re-loading into the same file is a no-op.
    """
    if db_path is None:
        db = schema.memory()
        for path in demo_files():
            store.apply_file(db, parse_file(path))
        return Registry(db, clock=clock)
    for path in demo_files():
        store.import_path(db_path, path)
    return Registry(schema.open_existing(db_path, read_only=False), clock=clock)
