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

    def preserved_by(self, changed: Iterable[str]) -> frozenset[Dependent]:
        """The dependents a change of ``changed`` leaves current."""
        changed = frozenset(changed)
        return frozenset(dep for dep, fields in self.edges if not fields & changed)

    def of_kind(self, kind: DependentKind) -> tuple[Dependent, ...]:
        return tuple(dep for dep, _ in self.edges if dep.kind is kind)
