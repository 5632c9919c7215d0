"""Trace events: every decision, with question, revision, generation, request and disposition.

Event names are the public vocabulary of CALL_SCRIPTS.md (past tense: things that happened).
Values of fields and raw utterances are hashed unless the trace was created with
``debug=True``, because traces reach logs and artifacts.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SPEECH = ("user_turn_final", "agent_speech_started", "agent_speech_stopped",
          "generation_invalidated", "barge_in_paused", "barge_in_resumed")
LEDGER = ("field_accepted", "field_rejected")
DIALOGUE = ("confirmation_requested", "clarification_requested", "handoff")
RETRIEVAL = ("retrieval_started", "retrieval_completed", "retrieval_admitted",
             "retrieval_rejected")
ACTIONS = ("action_proposed", "action_dispatched", "action_committed", "action_cancelled",
           "action_reconciled")
SPOKEN = ("confirmation_spoken", "answer_spoken")
VOCABULARY = frozenset(SPEECH + LEDGER + DIALOGUE + RETRIEVAL + ACTIONS + SPOKEN)


def redact(value: object) -> str:
    """A short stable digest standing in for a private value."""
    digest = hashlib.sha256(str(value).encode()).hexdigest()[:12]
    return f"sha256:{digest}"


@dataclass(frozen=True, slots=True)
class TraceEvent:
    name: str
    t: float
    question: str
    revision: int
    generation: int
    request: str | None = None
    disposition: str | None = None
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.data).get(key, default)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.name, "t": round(self.t, 4),
                               "question": self.question, "revision": self.revision,
                               "generation": self.generation}
        if self.request is not None:
            out["request"] = self.request
        if self.disposition is not None:
            out["disposition"] = self.disposition
        for key, value in self.data:
            out[key] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass
class Trace:
    """An append-only event log with listeners. ``clock`` returns seconds since call start."""

    debug: bool = False
    clock: Callable[[], float] = field(default_factory=lambda: _since(time.monotonic()))
    events: list[TraceEvent] = field(default_factory=list)
    listeners: list[Callable[[TraceEvent], None]] = field(default_factory=list)

    def private(self, value: object) -> object:
        """The value itself under debug, else its digest. Use for field values and utterances."""
        if value is None or self.debug:
            return value
        return redact(value)

    def emit(self, name: str, *, question: str, revision: int, generation: int,
             request: str | None = None, disposition: str | None = None,
             **data: Any) -> TraceEvent:
        """Append an event and tell every listener (side effect: listeners run synchronously)."""
        frozen = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items())
        event = TraceEvent(name, self.clock(), question, revision, generation, request,
                           disposition, frozen)
        self.events.append(event)
        for listener in tuple(self.listeners):
            listener(event)
        return event

    def named(self, name: str) -> list[TraceEvent]:
        return [e for e in self.events if e.name == name]


def _since(start: float) -> Callable[[], float]:
    return lambda: time.monotonic() - start
