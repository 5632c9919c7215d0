"""Cross-checks of a registry state: the contract's rules that span revisions.

Runs over the *resulting* state (database plus the file being imported), so a reference may
point either way. Pure: takes revisions, returns problem messages; never touches the database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from registry.model import RevisionSpec

IMMUTABLE_FIELDS = ("family", "kind", "language", "tenant")


def changed_content(where: str, old: RevisionSpec, new: RevisionSpec) -> list[str]:
    """Problems when ``new`` re-imports ``old``'s id with other content or identity."""
    problems = []
    if old.digest != new.digest:
        key = "text" if new.plain_text else "sections"
        problems.append(f"{where}: revision {new.id!r}: key {key!r}: the content differs from "
                        f"the stored revision (digest {old.digest[:12]}…); content is "
                        f"immutable, so import it under a new revision id")
    for name in IMMUTABLE_FIELDS:
        if getattr(old, name) != getattr(new, name):
            problems.append(f"{where}: revision {new.id!r}: key {name!r}: changed from "
                            f"{getattr(old, name)!r} to {getattr(new, name)!r}; only applies, "
                            f"supersedes, status, roles and equivalent_to can be corrected")
    return problems


def reference_problems(state: Mapping[str, RevisionSpec], origin: Mapping[str, str]) -> list[str]:
    """Unknown, cross-family or uncovered supersession edges; bad ``equivalent_to`` links.

    ``origin`` maps a revision id to where it came from (a file name or "database"), for
    messages.
    """
    problems = []
    for rev in state.values():
        where = f"{origin.get(rev.id, 'database')}: revision {rev.id!r}"
        for j, edge in enumerate(rev.interp.supersedes):
            key = f"supersedes[{j}]"
            target = state.get(edge.revision)
            if target is None:
                problems.append(f"{where}: {key}: supersedes unknown revision "
                                f"{edge.revision!r}; import it first or fix the id")
            elif target.family != rev.family:
                problems.append(f"{where}: {key}: supersedes {edge.revision!r} of family "
                                f"{target.family!r}, but supersession never crosses families "
                                f"(this is {rev.family!r})")
            elif edge.procedure not in {s.procedure for s in target.interp.applies}:
                problems.append(f"{where}: {key}: {edge.revision!r} does not cover procedure "
                                f"{edge.procedure!r}, so it cannot be superseded for it")
            if edge.revision == rev.id:
                problems.append(f"{where}: {key}: a revision cannot supersede itself")
        eq = rev.interp.equivalent_to
        if eq is not None:
            target = state.get(eq)
            if target is None:
                problems.append(f"{where}: equivalent_to: unknown revision {eq!r}; import it "
                                f"first or fix the id")
            elif target.family != rev.family:
                problems.append(f"{where}: equivalent_to: {eq!r} is of family "
                                f"{target.family!r}, not {rev.family!r}")
            elif eq == rev.id:
                problems.append(f"{where}: equivalent_to: a revision cannot be its own "
                                f"equivalent")
    return problems


def cycle_problems(state: Mapping[str, RevisionSpec], origin: Mapping[str, str]) -> list[str]:
    """Supersession cycles, direct or transitive, within one procedure of one family."""
    graphs: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for rev in state.values():
        for edge in rev.interp.supersedes:
            graphs[(rev.family, edge.procedure)][rev.id].add(edge.revision)
    problems = []
    for (family, procedure), graph in sorted(graphs.items()):
        cycle = _find_cycle(graph)
        if cycle:  # name it from a revision of the file being imported, if any
            at = next((i for i, rid in enumerate(cycle) if rid in origin), 0)
            cycle = cycle[at:] + cycle[:at]
            first = cycle[0]
            path = " → ".join(cycle + [first])
            problems.append(f"{origin.get(first, 'database')}: revision {first!r}: supersedes: "
                            f"cycle within procedure {procedure!r} of family {family!r}: "
                            f"{path}")
    return problems


def _find_cycle(graph: Mapping[str, set[str]]) -> list[str]:
    """One cycle as a node list, or [] (iterative DFS with colours; deterministic order)."""
    colour: dict[str, int] = {}
    for root in sorted(graph):
        if colour.get(root):
            continue
        stack = [(root, iter(sorted(graph.get(root, ()))))]
        path = [root]
        colour[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = 2
                stack.pop()
                path.pop()
            elif colour.get(child) == 1:
                return path[path.index(child):]
            elif not colour.get(child):
                colour[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return []
