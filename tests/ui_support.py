"""Fakes for the UI tests: a scripted conversation and an in-memory world (no controller needed).

The fake conversation follows one booking-with-correction path well enough to drive every
panel: it accepts fields into a real :class:`~agent.core.ledger.Ledger`, emits real trace events,
and books into an in-memory "system of record" whose record it confirms from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.core.caller import CallerProfile
from agent.core.ledger import Ledger
from agent.core.ports import BookingRecord
from agent.core.speech import Generations, SpeechKind, SpeechPlan, SpeechSink, Utterance
from agent.core.trace import Trace

DATES = {"wednesday": "2026-12-02", "thursday": "2026-12-03"}


@dataclass
class FakeAction:
    op: str
    status: str
    based_on_revision: int
    idempotency_key: str
    args: tuple[tuple[str, str], ...]


@dataclass
class FakeConversation:
    trace: Trace
    sink: SpeechSink
    caller: CallerProfile
    book: list[BookingRecord]
    actions: list[FakeAction] = field(default_factory=list)
    generations: Generations = field(default_factory=Generations)
    _ledger: Ledger = field(default_factory=Ledger)
    closed: bool = False

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    @property
    def busy(self) -> bool:
        return False

    async def wait_idle(self) -> None:
        return None

    def _emit(self, name: str, **data: Any) -> None:  # as Trace.emit takes them
        self.trace.emit(name, question=self._ledger.question, revision=self._ledger.revision,
                        generation=self.generations.current, **data)

    def _say(self, *sentences: str, kind: SpeechKind = SpeechKind.QUESTION,
             record: tuple[str, int] | None = None) -> None:
        g = self.generations.next()
        self.sink.speak(SpeechPlan(g, self._ledger.question, self._ledger.revision,
                                   tuple(sentences), kind, record))

    async def start(self) -> None:
        self._say("Hello, this is Northwind Pumps service.", kind=SpeechKind.INFO)

    async def user_turn(self, utterance: Utterance) -> None:
        self._emit("user_turn_final", text=self.trace.private(utterance.text))
        text = utterance.text.lower()
        found = [(m.start(), m.group(0)) for m in re.finditer(r"wednesday|thursday", text)]
        day = min(found)[1] if found else None  # "Thursday, not Wednesday": the first one
        window = next((w for w in ("morning", "afternoon") if w in text), None)
        if day:
            ops = {"visit_date": DATES[day]}
            if window:
                ops["visit_window"] = window
            if "p-100" in text or "asset" not in dict(self._ledger.current.fields):
                ops["asset"] = self.caller.assets[0].id
            for name, value in sorted(ops.items()):
                if self._ledger.current.value(name) != value:
                    self._ledger.set(name, value, f"utterance:{utterance.id}")
                    self._emit("field_accepted", field=name,
                               value=self.trace.private(value))
            self._emit("confirmation_requested", fields=["visit_date", "visit_window"])
            snap = self._ledger.current
            self._say(f"Shall I book {snap.value('asset')} on {snap.value('visit_date')} "
                      f"in the {snap.value('visit_window')}?")
        elif text.startswith("yes"):
            snap = self._ledger.current
            key = f"{snap.question}:a1"
            self.actions.append(FakeAction("create_booking", "committing", snap.revision, key,
                                           snap.payload))
            self._emit("action_dispatched", op="create_booking")
            record = BookingRecord("BK-1", self.caller.account, snap.value("asset") or "",
                                   snap.value("visit_date") or "", snap.value("visit_window"),
                                   None, 1, self.caller.assets[0].site, self.caller.subject,
                                   "confirmed", 1)
            self.book.append(record)
            self.actions[-1].status = "committed"
            self._emit("action_committed", op="create_booking", ref="BK-1")
            self._say(f"It is booked: {record.asset} on {record.date}, {record.window}.",
                      kind=SpeechKind.CONFIRMATION, record=(record.ref, record.version))
            self._emit("confirmation_spoken", ref="BK-1", version=1)
        else:
            self._say("Sorry, which day would suit you?")

    def barge_in(self) -> None:
        g = self.generations.invalidate()
        self._emit("generation_invalidated", reason="barge_in", invalidated=g)
        self.sink.invalidate(g, "barge_in")

    async def close(self) -> None:
        self.closed = True
        self._ledger.close()


@dataclass
class FakeWorld:
    conversation: FakeConversation
    faults: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    staff: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    closed: bool = False

    async def bookings(self) -> tuple[BookingRecord, ...]:
        return tuple(self.conversation.book)

    async def notifications(self) -> tuple[dict[str, object], ...]:
        return tuple({"kind": "confirmation", "booking": b.ref, "to": b.contact,
                      "text": f"Visit {b.date} {b.window}"} for b in self.conversation.book)

    def actions(self) -> tuple[FakeAction, ...]:
        return tuple(self.conversation.actions)

    def evidence(self) -> tuple[dict[str, object], ...]:
        return ()

    async def set_fault(self, op: str, fault: dict[str, object]) -> None:
        self.faults.append((op, fault))

    async def staff_edit(self, ref: str, changes: dict[str, object]) -> None:
        self.staff.append((ref, changes))

    def new_conversation(self, sink: SpeechSink, trace: Trace) -> FakeConversation:
        # Same "system of record" (the booking list), new conversation.
        return FakeConversation(trace, sink, self.conversation.caller, self.conversation.book)

    async def aclose(self) -> None:
        self.closed = True


async def build_fake_world(caller: CallerProfile, trace: Trace, sink: SpeechSink) -> FakeWorld:
    return FakeWorld(FakeConversation(trace, sink, caller, []))
