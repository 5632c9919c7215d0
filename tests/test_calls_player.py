"""The text-mode player (audio/calls/player.py) records a cut as of the moment it was ordered.

The player is the scripted call's speaker. On a busy machine its playback task may run a while
after the agent invalidated a generation or the caller barged in; the caller stopped hearing the
plan when it was cut, so what it records (when it stopped, how far it got) must not depend on
when the task next ran. The trace clock here is a counter the test moves by hand, so the
"lateness" is exact and nothing sleeps.
"""

from __future__ import annotations

import asyncio

import pytest

from agent.core.speech import SpeechPlan
from agent.core.trace import Trace
from audio.calls.player import TextPlayer

pytestmark = pytest.mark.anyio


class HandClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("cut", ["invalidate", "barge_in"])
async def test_a_cut_is_recorded_when_it_was_ordered_not_when_playback_next_ran(cut):
    clock = HandClock()
    player = TextPlayer(Trace(clock=clock), chars_per_second=1000.0)
    first_word = asyncio.Event()
    player.listeners.append(first_word.set)
    player.speak(SpeechPlan(1, "q-1", 0, ("An answer long enough to be cut part of the way "
                                          "through, " * 40,)))
    await first_word.wait()  # playing now
    clock.now = 2.0
    if cut == "invalidate":
        player.invalidate(1, "superseded")
    else:
        player.barge_in()
    clock.now = 7.5  # the playback task runs 5.5 s of trace time after the cut was ordered
    await player.wait_silent()
    (record,) = player.records
    assert record.stopped == 2.0, record
    assert record.reason == ("invalidated" if cut == "invalidate" else "barge_in")
    assert 0 < record.heard_chars < len(record.text)
    await player.close()


async def test_a_plan_that_plays_to_its_end_stops_when_it_ends():
    clock = HandClock()
    player = TextPlayer(Trace(clock=clock), chars_per_second=10_000.0)
    done = asyncio.Event()
    player.trace.listeners.append(
        lambda e: done.set() if e.name == "agent_speech_stopped" else None)
    player.speak(SpeechPlan(1, "q-1", 0, ("Short.",)))
    clock.now = 1.25
    await done.wait()
    (record,) = player.records
    assert (record.reason, record.stopped, record.heard_chars) == ("completed", 1.25, 6)
    await player.close()
