"""A pause ends the turn or not by the audio alone, however late the recogniser and Smart Turn
answer (``audio/turn_order.py``).

The same frames are sent with the answers early (each transcript right after its VAD stop)
and late (every transcript after the last audio frame, Smart Turn's verdict only once a
number of frames were held). The turn ends must be the same, at the same audio times. Nothing
here waits on a clock: "late" is a position in the frame sequence, and the slow verdict waits
on an event the processor's own hold sets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from audio_fakes import audio_frames as _audio
from audio_fakes import said as _said
from pipecat.audio.turn.base_turn_analyzer import EndOfTurnState
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InputAudioRawFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.tests.utils import run_test
from pipecat.turns.user_start import VADUserTurnStartStrategy
from pipecat.turns.user_turn_strategies import UserTurnStrategies

from audio.frames import SEGMENT_KEY, SegmentHeardFrame, VoiceStartingFrame
from audio.turn_order import OrderedUserTurnProcessor
from audio.turns import AudioClockTurnStop

pytestmark = pytest.mark.anyio



class CountingStop(AudioClockTurnStop):
    """The stop strategy, with a stand-in recogniser: every VAD stop it has seen owes one
    transcript (the real one counts the recogniser's queue); records each end it triggers."""

    def __init__(self, **kwargs):
        super().__init__(stt_idle=lambda: self.transcripts_seen >= self.stops, **kwargs)
        self.stops = 0
        self.ends: list[float] = []

    async def process_frame(self, frame):
        if isinstance(frame, VADUserStoppedSpeakingFrame):
            self.stops += 1
        return await super().process_frame(frame)

    async def trigger_user_turn_stopped(self, *args, **kwargs):
        self.ends.append(round(self.clock.now, 2))
        await super().trigger_user_turn_stopped(*args, **kwargs)


class Verdicts:
    """Smart Turn stand-in: "finished" on every pause, once ``ready`` is set (each verdict
    uses it up), and at once after ``ended``: the frames have all been sent, so none will
    come to set it (the model answers by itself; this stand-in waits for frames)."""

    def __init__(self, ready: asyncio.Event | None = None):
        self.ready = ready
        self.ended = False
        self.asked = 0

    def set_sample_rate(self, rate: int) -> None:
        self.rate = rate

    def append_audio(self, audio: bytes, is_speech: bool) -> EndOfTurnState:
        return EndOfTurnState.INCOMPLETE

    async def analyze_end_of_turn(self):
        self.asked += 1
        if self.ready is not None:
            await self.ready.wait()
            if not self.ended:
                self.ready.clear()
        return EndOfTurnState.COMPLETE, None

    def update_vad_start_secs(self, secs: float) -> None:
        self.start_secs = secs

    def clear(self) -> None:
        return None

    async def cleanup(self) -> None:
        return None


class SlowAnswers(OrderedUserTurnProcessor):
    """Sets ``ready`` (Smart Turn answers) only once ``after`` frames are held: the verdict
    comes late in audio time, decided by the frame sequence, not by a clock. Smart Turn is
    asked once a pause's words are in, and here they come after every audio frame (data
    frames queue behind system frames), so the last verdicts are asked as the call ends:
    from then on it answers at once."""

    def __init__(self, ready: asyncio.Event, after: int, verdicts: Verdicts, **kwargs):
        super().__init__(**kwargs)
        self._ready, self._after, self._verdicts = ready, after, verdicts

    async def process_frame(self, frame, direction):
        if isinstance(frame, EndFrame):
            self._verdicts.ended = True
            self._ready.set()
        await super().process_frame(frame, direction)
        if self.holding and len(self._held) >= self._after:
            self._ready.set()


def _sentence_with_a_comma(resume_after: float) -> tuple[list, list]:
    """ "Sorry, I meant P-200," [pause] "not P-100." as VAD and audio frames, with the
    transcripts apart. The VAD stop comes 0.2 s into the pause; the voice comes back
    ``resume_after`` seconds after that stop."""
    first = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
             *_audio(0.2), VADUserStoppedSpeakingFrame(stop_secs=0.2)]
    rest = [*_audio(resume_after), VoiceStartingFrame(started=True), *_audio(0.1, voiced=True),
            VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(0.7, voiced=True),
            *_audio(0.2), VADUserStoppedSpeakingFrame(stop_secs=0.2)]
    return first, rest


