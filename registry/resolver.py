"""The applicability resolver: the six steps of docs/registry-format.md, in order, over indexed SQL.

Each step is one small query, so a resolution costs a few index lookups however large the
registry is. The first step that fails decides the outcome; a non-RESOLVED answer never names
a revision (the winner's id must not leak when it is UNAVAILABLE). Read-only. The queries are
the same on SQLite and PostgreSQL (:mod:`registry.backend`).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from agent.core.clock import Clock, SystemClock
from agent.core.ports import (
    ProcedureInfo,
    RegistryOutcome,
    Resolution,
    ResolutionQuery,
    RevisionText,
)
from registry import schema, store
from registry.backend import Database
from registry.errors import BadQuery
from registry.model import FamilyInfo, sections_from_content
from registry.timeaxis import TimeKind, TimeValueError, now_text, time_key
from registry.tokens import POLICY_VERSION, scope_token

_KNOWN = "i.known_from <= :k AND (i.known_to IS NULL OR i.known_to > :k)"
# A revision has one interpretation per snapshot, so grouping by (r.id, i.id) makes the groups
# of r.id alone; naming i.id lets PostgreSQL accept i.roles and i.applies as single-valued.
_CANDIDATES = f"""
SELECT r.id, r.language, i.roles, i.applies, min(s.entry)
FROM scopes s JOIN interpretations i ON i.id = s.interp JOIN revisions r ON r.id = i.revision
WHERE s.family = :family AND s.procedure = :procedure AND s.region IN (:region, '*')
  AND s.configuration IN (:configuration, '*') AND s.from_key <= :at
  AND (s.to_key IS NULL OR s.to_key > :at) AND {_KNOWN}
  AND i.status = 'approved' AND r.kind <> 'translation' AND r.tenant IN ('*', :tenant)
