"""Broken caller audio makes a call INVALID, never FAIL, and never a silent turn (issue 19).

A turn's ``audio:`` file is decoded in full when the script is read, in either mode, so a
file that is missing, unreadable, empty, not audio, cut short or in a coding the runner does
not convert makes the script INVALID before any world is built or any agent runs; the message
names the script's file and line, the file as written and resolved, and the fix. A file that
breaks after the script was read is caught when its turn is to be played: still INVALID.
Files the runner converts (any rate, channel count, PCM width or float) keep working.

The broken fixtures of the known-answer controls (``audio/calls/examples/voices/broken-*``,
used by ``tests/test_calls_controls.py``) are :data:`FIXTURES`, byte for byte; regenerate them
with ``python tests/test_broken_audio.py``. Everything runs on a small fake world in text
mode, playback ten times faster than the contract's 15 characters per second.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import soundfile

from agent.core.ledger import Ledger
from agent.core.speech import Generations, SpeechKind, SpeechPlan, Utterance
from agent.core.trace import Trace
from audio.calls import runner
from audio.calls.evidence import Verdict
from audio.calls.mode import TextMode, TurnUnplayable, turn_audio
from audio.calls.runner import run_call, run_calls
from audio.calls.script import ScriptInvalid, Turn, load_script
from audio.wav_input import FIX, RATE

VOICES = Path(__file__).resolve().parents[1] / "audio" / "calls" / "examples" / "voices"
FIX_TEXT = "re-record or convert it to 16-bit PCM mono WAV, e.g. `sox in.xxx -b 16 -c 1 out.wav`"


# --------------------------------------------------------------------------- the fixtures
def wav_header(data_bytes: int, *, tag: int = 1, channels: int = 1, rate: int = RATE,
               bits: int = 16, align: int | None = None, per_second: int | None = None,
               ) -> bytes:
    """A 44-byte RIFF WAV header whose data chunk claims ``data_bytes``."""
    align = channels * ((bits + 7) // 8) if align is None else align
    per_second = rate * align if per_second is None else per_second
    fmt = struct.pack("<HHIIHH", tag, channels, rate, per_second, align, bits)
    return (b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVE"
            + b"fmt " + struct.pack("<I", len(fmt)) + fmt
            + b"data" + struct.pack("<I", data_bytes))


def pcm16(frames: int) -> bytes:
    """A deterministic sawtooth, 16-bit little-endian (integers only: the same on any
    machine)."""
    return b"".join(struct.pack("<h", (i * 97) % 4000 - 2000) for i in range(frames))


FIXTURES: dict[str, bytes] = {
    # the header promises 1 s of 16 kHz mono 16-bit PCM; the file ends right after it
    "broken-truncated-after-header.wav": wav_header(32000),
    # the header promises 0.5 s; 0.05 s is there (a copy that stopped half-way)
    "broken-cut-short.wav": wav_header(16000) + pcm16(800),
    "broken-empty.wav": b"",
    "broken-not-a-wav.wav": b"This is a text file with a .wav name: no audio at all.\n",
    # MP3 data in a WAV container (format tag 0x0055): libsndfile does not convert it
    "broken-mp3-in-wav.wav": wav_header(256, tag=0x0055, bits=0, align=1, per_second=2000)
    + bytes(256),
}


def write_fixtures(folder: Path = VOICES) -> None:
    for name, data in FIXTURES.items():
        (folder / name).write_bytes(data)


def test_the_committed_broken_fixtures_are_these_bytes_and_small():
    for name, data in FIXTURES.items():
        assert (VOICES / name).read_bytes() == data, (
            f"{name} differs; regenerate: python tests/test_broken_audio.py")
    assert sum(len(d) for d in FIXTURES.values()) < 4096
    assert FIX == FIX_TEXT  # the fix every message gives, as docs/call-scripts.md quotes it


# --------------------------------------------------------------------------- a fake world
@pytest.fixture(autouse=True)
def quick_timing(monkeypatch):
    monkeypatch.setattr(runner, "END_QUIET_S", 0.2)
    monkeypatch.setattr(runner, "TURN_GAP_S", 0.05)
    monkeypatch.setattr(runner, "END_LIMIT_S", 3.0)


class EchoAgent:
    """Greets, and answers every turn with one short sentence."""

    def __init__(self, sink, trace: Trace):
        self.sink, self.trace = sink, trace
        self._ledger = Ledger("q-1")
        self.gens = Generations()
        self.heard: list[str] = []

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    def _say(self, text: str, kind=SpeechKind.INFO) -> None:
        self.sink.speak(SpeechPlan(self.gens.next(), "q-1", self._ledger.revision, (text,),
                                   kind))

    async def start(self) -> None:
        self._say("Hello.")

    async def user_turn(self, utterance: Utterance) -> None:
        self.heard.append(utterance.text)
        self.trace.emit("user_turn_final", text=utterance.text, question="q-1",
                        revision=self._ledger.revision, generation=self.gens.current)
        self._say("Noted.", SpeechKind.QUESTION)

    def barge_in(self) -> None:
        self.sink.invalidate(self.gens.invalidate(), "barge_in")

    @property
    def busy(self) -> bool:
        return False

    async def wait_idle(self) -> None:
        return None

    async def close(self) -> None:
        self._ledger.close()


class EchoWorld:
    def __init__(self, sink, trace):
        self.agent = EchoAgent(sink, trace)

    @property
    def conversation(self):
        return self.agent

    async def bookings(self):
        return []

    async def notifications(self):
        return []

    async def staff_edit(self, ref, changes):
        raise AssertionError("no staff edits here")

    def meta(self):
        return {"tool_schema_version": "fake"}


class Worlds:
    """The world factory; counts the worlds built (none for a script that is INVALID)."""

    def __init__(self):
        self.built: list[EchoWorld] = []

    def __call__(self, spec, sink, trace):
        @contextlib.asynccontextmanager
        async def build():
            world = EchoWorld(sink, trace)
            self.built.append(world)
            yield world
        return build()


def text_mode(trace):
    return TextMode(trace, chars_per_second=150.0)


class PlayingMode(TextMode):
    """Text mode that first loads each `audio:` file as audio mode does (turn_audio)."""

    def __init__(self, trace):
        super().__init__(trace, chars_per_second=150.0)
        self.played: list[float] = []

    async def say(self, turn: Turn) -> None:
        if turn.audio is not None:
            self.played.append(turn_audio(turn).seconds)
        await super().say(turn)


SCRIPT = """id: {id}
clock: "2026-12-01T09:00:00+01:00"
caller:
  tenant: acme
  subject: tech-17
  account: ACME-001
  assets:
    - {{id: P-100, configuration: C2, region: EU, site: "12 Harbour Road"}}
