"""The booking desk: turn the ledger's booking fields into exactly the right side effects.

It proposes one action at a time from the ledger, asks for one confirmation per action, and
realigns the system of record with the ledger after every correction, following seed 001's
decision matrix (:mod:`agent.service.policy`): what a correction does to each action it meets is a
row of ``ON_CORRECTION``, whether an action needs the caller's yes (and what the answer does) a row
of ``BEFORE_DISPATCH``. Dispatch, outcomes and reconciliation by key live in
:mod:`agent.service.dispatch`, the words of the desk's questions in
:mod:`agent.service.booking_questions`. Every method here runs under the call's lock.
"""

from __future__ import annotations

from agent.core.actions import TERMINAL, Action, ActionStatus, propose
from agent.core.dependencies import Dependent, DependentKind, Invalidation
from agent.core.gate import Disposition, Stamp, classify
from agent.core.names import ASSET, BOOKING_REF
from agent.core.ops import Op, spec
from agent.core.ports import BookingOutcome, BookingPort, BookingRecord
from agent.core.speech import SpeechKind
from agent.service.booking_questions import (
    ask_field,
    ask_other_time,
    ask_where_to,
    ask_which_booking,
    check_together,
    confirm_fields,
    confirmation,
    confirmation_question,
)
from agent.service.dialogue import CallContext
from agent.service.dispatch import IN_FLIGHT, Dispatcher
from agent.service.policy import Consent, Step, before_dispatch
from agent.service.render import notice_already_sent
from agent.service.slots import (
    BOOKING_READS,
    booking_args,
    change_args,
    held_together,
    missing_slot,
    present_reads,
)
from agent.service.vocabulary import CancelReason, HandoffReason
from agent.service.workflow import BookingWorkflow, Desk, Goal, GoalEvent

# The system of record refused this many requests in a row (nothing written each time): the
# call goes to a person rather than round the same failure again.
REFUSALS_BEFORE_PERSON = 2
REFUSED = ("The booking system couldn't do that.", "Nothing was changed.")


