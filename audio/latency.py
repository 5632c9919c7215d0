"""Per-turn latency milestones, measured on the monotonic clock and put on the trace.

Zero is the caller's last voiced input frame (a typed turn: the moment it arrived). The
milestones follow one turn through the pipeline, in the order they normally happen: VAD stop
(the first silence the VAD is sure of; the speculative transcription starts here), final
transcript, end of turn (the turn handed to the controller), controller decision (the first
plan of a newer generation), first TTS audio of that generation, first output frame.

The benchmark (``audio/bench_v2v.py``) splits voice-to-voice into stages between consecutive
milestones; ``turn_latency`` puts the same milestones on the trace, in ms after zero.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TypedDict

from agent.core.trace import Trace


class Milestones(TypedDict):
    """The ``turn_latency`` data of one turn: ms after zero (None: not reached)."""

    transcript_ms: float | None
    decision_ms: float | None
    first_tts_audio_ms: float | None
    first_output_ms: float | None
    vad_stop_ms: float | None
    turn_end_ms: float | None


@dataclass
class TurnTiming:
    """Monotonic timestamps of one turn (None: not reached)."""

    zero: float  # last voiced frame, or arrival of a typed turn
    transcript: float | None
    after_generation: int  # the generation playing/queued when the turn ended
    generation: int | None = None  # the answer's generation, once decided
    decision: float | None = None
    first_tts_audio: float | None = None
    first_output: float | None = None
    vad_stop: float | None = None  # the last VAD stop before the turn ended (voice only)
    ended: float | None = None  # the turn was handed to the controller

    def ms(self) -> Milestones:
        def rel(t: float | None) -> float | None:
            return None if t is None else round((t - self.zero) * 1000, 1)
        return {"transcript_ms": rel(self.transcript), "decision_ms": rel(self.decision),
                "first_tts_audio_ms": rel(self.first_tts_audio),
                "first_output_ms": rel(self.first_output),
                "vad_stop_ms": rel(self.vad_stop), "turn_end_ms": rel(self.ended)}


class TurnClock:
    """Collects :class:`TurnTiming` rows; emits ``turn_latency`` when a turn's answer plays."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.turns: list[TurnTiming] = []
        self._open: TurnTiming | None = None
        self._last_transcript: float | None = None
        self._last_vad_stop: float | None = None

    def trace_t(self, monotonic: float | None) -> float | None:
        """A monotonic timestamp on the trace's clock (seconds since call start)."""
        if monotonic is None:
            return None
        return round(self.trace.clock() - (time.monotonic() - monotonic), 4)

    def transcribed(self) -> None:
        self._last_transcript = time.monotonic()

    def vad_stopped(self) -> None:
        """The VAD reported the caller stopped (a pause, maybe not the end of the turn)."""
        self._last_vad_stop = time.monotonic()

    def turn(self, last_voiced: float | None, after_generation: int) -> None:
        now = time.monotonic()
        zero = last_voiced if last_voiced is not None else now
        voiced = last_voiced is not None
        transcript = self._last_transcript if voiced else None
        vad_stop = self._last_vad_stop if voiced else None
        self._last_vad_stop = None  # a stop belongs to one turn
        self._open = TurnTiming(zero, transcript, after_generation, vad_stop=vad_stop, ended=now)
        self.turns.append(self._open)

    def decided(self, generation: int) -> None:
        turn = self._open
        if turn is not None and turn.decision is None and generation > turn.after_generation:
            turn.generation, turn.decision = generation, time.monotonic()

    def first_tts_audio(self, generation: int, t: float) -> None:
        if self._open is not None and self._open.generation == generation:
            self._open.first_tts_audio = t

    def first_output(self, generation: int, t: float) -> None:
        turn = self._open
        if turn is None or turn.generation != generation:
            return
        turn.first_output = t
        self._open = None
        self.trace.emit("turn_latency", question="", revision=-1, generation=generation,
                        **turn.ms())
