"""Importing registry files: one atomic transaction per file, one snapshot per change.

``apply_file`` is the only writer. It takes the write lock (SQLite's ``BEGIN IMMEDIATE``, or on
PostgreSQL a transaction holding the registry's advisory lock, so importers in other processes
wait), reads the latest state, checks the file against it, and either writes everything under
a new snapshot or rolls back and raises :class:`RejectedFile`. An import that changes nothing is
a no-op. The same code runs on both backends (:mod:`registry.backend`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from registry import backend, checks, schema
from registry.backend import Database
from registry.errors import BadDatabase, RejectedFile
from registry.model import (
    Edge,
    Interpretation,
    ProcedureSpec,
    RegistryFile,
    RevisionSpec,
    Scope,
    sections_from_content,
)
from registry.parse import parse_file
from registry.timeaxis import TimeKind, time_key


@dataclass(frozen=True, slots=True)
class ImportResult:
    snapshot: int  # the snapshot now current (unchanged on a no-op)
    revisions: int  # revisions in the file
    new: int
    corrected: int
    changed: bool

    def as_json(self) -> dict:
        return {"snapshot": self.snapshot, "revisions": self.revisions, "new": self.new,
                "corrected": self.corrected, "changed": self.changed}


def registry_info(db: Database) -> dict[str, str]:
    return dict(db.execute("SELECT key, value FROM registry_info").fetchall())


def latest_snapshot(db: Database) -> int:
    return db.execute("SELECT coalesce(max(id), 0) FROM snapshots").fetchone()[0]


def _interp_from_row(kind: TimeKind, status, roles, equivalent, applies, supersedes):
    scopes = tuple(Scope(a["procedure"], tuple(a["configurations"]), tuple(a["regions"]),
                         a["valid"][0], a["valid"][1], time_key(kind, a["valid"][0]),
                         None if a["valid"][1] is None else time_key(kind, a["valid"][1]))
                   for a in json.loads(applies))
    edges = tuple(Edge(*e) for e in json.loads(supersedes))
    return Interpretation(status, tuple(json.loads(roles)), scopes, edges, equivalent)


def load_state(db: Database, known_at: int | None = None) -> dict[str, RevisionSpec]:
    """Every revision with its interpretation as known at ``known_at`` (default latest).

    Read-only. Revisions imported after ``known_at`` are absent. In the order the
    interpretations were written (SQLite's scan order, stated so PostgreSQL gives it too):
    checks and findings list their problems in this order.
    """
    info = registry_info(db)
    if not info:
        return {}
    kind = TimeKind(info["time"])
    at = latest_snapshot(db) if known_at is None else known_at
    rows = db.execute(
        "SELECT r.id, r.family, r.kind, r.language, r.tenant, r.content, i.status, i.roles, "
        "i.equivalent_to, i.applies, i.supersedes FROM revisions r JOIN interpretations i "
        "ON i.revision = r.id WHERE i.known_from <= ? AND (i.known_to IS NULL OR i.known_to > ?) "
        "ORDER BY i.id", (at, at)).fetchall()
    state = {}
    for rid, family, rkind, language, tenant, content, *interp in rows:
        sections, plain = sections_from_content(content)
        state[rid] = RevisionSpec(rid, family, rkind, language, tenant, sections, plain,
                                  _interp_from_row(kind, *interp))
    return state


def _write_revisions(db: Database, specs: list[RevisionSpec], snap: int) -> None:
    db.insert_many("revisions", ("id", "family", "kind", "language", "tenant", "content",
                                 "digest", "first_snapshot"),
                   [(s.id, s.family, s.kind, s.language, s.tenant, s.content, s.digest, snap)
                    for s in specs])


def _write_interpretations(db: Database, specs: list[RevisionSpec], snap: int) -> None:
    """One interpretation per spec, with its scopes and edges, in three batches.

    The ids are the next after the largest: the write lock is held and interpretations are
    never deleted, so no other writer can take them (and they are the ids SQLite would give).
    """
    (last,) = db.execute("SELECT coalesce(max(id), 0) FROM interpretations").fetchone()
    interps, scopes, edges = [], [], []
    for interp_id, spec in enumerate(specs, start=last + 1):
        it = spec.interp
        interps.append((interp_id, spec.id, snap, it.status, json.dumps(list(it.roles)),
                        it.equivalent_to, json.dumps([s.as_data() for s in it.applies]),
                        json.dumps([[e.revision, e.procedure, e.decision]
                                    for e in it.supersedes]), it.canonical()))
        scopes += [(interp_id, n, spec.family, s.procedure, c, r, s.from_key, s.to_key)
                   for n, s in enumerate(it.applies) for c in s.configurations
                   for r in s.regions]
        edges += [(interp_id, spec.family, e.procedure, e.revision, e.decision)
                  for e in it.supersedes]
    db.insert_many("interpretations", ("id", "revision", "known_from", "status", "roles",
                                       "equivalent_to", "applies", "supersedes", "canonical"),
                   interps)
    db.insert_many("scopes", ("interp", "entry", "family", "procedure", "configuration",
                              "region", "from_key", "to_key"), scopes)
    if edges:
        db.insert_many("edges", ("interp", "family", "procedure", "superseded", "decision"),
                       edges)


def _procedure_changes(db, procedures: tuple[ProcedureSpec, ...]) -> list[ProcedureSpec]:
    stored = {(f, p): (t, json.loads(a), ft, json.loads(fa)) for f, p, t, a, ft, fa in db.execute(
        "SELECT p.family, p.id, p.title, p.aliases, f.title, f.aliases FROM procedures p "
        "JOIN families f ON f.id = p.family").fetchall()}
    return [p for p in procedures if stored.get((p.family, p.procedure))
            != (p.title, list(p.aliases), p.family_title, list(p.family_aliases))]


def apply_file(db: Database, file: RegistryFile, now: datetime | None = None) -> ImportResult:
    """Import one parsed file atomically. Side effect: at most one new snapshot and its rows.

    Waits for the write lock, so concurrent importers (other processes too) take turns and
    never interleave snapshots. Raises :class:`RejectedFile` (database unchanged) when any
    check fails.
    """
    db.begin_write()
    try:
        schema.ensure(db)
        result = _apply_locked(db, file, now or datetime.now(UTC))
    except BaseException:
        db.rollback()
        raise
    if result.changed:
        db.commit()
    else:
        db.rollback()
    return result


def _apply_locked(db: Database, file: RegistryFile, now: datetime) -> ImportResult:
    info = registry_info(db)
    for key, value in (("name", file.name), ("time", file.time)):
        if info and info[key] != value:
            label = "registry" if key == "name" else "time"
            raise RejectedFile([f"{file.path}: top level: key {label!r} is {value!r} but this "
                                f"database holds {label} {info[key]!r}; use another --db"])
    state = load_state(db)
    problems: list[str] = []
    new, corrected = [], []
    for spec in file.revisions:
        old = state.get(spec.id)
        if old is None:
            new.append(spec)
        else:
            problems += checks.changed_content(file.path, old, spec)
            if old.interp.canonical() != spec.interp.canonical():
                corrected.append(spec)
    resulting = {**state, **{s.id: s for s in file.revisions}}
    origin = {s.id: file.path for s in file.revisions}
    problems += checks.reference_problems(resulting, origin)
    problems += checks.cycle_problems(resulting, origin)
    if problems:
        raise RejectedFile(problems)
    procs = _procedure_changes(db, file.procedures)
    snap = latest_snapshot(db)
    changed = bool(new or corrected or procs or not info)
    if not changed:
        return ImportResult(snap, len(file.revisions), 0, 0, False)
    snap += 1
    db.execute("INSERT INTO snapshots (id, imported_at, source, file_digest) "
               "VALUES (?, ?, ?, ?)", (snap, now.isoformat(), Path(file.path).name, file.digest))
    if not info:
        db.executemany("INSERT INTO registry_info (key, value) VALUES (?, ?)",
                       [("name", file.name), ("time", file.time)])
    for p in procs:
        db.execute("INSERT INTO families (id, title, aliases) VALUES (?, ?, ?) "
                   "ON CONFLICT(id) DO UPDATE SET title = excluded.title, "
                   "aliases = excluded.aliases",
                   (p.family, p.family_title, json.dumps(list(p.family_aliases))))
        db.execute("INSERT INTO procedures (family, id, title, aliases) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT(family, id) DO UPDATE SET title = excluded.title, "
                   "aliases = excluded.aliases",
                   (p.family, p.procedure, p.title, json.dumps(list(p.aliases))))
    if new:
        _write_revisions(db, new, snap)
    if corrected:
        db.executemany("UPDATE interpretations SET known_to = ? WHERE revision = ? "
                       "AND known_to IS NULL", [(snap, spec.id) for spec in corrected])
    if new or corrected:
        _write_interpretations(db, new + corrected, snap)
    return ImportResult(snap, len(file.revisions), len(new), len(corrected), True)


def import_path(target: str | Path, file_path: str | Path) -> ImportResult:
    """Parse ``file_path`` and import it into ``target``: a SQLite file (created if absent) or
    a ``postgresql://`` URL (its registry schema is created by the first import).

    Atomic: on any error the database (or its absence, or its emptiness) is exactly as before.
    """
    file = parse_file(file_path)
    db, created = schema.open_for_import(target)
    try:
        return apply_file(db, file)
    except BaseException as exc:
        if not backend.is_database_error(exc):
            if created:
                db.close()
                schema.remove_files(Path(target))
            raise
        raise BadDatabase(f"{db.label}: the registry database failed during the import "
                          f"({backend.one_line(exc)}); nothing was written") from None
    finally:
        db.close()
