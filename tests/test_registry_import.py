"""Importing registry files: every contract rejection, atomicity, no-op re-imports, corrections
seen through ``known_at``, and the integrity the database itself enforces, on SQLite and on
PostgreSQL (its exclusion constraint, the import lock between processes, unreachable URLs)."""

from __future__ import annotations

import sqlite3

import pytest
from backend_support import (  # noqa: F401 (fixtures: backend, db_target, places, registry_from)
    NEWER_SCHEMA,
    backend_param,
    connect,
    db_target_fixture,
    driver_error,
    pg_shared_fixture,
    places_fixture,
    registry_from_fixture,
)
from registry_support import SEED, dump, seed_query, write

from agent.core.ports import RegistryOutcome
from registry import schema, store
from registry.errors import BadDatabase, RejectedFile
from registry.resolver import Registry

HEAD = "registry: seed-003-fixture\ntime: ticks\nrevisions:\n"


def rev(rid="manual-X", *, extra="", applies=None, text="Some text.", family="pump-seal",
        kind="manual"):
    applies = applies or "{procedure: seal-torque, configurations: [C2], regions: [EU], " \
                         "valid: [20, 30]}"
    return (f"  - id: {rid}\n    family: {family}\n    kind: {kind}\n    language: en\n"
            f"    status: approved\n    tenant: \"*\"\n    applies:\n      - {applies}\n"
            f"{extra}    text: \"{text}\"\n")


@pytest.fixture
def seeded(db_target):
    store.import_path(db_target, SEED / "registry.yaml")
    return db_target


REJECTIONS = {
    "missing key": (rev().replace("    status: approved\n", ""), "missing required key 'status'"),
    "wrong type": (rev(extra="    roles: technician\n"), "'roles' must be a non-empty list"),
    "missing region key is never a wildcard": (
        rev(applies="{procedure: seal-torque, configurations: [C2], valid: [20, 30]}"),
        "missing required key 'regions'"),
    "empty interval": (rev(applies="{procedure: seal-torque, configurations: [C2], "
                                   "regions: [EU], valid: [5, 5]}"), "is empty"),
    "inverted interval": (rev(applies="{procedure: seal-torque, configurations: [C2], "
                                      "regions: [EU], valid: [10, 5]}"), "is inverted"),
    "tick written as text": (rev(applies="{procedure: seal-torque, configurations: [C2], "
                                         "regions: [EU], valid: ['5', 9]}"), "integer tick"),
    "unknown key": (rev(extra="    stauts: draft\n"), "did you mean 'status'"),
    "bad kind": (rev(kind="memo"), "'kind' must be one of"),
    "supersedes unknown revision": (
        rev(extra="    supersedes:\n      - {revision: manual-Z, procedure: seal-torque, "
                  "decision: AD-9}\n"), "unknown revision 'manual-Z'"),
    "supersedes across families": (
        rev(family="returns", applies="{procedure: seal-torque, configurations: [C2], "
                                      "regions: [EU], valid: [20, 30]}",
            extra="    supersedes:\n      - {revision: manual-C, procedure: seal-torque, "
                  "decision: AD-9}\n"), "never crosses families"),
    "supersedes for an uncovered procedure": (
        rev(extra="    supersedes:\n      - {revision: manual-C, procedure: impeller, "
                  "decision: AD-9}\n"), "does not cover procedure 'impeller'"),
    "direct cycle": (
        rev("manual-A", applies="{procedure: seal-torque, configurations: [C2], "
                                "regions: [EU], valid: [0, 10]}",
            text="Pump seal, configuration C2: tighten the seal bolts to 40 Nm.",
            extra="    supersedes:\n      - {revision: bulletin-B, procedure: seal-torque, "
                  "decision: AD-2}\n"), "cycle within procedure 'seal-torque'"),
    "transitive cycle": (
        rev("manual-X", extra="    supersedes:\n      - {revision: bulletin-B, "
                              "procedure: seal-torque, decision: AD-3}\n")
        + rev("manual-A", applies="{procedure: seal-torque, configurations: [C2], "
                                  "regions: [EU], valid: [0, 10]}",
              text="Pump seal, configuration C2: tighten the seal bolts to 40 Nm.",
              extra="    supersedes:\n      - {revision: manual-X, procedure: seal-torque, "
                    "decision: AD-4}\n"), "cycle within procedure 'seal-torque'"),
    "equivalent_to unknown": (rev(kind="translation", extra="    equivalent_to: manual-Q\n"),
                              "equivalent_to: unknown revision 'manual-Q'"),
    "equivalent_to another family": (
        rev("returns-1", family="returns") + rev(kind="translation",
                                                 extra="    equivalent_to: returns-1\n"),
        "equivalent_to: 'returns-1' is of family 'returns'"),
    "changed text under an existing id": (
        rev("manual-A", applies="{procedure: seal-torque, configurations: [C2], "
                                "regions: [EU], valid: [0, 10]}", text="Now 41 Nm."),
        "key 'text': the content differs"),
    "duplicate id in one file": (rev("manual-ok"), "the id appears twice in this file"),
    "text and sections both": (rev(extra="    sections: [{id: a, text: b}]\n"),
                               "exactly one of 'text' or 'sections'"),
    "unquoted yes in a when condition": (
        rev().replace('    text: "Some text."\n',
                      "    sections:\n      - {id: opened, when: {opened: yes}, text: t}\n"),
        "quoted strings"),
}


