"""Caller audio from any WAV: decoded, sanitised, downmixed and resampled to 16 kHz mono.

Bad audio is the caller's (or the script author's) input, so it gets a one-line
:class:`AudioInputError` naming the file and what to do, never a traceback. Audio that decodes
but is odd (NaN, out-of-range floats, clipping, silence, noise) is made safe here and left to
the pipeline to judge: it must not crash it or make a phantom turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile
import soxr

from agent.core.errors import InvalidInput

RATE = 16000
FRAME = RATE // 50  # 20 ms


class AudioInputError(InvalidInput):
    """A caller audio file cannot be used. The message names the file and the fix."""


@dataclass(frozen=True, slots=True)
class CallerAudio:
    samples: np.ndarray  # float32, 16 kHz mono, finite, within [-1, 1]
    source: str
    original_rate: int
    original_channels: int
    repaired: tuple[str, ...] = ()  # what sanitising changed ("nan", "out_of_range")

    @property
    def seconds(self) -> float:
        return self.samples.size / RATE


def load_wav(path: str | Path) -> CallerAudio:
    """Decode ``path``. Read-only. Raises AudioInputError for missing/empty/undecodable files."""
    path = Path(path)
    if not path.is_file():
        raise AudioInputError(f"audio file {path}: not found; check the turn's `audio:` path "
                              "(relative to the script)")
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, soundfile.LibsndfileError, ValueError) as exc:
        raise AudioInputError(f"audio file {path}: not a readable WAV ({_one_line(exc)}); "
                              "re-export it as PCM or float WAV") from exc
    if data.shape[0] == 0:
        raise AudioInputError(f"audio file {path}: contains no samples (0-length or "
                              "truncated); re-record or re-export it")
    return from_array(data, rate, str(path))


def from_array(data: np.ndarray, rate: int, source: str = "<array>") -> CallerAudio:
    """Sanitise, downmix and resample any float/int array (frames x channels or 1-D)."""
    if rate <= 0:
        raise AudioInputError(f"audio {source}: sample rate {rate} is invalid")
    data = np.asarray(data)
    if data.dtype.kind in "iu":
        data = data.astype(np.float32) / float(np.iinfo(data.dtype).max)
    data = data.astype(np.float32, copy=False)
    channels = 1 if data.ndim == 1 else data.shape[1]
    repaired = []
    if not np.all(np.isfinite(data)):
        repaired.append("nan")
        data = np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=-1.0)
    if data.size and np.max(np.abs(data)) > 1.0:
        repaired.append("out_of_range")
        data = np.clip(data, -1.0, 1.0)
    mono = data if data.ndim == 1 else data.mean(axis=1)
    if rate != RATE and mono.size:
        mono = soxr.resample(mono, rate, RATE).astype(np.float32)
    mono = np.clip(mono, -1.0, 1.0).astype(np.float32)
    return CallerAudio(mono, source, rate, channels, tuple(repaired))


def to_pcm16(samples: np.ndarray) -> bytes:
    """Float samples in [-1, 1] as PCM16 LE bytes."""
    return (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


def last_voiced_offset(samples: np.ndarray, threshold_dbfs: float = -45.0) -> float | None:
    """Seconds from the start to the end of the last voiced 20 ms frame (None: all quiet)."""
    n = samples.size // FRAME
    if n == 0:
        return None
    frames = samples[: n * FRAME].reshape(n, FRAME)
    rms = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1))
    voiced = np.nonzero(rms > 10 ** (threshold_dbfs / 20))[0]
    return None if voiced.size == 0 else (int(voiced[-1]) + 1) * FRAME / RATE


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
