"""The admission gate: is a result that just arrived still about the question as it stands?

Every dependent (a retrieval query, an action, a response) is stamped when it is issued with the
question id, the versions of the fields it reads (its dependency vector) and its scope. After
every ``await`` whose result will be used, the gate compares that stamp with the ledger *now*.

Cancellation saves work; only the gate is correctness. A correction to a field the dependent
does not read leaves it current, so the gate never over-invalidates.

``admit`` is synchronous on purpose: in one event loop the caller must use an admitted result
before its next ``await``; another await needs another check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from agent.core.ledger import Ledger, LedgerSnapshot


class Disposition(StrEnum):
    """The gate's verdict on one stamped result."""

    CURRENT = "current"  # every field it read is at the version it was built from
    STALE = "stale"  # a field it read has changed since, or it belongs to an older question
    CLOSED = "closed"  # the question is closed: nothing is admitted any more
    OUT_OF_SCOPE = "out_of_scope"  # it was computed for another scope (tenant, revision set...)


class GateMode(StrEnum):
    ENFORCE = "enforce"  # non-current results are withheld
    SHADOW = "shadow"  # everything passes; what would have been rejected is recorded


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a dependent was computed from. Immutable and cheap to compare."""

    question: str
    revision: int
    reads: tuple[tuple[str, int], ...]
    scope: str | None = None
    request: str = ""

    @classmethod
    def of(cls, snapshot: LedgerSnapshot, reads: Iterable[str], *, scope: str | None = None,
           request: str = "") -> Stamp:
        """Stamp a dependent issued now that reads ``reads``."""
        return cls(snapshot.question, snapshot.revision, snapshot.vector(reads), scope, request)


class Stamped(Protocol):
    @property
    def stamp(self) -> Stamp: ...


def classify(snapshot: LedgerSnapshot, stamp: Stamp, scope: str | None = None) -> Disposition:
    """Pure comparison of a stamp with a ledger snapshot (and, optionally, the current scope)."""
    if snapshot.closed:
        return Disposition.CLOSED
    if stamp.question != snapshot.question:
        return Disposition.STALE
    for name, version in stamp.reads:
        if snapshot.version(name) != version:
            return Disposition.STALE
    if scope is not None and stamp.scope != scope:
        return Disposition.OUT_OF_SCOPE
    return Disposition.CURRENT


@dataclass(frozen=True, slots=True)
class ShadowRecord:
    """A result the shadow gate let through although enforcing would have withheld it."""

    stamp: Stamp
    disposition: Disposition
    revision_now: int


class AdmissionGate:
    """Admits stamped results against one ledger.

    In ``SHADOW`` mode ``admit`` always answers CURRENT and appends a :class:`ShadowRecord`
    for every result it would have rejected, so a gate can be rolled out on an existing system
    before it is trusted to suppress output (seed 000, "Operate the contract safely").
    ``on_decision`` is called with every (stamp, real disposition) for tracing.
    """

    def __init__(self, ledger: Ledger, mode: GateMode = GateMode.ENFORCE,
                 on_decision: Callable[[Stamp, Disposition], None] | None = None):
        self._ledger = ledger
        self.mode = GateMode(mode)
        self._on_decision = on_decision
        self._shadow: list[ShadowRecord] = []

    @property
    def shadow_log(self) -> tuple[ShadowRecord, ...]:
        return tuple(self._shadow)

    def admit(self, result: Stamp | Stamped, *, scope: str | None = None) -> Disposition:
        """Classify ``result`` against the ledger now. Records shadow decisions (side effect)."""
        stamp = result if isinstance(result, Stamp) else result.stamp
        snapshot = self._ledger.current
        disposition = classify(snapshot, stamp, scope)
        if self._on_decision is not None:
            self._on_decision(stamp, disposition)
        if self.mode is GateMode.SHADOW and disposition is not Disposition.CURRENT:
            self._shadow.append(ShadowRecord(stamp, disposition, snapshot.revision))
            return Disposition.CURRENT
        return disposition
