"""The scripted caller: a pipecat transport that plays WAVs in and records what is heard.

* Input: a continuous 20 ms frame stream at real-time pace, like a microphone: silence,
  except while :meth:`ScriptedCaller.say` is playing caller audio (any WAV, made 16 kHz mono
  by :mod:`audio.wav_input`). Caller audio starts on the stream's :data:`TURN_GRID`, so the
  VAD's windows fall on the same samples of it in every run (see there).
* Output: a simulated playback device. Each chunk written by the output transport is
  scheduled right after the previous one; a flush (``InterruptionFrame``) removes what was
  scheduled but not yet played and cuts the chunk playing now. Every played chunk is kept
  with its start time and generation: that is what the caller heard (``heard_seconds``,
  ``write_wav``), and what the stale-audio invariant is checked against.
"""

from __future__ import annotations

import asyncio
import math
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
    OutputTransportMessageFrame,
    OutputTransportMessageUrgentFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.transports.base_input import BaseInputTransport
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import BaseTransport, TransportParams

from audio.frames import CLIP_END_KEY, UNSTAMPED, GenerationAudio, stamp_captured
from audio.wav_input import FRAME, RATE, CallerAudio, last_voiced_offset, to_pcm16

# Frames of the stream between the starts of caller audio: the first sample of a turn is a
# multiple of both the frame and Silero's 512-sample window (at 16 kHz) into the stream, 160
# ms. When a turn starts is up to the script's triggers, which fire on a busy machine later;
# started anywhere on the frame grid, the same WAV met the VAD's windows at another offset,
# its segments ended a frame or two apart, and Whisper, given 40 ms more or less, heard other
# words ("we need a lot of money" and "we'd not mind it" for the same turn). On the grid, the
# same audio is cut into the same segments however late the turn began.
TURN_GRID = math.lcm(FRAME, 512) // FRAME


@dataclass
class PlayedChunk:
    start: float  # monotonic time the chunk starts playing
    generation: int
    sentence: int
    samples: np.ndarray  # int16 at the output rate (shortened if cut)
    rate: int

    @property
    def end(self) -> float:
        return self.start + self.samples.size / self.rate


@dataclass(frozen=True, slots=True)
class SaidTurn:
    onset: float  # monotonic time the first caller sample was fed
    end: float  # ... the last
    # ... the frame holding the last voiced sample (a microphone delivers a frame once its
    # last sample is in, so this is when the caller's voice ended, as the pipeline hears it)
    last_voiced: float | None
    # the clip's number in this call (1, 2, ...): its last frame carries it (CLIP_END_KEY)
    number: int = 0


@dataclass
class Recording:
    """Everything the simulated device played, plus the control messages clients would get."""

    chunks: list[PlayedChunk] = field(default_factory=list)
    controls: list[tuple[float, dict]] = field(default_factory=list)
    flushes: list[float] = field(default_factory=list)
    said: list[SaidTurn] = field(default_factory=list)
    received: dict[int, float] = field(default_factory=dict)  # generation -> seconds written
    play_end: float = 0.0  # monotonic time the audio scheduled so far stops playing

    def playing(self) -> bool:
        """The device still has audio to play (scheduled, not yet played out)."""
        return time.monotonic() < self.play_end

    def played(self, until: float | None = None) -> list[PlayedChunk]:
        until = time.monotonic() if until is None else until
        return [c for c in self.chunks if c.start <= until]

    def heard_seconds(self) -> dict[tuple[int, int], float]:
        """Seconds played per (generation, sentence), up to now."""
        now = time.monotonic()
        out: dict[tuple[int, int], float] = {}
        for c in self.played(now):
            key = (c.generation, c.sentence)
            out[key] = out.get(key, 0.0) + min(c.end, now) - c.start
        return out

    def first_output_after(self, t: float, *, newer_than: int = UNSTAMPED) -> PlayedChunk | None:
        for c in self.chunks:
            if c.start >= t and c.generation > newer_than and np.any(c.samples):
                return c
        return None

    def write_wav(self, path: str | Path, t0: float) -> None:
        """The output timeline since ``t0`` as a mono PCM16 WAV (silence between chunks)."""
        chunks = self.played()
        rate = chunks[0].rate if chunks else RATE
        end = max((c.end for c in chunks), default=t0)
        out = np.zeros(int((end - t0) * rate) + 1, dtype=np.int16)
        for c in chunks:
            i = max(0, int(round((c.start - t0) * rate)))
            piece = c.samples[: max(0, out.size - i)]
            out[i:i + piece.size] = piece
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(out.tobytes())