TEXTS = ("Sorry, I meant P 200.", "Sorry, I meant P 200, not P 100.")


def _early(resume_after: float) -> list:
    first, rest = _sentence_with_a_comma(resume_after)
    return [*first, _said(TEXTS[0]), *rest, _said(TEXTS[1]), *_audio(1.0)]


def _late(resume_after: float) -> list:
    first, rest = _sentence_with_a_comma(resume_after)
    return [*first, *rest, *_audio(1.0), _said(TEXTS[0]), _said(TEXTS[1])]


async def _ends(frames: list, *, finished_secs: float, slow_verdict_after: int = 0):
    ready = asyncio.Event() if slow_verdict_after else None
    verdicts = Verdicts(ready)
    stop = CountingStop(finished_secs=finished_secs, doubtful_secs=0.4, unfinished_secs=0.9,
                        analyzer=verdicts)
    strategies = UserTurnStrategies(start=[VADUserTurnStartStrategy(enable_interruptions=False)],
                                    stop=[stop])
    processor: OrderedUserTurnProcessor
    if ready is not None:
        processor = SlowAnswers(ready, slow_verdict_after, verdicts, settled=stop.settled,
                                user_turn_strategies=strategies, user_turn_stop_timeout=60.0)
    else:
        processor = OrderedUserTurnProcessor(settled=stop.settled,
                                             user_turn_strategies=strategies,
                                             user_turn_stop_timeout=60.0)
    stop.settled_listeners.append(processor.wake)
    down, _ = await run_test(processor, frames_to_send=frames)
    stopped = sum(isinstance(f, UserStoppedSpeakingFrame) for f in down)
    return stop.ends, stopped, processor


@pytest.mark.parametrize("finished_secs,resume_after,ends", [
    # the pause outlasts the silence a finished-sounding turn needs: two turns, each ended
    # finished_secs after its VAD stop (1.2 s and 2.34 s of audio)
    (0.1, 0.14, [1.3, 2.44]),
    (0.25, 0.14, [2.6]),  # it does not: one turn (0.25 s after 2.34, in 20 ms frames)
])
async def test_a_pause_ends_the_turn_or_not_however_late_the_answers_come(
        finished_secs, resume_after, ends):
    early, _, _ = await _ends(_early(resume_after), finished_secs=finished_secs)
    late, _, late_processor = await _ends(_late(resume_after), finished_secs=finished_secs)
    slow, stopped, _ = await _ends(_late(resume_after), finished_secs=finished_secs,
                                   slow_verdict_after=12)
    assert early == late == slow == ends
    assert stopped == len(ends)
    assert late_processor.holds >= 1 and late_processor.backstops == 0


async def _never_answered(**bounds) -> tuple[CountingStop, OrderedUserTurnProcessor,
                                             list[float], Sequence[Frame]]:
    """A second of speech, its VAD stop, then 2 s of silence whose words never come, through
    a turn processor with ``bounds`` (``working``, ``max_held_secs``, ``hung_held_secs``):
    the strategy, the processor, what ``on_backstop`` was told (held, idle), the frames out."""
    stop = CountingStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9,
                        analyzer=Verdicts())
    processor = OrderedUserTurnProcessor(
        settled=stop.settled, user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy(enable_interruptions=False)], stop=[stop]),
        user_turn_stop_timeout=60.0, **bounds)
    told: list[float] = []
    # the pipeline traces it (a `backstop` event)
    processor.on_backstop = lambda held, idle: told.extend((held, idle))
    frames = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
              VADUserStoppedSpeakingFrame(stop_secs=0.2), *_audio(2.0)]
    down, _ = await run_test(processor, frames_to_send=frames)
    return stop, processor, told, down


async def test_a_recogniser_that_never_answers_delays_the_end_and_never_stops_it():
    stop, processor, told, down = await _never_answered(max_held_secs=0.5)
    assert processor.backstops == 1 and told == [pytest.approx(0.5)] * 2
    # every held frame went on, in order: the audio after the stop reached the strategy
    assert stop.clock.now == pytest.approx(3.0)
    assert sum(isinstance(f, InputAudioRawFrame) for f in down) == 150
    assert stop.ends == []  # no transcript: the strategy still waits for it


