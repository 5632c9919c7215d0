"""Barge-in with real audio: Piper-synthesised caller speech over the agent's own speech.

One model load per test session (the process-wide cache in ``audio.services``).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from agent.core.trace import Trace
from audio import synth
from audio.live_call import LiveCall
from audio.pipeline import PipelineConfig

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import EchoConversation  # noqa: E402

pytestmark = [pytest.mark.audio, pytest.mark.slow]


def stale_chunks_after(call: LiveCall, generation: int, t: float):
    """Chunks of ``generation`` (or older) that started playing after ``t``."""
    return [c for c in call.recording.chunks if c.generation <= generation and c.start > t]


def monotonic_of(trace: Trace, t: float) -> float:
    """A trace time (seconds since call start) on the monotonic clock the recording uses."""
    return t + (time.monotonic() - trace.clock())


async def speak_over_greeting(call: LiveCall, text: str):
    """Wait until the greeting plays, then speak ~1 s into it (a script's timeline)."""
    await call.wait_for("agent_speech_started", generation=1)
    await asyncio.sleep(1.0)  # scenario timing: the agent talks for a second first
    return await call.say(synth.piper(text))


@pytest.mark.anyio
async def test_real_turn_over_agent_speech_pauses_cuts_and_leaves_no_stale_audio():
    trace = Trace(debug=True)
    async with LiveCall(EchoConversation, trace=trace) as call:
        said = await speak_over_greeting(call, "Sorry, make that Thursday morning instead.")
        invalidated = await call.wait_for("generation_invalidated", generation=1)
        await call.wait_for("user_turn_voiced")
        await call.wait_for("agent_speech_started", generation=2)
        await call.wait_idle()
    paused = trace.named("barge_in_paused")[0]
    assert paused.generation == 1
    assert paused.get("onset_to_paused_ms") < 400
    # The barge-in's pause is never undone. On a busy machine the reply may be held at its
    # start until the caller audio captured before it is heard (unheard_ms), and then resumed:
    # that is the only resume allowed (a fresh clone's run beside other work, 2026-12-07)
    resumed = {e.generation for e in trace.named("barge_in_resumed")}
    held_for_audio = {e.generation for e in trace.named("barge_in_paused")
                      if e.get("unheard_ms") is not None}
    assert paused.generation not in resumed and resumed <= held_for_audio, trace.named(
        "barge_in_paused")
    assert invalidated.get("reason") == "barge_in"
    assert call.conversation.barge_ins == 1
    # the cut: nothing of generation 1 started playing after the flush
    flush = call.recording.flushes[0]
    assert stale_chunks_after(call, 1, flush) == []
    # the invariant, in audio terms: the first output after invalidation is a newer generation
    first = call.recording.first_output_after(flush)
    assert first is not None and first.generation == 2
    heard = call.recording.heard_seconds()
    assert 0.5 < sum(v for (g, _), v in heard.items() if g == 1) < 6.0  # cut, not whole
    assert "thursday" in call.conversation.turns[0].text.lower()
    assert said.onset <= monotonic_of(trace, paused.t)  # paused after the caller began


@pytest.mark.anyio
async def test_backchannel_over_agent_speech_resumes_the_same_generation():
    trace = Trace(debug=True)
    greeting = ("Your visit is booked for Thursday morning at the Rotterdam site.",
                "The technician will call you thirty minutes before arriving.")
    async with LiveCall(lambda s, t: EchoConversation(s, t, greeting), trace=trace) as call:
        await speak_over_greeting(call, "Okay.")
        resumed = await call.wait_for("barge_in_resumed")
        await call.wait_idle()
    paused = trace.named("barge_in_paused")[0]
    assert paused.generation == resumed.generation == 1
    assert not trace.named("generation_invalidated")
    assert call.conversation.turns == []  # a backchannel is not a turn
    assert call.conversation.barge_ins == 0
    stopped = trace.named("agent_speech_stopped")
    assert [e.get("reason") for e in stopped if e.generation == 1] == ["completed"]
    assert call.recording.flushes == []


@pytest.mark.anyio
async def test_no_audio_flush_fault_lets_stale_audio_play_after_the_barge_in():
    """Known-answer control: the same scenario with the fault on must show stale audio."""
    trace = Trace(debug=True)
    config = PipelineConfig(flush=False)
    async with LiveCall(EchoConversation, trace=trace, config=config) as call:
        await speak_over_greeting(call, "Sorry, make that Thursday morning instead.")
        invalidated = await call.wait_for("generation_invalidated", generation=1)
        at = monotonic_of(trace, invalidated.t)
        await asyncio.sleep(1.0)  # observation window: what plays in the next second
    assert len(stale_chunks_after(call, 1, at)) > 10  # the oracle sees stale audio
    assert call.recording.flushes == []
