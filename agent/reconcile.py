"""Reconciliation by idempotency key: what became of a request the agent cannot see.

Two entry points, both background tasks of the :class:`~agent.dispatch.Dispatcher`:

* :func:`withdraw` -- a correction met a dispatched, pending action: request cancellation,
  wait for the dispatch's own answer, then look the request up by its key and follow
  :data:`agent.policy.AFTER_LOOKUP` (cancelled -> propose anew; completed anyway -> it is
  history, and the new values become a change of THAT booking, never a second create).
* :func:`resolve_unknown` -- no answer (timeout): look up by key before anything else; retry
  only with the SAME key, and only when the request is proven absent; else a person.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from agent.actions import ActionStatus
from agent.policy import Step, after_lookup
from agent.ports import BookingOutcome, RequestState
from agent.speech import SpeechKind

if TYPE_CHECKING:
    from agent.dispatch import Dispatcher


async def lookup(d: Dispatcher, key: str) -> BookingOutcome | None:
    try:
        return await d.port.lookup(key)
    except Exception:  # noqa: BLE001 - no answer: the outcome stays uncertain
        return None

async def withdraw(d: Dispatcher, action_id: str) -> None:
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
        step = after_lookup(state)
        d.emit("action_reconciled", action, state=str(state) if state else "no_answer")
        if step is Step.PROPOSE_NEW:
            d.set_status(action, ActionStatus.CANCELLED)
            d.emit("action_cancelled", action, reason="withdrawn", dispatched=True)
            await d.desk.realign()
        elif step is Step.CONFIRM and outcome is not None and outcome.record is not None:
            # It completed before the cancellation arrived: it is history now, and the
            # ledger's new values become a change of THAT booking, never a second create.
            record = outcome.record
            d.set_status(action, ActionStatus.COMMITTED,
                      result=(("ref", record.ref), ("version", str(record.version))))
            d.adopt(record, action.op)
            d.emit("action_committed", action, ref=record.ref, version=record.version,
                       superseded=True)
            then = ("So it needs cancelling." if str(d.desk.goal) == "cancel"
                    else "I'll change that booking instead.")
            d.ctx.say(("The earlier request had already gone through.", then))
            await d.desk.realign()
        else:
            d.set_status(action, ActionStatus.UNKNOWN)
            await d.desk_handoff("cancellation_unconfirmed")

async def resolve_unknown(d: Dispatcher, action_id: str, retried: bool) -> None:
    """No answer: look the request up by key before any new action (never a new key)."""
    action = d.actions[action_id]
    if d.ctx.faults.retry_with_new_key:
        # Known-answer control: the duplicate-risk mistake seed 001 case 11 must catch.
        async with d.ctx.lock:
            # ...and it treats "no response" as "not completed" (seed 001: do not do this).
            d.set_status(action, ActionStatus.FAILED)
            d.emit("action_failed", action, detail="assumed not done (retry_with_new_key)")
            fresh = d.desk.new_action(action.op, dict(action.args),
                                         tuple(b.field for b in action.basis))
            d.go(fresh, retried=True)
        return
    outcome = await wait_while_pending(d, action)
    async with d.ctx.lock:
        action = d.actions[action_id]
        state = outcome.request_state if outcome is not None else None
        step = after_lookup(state, after_timeout=True, retried=retried)
        d.emit("action_reconciled", action, state=str(state) if state else "no_answer")
        if step is Step.CONFIRM and outcome is not None and outcome.record is not None:
            d.commit(action, outcome.record)
            await d.desk.realign(quiet=True)  # a correction may have arrived meanwhile
        elif step is Step.RETRY_SAME_KEY:
            d.set_status(action, ActionStatus.FAILED)
            retry = replace(action, id=d.ctx.next_id("a"), status=ActionStatus.PROPOSED,
                            result=())
            d.add(retry, replace(d.stamps[action_id],
                                    request=retry.idempotency_key))
            if d.recheck(retry).allowed:
                d.go(retry, retried=True)
            else:
                d.drop(retry, "stale_on_retry")
                await d.desk.realign()
        elif step is Step.PROPOSE_NEW:
            d.set_status(action, ActionStatus.CANCELLED)
            d.emit("action_cancelled", action, reason="target_cancelled", dispatched=True)
            await d.desk.realign()
        else:
            await d.desk_handoff("outcome_unknown")


async def wait_while_pending(d: Dispatcher, action) -> BookingOutcome | None:
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
