"""The registry's parsed, validated values. Immutable; built by ``parse``, stored by ``store``.

A revision splits in two: its *content* (id, family, kind, language, tenant, text), which never
changes, and its *interpretation* (status, roles, applies, supersedes, equivalent_to), which a
registry correction may change in a later knowledge-time snapshot.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

KINDS = ("manual", "bulletin", "policy", "translation")
STATUSES = ("approved", "draft", "withdrawn")
WILDCARD = "*"

Conditions = tuple[tuple[str, str], ...]
Section = tuple[str, Conditions, str]


@dataclass(frozen=True, slots=True)
class Scope:
    """One ``applies`` entry: a unit of authority. Bounds as written plus integer keys."""

    procedure: str
    configurations: tuple[str, ...]
    regions: tuple[str, ...]
    valid_from: int | str
    valid_to: int | str | None
    from_key: int
    to_key: int | None  # None = open-ended

    def covers(self, procedure: str, configuration: str, region: str, key: int) -> bool:
        """Half-open: ``from <= at < to``; configuration and region in this same entry."""
        return (self.procedure == procedure
                and (configuration in self.configurations or WILDCARD in self.configurations)
                and (region in self.regions or WILDCARD in self.regions)
                and self.from_key <= key and (self.to_key is None or key < self.to_key))

    def as_data(self) -> dict:
        return {"procedure": self.procedure, "configurations": list(self.configurations),
                "regions": list(self.regions), "valid": [self.valid_from, self.valid_to]}


@dataclass(frozen=True, slots=True)
class Edge:
    """A reviewed authority decision: the owner supersedes ``revision`` for ``procedure``."""

    revision: str
    procedure: str
    decision: str


@dataclass(frozen=True, slots=True)
class Interpretation:
    """The correctable metadata of a revision, as known in one snapshot."""

    status: str
    roles: tuple[str, ...]
    applies: tuple[Scope, ...]
    supersedes: tuple[Edge, ...]
    equivalent_to: str | None

    def canonical(self) -> str:
        """Order-insensitive JSON: two interpretations are the same iff these are equal."""
        data = {"status": self.status, "roles": sorted(self.roles),
                "applies": sorted(json.dumps(s.as_data(), sort_keys=True) for s in self.applies),
                "supersedes": sorted((e.revision, e.procedure, e.decision)
                                     for e in self.supersedes),
                "equivalent_to": self.equivalent_to}
        return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class RevisionSpec:
    """One revision: immutable content plus its interpretation."""

    id: str
    family: str
    kind: str
    language: str
    tenant: str
    sections: tuple[Section, ...]
    plain_text: bool  # written as ``text`` rather than ``sections``
    interp: Interpretation

    @property
    def content(self) -> str:
        """Canonical JSON of the content; the digest is its sha256."""
        if self.plain_text:
            data: dict = {"text": self.sections[0][2]}
        else:
            data = {"sections": [[sid, [list(c) for c in when], text]
                                 for sid, when, text in self.sections]}
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.content.encode()).hexdigest()


def sections_from_content(content: str) -> tuple[tuple[Section, ...], bool]:
    """Inverse of :attr:`RevisionSpec.content`: (sections, plain_text)."""
    data = json.loads(content)
    if "text" in data:
        return (("text", (), data["text"]),), True
    return tuple((sid, tuple((k, v) for k, v in when), text)
                 for sid, when, text in data["sections"]), False


@dataclass(frozen=True, slots=True)
class ProcedureSpec:
    family: str
    family_title: str
    procedure: str
    title: str
    aliases: tuple[str, ...]
    family_aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FamilyInfo:
    """A document family and the words callers use for it ("return", "send back")."""

    family: str
    title: str
    aliases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RegistryFile:
    """A whole import file, parsed and checked on its own (cross-checks come later)."""

    path: str
    name: str
    time: str
    procedures: tuple[ProcedureSpec, ...]
    revisions: tuple[RevisionSpec, ...]
    digest: str
