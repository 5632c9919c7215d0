"""The end of the caller's turn, decided in audio time, with Smart Turn judging each pause.

Two things decide when a caller has finished:

* **What the pause sounds like.** At each VAD stop, once the recogniser's words up to it are
  in, pipecat's bundled Smart Turn v3.2 model (a CPU ONNX file,
  ``pipecat/audio/turn/smart_turn/data/``) hears the turn so far and says whether it sounds
  finished (not beside the recognition, which it slowed: ``_start_judging``). "Could you
  send a technician on..." sounds unfinished: the turn waits ``unfinished_secs`` of silence
  for the rest. "...on Thursday morning." sounds finished: the turn ends after
  ``finished_secs``. Without the model (``smart_turn=False``) every pause waits the same
  ``doubtful_secs`` (a fixed silence), unless its transcript stops mid-clause.
* **Audio time, not wall-clock time.** The silence is counted in the caller's own audio
  frames (:class:`AudioClock`), never with ``asyncio.sleep``. On a busy machine the event
  loop falls behind and then catches up on a burst of frames; a wall-clock timer started at
  the VAD stop would fire during the lag, while the frames that say the caller went on
  talking are still queued, and split one sentence into two turns. Counted in frames, the
  same audio ends the turn at the same sample however loaded the machine is.

:class:`AudioClockTurnStop` is a pipecat ``BaseUserTurnStopStrategy`` (it goes in
``UserTurnStrategies.stop``). The model runs off the event loop, one ONNX session per
process (:func:`smart_turn_session`), and every verdict is kept in ``verdicts`` for the
benchmark.

A turn has a length cap as well (``max_turn_secs``, :class:`CappedVADProcessor`): a caller who
talks on without a pause that ends the turn, or noise the VAD keeps hearing as a voice, has
the turn cut there, counted in audio time like everything else. The cut turn is heard and
handled as any other; the agent's reply to it starts by saying so (``audio/pipeline.py``).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipecat.audio.turn.base_turn_analyzer import EndOfTurnState
from pipecat.audio.turn.smart_turn.base_smart_turn import BaseSmartTurn, SmartTurnParams
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    TranscriptionFrame,
    UserSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.turns.types import ProcessFrameResult
from pipecat.turns.user_stop.base_user_turn_stop_strategy import BaseUserTurnStopStrategy

from audio.frames import (
    SegmentHeardFrame,
    TurnCutFrame,
    VoiceFadingFrame,
    VoiceStartingFrame,
    frame_seconds,
    stop_segment,
)
from audio.onnx_arena import ShrinkingSession
from audio.vad import FadeWatchingSilero, FadingVADProcessor

# The longest caller turn, in seconds of caller audio from its first VAD start: Whisper hears
# the last 25 s of a turn (audio.services.MAX_TURN_SAMPLES), and a turn starts with up to 1 s
# of pre-roll, so a turn cut here is heard whole.
MAX_TURN_SECS = 24.0
# A cut turn holds the VAD's own starts and stops back until the turn has ended; if that end
# never comes (it always has, so far), the VAD is let go after this much more caller audio.
CUT_HOLD_BACKSTOP_SECS = 15.0

_lock = threading.Lock()
_sessions: dict[str, object] = {}


def bundled_smart_turn_path() -> Path:
    """The Smart Turn v3.2 CPU model that ships inside pipecat."""
    from importlib import resources

    return Path(str(resources.files("pipecat.audio.turn.smart_turn.data")
                    .joinpath("smart-turn-v3.2-cpu.onnx")))


def smart_turn_session(path: str | Path | None = None):
    """The process-wide ONNX session for the Smart Turn model at ``path`` (default: the
    bundled one). Side effect: loads it on first use. ``InferenceSession.run`` is safe to
    call from several threads, so every call shares it."""
    import onnxruntime as ort

    model = str(path or bundled_smart_turn_path())
    with _lock:
        if model not in _sessions:
            if not Path(model).is_file():
                raise FileNotFoundError(
                    f"Smart Turn model not found: {model}. Point smart_turn_model at an "
                    f"existing smart-turn v3 ONNX file, or leave it unset for pipecat's own.")
            options = ort.SessionOptions()
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.inter_op_num_threads = 1
            options.intra_op_num_threads = 1
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            # Every call's pauses share it: its arena gives back what no judgement in flight
            # uses (audio/onnx_arena.py).
            _sessions[model] = ShrinkingSession(ort.InferenceSession(model,
                                                                     sess_options=options))
        return _sessions[model]


def smart_turn(path: str | Path | None = None) -> BaseSmartTurn:
    """A Smart Turn v3 analyzer for one call, over the shared session (no per-call load).

    Its own silence timeout is switched off (``stop_secs`` far away): the strategy counts
    silence itself, in audio time."""
    return _shared_smart_turn_class()(smart_turn_session(path))


_smart_turn_class: list[type] = []


def _shared_smart_turn_class() -> type:
    """Pipecat's Smart Turn v3 analyzer over a given session: one class for the process (a
    class made per call would be one more object per call for the garbage collector)."""
    from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3

    with _lock:
        if not _smart_turn_class:
            class _Shared(LocalSmartTurnAnalyzerV3):
                def __init__(self, session) -> None:
                    BaseSmartTurn.__init__(self, params=SmartTurnParams(stop_secs=3600.0))
                    self._log_data = False
                    self._session = session

            _smart_turn_class.append(_Shared)
        return _smart_turn_class[0]


class AudioClock:
    """Seconds of caller audio seen so far, and alarms set in that time.

    ``advance`` is called with each input frame; an alarm fires from inside it once enough
    audio has passed. Nothing here reads a wall clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self._alarms: dict[int, tuple[float, Callable[[], None]]] = {}
        self._next = 0

    def advance(self, frame: InputAudioRawFrame) -> None:
        self.now += frame_seconds(frame)
        due = sorted((at, key) for key, (at, _) in self._alarms.items() if at <= self.now)
        for _, key in due:
            _, callback = self._alarms.pop(key)
            callback()

    def after(self, secs: float, callback: Callable[[], None]) -> int:
        """Call ``callback`` once ``secs`` more seconds of audio have arrived; returns a
        handle for :meth:`cancel`."""
        self._next += 1
        self._alarms[self._next] = (self.now + secs, callback)
        return self._next

    def cancel(self, handle: int | None) -> None:
        if handle is not None:
            self._alarms.pop(handle, None)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One Smart Turn judgement of a pause (kept for the benchmark)."""

    at: float  # audio time of the VAD stop it judged
    finished: bool
    probability: float | None


# Closed-class words a clause does not end on: a transcript ending in one is a caller in the
# middle of a sentence ("I need a visit on..."), whatever the voice's prosody says.
# Determiners, possessives, prepositions, conjunctions and hesitation sounds; not verbs or
# pronouns ("yes I can", "could you?") and not "not" ("I'd rather not").
DANGLING = frozenset("""
    a an the my our your their his her its this these those some any each every another
    on at for to from in into onto with without by of about after before until till between
    around near under over via per than like
    and or but because if when while as since unless nor plus either whether
    um uh er erm hmm mm
