"""The ledger: one question's accepted fields and its monotonically increasing revision.

The controller is the only writer. Every accepted change allocates the next revision here, so
no other component ever invents one. Readers get an immutable :class:`LedgerSnapshot`; a
change swaps the whole snapshot at once (readers never see a bit of old and a bit of new).

Two ways in, with one outcome vocabulary (:class:`UpdateOutcome`):

* ``update(revision, values, final)`` delivers a complete value set at an explicit revision,
  as a transport would (seed 000). Re-deliveries and out-of-order deliveries are classified.
* ``revise(ops)`` applies field-level operations (set, clear, mark unresolved) atomically at
  the next revision. Each changed field's version goes up by one.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from agent.core.errors import InvalidInput, QuestionClosed
from agent.core.fields import FieldRecord, FieldStatus, validate_values


class UpdateOutcome(StrEnum):
    """What happened to one delivered update. One meaning per member."""

    ACCEPTED = "accepted"  # it became the current state at a new revision
    DUPLICATE = "duplicate"  # the same payload at the current revision: nothing changed
    CONFLICT = "conflict"  # a different payload at the current revision, or any change after final
    STALE = "stale"  # an older revision than the current one
    CLOSED = "closed"  # the question is closed; nothing is accepted any more


class FieldOpKind(StrEnum):
    SET = "set"
    CLEAR = "clear"
    UNRESOLVE = "unresolve"


@dataclass(frozen=True, slots=True)
class FieldOp:
    """One field-level change requested by the controller."""

    name: str
    kind: FieldOpKind
    value: str | None = None
    source: str = "controller"
    confidence: float = 1.0
    status: FieldStatus = FieldStatus.CONFIRMED
    candidates: tuple[str, ...] = ()

    @classmethod
    def set(cls, name: str, value: str, source: str, *, confidence: float = 1.0,
            status: FieldStatus = FieldStatus.CONFIRMED) -> FieldOp:
        return cls(name, FieldOpKind.SET, value, source, confidence, status)

    @classmethod
    def clear(cls, name: str, source: str) -> FieldOp:
        return cls(name, FieldOpKind.CLEAR, None, source, 1.0, FieldStatus.CLEARED)

    @classmethod
    def unresolve(cls, name: str, source: str, candidates: Sequence[str] = (),
                  confidence: float = 1.0) -> FieldOp:
        return cls(name, FieldOpKind.UNRESOLVE, None, source, confidence,
                   FieldStatus.UNRESOLVED, tuple(candidates))


@dataclass(frozen=True, slots=True)
class LedgerSnapshot:
    """An immutable view of the ledger at one revision."""

    question: str
    revision: int
    fields: tuple[tuple[str, FieldRecord], ...] = ()
    final: bool = False
    closed: bool = False

    def get(self, name: str) -> FieldRecord | None:
        for key, record in self.fields:
            if key == name:
                return record
        return None

    def value(self, name: str) -> str | None:
        record = self.get(name)
        return record.value if record is not None else None

    def version(self, name: str) -> int:
        """The field's version; 0 for a field that was never accepted."""
        record = self.get(name)
        return record.version if record is not None else 0

    def vector(self, names: Iterable[str]) -> tuple[tuple[str, int], ...]:
        """The dependency vector of a dependent that reads ``names``."""
        return tuple((name, self.version(name)) for name in sorted(set(names)))

    def values(self) -> dict[str, str]:
        """A fresh dict of the present values (a copy: writing to it changes nothing here)."""
        return {k: r.value for k, r in self.fields if r.value is not None}

    @property
    def payload(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, r.value) for k, r in self.fields if r.value is not None)


@dataclass(frozen=True, slots=True)
class UpdateResult:
    """The outcome of one update, the revision it produced (or met) and the fields it changed."""

    outcome: UpdateOutcome
    revision: int
    changed: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:  # lets tests write ``ledger.update(...) == "stale"``
        if isinstance(other, str):
            return self.outcome == other
        if isinstance(other, UpdateResult):
            return (self.outcome, self.revision, self.changed) == (
                other.outcome, other.revision, other.changed)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.outcome, self.revision, self.changed))


