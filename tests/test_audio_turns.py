"""End of turn in audio time (``audio/turns.py``), driven by ``pipecat.tests.utils.run_test``.

``run_test`` pushes frames as fast as the loop goes: almost no wall-clock time passes while
seconds of audio do. That is exactly a loaded machine catching up on a burst of frames, so
these tests show the turn ends on the caller's audio, not on the machine's clock: a
wall-clock timer would never fire here, or would fire in the middle of a burst.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import numpy as np
import pytest
from audio_fakes import audio_frames as _audio
from audio_fakes import said as _said
from pipecat.audio.turn.base_turn_analyzer import EndOfTurnState
from pipecat.frames.frames import (
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.tests.utils import run_test
from pipecat.turns.user_start import VADUserTurnStartStrategy
from pipecat.turns.user_turn_processor import UserTurnProcessor
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils.asyncio.task_manager import TaskManager

from audio.frames import VoiceStartingFrame
from audio.turns import (
    AudioClock,
    AudioClockTurnStop,
    ends_on_a_doubted_word,
    smart_turn,
    sounds_unfinished,
)

pytestmark = pytest.mark.anyio



class FakeSmartTurn:
    """Stands in for the ONNX model: says what it is told, and records what it was fed."""

    def __init__(self, finished: bool):
        self.finished = finished
        self.fed = 0
        self.cleared = 0

    def set_sample_rate(self, rate: int) -> None:
        self.rate = rate

    def append_audio(self, audio: bytes, is_speech: bool) -> EndOfTurnState:
        self.fed += 1
        return EndOfTurnState.INCOMPLETE

    async def analyze_end_of_turn(self):
        return (EndOfTurnState.COMPLETE if self.finished else EndOfTurnState.INCOMPLETE), None

    def update_vad_start_secs(self, secs: float) -> None:
        self.start_secs = secs

    def clear(self) -> None:
        self.cleared += 1

    async def cleanup(self) -> None:
        return None


async def _turn_ends(stop: AudioClockTurnStop, frames, *, verdicts: bool = True) -> list[float]:
    """Feed ``frames`` to the strategy one by one, in order; return the audio time of each
    end of turn it triggered. A Smart Turn judgement is awaited where it was started (the
    model takes no audio time here; ``verdicts=False``: never awaited, it may still be in
    flight at the end); nothing waits on a wall clock."""
    fired: list[float] = []

    async def record(**_kwargs) -> None:
        fired.append(round(stop.clock.now, 2))
        await stop.handle_user_turn_stopped()

    # Replaces the bound method on this instance, to record each end of turn it triggers.
    stop.trigger_user_turn_stopped = record  # type: ignore[method-assign]
    await stop.setup(SimpleNamespace(task_manager=TaskManager(loop=asyncio.get_running_loop()),
                                     audio_in_sample_rate=16000))
    for frame in frames:
        await stop.process_frame(frame)
        if verdicts and stop.judging is not None:
            await stop.judging
    return fired


def _speech(text: str, secs: float = 1.0) -> list:
    return [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(secs, voiced=True),
            VADUserStoppedSpeakingFrame(stop_secs=0.2), _said(text)]


@pytest.mark.parametrize("text,unfinished", [
    ("I need a visit on", True),
    ("Could you send a technician to", True),
    ("Please book pump P-200 for the", True),
    ("Thursday morning and", True),
    ("I'd like, um", True),
    ("The seal on P-100 is...", True),
    ("Sorry,", True),
    ("I need a visit on Thursday morning.", False),
    ("Yes I can", False),
    ("Could you?", False),
    ("I'd rather not", False),
    ("P-200, not P-100", False),
    ("Could a technician come on Friday at 10?", False),
    ("Book it for 2", False),
    ("Then the visit on the 9th at 3.30", False),
    ("Move it to room 4 on", True),
    ("Pump P 200 is making a noise at", True),
    ("", False),
])
def test_a_transcript_that_stops_on_a_closed_class_word_is_unfinished(text, unfinished):
    assert sounds_unfinished(text) is unfinished


@pytest.mark.parametrize("words,unfinished", [
    ((("Please", 0.54), (" book", 0.21), (" that.", 0.33)), True),  # a cut "the", heard wrong
    ((("Send", 0.9), (" it", 0.92), (" to", 0.9), (" him", 0.41)), True),
    ((("Send", 0.9), (" it", 0.92), (" to", 0.9), (" him", 0.97)), False),  # heard well
    ((("Send", 0.2), (" it", 0.3), (" to", 0.3), (" him", 0.8)), False),  # the last word counts
    ((("Send", 0.9), (" it", 0.92), (" him", 0.8), (".", 0.1)), False),  # not punctuation
    ((("Send", 0.9), (" it", 0.92), (" tomorrow", 0.3)), False),  # a long word
    ((("Yes.", 0.45),), False),  # a turn's first word: Whisper scores it low
    ((("Book", 0.9), (" it", 0.92), (" at", 0.9), (" 2", 0.9), (" PM", 0.31)), False),  # a unit
    ((), False),  # a recogniser that scores no words
])
def test_a_transcript_that_stops_on_a_short_word_the_recogniser_doubts_is_doubted(words,
                                                                                  unfinished):
    assert ends_on_a_doubted_word(words) is unfinished


async def test_a_pause_after_a_doubted_word_waits_longer_than_a_doubtful_one():
    """espeak-ng's "Please book the <pause> service visit ...": the cut "the" came back as
    "that" (p 0.33), a complete clause, and Smart Turn heard the pause as finished."""
    def heard(text: str, *scores: float) -> TranscriptionFrame:
        words = tuple(zip(text.split(), scores, strict=True))
        return TranscriptionFrame(text, "caller", "2026-12-01T09:00:00",
                                  result={"cumulative": True, "words": words}, finalized=True)

    def stopped(last_p: float) -> list:
        return [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
                VADUserStoppedSpeakingFrame(stop_secs=0.2), heard("Please book that.",
                                                                  0.54, 0.21, last_p)]

    def paused(last_p: float) -> list:
        return [*stopped(last_p), *_audio(0.5),
                *_speech("Please book the service visit for Wednesday"), *_audio(1.0)]

    def strategy():
        return AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.3, unfinished_secs=1.4,
                                  doubted_secs=0.6, analyzer=FakeSmartTurn(True))

    # one turn (0.3 s after the second stop: here the words come after the stop is judged,
    # as in test_a_pause_mid_sentence_waits_for_the_rest_even_in_a_burst_of_frames)
    assert await _turn_ends(strategy(), paused(0.33)) == [2.5 + 0.3]
    assert await _turn_ends(strategy(), paused(0.95)) == [1.1, 2.6]  # a word heard well
    # and a turn that really ends there waits doubted_secs, not unfinished_secs
    stop = strategy()
    assert await _turn_ends(stop, [*stopped(0.33), *_audio(2.0)]) == [1.6]
    no_rule = AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.3, unfinished_secs=1.4,
                                 doubted_secs=0.6, analyzer=FakeSmartTurn(True),
                                 text_rule=False)
    assert await _turn_ends(no_rule, paused(0.33)) == [1.1, 2.6]


async def test_the_turn_ends_after_the_silence_in_audio_time_not_wall_time():
    stop = AudioClockTurnStop(doubtful_secs=0.3, unfinished_secs=0.9)
    fired = await _turn_ends(stop, [*_speech("Thursday morning please"), *_audio(1.0)])
    # 1.0 s of speech, then the VAD stop: 0.3 s more of silence ends the turn
    assert fired == [1.3]


async def test_a_pause_mid_sentence_waits_for_the_rest_even_in_a_burst_of_frames():
    stop = AudioClockTurnStop(doubtful_secs=0.3, unfinished_secs=0.9)
    frames = [*_speech("I need a visit on"), *_audio(0.6),  # a 0.6 s pause after "on"
              *_speech("I need a visit on Thursday morning"), *_audio(1.0)]
    fired = await _turn_ends(stop, frames)
    assert fired == [2.6 + 0.3]  # one turn, ended 0.3 s after the second stop


async def test_an_unfinished_transcript_still_ends_after_unfinished_secs():
    stop = AudioClockTurnStop(doubtful_secs=0.3, unfinished_secs=0.9)
    fired = await _turn_ends(stop, [*_speech("Could you send a technician to"), *_audio(2.0)])
    assert fired == [1.9]


@pytest.mark.parametrize("finished,after", [(True, 0.1), (False, 0.4)])
async def test_smart_turn_decides_between_finished_and_doubtful(finished, after):
    model = FakeSmartTurn(finished)
    stop = AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9,
                              analyzer=model)
    fired = await _turn_ends(stop, [*_speech("Thursday morning please"), *_audio(1.0)])
    assert fired == [round(1.0 + after, 2)]
    assert model.fed == 100  # every frame reached the model: it hears the turn
    assert model.cleared >= 1  # the turn's audio is dropped when the turn ends


async def test_the_text_rule_overrides_a_model_that_hears_a_finished_turn():
    stop = AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9,
                              analyzer=FakeSmartTurn(True))
    fired = await _turn_ends(stop, [*_speech("Please book pump P-200 for"), *_audio(2.0)])
    assert fired == [1.9]


async def test_words_still_being_recognised_hold_the_turn():
    busy = {"stt": True}
    stop = AudioClockTurnStop(doubtful_secs=0.3, stt_idle=lambda: not busy["stt"])
    frames = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
              VADUserStoppedSpeakingFrame(stop_secs=0.2), *_audio(1.0)]
    assert await _turn_ends(stop, frames) == []  # 1 s of silence, but words pending
    busy["stt"] = False
    stop2 = AudioClockTurnStop(doubtful_secs=0.3, stt_idle=lambda: not busy["stt"])
    assert await _turn_ends(stop2, frames) == [1.3]  # a sound with no words ends too


async def test_speech_resuming_before_the_silence_is_long_enough_is_one_turn():
    stop = AudioClockTurnStop(doubtful_secs=0.3)
    frames = [*_speech("Sorry, Thursday"), *_audio(0.2), *_speech("Sorry, Thursday morning"),
              *_audio(1.0)]
    assert await _turn_ends(stop, frames) == [2.5]


async def test_a_voice_starting_again_holds_the_turn_until_the_vad_is_sure_or_it_fades():
    """Found by a blind script: "...for the gearbox on" + 0.9 s + "Friday afternoon." The
    turn would end 0.9 s after the stop; the resumed voice reached Silero's first confident
    window before that, but its VAD start (start_secs of it) after, and the sentence was
    split. A voice that may be starting holds the end of the turn."""
    stop = AudioClockTurnStop(doubtful_secs=0.3, unfinished_secs=0.9)
    frames = [*_speech("I'd like to book a visit for the gearbox on"), *_audio(0.8),
              VoiceStartingFrame(started=True), *_audio(0.3, voiced=True),
              *_speech("I'd like to book a visit for the gearbox on Friday afternoon"),
              *_audio(1.0)]
    assert await _turn_ends(AudioClockTurnStop(doubtful_secs=0.3, unfinished_secs=0.9),
                            frames) == [3.1 + 0.3]  # one turn
    click = [*_speech("I need a visit on"), *_audio(0.5), VoiceStartingFrame(started=True),
             *_audio(0.6), VoiceStartingFrame(started=False), *_audio(0.5)]
    # a click that never became speech: held while it might, then the turn ends at once
    assert await _turn_ends(stop, click) == [2.1]


async def test_in_the_pipeline_one_sentence_with_a_pause_is_one_turn():
    """Through pipecat's UserTurnProcessor: audio and VAD frames overtake the queued
    transcripts there, so the strategy waits until every transcript the recogniser emitted
    has arrived (stt_idle) before it decides."""
    emitted = {"n": 0}
    stop = AudioClockTurnStop(doubtful_secs=0.3, unfinished_secs=0.9,
                              stt_idle=lambda: stop.transcripts_seen >= emitted["n"])
    processor = UserTurnProcessor(user_turn_strategies=UserTurnStrategies(
        start=[VADUserTurnStartStrategy(enable_interruptions=False)], stop=[stop]),
        user_turn_stop_timeout=60.0)
    emitted["n"] = 2
    frames = [*_speech("I need a visit on"), *_audio(0.6),
              *_speech("I need a visit on Thursday morning"), *_audio(1.0)]
    down, _ = await run_test(processor, frames_to_send=frames)
    assert sum(isinstance(f, UserStartedSpeakingFrame) for f in down) == 1
    assert sum(isinstance(f, UserStoppedSpeakingFrame) for f in down) == 1


def test_timings_out_of_order_are_refused_with_the_values():
    with pytest.raises(ValueError, match="finished_secs .0.5. <= doubtful_secs .0.2."):
        AudioClockTurnStop(finished_secs=0.5, doubtful_secs=0.2)


def test_audio_clock_alarms_fire_on_audio_and_can_be_cancelled():
    clock = AudioClock()
    fired = []
    clock.after(0.05, lambda: fired.append("a"))
    handle = clock.after(0.03, lambda: fired.append("b"))
    clock.cancel(handle)
    for frame in _audio(0.04):
        clock.advance(frame)
    assert fired == []
    clock.advance(_audio(0.02)[0])
    assert fired == ["a"] and clock.now == pytest.approx(0.06)


def test_the_bundled_smart_turn_model_loads_once_and_judges_a_pause():
    first, second = smart_turn(), smart_turn()
    assert first._session is second._session  # one ONNX session per process
    first.set_sample_rate(16000)
    tone = (np.sin(np.arange(16000) * 2 * np.pi * 180 / 16000) * 8000).astype(np.int16)
    for i in range(0, tone.size, 320):
        first.append_audio(tone[i:i + 320].tobytes(), True)
    first.append_audio(np.zeros(3200, dtype=np.int16).tobytes(), False)
    state, metrics = first._process_speech_segment(first._audio_buffer)
    assert state in (EndOfTurnState.COMPLETE, EndOfTurnState.INCOMPLETE)
    assert 0.0 <= metrics.probability <= 1.0


def test_a_missing_smart_turn_model_names_the_path_and_the_fix(tmp_path):
    missing = tmp_path / "nope.onnx"
    with pytest.raises(FileNotFoundError, match="nope.onnx.*smart_turn_model"):
        smart_turn(missing)


class SilentSmartTurn(FakeSmartTurn):
    """A model that is asked and never answers (its judgement stays in flight)."""

    def __init__(self):
        super().__init__(True)
        self.asked = 0

    async def analyze_end_of_turn(self):
        self.asked += 1
        await asyncio.Event().wait()


async def test_a_verdict_still_out_after_the_longest_wait_it_could_give_is_not_waited_for():
    """Smart Turn's verdict only chooses between finished_secs and doubtful_secs. With the
    words in at the stop and the model still judging, the turn ends doubtful_secs after the
    stop: no verdict could have kept it open longer."""
    model = SilentSmartTurn()
    stop = AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9,
                              analyzer=model)
    fired = await _turn_ends(stop, [*_speech("Yes, go ahead."), *_audio(1.0)], verdicts=False)
    assert fired == [1.4] and stop.judging is not None  # asked, and still judging
    stop.judging.cancel()


async def test_a_moot_verdict_is_not_asked_for_and_a_rule_wait_still_stands():
    """Words that come after doubtful_secs of silence leave nothing for the model to decide;
    words that stop mid-clause still wait unfinished_secs."""
    model = SilentSmartTurn()
    stop = AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9,
                              analyzer=model, stt_idle=lambda: stop.transcripts_seen > 0)
    late = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
            VADUserStoppedSpeakingFrame(stop_secs=0.2), *_audio(0.5), _said("Yes, go ahead."),
            *_audio(0.5)]
    assert await _turn_ends(stop, late) == [1.5]  # ended as its words came in
    assert model.asked == 0
    dangling = AudioClockTurnStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9,
                                  analyzer=SilentSmartTurn(),
                                  stt_idle=lambda: dangling.transcripts_seen > 0)
    frames = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
              VADUserStoppedSpeakingFrame(stop_secs=0.2), *_audio(0.5),
              _said("I need a visit on"), *_audio(1.0)]
    assert await _turn_ends(dangling, frames) == [1.9]
