"""The controller adapter's barge-in decisions, driven by scripted recognition frames
(``run_test``, no models): pause at onset, resume on a backchannel, cut on a real turn, and
never leave output on hold."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pipecat.frames.frames import (
    InputAudioRawFrame,
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
from pipecat.tests.utils import SleepFrame, run_test

from agent.trace import Trace
from audio.adapter import EARLY_RESUME_SECS, ControllerAdapter
from audio.frames import GenerationAudio, context_id_for
from audio.generation_gate import GenerationGate

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import EchoConversation  # noqa: E402

RATE = 16000
CHUNK = b"\x01\x00" * (RATE // 50)


def speech(generation: int, chunks: int):
    ctx = context_id_for(generation)
    return [TTSStartedFrame(context_id=ctx),
            *[TTSAudioRawFrame(CHUNK, RATE, 1, context_id=ctx) for _ in range(chunks)],
            TTSStoppedFrame(context_id=ctx)]


def heard(text: str) -> list:
    """A final transcript, then a beat: in the pipeline, turn and VAD frames (system frames)
    come after the transcript they follow; here they would overtake it in the queue."""
    return [TranscriptionFrame(text, "caller", "2026-12-01T09:00:00Z",
                               result={"confidence": 0.9, "cumulative": True}, finalized=True),
            SleepFrame(0.02)]


async def drive(frames):
    trace = Trace(debug=True)
    gate = GenerationGate()
    adapter = ControllerAdapter(gate, trace)
    conversation = EchoConversation(adapter.sink, trace)
    conversation.generations.current = 1  # generation 1 is "playing" below
    adapter.attach(conversation)
    down, _ = await run_test(Pipeline([adapter, gate]), frames_to_send=frames)
    return trace, gate, conversation, list(down)


def gens_after_clear(down, generation):
    clear = next(i for i, f in enumerate(down) if getattr(f, "message", None) ==
                 {"type": "clear", "generation": generation})
    return [type(f).generation for f in down[clear:] if isinstance(f, GenerationAudio)]


@pytest.mark.anyio
async def test_agent_speech_restarting_over_a_real_turn_is_cut_and_never_left_paused():
    frames = [*speech(1, 30), SleepFrame(0.1),
              VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
              *heard("Sorry, make it Thursday"), SleepFrame(0.05),
              *speech(2, 30), SleepFrame(0.1),  # the agent starts again; the caller goes on
              VADUserStoppedSpeakingFrame(), VADUserStartedSpeakingFrame(),
              *heard("Sorry, make it Thursday morning instead"),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.3)]
    trace, gate, conversation, down = await drive(frames)
    assert not gate.paused
    assert 1 not in gens_after_clear(down, 1)
    assert 2 not in gens_after_clear(down, 2)
    assert [t.text for t in conversation.turns] == ["Sorry, make it Thursday morning instead"]
    assert [e.generation for e in trace.named("barge_in_paused")] == [1, 2]


@pytest.mark.anyio
async def test_backchannel_resumes_and_is_not_a_turn():
    frames = [*speech(1, 40), SleepFrame(0.1),
              VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), SleepFrame(0.1),
              *heard("Mm-hmm."), VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(),
              SleepFrame(0.9)]
    trace, gate, conversation, down = await drive(frames)
    assert not gate.paused and conversation.turns == [] and conversation.barge_ins == 0
    assert [type(f).generation for f in down if isinstance(f, GenerationAudio)] == [1] * 40
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert trace.named("backchannel_ignored")


@pytest.mark.anyio
async def test_lead_in_then_breath_then_words_is_one_turn():
    frames = [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), *heard("Sorry."),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.3),
              VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
              *heard("Sorry. Thursday morning, not Wednesday."),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.2)]
    _, _, conversation, _ = await drive(frames)
    assert [t.text for t in conversation.turns] == ["Sorry. Thursday morning, not Wednesday."]


def caller_audio(frames: int, *, loud: bool):
    level = 3000 if loud else 0  # -20.8 dBFS: well above the onset threshold
    return [InputAudioRawFrame((np.full(320, level, dtype=np.int16)).tobytes(), RATE, 1)
            for _ in range(frames)]


@pytest.mark.anyio
async def test_loud_caller_audio_pauses_the_agent_before_the_vad_is_sure():
    """Three loud 20 ms frames over agent speech pause it at once (the VAD would take
    ~250 ms); a sound the VAD never confirms resumes after EARLY_RESUME_SECS of audio and is
    no turn, and the next turn is judged afresh."""
    frames = [*speech(1, 60), SleepFrame(0.1), *caller_audio(3, loud=True),
              *caller_audio(round(EARLY_RESUME_SECS / 0.02) + 2, loud=False), SleepFrame(0.1)]
    trace, gate, conversation, down = await drive(frames)
    paused = trace.named("barge_in_paused")
    assert [e.generation for e in paused] == [1]
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert not gate.paused and conversation.turns == [] and conversation.barge_ins == 0


@pytest.mark.anyio
async def test_quiet_caller_audio_does_not_pause_the_agent():
    frames = [*speech(1, 40), SleepFrame(0.1), *caller_audio(10, loud=False), SleepFrame(0.1)]
    trace, gate, _, _ = await drive(frames)
    assert trace.named("barge_in_paused") == [] and not gate.paused