async def test_the_audio_after_a_stop_goes_on_after_its_transcript():
    """Downstream too, the transcript comes before the audio that followed the pause, though
    it was sent after all of it."""
    stop = CountingStop(finished_secs=0.1, doubtful_secs=0.4, unfinished_secs=0.9)
    processor = OrderedUserTurnProcessor(
        settled=stop.settled, user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy(enable_interruptions=False)], stop=[stop]),
        user_turn_stop_timeout=60.0)
    frames = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(0.4, voiced=True),
              VADUserStoppedSpeakingFrame(stop_secs=0.2), *_audio(0.4), _said("Yes.")]
    down, _ = await run_test(processor, frames_to_send=frames)
    kinds = [type(f).__name__ for f in down if not isinstance(f, UserStoppedSpeakingFrame)]
    said = kinds.index("TranscriptionFrame")
    assert kinds[:said].count("InputAudioRawFrame") == 20  # the audio up to the stop
    assert kinds[said + 1:].count("InputAudioRawFrame") == 20  # the pause, after the words
    assert processor.holds == 1 and stop.ends == [0.8]  # no model: doubtful_secs after


class EndsAt(AudioClockTurnStop):
    """The stop strategy as the pipeline has it (numbered segments, no stt_idle); records
    the audio time of each end it triggers."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.ends: list[float] = []

    async def trigger_user_turn_stopped(self, *args, **kwargs):
        self.ends.append(round(self.clock.now, 2))
        await super().trigger_user_turn_stopped(*args, **kwargs)


def _stop(segment: int) -> VADUserStoppedSpeakingFrame:
    """A VAD stop as it leaves the recogniser: numbered with the segment it queued."""
    frame = VADUserStoppedSpeakingFrame(stop_secs=0.2)
    frame.metadata[SEGMENT_KEY] = segment
    return frame


def _answer(text: str, segment: int) -> list:
    said = _said(text)
    said.result = {"cumulative": True, "segment": segment}
    return [said, SegmentHeardFrame(number=segment)]


ON = "I need a visit on"  # dangling: the caller is not done
ON_THURSDAY = "I need a visit on Thursday morning."


def _visit_on(late: bool) -> list:
    """ "I need a visit on..." [0.5 s] "Thursday morning." with the recogniser's answers
    right after each stop, or all after the last audio (it ran ahead: segment 2's words were
    ready before the first pause was judged)."""
    first = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
             *_audio(0.2), _stop(1)]
    rest = [*_audio(0.5), VoiceStartingFrame(started=True), *_audio(0.1, voiced=True),
            VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(0.7, voiced=True),
            *_audio(0.2), _stop(2)]
    if late:
        return [*first, *rest, *_audio(1.5), *_answer(ON, 1), *_answer(ON_THURSDAY, 2)]
    return [*first, *_answer(ON, 1), *rest, *_answer(ON_THURSDAY, 2), *_audio(1.5)]


@pytest.mark.parametrize("late", [False, True])
async def test_a_pause_is_judged_on_the_words_before_it_not_on_words_heard_ahead(late):
    """Segment 2's transcript ("...on Thursday morning.", finished) is ready before the
    pause after "on" is judged. The pause still waits as long as "I need a visit on" needs
    (0.9 s: it dangles), so the 0.5 s pause does not end the turn, as when the words came in
    time. Downstream, each answer comes right after its own stop."""
    stop = EndsAt(finished_secs=0.25, doubtful_secs=0.4, unfinished_secs=0.9,
                  analyzer=Verdicts())
    processor = OrderedUserTurnProcessor(
        settled=stop.settled, user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy(enable_interruptions=False)], stop=[stop]),
        user_turn_stop_timeout=60.0)
    stop.settled_listeners.append(processor.wake)
    down, _ = await run_test(processor, frames_to_send=_visit_on(late))
    assert stop.ends == [2.96]  # once: 0.25 s after the second stop (2.7 s), in 20 ms frames
    order = [f"stop {f.metadata[SEGMENT_KEY]}" if isinstance(f, VADUserStoppedSpeakingFrame)
             else f.text if hasattr(f, "text") else f"heard {f.number}" for f in down
             if isinstance(f, (VADUserStoppedSpeakingFrame, SegmentHeardFrame))
             or hasattr(f, "result")]
    assert order == ["stop 1", ON, "heard 1", "stop 2", ON_THURSDAY, "heard 2"]
    assert processor.backstops == 0


class Watched(Verdicts):
    """Records how many segments' words the strategy had when each verdict was asked."""

    def __init__(self, stop: AudioClockTurnStop | None = None):
        super().__init__()
        self.stop = stop
        self.words_when_asked: list[int] = []

    async def analyze_end_of_turn(self):
        assert self.stop is not None
        self.words_when_asked.append(self.stop.segments_heard)
        return await super().analyze_end_of_turn()


