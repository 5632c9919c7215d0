"""Hearing a turn early: the VAD's fade (the first 64 ms of silence after a voice, before its
0.2 s stop) starts Whisper, and that transcript stands for the segment only if the stop
follows with no voice in between (``audio/vad.py``, ``SharedWhisperSTT.voice_fading``).
A fake recogniser and scripted VAD states: no model runs."""

from __future__ import annotations

import numpy as np
import pytest
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADParams, VADState
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.task import PipelineParams
from pipecat.tests.utils import run_test
from stt_support import FRAME, RATE, frames, run_fake_whisper

from audio import services
from audio.frames import VoiceFadingFrame, VoiceStartingFrame
from audio.services import SharedWhisperSTT
from audio.vad import FadeWatchingSilero, FadingVADProcessor

ROOM, SPEECH, HUSH = 7, 1000, 3  # before the onset, speech, the silence after the fade


def values(audio: np.ndarray) -> list[int]:
    """The distinct sample values in ``audio``, in order of first appearance."""
    ints = np.round(audio * 32768).astype(np.int32)
    return list(dict.fromkeys(int(v) for v in ints))


async def hear(monkeypatch, sent: list[Frame], *, spare: bool = True,
               **options) -> tuple[list, list, SharedWhisperSTT]:
    """Run ``sent`` through SharedWhisperSTT (0.5 s pre-roll, early hearing on unless
    ``options`` say otherwise) with a fake recogniser. ``spare``: whether a Whisper worker is
    idle, said here rather than read from the process: a real recognition an earlier test
    left running in a worker thread (one cannot be stopped half way) made a fresh clone's
    run under load find no spare worker, and no early hearing started."""
    monkeypatch.setattr(services, "spare_worker", lambda: spare)
    return await run_fake_whisper(monkeypatch, sent, preroll_secs=0.5,
                                  **{"early": True, **options})


def a_turn(*middle: Frame) -> list[Frame]:
    return [*frames(ROOM, 1.0), VADUserStartedSpeakingFrame(), *frames(SPEECH, 1.0), *middle,
            VADUserStoppedSpeakingFrame()]


@pytest.mark.anyio
async def test_a_turn_heard_when_the_voice_fades_stands_when_the_stop_follows(monkeypatch):
    given, said, stt = await hear(monkeypatch, a_turn(VoiceFadingFrame(), *frames(HUSH, 0.14)))
    assert len(given) == 1 and len(said) == 1  # Whisper ran once, at the fade
    assert values(given[0]) == [ROOM, SPEECH, 0]  # pre-roll, speech, trailing silence
    assert said[0].text == "heard 1"
    assert stt.early_counts == {"started": 1, "used": 1}


@pytest.mark.anyio
async def test_a_voice_that_comes_back_voids_the_early_hearing(monkeypatch):
    given, said, stt = await hear(monkeypatch, a_turn(
        VoiceFadingFrame(), *frames(HUSH, 0.1), VoiceFadingFrame(resumed=True),
        *frames(SPEECH + 1, 0.5)))
    assert len(given) == 2  # the early hearing, lost; the segment heard at its stop
    assert values(given[1]) == [ROOM, SPEECH, HUSH, SPEECH + 1, 0]
    assert [f.text for f in said] == ["heard 2"]
    assert stt.early_counts == {"started": 1, "used": 0}


@pytest.mark.anyio
async def test_without_a_spare_worker_the_turn_is_heard_at_the_stop_as_it_would_be_early(
        monkeypatch):
    """Heard at the stop, the turn is given to Whisper exactly as an early hearing would have
    given it (up to the fade): what the caller's words are heard as never depends on whether
    a worker happened to be idle, i.e. on the machine's load. (Script 18 in audio mode once
    came back "key 200" for "P-200" in a fresh-clone run: the same audio, cut elsewhere.)"""
    early, _, _ = await hear(monkeypatch, a_turn(VoiceFadingFrame(), *frames(HUSH, 0.14)))
    given, said, stt = await hear(monkeypatch, a_turn(VoiceFadingFrame(), *frames(HUSH, 0.14)),
                                  spare=False)
    assert len(given) == 1 and values(given[0]) == [ROOM, SPEECH, 0]
    assert np.array_equal(given[0], early[0])
    assert stt.early_counts["started"] == 0


@pytest.mark.anyio
async def test_switched_off_the_turn_is_heard_at_the_stop(monkeypatch):
    given, _, stt = await hear(monkeypatch, a_turn(VoiceFadingFrame(), *frames(HUSH, 0.14)),
                               early=False)
    assert len(given) == 1 and values(given[0]) == [ROOM, SPEECH, HUSH, 0]  # to the stop
    assert stt.early_counts["started"] == 0


@pytest.mark.anyio
async def test_a_segment_without_a_fade_is_heard_to_its_stop(monkeypatch):
    given, _, _ = await hear(monkeypatch, a_turn(*frames(HUSH, 0.14)))
    assert values(given[0]) == [ROOM, SPEECH, HUSH, 0]


@pytest.mark.anyio
async def test_an_earlier_segment_keeps_its_pause_only_the_last_ends_at_its_fade(monkeypatch):
    sent = [*a_turn(VoiceFadingFrame(), *frames(HUSH, 0.14)), *frames(ROOM + 1, 0.3),
            VADUserStartedSpeakingFrame(), *frames(SPEECH + 1, 0.5), VoiceFadingFrame(),
            *frames(HUSH, 0.14), VADUserStoppedSpeakingFrame()]
    given, said, _ = await hear(monkeypatch, sent)
    assert values(given[-1]) == [ROOM, SPEECH, HUSH, ROOM + 1, SPEECH + 1, 0]