@pytest.mark.parametrize("name", REJECTIONS)
def test_rejected_file_names_file_revision_and_key_and_leaves_database_unchanged(
        name, seeded, tmp_path):
    body, fragment = REJECTIONS[name]
    bad = write(tmp_path, "bad.yaml", HEAD + rev("manual-ok") + body)  # one good, one bad
    before = dump(seeded)
    with pytest.raises(RejectedFile) as caught:
        store.import_path(seeded, bad)
    problems = "\n".join(caught.value.problems)
    assert fragment in problems
    assert "bad.yaml" in problems and "revision '" in problems
    assert dump(seeded) == before  # not even the good revision was written


@pytest.mark.parametrize("text,fragment", [
    ("registry: x\ntime: ticks\nrevisions: [\n", "not valid YAML at line"),
    ("- just\n- a list\n", "top level must be a mapping"),
    ("registry: x\ntime: hours\nrevisions: []\n", "key 'time' must be"),
    ("registry: other-name\ntime: ticks\nrevisions: []\n", "holds registry 'seed-003-fixture'"),
    ("registry: seed-003-fixture\ntime: instants\nrevisions: []\n", "holds time 'ticks'"),
    ("registry: seed-003-fixture\ntime: ticks\nrevisons: []\n", "did you mean 'revisions'"),
])
def test_malformed_file_is_rejected_with_one_line_cause(text, fragment, seeded, tmp_path):
    before = dump(seeded)
    with pytest.raises(RejectedFile) as caught:
        store.import_path(seeded, write(tmp_path, "bad.yaml", text))
    assert any(fragment in p and "\n" not in p for p in caught.value.problems)
    assert dump(seeded) == before


def test_bare_date_in_an_instants_file_is_rejected_and_no_database_is_created(tmp_path):
    text = ("registry: r\ntime: instants\nrevisions:\n" + rev(
        applies="{procedure: p, configurations: [C2], regions: [EU], "
                "valid: [2026-12-01, null]}"))
    db = tmp_path / "new.db"
    with pytest.raises(RejectedFile) as caught:
        store.import_path(db, write(tmp_path, "dates.yaml", text))
    assert "bare date '2026-12-01'" in caught.value.problems[0]
    assert "revision 'manual-X': applies[0].valid" in caught.value.problems[0]
    assert not db.exists() and list(tmp_path.iterdir()) == [tmp_path / "dates.yaml"]


def test_rejected_first_import_leaves_the_database_without_tables(db_target, tmp_path):
    """A file that fails the second pass (the database's checks) on an empty database: on
    SQLite the file it created is removed, on PostgreSQL the schema it created rolls back."""
    before = dump(db_target)
    bad = HEAD + rev(extra="    supersedes:\n      - {revision: manual-Z, procedure: "
                           "seal-torque, decision: AD-9}\n")
    with pytest.raises(RejectedFile, match="unknown revision 'manual-Z'"):
        store.import_path(db_target, write(tmp_path, "bad.yaml", bad))
    assert dump(db_target) == before


def test_reimporting_the_same_file_is_a_no_op(seeded):
    before = dump(seeded)
    result = store.import_path(seeded, SEED / "registry.yaml")
    assert (result.snapshot, result.changed, result.new) == (1, False, 0)
    assert dump(seeded) == before


