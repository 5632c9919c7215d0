"""Random registry histories on both backends: SQLite and PostgreSQL must agree on everything.

A history, generated from its seed, is two to four imports: new revisions (manuals, bulletins,
policies, translations; sections with ``when`` conditions), supersessions, corrections of
status (withdrawals among them), roles, applies, supersedes and equivalent_to, family titles,
no-op re-imports, and files the registry must reject (unknown, cross-family, uncovered or self
supersessions, cycles, changed content or identity, bad equivalents, another registry name).
Each file is applied to a SQLite registry and a PostgreSQL one. After every import both give:

* the same import result, or the same rejection (error class and every problem);
* the same resolution, or the same error, for queries over assets, instants, ``known_at``
  snapshots, languages, tenants and roles (most of them aimed inside some revision's scope),
  and the same ``explain`` rows;
* through a corpus synced from each registry, the same sync report and search results.

After the last import the state as known at every snapshot, the revision texts, procedures,
families and ``validate`` findings must agree too.

``HISTORIES`` histories run in ``BATCHES`` tests. ``AMEND_DIFF_SEED=N`` runs only history N:
a failure names its seed. The PostgreSQL side reuses one registry schema and one corpus schema
for the module and empties them between histories.
"""

from __future__ import annotations

import hashlib
import os
import random
from abc import ABC, abstractmethod
from datetime import UTC, datetime, timedelta, timezone

import pytest
from backend_support import connect, new_schema, pg_shared_fixture  # noqa: F401 (pg_shared)

from agent.core.ports import RegistryOutcome, ResolutionQuery
from registry import schema, store
from registry.backend import Database
from registry.errors import RegistryError
from registry.explain import explain
from registry.findings import validate
from registry.model import (
    Edge,
    Interpretation,
    ProcedureSpec,
    RegistryFile,
    RevisionSpec,
    Scope,
)
from registry.resolver import Registry
from registry.timeaxis import TimeKind, time_key
from retrieval.corpus import Corpus
from retrieval.samples import token
from retrieval.terms import terms

HISTORIES = 500
BATCHES = 10
REPLAY = os.environ.get("AMEND_DIFF_SEED")
SEEDS = [int(REPLAY)] if REPLAY else list(range(HISTORIES))

FAMILIES, PROCEDURES = ("pump-seal", "returns"), ("seal-torque", "filter-kit")
CONFIGS, REGIONS = ("C1", "C2", "*"), ("EU", "US", "*")
TENANTS, ROLES, LANGUAGES = ("*", "*", "acme", "globex"), ("technician", "supervisor"), (
    "en", "en", "de")
WORDS = ("pump", "seal", "torque", "bolts", "gasket", "housing", "tighten", "replace", "check",
         "leaks", "40", "45", "nm", "return", "filter", "kit", "refund", "days", "opened")
OFFSETS = (UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5)),
           timezone(timedelta(hours=10)))
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


# --------------------------------------------------------------------------- histories