@pytest.mark.anyio
async def test_a_fade_with_nobody_speaking_hears_nothing(monkeypatch):
    given, said, _ = await hear(monkeypatch, [*frames(ROOM, 0.5), VoiceFadingFrame(),
                                              *frames(ROOM, 0.5)])
    assert given == [] and said == []


def scripted_silero(monkeypatch, states: list[VADState]) -> FadeWatchingSilero:
    """A FadeWatchingSilero whose Silero returns ``states``, one per frame."""
    script = iter(states)

    async def analyze_audio(self, buffer):
        return next(script)

    monkeypatch.setattr(SileroVADAnalyzer, "analyze_audio", analyze_audio)
    vad = FadeWatchingSilero(params=VADParams(start_secs=0.1, stop_secs=0.2))
    vad.set_sample_rate(RATE)
    return vad


@pytest.mark.anyio
async def test_the_fade_is_64_ms_of_no_voice_while_speaking_and_the_return_is_noted(
        monkeypatch):
    S, P, Q = VADState.SPEAKING, VADState.STOPPING, VADState.QUIET
    # one 20 ms frame without voice between words; then 80 ms (a fade at 64 ms) and the voice
    # back; then a fade that ends in the VAD's stop
    states = [S, S, P, S, S, P, P, P, P, S, S, P, P, P, P, P, Q, Q]
    assert await noted(monkeypatch, states) == [(8, "faded"), (9, "resumed"), (14, "faded")]


async def noted(monkeypatch, states: list[VADState]) -> list[tuple[int, str]]:
    """(frame index, what was noted) for each event the watcher noted over ``states``."""
    vad = scripted_silero(monkeypatch, states)
    out = []
    for i, _ in enumerate(states):
        await vad.analyze_audio(bytes(FRAME * 2))
        for e in vad.events:
            if isinstance(e, VoiceFadingFrame):
                out.append((i, "resumed" if e.resumed else "faded"))
            elif isinstance(e, VoiceStartingFrame):
                out.append((i, "starting" if e.started else "false start"))
        vad.events.clear()
    return out


@pytest.mark.anyio
async def test_a_voice_that_may_be_starting_after_a_stop_is_noted(monkeypatch):
    T, S, Q = VADState.STARTING, VADState.SPEAKING, VADState.QUIET
    # a click (one confident window, then none), then speech that Silero comes to be sure of
    states = [Q, T, Q, Q, T, T, S, S]
    assert await noted(monkeypatch, states) == [(1, "starting"), (2, "false start"),
                                                (4, "starting")]


@pytest.mark.parametrize("fade", [0.0, -0.1, 0.2, 0.5])
def test_a_fade_not_shorter_than_the_stop_is_refused(fade):
    with pytest.raises(ValueError, match="fade_secs"):
        FadeWatchingSilero(params=VADParams(stop_secs=0.2), fade_secs=fade)


async def through_the_vad(monkeypatch, states: list[VADState]) -> list[tuple]:
    """Frame ``i`` of one per state through the VAD stage, Silero saying ``states[i]``: what
    comes out, in order: ("audio", i) for each frame, and the VAD's frames about them."""
    vad = scripted_silero(monkeypatch, states)
    sent = [InputAudioRawFrame(np.full(FRAME, i, np.int16).tobytes(), RATE, 1)
            for i in range(len(states))]
    down, _ = await run_test(Pipeline([FadingVADProcessor(vad_analyzer=vad)]),
                             frames_to_send=sent,
                             pipeline_params=PipelineParams(audio_in_sample_rate=RATE))
    out: list[tuple] = []
    for f in down:
        if isinstance(f, InputAudioRawFrame):
            out.append(("audio", int(np.frombuffer(f.audio, np.int16)[0])))
        elif isinstance(f, VoiceFadingFrame):
            out.append(("fade", f.resumed))
        elif isinstance(f, VoiceStartingFrame):
            out.append(("starting", f.started))
        elif isinstance(f, VADUserStartedSpeakingFrame):
            out.append(("vad start",))
    return out


@pytest.mark.anyio
async def test_the_processor_sends_the_fade_after_the_frame_it_was_heard_in(monkeypatch):
    S, P = VADState.SPEAKING, VADState.STOPPING
    order = await through_the_vad(monkeypatch, [S, S, P, P, P, P, S, S])
    assert [o for o in order if o[0] != "vad start"] == [
        ("audio", 0), ("audio", 1), ("audio", 2), ("audio", 3), ("audio", 4), ("audio", 5),
        ("fade", False), ("audio", 6), ("fade", True), ("audio", 7)]


@pytest.mark.anyio
async def test_a_voice_starting_goes_before_the_frame_it_was_heard_in(monkeypatch):
    """So the end of the turn never counts that frame as silence: a caller whose voice came
    back in the very frame that made a pause long enough had the sentence split (a blind
    script's 0.9 s pause after "on"). The VAD's own start still follows its frame."""
    T, S, Q = VADState.STARTING, VADState.SPEAKING, VADState.QUIET
    order = await through_the_vad(monkeypatch, [Q, Q, T, T, S, S])
    assert [o for o in order if o[0] != "vad start"] == [
        ("audio", 0), ("audio", 1), ("starting", True), ("audio", 2), ("audio", 3),
        ("audio", 4), ("audio", 5)]
    start = order.index(("vad start",))
    assert order[start - 1][0] == "audio"  # after the frame Silero was sure in