class ScriptedInput(BaseInputTransport):
    """A microphone that plays queued caller audio, else silence, 20 ms at a time."""

    def __init__(self, params: TransportParams, recording: Recording, **kwargs):
        super().__init__(params, **kwargs)
        self._recording = recording
        self._pending: asyncio.Queue[tuple[np.ndarray, asyncio.Future]] = asyncio.Queue()
        self._mic_task: asyncio.Task | None = None
        self._clips = 0  # clips played so far (SaidTurn.number)

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)
        if self._mic_task is None:
            self._mic_task = self.create_task(self._mic(), "scripted_mic")

    async def stop(self, frame):
        await self._stop_mic()
        await super().stop(frame)

    async def cancel(self, frame):
        await self._stop_mic()
        await super().cancel(frame)

    async def _stop_mic(self):
        if self._mic_task is not None:
            await self.cancel_task(self._mic_task)
            self._mic_task = None

    async def say(self, audio: CallerAudio) -> SaidTurn:
        """Play ``audio`` into the pipeline at real-time pace; returns when it has been fed."""
        done: asyncio.Future = asyncio.get_running_loop().create_future()
        await self._pending.put((audio.samples, done))
        return await done

    async def _mic(self) -> None:
        silence = bytes(FRAME * 2)
        start, n = time.monotonic(), 0
        current: tuple[np.ndarray, asyncio.Future] | None = None
        pos, onset = 0, 0.0
        voiced_end: float | None = None  # the clip's last voiced sample (an offset)
        last_voiced: float | None = None  # when the frame that holds it was fed
        while True:
            if current is None and n % TURN_GRID == 0 and not self._pending.empty():
                current, pos, onset = self._pending.get_nowait(), 0, time.monotonic()
                voiced_end, last_voiced = last_voiced_offset(current[0]), None
            said: SaidTurn | None = None
            if current is not None:
                samples, done = current
                chunk = samples[pos:pos + FRAME]
                audio = to_pcm16(np.pad(chunk, (0, FRAME - chunk.size)))
                pos += FRAME
                if voiced_end is not None and last_voiced is None and pos >= voiced_end * RATE:
                    # when it was fed, not onset + its offset: a loop that fell behind feeds
                    # the frames after in a burst, earlier than the offset says
                    last_voiced = time.monotonic()
                if pos >= samples.size:
                    self._clips += 1
                    said = SaidTurn(onset, time.monotonic() + 0.02, last_voiced, self._clips)
                    self._recording.said.append(said)
                    current = None
            else:
                audio = silence
            frame = stamp_captured(InputAudioRawFrame(audio, RATE, 1), time.monotonic())
            if said is not None:
                frame.metadata[CLIP_END_KEY] = said.number
            await self.push_audio_frame(frame)
            if said is not None and not done.done():
                done.set_result(said)
            n += 1
            await asyncio.sleep(max(0.0, start + n * 0.02 - time.monotonic()))  # real-time pace


class ScriptedOutput(BaseOutputTransport):
    """A playback device: schedules chunks back to back, records what actually played."""

    def __init__(self, params: TransportParams, recording: Recording, **kwargs):
        super().__init__(params, **kwargs)
        self._recording = recording

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        samples = np.frombuffer(frame.audio, dtype=np.int16).copy()
        generation = type(frame).generation if isinstance(frame, GenerationAudio) else UNSTAMPED
        sentence = type(frame).sentence if isinstance(frame, GenerationAudio) else 0
        rec = self._recording
        start = max(time.monotonic(), rec.play_end)
        chunk = PlayedChunk(start, generation, sentence, samples, frame.sample_rate)
        rec.play_end = chunk.end
        rec.chunks.append(chunk)
        rec.received[generation] = rec.received.get(generation, 0.0) + \
            samples.size / frame.sample_rate
        return True

    async def send_message(self, frame: OutputTransportMessageFrame |
                           OutputTransportMessageUrgentFrame):
        if isinstance(frame.message, dict):
            self._recording.controls.append((time.monotonic(), dict(frame.message)))

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, InterruptionFrame):
            self._flush_device()
        await super().process_frame(frame, direction)

    def _flush_device(self) -> None:
        """Drop what was scheduled but not played; cut the chunk playing now."""
        now = time.monotonic()
        kept = []
        for c in self._recording.chunks:
            if c.start >= now:
                continue
            if c.end > now:
                c.samples = c.samples[: int((now - c.start) * c.rate)]
            kept.append(c)
        self._recording.chunks[:] = kept
        self._recording.flushes.append(now)
        self._recording.play_end = now


class ScriptedCaller(BaseTransport):
    """Transport pair for scripted calls and tests. ``recording`` is what the caller heard."""

    def __init__(self, *, out_rate: int = 24000, **kwargs):
        super().__init__(**kwargs)
        self.recording = Recording()
        self.t0 = time.monotonic()
        params = TransportParams(audio_in_enabled=True, audio_in_sample_rate=RATE,
                                 audio_out_enabled=True, audio_out_sample_rate=out_rate,
                                 audio_out_end_silence_secs=0)
        self._input = ScriptedInput(params, self.recording, name="scripted-in")
        self._output = ScriptedOutput(params, self.recording, name="scripted-out")

    def input(self) -> ScriptedInput:
        return self._input

    def output(self) -> ScriptedOutput:
        return self._output

    async def say(self, audio: CallerAudio) -> SaidTurn:
        return await self._input.say(audio)