class History:
    """The files of one history, drawn from ``rng`` against the registry's current state."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.time = self.rng.choice(("ticks", "ticks", "ticks", "instants"))
        self.kind = TimeKind(self.time)
        self.count = 0  # revisions made, for their ids
        self.files = 0
        self.previous: RegistryFile | None = None

    def instant(self, tick: int) -> int | str:
        """A tick, or for instants the tick as an hour after 2026-01-01 in a random offset."""
        if self.kind is TimeKind.TICKS:
            return tick
        return (EPOCH + timedelta(hours=tick)).astimezone(self.rng.choice(OFFSETS)).isoformat()

    def scope(self) -> Scope:
        rng = self.rng
        start = rng.randrange(0, 14)
        end = None if rng.random() < 0.4 else start + rng.randrange(1, 8)
        low, high = self.instant(start), None if end is None else self.instant(end)
        return Scope(rng.choice(PROCEDURES),
                     tuple(rng.sample(CONFIGS, rng.randrange(1, 3))),
                     tuple(rng.sample(REGIONS, rng.randrange(1, 3))), low, high,
                     time_key(self.kind, low), None if high is None else time_key(self.kind, high))

    def edges(self, state: dict[str, RevisionSpec], family: str, own: str) -> tuple[Edge, ...]:
        """Valid supersessions of earlier revisions of the family; about one in twenty-five an
        unknown, foreign, uncovered or self one, which the registry must reject."""
        rng, out = self.rng, []
        same = [r for r in state.values() if r.family == family and r.id != own]
        for n in range(rng.choice((0, 1, 1, 2)) if same else 0):
            if rng.random() < 0.96:
                target = rng.choice(same)
                procedure = rng.choice([s.procedure for s in target.interp.applies])
                out.append(Edge(target.id, procedure, f"AD-{n}"))
            else:
                target_id = rng.choice([*state, "ghost", own])
                out.append(Edge(target_id, rng.choice(PROCEDURES), f"AD-{n}"))
        return tuple(dict.fromkeys(out))

    def interpretation(self, state: dict[str, RevisionSpec], family: str, kind: str,
                       rid: str) -> Interpretation:
        rng = self.rng
        equivalent = None
        if kind == "translation":
            same = [r.id for r in state.values() if r.family == family and r.id != rid]
            equivalent = rng.choice(same) if same and rng.random() < 0.95 else rng.choice(
                [*state, "ghost", rid])
        applies = tuple(self.scope() for _ in range(rng.choice((1, 1, 2))))
        return Interpretation(rng.choice(("approved",) * 6 + ("draft", "withdrawn")),
                              tuple(rng.sample(ROLES, rng.choice((0, 0, 1)))), applies,
                              self.edges(state, family, rid), equivalent)

    def content(self) -> tuple[tuple, bool]:
        rng = self.rng

        def sentence() -> str:
            return " ".join(rng.choices(WORDS, k=rng.randrange(4, 12))) + "."

        if rng.random() < 0.7:
            return (("text", (), " ".join(sentence() for _ in range(rng.randrange(1, 3)))),), True
        return (("opened", (("opened", "yes"),), sentence()),
                ("unopened", (("opened", "no"),), sentence()),
                ("always", (), sentence())), False

    def new_revision(self, state: dict[str, RevisionSpec]) -> RevisionSpec:
        rng = self.rng
        self.count += 1
        rid = f"r{self.count}"
        family = rng.choice(FAMILIES)
        kind = rng.choice(("manual", "bulletin", "policy", "translation") if state
                          else ("manual", "bulletin", "policy"))
        sections, plain = self.content()
        return RevisionSpec(rid, family, kind, rng.choice(LANGUAGES), rng.choice(TENANTS),
                            sections, plain, self.interpretation(state, family, kind, rid))

    def correction(self, state: dict[str, RevisionSpec], old: RevisionSpec) -> RevisionSpec:
        """A registry correction of ``old``; now and then a change the registry refuses."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.06:  # content is immutable
            return RevisionSpec(old.id, old.family, old.kind, old.language, old.tenant,
                                (("text", (), "changed text"),), True, old.interp)
        if roll < 0.1:  # identity is immutable
            return RevisionSpec(old.id, old.family, old.kind, old.language,
                                "initech" if old.tenant != "initech" else "*", old.sections,
                                old.plain_text, old.interp)
        it = old.interp
        field = rng.choice(("status", "roles", "applies", "supersedes", "equivalent"))
        if field == "status":
            it = Interpretation(rng.choice(("approved", "draft", "withdrawn")), it.roles,
                                it.applies, it.supersedes, it.equivalent_to)
        elif field == "roles":
            it = Interpretation(it.status, tuple(rng.sample(ROLES, rng.choice((0, 1, 2)))),
                                it.applies, it.supersedes, it.equivalent_to)
        elif field == "applies":
            it = Interpretation(it.status, it.roles, (*it.applies[:1], self.scope()),
                                it.supersedes, it.equivalent_to)
        elif field == "supersedes":
            edges = self.edges(state, old.family, old.id)
            above = [(r.id, e.procedure) for r in state.values() for e in r.interp.supersedes
                     if e.revision == old.id]
            if above and rng.random() < 0.6:  # supersede a superseder: a cycle
                edges = (Edge(*rng.choice(above), "AD-cycle"),)
            it = Interpretation(it.status, it.roles, it.applies, edges, it.equivalent_to)
        elif old.kind == "translation":  # equivalent_to (with the rest of it redrawn)
            it = self.interpretation(state, old.family, old.kind, old.id)
        # (equivalent_to of another kind: the revision comes again unchanged, which is legal)
        return RevisionSpec(old.id, old.family, old.kind, old.language, old.tenant,
                            old.sections, old.plain_text, it)

    def procedures(self) -> tuple[ProcedureSpec, ...]:
        rng = self.rng
        if rng.random() < 0.7:
            return ()
        family = rng.choice(FAMILIES)
        return (ProcedureSpec(family, rng.choice((family, f"{family} v2")),
                              rng.choice(PROCEDURES), rng.choice(("torque", "kit", "check")),
                              tuple(rng.sample(("how tight", "send back", "seal bolts"),
                                               rng.randrange(0, 2)))),)

    def next_file(self, state: dict[str, RevisionSpec]) -> RegistryFile:
        rng = self.rng
        if self.previous is not None and rng.random() < 0.1:  # the same file again: a no-op
            return self.previous
        revisions = [self.new_revision(state) for _ in range(rng.choice((1, 1, 2, 3)))]
        olds = rng.sample(sorted(state), min(len(state), rng.choice((0, 0, 1, 2))))
        revisions += [self.correction(state, state[rid]) for rid in olds]
        name = "diff" if rng.random() > 0.03 else "another-registry"
        body = repr((name, revisions)).encode()
        self.files += 1
        file = RegistryFile(f"step-{self.files}.yaml", name, self.time, self.procedures(),
                            tuple(revisions), hashlib.sha256(body).hexdigest())
        self.previous = file
        return file

    def queries(self, state: dict[str, RevisionSpec], latest: int) -> list[ResolutionQuery]:
        """Mostly questions some revision's scope answers (an asset, an instant inside one of
        its entries), the rest anywhere; now and then a missing scope or an unknown snapshot."""
        rng, out = self.rng, []
        authorities = [(r, s) for r in state.values() if r.kind != "translation"
                       for s in r.interp.applies]
        for _ in range(6):
            family, procedure = rng.choice(FAMILIES), rng.choice(PROCEDURES)
            config, region = rng.choice(("C1", "C2")), rng.choice(("EU", "US"))
            tick, tenant = rng.randrange(0, 22), rng.choice(("acme", "globex"))
            if authorities and rng.random() < 0.75:
                rev, scope = rng.choice(authorities)
                family, procedure = rev.family, scope.procedure
                config = rng.choice([c for c in scope.configurations if c != "*"] or ["C1"])
                region = rng.choice([r for r in scope.regions if r != "*"] or ["EU"])
                end = None if scope.valid_to is None else _tick_of(self, scope.valid_to)
                start = _tick_of(self, scope.valid_from)
                tick = rng.randrange(start, start + 8 if end is None else end)
                tenant = rev.tenant if rev.tenant != "*" else tenant
            known = latest if rng.random() < 0.5 else rng.randrange(0, latest + 1)
            out.append(ResolutionQuery(
                tenant=tenant, roles=tuple(rng.sample(ROLES, rng.randrange(0, 3))),
                family=family, procedure=procedure,
                configuration=None if rng.random() < 0.04 else config, region=region,
                mode=rng.choice(("historical", "current")), at=str(self.instant(tick)),
                language=rng.choice(("en", "en", "de")),
                known_at=latest + 1 if rng.random() < 0.04 else known))
        return out


