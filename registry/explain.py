"""``explain``: the operator's view of a resolution, every revision of the family and why it
was kept or dropped, step by step. It may name restricted revisions, so it is never on the
agent's path (the agent calls ``resolve`` only). Read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from agent.core.ports import RegistryOutcome, Resolution, ResolutionQuery
from registry import store
from registry.model import WILDCARD, RevisionSpec
from registry.resolver import Registry, usable


class Verdict(StrEnum):
    WINNER = "winner"  # the single authoritative candidate
    EDITION = "edition"  # the reviewed equivalent served in the requested language
    KEPT = "kept"  # a candidate left after authority (several left: unresolved)
    DROPPED = "dropped"  # excluded at the step named in the reason


@dataclass(frozen=True, slots=True)
class ExplainRow:
    revision: str
    kind: str
    status: str
    verdict: Verdict
    step: str
    reason: str


@dataclass(frozen=True, slots=True)
class Explanation:
    resolution: Resolution
    rows: tuple[ExplainRow, ...]


def _fmt(scope) -> str:
    end = "∞" if scope.valid_to is None else scope.valid_to
    return f"{scope.procedure}/{','.join(scope.configurations)}/{','.join(scope.regions)} " \
           f"[{scope.valid_from}, {end})"


def _candidate_reason(rev: RevisionSpec, q: ResolutionQuery, key: int, tenant: str | None):
    """None if ``rev`` is a step-2 candidate, else why not."""
    # explain() stops at MISSING_SCOPE, so every scope input is given here.
    assert q.procedure and q.configuration and q.region
    if rev.kind == "translation":
        return f"translation (of {rev.interp.equivalent_to}): never an authority candidate"
    if rev.interp.status != "approved":
        return f"status {rev.interp.status}: only approved revisions can win"
    if rev.tenant not in (WILDCARD, tenant):
        return f"tenant {rev.tenant}: another tenant's revision"
    for scope in rev.interp.applies:
        if scope.covers(q.procedure, q.configuration, q.region, key):
            return None
    near = [s for s in rev.interp.applies if s.covers(q.procedure, q.configuration, q.region,
                                                      s.from_key)]
    if near:
        return f"interval excludes the instant: {'; '.join(_fmt(s) for s in near)}"
    return ("no single applies entry covers "
            f"{q.procedure}/{q.configuration}/{q.region}: "
            + ("; ".join(_fmt(s) for s in rev.interp.applies) or "none"))


def _path(state: dict[str, RevisionSpec], procedure: str, start: str, goal: str) -> list[str]:
    """A supersession chain start → … → goal for ``procedure`` with decisions, or []."""
    todo = [start]
    back: dict[str, tuple[str, str] | None] = {start: None}  # node -> (superseder, decision)
    while todo:
        node = todo.pop(0)
        for edge in (state[node].interp.supersedes if node in state else ()):
            if edge.procedure == procedure and edge.revision not in back:
                back[edge.revision] = (node, edge.decision)
                todo.append(edge.revision)
    if goal not in back:
        return []
    steps, node = [], goal
    while (link := back[node]) is not None:
        prev, decision = link
        steps.append(f"{prev} supersedes {node} ({decision})")
        node = prev
    return list(reversed(steps))


def explain(registry: Registry, query: ResolutionQuery) -> Explanation:
    """Resolve ``query`` and account for every revision of its family."""
    resolution = registry.resolve(query)
    if resolution.outcome is RegistryOutcome.MISSING_SCOPE:
        return Explanation(resolution, ())
    instant = registry.instant_of(query)
    # Past MISSING_SCOPE the instant and every scope input were given.
    assert instant is not None and query.procedure
    key = instant[1]
    with registry._lock:  # noqa: SLF001 - same adapter, same connection
        state = store.load_state(registry.db, resolution.known_at)
    family = {rid: rev for rid, rev in state.items() if rev.family == query.family}
    rows: dict[str, ExplainRow] = {}
    candidates = []
    for rid, rev in sorted(family.items()):
        why = _candidate_reason(rev, query, key, query.tenant)
        if why is None:
            candidates.append(rid)
        else:
            rows[rid] = ExplainRow(rid, rev.kind, rev.interp.status, Verdict.DROPPED,
                                   "2 candidates", why)
    left = []
    for rid in candidates:
        chain = next((p for other in candidates if other != rid
                      for p in [_path(state, query.procedure, other, rid)] if p), [])
        if chain:
            rows[rid] = ExplainRow(rid, family[rid].kind, "approved", Verdict.DROPPED,
                                   "3 authority", "superseded: " + " → ".join(chain))
        else:
            left.append(rid)
    for rid in left:
        rev = family[rid]
        if len(left) > 1:
            reason = "no authority decision between " + ", ".join(left)
            rows[rid] = ExplainRow(rid, rev.kind, "approved", Verdict.KEPT, "3 authority", reason)
        elif not usable(rev.interp.roles, query.roles):
            rows[rid] = ExplainRow(rid, rev.kind, "approved", Verdict.WINNER, "4 permission",
                                   f"authoritative, but usable only by roles "
                                   f"{', '.join(rev.interp.roles)}; no fallback")
        else:
            rows[rid] = ExplainRow(rid, rev.kind, "approved", Verdict.WINNER, "3 authority",
                                   "the single authoritative candidate")
    if resolution.edition and resolution.edition != resolution.revision:
        rev = family[resolution.edition]
        rows[rev.id] = ExplainRow(rev.id, rev.kind, rev.interp.status, Verdict.EDITION,
                                  "5 edition", f"reviewed {rev.language} equivalent of "
                                               f"{resolution.revision}")
    return Explanation(resolution, tuple(rows[r] for r in sorted(rows)))
