"""The state one call shares between the controller and its two desks (bookings, answers).

:class:`CallContext` owns the question's ledger, admission gate, dependency map and response
generations, and is the only place that emits trace events, speaks plans and starts background
work. It does no I/O itself: speech goes to the :class:`~agent.core.speech.SpeechSink`, events to
the :class:`~agent.core.trace.Trace`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.core.caller import CallerProfile
from agent.core.clock import Clock
from agent.core.dependencies import DependencyMap, Dependent, DependentKind
from agent.core.gate import AdmissionGate
from agent.core.ledger import FieldOp, Ledger, UpdateOutcome, UpdateResult
from agent.core.ports import BookingRecord
from agent.core.speech import Generations, SpeechKind, SpeechPlan, SpeechSink
from agent.core.trace import Trace
from agent.service.repair import Asked, Question, Setting, Step
from agent.service.repair import plan as plan_question
from agent.service.safeguards import Safeguards

RESPONSE = Dependent(DependentKind.RESPONSE, "current")


@dataclass(frozen=True, slots=True)
class Told:
    """A confirmation rendered from a verified record, as it was planned: enough to say it
    again, word for word, with its ``confirmation_spoken`` event (:meth:`CallContext.confirm`)."""

    sentences: tuple[str, ...]
    record: tuple[str, int]  # (booking ref, version)
    request: str  # the action's idempotency key
    op: str
    values: tuple[tuple[str, Any], ...]  # the claim's values (private); the event keeps some


@dataclass(frozen=True, slots=True)
class ControllerOptions:
    """Tunables. Timeouts of the booking client itself belong to the client."""

    confidence_floor: float = 0.6  # below it a turn's values are kept as unresolved candidates
    retrieval_timeout_s: float = 15.0  # after it the caller hears that the search did not answer
    # A request the target still holds as PENDING after our timeout is waited for, looked up
    # by key with backoff, for at most this long; then a person takes over.
    reconcile_budget_s: float = 20.0
    reconcile_backoff_s: float = 0.25


class CallContext:
    """Shared, mutable per-call state. Every mutation happens under :attr:`lock`."""

    def __init__(self, caller: CallerProfile, clock: Clock, trace: Trace, sink: SpeechSink,
                 safeguards: Safeguards, options: ControllerOptions,
                 ledger: Ledger | None = None):
        self.caller = caller
        self.clock = clock
        self.trace = trace
        self.sink = sink
        self.safeguards = safeguards  # chosen at composition (agent/service/safeguards.py)
        self.options = options
        self.ledger = ledger or Ledger()
        self.gate = AdmissionGate(self.ledger, safeguards.gate_mode)
        self.deps = DependencyMap()
        self.generations = Generations()
        self.lock = asyncio.Lock()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.plans: list[SpeechPlan] = []
        # Candidates of values the caller has not settled (uncertain or ambiguous). The ledger
        # records UNRESOLVED for a field that had a value; a field never set keeps them here.
        self.candidates: dict[str, tuple[str, ...]] = {}
        # An id the caller said that is not on their account, by field ("asset": "V-200"),
        # until the question about that field has said so or the field has a value.
        self.heard: dict[str, str] = {}
        # Values the caller ruled out in this question ("Wednesday's no good") and has not
        # named again since: no choice the agent offers names them (agent/service/repair.py).
        self.ruled_out: set[tuple[str, str]] = set()
        # Conversational repair (agent/service/repair.py): the caller turn being handled, the last
        # question asked (state, never read back from the trace), a standing offer of a person
        # made by the repair ladder and a handoff it decided (both: the field it was about),
        # and the caller's bookings as last listed (a hint, to name them in a choice).
        self.turn = 0
        self.asked: Asked | None = None
        self.answered_since_asked = False  # an answer was spoken after the last question
        self.repair_offer: str | None = None
        self.repair_handoff: str | None = None
        self.bookings_hint: tuple[tuple[str, str, str], ...] = ()
        # Every booking of the account as last read from the booking system in this call
        # (None: never read); stands in when a read fails (agent/service/inference.py).
        self.bookings_read: tuple[BookingRecord, ...] | None = None
        # The newest verified confirmation planned since the caller's last turn began, and the
        # one a barge-in cut before the caller heard it (retold: agent/service/turn_steps.py).
        self.told: Told | None = None
        self.unheard: Told | None = None
        self.closed = False
        self.handed_off = False
        self._request_seq = 0

    def new_question(self) -> None:
        """Close this question's ledger and open a new one (side effect: new gate, no deps).

        Results stamped for the old question are STALE against the new ledger, so nothing
        computed for it can leak into the next task.
        """
        self.ledger.close()
        self.ledger = Ledger()
        self.gate = AdmissionGate(self.ledger, self.gate.mode)
        self.deps = DependencyMap()
        self.candidates = {}
        self.heard = {}
        self.ruled_out = set()

    def held_back(self, field: str) -> tuple[str, ...]:
        """What was heard of ``field`` and not settled: the ledger's candidates for it while
        it cannot be acted on, else those kept for a field never set (:attr:`candidates`)."""
        record = self.ledger.current.get(field)
        return ((record.candidates if record is not None and not record.usable else ())
                or self.candidates.get(field, ()))

    def rule_out(self, withdrawn: Iterable[tuple[str, str]],
                 named: Iterable[tuple[str, str]], *, declined: bool = False) -> None:
        """Remember the values a turn ruled out, and forget those it names (state).
        ``declined``: the turn is a no; to a choice of one option on the table ("Is it the
        seal torque, or something else?") it rules that option out, so the ladder's next
        step does not ask about it again."""
        ruled = set(withdrawn)
        asked = self.on_table()
        if declined and asked is not None and asked.closed and len(asked.options) == 1:
            ruled.add((asked.question.field, asked.options[0]))
        self.ruled_out = (self.ruled_out - set(named)) | ruled

    # -- identifiers -------------------------------------------------------------------------
    def next_id(self, prefix: str) -> str:
        self._request_seq += 1
        return f"{prefix}{self._request_seq}"

    # -- trace -------------------------------------------------------------------------------
    def emit(self, name: str, *, request: str | None = None, disposition: str | None = None,
             **data: Any) -> None:
        """Append one event stamped with the question, revision and generation now."""
        snap = self.ledger.current
        self.trace.emit(name, question=snap.question, revision=snap.revision,
                        generation=self.generations.current, request=request,
                        disposition=disposition, **data)

    # -- speech ------------------------------------------------------------------------------
    def say(self, sentences: Sequence[str], kind: SpeechKind = SpeechKind.INFO, *,
            reads: Iterable[str] = (), record: tuple[str, int] | None = None,
            citations: tuple[str, ...] = (), outcome: str | None = None) -> SpeechPlan:
        """Plan one response as a new generation and hand it to the sink (side effect).

        ``reads`` are the fields the response depends on: a correction to one of them
        invalidates it while it is still being spoken.
        """
        from agent.core.gate import Stamp

        generation = self.generations.next()
        snap = self.ledger.current
        reads = tuple(reads)
        plan = SpeechPlan(generation, snap.question, snap.revision, tuple(sentences), kind,
                          record, citations, outcome,
                          Stamp.of(snap, reads, request=f"g{generation}"))
        self.deps = self.deps.with_dependent(RESPONSE, reads)
        self.plans.append(plan)
        self.answered_since_asked |= kind is SpeechKind.ANSWER
        if kind is SpeechKind.QUESTION:  # the last question asked (ask() records its own)
            self.asked = Asked(Question("", plan.sentences, event=""), Step.ASK,
                               plan.sentences, self.turn, 0)
        self.sink.speak(plan)
        return plan

    def confirm(self, told: Told) -> SpeechPlan:
        """Say a confirmation rendered from a verified record, and emit ``confirmation_spoken``
        naming the generation it went out in (side effects). A newer confirmation supersedes
        an unheard one."""
        plan = self.say(told.sentences, SpeechKind.CONFIRMATION, record=told.record)
        self.told = told
        self.unheard = None
        self.emit("confirmation_spoken", request=told.request, op=told.op, ref=told.record[0],
                  version=told.record[1], spoken_generation=plan.generation,
                  **{k: v for k, v in told.values
                     if k in ("asset", "date", "window", "time", "status")})
        return plan

    def turn_began(self) -> None:
        """A caller turn is being handled: confirmations planned before it were spoken to a
        caller who then took their turn, not cut."""
        self.told = None

    def on_table(self) -> Asked | None:
        """The question the caller's current turn answers: the last one asked, if it was asked
        in response to the previous turn (or after it, in the background)."""
        asked = self.asked
        return asked if asked is not None and asked.turn == self.turn - 1 else None

    def ask(self, question: Question) -> Asked:
        """Ask ``question``, or the next repair step when it follows itself (side effects).

        Plans the speech, records the question as the last one asked, emits ``repair`` for a
        repair step and the question's own event (``clarification_requested``) for a question
        about the field. The offer of a person stands for the next turn (:attr:`repair_offer`);
        a ``handoff`` step only says why and leaves the handoff to the controller
        (:attr:`repair_handoff`).
        """
        setting = Setting(self.caller, self.clock.now().date(), self.bookings_hint,
                          frozenset(self.ruled_out))
        # After an answer to a question in between, the question is put afresh, in full.
        last = None if self.answered_since_asked else self.asked
        asked = plan_question(question, last, self.turn, setting)
        self.answered_since_asked = False
        kind = SpeechKind.INFO if asked.step is Step.HANDOFF else SpeechKind.QUESTION
        self.say(asked.sentences, kind, reads=question.reads)
        self.asked = asked
        if asked.step is not Step.ASK:
            self.emit("repair", step=str(asked.step), field=question.field,
                      failures=asked.failures)
        if asked.step is Step.OFFER_HANDOFF:
            self.repair_offer = question.field
        elif asked.step is Step.HANDOFF:
            self.repair_handoff = question.field
        elif question.event == "clarification_requested":
            self.emit("clarification_requested",
                      fields=list(question.fields or (question.field,)),
                      candidates=[self.trace.private(c) for c in question.candidates])
        return asked

    def invalidate_response(self, reason: str) -> None:
        """Make the current generation stale: the sink drops its audio wherever it is queued."""
        generation = self.generations.current
        if generation == 0 or not self.generations.is_live(generation):
            return
        if reason == "barge_in" and self.told:
            # The caller cut in while the agent was still responding to their last turn: the
            # newest confirmation since then did not reach them in full.
            self.unheard = self.told
        self.generations.invalidate()
        self.emit("generation_invalidated", reason=reason, invalidated=generation)
        self.sink.invalidate(generation, reason)

    # -- the ledger --------------------------------------------------------------------------
    def accept(self, ops: Sequence[FieldOp], provenance: str) -> UpdateResult:
        """Apply ``ops`` as ONE revision; emit ``field_accepted`` naming the changed fields."""
        result = self.ledger.revise(list(ops))
        if result.outcome in (UpdateOutcome.ACCEPTED, UpdateOutcome.DUPLICATE):
            for op in ops:
                if op.candidates:
                    self.candidates[op.name] = op.candidates
                elif op.value is not None:
                    self.candidates.pop(op.name, None)
                    self.heard.pop(op.name, None)
        if result.outcome is UpdateOutcome.ACCEPTED and result.changed:
            snap = self.ledger.current
            records = dict(snap.fields)  # every changed field has its record now
            self.emit("field_accepted", fields=list(result.changed), source=provenance,
                      versions={n: snap.version(n) for n in result.changed},
                      values={n: self.trace.private(snap.value(n)) for n in result.changed},
                      statuses={n: str(records[n].status) for n in result.changed})
        return result

    def reject(self, field: str, reason: str, value: str | None = None) -> None:
        self.emit("field_rejected", field=field, fields=[field], reason=reason,
                  value=self.trace.private(value))

    # -- background work ---------------------------------------------------------------------
    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run ``coro`` in the background; it counts as in-flight work until it ends."""
        task = asyncio.get_running_loop().create_task(self._guard(coro, name), name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        # cancelled before it ran (the call closed at once): ``coro`` was never started, and is
        # closed rather than left for the garbage collector to warn about
        task.add_done_callback(lambda _task: coro.close())
        return task

    async def _guard(self, coro: Coroutine[Any, Any, Any], name: str) -> Any:
        # A background failure must be visible and spoken about, never a silent dead task.
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported on the trace and to the caller
            self.emit("agent_error", task=name, error=f"{type(exc).__name__}: {exc}")
            if not self.closed:
                self.say(("Sorry, something went wrong on my side.",
                          "I can pass you to a colleague if you like."))
            return None

    async def wait_idle(self) -> None:
        while self.tasks:
            await asyncio.gather(*tuple(self.tasks), return_exceptions=True)
