"""``amend registry``: the contract's arguments, JSON and exit statuses, and bad input giving
one line and no traceback; ``--db`` a SQLite file or a PostgreSQL URL (both backends)."""

from __future__ import annotations

import json

import pytest
from backend_support import (  # noqa: F401 (fixtures: backend, db_target)
    NEWER_SCHEMA,
    backend_param,
    connect,
    db_target_fixture,
    pg_shared_fixture,
)
from click.testing import CliRunner
from registry_support import SEED, dump, write

from registry.cli import registry

ASK = ["--family", "pump-seal", "--procedure", "seal-torque", "--configuration", "C2",
       "--region", "EU", "--tenant", "acme", "--roles", "technician"]


def run(*args):
    result = CliRunner().invoke(registry, [str(a) for a in args])
    assert "Traceback" not in result.output + result.stderr
    return result


@pytest.fixture
def db(db_target):
    assert run("import", SEED / "registry.yaml", "--db", db_target).exit_code == 0
    return db_target


def test_import_json_prints_snapshot_and_revision_count(db_target):
    path = db_target
    first = run("import", SEED / "registry.yaml", "--db", path, "--json")
    assert first.exit_code == 0
    assert json.loads(first.stdout).items() >= {"snapshot": 1, "revisions": 4}.items()
    again = run("import", SEED / "registry.yaml", "--db", path, "--json")
    assert json.loads(again.stdout)["snapshot"] == 1  # no-op: reports the current snapshot


def test_db_defaults_to_the_app_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("AMEND_DATA_DIR", str(tmp_path / "data"))
    assert run("import", SEED / "registry.yaml").exit_code == 0
    assert (tmp_path / "data" / "registry.db").is_file()
    assert json.loads(run("resolve", *ASK, "--at", "6", "--json").stdout)["revision"] \
        == "bulletin-B"


def test_resolve_json_is_the_contract_object(db):
    result = run("resolve", *ASK, "--at", "6", "--db", db, "--json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert {k: out[k] for k in ("outcome", "revision", "edition", "language", "valid",
                                "known_at")} == {
        "outcome": "RESOLVED", "revision": "bulletin-B", "edition": "bulletin-B",
        "language": "en", "valid": [5, 10], "known_at": 1}
    assert out["scope_token"] and len(out["cache_key"]) == 64
    assert out["label"] == "as of tick 6"


def test_unavailable_json_names_no_revision(db):
    run("import", SEED / "restricted.yaml", "--db", db)
    result = run("resolve", *ASK, "--at", "6", "--db", db, "--json")
    out = json.loads(result.stdout)
    assert result.exit_code == 0 and out["outcome"] == "UNAVAILABLE"
    assert "revision" not in out and "edition" not in out
    assert "bulletin-B" not in result.stdout and "manual-A" not in result.stdout


def test_missing_configuration_is_an_outcome_with_exit_0(db):
    result = run("resolve", "--family", "pump-seal", "--procedure", "seal-torque",
                 "--region", "EU", "--tenant", "acme", "--at", "12", "--db", db, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout).items() >= {"outcome": "MISSING_SCOPE",
                                             "missing": ["configuration"]}.items()


def test_current_mode_with_now_is_labelled_current(db):
    out = json.loads(run("resolve", *ASK, "--current", "--now", "10", "--db", db,
                         "--json").stdout)
    assert (out["revision"], out["mode"], out["label"]) == ("manual-C", "current", "current")


def test_known_at_answers_with_an_earlier_snapshot(db):
    run("import", SEED / "restricted.yaml", "--db", db)
    earlier = json.loads(run("resolve", *ASK, "--at", "6", "--known-at", "1", "--db", db,
                             "--json").stdout)
    assert (earlier["outcome"], earlier["known_at"]) == ("RESOLVED", 1)


@pytest.mark.parametrize("args,fragment", [
    (["--at", "2026-12-01T00:00:00Z"], "integer tick"),
    (["--at", "6", "--current"], "cannot be combined"),
    (["--at", "6", "--known-at", "7"], "no such registry snapshot"),
    (["--current"], "needs 'now' as a tick"),
    (["--at", "6", "--field", "opened"], "NAME=VALUE"),
])
def test_bad_arguments_exit_2_with_one_line(db, args, fragment):
    result = run("resolve", *ASK, *args, "--db", db)
    assert result.exit_code == 2 and fragment in result.stderr


