"""The caller's clock: audio time, timers in it, and what the adapter measures on it.

Timers of the controller adapter run in audio time (seconds of caller frames,
:class:`~audio.turns.AudioClock`), never on the wall clock: on a busy machine frames arrive
late and in bursts, and a wall-clock timer would fire before the audio it is waiting for was
even looked at (``audio/turns.py``). Three things are measured here, for the turn intake
(:mod:`audio.turn_intake`) and the barge-in control (:mod:`audio.barge_in_control`):

* :class:`CallerVoice`: the caller's voice level per frame: when the voice was last heard
  (the zero of a turn's latency), when the current voiced run began (the onset of speech
  over the agent), and a run of loud frames (an onset before the VAD is sure);
* :class:`Recogniser`: whether the recogniser still has something of the caller's (a
  segment queued or being recognised, or a transcript on its way to the adapter);
* :class:`AudioTimer`: a one-shot timer that fires after so much caller audio, or when the
  recogniser next settles; :class:`Timers` makes them for one call.

Pure bookkeeping over plain values: no pipecat frame is read here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

import numpy as np

from audio.services import SharedWhisperSTT
from audio.turns import AudioClock

VOICED_RMS = 10 ** (-45 / 20)  # a frame louder than -45 dBFS counts as voiced
# Barge-in onset before the VAD is sure: this many 20 ms frames in a row louder than ONSET_RMS
# over agent speech pause it at once (the VAD needs ~250 ms: start_secs, its volume gate and
# its windows). A pause is reversible (audio.barge_in_control.EARLY_RESUME_SECS).
ONSET_RMS = 10 ** (-35 / 20)
ONSET_FRAMES = 3

Spawn = Callable[[Coroutine[Any, Any, None], str], asyncio.Task]  # FrameProcessor.create_task


class CallerVoice:
    """The caller's voice level, frame by frame, on the monotonic clock."""

    def __init__(self) -> None:
        self.last_voiced: float | None = None  # the last voiced frame
        self._run_start = 0.0  # first voiced frame after a silence: speech onset
        self._loud_run = 0  # consecutive frames louder than ONSET_RMS

    def hear(self, audio: bytes) -> bool:
        """Note one frame of 16-bit caller audio. True when it completes a run of
        ONSET_FRAMES loud frames: speech may have begun, before the VAD is sure."""
        samples = np.frombuffer(audio[: len(audio) // 2 * 2], dtype=np.int16)
        rms = float(np.sqrt(np.mean((samples / 32768.0) ** 2))) if samples.size else 0.0
        if rms > VOICED_RMS:
            now = time.monotonic()
            if self.last_voiced is None or now - self.last_voiced > 0.3:
                self._run_start = now
            self.last_voiced = now
        self._loud_run = self._loud_run + 1 if rms > ONSET_RMS else 0
        return self._loud_run == ONSET_FRAMES

    def onset(self) -> float:
        """When the speech now starting began: the first voiced frame of this run if it is
        recent (the VAD needs start_secs to be sure), else now."""
        now = time.monotonic()
        return self._run_start if now - self._run_start < 1.0 else now


class Recogniser:
    """How far the recogniser has got with the caller's audio, as this adapter sees it: by
    segment number (:mod:`audio.frames`), from the VAD stops and the
    :class:`~audio.frames.SegmentHeardFrame` s that reach the adapter."""

    def __init__(self, stt: SharedWhisperSTT | None):
        self.stt = stt
        self.awaited = 0  # the segment the latest VAD stop here carried
        self.heard = 0  # the last segment whose answers all reached the adapter
        self.listeners: list[Callable[[], None]] = []  # called as each segment is heard
        self._settled = asyncio.Event()

    def transcript_arrived(self) -> None:
        self._settled.set()

    def stop_taken(self, segment: int) -> None:
        self.awaited = max(self.awaited, segment)

    def segment_heard(self, segment: int) -> None:
        self.heard = max(self.heard, segment)
        self._settled.set()
        for listener in tuple(self.listeners):
            listener()

    def busy(self, upto: int | None = None) -> bool:
        """A segment up to ``upto`` (default: every one the recogniser queued) is queued or
        being recognised, or its answers are on their way here."""
        if self.stt is None:
            return False
        if upto is None:
            upto = max(self.awaited, getattr(self.stt, "segments", 0))
        return self.heard < upto

    async def caught_up(self, backstop: float, upto: int | None = None) -> None:
        """Return once segments up to ``upto`` (default: all) are heard (an event per
        finished segment; the backstop, in seconds, only bounds a hung model)."""
        deadline = time.monotonic() + backstop
        while self.busy(upto) and time.monotonic() < deadline:
            self._settled.clear()
            try:
                await asyncio.wait_for(self._settled.wait(), deadline - time.monotonic())
            except TimeoutError:
                break


class AudioTimer:
    """A one-shot timer in audio time.

    Fires ``callback`` once ``secs`` of caller audio have arrived (or, with ``on_settled``,
    when the adapter next hears from the recogniser that a segment is done). A wall-clock
    backstop of ``BACKSTOP_FACTOR * secs`` (at least 5 s) fires it too, for a caller whose
    audio stopped arriving altogether (a closed microphone): it bounds a wait, it never
    orders events. Audio held before it reaches the adapter (``held()``: the turn processor
    waits for the recogniser, :mod:`audio.turn_order`) is arriving, not missing: the backstop
    waits again while it is held."""

    BACKSTOP_FACTOR = 5.0

    def __init__(self, clock: AudioClock, recogniser: Recogniser, spawn: Spawn,
                 secs: float, callback: Callable[[], None], *, on_settled: bool = False,
                 held: Callable[[], bool] = lambda: False):
        self._clock = clock
        self._recogniser = recogniser
        self._callback = callback
        self._held = held
        self._done = False
        self._alarm = None if on_settled else clock.after(secs, self._fire)
        if on_settled:
            recogniser.listeners.append(self._fire)
        self._backstop = spawn(self._wait(max(5.0, self.BACKSTOP_FACTOR * secs)),
                               "audio_timer_backstop")

    async def _wait(self, secs: float) -> None:
        await asyncio.sleep(secs)  # a bound on a stalled microphone, not an ordering
        while self._held():
            await asyncio.sleep(secs)
        self._fire()

    def _fire(self) -> None:
        if self._done:
            return
        self.cancel()
        self._callback()

    def cancel(self) -> None:
        self._done = True
        self._clock.cancel(self._alarm)
        if self._fire in self._recogniser.listeners:
            self._recogniser.listeners.remove(self._fire)
        if not self._backstop.done() and self._backstop is not asyncio.current_task():
            self._backstop.cancel()


class Timers:
    """Makes :class:`AudioTimer` s for one call: its audio clock, its recogniser, and the
    task factory of the processor that runs them (for the backstop). ``held`` says whether
    caller audio is held before the adapter now (the pipeline sets it; default never)."""

    def __init__(self, clock: AudioClock, recogniser: Recogniser, spawn: Spawn):
        self._clock = clock
        self._recogniser = recogniser
        self._spawn = spawn
        self.held: Callable[[], bool] = lambda: False

    def after(self, secs: float, callback: Callable[[], None]) -> AudioTimer:
        """Fire ``callback`` once ``secs`` more seconds of caller audio have arrived."""
        return AudioTimer(self._clock, self._recogniser, self._spawn, secs, callback,
                          held=self._is_held)

    def on_settled(self, callback: Callable[[], None]) -> AudioTimer:
        """Fire ``callback`` when the adapter next hears that a segment is done."""
        return AudioTimer(self._clock, self._recogniser, self._spawn, 0.0, callback,
                          on_settled=True, held=self._is_held)

    def _is_held(self) -> bool:
        return self.held()