def _tick_of(history: History, bound: int | str) -> int:
    """The tick a written bound stands for (instants are hours after 2026-01-01 UTC)."""
    if history.kind is TimeKind.TICKS:
        return int(bound)
    return (time_key(history.kind, bound) - time_key(history.kind, EPOCH.isoformat())) \
        // 3_600_000_000


# --------------------------------------------------------------------------- both sides

class Side(ABC):
    """One backend's registry and corpus; :meth:`reset` makes both empty for a new history."""

    db: Database
    corpus: Corpus
    registry: Registry

    @abstractmethod
    def reset(self) -> None:
        """Empty the registry and the corpus, and open a new Registry on them."""

    def apply(self, file: RegistryFile):
        try:
            return store.apply_file(self.db, file)
        except RegistryError as exc:
            return type(exc).__name__, getattr(exc, "problems", str(exc))

    def resolve(self, query: ResolutionQuery):
        try:
            return self.registry.resolve(query)
        except RegistryError as exc:
            return type(exc).__name__, str(exc)

    def close(self) -> None:
        self.db.close()
        self.corpus.close()


class SQLiteSide(Side):
    """A new in-memory registry and corpus per history (as the other registry tests use)."""

    def __init__(self):
        self.db, self.corpus = schema.memory(), Corpus()

    def reset(self) -> None:
        self.close()
        self.db, self.corpus = schema.memory(), Corpus()
        self.registry = Registry(self.db)


_REGISTRY_TABLES = ("edges", "scopes", "interpretations", "revisions", "procedures", "families",
                    "snapshots", "registry_info")