GROUP BY r.id, i.id ORDER BY r.id"""
_EDGES = f"""
SELECT i.revision, e.superseded FROM edges e JOIN interpretations i ON i.id = e.interp
WHERE e.family = :family AND e.procedure = :procedure AND {_KNOWN}"""
_EDITIONS = f"""
SELECT r.id, i.roles FROM interpretations i JOIN revisions r ON r.id = i.revision
WHERE i.equivalent_to = :winner AND r.language = :language AND r.kind = 'translation'
  AND i.status = 'approved' AND r.tenant IN ('*', :tenant) AND {_KNOWN} ORDER BY r.id"""


@dataclass(frozen=True, slots=True)
class Candidate:
    id: str
    language: str
    roles: tuple[str, ...]
    valid: tuple[int | str | None, int | str | None]


class _AnswerBase(TypedDict):
    """The :class:`Resolution` fields every answer past step 1 carries."""

    known_at: int
    instant: str
    historical: bool


def usable(roles: tuple[str, ...], subject: tuple[str, ...]) -> bool:
    """A revision without roles serves everyone of the tenant; else the subject needs one."""
    return not roles or bool(set(roles) & set(subject))


def undominated(candidates: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """Candidates that no other candidate supersedes, transitively through any revision."""
    graph: dict[str, list[str]] = {}
    for owner, superseded in edges:
        graph.setdefault(owner, []).append(superseded)
    beaten: set[str] = set()
    for start in candidates:
        seen, todo = set(), list(graph.get(start, ()))
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        beaten |= (seen & set(candidates)) - {start}
    return [c for c in candidates if c not in beaten]


class Registry:
    """The registry adapter: implements ``agent.core.ports.Resolver`` and ``RevisionSource``.

    ``clock`` supplies "now" for ``current`` mode in an instants registry; a ticks registry has
    no wall clock, so current mode there needs ``query.at`` (the "now" override) or ``now_tick``.
    """

    def __init__(self, db: Database, clock: Clock | None = None,
                 now_tick: int | None = None, policy_version: str = POLICY_VERSION):
        self.db = db
        self.clock = clock or SystemClock()
        self.now_tick = now_tick
        self.policy_version = policy_version
        self._lock = threading.Lock()  # one connection, used from worker threads too
        self._time_kind: TimeKind | None = None

    @classmethod
    def open(cls, target: str | Path, **kwargs) -> Registry:
        """Open an existing registry read-only: a SQLite file or a ``postgresql://`` URL."""
        return cls(schema.open_existing(target, read_only=True), **kwargs)

    def close(self) -> None:
        self.db.close()

    @property
    def time_kind(self) -> TimeKind:
        """The registry's time axis; fixed by its first import, so cached once known."""
        if self._time_kind is None:
            info = store.registry_info(self.db)
            if not info:
                return TimeKind.TICKS
            self._time_kind = TimeKind(info["time"])
        return self._time_kind

    @property
    def snapshot(self) -> int:
        """The latest registry snapshot (knowledge time); 0 for an empty registry."""
        with self._lock:
            return store.latest_snapshot(self.db)

    # ------------------------------------------------------------------ resolution

    def instant_of(self, query: ResolutionQuery) -> tuple[str, int] | None:
        """The request's instant, captured once: (text, key); None if historical without at."""
        kind = self.time_kind
        if query.mode not in ("current", "historical"):
            raise BadQuery(f"mode {query.mode!r}: use 'current' or 'historical'")
        if query.at is None or str(query.at).strip() == "":
            if query.mode == "historical":
                return None
            if kind is TimeKind.TICKS:
                if self.now_tick is None:
                    raise BadQuery("current mode in a ticks registry needs 'now' as a tick "
                                   "(--now T); ticks have no wall clock")
                return str(self.now_tick), self.now_tick
            text = now_text(kind, self.clock.now())
        else:
            text = str(query.at).strip()
        try:
            return text, time_key(kind, text, from_text=True)
        except TimeValueError as exc:
            raise BadQuery(f"instant {text!r}: {exc} (this registry uses {kind.value})") from None

    def known_at_of(self, query: ResolutionQuery) -> int:
        latest = store.latest_snapshot(self.db)
        if query.known_at is None:
            return latest
        if not 0 <= query.known_at <= latest:
            raise BadQuery(f"known_at {query.known_at}: no such registry snapshot "
                           f"(latest is {latest})")
        return query.known_at

    def resolve(self, query: ResolutionQuery) -> Resolution:
        """Resolve the one revision (and edition) this subject may use. Read-only."""
        with self._lock:
            return self._resolve(query)

    def _resolve(self, query: ResolutionQuery) -> Resolution:
        historical = query.mode == "historical"
        known_at = self.known_at_of(query)
        missing = tuple(name for name in ("tenant", "family", "procedure", "configuration",
                                          "region") if not getattr(query, name))
        instant = self.instant_of(query)
        if instant is None:
            missing += ("at",)
        if missing:  # step 1: nothing is queried
            return Resolution(RegistryOutcome.MISSING_SCOPE, known_at=known_at,
                              instant=instant[0] if instant else "", historical=historical,
                              missing=missing)
        assert instant is not None  # a None instant added "at" to missing, answered above
        text, key = instant
        base: _AnswerBase = {"known_at": known_at, "instant": text, "historical": historical}
        params = {"family": query.family, "procedure": query.procedure, "region": query.region,
                  "configuration": query.configuration, "at": key, "k": known_at,
                  "tenant": query.tenant}
        candidates = [Candidate(rid, lang, tuple(json.loads(roles)),
                                tuple(json.loads(applies)[entry]["valid"]))
                      for rid, lang, roles, applies, entry
                      in self.db.execute(_CANDIDATES, params).fetchall()]
        if not candidates:  # step 2
            return Resolution(RegistryOutcome.NOT_APPLICABLE, **base)
        if len(candidates) > 1:  # step 3: authority over all candidates, readable or not
            edges = self.db.execute(_EDGES, params).fetchall()
            left = set(undominated([c.id for c in candidates], edges))
            candidates = [c for c in candidates if c.id in left]
            if len(candidates) > 1:
                return Resolution(RegistryOutcome.UNRESOLVED_AUTHORITY, **base)
        winner = candidates[0]
        if not usable(winner.roles, query.roles):  # step 4: no fallback, no leak
            return Resolution(RegistryOutcome.UNAVAILABLE, **base)
        edition = winner.id if query.language == winner.language else None
        if edition is None:  # step 5: only a reviewed equivalent of the winner itself
            rows = self.db.execute(_EDITIONS, {**params, "winner": winner.id,
                                               "language": query.language}).fetchall()
            edition = next((rid for rid, roles in rows
                            if usable(tuple(json.loads(roles)), query.roles)), None)
            if edition is None:
                return Resolution(RegistryOutcome.NO_EQUIVALENT_EDITION, **base)
        allowed = (winner.id,) if edition == winner.id else (winner.id, edition)
        token = scope_token(query, text, known_at, allowed, self.policy_version)
        return Resolution(RegistryOutcome.RESOLVED, revision=winner.id, edition=edition,
                          language=query.language, valid=winner.valid, token=token, **base)

    # ------------------------------------------------------------------ catalogue

    def procedures(self) -> tuple[ProcedureInfo, ...]:
        """Every declared procedure with its titles and aliases, then undeclared ones by id."""
        with self._lock:
            rows = self.db.execute(
                "SELECT p.family, f.title, p.id, p.title, p.aliases FROM procedures p "
                "JOIN families f ON f.id = p.family ORDER BY p.family, p.id").fetchall()
            declared = [ProcedureInfo(f, ft, p, t, tuple(json.loads(a)))
                        for f, ft, p, t, a in rows]
            seen = {(p.family, p.procedure) for p in declared}
            others = self.db.execute("SELECT DISTINCT family, procedure FROM scopes "
                                     "ORDER BY family, procedure").fetchall()
        return tuple(declared) + tuple(ProcedureInfo(f, f, p, p) for f, p in others
                                       if (f, p) not in seen)

    def families(self) -> tuple[FamilyInfo, ...]:
        """Every declared family with its title and aliases (the words for the topic)."""
        with self._lock:
            rows = self.db.execute("SELECT id, title, aliases FROM families ORDER BY id")
            return tuple(FamilyInfo(f, t, tuple(json.loads(a))) for f, t, a in rows.fetchall())

    def revision_texts(self) -> tuple[RevisionText, ...]:
        """Every revision's content as plain data, as known at the latest snapshot."""
        with self._lock:
            state = store.load_state(self.db)
        out = []
        for rev in sorted(state.values(), key=lambda r: r.id):
            it = rev.interp
            out.append(RevisionText(
                id=rev.id, family=rev.family, language=rev.language, tenant=rev.tenant,
                roles=it.roles, kind=rev.kind, digest=rev.digest,
                valid=tuple((s.valid_from, s.valid_to) for s in it.applies),
                sections=rev.sections, status=it.status, equivalent_to=it.equivalent_to,
                procedures=tuple(dict.fromkeys(s.procedure for s in it.applies))))
        return tuple(out)

    def sections_for(self, revision: str, fields: tuple[tuple[str, str], ...] | dict
                     ) -> SectionChoice:
        """The sections of ``revision`` whose ``when`` conditions all hold on ``fields``.

        Conditions are hard filters: a section whose condition names a field that is not
        accepted yet is not chosen, and that field is listed in ``needs`` (ask for it).
        """
        with self._lock:
            row = self.db.execute("SELECT content FROM revisions WHERE id = ?",
                                  (revision,)).fetchone()
        if row is None:
            raise BadQuery(f"revision {revision!r}: not in this registry")
        values = dict(fields)
        sections, _ = sections_from_content(row[0])
        chosen = tuple(s for s in sections if all(values.get(k) == v for k, v in s[1]))
        needs = tuple(sorted({k for s in sections for k, _ in s[1] if k not in values}))
        return SectionChoice(revision, chosen, needs)


@dataclass(frozen=True, slots=True)
class SectionChoice:
    revision: str
    sections: tuple[tuple[str, tuple[tuple[str, str], ...], str], ...]
    needs: tuple[str, ...]  # fields named by conditions that are not accepted yet