@pytest.mark.parametrize("late", [False, True])
async def test_smart_turn_is_asked_once_the_words_are_in_and_not_on_a_dangling_pause(late):
    """Asked at the VAD stop, the model would run beside the pause's recognition and slow
    it. It is asked once the words up to the pause are in; after "I need a visit on" it is
    not asked at all (the text rule decides: 0.9 s), so one verdict, with segment 2 heard."""
    verdicts = Watched()
    stop = EndsAt(finished_secs=0.25, doubtful_secs=0.4, unfinished_secs=0.9,
                  analyzer=verdicts)
    verdicts.stop = stop
    processor = OrderedUserTurnProcessor(
        settled=stop.settled, user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy(enable_interruptions=False)], stop=[stop]),
        user_turn_stop_timeout=60.0)
    stop.settled_listeners.append(processor.wake)
    await run_test(processor, frames_to_send=_visit_on(late))
    assert verdicts.words_when_asked == [2]
    assert stop.ends == [2.96]  # the finished verdict: 0.25 s after the second stop
    assert processor.backstops == 0


def test_a_hold_needs_a_positive_bound_within_the_hung_one():
    with pytest.raises(ValueError, match="need 0 < max_held_secs <= hung_held_secs, not 0"):
        OrderedUserTurnProcessor(settled=lambda: True, max_held_secs=0)
    with pytest.raises(ValueError, match="not 6 and 5"):
        OrderedUserTurnProcessor(settled=lambda: True, max_held_secs=6, hung_held_secs=5)


@pytest.mark.parametrize("finished_secs,resume_after,ends", [(0.1, 0.14, [1.3, 2.44]),
                                                              (0.25, 0.14, [2.6])])
async def test_a_recognition_still_running_is_waited_for_past_the_idle_bound(
        finished_secs, resume_after, ends):
    """A loaded machine: the words come after more held audio than ``max_held_secs``, but the
    recogniser says it is still working on them, so the hold waits and the pause ends the
    turn or not as it does when the words come at once (before, a fixed 5 s of held audio
    ended the hold, and under load turns went on without their words)."""
    stop = CountingStop(finished_secs=finished_secs, doubtful_secs=0.4, unfinished_secs=0.9,
                        analyzer=Verdicts())
    processor = _ordered(stop, quiet=False, max_held_secs=0.3,
                         working=lambda: stop.transcripts_seen < stop.stops)
    down, _ = await run_test(processor, frames_to_send=_late(resume_after))
    early, _, _ = await _ends(_early(resume_after), finished_secs=finished_secs)
    assert processor.holds >= 1 and processor.backstops == 0
    assert stop.ends == early == ends
    assert sum(isinstance(f, UserStoppedSpeakingFrame) for f in down) == len(ends)


async def test_a_recogniser_working_for_ever_is_bounded_by_the_hung_bound():
    _, processor, told, down = await _never_answered(working=lambda: True, max_held_secs=0.5,
                                                     hung_held_secs=1.5)
    assert processor.backstops == 1 and told == [pytest.approx(1.5), 0.0]
    assert sum(isinstance(f, InputAudioRawFrame) for f in down) == 150  # none lost


async def test_the_idle_bound_counts_from_when_the_work_stopped():
    """The recognition ended (nothing is being worked on) but its words never came: the hold
    ends ``max_held_secs`` of audio after that, not after that much audio in all."""
    asked = [0]

    def working() -> bool:  # asked once per held audio frame: busy for the first 0.6 s
        asked[0] += 1
        return asked[0] <= 30

    _, processor, told, _ = await _never_answered(working=working, max_held_secs=0.5)
    assert processor.backstops == 1 and told == [pytest.approx(1.1), pytest.approx(0.5)]


