"""Trace events: every decision, with question, revision, generation, request and disposition.

Event names are public (past tense: things that happened). :data:`CATALOG` names every event
the code emits, with its meaning; ``docs/call-scripts.md`` renders it with each event's keys
(``python tools/trace_catalog.py --write``), and a test keeps the three in step.
Values of fields and raw utterances are hashed unless the trace was created with
``debug=True``, because traces reach logs and artifacts.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Every event name, with one line on what happened. Grouped by topic; TOPICS says which.
CATALOG: dict[str, str] = {
    # speech: the caller's turns and the agent's playback
    "user_turn_final": "The agent took one caller turn (a final transcript) and starts on it.",
    "user_turn_voiced": ("Audio mode: a spoken or typed turn ended and goes to the agent. "
                         "`text` is empty for an unheard turn: the caller made sound for at "
                         "least 0.7 s (VAD onset to stop) while the agent waited and the "
                         "recogniser heard no words; the agent asks again, and in a repair "
                         "it counts as a failed answer. `channel` is `voice`, `typed`, or "
                         "`silence` for a no-input turn: 7 s of the caller's audio with no "
                         "speech after a question (at most twice in a row), counted in "
                         "audio captured after the question finished, however far behind "
                         "the microphone a busy machine's pipeline runs."),
    "backchannel_ignored": "Audio mode: a short sound over agent speech (\"mm-hm\") was not a "
                           "turn; playback went on.",
    "agent_speech_started": "Speech of one generation began to play.",
    "agent_speech_stopped": "Speech of one generation stopped: it completed or was cut.",
    "generation_invalidated": "A response generation became stale; its queued and playing "
                              "speech is dropped.",
    "barge_in_paused": "Audio mode: the caller spoke over the agent, or was already in their "
                       "next turn when a reply began (caller_first), or caller audio captured "
                       "before the reply began had not been heard yet on a busy machine "
                       "(unheard_ms: how much; the reply waits for it); playback is held.",
    "barge_in_resumed": "Audio mode: the overlap was not a turn; held playback continues.",
    "backstop": "Audio mode: a bound kept for a stalled pipeline ended a wait that the audio's "
                "order should have ended (`which`: turn_hold, after `held_secs` of held caller "
                "audio, `idle_secs` of them with nothing being worked on: 5 s of those or 30 s in "
                "all; "
                "recogniser_reach, for `segment`, after 30 s; unheard_hold, a reply that "
                "waited `held_secs` for `unheard_secs` of caller audio to be heard). The call "
                "may have depended on "
                "the machine's speed.",
    "turn_latency": "Audio mode: milliseconds from the caller's last voiced frame to each "
                    "milestone of the answer: VAD stop, transcript, turn end (handed to the "
                    "agent), decision, first TTS audio, first output frame.",
    # ledger: what the caller's words changed
    "proposal": "What language understanding made of a turn, before the ledger changes.",
    "proposal_rejected": "A model's reading of a turn was refused (timeout, fault, not a "
                         "proposal, or a value the caller may not give); the rules' stands.",
    "field_accepted": "A new ledger revision: these fields got new values and versions.",
    "field_rejected": "A value was refused (a past date, another account) and not written; a "
                      "boundary crossed without a value names the field `identity`.",
    "field_unresolved": "A field was heard with several candidate values; none is kept yet "
                        "(a value held before is set aside until the caller says which).",
    "correction_duplicate": "The caller repeated values the ledger already holds; nothing "
                            "changed.",
    "question_started": "A new task began with a fresh ledger; results for the old one are "
                        "stale.",
    "query_invalidated": "A change made the pending answer's query stale; it is asked again.",
    # dialogue: what the agent asked or did with the conversation
    "confirmation_requested": "The agent asked the caller to confirm an action (its fields).",
    "clarification_requested": "The agent asked for a missing or unclear field.",
    "repair": "An answer did not resolve the agent's question; it asked another way "
              "(`step`: closed_choice, yes_no, rephrase, offer_handoff, retry, handoff).",
    "handoff": "The agent passed the call, with its open work, to a person.",
    "agent_error": "The agent failed on a turn or a background task; the caller was told.",
    # retrieval: evidence for answers
    "registry_resolved": "The registry decided which document revision applies (or that "
                         "none does).",
    "retrieval_started": "A search for evidence began, stamped with the revision it reads.",
    "retrieval_completed": "A search (or one streamed part of it) returned or timed out.",
    "retrieval_admitted": "The admission gate let search results in as evidence.",
    "retrieval_rejected": "The admission gate refused search results (stale or out of scope).",
    "answer_withheld": "An answer was not spoken: its evidence or its scope was no longer "
                       "current.",
    # actions: side effects in the booking system
    "action_proposed": "An action was drafted from the ledger (create, reschedule, cancel).",
    "action_dispatched": "An action passed the re-check and was sent to the booking system.",
    "dispatch_refused": "The re-check right before sending refused an action; nothing was "
                        "sent.",
    "action_committed": "The booking system confirmed the action; the record is known.",
    "commit_unverified": "The booking system reported success for a record that does not "
                         "match the action; the agent hands off.",
    "action_failed": "The booking system refused the action, or the agent gave it up.",
    "action_unknown": "The booking system did not answer; the outcome is being looked up.",
    "action_cancel_requested": "A correction met an action in flight; its cancellation was "
                               "requested.",
    "action_cancelled": "An action was cancelled: a draft dropped, or a request withdrawn.",
    "action_reconciled": "The agent looked up what really happened to an action (state).",
    "bookings_unread": "The booking system did not answer a read of the caller's bookings; "
                       "understanding used the list last read in this call (`known`: how "
                       "many bookings it held; null: none was read).",
    "decision": "A row of a decision table in agent/service/policy.py chose what happens next "
                "to an action: `table`, `row` (the row's stable id), `step`.",
    # spoken results: what the caller was told
    "confirmation_spoken": "The agent told the caller a result, rendered from a verified "
                           "record.",
    "answer_spoken": "The agent spoke an answer, with the revisions it cites.",
}
TOPICS: dict[str, tuple[str, ...]] = {
    "speech": ("user_turn_final", "user_turn_voiced", "backchannel_ignored",
               "agent_speech_started", "agent_speech_stopped", "generation_invalidated",
               "barge_in_paused", "barge_in_resumed", "turn_latency", "backstop"),
    "ledger": ("proposal", "proposal_rejected", "field_accepted", "field_rejected",
               "field_unresolved", "correction_duplicate", "question_started",
               "query_invalidated"),
    "dialogue": ("confirmation_requested", "clarification_requested", "repair", "handoff",
                 "agent_error"),
    "retrieval": ("registry_resolved", "retrieval_started", "retrieval_completed",
                  "retrieval_admitted", "retrieval_rejected", "answer_withheld"),
    "actions": ("action_proposed", "action_dispatched", "dispatch_refused", "action_committed",
                "commit_unverified", "action_failed", "action_unknown",
                "action_cancel_requested", "action_cancelled", "action_reconciled",
                "bookings_unread", "decision"),
    "spoken results": ("confirmation_spoken", "answer_spoken"),
}
# The names the first public version of the call-script contract promised. They are never
# renamed or dropped; the rest of CATALOG may gain keys like any event.
CORE = frozenset((
    "user_turn_final", "agent_speech_started", "agent_speech_stopped", "generation_invalidated",
    "barge_in_paused", "barge_in_resumed", "field_accepted", "field_rejected",
    "confirmation_requested", "clarification_requested", "handoff", "retrieval_started",
    "retrieval_completed", "retrieval_admitted", "retrieval_rejected", "action_proposed",
    "action_dispatched", "action_committed", "action_cancelled", "action_reconciled",
    "confirmation_spoken", "answer_spoken"))
VOCABULARY = frozenset(CATALOG)  # every name a script's `after: {event: ...}` may wait for


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
