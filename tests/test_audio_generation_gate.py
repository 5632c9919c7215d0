"""The generation gate under ``pipecat.tests.utils.run_test``: stale audio never passes."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pipecat.frames.frames import (
    Frame,
    InterruptionFrame,
    OutputTransportMessageUrgentFrame,
    SystemFrame,
    TTSAudioRawFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import SleepFrame, run_test

from audio.frames import GenerationAudio, context_id_for, generation_of_context
from audio.generation_gate import GenerationGate

RATE = 16000
CHUNK = b"\x01\x00" * (RATE // 50)  # 20 ms of non-silent PCM16


@dataclass
class Invalidate(SystemFrame):
    """Test marker: invalidate ``generation`` when this reaches the gate."""

    generation: int = 0


@dataclass
class Pause(SystemFrame):
    resume: bool = False
    generation: int | None = None  # the one held (a reply held before its first audio)


@dataclass
class Expect(SystemFrame):
    """Test marker: the agent's plan of ``generation`` reached the gate (its sentences)."""

    generation: int = 0
    sentences: int = 1


class Remote(FrameProcessor):
    """Stands in for the controller/barge-in logic that calls the gate directly."""

    def __init__(self, gate: GenerationGate):
        super().__init__()
        self.gate = gate

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, Invalidate):
            self.gate.invalidate(frame.generation, "test")
        elif isinstance(frame, Pause):
            self.gate.resume() if frame.resume else self.gate.pause(frame.generation)
        elif isinstance(frame, Expect):
            self.gate.expect(frame.generation, frame.sentences)
        else:
            await self.push_frame(frame, direction)


def speech(generation: int, chunks: int) -> list[Frame]:
    """What the TTS emits for one sentence of ``generation``."""
    ctx = context_id_for(generation)
    audio = [TTSAudioRawFrame(CHUNK, RATE, 1, context_id=ctx) for _ in range(chunks)]
    return [TTSStartedFrame(context_id=ctx), *audio, TTSStoppedFrame(context_id=ctx)]


def audio_generations(frames) -> list[int]:
    return [type(f).generation for f in frames if isinstance(f, GenerationAudio)]


def index_of_clear(frames, generation: int) -> int:
    for i, f in enumerate(frames):
        if isinstance(f, OutputTransportMessageUrgentFrame) and \
                f.message == {"type": "clear", "generation": generation}:
            return i
    raise AssertionError(f"no clear message for generation {generation}")


async def run_gate(frames, *, flush=True, events=None):
    gate = GenerationGate(flush=flush, on_event=events.append if events is not None else None)
    down, _ = await run_test(Pipeline([Remote(gate), gate]), frames_to_send=frames)
    return gate, list(down)


@pytest.mark.anyio
async def test_invalidated_generation_queued_and_late_audio_never_passes():
    frames = [*speech(1, 25), SleepFrame(0.1), Invalidate(1),
              *speech(1, 10),  # a Piper thread of generation 1 finishing late
              *speech(2, 5), SleepFrame(0.2)]
    gate, down = await run_gate(frames)
    gens = audio_generations(down)
    cut = index_of_clear(down, 1)
    assert all(type(f).generation != 1 for f in down[cut:] if isinstance(f, GenerationAudio))
    assert 0 < gens.count(1) < 25  # some played before the cut, the queued rest was dropped
    assert gens.count(2) == 5  # the current generation always passes, whole
    assert any(isinstance(f, InterruptionFrame) for f in down[cut - 1:cut + 1])
    assert gate.counters.dropped_frames >= 25 - gens.count(1) + 10


@pytest.mark.anyio
async def test_current_generations_pass_in_order_when_nothing_is_invalidated():
    gate, down = await run_gate([*speech(1, 4), *speech(2, 4), *speech(3, 4), SleepFrame(0.1)])
    assert audio_generations(down) == [1] * 4 + [2] * 4 + [3] * 4
    assert gate.counters.dropped_frames == 0
    starts = [generation_of_context(f.context_id) for f in down if isinstance(f, TTSStartedFrame)]
    assert starts == [1, 2, 3]


@pytest.mark.anyio
async def test_pause_holds_audio_and_resume_plays_the_same_generation():
    events = []
    frames = [*speech(4, 20), SleepFrame(0.06), Pause(), SleepFrame(0.15), Pause(resume=True),
              SleepFrame(0.1)]
    gate, down = await run_gate(frames, events=events)
    assert audio_generations(down) == [4] * 20  # nothing lost, nothing else
    names = [e.name for e in events]
    assert names.index("barge_in_paused") < names.index("barge_in_resumed")
    paused = next(e for e in events if e.name == "barge_in_paused")
    resumed = next(e for e in events if e.name == "barge_in_resumed")
    assert paused.generation == resumed.generation == 4
    kinds = [f.message["type"] for f in down if isinstance(f, OutputTransportMessageUrgentFrame)]
    assert kinds == ["pause", "resume"]


def controls(down) -> list[tuple[str, int]]:
    return [(f.message["type"], f.message["generation"]) for f in down
            if isinstance(f, OutputTransportMessageUrgentFrame)]