def test_correction_creates_a_snapshot_and_known_at_sees_each_interpretation(registry_from):
    registry = registry_from("registry.yaml", "restricted.yaml")
    assert registry.snapshot == 2
    earlier = registry.resolve(seed_query(at="6", known_at=1))
    later = registry.resolve(seed_query(at="6"))
    assert (earlier.outcome, earlier.revision) == (RegistryOutcome.RESOLVED, "bulletin-B")
    assert later.outcome is RegistryOutcome.UNAVAILABLE


def test_growing_effectivity_by_correction_is_time_travelled(tmp_path, registry_from):
    grown = (SEED / "registry.yaml").read_text().replace(
        "{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [5, 10]}",
        "{procedure: seal-torque, configurations: [C2, C3], regions: [EU], valid: [5, 10]}")
    registry = registry_from("registry.yaml", write(tmp_path, "grown.yaml", grown))
    c3 = seed_query(at="6", configuration="C3")
    assert registry.resolve(c3).revision == "bulletin-B"
    assert registry.resolve(seed_query(at="6", configuration="C3", known_at=1)).outcome \
        is RegistryOutcome.NOT_APPLICABLE
    assert registry.resolve(seed_query(at="6", known_at=0)).outcome \
        is RegistryOutcome.NOT_APPLICABLE  # before any import nothing was known


def test_database_refuses_to_change_revision_content_or_history(seeded, backend):
    conn = connect(seeded)
    for sql in ("UPDATE revisions SET content = '{\"text\": \"41 Nm\"}' WHERE id = 'manual-A'",
                f"UPDATE revisions SET digest = '{'ab' * 32}' WHERE id = 'manual-A'",
                "DELETE FROM revisions WHERE id = 'manual-A'",
                "UPDATE interpretations SET status = 'withdrawn' WHERE revision = 'manual-A'",
                "DELETE FROM interpretations",
                "UPDATE scopes SET to_key = 99",
                "INSERT INTO revisions VALUES ('x', 'f', 'memo', 'en', '*', '{}', "
                "'0000000000000000000000000000000000000000000000000000000000000000', 1)",
                "INSERT INTO scopes VALUES (1, 0, 'f', 'p', 'c', 'r', 'soon', NULL)"):
        with pytest.raises(driver_error(backend)):
            conn.execute(sql)
    conn.close()


def test_sqlite_database_is_wal_strict_and_versioned(tmp_path):
    seeded = tmp_path / "registry.db"
    store.import_path(seeded, SEED / "registry.yaml")
    conn = sqlite3.connect(seeded)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    strict = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                          "AND sql LIKE '%STRICT'").fetchone()[0]
    assert strict == conn.execute("SELECT count(*) FROM sqlite_master "
                                  "WHERE type = 'table'").fetchone()[0]
    conn.close()


def test_database_from_a_newer_schema_is_refused_and_left_alone(seeded, backend):
    conn = connect(seeded)
    conn.execute(NEWER_SCHEMA[backend])
    conn.close()
    before = dump(seeded)
    with pytest.raises(BadDatabase, match="newer Amend"):
        store.import_path(seeded, SEED / "competing.yaml")
    with pytest.raises(BadDatabase, match="newer Amend"):
        Registry.open(seeded)
    assert dump(seeded) == before


def test_corrupt_database_file_is_refused_and_left_alone(tmp_path):
    db = write(tmp_path, "registry.db", "this is not sqlite at all " * 200)
    before = db.read_bytes()
    with pytest.raises(BadDatabase, match="not a readable registry database"):
        store.import_path(db, SEED / "registry.yaml")
    assert db.read_bytes() == before


def test_unwritable_database_path_is_refused_without_creating_anything(tmp_path):
    with pytest.raises(BadDatabase, match="does not exist"):
        store.import_path(tmp_path / "missing-dir" / "r.db", SEED / "registry.yaml")
    assert not (tmp_path / "missing-dir").exists()


@pytest.mark.parametrize("make,fragment", [
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE t (x)").connection.close(),
     "not an Amend registry"),
    (lambda p: p.write_bytes(b""), "empty file"),
    (lambda p: p.mkdir(), "is a directory"),
])
def test_other_files_at_the_database_path_are_refused_and_left_alone(tmp_path, make, fragment):
    path = tmp_path / "r.db"
    make(path)
    before = dump(path) if path.is_file() else "dir"
    with pytest.raises(BadDatabase, match=fragment):
        store.import_path(path, SEED / "registry.yaml")
    assert (dump(path) if path.is_file() else "dir") == before


