"""The dependency map: which fields each dependent reads.

A correction invalidates exactly the dependents of the fields it changed and preserves the
rest. Over-invalidation (forgetting stable context) is a bug too, so both directions are
tested. The map is immutable; every change returns a new map.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class DependentKind(StrEnum):
    RETRIEVAL_QUERY = "retrieval_query"
    ACTION = "action"
    OUTPUT_LANGUAGE = "output_language"
    RESPONSE = "response"


@dataclass(frozen=True, slots=True)
class Dependent:
    kind: DependentKind
    id: str


@dataclass(frozen=True, slots=True)
class Invalidation:
    """What one revision made stale, computed once by :meth:`DependencyMap.invalidation`.

    ``changed`` are the fields the revision changed, ``stale`` exactly the dependents of the map
    that read one of them. Everyone who reacts to the revision reads it from here: the
    controller (the response, the query), the booking desk (its actions), the answer desk.
    """

    changed: tuple[str, ...] = ()
    stale: frozenset[Dependent] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.changed)

    def __contains__(self, dependent: object) -> bool:
        return dependent in self.stale

    def of_kind(self, kind: DependentKind) -> tuple[Dependent, ...]:
        """The stale dependents of ``kind``, in a stable order."""
        return tuple(sorted((d for d in self.stale if d.kind is kind), key=lambda d: d.id))

    def touches(self, reads: Iterable[str]) -> bool:
        """Whether the revision changed one of ``reads``: for a reader that is not (or no
        longer) in the map, such as a settled action's stamp or the reads of a topic now."""
        return not frozenset(self.changed).isdisjoint(reads)


@dataclass(frozen=True, slots=True)
class DependencyMap:
    edges: tuple[tuple[Dependent, frozenset[str]], ...] = ()

    def with_dependent(self, dependent: Dependent, reads: Iterable[str]) -> DependencyMap:
        """A new map where ``dependent`` reads exactly ``reads`` (replacing earlier edges)."""
        kept = tuple(e for e in self.edges if e[0] != dependent)
        return DependencyMap(kept + ((dependent, frozenset(reads)),))

    def without(self, dependent: Dependent) -> DependencyMap:
        return DependencyMap(tuple(e for e in self.edges if e[0] != dependent))

    def reads(self, dependent: Dependent) -> frozenset[str]:
        for dep, fields in self.edges:
            if dep == dependent:
                return fields
        return frozenset()

    def invalidated_by(self, changed: Iterable[str]) -> frozenset[Dependent]:
        """The dependents that read at least one changed field."""
        changed = frozenset(changed)
        return frozenset(dep for dep, fields in self.edges if fields & changed)

    def invalidation(self, changed: Iterable[str]) -> Invalidation:
        """What a revision that changed ``changed`` invalidates: :meth:`invalidated_by`, once."""
        changed = tuple(changed)
        return Invalidation(changed, self.invalidated_by(changed))

    def preserved_by(self, changed: Iterable[str]) -> frozenset[Dependent]:
        """The dependents a change of ``changed`` leaves current."""
        changed = frozenset(changed)
        return frozenset(dep for dep, fields in self.edges if not fields & changed)

    def of_kind(self, kind: DependentKind) -> tuple[Dependent, ...]:
        return tuple(dep for dep, _ in self.edges if dep.kind is kind)
