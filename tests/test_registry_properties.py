"""Random registries and queries: the SQL resolver must agree with a brute-force reference
written here straight from the six steps of docs/registry-format.md, at every knowledge time."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from backend_support import (  # noqa: F401 (fixtures: backend, places)
    backend_param,
    pg_shared_fixture,
    places_fixture,
)
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agent.core.ports import RegistryOutcome, ResolutionQuery
from registry import store
from registry.explain import Verdict, explain
from registry.model import Edge, Interpretation, RegistryFile, RevisionSpec, Scope
from registry.resolver import Registry
from registry.timeaxis import TimeKind, time_key

FAMILIES, PROCEDURES = ("f", "g"), ("p", "q")
CONFIGS, REGIONS = ("C1", "C2", "*"), ("EU", "US", "*")
TENANTS, ROLES, LANGS = ("*", "acme", "globex"), ("tech", "sup"), ("en", "de")


@st.composite
def scopes(draw):
    start = draw(st.integers(0, 10))
    end = draw(st.one_of(st.none(), st.integers(start + 1, 14)))
    return Scope(draw(st.sampled_from(PROCEDURES)),
                 tuple(draw(st.sets(st.sampled_from(CONFIGS), min_size=1))),
                 tuple(draw(st.sets(st.sampled_from(REGIONS), min_size=1))),
                 start, end, start, end)


@st.composite
def interpretations(draw, earlier, family):
    applies = tuple(draw(st.lists(scopes(), min_size=1, max_size=3)))
    # edges only to earlier revisions of the family that cover the procedure: never a cycle
    options = [(r.id, s.procedure) for r in earlier if r.family == family
               for s in r.interp.applies]
    edges = tuple(Edge(rid, proc, f"AD-{i}") for i, (rid, proc) in enumerate(
        draw(st.lists(st.sampled_from(options), max_size=2, unique=True)) if options else []))
    return Interpretation(draw(st.sampled_from(("approved", "approved", "draft", "withdrawn"))),
                          tuple(draw(st.sets(st.sampled_from(ROLES), max_size=1))),
                          applies, edges, None)


@st.composite
def registries(draw: st.DrawFn) -> tuple[list[RevisionSpec], list[RevisionSpec]]:
    revs: list[RevisionSpec] = []
    for n in range(draw(st.integers(1, 7))):
        family = draw(st.sampled_from(FAMILIES))
        interp = draw(interpretations(revs, family))
        kind = draw(st.sampled_from(("manual", "bulletin", "translation")))
        same = [r.id for r in revs if r.family == family and r.kind != "translation"]
        if kind == "translation":
            if not same:
                kind = "manual"
            else:
                interp = dataclasses.replace(interp, equivalent_to=draw(st.sampled_from(same)))
        revs.append(RevisionSpec(f"r{n}", family, kind, draw(st.sampled_from(LANGS)),
                                 draw(st.sampled_from(TENANTS)), (("text", (), f"t{n}"),),
                                 True, interp))
    # a later snapshot: registry corrections of status, roles and intervals
    corrected = []
    for rev in draw(st.lists(st.sampled_from(revs), max_size=3, unique_by=lambda r: r.id)):
        interp = dataclasses.replace(
            rev.interp, status=draw(st.sampled_from(("approved", "draft", "withdrawn"))),
            roles=tuple(draw(st.sets(st.sampled_from(ROLES), max_size=1))),
            applies=tuple(dataclasses.replace(s, valid_to=e, to_key=e) for s in rev.interp.applies
                          for e in [draw(st.one_of(st.none(), st.integers(s.from_key + 1, 14)))]))
        corrected.append(dataclasses.replace(rev, interp=interp))
    return revs, corrected


queries = st.builds(
    ResolutionQuery, tenant=st.sampled_from(("acme", "globex")),
    roles=st.sets(st.sampled_from(ROLES)).map(tuple), family=st.sampled_from(FAMILIES),
    procedure=st.sampled_from(PROCEDURES), configuration=st.sampled_from(("C1", "C2")),
    region=st.sampled_from(("EU", "US")), mode=st.just("historical"),
    at=st.integers(0, 15).map(str), language=st.sampled_from(LANGS),
    known_at=st.sampled_from((None, 1, 2)))


def reference(state: dict[str, RevisionSpec], q: ResolutionQuery):
    """Brute force, straight from the contract: (outcome, revision, edition)."""
    assert q.at is not None  # the strategy always gives an instant
    at = int(q.at)

    def usable(rev):
        return not rev.interp.roles or set(rev.interp.roles) & set(q.roles)

    candidates = {r.id for r in state.values()
                  if r.family == q.family and r.kind != "translation"
                  and r.interp.status == "approved" and r.tenant in ("*", q.tenant)
                  and any(s.procedure == q.procedure
                          and (q.configuration in s.configurations or "*" in s.configurations)
                          and (q.region in s.regions or "*" in s.regions)
                          and s.from_key <= at and (s.to_key is None or at < s.to_key)
                          for s in r.interp.applies)}
    if not candidates:
        return RegistryOutcome.NOT_APPLICABLE, None, None

    def reachable(start):
        out, todo = set(), [start]
        while todo:
            for e in state[todo.pop()].interp.supersedes:
                if e.procedure == q.procedure and e.revision not in out:
                    out.add(e.revision)
                    todo.append(e.revision)
        return out

    beaten = set().union(*(reachable(c) - {c} for c in candidates))
    left = candidates - beaten
    if len(left) > 1:
        return RegistryOutcome.UNRESOLVED_AUTHORITY, None, None
    winner = state[left.pop()]
    if not usable(winner):
        return RegistryOutcome.UNAVAILABLE, None, None
    if winner.language == q.language:
        return RegistryOutcome.RESOLVED, winner.id, winner.id
    editions = sorted(r.id for r in state.values()
                      if r.kind == "translation" and r.interp.equivalent_to == winner.id
                      and r.language == q.language and r.interp.status == "approved"
                      and r.tenant in ("*", q.tenant) and usable(r))
    if not editions:
        return RegistryOutcome.NO_EQUIVALENT_EDITION, None, None
    return RegistryOutcome.RESOLVED, winner.id, editions[0]


def _file(revisions) -> RegistryFile:
    return RegistryFile("generated.yaml", "prop", "ticks", (), tuple(revisions), "0" * 64)


# Examples per backend: PostgreSQL builds a schema per example (about 40 ms of DDL), and its
# agreement with SQLite is tested far more broadly by tests/test_registry_differential.py.
EXAMPLES = {"sqlite": 80, "postgresql": 30}


def test_resolver_agrees_with_brute_force_reference(places, backend):
    @settings(max_examples=EXAMPLES[backend], deadline=None)
    @given(registries(), st.lists(queries, min_size=1, max_size=8))
    def agrees(registry, qs):
        check_against_reference(places.empty_registry(), registry, qs)

    agrees()


def check_against_reference(db, registry, qs):
    """Import the registry (first, then its corrections) into the empty ``db``; every query
    must resolve as the brute-force reference does at its knowledge time."""
    first, corrections = registry
    store.apply_file(db, _file(first))
    store.apply_file(db, _file(corrections))
    reg = Registry(db)
    states = {1: {r.id: r for r in first}}
    states[2] = {**states[1], **{r.id: r for r in corrections}}
    latest = reg.snapshot  # 1 when the corrections changed nothing
    for q in qs:
        known = q.known_at if q.known_at is not None else latest
        if known > latest:
            continue
        answer = reg.resolve(q)
        event(answer.outcome.value)
        assert (answer.outcome, answer.revision, answer.edition) == reference(states[known], q)
        assert answer.known_at == known
        rows = explain(reg, q).rows  # the operator view tells the same story
        winners = [r.revision for r in rows if r.verdict is Verdict.WINNER]
        kept = [r.revision for r in rows if r.verdict is Verdict.KEPT]
        if answer.outcome is RegistryOutcome.RESOLVED:
            assert winners == [answer.revision]
        if answer.outcome is RegistryOutcome.UNRESOLVED_AUTHORITY:
            assert len(kept) > 1 and not winners


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
       st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)),
       st.integers(-14 * 4, 14 * 4), st.integers(-14 * 4, 14 * 4))
def test_instant_keys_order_like_the_instants_whatever_the_offsets(a, b, qa, qb):
    za, zb = timezone(timedelta(minutes=15 * qa)), timezone(timedelta(minutes=15 * qb))
    ta, tb = a.replace(tzinfo=za), b.replace(tzinfo=zb)
    ka = time_key(TimeKind.INSTANTS, ta.isoformat())
    kb = time_key(TimeKind.INSTANTS, tb.isoformat())
    assert (ka < kb, ka == kb) == (ta < tb, ta == tb)