@pytest.mark.anyio
async def test_a_reply_held_before_its_first_audio_is_resumed_by_its_own_generation():
    """The client holds by generation. A reply held before any of its audio came (the
    unheard or caller-first hold) was resumed with the newest generation the TTS had sent,
    the one before it: a browser kept the reply, and every later one queued behind it, on
    hold for the rest of the call (seen under load: the page went silent while the agent
    "spoke")."""
    events: list = []
    frames = [*speech(3, 4), Expect(4), Pause(generation=4), Pause(resume=True),
              *speech(4, 4)]
    gate, down = await run_gate(frames, events=events)
    assert controls(down) == [("pause", 4), ("resume", 4)]
    assert [(e.name, e.generation) for e in events if e.name.startswith("barge_in")] == [
        ("barge_in_paused", 4), ("barge_in_resumed", 4)]
    assert audio_generations(down) == [3] * 4 + [4] * 4


@pytest.mark.anyio
async def test_an_older_generation_invalidated_under_a_hold_releases_the_held_one():
    """The gate stops holding when it invalidates; a held reply newer than what was
    invalidated plays on, so the client is told to resume it too."""
    frames = [*speech(5, 20), Expect(6), Pause(generation=6), Invalidate(5), *speech(6, 3)]
    _, down = await run_gate(frames)
    assert controls(down) == [("pause", 6), ("clear", 5), ("resume", 6)]
    assert audio_generations(down[index_of_clear(down, 5):]) == [6, 6, 6]


@pytest.mark.anyio
async def test_invalidation_while_paused_drops_the_held_generation():
    frames = [*speech(5, 20), SleepFrame(0.05), Pause(), Invalidate(5), *speech(6, 3),
              SleepFrame(0.1)]
    _, down = await run_gate(frames)
    cut = index_of_clear(down, 5)
    assert audio_generations(down[cut:]) == [6, 6, 6]


@pytest.mark.anyio
async def test_no_audio_flush_fault_lets_stale_audio_through():
    """Known-answer control: with the fault on, the oracle above must see stale frames."""
    frames = [*speech(1, 25), SleepFrame(0.1), Invalidate(1), *speech(1, 3), SleepFrame(0.5)]
    _, down = await run_gate(frames, flush=False)
    assert audio_generations(down).count(1) == 28
    assert not any(isinstance(f, OutputTransportMessageUrgentFrame) for f in down)


class FakeClock:
    """The gate's wall clock, moved by hand (the gate reads ``time.monotonic``)."""

    def __init__(self, monkeypatch) -> None:
        import audio.generation_gate as module

        self.now = 100.0
        monkeypatch.setattr(module.time, "monotonic", lambda: self.now)


def admit_sentence(gate: GenerationGate, generation: int, sentence: int, *,
                   stop: bool = True) -> None:
    ctx = context_id_for(generation, sentence)
    gate._admit(TTSStartedFrame(context_id=ctx))
    gate._admit(TTSAudioRawFrame(CHUNK, RATE, 1, context_id=ctx))
    if stop:
        gate._admit(TTSStoppedFrame(context_id=ctx))


def test_a_sentence_being_synthesised_is_awaited_however_long_a_busy_machine_takes(
        monkeypatch):
    """Script 04 in audio mode, under load: the gate gave up on a reply's second sentence
    after 3 s while Piper was still synthesising it, the call looked idle and ended, and the
    caller never heard the confirmation in full. A sentence whose synthesis has started is
    awaited until the TTS stops it (it always does, failure or not)."""
    clock = FakeClock(monkeypatch)
    gate = GenerationGate()
    gate.expect(1, 2)
    admit_sentence(gate, 1, 0)
    admit_sentence(gate, 1, 1, stop=False)
    clock.now += 30.0
    assert gate._awaiting_sentences()
    gate._admit(TTSStoppedFrame(context_id=context_id_for(1, 1)))
    assert not gate._awaiting_sentences()


def test_a_sentence_never_started_is_awaited_3_s(monkeypatch):
    clock = FakeClock(monkeypatch)
    gate = GenerationGate()
    gate.expect(1, 2)
    admit_sentence(gate, 1, 0)
    clock.now += 2.9
    assert gate._awaiting_sentences()
    clock.now += 0.2
    assert not gate._awaiting_sentences()


def test_an_invalidated_generation_is_not_awaited(monkeypatch):
    FakeClock(monkeypatch)
    gate = GenerationGate()
    gate.expect(1, 2)
    admit_sentence(gate, 1, 0)
    admit_sentence(gate, 1, 1, stop=False)
    gate.invalidate(1, "test")
    assert not gate._awaiting_sentences()


def test_the_next_sentence_is_awaited_3_s_from_the_end_of_the_audio_playing(monkeypatch):
    """A long first sentence, admitted at once, plays for 4 s; the next one's start comes just
    after. The agent has not stopped speaking in between."""
    clock = FakeClock(monkeypatch)
    gate = GenerationGate()
    gate.expect(1, 2)
    admit_sentence(gate, 1, 0)
    gate._clock_end = clock.now + 4.0  # its audio plays until then
    clock.now += 4.0
    assert gate._awaiting_sentences()
    clock.now += 3.1
    assert not gate._awaiting_sentences()
