"""Speech services over a process-wide model cache.

Pipecat's ``WhisperSTTService`` and ``PiperTTSService`` load their model in ``__init__``: a
call per process would pay the load time on its first turn. Here the models load ONCE per
process (``warm()`` at start-up), and every call's services share them. faster-whisper and
onnxruntime sessions are safe to call from several threads.

* :class:`SharedWhisperSTT`: greedy decoding (beam 1: the floor for a short utterance on two
  cores), a confidence per transcript (mean token probability), optional biasing
  (``hotwords`` / ``initial_prompt``).
* :class:`GenerationPiperTTS`: a :class:`~audio.frames.StampedSpeakFrame` is spoken under a
  context id that names its generation, so the generation gate can tell its audio apart.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from dataclasses import dataclass

import numpy as np
from pipecat.frames.frames import ErrorFrame, Frame, TranscriptionFrame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.piper.tts import PiperTTSService
from pipecat.services.tts_service import TTSService
from pipecat.services.whisper.stt import WhisperSTTService
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from audio import models
from audio.frames import StampedSpeakFrame, context_id_for

_lock = threading.Lock()
MAX_TURN_SAMPLES = 25 * 16000  # Whisper's window is 30 s: keep a turn's last 25 s
_cache: dict[str, object] = {}


@dataclass(frozen=True, slots=True)
class WarmReport:
    whisper_secs: float
    piper_secs: float


def whisper_model():
    """The process-wide faster-whisper model (side effect: loads it on first use)."""
    with _lock:
        if "whisper" not in _cache:
            from faster_whisper import WhisperModel
            # Two workers of one thread each: simultaneous calls transcribe in parallel on the
            # two cores (measured with 4 calls: p95 949 ms vs 1233 ms with one 2-thread
            # worker) for ~30 ms more on a single call.
            _cache["whisper"] = WhisperModel(str(models.whisper_model_dir()), device="cpu",
                                             compute_type="int8", **_whisper_setting)
        return _cache["whisper"]


_whisper_setting = {"cpu_threads": 1, "num_workers": 2}  # see whisper_model(); use_whisper()


def use_whisper(threads: int, workers: int) -> tuple[int, int]:
    """Load the shared Whisper model again with ``threads`` per worker and ``workers``
    workers, for the rest of the process (the benchmark compares settings in one run);
    returns the previous ``(threads, workers)``. Every transcription that starts after this
    uses the new model (``transcribe`` asks ``whisper_model()`` each time). Side effect:
    drops the cached model and loads the new one now."""
    with _lock:
        before = (_whisper_setting["cpu_threads"], _whisper_setting["num_workers"])
        _whisper_setting.update(cpu_threads=threads, num_workers=workers)
        _cache.pop("whisper", None)
    whisper_model()
    return before


def piper_voice():
    """The process-wide Piper voice (side effect: loads it on first use)."""
    with _lock:
        if "piper" not in _cache:
            from piper import PiperVoice
            _cache["piper"] = PiperVoice.load(models.piper_voice().model)
        return _cache["piper"]


def warm() -> WarmReport:
    """Load both models and run each once, so the first call pays nothing (side effect)."""
    t0 = time.perf_counter()
    model = whisper_model()
    list(model.transcribe(np.zeros(8000, dtype=np.float32), language="en", beam_size=1)[0])
    t1 = time.perf_counter()
    voice = piper_voice()
    for _ in voice.synthesize("Ready."):
        pass
    return WarmReport(t1 - t0, time.perf_counter() - t1)


def transcribe(audio: np.ndarray, *, hotwords: str | None = None,
               initial_prompt: str | None = None, no_speech_prob: float = 0.6
               ) -> tuple[str, float]:
    """Blocking: ``(text, confidence)`` of float32 16 kHz mono audio. Empty text = no speech."""
    segments, _ = whisper_model().transcribe(
        audio, language="en", beam_size=1, hotwords=hotwords, initial_prompt=initial_prompt,
        condition_on_previous_text=False, without_timestamps=True)
    kept = [s for s in segments if s.no_speech_prob < no_speech_prob]
    text = " ".join(s.text.strip() for s in kept).strip()
    if not kept:
        return "", 0.0
    confidence = sum(math.exp(s.avg_logprob) for s in kept) / len(kept)
    return text, round(min(1.0, confidence), 3)


class SharedWhisperSTT(WhisperSTTService):
    """Whisper over the shared model; transcripts carry ``result={"confidence": c}``."""

    def __init__(self, *, hotwords: str | None = None, initial_prompt: str | None = None,
                 **kwargs):
        self.hotwords = hotwords
        self.initial_prompt = initial_prompt
        self.stt_seconds: list[tuple[float, float]] = []  # (audio secs, compute secs)
        self._turn = np.zeros(0, dtype=np.float32)  # this turn's speech so far (16 kHz)
        self.in_flight = 0  # segments being transcribed now
        self.pending = 0  # segments queued or being transcribed (VAD stop -> result)
        self.settled_listeners: list = []  # called whenever ``pending`` drops
        self.emitted = 0  # transcripts pushed downstream so far
        # p99 from the end of speech to the final transcript, measured here (amend bench):
        # the turn-stop strategy's safety net when no finalized transcript arrives.
        kwargs.setdefault("ttfs_p99_latency", 0.8)
        super().__init__(settings=WhisperSTTService.Settings(
            model=str(models.whisper_model_dir()), language=Language.EN),
            device="cpu", compute_type="int8", **kwargs)

    def _load(self):
        self._model = whisper_model()  # shared: never a per-call load

    async def _handle_user_stopped_speaking(self, frame):
        # pipecat queues the segment here (when there is audio): count it from this moment,
        # so "nothing pending" never holds between the VAD stop and the transcription.
        if self.is_usable and len(self._audio_buffer) > 0:
            self.pending += 1
        await super()._handle_user_stopped_speaking(frame)

    def _segment_done(self) -> None:
        self.pending = max(0, self.pending - 1)
        for listener in tuple(self.settled_listeners):
            listener()

    def reset_turn(self) -> None:
        """Forget the current turn's audio (the adapter calls this when a turn is over)."""
        self._turn = np.zeros(0, dtype=np.float32)

    async def run_stt(self, audio: bytes):
        """Transcribe the whole turn so far, not just this VAD segment: a segment cut at a
        comma ("not Wednesday") loses its context and comes back wrong ("and that
        Wednesday"). tiny.en's cost is dominated by its fixed 30 s window, so the cumulative
        transcript costs about the same and replaces the previous one (``cumulative``)."""
        samples = np.frombuffer(audio[: len(audio) // 2 * 2], dtype=np.int16)
        if samples.size == 0:
            self._segment_done()
            return
        segment = samples.astype(np.float32) / 32768.0
        had_words = self._turn.size > 0
        gap = np.zeros(int(0.2 * 16000) if had_words else 0, dtype=np.float32)
        floats = np.concatenate([self._turn, gap, segment])[-MAX_TURN_SAMPLES:]
        start = time.perf_counter()
        self.in_flight += 1
        try:
            try:
                text, confidence = await asyncio.to_thread(
                    transcribe, floats, hotwords=self.hotwords,
                    initial_prompt=self.initial_prompt)
            except Exception as exc:  # a model failure must not end the call
                yield ErrorFrame(f"speech recognition failed on a {segment.size / 16000:.2f} s "
                                 f"segment: {exc}")
                return
            self.stt_seconds.append((floats.size / 16000, time.perf_counter() - start))
            if not text:
                return  # noise: not kept, so it cannot colour the next segment
            self._turn = floats
            self.emitted += 1  # before the yield: the adapter counts what it received
            # finalized: these words will not change (lets the turn end sooner)
            yield TranscriptionFrame(text, self._user_id, time_now_iso8601(), Language.EN,
                                     result={"confidence": confidence, "cumulative": True},
                                     finalized=True)
        finally:
            self.in_flight -= 1
            self._segment_done()


class GenerationPiperTTS(PiperTTSService):
    """Piper over the shared voice; stamped speak frames get generation-naming context ids."""

    def __init__(self, **kwargs):
        voice = models.piper_voice()
        # PiperTTSService.__init__ would load the voice again; set up the TTSService part and
        # reuse the shared voice instead.
        TTSService.__init__(self, push_start_frame=True, push_stop_frames=True,
                            settings=PiperTTSService.Settings(model=None, voice=voice.name,
                                                              language=None), **kwargs)
        self._voice = piper_voice()
        self._next_generation: tuple[int, int] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, StampedSpeakFrame):
            self._next_generation = (frame.generation, frame.sentence)
        try:
            await super().process_frame(frame, direction)
        finally:
            if isinstance(frame, StampedSpeakFrame):
                self._next_generation = None

    def create_context_id(self) -> str:
        if self._next_generation is not None:
            context_id = context_id_for(*self._next_generation)
            self._turn_context_id = None
            return context_id
        return super().create_context_id()
