"""Many agents (issue 17): `amend call --agents N --db postgresql://...`.

A batch of scripted calls runs in N agent processes that share one sandbox and one registry
on PostgreSQL. Each call is a tenant of its own there, so calls that run at the same time in
different processes never see each other's bookings, seeded references or faults.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from ui.cli import main

pytestmark = pytest.mark.slow

CALLS = Path(__file__).parent / "calls"
# Text-mode scripts: two seed a booking under the same handle, and one books from scratch
# under a sandbox fault of its own (its first create is held 5 s: a timeout, then a lookup).
SCRIPTS = ("15-success-for-stale-version.yaml", "21-from-to-booked-visit.yaml",
           "10-retry-after-timeout-same-key.yaml")


def test_a_batch_on_two_agent_processes_sharing_postgresql_passes_call_by_call(
        pg_dsn, tmp_path):
    report = tmp_path / "report.json"
    result = CliRunner().invoke(main, [
        "call", *(str(CALLS / s) for s in SCRIPTS), "--mode", "text", "--agents", "2",
        "-j", "3", "--db", pg_dsn, "--report", str(report)])
    calls = json.loads(report.read_text())["calls"]
    assert [c["id"] for c in calls] == [s.removesuffix(".yaml") for s in SCRIPTS]
    assert all(c["verdict"] == "PASS" for c in calls), (result.output, calls)
    assert result.exit_code == 0
    with psycopg.connect(pg_dsn) as db:
        rows = db.execute("SELECT tenant, ref FROM bookings").fetchall()
    # Each call that booked did so in a tenant of its own (the script's tenant and a suffix);
    # the two that seeded the handle VISIT each hold their own VISIT, side by side.
    tenants = Counter(t for t, _ in rows)
    assert len(rows) == 3 and set(tenants.values()) == {1}, rows
    assert all(t.startswith("acme~") for t in tenants)
    assert sorted(ref for _, ref in rows)[-2:] == ["VISIT", "VISIT"]


def test_agents_and_db_go_together_and_db_must_be_postgresql(tmp_path):
    script = str(CALLS / SCRIPTS[0])
    alone = CliRunner().invoke(main, ["call", script, "--mode", "text", "--agents", "2"])
    assert alone.exit_code == 2 and "--agents and --db go together" in alone.output
    sqlite = CliRunner().invoke(main, ["call", script, "--mode", "text", "--agents", "2",
                                       "--db", str(tmp_path / "x.db")])
    assert sqlite.exit_code == 2 and "is not a PostgreSQL URL" in sqlite.output
