"""The correction-aware dialogue controller: final turns in, accepted facts, actions and speech out.

One turn at a time (an asyncio lock): understand (the :class:`~agent.proposals.Proposer`),
validate the proposal against the caller's authority and the call's rules, accept it as ONE new
ledger revision with provenance, invalidate exactly the dependents of the changed fields, then
decide the next step on the booking desk or the answer desk. Work those desks start (dispatched
actions, retrievals) runs in the background, passes the gate or ``may_commit`` when it returns,
and may speak later as a new generation. No I/O here: everything outside goes through ports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent import trust
from agent.actions import Action, ActionStatus
from agent.answer_desk import QUERY, AnswerDesk, Topic
from agent.booking_desk import BookingDesk
from agent.caller import CallerProfile
from agent.clock import Clock
from agent.dialogue import RESPONSE, CallContext, ControllerOptions
from agent.faults import AgentFaults
from agent.gate import AdmissionGate
from agent.handoff import handoff
from agent.inference import implied_ops, implied_target, proposal_context
from agent.ledger import FieldOp, Ledger, LedgerSnapshot, UpdateOutcome
from agent.ports import BookingPort, EvidenceBundle, Resolution, Resolver, Retriever
from agent.proposals import (
    LANGUAGE,
    CorrectionKind,
    Intent,
    Proposal,
    Proposer,
)
from agent.render import ask_which_field, values_line
from agent.repair import PERSON, REQUEST, TARGET, Question, read_answer
from agent.replies import acknowledge, ask_yes_or_no, describe, speak_rejections
from agent.speech import SpeechKind, SpeechSink, Utterance
from agent.trace import Trace
from agent.validation import Rejection, validate
from agent.workflow import Goal

RetrieverFactory = Callable[[AdmissionGate, Trace], Retriever]


class Controller:
    """Implements :class:`agent.session.Conversation` for one call."""

    def __init__(self, caller: CallerProfile, clock: Clock, proposer: Proposer,
                 resolver: Resolver, retriever_factory: RetrieverFactory,
                 booking: BookingPort, sink: SpeechSink, trace: Trace,
                 faults: AgentFaults | None = None, options: ControllerOptions | None = None):
        self.ctx = CallContext(caller, clock, trace, sink, faults or AgentFaults(),
                               options or ControllerOptions())
        self.trace = trace
        self.proposer = proposer
        self.port = booking
        self.bookings = BookingDesk(self.ctx, booking)
        self._retriever_factory = retriever_factory
        self.answers = AnswerDesk(self.ctx, resolver, retriever_factory(self.ctx.gate, trace),
                                  self._handoff)
        self.focus: str | None = None  # "booking" | "question"
        self.offered_person = False
        self._turns = 0

    # -- read-only views for UIs --------------------------------------------------------------
    @property
    def ledger(self) -> Ledger:
        return self.ctx.ledger

    @property
    def snapshot(self) -> LedgerSnapshot:
        return self.ctx.ledger.current

    @property
    def actions(self) -> tuple[Action, ...]:
        return self.bookings.actions

    @property
    def last_resolution(self) -> Resolution | None:
        return self.answers.last_resolution

    @property
    def last_evidence(self) -> EvidenceBundle | None:
        return self.answers.last_bundle

    @property
    def caller(self) -> CallerProfile:
        return self.ctx.caller

    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary of the call's state (ledger, actions, evidence). Read-only."""
        return describe(self)

    # -- Conversation ------------------------------------------------------------------------
    async def start(self) -> None:
        async with self.ctx.lock:
            self.ctx.say(("Hello, Northwind Pumps service line.",
                          "I can book, move or cancel a service visit, or answer maintenance "
                          "and return questions."))

    def barge_in(self) -> None:
        self.ctx.invalidate_response("barge_in")

    @property
    def busy(self) -> bool:
        """Background work is running, or a request is out at the booking system.

        An UNKNOWN action after a handoff is a person's to settle; the agent waits on nothing.
        """
        return bool(self.ctx.tasks) or any(
            a.status in (ActionStatus.COMMITTING, ActionStatus.CANCEL_REQUESTED)
            for a in self.actions)

    async def wait_idle(self) -> None:
        await self.ctx.wait_idle()

    async def close(self) -> None:
        """End the call: seal the ledger and stop background work (results would be closed)."""
        async with self.ctx.lock:
            draft = self.bookings.draft()
            if draft is not None:  # never confirmed: it dies with the call
                self.bookings.dispatcher.drop(draft, "call_ended")
            self.ctx.closed = True
            self.ctx.ledger.close()
        tasks = tuple(self.ctx.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def set_caller(self, caller: CallerProfile) -> None:
        """The session's authorisation changed (roles, epoch): answers in flight re-check it."""
        self.ctx.caller = caller

    async def user_turn(self, utterance: Utterance) -> None:
        ctx = self.ctx
        async with ctx.lock:
            if ctx.closed:
                return
            self._turns += 1
            ctx.turn = self._turns
            uid = utterance.id or f"u{self._turns}"
            ctx.emit("user_turn_final", utterance=uid,
                     text=ctx.trace.private(utterance.text), confidence=utterance.confidence)
            before = len(ctx.plans)
            try:
                context = await proposal_context(ctx, self.port, self.answers, self.bookings)
                # Read against the question it answers: a plain "yes" to "Shall I put Friday
                # the 4th?" gives that date (agent/repair.py).
                proposal = read_answer(ctx.on_table(), self.proposer.propose(utterance, context),
                                       utterance.text or "")
                ctx.emit("proposal", utterance=uid, intent=str(proposal.intent),
                         correction=str(proposal.correction),
                         fields=[s.field for s in proposal.slots], go_ahead=proposal.go_ahead,
                         reason=ctx.trace.private(proposal.reason) if proposal.reason else None)
                await self._handle(proposal, utterance, f"utterance:{uid}",
                                   trust.expected(context))
                if ctx.repair_handoff is not None:  # the repair ladder ran out: a person
                    field, ctx.repair_handoff = ctx.repair_handoff, None
                    await self._handoff("repair_exhausted", (f"repair: {field}",))
            except Exception as exc:  # noqa: BLE001 - one bad turn must not end the call
                # The ledger changes only through whole revisions, so nothing is half-written.
                ctx.emit("agent_error", utterance=uid, error=f"{type(exc).__name__}: {exc}")
                self._say_error()
                return
            if len(ctx.plans) == before:
                self._acknowledge()

    # -- one turn ------------------------------------------------------------------------------
    async def _handle(self, p: Proposal, utterance: Utterance, source: str,
                      expect: trust.Expected) -> None:
        ctx, desk = self.ctx, self.bookings
        if p.intent in (Intent.YES, Intent.NO) and p.correction is CorrectionKind.UNCERTAIN \
                and utterance.alternatives and all(len(s.candidates) < 2 for s in p.slots):
            ask_yes_or_no(ctx)  # heard both a yes and a no: never act on either (seed 001 #7)
            return  # the question or offer on the table stands
        if self.bookings.defer_another(p):
            return
        offer = self._take_offer()  # an offer stands for the very next turn only
        self._maybe_new_question(p)
        if p.intent is Intent.HUMAN:
            await self._handoff("caller_asked", ())
            return
        if p.intent is Intent.GOODBYE:
            ctx.say(("Thanks for calling.", "Goodbye."))
            return
        self._set_focus(p)
        if p.correction is CorrectionKind.AUTHORITY:
            field = p.slots[0].field if p.slots else (p.authority or "identity")
            ctx.reject(field, f"authority:{p.authority or 'boundary'}")
            self._offer_person("I can't change that for you: it's outside your account.")
            return
        if p.correction is CorrectionKind.AMBIGUOUS_TARGET and p.ambiguous_fields:
            fields = tuple(p.ambiguous_fields)
            ctx.ask(Question(TARGET, ask_which_field(fields), options=fields, closed=True,
                             fields=fields))
            return
        # A turn not heard clearly (agent/trust.py) holds back every value; alternatives that
        # disagree hold back only the values they disagree on (those arrive with several
        # candidates) - what every hypothesis heard the same is as good as a clear turn, and
        # is read back before booking.
        uncertain = bool(p.slots) and not trust.heard_clearly(
            utterance, p.slots, expect, floor=ctx.options.confidence_floor,
            proposal_confidence=p.confidence)
        checked = await validate(p, ctx.ledger.current, ctx.caller, ctx.clock.now(),
                                 self.port, source, uncertain=uncertain)
        if checked.rejections:
            if all(r.reason in ("outside_hours", "past_date") for r in checked.rejections):
                # "Thursday at 7 in the evening": the time is refused, the day is kept.
                refused = {r.field for r in checked.rejections}
                kept = [op for op in checked.ops if op.name not in refused]
                result = ctx.accept(kept, source) if kept else None
                if result is not None and result.outcome is UpdateOutcome.ACCEPTED:
                    self._invalidate(result.changed)
            self._rejected(checked.rejections)
            return
        ctx.heard.update(checked.heard)  # "I don't see V-200 on your account" when asked
        for record in checked.records:
            desk.records[record.ref] = record
            desk.target_ref = record.ref
        ops = list(checked.ops)
        ops += await implied_target(ctx, self.port, desk, ops)
        ops += implied_ops(ctx, self.answers, self.focus, ops, source)
        changed: tuple[str, ...] = ()
        unsettled = [op for op in ops if op.candidates and ctx.ledger.current.get(op.name) is None]
        for op in unsettled:
            ctx.emit("field_unresolved", fields=[op.name],
                     candidates=[ctx.trace.private(c) for c in op.candidates])
        if ops:
            result = ctx.accept(ops, source)
            if result.outcome is UpdateOutcome.ACCEPTED:
                changed = result.changed
                self._invalidate(changed)
            elif result.outcome is UpdateOutcome.DUPLICATE and p.intent in (
                    Intent.CORRECTION, Intent.INFORM):
                ctx.emit("correction_duplicate", fields=[op.name for op in ops])
                line = values_line(ctx.ledger.current.values())
                ctx.say(("I already have that.",) + ((f"{line}.",) if line else ()))
                return
        if p.go_ahead and changed:
            desk.consent_revision = ctx.ledger.revision
        if p.intent is Intent.CANCEL:
            if desk.cancel_intent():
                ctx.say(("Okay, I've dropped that request.", "Nothing was booked."))
                return
        elif p.intent is Intent.YES or (p.go_ahead and not changed):
            if await self._yes(offer):
                return
        elif p.intent is Intent.NO and offer is None:
            if desk.no():
                ctx.say(("Okay, I won't.", "What would you like to change?"), SpeechKind.QUESTION)
                return
        await self._next(changed, p.intent in (Intent.MAINTENANCE_QUESTION,
                                               Intent.POLICY_QUESTION))

    async def _next(self, changed: tuple[str, ...], asked: bool) -> None:
        if self.focus == "booking":
            await self.bookings.realign()
        elif self.focus == "question":
            # Answer again only when asked again or when something the answer read changed.
            reads = set(self.answers.reads())
            if asked or reads & set(changed) or self.answers.last_resolution is None:
                await self.answers.pursue()
        elif not self.bookings.in_flight():
            self.ctx.ask(Question(REQUEST, ("How can I help?", "I can book a service visit "
                                            "or answer a maintenance question."), event=""))

    def _take_offer(self) -> str | None:
        """The offer the agent's last response made, now cleared: "person", "language:xx", or
        "repair:<field>" (a person offered because questions about that field kept failing)."""
        offer = None
        if self.answers.offered_language:
            offer = f"language:{self.answers.offered_language}"
        elif self.ctx.repair_offer:
            offer = f"repair:{self.ctx.repair_offer}"
        elif self.offered_person or self.answers.offered_person:
            offer = "person"
        self.offered_person = self.answers.offered_person = False
        self.answers.offered_language = self.ctx.repair_offer = None
        return offer

    async def _yes(self, offer: str | None) -> bool:
        """The caller agreed to what was last put to them. True when that was handled."""
        if offer == "person":
            await self._handoff("caller_accepted_person", ())
            return True
        if offer is not None and offer.startswith("repair:"):
            await self._handoff("repair_failed", (f"repair: {offer.partition(':')[2]}",))
            return True
        if offer is not None and offer.startswith("language:"):
            language = offer.partition(":")[2]
            result = self.ctx.accept([FieldOp.set(LANGUAGE, language, "agent_offer_accepted")],
                                     "agent_offer_accepted")
            self._invalidate(result.changed)
            await self.answers.pursue()
            return True
        return self.bookings.yes()

    def _maybe_new_question(self, p: Proposal) -> None:
        """A fresh booking request after a settled one is a new question (a new ledger).

        Only when nothing is in flight or awaiting an answer, and the turn corrects nothing:
        "Actually Thursday" after a booking changes THAT booking instead.
        """
        desk = self.bookings
        if p.intent is not Intent.BOOK or p.correction is not CorrectionKind.NONE \
                or desk.target_ref is None or desk.in_flight() or desk.draft() is not None:
            return
        self.ctx.new_question()
        self.answers.retriever = self._retriever_factory(self.ctx.gate, self.trace)
        desk.start_task()
        self.ctx.emit("question_started", reason="new_booking_request")

    def _set_focus(self, p: Proposal) -> None:
        desk = self.bookings
        if p.intent in (Intent.BOOK, Intent.RESCHEDULE):
            self.focus = "booking"
            wanted = Goal.BOOK if p.intent is Intent.BOOK else Goal.RESCHEDULE
            if desk.goal in (Goal.NONE, Goal.CANCEL) or wanted is Goal.RESCHEDULE:
                desk.goal = wanted if desk.target_ref is None or wanted is Goal.RESCHEDULE \
                    else Goal.RESCHEDULE
        elif p.intent is Intent.CANCEL:
            self.focus = "booking"
            if desk.target_ref is None and desk.draft() is None and not desk.in_flight():
                desk.goal = Goal.CANCEL  # a booking made before this call: find which one
        elif p.intent in (Intent.MAINTENANCE_QUESTION, Intent.POLICY_QUESTION):
            self.focus = "question"
            self.answers.topic = (Topic.POLICY if p.intent is Intent.POLICY_QUESTION
                                  else Topic.MAINTENANCE)

    def _invalidate(self, changed: tuple[str, ...]) -> None:
        """Exactly the dependents of the changed fields; everything else stays current."""
        if not changed:
            return
        hit = self.ctx.deps.invalidated_by(changed)
        if RESPONSE in hit:
            self.ctx.invalidate_response("correction")
        self.bookings.on_change(changed)
        if QUERY in hit:
            self.ctx.emit("query_invalidated", fields=list(changed))

    def _rejected(self, rejections: tuple[Rejection, ...]) -> None:
        if speak_rejections(self.ctx, rejections):
            self._offer_person("I can't make that change: it isn't on your account.")

    def _offer_person(self, first: str) -> None:
        self.offered_person = True
        self.ctx.ask(Question(PERSON, ("A colleague can help with that.",
                                       "Shall I put you through?"), prefix=(first,), event=""))

    def _say_error(self) -> None:
        """The turn failed on our side: ask again, never twice in the same words."""
        sentences = ("Sorry, something went wrong on my side.", "Could you say that again?")
        last = self.ctx.asked
        if last is not None and last.sentences == sentences:
            self.offered_person = True
            sentences = ("Sorry, that went wrong on my side again.",
                         "A colleague can help: shall I put you through?")
        self.ctx.say(sentences, SpeechKind.QUESTION)

    def _acknowledge(self) -> None:
        acknowledge(self.ctx, self.bookings.in_flight())

    async def _handoff(self, reason: str, ambiguity: tuple[str, ...]) -> None:
        await handoff(self.ctx, self.port, self.bookings.actions, reason, ambiguity)


__all__ = ["Controller", "ControllerOptions", "RetrieverFactory"]
