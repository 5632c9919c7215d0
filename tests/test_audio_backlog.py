"""A reply never begins over caller audio the agent has not heard yet (``audio/backlog.py``).

On a busy machine the caller's audio waits in the pipeline's queues before the VAD hears it.
The lag is made here by a valve in front of the adapter that holds the caller's frames until
the test lets them go, on an event (the gate holding the reply, or the reply playing), never
after a time. The capture times on the frames are fixed numbers."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import numpy as np
import pytest
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InputAudioRawFrame,
    StartFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import run_test

from agent.core.trace import Trace
from audio.adapter import ControllerAdapter
from audio.backlog import HEARD_LAG_SECS, InputBacklog, InputMark
from audio.frames import (
    GenerationAudio,
    StampedSpeakFrame,
    captured_at,
    context_id_for,
    stamp_captured,
)
from audio.generation_gate import GateEvent, GenerationGate

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import AnswersLate, said  # noqa: E402

RATE = 16000
CHUNK = b"\x01\x00" * (RATE // 50)
SILENT = np.zeros(320, dtype=np.int16).tobytes()
T0 = 100.0  # capture time of the first held frame
HANG_SECS = 30.0  # only a broken product waits this long for the call's end


# -- the backlog alone ------------------------------------------------------------------------

def test_nothing_is_behind_without_capture_times():
    backlog = InputBacklog()
    backlog.entered(None)
    fired = []
    backlog.when_heard(lambda: fired.append(1))
    assert not backlog.behind() and backlog.unheard_secs() == 0.0 and fired == [1]


def test_audio_captured_but_not_heard_is_behind_until_it_is_heard():
    backlog = InputBacklog()
    for i in range(50):  # one second of frames entered the pipeline, none heard
        backlog.entered(T0 + 0.02 * i)
    assert backlog.behind() and backlog.unheard_secs() == pytest.approx(0.98)
    fired = []
    backlog.when_heard(lambda: fired.append("heard"))
    backlog.reached(T0 + 0.5)
    assert fired == [] and backlog.behind()
    # heard through what was captured lag_secs before the wait began: the rest is the
    # pipeline's own delay on an idle machine
    backlog.reached(T0 + 0.98 - HEARD_LAG_SECS)
    assert fired == ["heard"] and not backlog.behind()


def test_a_cancelled_wait_never_fires():
    backlog = InputBacklog()
    backlog.entered(T0)
    backlog.entered(T0 + 1.0)
    fired = []
    cancel = backlog.when_heard(lambda: fired.append(1))
    cancel()
    backlog.reached(T0 + 1.0)
    assert fired == []


@pytest.mark.anyio
async def test_the_mark_notes_each_frames_capture_time_and_passes_it_on():
    backlog = InputBacklog()
    frames = [stamp_captured(InputAudioRawFrame(SILENT, RATE, 1), T0 + 0.02 * i)
              for i in range(5)]
    down, _ = await run_test(Pipeline([InputMark(backlog)]), frames_to_send=frames)
    assert [captured_at(f) for f in down] == [T0 + 0.02 * i for i in range(5)]
    assert backlog.captured == T0 + 0.08 and backlog.heard is None


# -- a reply and the caller's queued audio ----------------------------------------------------

class Valve(FrameProcessor):
    """Stands for a VAD that fell behind. Every caller frame carries its place in what was
    said (``seq``) and is let go in that order, never in the order frames reach this queue
    (system frames overtake a transcript there), and the frames after a transcript only once
    the adapter took it in (in the pipeline the turn detector waits for the words). The
    frames from ``block_at`` on wait until ``release`` is set. Agent frames pass at once."""

    def __init__(self, *, block_at: int, count: int, holds: bool = True, **kwargs):
        super().__init__(**kwargs)
        self.block_at, self.count, self.holds = block_at, count, holds
        self.release = asyncio.Event()
        self.arrived: dict[int, Frame] = {}
        self.came = asyncio.Event()  # another caller frame arrived
        self.all_held = asyncio.Event()  # every frame of the block is here
        self.done = asyncio.Event()  # the call may end: the EndFrame waits for it
        self.words_in = asyncio.Event()  # the adapter took in the last transcript let go
        self._drain: asyncio.Task | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._drain = self.create_task(self._let_go(), "valve")
            return
        if isinstance(frame, EndFrame):
            with contextlib.suppress(TimeoutError):  # (a bound for a broken product only)
                await asyncio.wait_for(self.done.wait(), HANG_SECS)
            if self._drain is not None:
                await self.cancel_task(self._drain)
        if "seq" not in frame.metadata:
            await self.push_frame(frame, direction)
            return
        self.arrived[frame.metadata["seq"]] = frame
        self.came.set()
        if all(n in self.arrived for n in range(self.block_at, self.count)):
            self.all_held.set()

    async def _let_go(self) -> None:
        for n in range(self.count):
            if n == self.block_at and self.holds:
                await self.release.wait()
            while n not in self.arrived:
                self.came.clear()
                await self.came.wait()
            frame = self.arrived.pop(n)
            self.words_in.clear()
            await self.push_frame(frame)
            if isinstance(frame, TranscriptionFrame):
                await self.words_in.wait()


class SpeakAsAudio(FrameProcessor):
    """Stands for the TTS: each stamped sentence becomes 10 frames of its generation."""

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if not isinstance(frame, StampedSpeakFrame):
            await self.push_frame(frame, direction)
            return
        ctx = context_id_for(frame.generation, frame.sentence)
        await self.push_frame(TTSStartedFrame(context_id=ctx))
        for _ in range(10):
            await self.push_frame(TTSAudioRawFrame(CHUNK, RATE, 1, context_id=ctx))
        await self.push_frame(TTSStoppedFrame(context_id=ctx))


def first_turn() -> list[Frame]:
    return [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
            said("What is the torque for the seal on P-100?"),
            VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame()]


def queued(secs: float, start: float) -> list[Frame]:
    return [stamp_captured(InputAudioRawFrame(SILENT, RATE, 1), start + 0.02 * i)
            for i in range(round(secs / 0.02))]


def the_correction() -> list[Frame]:
    """What the caller said while the answer was being prepared: 0.3 s of silence, then a
    correction the VAD hears 0.1 s into it, all captured before the reply began."""
    block = [*queued(0.3, T0), VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
             *queued(1.2, T0 + 0.3), said("Sorry, P-200, not P-100."),
             VADUserStoppedSpeakingFrame(), *queued(0.3, T0 + 1.5), UserStoppedSpeakingFrame()]
    return block


def silence_only() -> list[Frame]:
    return queued(1.5, T0)


def numbered(frames: list[Frame]) -> list[Frame]:
    for i, frame in enumerate(frames):
        frame.metadata["seq"] = i
    return frames


async def call(block: list[Frame], *, ends_with: int, hold: bool = True,
               stalled: bool = False, keep_up: bool = False, unheard_hold_secs: float = 30.0):
    """The first turn is answered once ``block`` (captured before the reply) waits unheard in
    the valve; the valve lets it go when the gate holds the reply or the reply plays (never,
    when ``stalled``). The call ends once generation ``ends_with`` has played to its end.
    ``keep_up``: the valve holds nothing, and the first turn is answered once the adapter has
    had all of ``block``."""
    trace = Trace(debug=True)
    gate = GenerationGate()
    adapter = ControllerAdapter(gate, trace, unheard_hold_secs=unheard_hold_secs)
    conversation = AnswersLate(adapter.sink, trace)
    adapter.attach(conversation)
    if not hold:  # the control: an ear that never knows it is behind
        adapter.backlog.lag_secs = float("inf")
    said_first = first_turn()
    frames = numbered([*said_first, *block])
    valve = Valve(block_at=len(said_first), count=len(frames), holds=not keep_up)
    transcribed = adapter.intake.transcribed

    def transcribed_then_tell(text: str, result: object) -> None:
        transcribed(text, result)
        valve.words_in.set()
    adapter.intake.transcribed = transcribed_then_tell  # type: ignore[method-assign]
    if keep_up:  # answered once the adapter had the block's last frame
        reached = adapter.backlog.reached
        last = captured_at(block[-1])

        def reached_then_answer(at: float | None) -> None:
            reached(at)
            if at == last:
                conversation.answer.set()
        adapter.backlog.reached = reached_then_answer  # type: ignore[method-assign]

    def on_gate(event: GateEvent) -> None:
        if event.name in ("barge_in_paused", "agent_speech_started") and \
                valve.all_held.is_set() and not stalled:
            valve.release.set()
        if event.name == "agent_speech_stopped" and event.generation == ends_with and \
                dict(event.data).get("reason") == "completed":
            valve.done.set()
    gate.add_listener(on_gate)

    async def answer_when_held() -> None:
        await valve.all_held.wait()
        if not keep_up:
            conversation.answer.set()
    answering = asyncio.ensure_future(answer_when_held())
    down, _ = await run_test(Pipeline([InputMark(adapter.backlog), valve, adapter,
                                       SpeakAsAudio(), gate]), frames_to_send=frames)
    answering.cancel()
    audio = [type(f).generation for f in down if isinstance(f, GenerationAudio)]
    return trace, gate, conversation, audio


@pytest.mark.anyio
async def test_a_correction_queued_unheard_when_the_reply_began_holds_it_and_cuts_it():
    """Found at three times make test-audio's load (script 18): the caller's correction was
    said while the answer was prepared and reached the agent 14 s later, after 7.6 s of the
    stale answer had played. Now the reply waits for the audio captured before it, the
    correction in it is heard, and the stale reply never plays."""
    trace, gate, conversation, audio = await call(the_correction(), ends_with=2)
    [paused] = trace.named("barge_in_paused")
    assert paused.generation == 1 and paused.get("unheard_ms") >= 1500
    assert paused.get("onset_to_paused_ms") is None  # no onset over speech to time
    assert 1 not in audio  # the stale reply: not a frame of it played
    assert [e.get("invalidated") for e in trace.named("generation_invalidated")] == [1]
    assert [t.text for t in conversation.turns] == ["What is the torque for the seal on P-100?",
                                                    "Sorry, P-200, not P-100."]
    assert audio and set(audio) == {2}  # the reply to the correction plays
    assert not gate.paused and trace.named("backstop") == []


@pytest.mark.anyio
async def test_without_the_hold_the_stale_reply_plays_over_the_queued_correction():
    """The control: an ear that does not know it is behind lets the stale reply play."""
    trace, _, _, audio = await call(the_correction(), ends_with=2, hold=False)
    assert 1 in audio
    assert [e.get("unheard_ms") for e in trace.named("barge_in_paused")] == [None]


@pytest.mark.anyio
async def test_a_reply_held_for_queued_silence_plays_in_full_once_it_is_heard():
    trace, gate, conversation, audio = await call(silence_only(), ends_with=1)
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert audio == [1] * 20 and not trace.named("generation_invalidated")
    assert len(conversation.turns) == 1 and not gate.paused


@pytest.mark.anyio
async def test_a_reply_whose_queued_audio_never_arrives_plays_after_the_bound():
    """A stalled pipeline (the valve never opens): the wall-clock bound lets the reply play
    and says so on the trace."""
    trace, gate, _, audio = await call(silence_only(), ends_with=1, stalled=True,
                                       unheard_hold_secs=0.05)
    [backstop] = trace.named("backstop")
    assert backstop.get("which") == "unheard_hold" and backstop.get("unheard_secs") >= 1.4
    assert audio == [1] * 20 and not gate.paused


@pytest.mark.anyio
async def test_an_ear_that_keeps_up_never_holds_a_reply():
    """No backlog: the adapter had the audio before the reply began."""
    trace, _, _, audio = await call(silence_only(), ends_with=1, keep_up=True)
    assert trace.named("barge_in_paused") == [] and audio == [1] * 20
