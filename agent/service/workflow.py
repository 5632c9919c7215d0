"""The booking workflow: what the caller is after in this call and where the task stands.

:class:`BookingWorkflow` is the one owner of the task's state: its :class:`Goal`, the booking
it changes or cancels (``target``), the draft waiting for the caller's yes (``awaiting``) and
the consent the caller gave. Nothing else assigns them: every change is one of its
transitions, and how a goal moves is data, :data:`GOAL_ON` (an event and the goal now give
the next goal), like the action lifecycle's ``TRANSITIONS`` in ``agent/core/actions.py``.
``tests/test_architecture.py`` fails on an assignment to these fields anywhere else.

The actions themselves (draft, dispatched, committed...) are the dispatcher's, each with its
own lifecycle; :attr:`BookingWorkflow.phase` names where the task stands given both.

:class:`Desk` is the booking desk as the dispatcher and the reconciler see it:
:mod:`agent.service.booking_desk` implements it, and :mod:`agent.service.dispatch` and
:mod:`agent.service.reconcile` are written against it and never import the desk, so the
chain desk -> dispatch -> reconcile has no way back (``tests/test_architecture.py`` fails on
an import cycle).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Protocol

from agent.core.actions import Action
from agent.core.ops import Op
from agent.core.ports import BookingOutcome, BookingRecord


class Goal(StrEnum):
    """What the caller wants done with a booking in this call."""

    NONE = "none"
    BOOK = "book"
    RESCHEDULE = "reschedule"
    CANCEL = "cancel"


class Phase(StrEnum):
    """Where the booking task stands (derived: the goal, the awaited draft, the actions)."""

    IDLE = "idle"  # no booking task
    GATHERING = "gathering"  # a goal: the desk asks for what is missing, then reads it back
    AWAITING_YES = "awaiting_yes"  # a draft was read back; the caller's yes dispatches it
    IN_FLIGHT = "in_flight"  # a request is with the system of record


class GoalEvent(StrEnum):
    """What happened to the task, as far as its goal is concerned."""

    WANT_BOOK = "want_book"  # the caller asks for a visit
    WANT_RESCHEDULE = "want_reschedule"  # ... to move one
    WANT_CANCEL = "want_cancel"  # ... to cancel one (cancel_intent: drafts die first)
    FIND_CANCEL = "find_cancel"  # ... to cancel a booking not yet known (no target, no draft)
    OTHER_ASSET = "other_asset"  # the ledger's asset is not the target's: a new visit
    NOTHING_TO_MOVE = "nothing_to_move"  # a move asked of an account with no booking: a new visit
    SETTLED = "settled"  # nothing is left to do: cancelled, withdrawn, nothing to cancel
    NEW_TASK = "new_task"  # a new request starts afresh


_ANY = None  # a row for any goal now
_BOOK_OR_CHANGE = "book_or_change"  # BOOK without a target, RESCHEDULE with one

# GOAL_ON[event][goal now] -> the goal after it; a goal not listed keeps its goal.
GOAL_ON: Mapping[GoalEvent, Mapping[Goal | None, Goal | str]] = MappingProxyType({
    GoalEvent.WANT_BOOK: {Goal.NONE: _BOOK_OR_CHANGE, Goal.CANCEL: _BOOK_OR_CHANGE},
    GoalEvent.WANT_RESCHEDULE: {_ANY: Goal.RESCHEDULE},
    GoalEvent.WANT_CANCEL: {_ANY: Goal.CANCEL},
    GoalEvent.FIND_CANCEL: {_ANY: Goal.CANCEL},
    GoalEvent.OTHER_ASSET: {_ANY: Goal.BOOK},
    GoalEvent.NOTHING_TO_MOVE: {Goal.RESCHEDULE: Goal.BOOK},
    GoalEvent.SETTLED: {_ANY: Goal.NONE},
    GoalEvent.NEW_TASK: {_ANY: Goal.NONE},
})


def next_goal(event: GoalEvent, goal: Goal, has_target: bool) -> Goal:
    """The :data:`GOAL_ON` row for ``event`` from ``goal``."""
    rows = GOAL_ON[event]
    to = rows.get(goal, rows.get(_ANY, goal))
    if to == _BOOK_OR_CHANGE:
        return Goal.RESCHEDULE if has_target else Goal.BOOK
    return Goal(to)


class BookingWorkflow:
    """The booking task's state; every change is a named transition."""

    __slots__ = ("_goal", "_target", "_awaiting", "_confirmed_once", "_consent_revision",
                 "_withdrawn_for_cancel", "_refusals")

    def __init__(self) -> None:
        self._goal = Goal.NONE
        self._target: str | None = None
        self._awaiting: str | None = None
        self._confirmed_once = False
        self._consent_revision: int | None = None
        self._withdrawn_for_cancel = False
        self._refusals = 0  # the system of record's refusals in a row (reset by a record)

    # -- what it holds -----------------------------------------------------------------------
    @property
    def goal(self) -> Goal:
        return self._goal

    @property
    def target(self) -> str | None:
        """The booking this task changes or cancels (its ref)."""
        return self._target

    @property
    def awaiting(self) -> str | None:
        """The draft (action id) waiting for the caller's yes."""
        return self._awaiting

    @property
    def withdrawn_for_cancel(self) -> bool:
        """A cancel met a create still in flight, and withdrew it."""
        return self._withdrawn_for_cancel

    def consent_at(self, revision: int) -> bool:
        """The caller already said yes in this task, and the correction that made ``revision``
        itself said "go ahead"."""
        return self._confirmed_once and self._consent_revision == revision

    def phase(self, in_flight: bool) -> Phase:
        if in_flight:
            return Phase.IN_FLIGHT
        if self._awaiting is not None:
            return Phase.AWAITING_YES
        return Phase.IDLE if self._goal is Goal.NONE else Phase.GATHERING

    # -- transitions -------------------------------------------------------------------------
    def on(self, event: GoalEvent) -> Goal:
        """The goal moves by its :data:`GOAL_ON` row; a new task also forgets the target, the
        awaited draft and the consent; another asset, or a cancel still to find, forgets the
        target."""
        self._goal = next_goal(event, self._goal, self._target is not None)
        if event is GoalEvent.NEW_TASK:
            self._target = self._awaiting = self._consent_revision = None
            self._confirmed_once = False
            self._refusals = 0
        elif event in (GoalEvent.OTHER_ASSET, GoalEvent.FIND_CANCEL):
            self._target = None
        return self._goal

    def adopt(self, ref: str) -> None:
        """A verified booking becomes the one this task changes or cancels."""
        self._target = ref
        self._refusals = 0

    def refused(self) -> int:
        """The system of record refused a request and wrote nothing: the caller's go-ahead
        was spent on it (a retry is asked again). Returns the refusals in a row."""
        self._consent_revision = None
        self._refusals += 1
        return self._refusals

    def await_yes(self, action_id: str) -> None:
        """``action_id`` was read back: the caller's next yes is for it."""
        self._awaiting = action_id

    def answered(self) -> str | None:
        """The caller answered the read-back: returns the draft it was about, now cleared."""
        awaiting, self._awaiting = self._awaiting, None
        return awaiting

    def draft_gone(self, action_id: str) -> None:
        """The draft ``action_id`` died: nobody awaits a yes for it any more."""
        if self._awaiting == action_id:
            self._awaiting = None

    def confirmed(self) -> None:
        """The caller said yes in this task."""
        self._confirmed_once = True

    def go_ahead_at(self, revision: int) -> None:
        """The correction that made ``revision`` said "go ahead" as well."""
        self._consent_revision = revision

    def withdrew_create(self, withdrew: bool) -> None:
        """A cancel met a request in flight: whether that request was a create."""
        self._withdrawn_for_cancel = withdrew


class Desk(Protocol):
    """The booking desk as the dispatcher and the reconciler see it."""

    workflow: BookingWorkflow

    def new_action(self, op: Op, args: dict[str, str], reads: tuple[str, ...]) -> Action:
        """Propose an action from the ledger now."""
        ...

    def cancel_args(self, record: BookingRecord) -> dict[str, str]:
        """The arguments of a cancel of ``record`` as it is now."""
        ...

    async def realign(self, *, quiet: bool = False) -> None:
        """Propose whatever makes the booking match the ledger now, or ask what is missing."""
        ...

    async def refused(self, action: Action, outcome: BookingOutcome) -> None:
        """The system of record refused ``action`` and wrote nothing: tell the caller and
        offer what can be done next."""
        ...

    def rebooked(self, ref: str) -> bool:
        """The cancel of ``ref`` offered because the caller corrected its asset was answered:
        the task turns to a new booking. Returns whether it was that cancel."""
        ...
