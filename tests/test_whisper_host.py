"""Whisper in a process of its own (audio/whisper_host.py): the demo's default recogniser."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import numpy as np
import psutil
import pytest

from audio import services, synth
from audio.models import SettingError
from audio.whisper_host import (
    WHISPER_PROCESS_ENV,
    WhisperHost,
    WhisperHostError,
    whisper_process_setting,
)

pytestmark = pytest.mark.audio


@pytest.fixture(scope="module")
def turn() -> np.ndarray:
    clip = synth.piper("Please book pump P 200 for Thursday afternoon, not Tuesday.")
    return np.concatenate([np.zeros(16000, np.float32), clip.samples,
                           np.zeros(8000, np.float32)])


@pytest.fixture
def host():
    made = WhisperHost()
    yield made
    made.stop()


def test_the_hosted_recogniser_hears_what_the_demo_process_would(host, turn):
    here = services.recognise(turn, hotwords="P 100 P 200")
    there = host.recognise(turn, hotwords="P 100 P 200")
    assert there == here  # text, confidence, no-speech and every word's probability
    assert "Thursday" in there.text and there.words
    assert host.recognise(np.zeros(16000, np.float32)).text == ""  # silence: nothing heard
    assert host.starts == 1 and psutil.Process(host.pid).name().startswith("python")


def test_simultaneous_recognitions_each_get_their_own_answer(host, turn):
    short = synth.piper("Yes please.").samples
    short = np.concatenate([np.zeros(16000, np.float32), short, np.zeros(8000, np.float32)])
    answers: dict[str, str] = {}

    def hear(name: str, audio: np.ndarray) -> None:
        for round_ in range(3):
            answers[f"{name}{round_}"] = host.recognise(audio).text

    threads = [threading.Thread(target=hear, args=(name, audio))
               for name, audio in (("long", turn), ("short", short), ("again", turn))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {answers[f"long{i}"] for i in range(3)} == {answers["again0"]}
    assert all("Thursday" in answers[f"long{i}"] for i in range(3))
    assert all("yes" in answers[f"short{i}"].lower() for i in range(3))


def test_a_child_killed_mid_recognition_fails_that_one_and_the_next_starts_a_new_one(host, turn):
    host.start()
    first = host.pid
    os.kill(first, signal.SIGSTOP)  # frozen: the recognition below waits for its answer
    failed: list[BaseException] = []
    lane_taken = threading.Event()
    real_get = host._lanes.get

    def get_and_say(*args, **kwargs):
        lane = real_get(*args, **kwargs)
        lane_taken.set()
        return lane

    host._lanes.get = get_and_say

    def hear() -> None:
        try:
            host.recognise(turn)
        except WhisperHostError as exc:
            failed.append(exc)

    waiting = threading.Thread(target=hear)
    waiting.start()
    assert lane_taken.wait(30)
    os.kill(first, signal.SIGKILL)
    waiting.join(60)
    assert not waiting.is_alive()
    assert len(failed) == 1 and "died during a recognition" in str(failed[0])
    assert "Thursday" in host.recognise(turn).text  # a new child serves the next one
    assert host.starts == 2 and host.pid != first


def test_the_child_exits_when_the_demo_process_dies():
    script = ("import os, sys\n"
              "from audio.whisper_host import WhisperHost\n"
              "host = WhisperHost(); host.start(); print(host.pid, flush=True)\n"
              "os._exit(0)\n")  # no clean-up: as if the process were killed
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=180, check=True)
    child = psutil.Process(int(run.stdout.split()[-1]))
    gone, alive = psutil.wait_procs([child], timeout=30)
    assert gone and not alive


def test_a_child_that_cannot_load_its_model_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("AMEND_WHISPER_MODEL", str(tmp_path / "no-such-model"))
    host = WhisperHost()
    with pytest.raises(WhisperHostError, match="could not start: .*AMEND_WHISPER_MODEL"):
        host.recognise(np.zeros(16000, np.float32))
    assert host.pid is None  # nothing left running


def test_the_setting_is_on_by_default_and_a_bad_value_is_named():
    assert whisper_process_setting({}) is True
    assert whisper_process_setting({WHISPER_PROCESS_ENV: " 1 "}) is True
    assert whisper_process_setting({WHISPER_PROCESS_ENV: "0"}) is False
    for bad in ("yes", "2", "off"):
        with pytest.raises(SettingError, match=f"{WHISPER_PROCESS_ENV}='{bad}': give 1"):
            whisper_process_setting({WHISPER_PROCESS_ENV: bad})
    with pytest.raises(ValueError, match="must be >= 1"):
        WhisperHost(num_workers=0)


def test_the_demo_recognises_apart_by_default_and_in_process_when_told(monkeypatch, turn):
    from ui.demo_build import _recognise_apart

    try:
        monkeypatch.delenv(WHISPER_PROCESS_ENV, raising=False)
        _recognise_apart()
        hosted = services.whisper_host()
        assert hosted is not None
        assert "Thursday" in services.recognise(turn).text  # through the host
        assert hosted.pid is not None
        services.use_whisper_process(False)
        assert services.whisper_host() is None and hosted.pid is None  # stopped
        monkeypatch.setenv(WHISPER_PROCESS_ENV, "0")
        _recognise_apart()
        assert services.whisper_host() is None
    finally:
        services.use_whisper_process(False)


def test_the_demo_refuses_a_bad_setting_before_it_starts():
    env = {**os.environ, WHISPER_PROCESS_ENV: "sometimes"}
    run = subprocess.run([sys.executable, "-m", "ui.cli", "demo", "--no-warm"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode != 0
    assert f"{WHISPER_PROCESS_ENV}='sometimes': give 1" in run.stderr
