"""``validate``: the contract's checks over the stored registry, plus estate-management findings.

Errors are contract violations (which a correct import can never produce, so they mean the
file was edited behind our back). Findings are real but legal states an owner should review:
overlaps of approved revisions with no authority decision (``resolve`` answers
UNRESOLVED_AUTHORITY there) and gaps (no applicable revision between two that apply).
Read-only.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import asdict, dataclass
from itertools import combinations

from registry import checks, store
from registry.model import WILDCARD, RevisionSpec, Scope
from registry.resolver import Registry


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str  # "error" (breaks the contract) or "finding" (review it)
    kind: str  # reference | cycle | digest | overlap | gap
    message: str
    revisions: tuple[str, ...] = ()
    scope: str = ""

    def as_json(self) -> dict:
        return {**asdict(self), "revisions": list(self.revisions)}


def _meets(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    if WILDCARD in a:
        return b
    if WILDCARD in b:
        return a
    return tuple(sorted(set(a) & set(b)))


def _names(values: tuple[str, ...], value: str) -> bool:
    return value in values or WILDCARD in values


def _reaches(state: dict[str, RevisionSpec], procedure: str, start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for edge in (state[node].interp.supersedes if node in state else ()):
            if edge.procedure == procedure and edge.revision not in seen:
                if edge.revision == goal:
                    return True
                seen.add(edge.revision)
                todo.append(edge.revision)
    return False


def _bound(value) -> str:
    return "∞" if value is None else str(value)


def _authorities(state: dict[str, RevisionSpec]):
    """Approved, non-translation applies entries grouped by (family, procedure)."""
    groups: dict[tuple[str, str], list[tuple[RevisionSpec, Scope]]] = defaultdict(list)
    for rev in state.values():
        if rev.kind != "translation" and rev.interp.status == "approved":
            for scope in rev.interp.applies:
                groups[(rev.family, scope.procedure)].append((rev, scope))
    return groups


def overlaps(state: dict[str, RevisionSpec]) -> list[Finding]:
    out = []
    for (family, procedure), entries in sorted(_authorities(state).items()):
        entries.sort(key=lambda e: e[1].from_key)
        for (ra, sa), (rb, sb) in combinations(entries, 2):
            if ra.id == rb.id or WILDCARD not in (ra.tenant, rb.tenant) and ra.tenant != rb.tenant:
                continue
            configs, regions = (_meets(sa.configurations, sb.configurations),
                                _meets(sa.regions, sb.regions))
            ends = [k for k in (sa.to_key, sb.to_key) if k is not None]
            start, end = max(sa.from_key, sb.from_key), (min(ends) if ends else None)
            if not configs or not regions or (end is not None and start >= end):
                continue
            if _reaches(state, procedure, ra.id, rb.id) or _reaches(state, procedure, rb.id,
                                                                   ra.id):
                continue
            lo = sa.valid_from if sa.from_key >= sb.from_key else sb.valid_from
            hi = None if end is None else (sa.valid_to if sa.to_key == end else sb.valid_to)
            scope = f"{family}/{procedure}/{','.join(configs)}/{','.join(regions)}"
            out.append(Finding("finding", "overlap",
                               f"{ra.id} and {rb.id} both apply to {scope} over "
                               f"[{lo}, {_bound(hi)}) with no authority decision; resolve "
                               f"answers UNRESOLVED_AUTHORITY there", (ra.id, rb.id), scope))
    return out


def _span_order(span: tuple) -> tuple:
    """By start, then end, open-ended last: a bare tuple sort would compare None with an end
    when two entries start together (and raise TypeError)."""
    from_key, to_key, from_text, to_text = span
    return from_key, to_key is None, to_key or 0, from_text, "" if to_text is None else to_text


def gaps(state: dict[str, RevisionSpec]) -> list[Finding]:
    out = []
    for (family, procedure), entries in sorted(_authorities(state).items()):
        pairs = {(c, r) for _, s in entries for c in s.configurations for r in s.regions}
        for config, region in sorted(pairs):
            # "*" keys gather only explicit "*" entries, so a gap is reported once, where it is
            spans = sorted(((s.from_key, s.to_key, s.valid_from, s.valid_to) for _, s in entries
                            if _names(s.configurations, config) and _names(s.regions, region)),
                           key=_span_order)
            reach_key, reach_text = spans[0][1], spans[0][3]
            for from_key, to_key, from_text, to_text in spans[1:]:
                if reach_key is None:
                    break
                if from_key > reach_key:
                    scope = f"{family}/{procedure}/{config}/{region}"
                    out.append(Finding("finding", "gap",
                                       f"no approved revision applies to {scope} in "
                                       f"[{reach_text}, {from_text})", (), scope))
                if to_key is None or to_key > reach_key:
                    reach_key, reach_text = to_key, to_text
    return out


def validate(registry: Registry) -> list[Finding]:
    """Every contract error and every finding of the latest snapshot, errors first."""
    with registry._lock:  # noqa: SLF001 - same adapter, same connection
        state = store.load_state(registry.db)
        digests = registry.db.execute("SELECT id, content, digest FROM revisions").fetchall()
    errors = [Finding("error", "digest", f"database: revision {rid!r}: stored digest does not "
                                         f"match its content; restore the file from a backup",
                      (rid,))
              for rid, content, digest in digests
              if hashlib.sha256(content.encode()).hexdigest() != digest]
    errors += [Finding("error", "reference", m) for m in checks.reference_problems(state, {})]
    errors += [Finding("error", "cycle", m) for m in checks.cycle_problems(state, {})]
    return errors + overlaps(state) + gaps(state)
