"""The generation gate: the last processor before ``transport.output()``.

It is the caller's playout buffer. Audio arrives from the TTS (much faster than real time),
waits here tagged with its generation, and is released at real-time pace with a small lead,
so that the transport never holds more than a few tens of milliseconds. That is what makes
three things exact:

* **invalidation** (barge-in, correction, controller decision): everything of generation N
  and older is dropped here; audio of those generations that arrives later (a Piper thread
  finishing late) is dropped on arrival; the transport's queue is cleared with an
  ``InterruptionFrame``, and clients are told ``{"type": "clear", "generation": N}``;
* **pause / resume** at barge-in onset: release stops at once and resumes the same generation;
* **timing**: the gate knows when each generation's first frame left for the caller.

The ``no_audio_flush`` agent fault turns the dropping and flushing off (known-answer control:
the stale-audio oracle must then fail).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InterruptionFrame,
    OutputAudioRawFrame,
    OutputTransportMessageUrgentFrame,
    StartFrame,
    TTSAudioRawFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from audio.frames import (
    UNSTAMPED,
    GenerationAudio,
    generation_of_audio,
    generation_of_context,
    sentence_of_context,
    stamp_audio,
)


class Playout(StrEnum):
    IDLE = "idle"  # nothing queued
    PLAYING = "playing"  # releasing audio
    PAUSED = "paused"  # barge-in onset: holding audio of a live generation


@dataclass(frozen=True, slots=True)
class GateEvent:
    """Something the gate did, for the call's trace. ``t`` is ``time.monotonic()``."""

    name: str  # agent_speech_started | agent_speech_stopped | generation_invalidated |
    #            barge_in_paused | barge_in_resumed | tts_first_audio
    generation: int
    t: float
    data: tuple[tuple[str, Any], ...] = ()  # trace data, as in a TraceEvent


@dataclass
class GateCounters:
    released_frames: int = 0
    dropped_frames: int = 0  # stale audio dropped (queued or arriving late)
    released_by_generation: dict[int, float] = field(default_factory=dict)  # seconds released


