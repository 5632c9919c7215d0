"""Actions: side effects the agent intends, each carrying the revision it was built from.

Status changes follow :data:`TRANSITIONS` and nothing else; an illegal edge raises
:class:`~agent.core.errors.IllegalTransition`. :func:`may_commit` is the fail-closed check that runs
immediately before the side effect (seed 001).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TypedDict, Unpack

from agent.core.errors import IllegalTransition
from agent.core.ledger import LedgerSnapshot
from agent.core.ops import Op


class ActionStatus(StrEnum):
    PROPOSED = "proposed"  # built from the ledger, awaiting confirmation or dispatch
    COMMITTING = "committing"  # dispatched to the system of record, no answer yet
    COMMITTED = "committed"  # the system of record returned a verified record
    CANCEL_REQUESTED = "cancel_requested"  # we asked the target to cancel; not yet known
    CANCELLED = "cancelled"  # proven not to have happened (never dispatched, or target says so)
    FAILED = "failed"  # the target refused it; nothing was written
    UNKNOWN = "unknown"  # no answer (timeout): must be reconciled by key before anything else


TERMINAL = frozenset({ActionStatus.COMMITTED, ActionStatus.CANCELLED, ActionStatus.FAILED})

TRANSITIONS: dict[ActionStatus, frozenset[ActionStatus]] = {
    ActionStatus.PROPOSED: frozenset({ActionStatus.COMMITTING, ActionStatus.CANCELLED}),
    ActionStatus.COMMITTING: frozenset({ActionStatus.COMMITTED, ActionStatus.CANCEL_REQUESTED,
                                        ActionStatus.FAILED, ActionStatus.UNKNOWN}),
    # A cancellation request is only a request: the target may still have completed the work.
    ActionStatus.CANCEL_REQUESTED: frozenset({ActionStatus.CANCELLED, ActionStatus.COMMITTED,
                                              ActionStatus.FAILED, ActionStatus.UNKNOWN}),
    # An unknown outcome is resolved only by looking the request up by its key.
    ActionStatus.UNKNOWN: frozenset({ActionStatus.COMMITTED, ActionStatus.CANCELLED,
                                     ActionStatus.FAILED, ActionStatus.CANCEL_REQUESTED}),
    # A committed action is history. Changing it is a new action (reschedule or cancel).
    ActionStatus.COMMITTED: frozenset(),
    ActionStatus.CANCELLED: frozenset(),
    ActionStatus.FAILED: frozenset(),
}


@dataclass(frozen=True, slots=True)
class Basis:
    """One field an action reads: its name, the version and the value it was built from."""

    field: str
    version: int
    value: str | None


class ActionChanges(TypedDict, total=False):
    """What a status change may change besides the status: the verified result."""

    result: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Action:
    """An intended side effect. Immutable: :meth:`to` returns the next state."""

    id: str
    op: Op
    args: tuple[tuple[str, str], ...]
    question: str
    based_on_revision: int
    basis: tuple[Basis, ...]
    idempotency_key: str
    status: ActionStatus = ActionStatus.PROPOSED
    result: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # an op given by its value ("create_booking") is the Op; an unknown one is refused
        object.__setattr__(self, "op", Op(self.op))

    @property
    def dependency_vector(self) -> tuple[tuple[str, int], ...]:
        return tuple((b.field, b.version) for b in self.basis)

    def arg(self, name: str) -> str | None:
        return dict(self.args).get(name)

    def to(self, status: ActionStatus, **changes: Unpack[ActionChanges]) -> Action:
        """Return this action in ``status``. Raises IllegalTransition for a forbidden edge."""
        status = ActionStatus(status)
        if status not in TRANSITIONS[self.status]:
            raise IllegalTransition(self.id, self.status, status)
        return replace(self, status=status, **changes)


def idempotency_key_for(question: str, action_id: str) -> str:
    """The key a side effect carries: stable across retries of the same logical request."""
    if not question or not action_id:
        from agent.core.errors import InvalidInput

        raise InvalidInput("idempotency key: question id and action id must be non-empty")
    return f"{question}:{action_id}"


def propose(action_id: str, op: Op, args: dict[str, str], snapshot: LedgerSnapshot,
            reads: tuple[str, ...]) -> Action:
    """Build a proposed action from the ledger now. ``args`` is copied, never aliased."""
    basis = tuple(Basis(name, snapshot.version(name), snapshot.value(name))
                  for name in sorted(set(reads)))
    return Action(action_id, op, tuple(sorted(args.items())), snapshot.question,
                  snapshot.revision, basis, idempotency_key_for(snapshot.question, action_id))


class CommitDecision(StrEnum):
    """Why an action may or may not be dispatched now. Only ALLOWED permits an attempt."""

    ALLOWED = "allowed"
    CLOSED = "closed"  # the question is closed
    WRONG_QUESTION = "wrong_question"  # built for another question
    UNAUTHORIZED = "unauthorized"  # the caller may not make this change
    NOT_COMMITTING = "not_committing"  # the action is not in the committing state
    MISSING_FIELD = "missing_field"  # a field it reads has no value
    UNCONFIRMED = "unconfirmed"  # a field it reads is proposed, unresolved or cleared
    STALE = "stale"  # a field it reads has a newer version
    VALUE_CHANGED = "value_changed"  # same version, different value: never trust it
    NO_IDEMPOTENCY_KEY = "no_idempotency_key"

    @property
    def allowed(self) -> bool:
        return self is CommitDecision.ALLOWED


def may_commit(snapshot: LedgerSnapshot, action: Action, *,
               authorized: bool = True) -> CommitDecision:
    """Fail closed when evidence is missing, stale or unauthorised (seed 001).

    This permits an attempt; it never declares the business task complete.
    """
    if snapshot.closed:
        return CommitDecision.CLOSED
    if action.question != snapshot.question:
        return CommitDecision.WRONG_QUESTION
    if not authorized:
        return CommitDecision.UNAUTHORIZED
    if action.status is not ActionStatus.COMMITTING:
        return CommitDecision.NOT_COMMITTING
    if not action.basis:
        return CommitDecision.MISSING_FIELD
    for basis in action.basis:
        record = snapshot.get(basis.field)
        if record is None or record.value is None or basis.value is None:
            return CommitDecision.MISSING_FIELD
        if not record.usable:
            return CommitDecision.UNCONFIRMED
        if record.version != basis.version:
            return CommitDecision.STALE
        if record.value != basis.value:
            return CommitDecision.VALUE_CHANGED
    if not action.idempotency_key.strip():
        return CommitDecision.NO_IDEMPOTENCY_KEY
    return CommitDecision.ALLOWED
