"""Response generations and speech plans: what the agent means to say, stamped.

Every planned response gets a new generation id. A barge-in, a correction, or a result that
changes the answer invalidates the current generation; audio of an invalidated generation must
never reach the caller, wherever it is queued (TTS, transport buffer, browser playback).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from agent.core.gate import Stamp


class SpeechKind(StrEnum):
    QUESTION = "question"  # asks the caller for something (slot, clarification, confirmation)
    CONFIRMATION = "confirmation"  # claims a side effect: rendered from a verified record only
    PENDING = "pending"  # work requested, not verified ("I've requested ...")
    ANSWER = "answer"  # maintenance or policy answer from an evidence bundle
    INFO = "info"  # anything else (greeting, refusal, handoff notice)
    WAITING = "waiting"  # truthful filler while work is in flight


@dataclass(frozen=True, slots=True)
class Utterance:
    """A final user turn. Interim transcripts never become one.

    ``words``, ``no_speech`` and ``answer`` are what a recogniser knows beyond the text: each
    word as heard with its probability, in order, the probability that there was no speech at
    all, and how surely an opening yes or no was told apart from the other answer. A typed or
    text-mode turn, or a recogniser without that detail, leaves them empty, and trust rests on
    ``confidence`` alone (:mod:`agent.understanding.trust`)."""

    text: str
    confidence: float = 1.0
    alternatives: tuple[str, ...] = ()
    id: str = ""
    words: tuple[tuple[str, float], ...] = ()
    no_speech: float = 0.0
    # A turn that opens with "yes" or "no": how surely the recogniser told that answer apart
    # from the other one (its share of both answers' probability at the turn's start); None
    # for any other turn, and from a recogniser without that detail.
    answer: float | None = None


@dataclass(frozen=True, slots=True)
class SpeechPlan:
    """One response generation. Sentences are short; the first one shortest (fast first audio)."""

    generation: int
    question: str
    revision: int
    sentences: tuple[str, ...]
    kind: SpeechKind = SpeechKind.INFO
    # CONFIRMATION: the (booking ref, version) the sentence was rendered from
    record: tuple[str, int] | None = None
    citations: tuple[str, ...] = ()  # ANSWER: revision ids
    outcome: str | None = None  # ANSWER: registry outcome
    stamp: Stamp | None = None  # what the response depends on

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


class SpeechSink(Protocol):
    """Where plans go to be spoken: the audio pipeline, the text-mode player, the terminal."""

    def speak(self, plan: SpeechPlan) -> None:
        """Queue ``plan`` for playback. Must not block."""

    def invalidate(self, generation: int, reason: str) -> None:
        """Drop everything queued or playing of ``generation`` and older, at once."""


@dataclass
class Generations:
    """Allocates generation ids and remembers which is current. The controller owns one."""

    current: int = 0
    invalidated: set[int] = field(default_factory=set)

    def next(self) -> int:
        """A new generation; the previous one is superseded (side effect: becomes current)."""
        self.invalidated.add(self.current)
        self.current += 1
        return self.current

    def invalidate(self) -> int:
        """Mark the current generation stale; returns its id."""
        self.invalidated.add(self.current)
        return self.current

    def is_live(self, generation: int) -> bool:
        return generation == self.current and generation not in self.invalidated
