"""Dispatch and reconciliation: the only code that calls the booking system of record.

The dispatch worker re-checks ``may_commit`` and the action's dependency vector against the
ledger immediately before the side effect; the target enforces the version again. What a
correction does to an action and what a dispatch's answer leads to are rows of the tables in
:mod:`agent.service.policy`, looked up here and named by a ``decision`` event
(:meth:`Dispatcher.decide`): a verified record is confirmed from the record, an unknown outcome is
looked up by its key before anything else, a stale precondition (412) is explained and asked about,
and whatever stays uncertain goes to a person with an explicit :class:`HandoffState`.
"""

from __future__ import annotations

import asyncio
from typing import Any, Unpack, assert_never

from agent.core.actions import Action, ActionChanges, ActionStatus, CommitDecision, may_commit
from agent.core.dependencies import Dependent, DependentKind
from agent.core.gate import Disposition, Stamp, classify
from agent.core.ledger import FieldOp
from agent.core.names import BOOKING_REF
from agent.core.ops import Op, changes_of, visit_of
from agent.core.ports import (
    BookingOutcome,
    BookingOutcomeKind,
    BookingPort,
    BookingRecord,
)
from agent.core.speech import SpeechKind
from agent.service.dialogue import CallContext, Told
from agent.service.handoff import handoff
from agent.service.policy import (
    Consent,
    Row,
    Step,
    after_dispatch,
    before_dispatch,
    dispatch_answer,
    on_correction,
)
from agent.service.reconcile import Dispatching, resolve_unknown, withdraw
from agent.service.render import staff_changed
from agent.service.safeguards import Unanswered
from agent.service.vocabulary import CancelReason, HandoffReason
from agent.service.workflow import Desk, GoalEvent

IN_FLIGHT = frozenset({ActionStatus.COMMITTING, ActionStatus.CANCEL_REQUESTED,
                       ActionStatus.UNKNOWN})