def _ordered(stop: AudioClockTurnStop, *, quiet: bool = True,
             processor: type[OrderedUserTurnProcessor] = OrderedUserTurnProcessor,
             **kwargs) -> OrderedUserTurnProcessor:
    """The turn processor as the pipeline wires it (``quiet``: it tells the strategy the
    silence it holds)."""
    turns = processor(settled=stop.settled, on_quiet=stop.quiet_ahead if quiet else None,
                      user_turn_strategies=UserTurnStrategies(
                          start=[VADUserTurnStartStrategy(enable_interruptions=False)],
                          stop=[stop]), user_turn_stop_timeout=60.0, **kwargs)
    stop.settled_listeners.append(turns.wake)
    return turns


def _one_sentence(words_after: float) -> list:
    """ "Yes, go ahead." then silence; its words are sent ``words_after`` seconds of audio
    after the VAD stop, then 1 s more of silence (the answers reach the turn processor after
    every audio frame: the recogniser was that slow)."""
    return [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
            *_audio(0.2), _stop(1), *_audio(words_after), *_answer("Yes, go ahead.", 1),
            *_audio(1.0)]


@pytest.mark.parametrize("words_after", [0.4, 0.6, 1.0])
async def test_words_that_come_after_the_longest_verdict_wait_end_the_turn_without_the_model(
        words_after):
    """Smart Turn's verdict only chooses 0.25 or 0.4 s of silence after the stop. When the
    words come after 0.4 s of it, no verdict could keep the turn open: the model is not asked,
    and the turn ends 0.4 s after the stop (1.2 s), with nothing held after the words."""
    verdicts = Verdicts(asyncio.Event())  # would never answer: the test would hang on it
    stop = EndsAt(finished_secs=0.25, doubtful_secs=0.4, unfinished_secs=0.9,
                  analyzer=verdicts)
    processor = _ordered(stop)
    await run_test(processor, frames_to_send=_one_sentence(words_after))
    assert stop.ends == [1.6]
    assert verdicts.asked == 0 and processor.backstops == 0


async def test_a_voice_back_before_the_longest_wait_still_waits_for_the_verdict():
    """The caller goes on 0.3 s after the stop: a finished verdict (0.25 s) would have ended
    the turn before that, a doubtful one (0.4 s) would not, so the silence held is too short
    to make the verdict moot and the pause waits for it, however late it comes. Late answers
    give the turn ends that answers in time give."""
    ends = []
    for late in (False, True):
        ready = asyncio.Event()
        verdicts = Verdicts(ready)
        stop = EndsAt(finished_secs=0.25, doubtful_secs=0.4, unfinished_secs=0.9,
                      analyzer=verdicts)
        first = [VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(1.0, voiced=True),
                 *_audio(0.2), _stop(1)]
        rest = [*_audio(0.3), VoiceStartingFrame(started=True), *_audio(0.1, voiced=True),
                VADUserStartedSpeakingFrame(start_secs=0.1), *_audio(0.7, voiced=True),
                *_audio(0.2), _stop(2)]
        if late:  # every answer after the audio, the verdicts once 30 frames are held
            frames = [*first, *rest, *_audio(1.0), *_answer(TEXTS[0], 1),
                      *_answer(TEXTS[1], 2)]
            processor = _ordered(stop, processor=SlowAnswers, ready=ready, after=30,
                                 verdicts=verdicts)
        else:
            ready.set()
            verdicts.ended = True  # answers at once
            frames = [*first, *_answer(TEXTS[0], 1), *rest, *_answer(TEXTS[1], 2),
                      *_audio(1.0)]
            processor = _ordered(stop)
        await run_test(processor, frames_to_send=frames)
        ends.append(stop.ends)
        assert processor.backstops == 0
    # the first pause ended on the finished verdict, 0.25 s after its stop; the second's
    # words came after 1 s of silence, a moot verdict: 0.4 s after its stop (2.5 s)
    assert ends[0] == ends[1] == [1.46, 2.9]
