"""Caller audio from any WAV: decoded, sanitised, downmixed and resampled to 16 kHz mono.

Bad audio is the caller's (or the script author's) input, so it gets a one-line
:class:`AudioInputError` naming the file and what to do, never a traceback. Audio that decodes
but is odd (NaN, out-of-range floats, clipping, silence, noise) is made safe here and left to
the pipeline to judge: it must not crash it or make a phantom turn.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import soundfile
import soxr

from agent.core.errors import InvalidInput

RATE = 16000
FRAME = RATE // 50  # 20 ms


FIX = "re-record or convert it to 16-bit PCM mono WAV, e.g. `sox in.xxx -b 16 -c 1 out.wav`"


class AudioInputError(InvalidInput):
    """A caller audio file cannot be used. The message names the file and the fix.

    ``problem`` is what is wrong and ``fix`` what to do, each without the file's name, so a
    call script can cite them at the line of its ``audio:`` key."""

    def __init__(self, path: str | Path, problem: str, fix: str = FIX):
        self.path = str(path)
        self.problem = problem
        self.fix = fix
        super().__init__(f"audio file {path}: {problem}; {fix}")


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


def load_wav(path: str | Path, *, strict: bool = False) -> CallerAudio:
    """Decode ``path``. Read-only. Raises AudioInputError for missing, unreadable, empty and
    undecodable files. Without ``strict`` a WAV cut short plays what it has; with it (a call
    script's ``audio:``, see :func:`check_wav`) a file that is not whole is refused."""
    path = Path(path)
    data, rate = _decode(path, strict=strict)
    return from_array(data, rate, str(path))


def check_wav(path: str | Path) -> None:
    """Raise AudioInputError unless ``path`` is caller audio the runner can play in full:
    a readable file that libsndfile decodes to at least one frame with a positive rate and
    channel count, and, for a RIFF WAV, whose header agrees with its data (not truncated,
    a sample width and coding the runner converts). Read-only; nothing is resampled."""
    _decode(Path(path), strict=True)


def _decode(path: Path, *, strict: bool) -> tuple[np.ndarray, int]:
    if path.is_dir():
        raise AudioInputError(path, "is a directory, not an audio file",
                              "name a WAV file (relative to the script)")
    if not path.is_file():
        raise AudioInputError(path, "not found", "check the turn's `audio:` path "
                              "(relative to the script)")
    try:
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            head = file.read(512)
            header = riff_header(file, size) if strict else None
    except OSError as exc:
        raise AudioInputError(path, f"cannot be read ({type(exc).__name__}: "
                              f"{exc.strerror or exc})", "make it readable "
                              "(e.g. `chmod a+r`) or name another file") from exc
    if size == 0:
        raise AudioInputError(path, "is empty (0 bytes)")
    if header is not None and header.problem is not None:
        raise AudioInputError(path, header.problem)
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except Exception as exc:  # noqa: BLE001 - whatever libsndfile says, the file is unusable
        if not strict:
            raise AudioInputError(path, f"not a readable WAV ({_one_line(exc)})",
                                  "re-export it as PCM or float WAV") from exc
        said = re.sub(r"^Error opening '.*?': ", "", _one_line(exc))
        raise AudioInputError(path, f"{_not_decodable(head, header)} (libsndfile: "
                              f"{said})") from exc
    if data.shape[0] == 0:
        raise AudioInputError(path, "contains no samples (0-length or truncated)",
                              FIX if strict else "re-record or re-export it")
    if strict and (rate <= 0 or data.shape[1] == 0):
        raise AudioInputError(path, f"decodes to {data.shape[1]} channel(s) at {rate} Hz")
    return data, rate


# --------------------------------------------------------------------------- RIFF WAV headers
PCM, FLOAT, EXTENSIBLE = 0x0001, 0x0003, 0xFFFE
UNKNOWN_SIZE = 0xFFFFFFFF  # a writer that streamed the file and never went back to the header
CODINGS = {0x0001: "PCM", 0x0002: "Microsoft ADPCM", 0x0003: "IEEE float", 0x0006: "A-law",
           0x0007: "mu-law", 0x0011: "IMA ADPCM", 0x0031: "GSM 6.10", 0x0050: "MPEG audio",
           0x0055: "MP3", 0x00FF: "AAC", 0x0161: "Windows Media Audio",
           0x0162: "Windows Media Audio Pro", 0x1610: "AAC", 0xFFFE: "extensible"}


@dataclass(frozen=True, slots=True)
class RiffHeader:
    """What a RIFF WAV's chunks say, up to its audio data. ``problem``: None if sound."""

    tag: int | None = None  # the coding (the sub-format's, for WAVE_FORMAT_EXTENSIBLE)
    channels: int = 0
    rate: int = 0
    per_second: int = 0  # bytes of audio data per second
    align: int = 0  # bytes per frame
    bits: int = 0
    problem: str | None = None


def riff_header(file: BinaryIO, size: int) -> RiffHeader | None:
    """Walk a RIFF WAV's chunks from the start of ``file`` (``size`` bytes long) to its audio
    data; None if it is not a RIFF WAV (then the decoder alone decides). The header's
    ``problem`` names the first thing wrong: chunks cut short before the data, no channels,
    no rate, a PCM or float sample width the runner does not convert, no audio data, or less
    data than the header promises."""
    file.seek(0)
    start = file.read(12)
    if start[:4] != b"RIFF":
        return None
    if len(start) < 12:
        return RiffHeader(problem=f"truncated: its {size} bytes cannot hold a WAV header "
                          "(44 bytes)")
    if start[8:12] != b"WAVE":
        return None
    found = RiffHeader()
    at = 12
    while True:
        file.seek(at)
        chunk = file.read(8)
        if len(chunk) < 8:
            return RiffHeader(found.tag, problem="truncated inside its header: the file ends "
                              "before the audio data")
        name, length = chunk[:4], struct.unpack_from("<I", chunk, 4)[0]
        if name == b"fmt ":
            body = file.read(min(length, 40))
            if length < 16 or len(body) < 16:
                return RiffHeader(problem="truncated inside its header: the format chunk is "
                                  "cut short")
            tag, channels, rate, per_second, align, bits = struct.unpack_from("<HHIIHH", body)
            if tag == EXTENSIBLE and len(body) >= 26:
                tag = struct.unpack_from("<H", body, 24)[0]
            found = RiffHeader(tag, channels, rate, per_second, align, bits)
            problem = _format_problem(found)
            if problem is not None:
                return RiffHeader(tag, channels, rate, per_second, align, bits, problem)
        elif name == b"data":
            if found.tag is None:
                return RiffHeader(problem="no format chunk before the audio data")
            problem = _data_problem(found, length, size - at - 8)
            return RiffHeader(found.tag, found.channels, found.rate, found.per_second,
                              found.align, found.bits, problem)
        at += 8 + length + (length & 1)  # chunks are padded to an even length


def _format_problem(h: RiffHeader) -> str | None:
    if h.channels == 0:
        return "its header says 0 channels"
    if h.rate == 0:
        return "its header says a sample rate of 0 Hz"
    if h.tag == PCM:
        width = (h.bits + 7) // 8
        if not 1 <= h.bits <= 32 or h.align != h.channels * width:
            return (f"a sample width the runner cannot convert ({h.bits}-bit PCM in "
                    f"{h.align}-byte frames of {h.channels} channel(s); it converts 8, 16, 24 "
                    "and 32-bit PCM)")
    elif h.tag == FLOAT and (h.bits not in (32, 64) or h.align != h.channels * h.bits // 8):
        return (f"a sample width the runner cannot convert ({h.bits}-bit float in "
                f"{h.align}-byte frames of {h.channels} channel(s); it converts 32 and 64-bit "
                "float)")
    return None


def _data_problem(h: RiffHeader, declared: int, present: int) -> str | None:
    if declared == UNKNOWN_SIZE:
        declared = present
    if present <= 0:
        promised = f", though the header promises {_amount(declared, h)}" if declared else ""
        return f"truncated after its header: it holds no audio data{promised}"
    if declared == 0:
        return (f"its header says the audio data is empty, though {present} bytes follow "
                "(a writer that never finished the file)")
    if declared > present:
        return (f"truncated: the header promises {_amount(declared, h)} of audio but the file "
                f"holds {_amount(present, h)}")
    if declared < h.align:
        return f"holds less than one frame of audio ({declared} bytes)"
    return None


def _amount(data_bytes: int, h: RiffHeader) -> str:
    count = f"{data_bytes} byte{'' if data_bytes == 1 else 's'}"
    return f"{data_bytes / h.per_second:.2f} s ({count})" if h.per_second > 0 else count


def _not_decodable(head: bytes, header: RiffHeader | None) -> str:
    """Why the decoder failed, in words: the WAV's coding, or what the first bytes look like."""
    if header is not None and header.tag is not None:
        name = CODINGS.get(header.tag, "an unknown coding")
        return (f"a WAV in a coding the runner cannot convert ({name}, format tag "
                f"0x{header.tag:04X})")
    if header is not None:
        return "a WAV the runner cannot decode"
    return f"not a WAV file: it looks like {_looks_like(head)}, and the runner cannot decode it"


def _looks_like(head: bytes) -> str:
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "an MP3"
    for magic, kind in ((b"OggS", "an Ogg file (Vorbis or Opus)"), (b"fLaC", "a FLAC file"),
                        (b"FORM", "an AIFF file"), (b"RIFF", "a RIFF file of another kind"),
                        (b"\x1aE\xdf\xa3", "a WebM or Matroska file")):
        if head.startswith(magic):
            return kind
    if head[4:8] == b"ftyp":
        return "an MP4 or M4A file"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text and all(c.isprintable() or c in "\t\r\n" for c in text):
        return f"text ({' '.join(text.split())[:40]!r})"
    return f"unknown data (it starts with {head[:8].hex(' ')})"


def from_array(data: np.ndarray, rate: int, source: str = "<array>") -> CallerAudio:
    """Sanitise, downmix and resample any float/int array (frames x channels or 1-D)."""
    if rate <= 0:
        raise AudioInputError(source, f"sample rate {rate} is invalid",
                              "give the rate the samples were recorded at")
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