class Dispatcher(Dispatching, Unanswered):
    def __init__(self, ctx: CallContext, port: BookingPort, desk: Desk):
        self.ctx = ctx
        self.port = port
        self.desk = desk
        self.actions: dict[str, Action] = {}
        self.stamps: dict[str, Stamp] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.records: dict[str, BookingRecord] = {}  # verified records, by ref
        self.notified: set[tuple[str, int]] = set()  # (ref, version) whose notice went out

    def add(self, action: Action, stamp: Stamp) -> None:
        self.actions[action.id] = action
        self.stamps[action.id] = stamp

    def set_status(self, action: Action, status: ActionStatus,
                   **changes: Unpack[ActionChanges]) -> Action:
        moved = action.to(status, **changes)
        self.actions[action.id] = moved
        if status in (ActionStatus.CANCELLED, ActionStatus.FAILED, ActionStatus.COMMITTED):
            self.ctx.deps = self.ctx.deps.without(Dependent(DependentKind.ACTION, action.id))
        return moved

    def emit(self, name: str, action: Action, **data: Any) -> None:
        self.ctx.emit(name, op=action.op, request=action.idempotency_key, action=action.id,
                      **data)

    def decide(self, row: Row, action: Action) -> Step:
        """Take the decision ``row`` (a row of an :mod:`agent.service.policy` table) for ``action``.

        Side effect: the ``decision`` event naming the table and the row. Returns its step.
        """
        self.emit("decision", action, table=row.table, row=row.id, step=str(row.step))
        return row.step

    # -- invalidation --------------------------------------------------------------------------
    def drop(self, action: Action, reason: CancelReason, detail: str = "") -> None:
        """A draft that was never dispatched dies here; no worker may commit it later."""
        self.set_status(action, ActionStatus.CANCELLED)
        self.emit("action_cancelled", action, reason=reason, detail=detail, dispatched=False)
        self.desk.workflow.draft_gone(action.id)

    def supersede(self, action_id: str,
                  reason: CancelReason = CancelReason.SUPERSEDED) -> None:
        """A correction met this action: take the ON_CORRECTION row for its status."""
        action = self.actions[action_id]
        step = self.decide(on_correction(action.status), action)
        if step is Step.REPROPOSE:
            self.drop(action, reason)
        elif step is Step.CANCEL_THEN_RECONCILE:
            self.set_status(action, ActionStatus.CANCEL_REQUESTED)
            self.emit("action_cancel_requested", action, reason=reason)
            self.ctx.spawn(self._withdraw(action_id), f"withdraw:{action_id}")
        # RECONCILE_FIRST: the reconciliation already running realigns once it knows.
        # AMEND_COMMITTED: BookingDesk.realign proposes the conditional change of the record.
        # NOTHING: a cancelled or failed action is history.

    # -- dispatch ------------------------------------------------------------------------------
    @property
    def lock(self) -> asyncio.Lock:
        return self.ctx.lock

    def go(self, action: Action, *, retried: bool = False) -> None:
        """Queue ``action`` for the dispatch worker (it speaks once the request has left).

        Whatever the session's confirmations claim at queueing is spoken now; the agent's own
        (:class:`agent.service.safeguards.FromRecord`) claim nothing before a record exists."""
        claim = self.ctx.safeguards.confirmations.queued(action, self.ctx.caller)
        if claim is not None:
            plan = self.ctx.say(claim.sentences, SpeechKind.CONFIRMATION)
            values: dict[str, Any] = {
                k: self.ctx.trace.private(v) for k, v in claim.values.items()
                if k in ("asset", "date", "window", "time")}
            self.ctx.emit("confirmation_spoken", request=action.idempotency_key, op=action.op,
                          ref=None, version=None, spoken_generation=plan.generation, **values)
        self.tasks[action.id] = self.ctx.spawn(self._dispatch(action, retried),
                                               f"dispatch:{action.id}")

    def recheck(self, action: Action | None) -> CommitDecision:
        """``may_commit`` plus the full dependency vector, against the ledger now."""
        if action is None or action.status is not ActionStatus.PROPOSED:
            return CommitDecision.NOT_COMMITTING
        snap = self.ctx.ledger.current
        decision = may_commit(snap, action.to(ActionStatus.COMMITTING))
        if decision.allowed and classify(snap, self.stamps[action.id]) is not Disposition.CURRENT:
            return CommitDecision.STALE
        return decision

    async def _dispatch(self, message: Action, retried: bool) -> None:
        async with self.ctx.lock:
            live = self.actions.get(message.id)
            # The session's check (agent.service.safeguards.Recheck: the live action, re-checked).
            sending, decision = self.ctx.safeguards.dispatch_check.sendable(
                message, live, self.recheck)
            if sending is None or not decision.allowed:
                if live is not None and live.status is ActionStatus.PROPOSED:
                    self.drop(live, CancelReason.RECHECK_REFUSED, str(decision))
                self.ctx.emit("dispatch_refused", request=message.idempotency_key,
                              op=message.op, reason=str(decision))
                return
            action = self.set_status(sending, ActionStatus.COMMITTING)
            self.emit("action_dispatched", action, based_on_revision=action.based_on_revision,
                       vector=dict(action.dependency_vector), retry=retried)
            pending = self.ctx.safeguards.confirmations.dispatched(action)
            if pending:
                self.ctx.say(pending, SpeechKind.PENDING)
        outcome = await self._call(action)
        async with self.ctx.lock:
            await self._on_outcome(action.id, outcome, retried)

    async def _call(self, action: Action) -> BookingOutcome:
        args, op = dict(action.args), action.op
        key, revision = action.idempotency_key, action.based_on_revision
        try:
            if op is Op.CREATE_BOOKING:
                return await self.port.create(key, revision, visit_of(args))
            ref, expected = args["ref"], int(args["expected_version"])
            if op is Op.RESCHEDULE_BOOKING:
                return await self.port.reschedule(key, revision, ref, expected,
                                                  changes_of(args))
            if op is Op.CANCEL_BOOKING:
                return await self.port.cancel(key, revision, ref, expected)
            assert_never(op)  # an Op without its call here is a type error (make lint)
        except Exception as exc:  # noqa: BLE001 - an unobserved result is UNKNOWN, never "failed"
            return BookingOutcome(BookingOutcomeKind.UNKNOWN, detail=f"{type(exc).__name__}")

    async def _on_outcome(self, action_id: str, outcome: BookingOutcome, retried: bool) -> None:
        action = self.actions[action_id]
        if action.status is not ActionStatus.COMMITTING:
            return  # a correction asked to cancel it meanwhile: the withdrawal reconciles it
        # A written record counts as COMMITTED even if written over a newer version (verify()
        # judges it); a commit without a record counts as UNKNOWN (policy.dispatch_answer).
        step = self.decide(after_dispatch(dispatch_answer(outcome)), action)
        if step is Step.CONFIRM:  # dispatch_answer: a COMMITTED key always has its record
            assert outcome.record is not None
            if self.commit(action, outcome.record):
                await self.desk.realign()  # the corrected asset's booking, read back
        elif step is Step.EXPLAIN_AND_ASK:
            await self._explain_conflict(action)
        elif step is Step.PROPOSE_NEW:
            self.set_status(action, ActionStatus.FAILED)
            self.emit("action_failed", action, detail=outcome.detail)
            await self.desk.refused(action, outcome)
        else:  # Step.RECONCILE_FIRST
            self.set_status(action, ActionStatus.UNKNOWN)
            self.emit("action_unknown", action, detail=outcome.detail)
            self.ctx.say(("The booking system hasn't answered.",
                          "I'm checking whether your request went through."),
                         SpeechKind.WAITING)
            # The session's way with an unanswered request (agent.service.safeguards.LookUpByKey).
            self.ctx.spawn(self.ctx.safeguards.unknown_outcome.settle(self, action_id, retried),
                           f"lookup:{action_id}")

    # -- verified results ------------------------------------------------------------------------
    def verify(self, action: Action, record: BookingRecord) -> bool:
        """The record is the one this action asked for, on the version it expected."""
        args = dict(action.args)
        if action.op is Op.CANCEL_BOOKING:
            return record.status == "cancelled" and record.ref == args["ref"] and \
                record.version == int(args["expected_version"]) + 1
        wanted = {k: args[k] for k in ("asset", "date", "window", "time") if args.get(k)}
        if any(str(getattr(record, k) or "") != v for k, v in wanted.items()):
            return False
        if action.op is Op.RESCHEDULE_BOOKING:
            return record.version == int(args["expected_version"]) + 1
        return record.account == self.ctx.caller.account

    def commit(self, action: Action, record: BookingRecord) -> bool:
        """Record a verified commit and confirm it to the caller from the record only.
        Returns whether the task now turns to a new booking (a booking this call made for an
        asset the caller corrected was cancelled: ``BookingDesk.rebooked``); the caller then
        realigns the desk."""
        action = self.set_status(action, ActionStatus.COMMITTED,
                           result=(("ref", record.ref), ("version", str(record.version))))
        self.emit("action_committed", action, ref=record.ref, version=record.version)
        if not self.verify(action, record):
            # Seed 001 case 15: the target reported success for something else (a stale
            # version, other values). Never report it as done.
            self.ctx.emit("commit_unverified", request=action.idempotency_key, op=action.op,
                          ref=record.ref, version=record.version)
            self.records[record.ref] = record
            self.ctx.spawn(self._locked_handoff(HandoffReason.UNVERIFIED_COMMIT),
                           f"handoff:{action.id}")
            return False
        self.adopt(record, action.op)
        rebook = False
        if action.op is Op.CANCEL_BOOKING:
            self.desk.workflow.on(GoalEvent.SETTLED)
            rebook = self.desk.rebooked(record.ref)
        claim = self.ctx.safeguards.confirmations.verified(action, record, self.ctx.caller)
        self.ctx.confirm(Told(tuple(claim.sentences), (record.ref, record.version),
                              action.idempotency_key, action.op,
                              tuple((k, self.ctx.trace.private(v))
                                    for k, v in claim.values.items())))
        return rebook

    def adopt(self, record: BookingRecord, op: str) -> None:
        """A verified record becomes the booking this task works on (ledger: ``booking_ref``).

        Every committed create, reschedule or cancel put one notification in the outbox.
        """
        self.records[record.ref] = record
        self.notified.add((record.ref, record.version))
        self.desk.workflow.adopt(record.ref)
        self.ctx.accept([FieldOp.set(BOOKING_REF, record.ref, f"tool:{op}")], f"tool:{op}")

    async def _explain_conflict(self, action: Action) -> None:
        """412: someone changed the record. Fetch it, explain, ask; never overwrite blindly."""
        self.set_status(action, ActionStatus.FAILED)
        ref = action.arg("ref") or ""
        latest = await self.port.get(ref)
        self.emit("action_reconciled", action, state="REJECTED_STALE", ref=ref,
                   version=latest.version if latest else None)
        if latest is None:
            await self.desk_handoff(HandoffReason.RECORD_VANISHED)
            return
        self.records[ref] = latest
        wanted = dict(action.args)
        if action.op is Op.CANCEL_BOOKING:
            redo = self.desk.new_action(action.op, self.desk.cancel_args(latest), (BOOKING_REF,))
        else:
            wanted["expected_version"] = str(latest.version)
            reads = tuple(b.field for b in action.basis)
            redo = self.desk.new_action(action.op, wanted, reads)
        # The record changed under the caller: whatever consent stood was for other values.
        if self.decide(before_dispatch(Consent.NOT_GIVEN), redo) is Step.DISPATCH:
            self.go(redo)
            return
        self.desk.workflow.await_yes(redo.id)
        self.ctx.say(staff_changed(latest, wanted), SpeechKind.QUESTION)
        self.ctx.emit("confirmation_requested", fields=[b.field for b in redo.basis],
                      op=redo.op, request=redo.idempotency_key, reason="staff_changed")

    async def _locked_handoff(self, reason: HandoffReason) -> None:
        async with self.ctx.lock:
            await self.desk_handoff(reason)

    async def desk_handoff(self, reason: HandoffReason, ambiguity: tuple[str, ...] = ()) -> None:
        await handoff(self.ctx, self.port, self.actions.values(), reason, ambiguity)

    # Reconciliation by key lives in agent.service.reconcile (one concept per module).
    async def _withdraw(self, action_id: str) -> None:
        await withdraw(self, action_id)

    async def reconcile_by_key(self, action_id: str, retried: bool) -> None:
        await resolve_unknown(self, action_id, retried)
