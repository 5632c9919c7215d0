"""Seed 001's decision matrix as data: what happens next to an action, situation by situation.

Every decision is one row of a :class:`Table`: a key (the situation), a :class:`Step` and a
stable id such as ``on_correction/committing``. The dispatcher, the reconciler and the booking
desk look the row up at run time and carry out its step, and each decision taken is a
``decision`` event naming the table and the row. So the tables here are the ones
docs/architecture.md teaches (tests/test_docs_architecture.py, tests/test_controller_policy.py)
and the ones the scenarios reach (tests/test_policy_coverage.py).

Pure: lookups and the two readers that turn an answer of the booking system into a table key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from agent.core.actions import ActionStatus
from agent.core.ports import BookingOutcome, BookingOutcomeKind, RequestState


class Step(StrEnum):
    """The allowed next step. One meaning per member."""

    REPROPOSE = "repropose"  # not dispatched: cancel the draft, build a new one from the ledger
    CANCEL_THEN_RECONCILE = "cancel_then_reconcile"  # pending: request_cancel, look up by key
    AMEND_COMMITTED = "amend_committed"  # committed: conditional reschedule (expected_version)
    RECONCILE_FIRST = "reconcile_first"  # unknown: look up by key before any new action
    PROPOSE_NEW = "propose_new"  # the old request is proven not to have happened
    CONFIRM = "confirm"  # the request is proven to have happened: speak from its record
    RETRY_SAME_KEY = "retry_same_key"  # proven absent after a timeout: same key, same payload
    EXPLAIN_AND_ASK = "explain_and_ask"  # 412: fetch the latest, explain, ask; never overwrite
    HANDOFF = "handoff"  # irreversible or still uncertain: a person takes over
    NOTHING = "nothing"  # terminal and irrelevant (already cancelled or failed)
    ASK_CONFIRMATION = "ask_confirmation"  # one yes/no question about this action first
    DISPATCH = "dispatch"  # the caller has confirmed it: send it (the re-check still runs)
    DROP = "drop"  # the caller declined it: the draft dies, nothing is sent


class Consent(StrEnum):
    """Where the caller stands on a proposed action: the key of :data:`BEFORE_DISPATCH`."""

    NOT_GIVEN = "not_given"  # just proposed: the caller has not said yes to it
    GO_AHEAD = "go_ahead"  # the task was confirmed once and the correction itself said go ahead
    YES = "yes"  # the caller said yes to its confirmation question
    NO = "no"  # the caller said no to it


class LookupAnswer(StrEnum):
    """What a lookup by idempotency key showed: the key of the two lookup tables."""

    PENDING = "PENDING"  # the target is still working on it
    SUCCEEDED = "SUCCEEDED"  # it was written: the record came back
    FAILED = "FAILED"  # refused, nothing written
    CANCELLED = "CANCELLED"  # cancelled before it committed, nothing written
    NOT_FOUND = "NOT_FOUND"  # never received, nothing written
    NO_ANSWER = "NO_ANSWER"  # the lookup got no answer (or "written" without a record)


K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Row:
    """One decision: in situation ``key`` of table ``table``, take ``step``."""

    id: str  # stable: "<table>/<key>", e.g. "after_timeout/not_found_retried"
    table: str
    key: Hashable
    step: Step


class Table(Mapping[K, Step]):
    """A decision table: situation -> step, each row with a stable id. Immutable.

    As a mapping it gives the step; :meth:`row` gives the whole row (id included), which is
    what the code that decides looks up, so the trace can name it.
    """

    def __init__(self, name: str, steps: Mapping[K, Step],
                 slug: Callable[[K], str] = lambda key: str(key).lower()):
        self.name = name
        self._rows: dict[K, Row] = {key: Row(f"{name}/{slug(key)}", name, key, Step(step))
                                    for key, step in steps.items()}
        if len({r.id for r in self._rows.values()}) != len(self._rows):
            raise ValueError(f"table {name}: two rows share an id")

    def __getitem__(self, key: K) -> Step:
        return self._rows[key].step

    def __iter__(self) -> Iterator[K]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"Table({self.name!r}, {len(self)} rows)"

    def row(self, key: K) -> Row:
        """The row for ``key``. Raises KeyError for a situation the table does not hold."""
        return self._rows[key]

    @property
    def rows(self) -> tuple[Row, ...]:
        return tuple(self._rows.values())


# A correction meets an action: the condition at correction time -> allowed next step (seed 001,
# "Decision matrix"). Cancelled and failed actions are history: nothing to do.
ON_CORRECTION: Table[ActionStatus] = Table("on_correction", {
    ActionStatus.PROPOSED: Step.REPROPOSE,
    ActionStatus.COMMITTING: Step.CANCEL_THEN_RECONCILE,
    ActionStatus.CANCEL_REQUESTED: Step.RECONCILE_FIRST,
    ActionStatus.UNKNOWN: Step.RECONCILE_FIRST,
    ActionStatus.COMMITTED: Step.AMEND_COMMITTED,
    ActionStatus.CANCELLED: Step.NOTHING,
    ActionStatus.FAILED: Step.NOTHING,
})

# The caller's consent to a proposed action: one confirmation per action, unless the caller
# confirmed this task already and the correction that led to it said "go ahead".
BEFORE_DISPATCH: Table[Consent] = Table("before_dispatch", {
    Consent.NOT_GIVEN: Step.ASK_CONFIRMATION,
    Consent.GO_AHEAD: Step.DISPATCH,
    Consent.YES: Step.DISPATCH,
    Consent.NO: Step.DROP,
})

# What a dispatch's direct answer leads to (the key: dispatch_answer()).
AFTER_DISPATCH: Table[BookingOutcomeKind] = Table("after_dispatch", {
    BookingOutcomeKind.COMMITTED: Step.CONFIRM,
    BookingOutcomeKind.REJECTED_STALE: Step.EXPLAIN_AND_ASK,
    BookingOutcomeKind.UNKNOWN: Step.RECONCILE_FIRST,
    BookingOutcomeKind.CONFLICT: Step.RECONCILE_FIRST,
    BookingOutcomeKind.FAILED: Step.PROPOSE_NEW,
})

# A request looked up by its key after we asked to cancel it (the key: lookup_answer()).
# PENDING, or no answer, after we asked to cancel means it is still uncertain: a person decides.
AFTER_LOOKUP: Table[LookupAnswer] = Table("after_lookup", {
    LookupAnswer.CANCELLED: Step.PROPOSE_NEW,
    LookupAnswer.FAILED: Step.PROPOSE_NEW,
    LookupAnswer.NOT_FOUND: Step.PROPOSE_NEW,
    LookupAnswer.SUCCEEDED: Step.CONFIRM,
    LookupAnswer.PENDING: Step.HANDOFF,
    LookupAnswer.NO_ANSWER: Step.HANDOFF,
})

# A request looked up by its key after its dispatch got no answer (a timeout), keyed by the
# answer and whether this request was already the one retry. Proven absent (not found, failed)
# allows ONE retry with the same key, never a new key; absent again, or no answer, or still
# pending once the wait for it ran out, hands off to a person.
AFTER_TIMEOUT_LOOKUP: Table[tuple[LookupAnswer, bool]] = Table("after_timeout", {
    (answer, retried): step
    for answer, first, again in (
        (LookupAnswer.SUCCEEDED, Step.CONFIRM, Step.CONFIRM),
        (LookupAnswer.NOT_FOUND, Step.RETRY_SAME_KEY, Step.HANDOFF),
        (LookupAnswer.FAILED, Step.RETRY_SAME_KEY, Step.HANDOFF),
        (LookupAnswer.CANCELLED, Step.PROPOSE_NEW, Step.PROPOSE_NEW),
        (LookupAnswer.PENDING, Step.HANDOFF, Step.HANDOFF),
        (LookupAnswer.NO_ANSWER, Step.HANDOFF, Step.HANDOFF),
    )
    for retried, step in ((False, first), (True, again))
}, slug=lambda key: key[0].lower() + ("_retried" if key[1] else ""))

# Every table, in the order docs/architecture.md shows them (each keyed by its own type).
TABLES: tuple[Table[Any], ...] = (ON_CORRECTION, BEFORE_DISPATCH, AFTER_DISPATCH, AFTER_LOOKUP,
                                  AFTER_TIMEOUT_LOOKUP)


# -- the lookups the deciding code makes --------------------------------------------------------
def on_correction(status: ActionStatus) -> Row:
    return ON_CORRECTION.row(ActionStatus(status))


def before_dispatch(consent: Consent) -> Row:
    return BEFORE_DISPATCH.row(Consent(consent))


def after_dispatch(kind: BookingOutcomeKind) -> Row:
    return AFTER_DISPATCH.row(BookingOutcomeKind(kind))


def after_lookup(answer: LookupAnswer) -> Row:
    """The step after looking up, by its key, a request we asked to cancel."""
    return AFTER_LOOKUP.row(LookupAnswer(answer))


def after_timeout_lookup(answer: LookupAnswer, *, retried: bool) -> Row:
    """The step after looking up, by its key, a request whose dispatch got no answer."""
    return AFTER_TIMEOUT_LOOKUP.row((LookupAnswer(answer), bool(retried)))


# -- reading an answer as a table key -----------------------------------------------------------
def dispatch_answer(outcome: BookingOutcome) -> BookingOutcomeKind:
    """The :data:`AFTER_DISPATCH` key of a dispatch's direct answer: what it proves.

    A record the target says it wrote counts as COMMITTED whatever the answer is called (a
    write over a newer version comes back as REJECTED_STALE): the dispatcher's ``verify`` judges
    it and never confirms a record it did not ask for. A COMMITTED answer without a record
    proves nothing: it counts as UNKNOWN and is looked up by key.
    """
    written = outcome.kind is BookingOutcomeKind.COMMITTED \
        or outcome.request_state is RequestState.SUCCEEDED
    if written and outcome.record is not None:
        return BookingOutcomeKind.COMMITTED
    if outcome.kind is BookingOutcomeKind.COMMITTED:
        return BookingOutcomeKind.UNKNOWN
    return BookingOutcomeKind(outcome.kind)


def lookup_answer(outcome: BookingOutcome | None) -> LookupAnswer:
    """The key of the lookup tables: the request's state, or NO_ANSWER when the lookup got no
    answer (``None``, no state) or said SUCCEEDED without the record to speak from."""
    state = outcome.request_state if outcome is not None else None
    if outcome is None or state is None \
            or (state is RequestState.SUCCEEDED and outcome.record is None):
        return LookupAnswer.NO_ANSWER
    return LookupAnswer(state)