def test_rejected_import_prints_every_error_exits_1_and_changes_nothing(db, tmp_path):
    bad = (SEED / "registry.yaml").read_text().replace("valid: [5, 10]", "valid: [10, 5]") \
        .replace("status: approved\n    tenant: \"*\"\n    applies:\n      - {procedure: "
                 "seal-torque, configurations: [C2], regions: [EU], valid: [10, null]}",
                 "status: aproved\n    tenant: \"*\"\n    applies:\n      - {procedure: "
                 "seal-torque, configurations: [C2], regions: [EU], valid: [10, null]}")
    before = dump(db)
    result = run("import", write(tmp_path, "bad.yaml", bad), "--db", db, "--json")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("error: ") for line in lines)
    assert "'bulletin-B'" in result.stderr and "'manual-C'" in result.stderr
    assert dump(db) == before


def test_corrupt_database_exits_2_without_traceback(tmp_path):
    path = write(tmp_path, "r.db", "garbage " * 1000)
    for args in (["import", SEED / "registry.yaml"], ["validate"], ["resolve", *ASK, "--at", 6]):
        result = run(*args, "--db", path)
        assert result.exit_code == 2 and "not a readable registry database" in result.stderr


def test_newer_schema_exits_2(db, backend):
    conn = connect(db)
    conn.execute(NEWER_SCHEMA[backend])
    conn.close()
    result = run("resolve", *ASK, "--at", 6, "--db", db)
    assert result.exit_code == 2 and "newer Amend" in result.stderr


def test_missing_database_for_resolve_exits_2_and_creates_nothing(db_target):
    before = dump(db_target)
    result = run("resolve", *ASK, "--at", 6, "--db", db_target)
    assert result.exit_code == 2 and "run 'amend registry import" in result.stderr
    assert dump(db_target) == before


@pytest.mark.parametrize("command", [["import", SEED / "registry.yaml"], ["validate"],
                                     ["resolve", *ASK, "--at", 6], ["explain", *ASK, "--at", 6]])
def test_unreachable_postgres_url_exits_2_with_one_line_without_the_password(command):
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        url = f"postgresql://amend:s3cret@127.0.0.1:{free.getsockname()[1]}/registry"
    result = run(*command, "--db", url)
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("error: postgresql://amend@127.0.0.1:")
    assert "cannot connect to PostgreSQL" in result.stderr and "s3cret" not in result.stderr


def test_unwritable_database_path_exits_2(tmp_path):
    result = run("import", SEED / "registry.yaml", "--db", tmp_path / "no" / "r.db")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_validate_json_lists_findings_and_exits_0_without_errors(db):
    run("import", SEED / "competing.yaml", "--db", db)
    result = run("validate", "--db", db, "--json")
    findings = json.loads(result.stdout)
    assert result.exit_code == 0 and isinstance(findings, list)
    assert [(f["severity"], f["kind"]) for f in findings] == [("finding", "overlap")]


def test_validate_exits_1_on_a_contract_error(db, backend):
    conn = connect(db)  # an edit behind the importer's back: drop the trigger first
    conn.execute("DROP TRIGGER revisions_content_immutable"
                 + (" ON revisions" if backend == "postgresql" else ""))
    conn.execute("UPDATE revisions SET content = '{\"text\": \"tampered\"}' "
                 "WHERE id = 'manual-A'")
    conn.close()
    result = run("validate", "--db", db)
    assert result.exit_code == 1 and "error: digest:" in result.stdout


def test_explain_shows_every_candidate_and_why(db):
    run("import", SEED / "competing.yaml", "--db", db)
    result = run("explain", *ASK, "--at", "12", "--db", db)
    assert result.exit_code == 0
    assert result.stdout.startswith("UNRESOLVED_AUTHORITY")
    for rid in ("manual-A", "manual-A-de", "bulletin-B", "manual-C", "manual-D"):
        assert rid in result.stdout
    data = json.loads(run("explain", *ASK, "--at", "6", "--db", db, "--json").stdout)
    assert {r["revision"]: r["verdict"] for r in data["revisions"]}["bulletin-B"] == "winner"


def test_resolve_with_fields_prints_the_matching_section(db_target):
    path = db_target
    from registry.demo import demo_files

    for f in demo_files():
        assert run("import", f, "--db", path).exit_code == 0
    out = json.loads(run("resolve", "--family", "returns", "--procedure", "filter-kit",
                         "--configuration", "C2", "--region", "EU", "--tenant", "acme",
                         "--current", "--now", "2026-12-01T09:00:00+01:00",
                         "--field", "opened=no", "--db", path, "--json").stdout)
    assert out["revision"] == "returns-eu-2026"
    assert [s["id"] for s in out["sections"]] == ["unopened"]


def test_historical_instant_answer_is_labelled_with_its_date(db_target):
    from registry.demo import demo_files

    path = db_target
    for f in demo_files():
        run("import", f, "--db", path)
    out = json.loads(run("resolve", *ASK, "--at", "2026-03-03T09:00:00+01:00", "--db", path,
                         "--json").stdout)
    assert (out["revision"], out["label"]) == ("nw-manual-a", "as of 3 March 2026, 09:00 +01:00")
