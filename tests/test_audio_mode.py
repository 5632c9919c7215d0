"""Audio mode of the call runner: scripts spoken by Piper through the whole pipeline."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from audio.audio_mode import audio_mode_factory
from audio.calls import runner
from audio.calls.evidence import Verdict
from audio.calls.runner import run_calls

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import echo_world_factory  # noqa: E402

pytestmark = [pytest.mark.audio, pytest.mark.slow]

SCRIPT = """id: {id}
clock: "2026-12-01T09:00:00+01:00"
caller:
  tenant: acme
  subject: tech-17
  roles: [technician]
  account: ACME-001
  assets:
    - {{id: P-100, configuration: C2, region: EU, site: "12 Harbour Road"}}
{faults}turns:
  - say: "Please book pump P 100 for Friday morning."
  - say: "Sorry, make that Thursday morning instead."
    after: {{heard: "You said"}}
    barge_in: true
expect:
  heard:
    include: ["Got it"]
"""


@pytest.fixture(autouse=True)
def quick_end(monkeypatch):
    monkeypatch.setattr(runner, "END_QUIET_S", 0.5)


async def run_script(tmp_path: Path, name: str, faults: str = ""):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SCRIPT.format(id=name, faults=faults))
    results, _ = await run_calls([str(path)], "audio", echo_world_factory(),
                                 audio_mode_factory(), artifacts=tmp_path / "out")
    return results[0]


@pytest.mark.anyio
async def test_spoken_call_with_barge_in_passes_and_records_what_was_heard(tmp_path):
    result = await run_script(tmp_path, "echo")
    assert result.verdict is Verdict.PASS, result.violations
    heard = {h.generation: h for h in result.evidence.heard}
    cut = [h for h in heard.values() if 0 < h.heard_chars < len(h.text)]
    assert cut, "the barge-in cut the answer to the first turn"
    transcripts = result.evidence.transcripts
    assert "friday" in transcripts[0].lower() and "thursday" in transcripts[1].lower()
    assert result.latency_ms["voice_to_voice"] and result.latency_ms["barge_in"]
    folder = tmp_path / "out" / "echo"
    assert (folder / "output.wav").stat().st_size > 10_000
    assert "Thursday" in (folder / "transcripts.txt").read_text()


@pytest.mark.anyio
async def test_no_audio_flush_control_makes_the_barge_in_script_fail(tmp_path, monkeypatch):
    monkeypatch.setenv("AMEND_ALLOW_AGENT_FAULTS", "1")
    result = await run_script(tmp_path, "noflush", "agent_faults: [no_audio_flush]\n")
    assert result.verdict is Verdict.FAIL
    assert any(v.startswith("invariant 5") for v in result.violations), result.violations
