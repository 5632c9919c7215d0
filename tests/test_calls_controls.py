"""Known-answer controls: with one safeguard of the agent switched off, the oracle must FAIL.

Each ``agent_faults`` switch is turned on for the pack scripts that exercise the safeguard it
removes. A run that still passes would mean the judge cannot see that failure. A malformed
script, a required trigger that never fires and broken caller audio (a pack script whose
recording is swapped for one of ``audio/calls/examples/voices/broken-*``, or for a file that
is not there) must be INVALID, never PASS or FAIL.
``no_audio_flush`` needs audio mode (script 18 is its match: there the correction lands after
the answer was planned, so only the output side can keep the stale answer from the caller).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from agent.core.gate import GateMode
from agent.service.controls import NAMES, AgentFaults, FromPlan, RetryWithNewKey, TrustTheQueue
from agent.service.safeguards import Safeguards
from audio.calls.evidence import Verdict
from audio.calls.mode import TextMode
from audio.calls.runner import run_call, run_calls
from audio.calls.script import load_script
from ui.bootstrap import safeguards
from ui.call_cli import world_factory

CALLS = Path(__file__).parent / "calls"


def _control(switch: str, script: str, why_not_yet: str | None = None):
    marks = [pytest.mark.xfail(strict=True, reason=why_not_yet)] if why_not_yet else []
    return pytest.param(switch, script, marks=marks, id=f"{switch}-{script[:2]}")


CONTROLS = [
    _control("gate_off", "17-late-retrieval-after-correction"),
    _control("retry_with_new_key", "11-unknown-outcome-is-reconciled-not-retried"),
    _control("confirm_from_plan", "15-success-for-stale-version"),
    _control("no_recheck_before_dispatch", "02-change-date-while-request-is-queued"),
]


# What each switch injects at composition (ui/bootstrap.py) in place of the agent's own.
INJECTED = {
    "gate_off": ("gate_mode", GateMode.SHADOW),
    "confirm_from_plan": ("confirmations", FromPlan),
    "no_recheck_before_dispatch": ("dispatch_check", TrustTheQueue),
    "retry_with_new_key": ("unknown_outcome", RetryWithNewKey),
}


def test_each_switch_injects_one_naive_strategy_and_none_injects_nothing():
    agent = Safeguards()
    assert safeguards(AgentFaults()) == agent and safeguards(None) == agent
    assert safeguards(AgentFaults(no_audio_flush=True)) == agent  # audio mode's, not the agent's
    assert set(INJECTED) | {"no_audio_flush"} == set(NAMES)
    for switch, (field, naive) in INJECTED.items():
        chosen = safeguards(AgentFaults(**{switch: True}))
        changed = [f for f in Safeguards.__dataclass_fields__
                   if getattr(chosen, f) is not getattr(agent, f)]
        assert changed == [field], switch
        value = getattr(chosen, field)
        assert value == naive if isinstance(naive, GateMode) else isinstance(value, naive)


@pytest.fixture(scope="module")
def control_results():
    """Every control once, a few at a time (each call is mostly waiting for speech)."""
    async def run_all():
        slots = asyncio.Semaphore(5)

        async def one(switch: str, script: str):
            loaded = dataclasses.replace(load_script(CALLS / f"{script}.yaml"),
                                         agent_faults=(switch,))
            async with slots:
                return await run_call(loaded, "text", world_factory, TextMode)

        pairs = [tuple(p.values) for p in CONTROLS]
        results = await asyncio.gather(*(one(s, n) for s, n in pairs))
        return dict(zip(pairs, results, strict=True))

    return asyncio.run(run_all())


@pytest.mark.slow
@pytest.mark.parametrize("switch,script", CONTROLS)
def test_agent_fault_switch_makes_its_script_fail(control_results, switch, script):
    result = control_results[(switch, script)]
    assert result.verdict is Verdict.FAIL, (result.verdict.value, result.violations,
                                            result.notes)


@pytest.mark.anyio
async def test_malformed_script_is_invalid(tmp_path):
    text = (CALLS / "01-change-date-before-any-tool-call.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("after: {event: confirmation_requested}",
                                "after: {event: confirmation_requestd}", 1))
    [result], _ = await run_calls([str(bad)], "text", world_factory, TextMode)
    assert result.verdict is Verdict.INVALID
    assert "did you mean 'confirmation_requested'?" in result.violations[0]


@pytest.mark.slow
@pytest.mark.anyio
async def test_required_trigger_that_never_fires_is_invalid(tmp_path):
    text = (CALLS / "01-change-date-before-any-tool-call.yaml").read_text()
    never = tmp_path / "never.yaml"
    never.write_text(text.replace("after: {event: confirmation_requested}",
                                  "after: {event: handoff, timeout_ms: 1500}", 1))
    [result], _ = await run_calls([str(never)], "text", world_factory, TextMode)
    assert result.verdict is Verdict.INVALID, result.violations
    assert "did not fire within 1500 ms" in result.violations[0]


# Broken caller audio (issue 19): pack script 47 with its recording (line 18) swapped for a
# broken fixture, pinned byte for byte in tests/test_broken_audio.py. INVALID is decided when
# the script is read, in either mode: no world is built and no agent runs, so these are fast.
BROKEN_AUDIO = [
    ("broken-truncated-after-header.wav", "truncated after its header: it holds no audio data"),
    ("broken-cut-short.wav", "truncated: the header promises 0.50 s"),
    ("broken-empty.wav", "is empty (0 bytes)"),
    ("broken-not-a-wav.wav", "not a WAV file: it looks like text"),
    ("broken-mp3-in-wav.wav", "a WAV in a coding the runner cannot convert (MP3"),
    ("broken-missing.wav", "not found"),  # no such file: a recording that was never added
]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["text", "audio"])
@pytest.mark.parametrize("fixture,problem", BROKEN_AUDIO, ids=[f for f, _ in BROKEN_AUDIO])
async def test_broken_caller_audio_is_invalid(tmp_path, fixture, problem, mode):
    voices = (CALLS / "voices").resolve()
    assert (voices / fixture).exists() == (fixture != "broken-missing.wav")
    (tmp_path / "voices").symlink_to(voices)  # `audio:` stays relative, as in the pack
    text = (CALLS / "47-blind-quiet-yep-confirms.yaml").read_text()
    broken = tmp_path / "47-broken.yaml"
    broken.write_text(text.replace("audio: voices/47-s6-quiet-yep.wav",
                                   f"audio: voices/{fixture}", 1))

    def no_world(*_args):
        raise AssertionError("a script with broken audio must not get a world")

    [result], skipped = await run_calls([str(broken)], mode, no_world, TextMode)
    assert result.verdict is Verdict.INVALID and not skipped, result.violations
    [reason] = result.violations
    assert reason.startswith(f"{broken}:18: turns[1].audio: 'voices/{fixture}' "
                             f"({voices / fixture}): {problem}"), reason