turns:
  - say: "Hello, I have a question."
  - say: "Yes."
    audio: {audio}
  - say: "Thanks."
    after: {{event: user_turn_final}}
"""
AUDIO_LINE = 12  # the line of `audio:` above


def script(tmp_path: Path, name: str, audio: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(SCRIPT.format(id=name, audio=audio))
    return path


def tone_wav(path: Path, rate: int = 44100, channels: int = 2, secs: float = 0.5,
             subtype: str = "PCM_16", fmt: str = "WAV") -> Path:
    t = np.arange(int(rate * secs)) / rate
    mono = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    soundfile.write(str(path), np.stack([mono] * channels, axis=1), rate, subtype=subtype,
                    format=fmt)
    return path


# --------------------------------------------------------------------------- each kind
def _unreadable(path: Path, monkeypatch) -> None:
    path.write_bytes(FIXTURES["broken-cut-short.wav"])
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything: refuse it as the OS would
        real_open = Path.open

        def refusing(self, *args, **kwargs):
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)
        monkeypatch.setattr(Path, "open", refusing)


def _committed(name: str):
    return lambda path, _monkeypatch: shutil.copyfile(VOICES / name, path)


def _bytes(data: bytes):
    return lambda path, _monkeypatch: path.write_bytes(data)


CUT_PCM = wav_header(32000) + pcm16(100)
KINDS = [
    # kind, how to make voices/turn.wav, what the message says, the fix it gives
    ("truncated-after-header", _committed("broken-truncated-after-header.wav"),
     "truncated after its header: it holds no audio data, though the header promises 1.00 s "
     "(32000 bytes)", FIX_TEXT),
    ("cut-short", _committed("broken-cut-short.wav"),
     "truncated: the header promises 0.50 s (16000 bytes) of audio but the file holds "
     "0.05 s (1600 bytes)", FIX_TEXT),
    ("header-cut-off", _bytes(CUT_PCM[:30]),
     "truncated inside its header: the format chunk is cut short", FIX_TEXT),
    ("empty", _committed("broken-empty.wav"), "is empty (0 bytes)", FIX_TEXT),
    ("text", _committed("broken-not-a-wav.wav"),
     "not a WAV file: it looks like text ('This is a text file with a .wav name: no'), and "
     "the runner cannot decode it (libsndfile: ", FIX_TEXT),
    ("mp3-bytes", _bytes(b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(range(256)) * 2),
     "not a WAV file: it looks like an MP3, and the runner cannot decode it", FIX_TEXT),
    ("ogg-bytes", _bytes(b"OggS" + bytes(200)),
     "not a WAV file: it looks like an Ogg file (Vorbis or Opus), and the runner cannot "
     "decode it", FIX_TEXT),
    ("mp3-in-wav", _committed("broken-mp3-in-wav.wav"),
     "a WAV in a coding the runner cannot convert (MP3, format tag 0x0055)", FIX_TEXT),
    ("4-bit", _bytes(wav_header(64, bits=4, align=2, per_second=32000) + bytes(64)),
     "a sample width the runner cannot convert (4-bit PCM in 2-byte frames of 1 channel(s)",
     FIX_TEXT),
    ("64-bit-pcm", _bytes(wav_header(64, bits=64) + bytes(64)),
     "a sample width the runner cannot convert (64-bit PCM", FIX_TEXT),
    ("zero-channels", _bytes(wav_header(64, channels=0) + bytes(64)),
     "its header says 0 channels", FIX_TEXT),
    ("zero-rate", _bytes(wav_header(64, rate=0, per_second=0) + bytes(64)),
     "its header says a sample rate of 0 Hz", FIX_TEXT),
    ("missing", lambda path, _m: None, "not found",
     "check the turn's `audio:` path (relative to the script)"),
    ("directory", lambda path, _m: path.mkdir(), "is a directory, not an audio file",
     "name a WAV file (relative to the script)"),
    ("permission-denied", _unreadable, "cannot be read (PermissionError: Permission denied)",
     "make it readable (e.g. `chmod a+r`) or name another file"),
]


@pytest.mark.parametrize("kind,make,problem,fix", KINDS, ids=[k[0] for k in KINDS])
def test_broken_audio_makes_the_script_invalid_before_anything_runs(tmp_path, monkeypatch,
                                                                    kind, make, problem, fix):
    (tmp_path / "voices").mkdir()
    wav = tmp_path / "voices" / "turn.wav"
    make(wav, monkeypatch)
    path = script(tmp_path, kind, "voices/turn.wav")
    expected = (f"{path}:{AUDIO_LINE}: turns[1].audio: 'voices/turn.wav' ({wav}): {problem}")

    with pytest.raises(ScriptInvalid) as caught:  # what validation reports ...
        load_script(path)
    [error] = caught.value.errors
    assert error.startswith(expected) and error.endswith(f"; {fix}"), error
    assert "\n" not in error

    worlds = Worlds()  # ... is what the run reports, in text mode, with no world built
    results, skipped = asyncio.run(run_calls([str(path)], "text", worlds, text_mode))
    assert [r.verdict for r in results] == [Verdict.INVALID] and not skipped
    assert results[0].violations == (error,)
    assert worlds.built == []


def test_a_batch_runs_its_fine_script_when_another_has_broken_audio(tmp_path):
    (tmp_path / "voices").mkdir()
    write_fixtures(tmp_path / "voices")
    tone_wav(tmp_path / "voices" / "fine.wav")  # 44.1 kHz stereo: converted, not refused
    broken = script(tmp_path, "broken", "voices/broken-truncated-after-header.wav")
    fine = script(tmp_path, "fine", "voices/fine.wav")
    worlds = Worlds()
    results, _ = asyncio.run(run_calls([str(broken), str(fine)], "text", worlds, text_mode,
                                       concurrency=2))
    verdicts = {r.id: r.verdict for r in results}
    assert verdicts == {"broken": Verdict.INVALID, "fine": Verdict.PASS}, results
    assert len(worlds.built) == 1
    assert worlds.built[0].agent.heard == ["Hello, I have a question.", "Yes.", "Thanks."]


@pytest.mark.parametrize("rate,channels,subtype,fmt", [
    (44100, 2, "PCM_16", "WAV"), (8000, 1, "PCM_U8", "WAV"), (48000, 1, "PCM_24", "WAV"),
    (22050, 2, "FLOAT", "WAV"), (16000, 1, "PCM_32", "WAV"), (44100, 3, "PCM_24", "WAVEX"),
    (8000, 1, "ULAW", "WAV"), (16000, 1, "IMA_ADPCM", "WAV"), (44100, 2, "PCM_16", "FLAC"),
])
def test_audio_the_runner_converts_still_validates_and_plays_as_16k_mono(
        tmp_path, rate, channels, subtype, fmt):
    (tmp_path / "voices").mkdir()
    tone_wav(tmp_path / "voices" / "turn.wav", rate, channels, 0.5, subtype, fmt)
    loaded = load_script(script(tmp_path, "convertible", "voices/turn.wav"))
    audio = turn_audio(loaded.turns[1])
    assert audio.samples.ndim == 1 and audio.samples.dtype == np.float32
    assert abs(audio.seconds - 0.5) < 0.02  # ADPCM pads its last block
    assert (audio.original_rate, audio.original_channels) == (rate, channels)
    assert 0.2 < float(np.max(np.abs(audio.samples))) < 0.4


@pytest.mark.anyio
async def test_audio_broken_after_the_script_was_read_is_invalid_when_played(tmp_path):
    (tmp_path / "voices").mkdir()
    wav = tone_wav(tmp_path / "voices" / "turn.wav")
    path = script(tmp_path, "later", "voices/turn.wav")
    loaded = load_script(path)  # sound when read ...
    data = wav.read_bytes()
    wav.write_bytes(data[: len(data) // 3])  # ... cut short before its turn
    worlds = Worlds()
    result = await run_call(loaded, "audio", worlds, PlayingMode)
    assert result.verdict is Verdict.INVALID, result.violations
    [reason] = result.violations
    assert reason.startswith(f"{path}:{AUDIO_LINE}: turns[1].audio: 'voices/turn.wav' ({wav}): "
                             "truncated: the header promises 0.50 s"), reason
    assert reason.endswith("(found when the turn was to be played; none of it reached the "
                           "agent)"), reason
    assert FIX_TEXT in reason
    assert worlds.built[0].agent.heard == ["Hello, I have a question."]  # not "Yes."


@pytest.mark.anyio
async def test_a_later_trigger_does_not_hide_why_the_call_gave_up(tmp_path):
    """The turn after the unplayable one waits for a trigger; the call ends at once, INVALID
    for the audio, not for the trigger that could no longer fire."""
    (tmp_path / "voices").mkdir()
    wav = tone_wav(tmp_path / "voices" / "turn.wav")
    path = tmp_path / "chain.yaml"
    path.write_text(SCRIPT.format(id="chain", audio="voices/turn.wav").replace(
        "    audio: voices/turn.wav\n",
        "    audio: voices/turn.wav\n    after: {event: agent_speech_stopped}\n").replace(
        "after: {event: user_turn_final}", "after: {event: handoff, timeout_ms: 20000}"))
    loaded = load_script(path)
    wav.write_bytes(b"")
    result = await run_call(loaded, "audio", Worlds(), PlayingMode)
    assert result.verdict is Verdict.INVALID
    assert "turns[1].audio: 'voices/turn.wav'" in result.violations[0]
    assert "is empty (0 bytes)" in result.violations[0]
    assert result.duration_s < 10  # not the 20 s the handoff trigger would have waited


def test_audio_mode_loads_audio_turns_through_the_checked_loader(tmp_path):
    from audio.audio_mode import AudioMode

    (tmp_path / "voices").mkdir()
    wav = tone_wav(tmp_path / "voices" / "turn.wav")
    turn = load_script(script(tmp_path, "mode", "voices/turn.wav")).turns[1]
    mode = SimpleNamespace(cache_dir=None)
    assert abs(AudioMode._audio_for(mode, turn).seconds - 0.5) < 0.01
    wav.write_bytes(FIXTURES["broken-truncated-after-header.wav"])
    with pytest.raises(TurnUnplayable, match=r"turns\[1\]\.audio: 'voices/turn\.wav' .*"
                       "truncated after its header"):
        AudioMode._audio_for(mode, turn)


if __name__ == "__main__":
    write_fixtures()
    sys.stdout.write(f"wrote {len(FIXTURES)} fixtures to {VOICES}\n")
