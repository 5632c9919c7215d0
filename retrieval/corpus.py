"""The passage store, fed from registry revision texts: SQLite + FTS5 (the default, embedded)
or PostgreSQL (a ``postgresql://`` URL), one code path over :mod:`retrieval.backend`.

Scope before ranking. :meth:`Corpus.search` works in three steps, and only the first looks
at the whole table:

1. **Eligibility** (plain SQL on indexed columns, then exact checks in Python): passages of
   the scope token's ``allowed_revisions`` only, whose revision's tenant is ``*`` or the
   token's tenant, whose revision the subject's roles may see, and whose section ``when``
   conditions all equal accepted fields. An empty allowed set returns nothing at once; a
   ``when`` field that is not accepted excludes the section (fail closed).
2. **Candidates**: the full-text index matches the OR-combined, quoted query terms,
   restricted to the eligible ids (FTS5 with ``rowid BETWEEN`` ranges: a revision's passages
   are inserted together, so they are contiguous and FTS5 seeks straight to them; on
   PostgreSQL a ``tsvector`` GIN index and ``id = any(...)``). Rows that are not eligible are
   dropped again.
3. **Ranking**: BM25 in Python (:mod:`retrieval.ranking`) with document frequencies, document
   count and average length of the eligible set only. The index's own ranking (FTS5's
   ``bm25()``, ``ts_rank``) is never used: its statistics span the whole table, so obsolete
   text would move current scores. So both backends give the same hits, order and scores.

Thread safety: one connection (SQLite's opened with ``check_same_thread=False``) and every use
under a lock, so the async retriever may run searches in ``asyncio.to_thread``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from agent.core.ports import RevisionSource, ScopeToken
from retrieval.backend import PassageStore, open_store
from retrieval.passages import SourceRevision, chunk, source_of
from retrieval.ranking import bm25
from retrieval.terms import frequencies


class SyncOutcome(StrEnum):
    UNCHANGED = "unchanged"  # same registry snapshot: nothing was read or written
    UPDATED = "updated"  # the corpus now mirrors the given snapshot


@dataclass(frozen=True, slots=True)
class SyncReport:
    outcome: SyncOutcome
    snapshot: int
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    corrected: tuple[str, ...] = ()  # same content, changed tenant/roles/language


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked passage, with everything a citation needs."""

    revision: str
    chunk: str
    index: int
    section: str
    text: str
    score: float
    revision_digest: str
    language: str
    # The revision's applies intervals; a translation's are those of what it is equivalent to.
    valid: tuple[tuple[int | str | None, int | str | None], ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: tuple[Hit, ...]
    snapshot: int  # the registry snapshot the corpus mirrored when it searched
    eligible: int  # how many passages passed the filters (the ranking population)


class Corpus:
    """Passages of every registry revision: ``path`` is a SQLite file, a ``postgresql://``
    URL (its tables live in the URL's current schema), or None to keep it in memory."""

    def __init__(self, path: str | Path | None = None):
        self._store: PassageStore = open_store(path)
        self._lock = threading.RLock()  # snapshot is read inside sync and search too

    @property
    def snapshot(self) -> int | None:
        """The registry snapshot this corpus mirrors; None before the first sync."""
        with self._lock:
            row = self._store.execute("select value from meta where key = 'snapshot'"
                                      ).fetchone()
        return int(row[0]) if row else None

    def __len__(self) -> int:
        with self._lock:
            return int(self._store.execute("select count(*) from passages").fetchone()[0])

    def sync_from(self, source: RevisionSource) -> SyncReport:
        """Mirror a registry (``agent.core.ports.RevisionSource``); call after every import.

        Cheap when nothing changed: only ``source.snapshot`` is read, never its texts.
        """
        snapshot = source.snapshot
        if snapshot == self.snapshot:
            return SyncReport(SyncOutcome.UNCHANGED, snapshot)
        return self.sync(source.revision_texts(), snapshot)

    # -- sync ------------------------------------------------------------------------------
    def sync(self, revision_texts: Iterable[object], snapshot: int) -> SyncReport:
        """Mirror the registry's revisions as of ``snapshot``.

        Idempotent. When ``snapshot`` equals the mirrored one nothing is read (the iterable is
        not even consumed) or written. Otherwise, in one transaction: revisions that vanished
        are deleted, new ones chunked and indexed, and corrected metadata updated. Content under
        an id never changes in the registry; a changed digest is re-indexed all the same.
        Raises InvalidInput for a revision text that cannot be indexed, leaving the corpus as
        it was.
        """
        with self._lock:
            if self.snapshot == snapshot:
                return SyncReport(SyncOutcome.UNCHANGED, snapshot)
            sources = {s.revision: s for s in map(source_of, revision_texts)}
            existing = {r["id"]: r for r in self._store.rows("select * from revisions")}
            added = [s for rid, s in sources.items()
                     if rid not in existing or existing[rid]["digest"] != s.digest]
            removed = [rid for rid in existing if rid not in sources]
            corrected = [s for rid, s in sources.items() if rid in existing
                         and existing[rid]["digest"] == s.digest
                         and _metadata(existing[rid]) != s.metadata]
            store = self._store
            with store.transaction():  # one transaction: readers never see half a sync
                for rid in removed + [s.revision for s in added]:
                    store.execute("delete from passages where revision = ?", (rid,))
                    store.execute("delete from revisions where id = ?", (rid,))
                for source in added:
                    self._insert(store, source)
                for source in corrected:
                    store.execute("update revisions set language=?, tenant=?, family=?, roles=?,"
                                  " valid=?, equivalent_to=? where id=?",
                                  (*_metadata_row(source), source.revision))
                store.execute("insert into meta (key, value) values ('snapshot', ?)"
                              " on conflict (key) do update set value = excluded.value",
                              (str(snapshot),))
            return SyncReport(SyncOutcome.UPDATED, snapshot,
                              tuple(sorted(s.revision for s in added)), tuple(sorted(removed)),
                              tuple(sorted(s.revision for s in corrected)))

    @staticmethod
    def _insert(store: PassageStore, source: SourceRevision) -> None:
        store.execute("insert into revisions (id, digest, language, tenant, family, roles,"
                     " valid, equivalent_to) values (?, ?, ?, ?, ?, ?, ?, ?)",
                     (source.revision, source.digest, *_metadata_row(source)))
        rows = []
        for p in chunk(source):
            tf = frequencies(p.text, source.language)
            rows.append((p.revision, p.index, p.chunk, p.digest, p.section,
                         json.dumps(p.when), p.text, " ".join(sorted(tf.elements())),
                         json.dumps(tf, sort_keys=True), sum(tf.values())))
        store.executemany("insert into passages (revision, idx, chunk, digest, section,"
                          " when_json, text, terms, tf, length) values (?,?,?,?,?,?,?,?,?,?)",
                          rows)

    # -- search ----------------------------------------------------------------------------
    def search(self, token: ScopeToken, query_terms: Iterable[str],
               filters: Mapping[str, str] | Iterable[tuple[str, str]] = (), *,
               roles: Iterable[str] = (), limit: int = 3) -> SearchResult:
        """Rank passages of ``token``'s allowed revisions for ``query_terms``. Read-only.

        ``filters`` are accepted fields (hard ``when`` filters), ``roles`` the subject's roles
        (visibility). An empty allowed set, or no query terms, returns no hits.
        """
        wanted = dict(filters)
        subject_roles = frozenset(roles)
        query = list(query_terms)
        with self._lock:
            snapshot = self.snapshot or 0
            allowed = tuple(sorted(set(token.allowed_revisions)))
            if not allowed or limit <= 0:
                return SearchResult((), snapshot, 0)
            marks = ",".join("?" * len(allowed))
            rows = self._store.execute(
                "select p.id, p.length, p.when_json, r.roles from revisions r"
                " join passages p on p.revision = r.id"
                f" where r.id in ({marks}) and r.tenant in ('*', ?)",
                (*allowed, token.tenant)).fetchall()
            eligible = {pid: length for pid, length, when, seen_by in rows
                        if _visible(seen_by, subject_roles) and _holds(when, wanted)}
            if not eligible or not query:
                return SearchResult((), snapshot, len(eligible))
            found = [pid for pid in self._store.matching(query, sorted(eligible))
                     if pid in eligible]
            details = self._details(found)
        candidates = {pid: (d["length"], json.loads(d["tf"])) for pid, d in details.items()}
        avg = sum(eligible.values()) / len(eligible)
        ranked = bm25(query, candidates, len(eligible), avg)[:limit]
        hits = tuple(Hit(details[s.key]["revision"], details[s.key]["chunk"],
                         details[s.key]["idx"], details[s.key]["section"],
                         details[s.key]["text"], round(s.score, 6),
                         details[s.key]["revision_digest"], details[s.key]["language"],
                         tuple(tuple(v) for v in json.loads(details[s.key]["valid"])))
                     for s in ranked)
        return SearchResult(hits, snapshot, len(eligible))

    def _details(self, ids: list[int]) -> dict[int, dict]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._store.rows(
            "select p.id, p.revision, p.idx, p.chunk, p.section, p.text, p.tf, p.length,"
            " r.digest as revision_digest, r.language,"
            " coalesce(nullif(r.valid, '[]'), e.valid, '[]') as valid from passages p"
            " join revisions r on r.id = p.revision"
            " left join revisions e on e.id = r.equivalent_to"
            f" where p.id in ({marks})", ids)
        return {row["id"]: row for row in rows}

    def close(self) -> None:
        self._store.close()


def _metadata(row: Mapping[str, str]) -> tuple[object, ...]:
    return (row["language"], row["tenant"], row["family"], tuple(json.loads(row["roles"])),
            tuple(tuple(v) for v in json.loads(row["valid"])), row["equivalent_to"])


def _metadata_row(source: SourceRevision) -> tuple[object, ...]:
    return (source.language, source.tenant, source.family, json.dumps(list(source.roles)),
            json.dumps([list(v) for v in source.valid]), source.equivalent_to)


def _visible(roles_json: str, subject_roles: frozenset[str]) -> bool:
    """A revision without roles is for everyone of its tenant; else a shared role is needed."""
    required = json.loads(roles_json)
    return not required or bool(subject_roles.intersection(required))


def _holds(when_json: str, fields: Mapping[str, str]) -> bool:
    """Every ``when`` condition equals an accepted field; an unknown field fails closed."""
    return all(fields.get(name) == value for name, value in json.loads(when_json))
