"""Driving ``SharedWhisperSTT`` in tests without a model: constant-valued caller frames, and
one run of the service over a fake recogniser that records what it was given."""

from __future__ import annotations

import numpy as np
from pipecat.frames.frames import Frame, InputAudioRawFrame, TranscriptionFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.task import PipelineParams
from pipecat.tests.utils import run_test

from audio import services
from audio.services import Heard, SharedWhisperSTT

RATE = 16000
FRAME = RATE // 50


def frames(value: int, secs: float) -> list[InputAudioRawFrame]:
    """``secs`` of 20 ms frames whose samples are all ``value``."""
    chunk = np.full(FRAME, value, dtype=np.int16).tobytes()
    return [InputAudioRawFrame(chunk, RATE, 1) for _ in range(round(secs * 50))]


async def run_fake_whisper(monkeypatch, sent: list[Frame], **stt_options
                           ) -> tuple[list[np.ndarray], list[TranscriptionFrame],
                                      SharedWhisperSTT]:
    """Run ``sent`` through SharedWhisperSTT with a fake recogniser: (the float audio of
    each recognition, in order; the transcripts pushed; the service). The n-th recognition
    is heard as "heard n"."""
    given: list[np.ndarray] = []

    def fake_recognise(audio, **_):
        given.append(audio)
        return Heard(f"heard {len(given)}", 0.9, 0.01, (("heard", 0.9),))

    monkeypatch.setattr(services, "whisper_model", lambda: object())
    monkeypatch.setattr(services, "recognise", fake_recognise)
    stt = SharedWhisperSTT(**stt_options)
    down, _ = await run_test(Pipeline([stt]), frames_to_send=sent,
                             pipeline_params=PipelineParams(audio_in_sample_rate=RATE))
    return given, [f for f in down if isinstance(f, TranscriptionFrame)], stt
