"""Bad caller audio never crashes the pipeline or makes a phantom turn.

The inputs are generated here with numpy/soundfile: silence, noise, clipping, 0-length and
truncated WAVs, 8 kHz / 48 kHz / stereo files, NaN and out-of-range float samples.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from agent.core.trace import Trace
from audio import synth
from audio.wav_input import RATE, AudioInputError, from_array, last_voiced_offset, load_wav

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import EchoConversation  # noqa: E402


def tone(rate: int, secs: float = 1.0, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * secs)) / rate
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def test_zero_length_wav_is_refused_with_a_one_line_message(tmp_path):
    path = tmp_path / "empty.wav"
    soundfile.write(str(path), np.zeros(0, np.float32), RATE)
    with pytest.raises(AudioInputError, match=r"empty\.wav: contains no samples") as err:
        load_wav(path)
    assert "\n" not in str(err.value)


def test_file_that_is_not_a_wav_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "noise.wav"
    path.write_bytes(b"RIFF\x00\x00")  # a header cut off after six bytes
    with pytest.raises(AudioInputError, match=r"noise\.wav: not a readable WAV"):
        load_wav(path)
    with pytest.raises(AudioInputError, match="not found"):
        load_wav(tmp_path / "missing.wav")


def test_truncated_wav_plays_what_it_has(tmp_path):
    path = tmp_path / "cut.wav"
    soundfile.write(str(path), tone(RATE, 2.0), RATE, subtype="PCM_16")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 1])  # header still claims 2 s; odd byte count
    audio = load_wav(path)
    assert 0.9 < audio.seconds < 1.1


@pytest.mark.parametrize("rate,channels", [(8000, 1), (48000, 1), (44100, 2), (16000, 2)])
def test_any_rate_and_channel_count_becomes_16k_mono(tmp_path, rate, channels):
    mono = tone(rate, 1.5)
    data = np.stack([mono] * channels, axis=1) if channels > 1 else mono
    path = tmp_path / f"{rate}x{channels}.wav"
    soundfile.write(str(path), data, rate, subtype="PCM_16")
    audio = load_wav(path)
    assert audio.samples.ndim == 1 and audio.samples.dtype == np.float32
    assert abs(audio.seconds - 1.5) < 0.01
    assert (audio.original_rate, audio.original_channels) == (rate, channels)
    assert 0.25 < np.max(np.abs(audio.samples)) < 0.35


def test_nan_and_out_of_range_floats_are_repaired(tmp_path):
    data = tone(RATE) * 8.0  # far outside [-1, 1]
    data[100:200] = np.nan
    data[300] = np.inf
    path = tmp_path / "float.wav"
    soundfile.write(str(path), data, RATE, subtype="FLOAT")
    audio = load_wav(path)
    assert set(audio.repaired) == {"nan", "out_of_range"}
    assert np.all(np.isfinite(audio.samples)) and np.max(np.abs(audio.samples)) <= 1.0


def test_last_voiced_offset_ignores_trailing_silence():
    data = np.concatenate([tone(RATE, 1.0), np.zeros(RATE, np.float32)])
    assert last_voiced_offset(data) == pytest.approx(1.0, abs=0.021)
    assert last_voiced_offset(np.zeros(RATE, np.float32)) is None


@pytest.mark.audio
@pytest.mark.slow
@pytest.mark.anyio
async def test_silence_noise_and_nan_make_no_phantom_turn_and_clipped_speech_still_works():
    from audio.live_call import LiveCall

    rng = np.random.default_rng(7)
    silence = from_array(np.zeros(RATE * 2, np.float32), RATE, "silence")
    noise = from_array(rng.normal(0, 0.1, RATE * 2).astype(np.float32), RATE, "white noise")
    nan = np.full(RATE, np.nan, np.float32)
    nan_audio = from_array(nan, RATE, "nan")
    speech = synth.piper("Please book pump P 100 for Friday.").samples
    clipped48_stereo = np.repeat(np.clip(speech * 6.0, -1, 1), 3)  # 16k -> crude 48k
    stereo = np.stack([clipped48_stereo, -clipped48_stereo * 0.5], axis=1)
    clipped = from_array(stereo, 48000, "clipped 48 kHz stereo speech")

    trace = Trace(debug=True)
    async with LiveCall(lambda s, t: EchoConversation(s, t, ("Hi.",)), trace=trace) as call:
        await call.wait_idle()
        for bad in (silence, noise, nan_audio):
            await call.say(bad)
        await asyncio.sleep(1.5)  # time for a phantom turn to surface, if one were coming
        assert trace.named("user_turn_voiced") == []
        await call.say(clipped)
        final = await call.wait_for("user_turn_voiced", timeout=10)
        await call.wait_idle()
    assert "friday" in final.get("text").lower()
    assert len(call.conversation.turns) == 1
