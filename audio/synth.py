"""Caller speech synthesised from a script's ``say`` text: Piper (the bundled voice) or
espeak-ng (a second, very different voice for recognition tests), cached by text hash.

The cache is per process (memory) and optionally on disk (``cache_dir``): a test pack that
says "Yes." forty times synthesises it once.

Piper samples noise on every synthesis. Caller speech is rendered reproducibly: each text is
synthesised by a voice seeded from the text (and ``$AMEND_CALLER_SEED``, default 0), so a
scripted call hears the same caller audio on every run and machine load. Set
``AMEND_CALLER_SEED`` to another integer to hear other renditions of the same script.
"""

from __future__ import annotations

import hashlib
import os
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


SEED_ENV = "AMEND_CALLER_SEED"


def caller_seed(text: str, salt: int | None = None) -> int:
    """The Piper seed of ``text``: from its hash and ``salt`` (default ``$AMEND_CALLER_SEED``)."""
    if salt is None:
        raw = os.environ.get(SEED_ENV, "0").strip() or "0"
        try:
            salt = int(raw)
        except ValueError:
            raise ValueError(f"{SEED_ENV}={raw!r} is not an integer: set it to a whole number "
                             "(0 is the default rendition) or unset it") from None
    digest = hashlib.sha256(f"{salt}\0{text}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def piper(text: str, *, cache_dir: Path | None = None, pad_secs: float = 0.1,
          salt: int | None = None) -> CallerAudio:
    """``text`` spoken by the bundled Piper voice, 16 kHz mono, with a little silence after:
    the same samples on every run for the same ``text`` and ``salt`` (see the module doc)."""
    seed = caller_seed(text, salt)
    key = _key("piper", text, str(seed))
    if key in _memory:
        return _memory[key]
    cached = cache_dir / f"{key}.wav" if cache_dir else None
    if cached is not None and cached.is_file():
        audio = load_wav(cached)
    else:
        chunks = list(services.seeded_piper_voice(seed).synthesize(text))
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
