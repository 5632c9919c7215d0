"""The ports the controller calls, and the value types that cross them.

Adapters implement these Protocols: ``registry/`` the :class:`Resolver`, ``retrieval/`` the
:class:`Retriever`, ``tools_sandbox/`` the :class:`BookingPort`. Everything crossing a port is
immutable. Adapters may add optional attributes; they never rename these.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Protocol

from agent.core.gate import Stamp
from agent.core.ops import Visit, VisitChanges

# --------------------------------------------------------------------------- registry


class RegistryOutcome(StrEnum):
    """The resolver's answer (docs/registry-format.md, "Outcomes"). One meaning per member."""

    RESOLVED = "RESOLVED"  # exactly one authoritative revision, usable, in the language asked
    MISSING_SCOPE = "MISSING_SCOPE"  # a required scope input is missing: ask for it
    NOT_APPLICABLE = "NOT_APPLICABLE"  # no approved revision covers this scope at this instant
    UNRESOLVED_AUTHORITY = "UNRESOLVED_AUTHORITY"  # several candidates, no authority decision
    UNAVAILABLE = "UNAVAILABLE"  # the winner exists but this subject may not use it
    NO_EQUIVALENT_EDITION = "NO_EQUIVALENT_EDITION"  # no reviewed edition in that language


@dataclass(frozen=True, slots=True)
class ResolutionQuery:
    """Everything resolution depends on. Tenant, roles and epoch come from the session only."""

    tenant: str | None
    roles: tuple[str, ...]
    family: str | None
    procedure: str | None
    configuration: str | None
    region: str | None
    mode: str = "current"  # "current" (instant = now, captured once) or "historical"
    at: str | None = None  # historical: the tick or RFC 3339 instant; current: "now" override
    language: str = "en"
    known_at: int | None = None  # registry snapshot (knowledge time); None = latest
    auth_epoch: int = 0
    fields: tuple[tuple[str, str], ...] = ()  # accepted fields for section `when` filters


@dataclass(frozen=True, slots=True)
class ScopeToken:
    """Everything an answer depended on. Changing any member changes :attr:`cache_key`."""

    tenant: str
    auth_epoch: int
    configuration: str
    region: str
    family: str
    procedure: str
    mode: str
    instant: str
    known_at: int
    policy_version: str
    language: str
    allowed_revisions: tuple[str, ...]

    @property
    def cache_key(self) -> str:
        canonical = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Resolution:
    """A resolver answer. ``revision``/``edition`` are None unless RESOLVED (no leak)."""

    outcome: RegistryOutcome
    revision: str | None = None
    edition: str | None = None
    language: str | None = None
    valid: tuple[int | str | None, int | str | None] | None = None
    known_at: int = 0
    instant: str = ""
    historical: bool = False
    token: ScopeToken | None = None
    missing: tuple[str, ...] = ()  # MISSING_SCOPE: which inputs

    @property
    def label(self) -> str:
        """"as of tick 6" / "as of 2026-03-03" for historical answers, else "current"."""
        if not self.historical:
            return "current"
        return f"as of {'tick ' if self.instant.lstrip('-').isdigit() else ''}{self.instant}"


@dataclass(frozen=True, slots=True)
class ProcedureInfo:
    """A procedure and the words callers use for it, so speech can be mapped to it."""

    family: str
    family_title: str
    procedure: str
    title: str
    aliases: tuple[str, ...] = ()


class Resolver(Protocol):
    def resolve(self, query: ResolutionQuery) -> Resolution: ...

    def procedures(self) -> tuple[ProcedureInfo, ...]: ...

    @property
    def snapshot(self) -> int: ...


# --------------------------------------------------------------------------- retrieval


class RetrievalOutcome(StrEnum):
    EVIDENCE = "evidence"  # admitted passages from the allowed revisions
    NO_ELIGIBLE_EVIDENCE = "no_eligible_evidence"  # search completed; nothing eligible matched
    TIMEOUT = "timeout"  # no answer by the deadline: we lack the promised evidence
    STALE = "stale"  # completed, but the question changed meanwhile: discarded
    CLOSED = "closed"  # completed after the question was closed: discarded
    OUT_OF_SCOPE = "out_of_scope"  # completed for another scope: discarded


@dataclass(frozen=True, slots=True)
class RetrievalRequest:
    stamp: Stamp
    token: ScopeToken
    text: str  # the human-readable query, free of identifying data
    filters: tuple[tuple[str, str], ...] = ()  # hard filters from accepted fields (`when`)
    limit: int = 3


@dataclass(frozen=True, slots=True)
class Citation:
    request_scope: str  # the scope token's cache key
    revision: str
    digest: str
    chunk: str
    language: str
    valid: tuple[int | str | None, int | str | None]
    instant: str
    registry_snapshot: int
    policy_version: str