""".split())


# A closed-class word cut off by a pause is often heard as another short word, and then the
# transcript seems to end a clause: espeak-ng's "Please book the <pause> service visit" was
# heard "Please book that." (the last word's probability 0.33) and "Please book me." (0.13),
# Piper's as "Please book this." (0.40); Smart Turn heard both espeak-ng pauses as finished
# and the sentence was split (audio/bench_turns.py). So a transcript whose last word is
#
# * doubted: below DOUBTED_WORD_P, the recogniser thinks it more likely wrong than right;
# * short: at most DOUBTED_WORD_LETTERS letters, as the closed-class words mostly are;
# * not the turn's first word (Whisper scores a first word low: no words before it) and not
#   right after a number (a time's "pm", "am": Whisper scores those low too)
#
# may stop where no clause ends. Weaker evidence than a closed-class word heard well, so the
# pause waits ``doubted_secs``, between the doubtful and the unfinished silences. Measured on
# finished turns (the voice set's 160 and the first eight held-out sets' 1,378,
# audio/bench_hearing.py): 2 and 40 are read so, nearly all of them heard wrong anyway; every
# doubted last word, short or long, would have been 10 and 187. In the voice-to-voice calls,
# one of 27 turns: Piper's "...How tight should the seal bolts be?", "be" heard faintly.
DOUBTED_WORD_P = 0.5
DOUBTED_WORD_LETTERS = 4


def ends_on_a_doubted_word(words: tuple[tuple[str, float], ...]) -> bool:
    """True if the last of ``words`` (each word with its probability, as Whisper heard them)
    is a short word the recogniser doubts (see DOUBTED_WORD_P)."""
    scored = [(word.strip(), p) for word, p in words if re.search(r"[A-Za-z0-9]", word)]
    if len(scored) < 2:
        return False
    (before, _), (last, p) = scored[-2], scored[-1]
    short = re.fullmatch(rf"[A-Za-z']{{1,{DOUBTED_WORD_LETTERS}}}\W*", last) is not None
    return p < DOUBTED_WORD_P and short and not re.search(r"\d", before)


def sounds_unfinished(text: str) -> bool:
    """True if a transcript stops where no clause can end: on a closed-class word (DANGLING)
    or a trailing ellipsis / dash. A number is a word here: "come on Friday at 10?" ends on
    "10", not on "at"."""
    stripped = text.strip()
    if not stripped:
        return False
    if stripped.endswith(("...", "\u2026", "-", ",")):
        return True
    words = re.findall(r"[a-z0-9']+", stripped.lower())
    return bool(words) and words[-1] in DANGLING


class AudioClockTurnStop(BaseUserTurnStopStrategy):
    """Ends a turn once the caller has been silent long enough, counted in audio frames.

    After a VAD stop, once the recogniser has delivered every word of the turn so far, the
    turn ends when this much more silence has arrived with no new speech:

    =========================================  =================================
    the transcript stops on a DANGLING word    ``unfinished_secs`` (with ``text_rule``)
    ... on a short word the recogniser doubts  ``doubted_secs`` (with ``text_rule``)
    Smart Turn hears a finished turn           ``finished_secs``
    Smart Turn hears an unfinished one, or     ``doubtful_secs``
    there is no model
    =========================================  =================================

    A sound that never became words ends too (an empty turn), so the next turn starts
    clean. "Every word of the turn so far" is the recogniser's answer for the segment the
    latest VAD stop carries (:func:`audio.frames.stop_segment`): its
    :class:`~audio.frames.SegmentHeardFrame`. Words of a later segment do not count, so the
    pause is judged on the words before it however far ahead the recogniser is. A stop that
    carries no number (a recogniser that does not number its segments) falls back on
    ``stt_idle()``: the recogniser has nothing queued and every transcript it emitted reached
    this strategy.

    A turn cut at its length cap (:class:`~audio.frames.TurnCutFrame`, after the VAD stop the
    cap sent) ends as soon as the recogniser is done with it, with no silence to wait for.

    Smart Turn's verdict only chooses between ``finished_secs`` and ``doubtful_secs``, so once
    ``doubtful_secs`` of silence has followed the stop with every word in, no verdict could
    keep the turn open: the verdict is *moot*, and the turn does not wait for it (nor asks for
    it, when the silence was there before the words). The silence counts whether this
    strategy has seen it or the turn processor holds it unseen (:meth:`quiet_ahead`). On a
    machine whose recogniser answers after that much silence, this takes the model's run off
    every turn's end; the same audio still ends the same way, at most ``doubtful_secs -
    finished_secs`` later in audio time, within a silence.
    """

    def __init__(self, *, finished_secs: float = 0.1, doubtful_secs: float = 0.4,
                 unfinished_secs: float = 0.9, doubted_secs: float | None = None,
                 analyzer: BaseSmartTurn | None = None,
                 text_rule: bool = True, stt_idle: Callable[[], bool] | None = None,
                 **kwargs):
        super().__init__(**kwargs)
        if doubted_secs is None:  # (halfway between the doubtful and the unfinished wait)
            doubted_secs = round((doubtful_secs + unfinished_secs) / 2, 3)
        if not 0 <= finished_secs <= doubtful_secs <= doubted_secs <= unfinished_secs:
            raise ValueError(f"turn timing: need 0 <= finished_secs ({finished_secs}) <= "
                             f"doubtful_secs ({doubtful_secs}) <= doubted_secs "
                             f"({doubted_secs}) <= unfinished_secs ({unfinished_secs})")
        self.finished_secs = finished_secs
        self.doubtful_secs = doubtful_secs
        self.unfinished_secs = unfinished_secs
        self.doubted_secs = doubted_secs
        self.analyzer = analyzer
        self.text_rule = text_rule
        self.stt_idle = stt_idle
        self.clock = AudioClock()
        self.verdicts: list[Verdict] = []
        self.transcripts_seen = 0  # every transcript this strategy saw (for stt_idle)
        self.segments_heard = 0  # the last SegmentHeardFrame's number
        self._awaited: int | None = None  # the segment the latest VAD stop carries
        self._speaking = False
        self._stopped_at: float | None = None  # audio time of the last VAD stop
        self._finished: bool | None = None  # Smart Turn on that pause (None: pending/none)
        self._judged = False
        self._epoch = 0  # bumped by new speech: a verdict for an older pause is dropped
        self._text = ""
        self._words: tuple[tuple[str, float], ...] = ()  # the last word's probability counts
        self._fired = False
        self._stirring = False  # a voice may be starting (audio.frames.VoiceStartingFrame)
        self._cut = False  # the turn reached its length cap (audio.frames.TurnCutFrame)
        # Seconds of silence after the latest VAD stop that the turn processor holds, not yet
        # seen here (quiet_ahead): the pause's silence so far is the larger of it and ours.
        self._quiet_ahead = 0.0
        self.judging: asyncio.Task | None = None  # the Smart Turn judgement in flight
        self._judge_due = False  # the latest pause is to be judged once its words are in
        self.settled_listeners: list[Callable[[], None]] = []  # called when a verdict is in

    async def setup(self, setup):
        await super().setup(setup)
        if self.analyzer is not None:
            self.analyzer.set_sample_rate(setup.audio_in_sample_rate)

    async def cleanup(self):
        await super().cleanup()
        if self.analyzer is not None:
            await self.analyzer.cleanup()

    async def handle_user_turn_started(self):
        self._fired = False
        self._cut = False

    async def handle_user_turn_stopped(self):
        self._text = ""
        self._words = ()
        self._fired = False
        self._cut = False
        self._stopped_at = None
        self._finished = None
        self._judged = False
        self._judge_due = False
        self._quiet_ahead = 0.0
        self._epoch += 1
        if self.analyzer is not None:
            self.analyzer.clear()

    async def process_frame(self, frame: Frame) -> ProcessFrameResult:
        if isinstance(frame, InputAudioRawFrame):
            self.clock.advance(frame)
            if self.analyzer is not None:
                self.analyzer.append_audio(frame.audio, self._speaking)
            await self._maybe_end()
        elif isinstance(frame, VoiceStartingFrame):
            self._stirring = frame.started
            await self._maybe_end()
        elif isinstance(frame, TurnCutFrame):
            self._cut = True
            await self._maybe_end()
        elif isinstance(frame, VADUserStartedSpeakingFrame):
            self._speaking = True
            self._stirring = False
            self._stopped_at = None
            self._finished = None
            self._judged = False
            self._judge_due = False
            self._quiet_ahead = 0.0
            self._epoch += 1
            if self.analyzer is not None:
                self.analyzer.update_vad_start_secs(frame.start_secs)
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self._speaking = False
            self._awaited = stop_segment(frame)
            self._stopped_at = self.clock.now
            self._finished = None
            self._judged = self.analyzer is None
            self._judge_due = self.analyzer is not None
            self._quiet_ahead = 0.0
            self._start_judging()
        elif isinstance(frame, SegmentHeardFrame):
            self.segments_heard = max(self.segments_heard, frame.number)
            await self._maybe_end()
        elif isinstance(frame, TranscriptionFrame):
            self.transcripts_seen += 1
            result = frame.result if isinstance(frame.result, dict) else {}
            text = frame.text.strip()
            if result.get("cumulative") or not self._text:
                self._text = text  # the whole turn so far
            elif text:
                self._text = f"{self._text} {text}"
            if text:  # (the words of the latest transcript end where the turn so far ends)
                self._words = tuple(result.get("words") or ())
            await self._maybe_end()
        return ProcessFrameResult.CONTINUE

    def _start_judging(self) -> None:
        """Ask Smart Turn about the latest pause once every word up to it is in, not at the
        VAD stop. Asked at the stop, the model ran beside that pause's recognition, and on
        two cores each slowed the other: in one call of 9 turns, the final Whisper run took
        62 ms more than the same audio alone (75 ms in another), against 19 ms without the
        model, and the pause waits for both answers anyway. Asked after the words, the
        recogniser runs alone and the model's ~50 ms follows it. A transcript that stops
        mid-clause needs no model: the text rule decides (``unfinished_secs``,
        ``doubted_secs``)."""
        if not self._judge_due or not self.words_in():
            return
        self._judge_due = False
        if self._text_rule_secs() is not None or self._verdict_moot():
            self._judged = True  # silence_needed() gives its wait whatever the model says
            return
        self.judging = self.task_manager.create_task(self._judge(self._epoch),
                                                     f"{self}::judge")

    async def _judge(self, epoch: int) -> None:
        """Ask Smart Turn about the pause (in its own thread); act on the answer if no new
        speech came meanwhile."""
        try:
            assert self.analyzer is not None  # judging starts only with an analyzer
            state, metrics = await self.analyzer.analyze_end_of_turn()
        except Exception:  # noqa: BLE001 - a model failure must not hang the turn
            state, metrics = EndOfTurnState.INCOMPLETE, None
        finally:
            if self.judging is asyncio.current_task():
                self.judging = None
            for listener in tuple(self.settled_listeners):
                listener()
        if epoch != self._epoch or self._stopped_at is None:
            return
        self._finished = state == EndOfTurnState.COMPLETE
        self._judged = True
        probability = getattr(metrics, "probability", None)
        self.verdicts.append(Verdict(self._stopped_at, self._finished,
                                     None if probability is None else float(probability)))
        await self._maybe_end()

    def settled(self) -> bool:
        """The answers a pause waits for are in: Smart Turn's verdict (or it is moot) and every
        transcript (what :class:`audio.turn_order.OrderedUserTurnProcessor` holds the audio
        for)."""
        if not self.words_in():
            return False
        return (not self._judge_due and self.judging is None) or self._verdict_moot()

    def quiet_ahead(self, secs: float) -> None:
        """The turn processor holds ``secs`` of the caller's audio after the latest VAD stop,
        silence all of it (no voice starting), that this strategy has not seen yet."""
        self._quiet_ahead = secs
        self._start_judging()  # (moot now: the model need not run)

    def _verdict_moot(self) -> bool:
        """Smart Turn's verdict on the latest pause can no longer change how it ends: every
        word is in, they leave the wait to the model, and ``doubtful_secs`` of silence (the
        longest wait either verdict gives) has followed the stop."""
        if self._stopped_at is None or self._speaking or self._stirring:
            return False
        quiet = max(self._quiet_ahead, self.clock.now - self._stopped_at)
        return (quiet >= self.doubtful_secs - 1e-9 and self.words_in()
                and self._text_rule_secs() is None)

    def words_in(self) -> bool:
        """Every word up to the latest VAD stop has reached this strategy."""
        if self._awaited is not None:
            return self.segments_heard >= self._awaited
        return self.stt_idle is None or self.stt_idle()

    def _text_rule_secs(self) -> float | None:
        """The silence the transcript so far asks for, whatever Smart Turn says (None: the
        words leave it to the model): a closed-class last word, then a doubted short one."""
        if not self.text_rule:
            return None
        if sounds_unfinished(self._text):
            return self.unfinished_secs
        if ends_on_a_doubted_word(self._words):
            return self.doubted_secs
        return None

    def silence_needed(self) -> float | None:
        """Seconds of silence after the VAD stop this pause needs (None: still judging)."""
        if not self._judged:
            return self.doubtful_secs if self._verdict_moot() else None
        rule = self._text_rule_secs()
        if rule is not None:
            return rule
        if self._finished:
            return self.finished_secs
        return self.doubtful_secs

    async def _maybe_end(self) -> None:
        self._start_judging()  # (the words of the latest pause may have just come in)
        if self._cut and not self._fired and not self._speaking:
            if self.words_in():  # every word of the cut turn is in
                self._fired = True
                await self.trigger_user_turn_stopped()
            return
        if self._fired or self._speaking or self._stirring or self._stopped_at is None:
            return  # (stirring: speech that resumes before the turn ends continues it)
        if not self.words_in():
            return  # the latest words are not in yet: they decide how long to wait
        needed = self.silence_needed()
        if needed is None or self.clock.now - self._stopped_at < needed - 1e-9:
            return
        self._fired = True
        await self.trigger_user_turn_stopped()


class CappedVADProcessor(FadingVADProcessor):
    """The VAD stage, with a cap on how long one caller turn may last.

    A turn starts at its first VAD start and lasts until the turn processor ends it (its
    ``UserStoppedSpeakingFrame``, which it broadcasts upstream too), pauses included. Once
    ``max_turn_secs`` of caller audio have passed since that start, the turn is cut:

    * if the caller is still speaking, a VAD stop goes downstream as if they had paused: the
      recogniser hears the turn so far, as at any stop;
    * a :class:`~audio.frames.TurnCutFrame` follows: the end-of-turn strategy ends the turn
      as soon as the recogniser is done, whatever comes after;
    * until the turn has ended, the VAD's own starts, stops and fades are held back (a voice
      that goes on would otherwise keep the cut turn open; what the caller says meanwhile is
      not taken in: the agent has taken the floor). If the caller is still speaking when it
      ends, a VAD start there opens the next turn (the recogniser's pre-roll gives it the
      last second before). The hold ends after CUT_HOLD_BACKSTOP_SECS of audio at most.

    ``on_turn_end(cut)`` runs whenever a turn has ended, ``cut`` saying whether it was cut
    (the reply to it is due next). ``max_turn_secs=None``: no cap. Counted in audio frames,
    never a wall clock (see this module's docstring).
    """

    def __init__(self, *, vad_analyzer: FadeWatchingSilero, max_turn_secs: float | None,
                 on_turn_end: Callable[[bool], None] | None = None, **kwargs) -> None:
        if max_turn_secs is not None and max_turn_secs <= 0:
            raise ValueError(f"max_turn_secs must be > 0 or None (no cap), not {max_turn_secs}")
        super().__init__(vad_analyzer=vad_analyzer, **kwargs)
        self.max_turn_secs = max_turn_secs
        self.cuts = 0  # turns cut so far
        self._analyzer = vad_analyzer
        self._on_turn_end = on_turn_end
        self._now = 0.0  # seconds of caller audio seen
        self._turn_started: float | None = None
        self._holding = False  # a cut turn has not ended yet
        self._cut_at = 0.0
        self._voiced = False  # what the VAD itself says, held back or not
        self._sending_cut = False

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, UserStoppedSpeakingFrame):
            await self._turn_ended()
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame):
            self._now += frame_seconds(frame)
            await self._maybe_cut()

    async def push_frame(self, frame: Frame,
                         direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        if isinstance(frame, (VADUserStartedSpeakingFrame, VADUserStoppedSpeakingFrame)):
            if direction == FrameDirection.DOWNSTREAM and not self._sending_cut:
                self._voiced = isinstance(frame, VADUserStartedSpeakingFrame)
                if self._voiced and not self._holding and self._turn_started is None:
                    self._turn_started = self._now
            if self._holding and not self._sending_cut:
                return
        elif self._holding and isinstance(frame, (UserSpeakingFrame, VoiceFadingFrame,
                                                  VoiceStartingFrame)):
            return
        await super().push_frame(frame, direction)

    async def _maybe_cut(self) -> None:
        if self._holding and self._now - self._cut_at >= CUT_HOLD_BACKSTOP_SECS:
            await self._turn_ended()  # the turn's end never came: hear the caller again
            return
        if self.max_turn_secs is None or self._holding or self._turn_started is None:
            return
        if self._now - self._turn_started < self.max_turn_secs - 1e-9:
            return
        self._holding = True
        self._cut_at = self._now
        self.cuts += 1
        if self._voiced:
            self._sending_cut = True
            try:
                await self.broadcast_frame(VADUserStoppedSpeakingFrame,
                                           stop_secs=self._analyzer.params.stop_secs)
            finally:
                self._sending_cut = False
        await self.push_frame(TurnCutFrame())

    async def _turn_ended(self) -> None:
        self._turn_started = None
        cut, self._holding = self._holding, False
        if self._on_turn_end is not None:
            self._on_turn_end(cut)
        if cut and self._voiced:  # the caller went on: that is the next turn
            await self.broadcast_frame(VADUserStartedSpeakingFrame,
                                       start_secs=self._analyzer.params.start_secs)