REFUSE_PROCEDURE_BOOM = {
    "sqlite": "CREATE TRIGGER no_boom BEFORE INSERT ON scopes WHEN NEW.procedure = 'boom' "
              "BEGIN SELECT RAISE(ABORT, 'boom refused for the test'); END",
    "postgresql": "ALTER TABLE scopes ADD CONSTRAINT no_boom CHECK (procedure <> 'boom')"}


def test_import_failing_inside_the_database_midway_writes_nothing(seeded, backend, tmp_path):
    """The checks pass, then the database refuses a row of the second new revision: the
    first one, its snapshot and everything else are rolled back with it."""
    conn = connect(seeded)
    conn.execute(REFUSE_PROCEDURE_BOOM[backend])
    conn.close()
    before = dump(seeded)
    boom = "{procedure: boom, configurations: [C2], regions: [EU], valid: [0, null]}"
    path = write(tmp_path, "two.yaml", HEAD + rev("manual-ok") + rev("manual-boom",
                                                                      applies=boom))
    with pytest.raises(BadDatabase, match="failed during the import .*nothing was written"):
        store.import_path(seeded, path)
    assert dump(seeded) == before


def test_postgres_exclusion_constraint_keeps_interpretations_from_overlapping(pg_dsn, tmp_path):
    """At every snapshot a revision has one interpretation. The registry's own check refuses
    a file that would give it two, with the same message as on SQLite (see REJECTIONS,
    "duplicate id in one file"); behind the registry's back PostgreSQL refuses the row."""
    store.import_path(pg_dsn, SEED / "registry.yaml")
    twice = HEAD + rev("manual-X") + rev("manual-X", text="Other text.")
    with pytest.raises(RejectedFile, match="the id appears twice in this file"):
        store.import_path(pg_dsn, write(tmp_path, "twice.yaml", twice))
    import psycopg

    row = ("INSERT INTO interpretations (id, revision, known_from, known_to, status, roles, "
           "applies, supersedes, canonical) VALUES (%s, 'manual-A', %s, %s, 'approved', '[]', "
           "'[]', '[]', '')")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO snapshots VALUES (2, 'now', 'hand.yaml', %s), "
                     "(3, 'now', 'hand.yaml', %s)", ("0" * 64, "0" * 64))
        # A correction's shape is accepted: close the current row at 2, open one from 2.
        conn.execute("UPDATE interpretations SET known_to = 2 WHERE revision = 'manual-A'")
        conn.execute(row, (100, 2, None))
        # [1, 3) overlaps both; the one-current unique index cannot see it, the constraint does.
        with pytest.raises(psycopg.errors.ExclusionViolation,
                           match="interpretations_never_overlap"):
            conn.execute(row, (101, 1, 3))


def test_postgres_import_holds_the_registry_lock_until_its_transaction_ends(pg_dsn):
    import psycopg

    store.import_path(pg_dsn, SEED / "registry.yaml")
    db, _ = schema.open_for_import(pg_dsn)
    advisory = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
    with psycopg.connect(pg_dsn, autocommit=True) as other:
        db.begin_write()
        assert other.execute(advisory).fetchone()[0] == 1
        db.rollback()
        assert other.execute(advisory).fetchone()[0] == 0
    db.close()


def _import_each(url: str, paths: list, barrier, results) -> None:
    """One importing process: wait for the others, then import ``paths`` in order, reporting
    (file name, snapshot or the error) for each."""
    barrier.wait()
    for path in paths:
        try:
            results.put((path.name, store.import_path(url, path).snapshot))
        except BadDatabase as exc:
            results.put((path.name, str(exc)))