class GenerationGate(FrameProcessor):
    """Drops audio of invalidated generations; paces, pauses and clears the rest.

    ``invalidate``/``pause``/``resume`` are synchronous (the controller's SpeechSink and the
    barge-in logic call them) and take effect before the next frame is released.
    """

    def __init__(self, *, flush: bool = True, pace: bool = True, lead_secs: float = 0.04,
                 on_event: Callable[[GateEvent], None] | None = None, **kwargs):
        super().__init__(**kwargs)
        self._flush = flush
        self._pace = pace
        self._lead = lead_secs
        self._listeners: list[Callable[[GateEvent], None]] = [on_event] if on_event else []
        self.floor = 0  # every generation <= floor is stale
        self.latest = 0  # newest generation seen
        self.counters = GateCounters()
        self._queue: deque[Frame] = deque()
        # The generation output is held on (None: not paused), as the client was told: its
        # resume must name the same one. A reply held before its first audio names itself,
        # while ``latest`` is still the last one heard from the TTS (a resume naming that one
        # left the page holding the reply, and every later one queued behind it, for the rest
        # of the call).
        self._held: int | None = None
        self._wake = asyncio.Event()
        self._pending_controls: deque[Frame] = deque()
        self._release_task: asyncio.Task | None = None
        self._playing: int | None = None  # generation whose audio is being released
        self._clock_end = 0.0  # monotonic time the released audio finishes playing
        self._heard_from: set[int] = set()  # generations whose first TTS audio arrived
        self._unspoken: dict[int, int] = {}  # generation -> sentences not yet synthesised
        self.synthesised_secs: dict[tuple[int, int], float] = {}  # (gen, sentence) -> seconds
        self.synthesised: set[tuple[int, int]] = set()  # sentences whose TTS finished
        self._synthesising: set[tuple[int, int]] = set()  # TTS started, not yet stopped
        self._last_admit = 0.0

    # -- decisions (synchronous) ---------------------------------------------------------

    def disable_flush(self) -> None:
        """The no_audio_flush agent fault (known-answer control, test runs only)."""
        self._flush = False

    def is_stale(self, generation: int) -> bool:
        return generation != UNSTAMPED and generation <= self.floor

    def invalidate(self, generation: int, reason: str) -> None:
        """Make ``generation`` and older stale (side effects: drops queued audio, schedules the
        transport flush and the client ``clear`` message, emits ``generation_invalidated``)."""
        if generation <= self.floor:
            return
        self.floor = generation
        self._synthesising = {k for k in self._synthesising if not self.is_stale(k[0])}
        self._emit("generation_invalidated", generation, reason=reason)
        held, self._held = self._held, None
        if not self._flush:  # no_audio_flush fault: stale audio keeps playing
            if held is not None:
                self._release_hold(held)
            self._wake.set()
            return
        before = len(self._queue)
        self._queue = deque(f for f in self._queue if not self._stale_frame(f))
        self.counters.dropped_frames += before - len(self._queue)
        self._pending_controls.append(InterruptionFrame())
        self._pending_controls.append(_control("clear", generation))
        if self._playing is not None and self._playing <= generation:
            self._stopped(self._playing, cut=True)
        if held is not None and not self.is_stale(held):
            self._release_hold(held)  # an older one was invalidated: the held one plays on
        self._wake.set()

    def _release_hold(self, held: int) -> None:
        """The output no longer holds ``held``: tell the client, which holds by generation."""
        self._pending_controls.append(_control("resume", held))
        self._emit("barge_in_resumed", held)

    def pause(self, generation: int | None = None, **data: object) -> bool:
        """Hold output at once (barge-in onset). Returns False if nothing was playing.
        ``generation``: the one held (default: the one playing, else the newest seen; a reply
        held before its first audio names its own). ``data`` goes with ``barge_in_paused``."""
        if self._held is not None or not self.speaking:
            return False
        if generation is None:
            generation = self._playing if self._playing is not None else self.latest
        self._held = generation
        self._pending_controls.append(_control("pause", generation))
        self._emit("barge_in_paused", generation, **data)
        self._wake.set()
        return True

    def resume(self) -> None:
        """Continue the held generation (a backchannel or noise, not a real turn)."""
        held, self._held = self._held, None
        if held is None:
            return
        self._release_hold(held)
        self._wake.set()

    @property
    def paused(self) -> bool:
        return self._held is not None

    def expect(self, generation: int, sentences: int) -> None:
        """``generation`` will bring ``sentences`` TTS contexts: the agent keeps "speaking"
        through the gaps between them (no false stop/start, no caller turn in the gap)."""
        if not self.is_stale(generation) and sentences > 0:
            self._unspoken[generation] = sentences
            self._last_admit = time.monotonic()

    def _awaiting_sentences(self) -> bool:
        """A live generation has sentences still to come: one the TTS is synthesising now
        (its start frame came, its stop frame not yet: however long a busy machine takes,
        the TTS sends that stop, failure or not), or one not started within 3 s of the last
        frame admitted or of the end of the audio playing then, whichever is later (a TTS that
        never took the sentence: the bound on a wait that would otherwise never end).

        From the end of the audio too: Piper hands over a whole sentence at once, so a first
        sentence is admitted in full and then plays for seconds. On a busy machine the second
        sentence's start came after those 3 s, and the gate had already said the agent stopped
        speaking: a scripted caller answered into the gap, over the rest of the greeting (a
        blind audio round, 2026-12-06: the greeting's first sentence stopped "completed", the
        second started 1.4 s later and was cut by the caller's turn)."""
        live = {g for g, n in self._unspoken.items() if n > 0 and not self.is_stale(g)}
        if not live:
            return False
        if any(g in live for g, _ in self._synthesising):
            return True
        return time.monotonic() - max(self._last_admit, self._clock_end) < 3.0

    @property
    def speaking(self) -> bool:
        """Audio is queued here, still playing at the caller, or still being synthesised."""
        return bool(self._queue) or self._playing is not None or \
            time.monotonic() < self._clock_end or self._awaiting_sentences()

    @property
    def state(self) -> Playout:
        if self.paused:
            return Playout.PAUSED
        return Playout.PLAYING if self.speaking else Playout.IDLE

    # -- frames ----------------------------------------------------------------------------

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if direction != FrameDirection.DOWNSTREAM:
            await self.push_frame(frame, direction)
            return
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._release_task = self.create_task(self._release_loop(), "generation_gate")
            return
        if isinstance(frame, EndFrame) and self._release_task is not None:
            self._queue.append(frame)  # after the audio still queued: let it play out
            self._wake.set()
            return
        if isinstance(frame, (EndFrame, CancelFrame)):
            await self._stop_release()
            await self.push_frame(frame, direction)
            return
        if isinstance(frame, InterruptionFrame):
            # An upstream interruption is not an invalidation: generations are ours to decide.
            await self.push_frame(frame, direction)
            return
        if isinstance(frame, (TTSAudioRawFrame, TTSStartedFrame, TTSStoppedFrame)) or \
                isinstance(frame, OutputAudioRawFrame):
            self._admit(frame)
            return
        await self.push_frame(frame, direction)

    def _admit(self, frame: Frame) -> None:
        generation = self._generation(frame)
        if generation != UNSTAMPED:
            self.latest = max(self.latest, generation)
        self._last_admit = time.monotonic()
        if isinstance(frame, TTSStartedFrame) and not self.is_stale(generation):
            self._synthesising.add((generation, sentence_of_context(frame.context_id)))
        if isinstance(frame, TTSStoppedFrame):
            self._synthesising.discard((generation, sentence_of_context(frame.context_id)))
            self.synthesised.add((generation, sentence_of_context(frame.context_id)))
            if self._unspoken.get(generation, 0) > 0:
                self._unspoken[generation] -= 1
        if self._flush and self.is_stale(generation):
            if isinstance(frame, OutputAudioRawFrame):
                self.counters.dropped_frames += 1
            return
        if isinstance(frame, OutputAudioRawFrame):
            stamped = generation if generation != UNSTAMPED else self.latest
            if stamped not in self._heard_from:
                self._heard_from.add(stamped)
                self._emit("tts_first_audio", stamped)
            key = (stamped, stamp_audio(frame, stamped, b"").sentence)
            self.synthesised_secs[key] = self.synthesised_secs.get(key, 0.0) + \
                len(frame.audio) / (2 * frame.num_channels * frame.sample_rate)
            # Piper hands over a whole sentence at once: cut it into 20 ms pieces, so that
            # pacing, pausing and dropping work at 20 ms, not at sentence, granularity.
            step = 2 * frame.num_channels * frame.sample_rate // 50
            for i in range(0, len(frame.audio), step):
                self._queue.append(stamp_audio(frame, stamped, frame.audio[i:i + step]))
        else:
            self._queue.append(frame)
        self._wake.set()

    def _generation(self, frame: Frame) -> int:
        if isinstance(frame, OutputAudioRawFrame):
            return generation_of_audio(frame)
        return generation_of_context(getattr(frame, "context_id", None))

    def _stale_frame(self, frame: Frame) -> bool:
        return self.is_stale(self._generation(frame))

    async def _release_loop(self) -> None:
        while True:
            while self._pending_controls:
                await self.push_frame(self._pending_controls.popleft())
            if self.paused or not self._queue:
                if not self._queue and self._playing is not None and not self.paused:
                    await self._wait(max(0.0, self._clock_end - time.monotonic()))
                    if not self._queue and not self._pending_controls and \
                            self._playing is not None and time.monotonic() >= self._clock_end:
                        if self._awaiting_sentences():
                            await self._wait(0.05)  # the next sentence is being synthesised
                            continue
                        self._stopped(self._playing, cut=False)
                    continue
                self._wake.clear()
                await self._wake.wait()
                continue
            frame = self._queue[0]
            if isinstance(frame, OutputAudioRawFrame) and self._pace:
                ahead = self._clock_end - time.monotonic() - self._lead
                if ahead > 0:
                    await self._wait(ahead)
                    continue  # re-check: a pause or invalidation may have come meanwhile
            self._queue.popleft()
            if isinstance(frame, EndFrame):
                if self._playing is not None:
                    self._stopped(self._playing, cut=False)
                await self.push_frame(frame)
                return
            if self._flush and self._stale_frame(frame):
                continue
            await self._release(frame)

    async def _release(self, frame: Frame) -> None:
        if isinstance(frame, GenerationAudio):  # all queued audio was stamped in _admit
            generation = type(frame).generation
            if self._playing != generation:
                if self._playing is not None:
                    self._stopped(self._playing, cut=False)
                self._playing = generation
                self._emit("agent_speech_started", generation)
            seconds = len(frame.audio) / (2 * frame.num_channels * frame.sample_rate)
            now = time.monotonic()
            self._clock_end = max(self._clock_end, now) + seconds
            self.counters.released_frames += 1
            by_gen = self.counters.released_by_generation
            by_gen[generation] = by_gen.get(generation, 0.0) + seconds
        await self.push_frame(frame)

    def _stopped(self, generation: int, *, cut: bool) -> None:
        self._playing = None
        self._emit("agent_speech_stopped", generation, reason="cut" if cut else "completed")
        if cut:
            self._clock_end = time.monotonic()

    async def _wait(self, seconds: float) -> None:
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)
        except TimeoutError:
            pass

    async def _stop_release(self) -> None:
        if self._release_task is not None:
            await self.cancel_task(self._release_task)
            self._release_task = None

    async def cleanup(self):
        await self._stop_release()
        await super().cleanup()

    def add_listener(self, listener: Callable[[GateEvent], None]) -> None:
        """Call ``listener`` synchronously for every gate event (side effect: registers it)."""
        self._listeners.append(listener)

    def _emit(self, name: str, generation: int, **data: object) -> None:
        event = GateEvent(name, generation, time.monotonic(), tuple(data.items()))
        for listener in tuple(self._listeners):
            listener(event)


def _control(kind: str, generation: int) -> OutputTransportMessageUrgentFrame:
    """A client playback control message (see ``audio/browser.py`` for the protocol)."""
    return OutputTransportMessageUrgentFrame(message={"type": kind, "generation": generation})