class PostgresSide(Side):
    """One registry schema and one corpus schema for the module, emptied between histories.

    The registry's triggers refuse DELETE (history is never deleted), so the emptying session
    switches triggers off for itself (``session_replication_role``, the cluster's superuser).
    """

    def __init__(self, registry_url: str, corpus_url: str):
        self.db, self.corpus = schema.create(registry_url), Corpus(corpus_url)
        self._admin_registry, self._admin_corpus = connect(registry_url), connect(corpus_url)

    def reset(self) -> None:
        deletes = "".join(f"DELETE FROM {table}; " for table in _REGISTRY_TABLES)
        self._admin_registry.execute(f"SET session_replication_role = replica; {deletes}"
                                     "SET session_replication_role = DEFAULT")
        self._admin_corpus.execute("DELETE FROM passages; DELETE FROM revisions; "
                                   "DELETE FROM meta")
        self.registry = Registry(self.db)  # a new one: the time axis is cached per Registry

    def close(self) -> None:
        super().close()
        self._admin_registry.close()
        self._admin_corpus.close()


@pytest.fixture(scope="module")
def sides(pg_shared):
    both = SQLiteSide(), PostgresSide(new_schema(pg_shared), new_schema(pg_shared))
    yield both
    for side in both:
        side.close()


# --------------------------------------------------------------------------- comparisons

def agree(what: str, left, right) -> None:
    assert left == right, f"{what}:\n  SQLite:     {left!r}\n  PostgreSQL: {right!r}"


def compare_step(history: History, sqlite: Side, postgres: Side) -> None:
    """After one import: resolutions, an explanation, the corpus sync and searches."""
    latest = sqlite.registry.snapshot
    agree("snapshot", latest, postgres.registry.snapshot)
    resolved = []
    for query in history.queries(store.load_state(sqlite.db), latest):
        answer = sqlite.resolve(query)
        agree(f"resolve {query}", answer, postgres.resolve(query))
        if getattr(answer, "outcome", None) is RegistryOutcome.RESOLVED:
            resolved.append((query, answer))
    for query, _ in resolved[:1]:
        agree(f"explain {query}", explain(sqlite.registry, query),
              explain(postgres.registry, query))
    compare_searches(history, sqlite, postgres, [a.token for _, a in resolved])


def compare_end(sqlite: Side, postgres: Side) -> None:
    """After the last import: the state as known at every snapshot, and every catalogue."""
    for known_at in range(sqlite.registry.snapshot + 1):
        agree(f"state known at {known_at}", store.load_state(sqlite.db, known_at),
              store.load_state(postgres.db, known_at))
    agree("revision texts", sqlite.registry.revision_texts(), postgres.registry.revision_texts())
    agree("procedures", sqlite.registry.procedures(), postgres.registry.procedures())
    agree("families", sqlite.registry.families(), postgres.registry.families())
    agree("validate", validate(sqlite.registry), validate(postgres.registry))


def compare_searches(history: History, sqlite: Side, postgres: Side, tokens: list) -> None:
    agree("corpus sync", sqlite.corpus.sync_from(sqlite.registry),
          postgres.corpus.sync_from(postgres.registry))
    rng = history.rng
    tokens = tokens[:1]  # an allowed set the resolver issued, and one drawn at random
    ids = [t.id for t in sqlite.registry.revision_texts()]
    if ids:
        tokens.append(token(*rng.sample(ids, rng.randrange(1, len(ids) + 1)),
                            tenant=rng.choice(("acme", "globex"))))
    for tok in tokens:
        words = terms(" ".join(rng.sample(WORDS, rng.randrange(1, 5))))
        fields = rng.choice(({}, {"opened": "yes"}, {"opened": "no"}))
        roles = tuple(rng.sample(ROLES, rng.randrange(0, 3)))
        agree(f"search {tok.allowed_revisions} {words} {fields} {roles}",
              sqlite.corpus.search(tok, words, fields, roles=roles, limit=5),
              postgres.corpus.search(tok, words, fields, roles=roles, limit=5))


def run_history(seed: int, sqlite: Side, postgres: Side) -> None:
    history = History(seed)
    for _ in range(history.rng.randrange(2, 5)):
        file = history.next_file(store.load_state(sqlite.db))
        agree(f"import {file.path}", sqlite.apply(file), postgres.apply(file))
        compare_step(history, sqlite, postgres)
    compare_end(sqlite, postgres)


@pytest.mark.parametrize("batch", range(1 if REPLAY else BATCHES))
def test_random_histories_agree_on_sqlite_and_postgres(batch, sides):
    sqlite, postgres = sides
    for seed in SEEDS[batch::BATCHES]:
        sqlite.reset()
        postgres.reset()
        try:
            run_history(seed, sqlite, postgres)
        except Exception as exc:
            raise AssertionError(f"history seed {seed} disagrees; replay it alone with "
                                 f"AMEND_DIFF_SEED={seed} pytest "
                                 f"tests/test_registry_differential.py\n{exc}") from exc