class Ledger:
    """Accepted state of one question (conversation task). Single owner, single event loop."""

    __slots__ = ("__snapshot",)

    def __init__(self, question: str | None = None):
        self.__snapshot = LedgerSnapshot(question or f"q-{uuid.uuid4().hex[:12]}", -1)

    @property
    def question(self) -> str:
        return self.__snapshot.question

    @property
    def revision(self) -> int:
        return self.__snapshot.revision

    @property
    def current(self) -> LedgerSnapshot:
        """The current immutable snapshot. Read-only: assigning to it raises AttributeError."""
        return self.__snapshot

    @property
    def closed(self) -> bool:
        return self.__snapshot.closed

    def issue(self) -> LedgerSnapshot:
        """The snapshot a new request should carry. Raises QuestionClosed if none is active."""
        if self.__snapshot.closed or self.__snapshot.revision < 0:
            raise QuestionClosed(f"question {self.question}: no active question to issue")
        return self.__snapshot

    def close(self) -> None:
        """Seal the question: every later update is CLOSED and every admission is closed."""
        self.__snapshot = replace(self.__snapshot, closed=True)

    # -- whole-payload delivery (seed 000) -------------------------------------------------
    def update(self, revision: int, values: Mapping[str, str], final: bool = False,
               source: str = "update") -> UpdateResult:
        """Deliver the complete value set at ``revision``.

        Changes the ledger only when the outcome is ACCEPTED: changed values get a new version,
        fields absent from ``values`` are cleared. Raises InvalidInput on malformed arguments.
        """
        if type(revision) is not int or revision < 0:
            raise InvalidInput(f"revision: a non-negative integer is required, got {revision!r}")
        if type(final) is not bool:
            raise InvalidInput(f"final: a boolean is required, got {final!r}")
        payload = validate_values(values)
        snap = self.__snapshot
        if snap.closed:
            return UpdateResult(UpdateOutcome.CLOSED, snap.revision)
        if revision < snap.revision:
            return UpdateResult(UpdateOutcome.STALE, snap.revision)
        if revision == snap.revision:
            same = (payload, final) == (snap.payload, snap.final)
            return UpdateResult(UpdateOutcome.DUPLICATE if same else UpdateOutcome.CONFLICT,
                                snap.revision)
        if snap.final:
            return UpdateResult(UpdateOutcome.CONFLICT, snap.revision)
        wanted = dict(payload)
        ops = [FieldOp.set(k, v, source) for k, v in payload]
        ops += [FieldOp.clear(k, source) for k, r in snap.fields
                if k not in wanted and r.value is not None]
        return self.__commit(ops, revision, final)

    # -- field-level operations --------------------------------------------------------------
    def revise(self, ops: Sequence[FieldOp], *, final: bool = False) -> UpdateResult:
        """Apply field operations atomically at the next revision.

        DUPLICATE when nothing would change (an exact re-delivery of the same correction makes
        no new version); CONFLICT after the question was finalised; CLOSED after close.
        """
        if not ops:
            raise InvalidInput("revise: at least one field operation is required")
        for op in ops:
            if type(op.name) is not str or not op.name:
                raise InvalidInput(f"field name must be a non-empty string, got {op.name!r}")
            if op.kind is FieldOpKind.SET and (type(op.value) is not str or not op.value):
                raise InvalidInput(f"field {op.name!r}: a non-empty string value is required")
        snap = self.__snapshot
        if snap.closed:
            return UpdateResult(UpdateOutcome.CLOSED, snap.revision)
        if not any(self.__changes(snap.get(op.name), op) for op in ops) and final == snap.final:
            return UpdateResult(UpdateOutcome.DUPLICATE, snap.revision)
        if snap.final:
            return UpdateResult(UpdateOutcome.CONFLICT, snap.revision)
        return self.__commit(list(ops), snap.revision + 1, final)

    def set(self, name: str, value: str, source: str, *, confidence: float = 1.0,
            status: FieldStatus = FieldStatus.CONFIRMED) -> UpdateResult:
        return self.revise([FieldOp.set(name, value, source, confidence=confidence,
                                        status=status)])

    def clear(self, name: str, source: str) -> UpdateResult:
        return self.revise([FieldOp.clear(name, source)])

    def mark_unresolved(self, name: str, source: str, candidates: Sequence[str] = (),
                        confidence: float = 1.0) -> UpdateResult:
        return self.revise([FieldOp.unresolve(name, source, candidates, confidence)])

    # -- internals -----------------------------------------------------------------------------
    @staticmethod
    def __changes(before: FieldRecord | None, op: FieldOp) -> bool:
        if before is None:
            # A never-set field changes when it gets a value, or when it is left for the
            # agent to ask: competing candidates kept (uncertain recognition), or a default
            # the caller disowned ("you've got the wrong address"); clearing it changes nothing.
            return op.kind in (FieldOpKind.SET, FieldOpKind.UNRESOLVE)
        return (before.value, before.status, before.candidates) != (
            op.value, op.status, op.candidates)

    def __commit(self, ops: Sequence[FieldOp], revision: int, final: bool) -> UpdateResult:
        snap = self.__snapshot
        fields = dict(snap.fields)
        changed: list[str] = []
        for op in ops:
            before = fields.get(op.name)
            if not self.__changes(before, op):
                continue
            fields[op.name] = FieldRecord(
                value=op.value, source=op.source, confidence=op.confidence, status=op.status,
                version=(before.version if before else 0) + 1, updated_at=revision,
                candidates=op.candidates)
            changed.append(op.name)
        self.__snapshot = LedgerSnapshot(snap.question, revision, tuple(sorted(fields.items())),
                                         final, False)
        return UpdateResult(UpdateOutcome.ACCEPTED, revision, tuple(sorted(set(changed))))
