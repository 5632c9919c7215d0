"""The call's safeguards as strategies, chosen when a call is composed.

Four safeguards are objects rather than code paths, each with the correct behaviour as its
default, so that :class:`Safeguards` ``()`` is the agent as it ships:

* ``gate_mode``: the admission gate's mode (:class:`~agent.core.gate.GateMode`). ``ENFORCE``
  withholds stale results; ``SHADOW`` lets everything through and records what enforcing
  would have withheld, and the answer desk then withholds no answer either.
* ``confirmations`` (:class:`Confirmations`): what the caller is told about a booking action,
  and from what. :class:`FromRecord`: "requested" once the request has left, and "booked"
  only from the record the system of record verified.
* ``dispatch_check`` (:class:`DispatchCheck`): what the dispatch worker sends when it takes a
  queued action. :class:`Recheck`: the live action, re-checked against the ledger right before
  the side effect (``may_commit`` and its dependency vector).
* ``unknown_outcome`` (:class:`UnknownOutcome`): what happens to a request that got no
  answer. :class:`LookUpByKey`: look it up by its idempotency key before anything else
  (:func:`agent.service.reconcile.resolve_unknown`).

The composition root (``ui/bootstrap.py``) builds one :class:`Safeguards` per session and
hands it to the controller, which keeps it on the :class:`~agent.service.dialogue.CallContext`. The
known-answer controls of the test suite are other implementations of these Protocols, in
:mod:`agent.service.controls`, which no module of the core imports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, Unpack

from agent.core.actions import Action, ActionChanges, ActionStatus, CommitDecision
from agent.core.caller import CallerProfile
from agent.core.gate import GateMode
from agent.core.ops import Op
from agent.core.ports import BookingRecord
from agent.service.render import booked, cancelled, requested, rescheduled
from agent.service.workflow import Desk

# The confirmation of a verified record, by op: built from the BookingRecord only.
VERIFIED_TEXT = {Op.CREATE_BOOKING: booked, Op.RESCHEDULE_BOOKING: rescheduled,
                 Op.CANCEL_BOOKING: cancelled}


@dataclass(frozen=True, slots=True)
class Claim:
    """What the caller is told is done: the sentences, and the booking values they state
    (``asset``, ``date``, ``window``, ``time``, ``status``; they go on ``confirmation_spoken``)."""

    sentences: tuple[str, ...]
    values: Mapping[str, str | None]


# -- confirmations ---------------------------------------------------------------------------
class Confirmations(Protocol):
    """What the dispatcher says about a booking action at each moment of its life."""

    def queued(self, action: Action, caller: CallerProfile) -> Claim | None:
        """A confirmation to speak as the action is queued, before any request left or any
        record exists (None: say nothing yet)."""
        ...

    def dispatched(self, action: Action) -> tuple[str, ...]:
        """What to say once the request passed the re-check and left (empty: nothing)."""
        ...

    def verified(self, action: Action, record: BookingRecord, caller: CallerProfile) -> Claim:
        """The confirmation once the system of record verified ``record`` for ``action``."""
        ...


class FromRecord:
    """The agent's confirmations: nothing is claimed before the system of record answers, and
    the confirmation says what the verified record holds."""

    __slots__ = ()

    def queued(self, action: Action, caller: CallerProfile) -> Claim | None:
        return None

    def dispatched(self, action: Action) -> tuple[str, ...]:
        # Only now is "I've requested" true: the request has passed the re-check.
        return requested(action.op)

    def verified(self, action: Action, record: BookingRecord, caller: CallerProfile) -> Claim:
        return Claim(VERIFIED_TEXT[action.op](record, caller),
                     {"asset": record.asset, "date": record.date, "window": record.window,
                      "time": record.time, "status": record.status})


# -- the check right before the side effect --------------------------------------------------
RecheckFn = Callable[[Action | None], CommitDecision]


class DispatchCheck(Protocol):
    """What the dispatch worker sends when it takes a queued action, and whether it may."""

    def sendable(self, queued: Action, live: Action | None,
                 recheck: RecheckFn) -> tuple[Action | None, CommitDecision]:
        """The action to send and the verdict on it. ``queued`` is the action as it was put
        on the queue, ``live`` the dispatcher's record of it now (None: unknown), ``recheck``
        the dispatcher's ``may_commit`` plus dependency-vector check against the ledger now.
        Only ``CommitDecision.ALLOWED`` sends; anything else refuses the live action."""
        ...


class Recheck:
    """The agent's check: the live action, re-checked against the ledger right before the
    side effect. A correction that landed while it was queued refuses it."""

    __slots__ = ()

    def sendable(self, queued: Action, live: Action | None,
                 recheck: RecheckFn) -> tuple[Action | None, CommitDecision]:
        return live, recheck(live)


# -- a request without an answer -------------------------------------------------------------
class Unanswered(Protocol):
    """The dispatcher as an :class:`UnknownOutcome` strategy sees it
    (:class:`agent.service.dispatch.Dispatcher` implements it)."""

    desk: Desk
    actions: dict[str, Action]

    @property
    def lock(self) -> asyncio.Lock:
        """The call's lock: every change of an action happens under it."""
        ...

    def set_status(self, action: Action, status: ActionStatus,
                   **changes: Unpack[ActionChanges]) -> Action: ...
    def emit(self, name: str, action: Action, **data: object) -> None: ...
    def go(self, action: Action, *, retried: bool = False) -> None: ...

    async def reconcile_by_key(self, action_id: str, retried: bool) -> None:
        """Look the request up by its key and follow the after-timeout table."""
        ...


class UnknownOutcome(Protocol):
    """What happens to a dispatched request that got no answer (a timeout, a lost reply)."""

    async def settle(self, dispatcher: Unanswered, action_id: str, retried: bool) -> None:
        """Runs as a background task of the dispatcher, outside the call's lock."""
        ...


class LookUpByKey:
    """The agent's way: no answer is not "not done". Look the request up by its key before
    any new action, and retry only with the same key (:mod:`agent.service.reconcile`)."""

    __slots__ = ()

    async def settle(self, dispatcher: Unanswered, action_id: str, retried: bool) -> None:
        await dispatcher.reconcile_by_key(action_id, retried)


# -- the set ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Safeguards:
    """One session's safeguards. The defaults are the agent as it ships."""

    gate_mode: GateMode = GateMode.ENFORCE
    confirmations: Confirmations = FromRecord()
    dispatch_check: DispatchCheck = Recheck()
    unknown_outcome: UnknownOutcome = LookUpByKey()
