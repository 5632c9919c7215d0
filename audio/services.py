"""Speech services over a process-wide model cache.

Pipecat's ``WhisperSTTService`` and ``PiperTTSService`` load their model in ``__init__``: a
call per process would pay the load time on its first turn. Here the models load ONCE per
process (``warm()`` at start-up), and every call's services share them. faster-whisper and
onnxruntime sessions are safe to call from several threads.

* :class:`SharedWhisperSTT`: greedy decoding (beam 1: the floor for a short utterance on two
  cores), a confidence per transcript (mean token probability), each word with its
  probability and the no-speech probability (what :mod:`agent.understanding.trust` weighs), optional
  biasing (``hotwords`` / ``initial_prompt``), and its own audio buffering: an explicit
  pre-roll before each turn (``preroll_secs``) and the turn's audio kept contiguous.
* :class:`GenerationPiperTTS`: a :class:`~audio.frames.StampedSpeakFrame` is spoken under a
  context id that names its generation, so the generation gate can tell its audio apart.
* :class:`SharedSilero`: the VAD analyzer over one process-wide Silero session (each call keeps
  only the model's recurrent state), so a call builds no ONNX session of its own.
* :class:`FairQueue` (:func:`whisper_queue`): every call's recognitions take turns on the
  shared Whisper workers fairly, a short turn never queued behind another caller's long one.
* :func:`recognise`: Whisper in this process (:mod:`audio.whisper`), or in a process of its own
  once :func:`use_whisper_process` says so (:mod:`audio.whisper_host`; ``amend demo``'s
  default): the same transcript either way.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeVar

import numpy as np
from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams
from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    InputAudioRawFrame,
    TranscriptionFrame,
    UserAudioRawFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.piper.tts import PiperTTSService
from pipecat.services.tts_service import TTSService
from pipecat.services.whisper.stt import WhisperSTTService
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from audio import models
from audio.frames import (
    SEGMENT_KEY,
    SegmentHeardFrame,
    StampedSpeakFrame,
    VoiceFadingFrame,
    context_id_for,
)
from audio.onnx_arena import ShrinkingSession
from audio.spoken_cache import SpokenSentences
from audio.vad import FadeWatchingSilero
from audio.whisper import (  # noqa: F401  (re-exported: services is where callers look)
    DECODING,
    ENCODER_SPARE_SECS,
    ENCODER_WINDOW_RANGE,
    ENCODER_WINDOW_SECS,
    RESCORE_BELOW,
    WINDOW_ENV,
    WINDOW_SAMPLES,
    Heard,
    as_sentence,
    encoder_window_secs,
    load_model,
    recognise_with,
)

T = TypeVar("T")

_lock = threading.Lock()
MAX_TURN_SAMPLES = 25 * 16000  # Whisper's window is 30 s: keep a turn's last 25 s
# Audio before the VAD onset handed to Whisper with a turn. The onset comes late: Silero needs
# start_secs of confident speech and pipecat's volume gate a loud enough 0.4 s window, so it
# fires ~0.25 s into the first word, ~0.55 s into a call's first turn, ~0.65 s when the caller
# is 20 dB quieter (measured through the pipeline). The pre-roll covers that with a lead-in to
# spare: tiny.en garbles a first word that starts the audio abruptly ("Could" -> "of").
# First word kept (audio/bench_hearing.py, 4 voices x 6 openings): 0.67 at 0.3 s, 0.75 at
# 0.5 s, 0.875 at 0.75 s, 0.917 at 1.0 s and at 1.5 s; 0.0 without any.
PREROLL_SECS = 1.0
# How long a recognition may take before the recogniser counts as hung. Every wait on the
# recogniser is bounded by it, none ordered by it: on two busy cores tiny.en took up to 8.5 s
# for a 5 s turn (median 3 s, against 0.6 s idle), with two calls and two other busy
# processes; a shorter bound ended turns without their words there (issue 14).
HUNG_RECOGNISER_SECS = 30.0
# How long one sentence's synthesis may take before the synthesizer counts as hung (idle:
# 0.1 to 0.5 s a sentence).
HUNG_SYNTHESIS_SECS = 30.0
# How long (wall clock) a ``paced`` segment waits for the adapter to take in its VAD stop
# before it is heard anyway: a bound for a stalled pipeline, never an order. The stop can wait
# behind the recognition of the segment before it (audio/turn_order.py).
REACH_BACKSTOP_SECS = HUNG_RECOGNISER_SECS
_cache: dict[str, object] = {}
_running = [0]  # recognitions in progress in this process, every call's (under _lock)
# Where recognitions run: [] in this process, or [WhisperHost] in a process of its own
# (use_whisper_process; the demo's default, WHISPER_PROCESS_ENV).
_host: list[Any] = []


@dataclass(frozen=True, slots=True)
class WarmReport:
    whisper_secs: float
    piper_secs: float


def whisper_model():
    """The process-wide faster-whisper model (side effect: loads it on first use)."""
    with _lock:
        if "whisper" not in _cache:
            # Two workers of one thread each: simultaneous calls transcribe in parallel on the
            # two cores (measured with 4 calls: p95 949 ms vs 1233 ms with one 2-thread
            # worker) for ~30 ms more on a single call. Again on 2026-12-06 (amend bench
            # --only audio, both single calls replayed alike): one call p50 528 ms either way,
            # three calls at once p95 591 ms against 715 ms with one 2-thread worker.
            _cache["whisper"] = load_model(**_whisper_setting)
        return _cache["whisper"]


def use_whisper_process(on: bool = True) -> None:
    """From now on, recognise in a process of its own (:mod:`audio.whisper_host`; it starts
    on the next recognition, with this process's Whisper settings) or, ``on=False``, in this
    one (side effect: a running host is stopped, and the in-process model is dropped)."""
    from audio.whisper_host import WhisperHost

    with _lock:
        old = _host.pop() if _host else None
        if on:
            _host.append(WhisperHost(**_whisper_setting))
            _cache.pop("whisper", None)  # this process no longer needs its own
    if old is not None:
        old.stop()


def whisper_host():
    """The :class:`~audio.whisper_host.WhisperHost` recognitions go to, or None (in this
    process)."""
    with _lock:
        return _host[0] if _host else None


_whisper_setting = {"cpu_threads": 1, "num_workers": 2}  # see whisper_model(); use_whisper()


def spare_worker() -> bool:
    """True when a recognition could start now and still leave a Whisper worker idle: an
    early transcription starts only then, so it never waits behind another recognition and
    never takes the worker someone's finished turn may need. With one worker, never.
    Recognitions waiting for a place in :func:`whisper_queue` count as running.

    Measured (``amend bench --only audio``, 27 turns, 3 voices, 2026-12-02): voice-to-voice
    p50 668 and 750 ms in two runs with this rule, 745 ms when any idle worker would do (no
    difference beyond run-to-run noise), 861 ms without early hearing. This rule is kept
    because it cannot slow another call's turn."""
    queue = whisper_queue()
    with _lock:
        running = max(_running[0], queue.busy) + queue.waiting
        return running + 1 < _whisper_setting["num_workers"]


class FairQueue:
    """Places on shared workers (the Whisper workers) for blocking jobs, handed out fairly
    between callers.

    At most ``slots()`` jobs hold a place at once; the rest wait. A waiting job is tagged as in
    weighted fair queuing, its cost being the seconds of audio it hears: its virtual start is
    the later of the queue's virtual time and the finish tag of its caller's previous job, its
    finish tag that start plus its cost. A free place goes to the waiting job with the
    earliest finish tag (ties: first come), and the virtual time moves to that job's start.

    * A short turn is never queued behind another caller's long segment: it waits at most for
      a place to free, i.e. for work already running (one segment's worth per place).
    * A caller who keeps the workers busy (segment after segment) is charged for the work it
      got and falls behind callers who got less; tags only grow by work served, so every
      waiting job gets its place (no starvation).

    Without it every call handed its recognitions straight to the worker threads, and they
    ran in arrival order at the model's own queue, a short turn behind every long one queued
    before it (``audio/bench_fairness.py`` measures both). Thread-safe: places may be taken
    from any event loop.
    """

    def __init__(self, slots: Callable[[], int]):
        self._slots = slots
        self._lock = threading.Lock()
        self._busy = 0
        self._waiting: list[_Waiting] = []
        self._virtual = 0.0
        self._finish: dict[object, float] = {}  # callers whose last tag is ahead of _virtual
        self._seq = 0

    @property
    def busy(self) -> int:
        """Jobs holding a place now."""
        return self._busy

    @property
    def waiting(self) -> int:
        """Jobs waiting for a place."""
        return len(self._waiting)

    @property
    def callers(self) -> int:
        """Callers the queue remembers (those charged ahead of the virtual time)."""
        return len(self._finish)

    def _dispatch(self) -> list[Callable[[], None]]:
        """Under the lock: give free places to the waiting jobs with the earliest finish tags;
        returns their wake-ups, to call outside the lock."""
        wakes = []
        while self._waiting and self._busy < max(1, self._slots()):
            job = min(self._waiting, key=lambda j: (j.finish, j.seq))
            self._waiting.remove(job)
            self._busy += 1
            job.granted = True
            self._virtual = max(self._virtual, job.start)
            wakes.append(job.wake)
        if not self._waiting and not self._busy:
            self._finish.clear()  # idle: nobody is ahead of anybody any more
        for key in [k for k, f in self._finish.items() if f <= self._virtual]:
            del self._finish[key]  # no longer ahead: its next job starts at the virtual time
        return wakes

    async def acquire(self, caller: object, cost: float) -> None:
        """Wait for a place for a job of ``caller`` hearing ``cost`` seconds of audio. Pair
        with :meth:`release` (or use :meth:`run`). ``caller`` is any hashable key, one per
        caller; keep it small (the queue may hold it while the caller is charged ahead)."""
        loop = asyncio.get_running_loop()
        granted: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            loop.call_soon_threadsafe(_resolve, granted)

        with self._lock:
            start = max(self._virtual, self._finish.get(caller, 0.0))
            finish = start + max(0.0, float(cost))
            self._finish[caller] = finish
            self._seq += 1
            job = _Waiting(start, finish, self._seq, wake)
            self._waiting.append(job)
            wakes = self._dispatch()
        for w in wakes:
            w()
        try:
            await granted
        except BaseException:  # cancelled while waiting, or just after its place was given
            with self._lock:
                if job.granted:
                    self._busy -= 1
                else:
                    self._waiting.remove(job)
                wakes = self._dispatch()
            for w in wakes:
                w()
            raise

    def release(self) -> None:
        """A job finished: its place goes to the next waiting job (any thread)."""
        with self._lock:
            self._busy = max(0, self._busy - 1)
            wakes = self._dispatch()
        for w in wakes:
            w()

    async def run(self, caller: object, cost: float, fn: Callable[..., T], *args: Any,
                  **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a worker thread once ``caller`` has a place. The place
        is held until the thread finishes, even if the awaiting task is cancelled first (a
        recognition cannot be stopped half way: its worker stays busy until it ends)."""
        await self.acquire(caller, cost)
        try:
            future = _worker_threads().submit(fn, *args, **kwargs)
        except BaseException:
            self.release()
            raise
        future.add_done_callback(lambda _f: self.release())
        return await asyncio.wrap_future(future)


@dataclass(slots=True)
class _Waiting:
    start: float  # virtual start tag
    finish: float  # virtual finish tag: start + cost
    seq: int  # arrival order, for ties
    wake: Callable[[], None]
    granted: bool = False


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


_queue: list[FairQueue] = []
_threads: list[concurrent.futures.ThreadPoolExecutor] = []


def whisper_queue() -> FairQueue:
    """The process-wide queue in front of the Whisper workers (one place per worker)."""
    with _lock:
        if not _queue:
            _queue.append(FairQueue(lambda: _whisper_setting["num_workers"]))
        return _queue[0]


def _worker_threads() -> concurrent.futures.ThreadPoolExecutor:
    """The threads recognitions block in (at most one per place is busy at a time)."""
    with _lock:
        if not _threads:
            _threads.append(concurrent.futures.ThreadPoolExecutor(
                max_workers=8, thread_name_prefix="amend-whisper"))
        return _threads[0]


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
        hosted = bool(_host)
    if hosted:
        use_whisper_process(True)  # a new host with the new setting
        whisper_host().start()
    else:
        whisper_model()
    return before


def piper_voice():
    """The process-wide Piper voice (side effect: loads it on first use).

    Its session plans no memory pattern. onnxruntime keeps a planned pattern for each input
    shape it has run, and a sentence's length is its shape: a demo that speaks many sentences
    kept about 90 MiB more resident with patterns on, at the same speed (1200 syntheses of
    random sentences, README, issue 19). And its arena gives back what the calls no longer
    use (:class:`audio.onnx_arena.ShrinkingSession`): every call shares the voice, and the
    arena grew to fit the most sentences ever synthesised at once."""
    with _lock:
        if "piper" not in _cache:
            import json

            import onnxruntime
            from piper import PiperConfig, PiperVoice

            chosen = models.piper_voice()
            options = onnxruntime.SessionOptions()
            options.enable_mem_pattern = False
            config = json.loads(chosen.config.read_text(encoding="utf-8"))
            _cache["piper"] = PiperVoice(
                config=PiperConfig.from_dict(config),
                session=ShrinkingSession(onnxruntime.InferenceSession(
                    str(chosen.model), sess_options=options, providers=["CPUExecutionProvider"])),
                download_dir=chosen.directory)
        return _cache["piper"]


def seeded_piper_voice(seed: int):
    """A new Piper voice whose random draws start from ``seed`` (side effect: loads the model,
    about 0.35 s). Piper's VITS model samples noise on every synthesis, so the process-wide
    voice says the same text a little differently each time, and one run's caller audio is
    not the next run's. onnxruntime seeds a session's random generators when the session is
    created, from the global seed: the first synthesis of a voice loaded here is the same on
    every run."""
    import onnxruntime
    from piper import PiperVoice
    with _lock:
        onnxruntime.set_seed(int(seed) & 0x7FFFFFFF)
        return PiperVoice.load(models.piper_voice().model)


def silero_session():
    """The process-wide Silero VAD ONNX session (side effect: loads it on first use).

    Silero's recurrent state is an input and an output of every run, kept by each call's
    :class:`SharedSileroModel`, so one session serves every call (``InferenceSession.run``
    is safe to call from several threads). Pipecat's analyzer loads a session per call:
    about 40 ms and ~0.4 MiB of native memory each, freed only when the garbage collector
    breaks the pipeline's reference cycles, and never given back to the system."""
    import onnxruntime

    with _lock:
        if "silero" not in _cache:
            path = str(resources.files("pipecat.audio.vad.data").joinpath("silero_vad.onnx"))
            options = onnxruntime.SessionOptions()
            options.inter_op_num_threads = 1
            options.intra_op_num_threads = 1
            _cache["silero"] = onnxruntime.InferenceSession(
                path, providers=["CPUExecutionProvider"], sess_options=options)
        return _cache["silero"]


class SharedSileroModel(SileroOnnxModel):
    """Pipecat's Silero model wrapper over :func:`silero_session`: one call's state, the
    process's session."""

    def __init__(self) -> None:  # not super().__init__(): it would load a session of its own
        self.session = silero_session()
        self.reset_states()
        self.sample_rates = [8000, 16000]


class _SharedSessionSilero(SileroVADAnalyzer):
    """``SileroVADAnalyzer`` whose model is a :class:`SharedSileroModel` (pipecat 1.14's
    initialisation, less the session load)."""

    def __init__(self, *, sample_rate: int | None = None, params: VADParams | None = None):
        VADAnalyzer.__init__(self, sample_rate=sample_rate, params=params)
        self._model = SharedSileroModel()
        self._windows_since_reset = 0
        self._low_confidence_windows = 0


class SharedSilero(FadeWatchingSilero, _SharedSessionSilero):
    """The pipeline's VAD analyzer (:class:`~audio.vad.FadeWatchingSilero`) over the
    process-wide Silero session."""


def warm() -> WarmReport:
    """Load the models and run each once, so the first call pays nothing (side effect)."""
    t0 = time.perf_counter()
    recognise(np.zeros(8000, dtype=np.float32))  # loads Whisper; the path a turn takes
    silero_session()
    t1 = time.perf_counter()
    voice = piper_voice()
    for _ in voice.synthesize("Ready."):
        pass
    return WarmReport(t1 - t0, time.perf_counter() - t1)


def recognise(audio: np.ndarray, *, hotwords: str | None = None,
              initial_prompt: str | None = None, no_speech_prob: float = 0.6,
              words: bool = True) -> Heard:
    """Blocking: what Whisper hears in float32 16 kHz mono ``audio`` (see
    :func:`audio.whisper.recognise_with`), in this process or the Whisper process
    (:func:`use_whisper_process`), counted as running while it runs (:func:`spare_worker`)."""
    with _lock:
        _running[0] += 1
        host = _host[0] if _host else None
    options: dict[str, Any] = {"hotwords": hotwords, "initial_prompt": initial_prompt,
               "no_speech_prob": no_speech_prob, "words": words}
    try:
        if host is not None:
            return host.recognise(audio, **options)
        return recognise_with(whisper_model(), audio, **options)
    finally:
        with _lock:
            _running[0] -= 1


def transcribe(audio: np.ndarray, *, hotwords: str | None = None,
               initial_prompt: str | None = None, no_speech_prob: float = 0.6
               ) -> tuple[str, float]:
    """Blocking: ``(text, confidence)`` of float32 16 kHz mono audio. Empty text = no speech."""
    heard = recognise(audio, hotwords=hotwords, initial_prompt=initial_prompt,
                      no_speech_prob=no_speech_prob, words=False)
    return heard.text, heard.confidence


@dataclass(frozen=True, slots=True)
class Piece:
    """One VAD segment of a turn, as heard: 16-bit mono PCM from its pre-roll to the VAD stop."""

    pcm: bytes
    lead: int  # bytes of audio before the VAD onset it starts with (its pre-roll)
    # Bytes up to the voice's last fade before the stop (None: no fade came): the end of a
    # turn is heard up to there, whether it was heard early or at the stop (see _audio_of).
    faded_at: int | None = None


@dataclass(slots=True)
class EarlyHearing:
    """A transcription of the turn started when the voice faded, before the VAD stop: it
    stands for the segment if the stop comes with nothing but that silence after it."""

    version: int  # the tape's version when it started (reset_turn changes it)
    pieces: int  # segments on the tape before the fading one
    heard: int  # bytes of the fading segment it hears (all of them, up to the fade)
    audio: np.ndarray  # what Whisper was given
    task: asyncio.Task
    started: float  # perf_counter at its start


class SharedWhisperSTT(WhisperSTTService):
    """Whisper over the shared model. Transcripts carry ``result={"confidence": c,
    "cumulative": True, "words": ((word, p), ...), "no_speech": q, "segment": n}``.

    Segments are numbered (:mod:`audio.frames`): each VAD stop carries the number of the last
    segment queued by then, each segment is answered by its transcript (if it heard words)
    and a :class:`~audio.frames.SegmentHeardFrame`, and segment n is heard with the turn's
    segments before it, never after it (:meth:`run_stt`; with ``paced``, only once the
    adapter took its stop in: :meth:`reached`).

    It buffers the caller's audio itself (pipecat's ``SegmentedSTTService`` keeps a fixed 1 s
    before the onset and pads every segment with silence):

    * a ring of the last ``preroll_secs`` of audio while nobody speaks; at the VAD onset it
      becomes the start of the segment. When the ring holds less (a stream that begins with
      speech, push-to-talk, a pause shorter than the pre-roll before a new turn), the turn's
      audio is padded with silence to ``preroll_secs`` of lead: Whisper never hears a turn
      start abruptly;
    * a turn's segments are kept back to back exactly as heard (the pauses between them are
      the ring's audio), so the cumulative transcript hears the sentence with its real
      pauses. Silence is appended (``trailing_silence_secs``) only to what Whisper is given,
      never in the middle of a turn: tiny.en ends its transcript at a long inserted silence
      ("Please book" + 0.7 s + "pump P 200..." came back "Please book.");
    * a segment Whisper hears nothing in stays in the turn: a short first piece ("Could
      you", then a pause) is often unreadable alone but right in context;
    * the turn is heard early (``early``): when the VAD reports the voice fading
      (:class:`~audio.frames.VoiceFadingFrame`, :mod:`audio.vad`), before its stop, the turn
      so far is transcribed at once if a Whisper worker stays idle (:func:`spare_worker`). If
      the stop follows with no voice in between, that transcript is the segment's, ready up
      to the VAD's ``stop_secs`` sooner; if the voice comes back, it is dropped (the work is
      lost, never a word).

    Its recognitions take their turn on the shared Whisper workers through
    :func:`whisper_queue`, charged by the seconds of audio they hear (``queue_key`` is this
    call's key there).
    """

    def __init__(self, *, hotwords: str | None = None, initial_prompt: str | None = None,
                 preroll_secs: float = PREROLL_SECS, early: bool = False, paced: bool = False,
                 **kwargs):
        if preroll_secs < 0:
            raise ValueError(f"preroll_secs must be >= 0, not {preroll_secs}")
        self.hotwords = hotwords
        self.initial_prompt = initial_prompt
        self.preroll_secs = preroll_secs
        self.stt_seconds: list[tuple[float, float]] = []  # (audio secs, compute secs)
        self.last_input: np.ndarray | None = None  # the audio of the latest transcription
        self._tape: list[Piece] = []  # this turn's segments, back to back
        self._heard = 0  # how many of them have been transcribed
        self._lead = 0  # bytes the ring held at the current segment's VAD onset
        self.in_flight = 0  # segments being transcribed now
        self.settled_listeners: list = []  # called whenever ``pending`` drops
        self.segments = 0  # segments queued so far: segment n is the n-th (audio.frames)
        self.segments_heard = 0  # the last segment transcribed (SegmentHeardFrame sent)
        self.paced = paced
        self._reached = 0  # the last segment whose VAD stop the call's adapter has taken in
        self._reach = asyncio.Event()  # set by reached()
        self.reach_backstops = 0  # segments heard without waiting for reached() (bound hit)
        # Told the segment's number each time that bound is hit (the pipeline traces it).
        self.on_reach_backstop: Callable[[int], None] | None = None
        self.early = early
        self.early_counts = {"started": 0, "used": 0}  # early transcriptions (amend bench)
        self._early: EarlyHearing | None = None  # started at the fade, not yet stopped
        self._early_ready: EarlyHearing | None = None  # matched at the stop, for run_stt
        self._version = 0  # bumped by reset_turn: an early hearing of an older tape is void
        self._faded_at: int | None = None  # bytes of this segment at the voice's last fade
        # This call's key in the Whisper queue (whisper_queue): a bare token, so the queue
        # never holds the call itself.
        self.queue_key = object()
        # p99 from the end of speech to the final transcript, measured here (amend bench):
        # the turn-stop strategy's safety net when no finalized transcript arrives.
        kwargs.setdefault("ttfs_p99_latency", 0.8)
        super().__init__(settings=WhisperSTTService.Settings(
            model=str(models.whisper_model_dir()), language=Language.EN),
            device="cpu", compute_type="int8", **kwargs)

    def _load(self):
        # shared: never a per-call load (the host when recognitions run in its process)
        self._model = whisper_host() or whisper_model()

    def _preroll_bytes(self) -> int:
        return int(self.preroll_secs * self.sample_rate) * 2

    async def process_audio_frame(self, frame: InputAudioRawFrame, direction: FrameDirection):
        """Keep the frame: all of it while the caller speaks, else the pre-roll ring only."""
        self._user_id = frame.user_id if isinstance(frame, UserAudioRawFrame) else ""
        self._audio_buffer += frame.audio
        if not self._user_speaking:
            excess = len(self._audio_buffer) - self._preroll_bytes()
            if excess > 0:
                del self._audio_buffer[:excess]

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, VoiceFadingFrame):
            self.voice_fading(frame.resumed)
            return  # the VAD's note to this service alone
        if (isinstance(frame, VADUserStoppedSpeakingFrame)
                and direction == FrameDirection.DOWNSTREAM):
            # numbered before it goes on (pipecat pushes it before queuing the segment)
            frame.metadata[SEGMENT_KEY] = self.segments + (1 if self._queues_segment() else 0)
        await super().process_frame(frame, direction)

    def _queues_segment(self) -> bool:
        """Whether a VAD stop now queues a segment (see _handle_user_stopped_speaking)."""
        return self.is_usable and bool(self._audio_buffer)

    def reached(self, segment: int) -> None:
        """The call's adapter has taken in everything up to segment ``segment``'s VAD stop,
        turn ends and deliveries included (``paced``): that segment may be heard now."""
        if segment > self._reached:
            self._reached = segment
            self._reach.set()

    def voice_fading(self, resumed: bool) -> None:
        """The VAD stopped hearing a voice mid-segment (or heard it again): start hearing the
        turn early, or drop the early hearing."""
        if resumed:
            self._early = None  # the caller went on: its words end too soon
            self._faded_at = None
            return
        if not self._user_speaking or not self.early:
            return  # (without early hearing a segment is heard to its stop, as always)
        self._faded_at = len(self._audio_buffer)
        if self._early is not None or not self.is_usable or not spare_worker():
            return
        heard = bytes(self._audio_buffer)
        floats = self._audio_of([*self._tape, Piece(heard, min(self._lead, len(heard)),
                                                     len(heard))])
        task = self.create_task(whisper_queue().run(
            self.queue_key, floats.size / 16000, recognise, floats, hotwords=self.hotwords,
            initial_prompt=self.initial_prompt), "early_transcription")
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # read by run_stt
        self._early = EarlyHearing(self._version, len(self._tape), len(heard), floats, task,
                                   time.perf_counter())
        self.early_counts["started"] += 1

    async def _handle_user_started_speaking(self, frame):
        self._user_speaking = True
        self._lead = len(self._audio_buffer)

    async def _handle_user_stopped_speaking(self, frame):
        """Add the segment to the turn and queue the turn for transcription. Counted in
        ``pending`` from this moment, so "nothing pending" never holds between the VAD stop
        and the transcription."""
        self._user_speaking = False
        if not self._queues_segment():
            self._audio_buffer.clear()
            return
        self.segments += 1
        piece = Piece(bytes(self._audio_buffer), min(self._lead, len(self._audio_buffer)),
                      self._faded_at)
        self._audio_buffer.clear()
        self._lead = 0
        self._faded_at = None
        self._tape.append(piece)
        early, self._early = self._early, None
        if (early is not None and early.version == self._version
                and early.pieces == len(self._tape) - 1 and piece.faded_at == early.heard):
            self._early_ready = early  # only silence after the fade: it stands
        self._record_stt_audio_usage(piece.pcm)
        await self.emit_stt_usage_metrics()
        await self._segment_queue.put(piece.pcm)  # run_stt reads the turn from the tape

    @property
    def pending(self) -> int:
        """Segments queued or being transcribed (VAD stop -> result)."""
        return self.segments - self.segments_heard

    def reset_turn(self) -> None:
        """The adapter delivered the turn: forget the audio its transcripts covered. A segment
        still waiting to be transcribed stays: it is the start of what the caller said next."""
        del self._tape[: self._heard]
        self._heard = 0
        self._version += 1
        self._early = self._early_ready = None

    def turn_voiced_secs(self) -> float:
        """Seconds of the turn's transcribed segments from each VAD onset to its stop (the
        pre-roll before each onset not counted): how long the caller was heard making sound."""
        tape = self._tape[: self._heard]
        return sum(max(0, len(p.pcm) - p.lead) for p in tape) / 2 / max(1, self.sample_rate)

    def turn_audio(self, pieces: int | None = None) -> np.ndarray:
        """What Whisper is given for the turn's first ``pieces`` segments (default: all):
        silence up to ``preroll_secs`` of lead, the segments back to back (the last 25 s),
        then ``trailing_silence_secs`` of silence. float32, 16 kHz."""
        return self._audio_of(self._tape[:pieces])

    def _audio_of(self, tape: list[Piece]) -> np.ndarray:
        """The pieces back to back, the last one up to the voice's fade when it faded: what
        Silero heard after that as no voice is replaced by the trailing silence. So a turn is
        given to Whisper alike whether it was heard early (at the fade) or at the stop, and
        what the caller's words are heard as never depends on how busy the machine was."""
        if not tape:
            return np.zeros(0, dtype=np.float32)
        pad = bytes(max(0, self._preroll_bytes() - tape[0].lead) // 2 * 2)
        last = tape[-1].pcm[:tape[-1].faded_at]  # [:None] is all of it
        pcm = (pad + b"".join(p.pcm for p in tape[:-1]) + last)[-MAX_TURN_SAMPLES * 2:]
        pcm += self._trailing_silence()
        return np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0

    async def run_stt(self, audio: bytes):
        """Transcribe the turn up to this segment, not just the segment: a segment cut at a
        comma ("not Wednesday") loses its context and comes back wrong ("and that
        Wednesday"). tiny.en's cost is dominated by its fixed encoder window (15 s for a turn
        that fits, else 30 s), so the cumulative transcript costs about the same and replaces
        the previous one (``cumulative``).

        Segment n is heard with the segments before it and never with one after it, even
        when the caller went on while Whisper was busy: what Whisper is given for a segment
        is the same on an idle machine and a loaded one, and so are its words. A loaded
        machine runs Whisper as many times, later.

        When ``paced``, segment n waits until the call's adapter has taken in its VAD stop
        (:meth:`reached`): by then every earlier pause has been decided and a turn that ended
        there has been delivered (:meth:`reset_turn`), so the tape holds exactly the turn that
        segment n belongs to. The transcript carries ``result["segment"] = n``, and a
        :class:`~audio.frames.SegmentHeardFrame` follows every segment, heard or not."""
        number = self.segments_heard + 1
        await self._wait_reached(number)
        if self._heard >= len(self._tape):  # (never: each queued segment is a piece of the tape)
            self._finish_segment(number)
            yield SegmentHeardFrame(number=number)
            return
        self._heard += 1
        early, self._early_ready = self._early_ready, None
        if early is not None and early.pieces + 1 != self._heard:
            self._early_ready = early if early.pieces + 1 > self._heard else None  # a later one
            early = None
        floats = self.turn_audio(self._heard) if early is None else early.audio
        self.last_input = floats
        start = time.perf_counter() if early is None else early.started
        self.in_flight += 1
        heard = None
        try:
            try:
                if early is not None:
                    heard = await early.task
                    self.early_counts["used"] += 1
                else:
                    heard = await whisper_queue().run(
                        self.queue_key, floats.size / 16000, recognise, floats,
                        hotwords=self.hotwords, initial_prompt=self.initial_prompt)
            except Exception as exc:  # a model failure must not end the call
                yield ErrorFrame(f"speech recognition failed on a {floats.size / 16000:.2f} s "
                                 f"turn: {exc}")
            if heard is not None:
                self.stt_seconds.append((floats.size / 16000, time.perf_counter() - start))
            if heard is not None and heard.text:  # (no words: the segment stays for context)
                # finalized: these words will not change (lets the turn end sooner)
                yield TranscriptionFrame(heard.text, self._user_id, time_now_iso8601(),
                                         Language.EN, result={
                                             "confidence": heard.confidence, "cumulative": True,
                                             "words": heard.words, "no_speech": heard.no_speech,
                                             "answer": heard.answer,
                                             "segment": number},
                                         finalized=True)
            yield SegmentHeardFrame(number=number)
        finally:
            self.in_flight -= 1
            self._finish_segment(number)

    async def _wait_reached(self, number: int) -> None:
        """Wait (``paced``) until the adapter has taken in segment ``number``'s VAD stop; the
        wall-clock bound only covers a pipeline with no adapter, never an order."""
        deadline = time.monotonic() + REACH_BACKSTOP_SECS
        while self.paced and self._reached < number:
            self._reach.clear()
            try:
                await asyncio.wait_for(self._reach.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                self.reach_backstops += 1
                if self.on_reach_backstop is not None:
                    self.on_reach_backstop(number)
                return

    def _finish_segment(self, number: int) -> None:
        self.segments_heard = max(self.segments_heard, number)
        for listener in tuple(self.settled_listeners):
            listener()


def spoken_sentences(voice: Any) -> SpokenSentences:
    """The process-wide kept audio of ``voice``'s repeated sentences (every call's
    :class:`GenerationPiperTTS` speaks with :func:`piper_voice`). Another voice starts
    afresh: what the previous one said is dropped."""
    with _lock:
        held = _cache.get("spoken")
        if not isinstance(held, tuple) or held[0] is not voice:
            held = _cache["spoken"] = (voice, SpokenSentences())
        return held[1]


class GenerationPiperTTS(PiperTTSService):
    """Piper over the shared voice; stamped speak frames get generation-naming context ids.
    A sentence the agent says again and again is spoken from :func:`spoken_sentences`
    instead of synthesised each time (``keep=False``: always synthesised)."""

    def __init__(self, *, keep: bool = True, **kwargs: Any) -> None:
        voice = models.piper_voice()
        # PiperTTSService.__init__ would load the voice again; set up the TTSService part and
        # reuse the shared voice instead.
        # pipecat ends a sentence's audio context (a TTSStoppedFrame, "completed with no
        # audio") when no audio came for stop_frame_timeout_s, 3 s by default. Piper hands a
        # sentence over whole, after synthesising all of it: with two calls and two other busy
        # processes on two cores that took more than 3 s, the gate took the early stop for
        # the end of the sentence, and a scripted caller answered into the silence before the
        # question it answered (pack script 36: the closed choice never played). The context
        # ends when run_tts ends; this bound is only for a synthesis that hangs.
        kwargs.setdefault("stop_frame_timeout_s", HUNG_SYNTHESIS_SECS)
        TTSService.__init__(self, push_start_frame=True, push_stop_frames=True,
                            settings=PiperTTSService.Settings(model=None, voice=voice.name,
                                                              language=None), **kwargs)
        self._voice = piper_voice()
        self._next_generation: tuple[int, int] | None = None
        self.spoken = spoken_sentences(self._voice) if keep else None
        # The latest sentences' context ids, each with whether it was spoken from kept
        # audio (amend bench: which replies started without a synthesis).
        self.sources: deque[tuple[str, bool]] = deque(maxlen=64)

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame, None]:
        """``PiperTTSService.run_tts``, with the kept audio of a repeated sentence instead
        of a synthesis; a sentence synthesised to its end is offered to be kept."""
        spoken = self.spoken
        kept = spoken.get(text) if spoken is not None else None
        self.sources.append((context_id, kept is not None))

        async def synthesised() -> AsyncIterator[bytes]:
            chunks = iter(self._voice.synthesize(text))
            heard: list[bytes] = []
            while (chunk := await asyncio.to_thread(next, chunks, None)) is not None:
                heard.append(chunk.audio_int16_bytes)
                yield chunk.audio_int16_bytes
            if spoken is not None:
                spoken.offer(text, heard)  # (not reached when a barge-in cut it short)

        async def replayed() -> AsyncIterator[bytes]:
            for chunk in kept or ():
                yield chunk

        try:
            await self.start_tts_usage_metrics(text)
            async for frame in self._stream_audio_frames_from_iterator(
                    synthesised() if kept is None else replayed(),
                    in_sample_rate=self._voice.config.sample_rate, context_id=context_id):
                await self.stop_ttfb_metrics()
                yield frame
        except Exception as exc:  # noqa: BLE001 - as pipecat's: the call goes on
            yield ErrorFrame(error=f"speech synthesis failed on {text!r}: {exc}")
        finally:
            await self.stop_ttfb_metrics()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
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