@dataclass(frozen=True, slots=True)
class Passage:
    revision: str
    chunk: str
    text: str
    score: float
    citation: Citation


@dataclass(frozen=True, slots=True)
class EvidenceBundle:
    """The only thing an answer builder receives: frozen, stamped, cited."""

    stamp: Stamp
    token: ScopeToken
    passages: tuple[Passage, ...]

    @property
    def citations(self) -> tuple[Citation, ...]:
        return tuple(p.citation for p in self.passages)


@dataclass(frozen=True, slots=True)
class RetrievalResult:
    outcome: RetrievalOutcome
    request: str
    bundle: EvidenceBundle | None = None


class Retriever(Protocol):
    async def retrieve(self, request: RetrievalRequest) -> RetrievalResult: ...


# --------------------------------------------------------------------------- booking


class BookingOutcomeKind(StrEnum):
    COMMITTED = "COMMITTED"  # the system of record returned the verified record
    REJECTED_STALE = "REJECTED_STALE"  # a precondition failed (412): the record moved on
    CONFLICT = "CONFLICT"  # the key is in flight, or reused with another payload (409/422)
    FAILED = "FAILED"  # refused, nothing written (4xx/503)
    UNKNOWN = "UNKNOWN"  # no answer: look the request up by key before anything else


class RequestState(StrEnum):
    PENDING = "PENDING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    NOT_FOUND = "NOT_FOUND"


@dataclass(frozen=True, slots=True)
class BookingRecord:
    """A booking as the system of record holds it. Speech about bookings is rendered from this."""

    ref: str
    account: str
    asset: str
    date: str
    window: str | None
    time: str | None
    units: int
    site: str
    contact: str
    status: str
    version: int


def held_by(records: Iterable[BookingRecord], account: str) -> list[BookingRecord]:
    """The bookings an account holds: its own records, a cancelled one left out."""
    return [r for r in records if r.account == account and r.status != "cancelled"]


@dataclass(frozen=True, slots=True)
class BookingOutcome:
    kind: BookingOutcomeKind
    record: BookingRecord | None = None
    detail: str = ""
    request_state: RequestState | None = None
    replayed: bool = False
    code: str = ""  # the system of record's error code, where it gave one ("slot_full")


@dataclass(frozen=True, slots=True)
class HandoffState:
    """What a person receives: explicit state, never only prose."""

    question: str
    revision: int
    field_versions: tuple[tuple[str, str | None, int, str], ...]  # name, value, version, status
    pending_effects: tuple[tuple[str, str, str], ...]  # action id, op, status
    ambiguity: tuple[str, ...]
    reason: str
    summary: str = ""


class BookingPort(Protocol):
    """The system of record for bookings (``tools_sandbox/client.py``; routes: ``ops.py``)."""

    async def create(self, key: str, revision: int, booking: Visit) -> BookingOutcome: ...

    async def reschedule(self, key: str, revision: int, ref: str, expected_version: int,
                         changes: VisitChanges) -> BookingOutcome: ...

    async def cancel(self, key: str, revision: int, ref: str,
                     expected_version: int) -> BookingOutcome: ...

    async def lookup(self, key: str) -> BookingOutcome: ...

    async def request_cancel(self, key: str) -> BookingOutcome: ...

    async def get(self, ref: str) -> BookingRecord | None: ...

    async def bookings(self) -> tuple[BookingRecord, ...]: ...

    async def handoff(self, state: HandoffState) -> str: ...


# --------------------------------------------------------------------------- registry → retrieval


@dataclass(frozen=True, slots=True)
class RevisionText:
    """One immutable revision's content as plain data, for indexing by ``retrieval/``.

    ``sections`` holds ``(section_id, when, text)`` triples; ``when`` is a tuple of
    ``(field, value)`` conditions on accepted fields (hard filters). A revision written with a
    plain ``text`` is one section ``("text", (), text)``. ``valid`` lists the half-open
    ``[from, to)`` intervals of its ``applies`` entries (ticks or RFC 3339 strings, ``None`` =
    open-ended), as known at the registry's latest snapshot.
    """

    id: str
    family: str
    language: str
    tenant: str  # "*" = every tenant
    roles: tuple[str, ...]  # () = everyone of the tenant
    kind: str  # manual | bulletin | policy | translation
    digest: str  # sha256 of the canonical content
    valid: tuple[tuple[int | str | None, int | str | None], ...]
    sections: tuple[tuple[str, tuple[tuple[str, str], ...], str], ...]
    status: str = "approved"
    equivalent_to: str | None = None
    procedures: tuple[str, ...] = ()


class RevisionSource(Protocol):
    """Read-only view of the registry's contents; ``snapshot`` changes whenever they do."""

    def revision_texts(self) -> tuple[RevisionText, ...]: ...

    @property
    def snapshot(self) -> int: ...