def test_postgres_importers_in_several_processes_take_turns(pg_dsn, tmp_path):
    """Three processes import four files each at once. Every file corrects the same revision
    (so each import reads what the previous one wrote) and adds its own: with the lock they
    all succeed, snapshots are 1..13 with no gap, and each holds exactly its file's rows."""
    import multiprocessing

    shared = "{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [0, %d]}"
    store.import_path(pg_dsn, write(tmp_path, "base.yaml",
                                    HEAD + rev("shared", applies=shared % 1000)))
    files = {k: [write(tmp_path, f"p{k}-{i}.yaml", HEAD + rev(f"p{k}-{i}") + rev(
        "shared", applies=shared % (100 + 10 * k + i))) for i in range(4)] for k in range(3)}
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(3), context.Queue()
    workers = [context.Process(target=_import_each, args=(pg_dsn, paths, barrier, results))
               for paths in files.values()]
    for worker in workers:
        worker.start()
    done = [results.get(timeout=60) for _ in range(12)]
    for worker in workers:
        worker.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert all(isinstance(snapshot, int) for _, snapshot in done), done
    assert sorted(snapshot for _, snapshot in done) == list(range(2, 14))
    with connect(pg_dsn) as conn:
        owners = dict(conn.execute("SELECT id, source FROM snapshots").fetchall())
        firsts = dict(conn.execute("SELECT id, first_snapshot FROM revisions").fetchall())
        corrected = conn.execute("SELECT known_from, known_to FROM interpretations "
                                 "WHERE revision = 'shared' ORDER BY known_from").fetchall()
    assert all(owners[firsts[name.removesuffix(".yaml")]] == name for name, _ in done)
    assert corrected == [(s, s + 1) for s in range(1, 13)] + [(13, None)]


@pytest.mark.parametrize("url", ["postgresql://amend:s3cret@127.0.0.1:{port}/registry",
                                 "postgresql://amend@127.0.0.1:{port}/registry?password=s3cret"])
def test_unreachable_postgres_url_is_one_clear_error_without_the_password(url, tmp_path):
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        url = url.format(port=free.getsockname()[1])
    for attempt in (lambda: Registry.open(url),
                    lambda: store.import_path(url, SEED / "registry.yaml")):
        with pytest.raises(BadDatabase) as caught:
            attempt()
        message = str(caught.value)
        assert message.startswith("postgresql://amend@127.0.0.1:") and "/registry:" in message
        assert "cannot connect to PostgreSQL" in message and "start the server" in message
        assert "s3cret" not in message and "\n" not in message


def test_postgres_registry_shares_a_database_with_other_applications(pg_dsn):
    """The sandbox (or anything else) may keep its tables in the same schema."""
    with connect(pg_dsn) as conn:
        conn.execute("CREATE TABLE orders (id integer)")
        conn.execute("INSERT INTO orders VALUES (7)")
    assert store.import_path(pg_dsn, SEED / "registry.yaml").snapshot == 1
    assert Registry.open(pg_dsn).resolve(seed_query(at="6")).revision == "bulletin-B"
    with connect(pg_dsn) as conn:
        assert conn.execute("SELECT id FROM orders").fetchall() == [(7,)]


def test_postgres_tables_of_the_registrys_names_are_refused_and_left_alone(pg_dsn):
    with connect(pg_dsn) as conn:
        conn.execute("CREATE TABLE revisions (id text)")
    before = dump(pg_dsn)
    for attempt in (lambda: Registry.open(pg_dsn),
                    lambda: store.import_path(pg_dsn, SEED / "registry.yaml")):
        with pytest.raises(BadDatabase, match=r"not an Amend registry database, though its "
                                              r"schema has tables of the registry's names "
                                              r"\(revisions\); give the registry its own"):
            attempt()
    assert dump(pg_dsn) == before


def test_empty_postgres_database_is_no_registry_until_the_first_import(pg_dsn):
    with pytest.raises(BadDatabase, match="no registry database there; run 'amend registry "
                                          "import FILE --db postgresql://"):
        Registry.open(pg_dsn)
    assert dump(pg_dsn) == ()


def test_gap_under_a_wildcard_is_reported_once_for_the_scope_it_is_in(tmp_path, registry_from):
    from registry.findings import validate

    text = HEAD + rev("m-c2", applies="{procedure: p, configurations: [C2], regions: [EU], "
                                      "valid: [0, 10]}") \
        + rev("m-all", applies="{procedure: p, configurations: ['*'], regions: [EU], "
                               "valid: [12, null]}")
    (gap,) = validate(registry_from(write(tmp_path, "g.yaml", text)))
    assert gap.scope == "pump-seal/p/C2/EU" and "[10, 12)" in gap.message
