"""Reconciliation by idempotency key: what became of a request the agent cannot see.

Two entry points, both background tasks of the :class:`~agent.service.dispatch.Dispatcher`:

* :func:`withdraw` -- a correction met a dispatched, pending action: request cancellation,
  wait for the dispatch's own answer, then look the request up by its key and follow
  :data:`agent.service.policy.AFTER_LOOKUP` (cancelled -> propose anew; completed anyway -> it is
  history, and the new values become a change of THAT booking, never a second create).
* :func:`resolve_unknown` -- no answer (timeout): look up by key before anything else and
  follow :data:`agent.service.policy.AFTER_TIMEOUT_LOOKUP`: retry only with the SAME key, and only
  once, when the request is proven absent; else a person. The dispatcher runs it through the
  session's unknown-outcome strategy (:class:`agent.service.safeguards.LookUpByKey`).

Each lookup's row is taken through :meth:`~agent.service.dispatch.Dispatcher.decide` (a ``decision``
event) right after the ``action_reconciled`` event that reports what the lookup showed.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Protocol, Unpack

from agent.core.actions import Action, ActionChanges, ActionStatus, CommitDecision
from agent.core.gate import Stamp
from agent.core.ports import BookingOutcome, BookingPort, BookingRecord, RequestState
from agent.core.speech import SpeechKind
from agent.service.dialogue import CallContext
from agent.service.policy import Row, Step, after_lookup, after_timeout_lookup, lookup_answer
from agent.service.vocabulary import CancelReason, HandoffReason
from agent.service.workflow import Desk, Goal


class Dispatching(Protocol):
    """What reconciliation uses of :class:`agent.service.dispatch.Dispatcher`, which implements it.
    The dispatcher imports this module, so this one names it by its shape, not by import."""

    ctx: CallContext
    port: BookingPort
    desk: Desk
    actions: dict[str, Action]
    stamps: dict[str, Stamp]
    tasks: dict[str, asyncio.Task[None]]

    def add(self, action: Action, stamp: Stamp) -> None: ...
    def set_status(self, action: Action, status: ActionStatus,
                   **changes: Unpack[ActionChanges]) -> Action: ...
    def emit(self, name: str, action: Action, **data: object) -> None: ...
    def decide(self, row: Row, action: Action) -> Step: ...
    def drop(self, action: Action, reason: CancelReason, detail: str = "") -> None: ...
    def go(self, action: Action, *, retried: bool = False) -> None: ...
    def recheck(self, action: Action | None) -> CommitDecision: ...
    def commit(self, action: Action, record: BookingRecord) -> bool: ...
    def adopt(self, record: BookingRecord, op: str) -> None: ...
    async def desk_handoff(self, reason: HandoffReason,
                           ambiguity: tuple[str, ...] = ()) -> None: ...


async def lookup(d: Dispatching, key: str) -> BookingOutcome | None:
    try:
        return await d.port.lookup(key)
    except Exception:  # noqa: BLE001 - no answer: the outcome stays uncertain
        return None

async def withdraw(d: Dispatching, action_id: str) -> None:
    """Dispatched and pending: request cancellation, await the answer, look up by key."""
    key = d.actions[action_id].idempotency_key
    try:
        await d.port.request_cancel(key)
    except Exception:  # noqa: BLE001 - the lookup below decides what actually happened
        pass
    task = d.tasks.get(action_id)
    if task is not None and not task.done():
        await asyncio.wait([task])
    outcome = await lookup(d, key)
    async with d.ctx.lock:
        action = d.actions[action_id]
        state = outcome.request_state if outcome is not None else None
        d.emit("action_reconciled", action, state=str(state) if state else "no_answer")
        step = d.decide(after_lookup(lookup_answer(outcome)), action)
        if step is Step.PROPOSE_NEW:
            d.set_status(action, ActionStatus.CANCELLED)
            d.emit("action_cancelled", action, reason=CancelReason.WITHDRAWN, detail="",
                   dispatched=True)
            # Keeps the promise of "I'll tell you as soon as it is" (replies.acknowledge).
            d.ctx.say(("The earlier request was stopped before it went through.",))
            await d.desk.realign()
        elif step is Step.CONFIRM and outcome is not None:  # SUCCEEDED: the record came back
            # It completed before the cancellation arrived: it is history now, and the
            # ledger's new values become a change of THAT booking, never a second create.
            record = outcome.record
            assert record is not None  # lookup_answer: SUCCEEDED only with its record
            d.set_status(action, ActionStatus.COMMITTED,
                      result=(("ref", record.ref), ("version", str(record.version))))
            d.adopt(record, action.op)
            d.emit("action_committed", action, ref=record.ref, version=record.version,
                       superseded=True)
            then = ("So it needs cancelling." if d.desk.workflow.goal is Goal.CANCEL
                    else "I'll change that booking instead.")
            d.ctx.say(("The earlier request had already gone through.", then))
            await d.desk.realign()
        else:  # Step.HANDOFF
            d.set_status(action, ActionStatus.UNKNOWN)
            await d.desk_handoff(HandoffReason.CANCELLATION_UNCONFIRMED)

async def resolve_unknown(d: Dispatching, action_id: str, retried: bool) -> None:
    """No answer: look the request up by key before any new action (never a new key)."""
    action = d.actions[action_id]
    outcome = await wait_while_pending(d, action)
    async with d.ctx.lock:
        action = d.actions[action_id]
        state = outcome.request_state if outcome is not None else None
        d.emit("action_reconciled", action, state=str(state) if state else "no_answer")
        step = d.decide(after_timeout_lookup(lookup_answer(outcome), retried=retried), action)
        if step is Step.CONFIRM and outcome is not None:  # SUCCEEDED: the record came back
            assert outcome.record is not None  # lookup_answer: SUCCEEDED only with its record
            rebook = d.commit(action, outcome.record)
            # a correction may have arrived meanwhile (and a cancel of a booking whose asset
            # was corrected turns to the corrected asset's booking, read back)
            await d.desk.realign(quiet=not rebook)
        elif step is Step.RETRY_SAME_KEY:
            d.set_status(action, ActionStatus.FAILED)
            retry = replace(action, id=d.ctx.next_id("a"), status=ActionStatus.PROPOSED,
                            result=())
            d.add(retry, replace(d.stamps[action_id],
                                    request=retry.idempotency_key))
            if d.recheck(retry).allowed:
                d.go(retry, retried=True)
            else:
                d.drop(retry, CancelReason.STALE_ON_RETRY)
                await d.desk.realign()
        elif step is Step.PROPOSE_NEW:
            d.set_status(action, ActionStatus.CANCELLED)
            d.emit("action_cancelled", action, reason=CancelReason.TARGET_CANCELLED, detail="",
                   dispatched=True)
            await d.desk.realign()
        else:  # Step.HANDOFF
            await d.desk_handoff(HandoffReason.OUTCOME_UNKNOWN)


async def wait_while_pending(d: Dispatching, action: Action) -> BookingOutcome | None:
    """Look the request up by key until the target settles it or the budget runs out.

    The target still working on it (PENDING) is not an answer: never a retry, never a new key.
    Side effect: one truthful waiting sentence the first time it is still pending.
    """
    options = d.ctx.options
    outcome = await lookup(d, action.idempotency_key)
    delay, waited, told = options.reconcile_backoff_s, 0.0, False
    while outcome is not None and outcome.request_state is RequestState.PENDING \
            and waited < options.reconcile_budget_s and not d.ctx.closed:
        if not told:
            told = True
            async with d.ctx.lock:
                d.emit("action_reconciled", action, state="PENDING", waiting=True)
                d.ctx.say(("The booking system is still working on it.",
                           "I'll wait for its answer."), SpeechKind.WAITING)
        await asyncio.sleep(delay)  # a bounded backoff between lookups, not a race
        waited += delay
        delay = min(delay * 2, 2.0)
        outcome = await lookup(d, action.idempotency_key)
    return outcome