class BookingDesk(Desk):
    """Owns the call's actions and the verified booking records it has seen."""

    def __init__(self, ctx: CallContext, port: BookingPort):
        self.ctx = ctx
        self.workflow = BookingWorkflow()  # goal, target, awaited draft, consent: its alone
        self.told_notice: set[tuple[str, int]] = set()
        self.dispatcher = Dispatcher(ctx, port, self)
        self.move_named_nothing = False  # "could you move it?": ask where (set per turn)
        # A booking this call made whose asset the caller then corrected: its cancel is on
        # the table, and the corrected asset is booked once that is answered (made_here)
        self.rebook_after: str | None = None

    def start_task(self) -> None:
        """Forget the previous task's goal and target; its actions stay as history."""
        self.workflow.on(GoalEvent.NEW_TASK)
        self.rebook_after = None

    # -- views ---------------------------------------------------------------------------
    @property
    def goal(self) -> Goal:
        return self.workflow.goal

    @property
    def target_ref(self) -> str | None:
        """The booking this task changes or cancels."""
        return self.workflow.target

    @property
    def awaiting(self) -> str | None:
        """The draft waiting for the caller's yes."""
        return self.workflow.awaiting

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(self.dispatcher.actions.values())

    @property
    def records(self) -> dict[str, BookingRecord]:
        return self.dispatcher.records

    def draft(self) -> Action | None:
        for action in reversed(self.actions):
            if action.status is ActionStatus.PROPOSED:
                return action
        return None

    def holds_no_booking(self) -> bool:
        """The account has no booking to change: the booking system listed none in this call
        (a list it never answered is no evidence) and the call made none."""
        return self.ctx.bookings_read is not None and not self.ctx.bookings_hint \
            and not self.records

    def in_flight(self) -> bool:
        return any(a.status in IN_FLIGHT for a in self.actions)

    def consent_now(self) -> bool:
        """The caller already confirmed this task and the latest correction said go ahead."""
        return self.workflow.consent_at(self.ctx.ledger.revision)

    # -- a correction meets the actions (seed 001 decision matrix) -----------------------------
    def on_change(self, invalidation: Invalidation) -> None:
        """A correction meets exactly the actions that read a changed field; the rest are
        preserved. Each one met takes its ``ON_CORRECTION`` row: the live ones are the stale
        actions of ``invalidation`` (the dependency map's), the settled ones of this question
        (no longer dependents: committed, cancelled, failed) those whose stamp read a changed
        field."""
        hit = {d.id for d in invalidation.of_kind(DependentKind.ACTION)}
        question = self.ctx.ledger.question
        settled = {a.id for a in self.actions if a.status in TERMINAL and a.question == question
                   and invalidation.touches(name for name, _ in self.dispatcher.stamps[a.id].reads)}
        for action_id in sorted(hit | settled):
            self.dispatcher.supersede(action_id)

    # -- intents ---------------------------------------------------------------------------
    def cancel_awaits_yes(self) -> bool:
        """A cancellation was read back and waits for the caller's yes: asking to cancel it
        again ("Yes, cancel it", "please cancel it") is that yes, not a new request."""
        return self._read_back(Op.CANCEL_BOOKING) is not None

    def made_here(self, ref: str) -> bool:
        """This call created booking ``ref`` (a verified create). One made before the call and
        moved in it is not: cancelling it would undo more than the call did."""
        return any(a.op is Op.CREATE_BOOKING and a.status is ActionStatus.COMMITTED
                   and dict(a.result).get("ref") == ref for a in self.actions)

    def rebooked(self, ref: str) -> bool:
        """The cancel offered for ``ref`` (see :attr:`rebook_after`) was answered, done or
        declined: the task turns to a new booking of the corrected asset. Returns whether it
        was that cancel. The caller then hears that booking read back (realign)."""
        if self.rebook_after != ref:
            return False
        self.rebook_after = None
        self.workflow.on(GoalEvent.OTHER_ASSET)  # no target: a new booking
        return True

    def move_awaits_yes(self) -> bool:
        """A move was read back and waits for the caller's yes, and the call still holds the
        values it was read back with: asking for that move again ("move it", "go on, shift
        it", a "yes" before it misheard) is that yes. A move to another time changed the
        values, so it is read back afresh."""
        draft = self._read_back(Op.RESCHEDULE_BOOKING)
        return draft is not None and self.is_current(draft)

    def _read_back(self, op: Op) -> Action | None:
        """The draft of ``op`` read back and waiting for the caller's yes, if there is one."""
        draft = self.draft()
        return draft if draft is not None and draft.op is op and self.awaiting == draft.id \
            else None

    def cancel_intent(self) -> bool:
        """The caller wants to cancel. A draft dies at once (seed 001 case 14).

        Returns True when nothing booked remains to cancel (the draft was all there was).
        """
        self.workflow.on(GoalEvent.WANT_CANCEL)
        draft = self.draft()
        if draft is not None:
            self.dispatcher.supersede(draft.id, CancelReason.CALLER_CANCELLED)
        for action in self.actions:
            if action.status is ActionStatus.COMMITTING:
                self.workflow.withdrew_create(action.op is Op.CREATE_BOOKING)
                self.dispatcher.supersede(action.id)
        if self.target_ref is None and not self.in_flight():
            if draft is not None:
                self.workflow.on(GoalEvent.SETTLED)
                return True
            # No draft and no booking of this call: a booking made before it, still to find
            # (realign asks which one, or says there is none to cancel).
            self.workflow.on(GoalEvent.FIND_CANCEL)
        return False

    def yes(self) -> bool:
        """Dispatch the draft the caller just confirmed. False when nothing was awaiting."""
        awaiting = self.workflow.answered()
        if awaiting is None:
            return False
        action = self.dispatcher.actions.get(awaiting)
        if action is None or action.status is not ActionStatus.PROPOSED:
            return False
        self.workflow.confirmed()
        self.consent(action, Consent.YES)
        return True

    def no(self) -> tuple[bool, Action | None]:
        """The caller said no to the draft awaiting a yes: record it. Returns whether a draft
        was awaiting one, and its action (if still known)."""
        awaiting = self.workflow.answered()
        if awaiting is None:
            return False, None
        action = self.dispatcher.actions.get(awaiting)
        if action is not None and action.status is ActionStatus.PROPOSED:
            self.consent(action, Consent.NO)
        return True, action

    # -- realigning the system of record with the ledger --------------------------------------
    async def realign(self, *, quiet: bool = False, lead: tuple[str, ...] = ()) -> None:
        """Propose whatever makes the booking match the ledger now, or ask what is missing.

        Waits (does nothing) while a request is in flight: its reconciliation calls back here.
        ``quiet``: say nothing when the booking already matches (a reconciliation's check).
        ``lead``: sentences that go before a read-back it offers.
        """
        ctx = self.ctx
        if ctx.closed or ctx.handed_off or self.goal is Goal.NONE or self.in_flight():
            return
        snap = ctx.ledger.current
        draft = self.draft()
        if self.goal is Goal.CANCEL:
            record = self.records.get(self.target_ref or "")
            if record is None and self.workflow.withdrawn_for_cancel:
                self.workflow.on(GoalEvent.SETTLED)
                self.workflow.withdrew_create(False)
                ctx.say(("The request was withdrawn before it was booked.",
                         "Nothing was booked."))
            elif record is None and self.holds_no_booking():
                self.workflow.on(GoalEvent.SETTLED)
                ctx.say(("I don't see a booking on your account to cancel.",
                         "Nothing has changed."))
            elif record is None:
                ask_which_booking(ctx, cancel=True)
            elif record.status == "cancelled":
                self.workflow.on(GoalEvent.SETTLED)
                ctx.say((f"Booking {record.ref} is already cancelled.",))
            elif draft is None or draft.op is not Op.CANCEL_BOOKING:
                self.offer(self.new_action(Op.CANCEL_BOOKING, self.cancel_args(record),
                                           (BOOKING_REF,)), lead)
            elif not quiet and self.is_current(draft):
                # no answer to the cancel read back ("Yeah, no, um."): put it again, as a
                # booking's read-back is put again (one confirmation per action)
                self.workflow.await_yes(draft.id)
                ctx.ask(confirmation(draft, ("Shall I go ahead with that?",)))
            return
        if self.goal is Goal.RESCHEDULE and self.target_ref is None:
            if not self.holds_no_booking():
                ask_which_booking(ctx, cancel=False)
                return
            # "Move my visit to Wednesday" from an account with none: the visit it wants is
            # offered as a new booking, read back for its own yes.
            self.workflow.on(GoalEvent.NOTHING_TO_MOVE)
            ctx.say(("I don't see a booking on your account to move.",
                     "I can book a new visit instead."))
        slot = missing_slot(snap)
        if slot is not None:
            if draft is not None:
                self.dispatcher.drop(draft, CancelReason.MISSING_FIELD, slot)
            held = snap.get(slot)
            candidates = ctx.held_back(slot)  # (a missing slot's record is never usable)
            if held is not None and len(candidates) == 1:
                together = held_together(snap, slot)
                if together:
                    check_together(ctx, slot, together)
                    return
            ask_field(ctx, slot, candidates)
            return
        if draft is not None and self.is_current(draft):
            # Already proposed from exactly these values: put the same question again (one
            # confirmation per action, so no new confirmation_requested event).
            self.workflow.await_yes(draft.id)
            ctx.ask(confirmation(draft, ("Shall I go ahead with that?",)))
            return
        record = self.records.get(self.target_ref or "")
        if record is None:
            self.offer(self.new_action(Op.CREATE_BOOKING, self.create_args(),
                                       present_reads(snap)), lead)
            return
        if snap.value(ASSET) not in (None, record.asset):  # (a cancel returned above)
            # A booking cannot move to another asset: the caller wants a visit for that one.
            if self.made_here(record.ref) and record.status != "cancelled":
                # This call made it from the asset the caller has since corrected ("wrong
                # pump, I meant P-200", heard after the booking went through): left standing,
                # it would be a visit for a pump the caller ruled out. Its cancel is read back
                # first, with its own yes; the corrected asset is booked after (rebooked).
                self.rebook_after = record.ref
                self.offer(self.new_action(Op.CANCEL_BOOKING, self.cancel_args(record),
                                           (BOOKING_REF,)),
                           lead + (f"Booking {record.ref} for {record.asset} was made before "
                                   "your correction.",))
                return
            # One made before the call stays exactly as the system of record holds it.
            self.workflow.on(GoalEvent.OTHER_ASSET)  # no target: a new booking
            self.offer(self.new_action(Op.CREATE_BOOKING, self.create_args(),
                                       present_reads(snap)),
                       lead + (f"Booking {record.ref} for {record.asset} stays as it is.",))
            return
        changes = change_args(snap, ctx.caller)
        if all(str(getattr(record, k, "") or "") == v for k, v in changes.items()) \
                and record.status != "cancelled":
            if quiet:
                return
            if self.move_named_nothing:
                self.move_named_nothing = False
                return ask_where_to(ctx, record)
            ctx.say((f"Booking {record.ref} is already for that time.",
                     "Nothing needs to change."))
            return
        prefix: tuple[str, ...] = ()
        if (record.ref, record.version) in self.dispatcher.notified \
                and (record.ref, record.version) not in self.told_notice:
            self.told_notice.add((record.ref, record.version))
            prefix = notice_already_sent(record)
        args = {**changes, "ref": record.ref, "expected_version": str(record.version),
                "asset": record.asset}
        self.offer(self.new_action(Op.RESCHEDULE_BOOKING, args,
                                   present_reads(snap) + (BOOKING_REF,)), lead + prefix)

    async def refused(self, action: Action, outcome: BookingOutcome) -> None:
        """The system of record refused ``action`` and wrote nothing (``AFTER_DISPATCH``
        ``propose_new``). The caller hears so. A full slot asks for another day; anything else
        reads the request back again from the ledger, for a yes to try once more (the
        caller's earlier go-ahead was spent on the refused one). A second refusal in a row
        hands the call to a person."""
        if self.workflow.refused() >= REFUSALS_BEFORE_PERSON:
            self.ctx.say(REFUSED)
            await self.dispatcher.desk_handoff(HandoffReason.BOOKING_REFUSED)
        elif outcome.code == "slot_full" and action.op is not Op.CANCEL_BOOKING:
            ask_other_time(self.ctx, action)
        else:
            self.ctx.say(REFUSED)
            await self.realign(lead=("I can try again.",))

    # -- building blocks ------------------------------------------------------------------------
    def create_args(self) -> dict[str, str]:
        return booking_args(self.ctx.ledger.current, self.ctx.caller)

    @staticmethod
    def cancel_args(record: BookingRecord) -> dict[str, str]:
        return {"ref": record.ref, "expected_version": str(record.version),
                "asset": record.asset, "date": record.date, "window": record.window or "",
                "time": record.time or ""}

    def new_action(self, op: Op, args: dict[str, str], reads: tuple[str, ...]) -> Action:
        """Propose an action from the ledger now (``action_proposed``)."""
        snap = self.ctx.ledger.current
        action = propose(self.ctx.next_id("a"), op, args, snap, reads)
        all_reads = BOOKING_READS + ((BOOKING_REF,) if spec(op).changes_record else ())
        self.dispatcher.add(action, Stamp.of(snap, all_reads, request=action.idempotency_key))
        self.ctx.deps = self.ctx.deps.with_dependent(
            Dependent(DependentKind.ACTION, action.id), all_reads)
        self.ctx.emit("action_proposed", op=op, request=action.idempotency_key,
                      action=action.id, based_on_revision=action.based_on_revision,
                      vector=dict(action.dependency_vector))
        return action

    def is_current(self, action: Action) -> bool:
        stamp = self.dispatcher.stamps.get(action.id)
        return stamp is not None and classify(self.ctx.ledger.current, stamp) \
            is Disposition.CURRENT

    def offer(self, action: Action, prefix: tuple[str, ...] = ()) -> None:
        """Ask for the one confirmation this action needs, or go when consent was given."""
        self.consent(action, Consent.GO_AHEAD if self.consent_now() else Consent.NOT_GIVEN,
                     prefix)

    def consent(self, action: Action, consent: Consent, prefix: tuple[str, ...] = ()) -> None:
        """Take the ``BEFORE_DISPATCH`` row for where the caller stands on ``action``."""
        step = self.dispatcher.decide(before_dispatch(consent), action)
        if step is Step.DISPATCH:
            if prefix:
                self.ctx.say(prefix, SpeechKind.INFO)
            self.dispatcher.go(action)
        elif step is Step.DROP:
            self.dispatcher.drop(action, CancelReason.CALLER_DECLINED)
        else:  # Step.ASK_CONFIRMATION
            self.ask_confirmation(action, prefix)

    def ask_confirmation(self, action: Action, prefix: tuple[str, ...] = ()) -> None:
        """The one yes/no question about ``action`` (``confirmation_requested``)."""
        fields = confirm_fields(self.ctx.ledger.current, action.op)
        question = confirmation_question(action, self.records, self.ctx.caller, prefix)
        self.workflow.await_yes(action.id)
        self.ctx.ask(question)
        self.ctx.emit("confirmation_requested", fields=fields, op=action.op,
                      request=action.idempotency_key)
