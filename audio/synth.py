"""Caller speech synthesised from a script's ``say`` text: Piper (the bundled voice) or
espeak-ng (a second, very different voice for recognition tests), cached by text hash.

The cache is per process (memory) and optionally on disk (``cache_dir``): a test pack that
says "Yes." forty times synthesises it once.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from audio import services
from audio.wav_input import CallerAudio, from_array, load_wav

_memory: dict[str, CallerAudio] = {}


def _key(voice: str, text: str, extra: str = "") -> str:
    return hashlib.sha256(f"{voice}\0{extra}\0{text}".encode()).hexdigest()[:20]


def piper(text: str, *, cache_dir: Path | None = None, pad_secs: float = 0.1) -> CallerAudio:
    """``text`` spoken by the bundled Piper voice, 16 kHz mono, with a little silence after."""
    key = _key("piper", text)
    if key in _memory:
        return _memory[key]
    cached = cache_dir / f"{key}.wav" if cache_dir else None
    if cached is not None and cached.is_file():
        audio = load_wav(cached)
    else:
        chunks = list(services.piper_voice().synthesize(text))
        if not chunks:
            raise ValueError(f"Piper produced no audio for {text!r}")
        pcm = np.concatenate([c.audio_int16_array for c in chunks])
        pcm = np.concatenate([pcm, np.zeros(int(chunks[0].sample_rate * pad_secs), np.int16)])
        audio = from_array(pcm, chunks[0].sample_rate, f"piper:{text}")
        if cached is not None:
            _write(cached, audio)
    _memory[key] = audio
    return audio


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def espeak(text: str, *, voice: str = "en-us", speed: int = 160, pitch: int = 50,
           tempo: float | None = None, ssml: bool = False) -> CallerAudio:
    """``text`` spoken by espeak-ng (optionally time-stretched by sox). Needs espeak-ng.
    With ``ssml``, ``text`` is SSML (e.g. ``<break time="500ms"/>`` for a pause inside a
    sentence, with the sentence's own intonation around it)."""
    key = _key("espeak", text, f"{voice}/{speed}/{pitch}/{tempo}/{ssml}")
    if key in _memory:
        return _memory[key]
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "espeak.wav"
        markup = ["-m"] if ssml else []
        subprocess.run(["espeak-ng", *markup, "-v", voice, "-s", str(speed), "-p", str(pitch),
                        "-w", str(raw), text], check=True, capture_output=True, timeout=30)
        if tempo is not None and shutil.which("sox"):
            stretched = Path(tmp) / "tempo.wav"
            subprocess.run(["sox", str(raw), str(stretched), "tempo", str(tempo)],
                           check=True, capture_output=True, timeout=30)
            raw = stretched
        audio = load_wav(raw)
    _memory[key] = audio
    return audio


def _write(path: Path, audio: CallerAudio) -> None:
    import soundfile
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(path), audio.samples, 16000, subtype="PCM_16")
