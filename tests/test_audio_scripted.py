"""The scripted caller's microphone (audio/scripted.py): caller audio starts on the stream's
turn grid, whenever the script asks for it, so the VAD's windows meet it at the same samples in
every run and the same WAV is cut into the same segments on an idle or a busy machine."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from pipecat.transports.base_transport import TransportParams

from audio.frames import clip_end
from audio.scripted import TURN_GRID, Recording, ScriptedInput
from audio.wav_input import FRAME, CallerAudio


def test_the_turn_grid_is_a_whole_number_of_frames_and_of_silero_windows():
    assert (TURN_GRID * FRAME) % FRAME == 0 and (TURN_GRID * FRAME) % 512 == 0
    assert TURN_GRID == 8  # 160 ms: the longest a turn waits for the grid is 140 ms


async def _first_voiced_frame(frames_before_say: int) -> int:
    """The index in the stream of the first frame of caller audio asked for after
    ``frames_before_say`` frames of silence went out."""
    mic = ScriptedInput(TransportParams(audio_in_enabled=True), Recording())
    sent: list[bytes] = []
    enough = asyncio.Event()
    asked = asyncio.Event()
    queued = asyncio.Event()

    async def push_audio_frame(frame) -> None:
        sent.append(frame.audio)
        if len(sent) == frames_before_say:
            asked.set()
            # the stream stands still here until the clip is asked for: on a busy machine the
            # test's own task may otherwise run a grid step late (the clip then starts, rightly,
            # on the grid after)
            await queued.wait()
        if any(sent[-1]) and len(sent) > frames_before_say:
            enough.set()

    mic.push_audio_frame = push_audio_frame  # type: ignore[method-assign]
    task = asyncio.create_task(mic._mic())
    try:
        await asyncio.wait_for(asked.wait(), 5)
        voice = np.full(FRAME * 3, 0.25, dtype=np.float32)
        said = asyncio.create_task(mic.say(CallerAudio(voice, "test", 16000, 1)))
        while mic._pending.empty() and not said.done():
            await asyncio.sleep(0)  # (a loop turn: the say task queues the clip)
        queued.set()
        await asyncio.wait_for(enough.wait(), 5)
        await asyncio.wait_for(said, 5)
    finally:
        task.cancel()
    return next(i for i, audio in enumerate(sent) if any(audio))


@pytest.mark.anyio
async def test_caller_audio_starts_on_the_turn_grid_whenever_it_is_asked_for():
    for frames_before_say in (1, 3, 8, 11):
        first = await _first_voiced_frame(frames_before_say)
        assert first % TURN_GRID == 0, (frames_before_say, first)
        assert frames_before_say <= first < frames_before_say + TURN_GRID


@pytest.mark.anyio
async def test_the_callers_last_voiced_frame_is_when_it_was_fed():
    """A turn's ``last_voiced`` (what voice-to-voice and end-of-turn delays count from) is the
    time the frame holding the clip's last voiced sample went into the pipeline, not the
    clip's onset plus an offset: a loop that fell behind feeds later frames in a burst."""
    import time

    mic = ScriptedInput(TransportParams(audio_in_enabled=True), Recording())
    fed: list[tuple[float, bool]] = []  # (time of the push, the frame has voice)

    async def push_audio_frame(frame) -> None:
        fed.append((time.monotonic(), any(frame.audio)))

    mic.push_audio_frame = push_audio_frame  # (replaces the bound method: records each frame)
    task = asyncio.create_task(mic._mic())
    try:
        clip = np.concatenate([np.full(FRAME * 4, 0.25, dtype=np.float32),
                               np.zeros(FRAME * 10, dtype=np.float32)])
        said = await asyncio.wait_for(mic.say(CallerAudio(clip, "test", 16000, 1)), 5)
    finally:
        task.cancel()
    last = max(i for i, (_, voiced) in enumerate(fed) if voiced)
    assert said.last_voiced is not None
    assert fed[last - 1][0] <= said.last_voiced <= fed[last][0]
    assert said.onset <= said.last_voiced < said.end
    assert sum(voiced for _, voiced in fed) == 4  # (the clip's voiced frames, then silence)


@pytest.mark.anyio
async def test_the_last_frame_of_each_clip_carries_the_clips_number():
    """Each clip's last frame is marked with its number (``CLIP_END_KEY``), and no other
    frame is: a harness counts the silence after a turn from where it ended in the stream."""
    mic = ScriptedInput(TransportParams(audio_in_enabled=True), Recording())
    fed: list[tuple[bool, int | None]] = []  # (the frame has voice, its clip-end mark)

    async def push_audio_frame(frame) -> None:
        fed.append((any(frame.audio), clip_end(frame)))

    mic.push_audio_frame = push_audio_frame  # (replaces the bound method: records each frame)
    task = asyncio.create_task(mic._mic())
    try:
        saids = []
        for frames in (3, 5):
            clip = np.full(FRAME * frames, 0.25, dtype=np.float32)
            saids.append(await asyncio.wait_for(mic.say(CallerAudio(clip, "t", 16000, 1)), 5))
    finally:
        task.cancel()
    assert [s.number for s in saids] == [1, 2]
    marked = [(i, mark) for i, (_, mark) in enumerate(fed) if mark is not None]
    voiced = [i for i, (v, _) in enumerate(fed) if v]
    assert [mark for _, mark in marked] == [1, 2]
    # each mark is on its clip's last voiced frame: the 3rd and the 8th voiced frames
    assert [i for i, _ in marked] == [voiced[2], voiced[7]]
