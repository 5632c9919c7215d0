"""The correction-aware dialogue controller: final turns in, accepted facts, actions and speech out.

One turn at a time (an asyncio lock), in the steps of :mod:`agent.service.turn_steps`: understand
(the :class:`~agent.understanding.proposals.Proposer`), validate the proposal against the caller's
authority and the call's rules, accept it as ONE new ledger revision with provenance, invalidate
exactly the dependents of the changed fields (:mod:`agent.service.invalidation`), then decide the
next step (the handler table of :mod:`agent.service.intent_handlers`) on the booking desk or the
answer desk. Work those desks start (dispatched actions, retrievals) runs in the background,
passes the gate or ``may_commit`` when it returns, and may speak later as a new generation. No
I/O here: everything outside goes through ports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent.core.actions import Action, ActionStatus
from agent.core.caller import CallerProfile
from agent.core.clock import Clock
from agent.core.gate import AdmissionGate
from agent.core.ledger import Ledger, LedgerSnapshot
from agent.core.ports import BookingPort, EvidenceBundle, Resolution, Resolver, Retriever
from agent.core.speech import SpeechSink, Utterance
from agent.core.trace import Trace
from agent.service.answer_desk import AnswerDesk
from agent.service.booking_desk import BookingDesk
from agent.service.dialogue import CallContext, ControllerOptions
from agent.service.handoff import handoff as hand_over
from agent.service.inference import read_bookings
from agent.service.replies import describe
from agent.service.safeguards import Safeguards
from agent.service.turn_steps import take_turn
from agent.service.vocabulary import CancelReason, Focus, HandoffReason
from agent.understanding.proposals import Proposer

RetrieverFactory = Callable[[AdmissionGate, Trace], Retriever]


class Controller:
    """Implements :class:`agent.core.session.Conversation` for one call."""

    def __init__(self, caller: CallerProfile, clock: Clock, proposer: Proposer,
                 resolver: Resolver, retriever_factory: RetrieverFactory,
                 booking: BookingPort, sink: SpeechSink, trace: Trace,
                 safeguards: Safeguards | None = None, options: ControllerOptions | None = None):
        self.ctx = CallContext(caller, clock, trace, sink, safeguards or Safeguards(),
                               options or ControllerOptions())
        self.trace = trace
        self.proposer = proposer
        self.port = booking
        self.bookings = BookingDesk(self.ctx, booking)
        self._retriever_factory = retriever_factory
        self.answers = AnswerDesk(self.ctx, resolver, retriever_factory(self.ctx.gate, trace),
                                  self.handoff)
        self.focus: Focus | None = None
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
            # The caller's bookings are read while the greeting plays, so a first turn about
            # one is understood even when its own read of them is slow (inference.read_bookings).
            self.ctx.spawn(read_bookings(self.ctx, self.port), "bookings_read")

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
                self.bookings.dispatcher.drop(draft, CancelReason.CALL_ENDED)
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
        """Take one final caller turn (its steps, in order: :mod:`agent.service.turn_steps`)."""
        ctx = self.ctx
        async with ctx.lock:
            if ctx.closed:
                return
            self._turns += 1
            ctx.turn = self._turns
            uid = utterance.id or f"u{self._turns}"
            ctx.emit("user_turn_final", utterance=uid,
                     text=ctx.trace.private(utterance.text), confidence=utterance.confidence)
            await take_turn(self, utterance, uid)

    # -- what the turn steps ask of the call (agent.service.turn_steps.TurnCall) ---------------
    def new_question(self, reason: str) -> None:
        """Open a new question: a new ledger and gate, a retriever for them, a fresh task."""
        self.ctx.new_question()
        self.answers.retriever = self._retriever_factory(self.ctx.gate, self.trace)
        self.bookings.start_task()
        self.ctx.emit("question_started", reason=reason)

    async def handoff(self, reason: HandoffReason, ambiguity: tuple[str, ...]) -> None:
        """Hand the call to a person, with the state they need (agent/service/handoff.py)."""
        await hand_over(self.ctx, self.port, self.bookings.actions, reason, ambiguity)


__all__ = ["Controller", "ControllerOptions", "RetrieverFactory"]
