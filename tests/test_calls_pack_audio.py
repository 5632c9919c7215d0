"""The acceptance pack in audio mode: every turn spoken through the whole pipeline (Piper,
or a recorded WAV in another voice where the script gives ``audio:``).

Real-time speech makes a full audio pack take many minutes on two cores, so it is split:

* ``make test`` runs the scripts named in ``IN_MAKE_TEST`` (the barge-in, dispatch, unknown
  outcome and answer races, four constructions of issue 13, and the repair ladder heard in
  other voices of issue 14), two calls at a time;
* ``make test-audio`` (``AMEND_AUDIO_PACK=all``) runs every script that does not say
  ``modes: [text]``.

Both run with one core kept busy by another process (``cpu_hog`` in ``tests/conftest.py``):
correctness must not depend on an idle machine. Each script's verdict is its own test.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest

from audio.calls.evidence import Verdict
from audio.calls.runner import run_call, run_calls
from audio.calls.script import load_script
from tests.pack_support import longest_first
from ui.call_cli import mode_factory, world_factory

pytestmark = [pytest.mark.audio, pytest.mark.slow]

CALLS = Path(__file__).parent / "calls"
# 22, 25, 29 and 30 were written blind against docs/ (issue 13): a cancellation without the
# word, a compressor's id in spoken letters, a negation scoped to its clause, and a booking
# without a booking verb, each heard through Piper and Whisper. (30 once failed under CPU load:
# a wall-clock end-of-turn timer split its sentence; turns now end in audio time, issue 14.)
# 25 and 29 (a compressor's id in spoken letters, a negation scoped to its clause) run in
# `make test-audio` and, in text mode, in `make test`: a second fresh-clone run of session 8
# took 26.6 min with them, installs included. 05, 22 and 30 (which Thursday; a cancellation
# without the word; a booking without a booking verb: understanding, which text mode checks
# in `make test`) moved the same way in session 9, to make room for the demo's processes
# and the voice link's leak and bounds tests (issues 17, 19). 03 and 11 (a date changed after
# dispatch; an unknown outcome reconciled, not retried: dispatch races that text mode also
# plays in `make test`) moved in session 10, for the second blind round's scripts and tests.
IN_MAKE_TEST = ("01", "06", "14", "17", "18",
                # 36-40 (issue 14, written blind): the repair ladder when the caller's answer
                # is itself misheard, in espeak-ng voices from recorded WAVs (`audio:`). In
                # about one run in three the VAD hears nothing at all in 38's fourth turn
                # (speech under pink noise): the no-input reprompt (audio/no_input.py) asks
                # again after 7 s of silence, so the ladder still climbs. 42 (that reprompt,
                # end to end) runs in `make test-audio` only, to keep a fresh-clone `make test`
                # under 25 min; tests/test_audio_adapter.py covers the reprompt's wiring. So do
                # 39 and 40 (an offer declined, a yes to the first day offered), to make room
                # for the PostgreSQL half of the suite (issue 17): 36, 37 and 38 keep one
                # script per repair path here (closed choice, yes/no, handoff).
                "36", "37", "38")
ALL = os.environ.get("AMEND_AUDIO_PACK") == "all"
# Two calls at a time, plus the hog: three busy processes on two cores. Turns end in audio
# time, so load makes the agent answer later, never differently (issue 14).
CALLS_AT_ONCE = 2
SCRIPTS = [p for p in sorted(CALLS.glob("*.yaml"))
           if "audio" in load_script(p).modes and (ALL or p.name[:2] in IN_MAKE_TEST)]


def test_the_make_test_half_is_named_and_runs_in_audio_mode():
    named = {p.name[:2] for p in SCRIPTS}
    assert set(IN_MAKE_TEST) <= named or ALL
    assert len(IN_MAKE_TEST) >= 8


@pytest.fixture(scope="module")
def audio_results(cpu_hog):
    """Every script of the half, two calls at a time, with one core kept busy by another
    process (``cpu_hog``): correctness must not depend on an idle machine."""
    assert cpu_hog.poll() is None, "the CPU hog is not running"
    results, skipped = asyncio.run(run_calls(longest_first(SCRIPTS), "audio", world_factory,
                                             mode_factory("audio"), concurrency=CALLS_AT_ONCE))
    assert not skipped
    return {r.id: r for r in results}


def story(result) -> str:
    """What the caller said, what the agent heard and said, and the trace, in order: a CI
    failure must be diagnosable from its log alone."""
    ev = result.evidence
    if ev is None:
        return "(no evidence)"
    lines = [f"verdict {result.verdict.value}: {'; '.join(result.violations)}"]
    lines += [f"  heard by the agent: {t}" for t in ev.transcripts]
    lines += [f"  agent said (gen {h.generation}, {h.reason}): {h.text!r}" for h in ev.heard]
    for e in ev.events:
        keys = ", ".join(f"{k}={v!r}" for k, v in e.data if k in
                         ("text", "fields", "values", "confidence", "kind", "reason",
                          "candidates", "disposition", "which", "held_secs", "idle_secs",
                          "segment", "channel", "caller_first", "unheard_ms", "unheard_secs",
                          "onset_to_paused_ms"))
        lines.append(f"  {e.t:8.2f} rev {e.revision} gen {e.generation} {e.name} {keys}")
    return "\n".join(lines)


@pytest.mark.parametrize("script", [p.stem for p in SCRIPTS])
def test_pack_script_passes_in_audio_mode(audio_results, script):
    result = audio_results[script]
    assert result.verdict is Verdict.PASS, story(result)
    assert result.latency_ms["voice_to_voice"], "audio mode measured no voice-to-voice latency"


@pytest.mark.skipif(not ALL, reason="make test-audio: make test plays the same control in "
                    "tests/test_audio_mode.py, on a short script")
def test_no_audio_flush_makes_the_barge_in_script_fail(cpu_hog):
    """Known-answer control: without the flush, stale audio plays after the barge-in (on the
    pack's own script 18, with the hog)."""
    script = load_script(CALLS / "18-correction-during-answer-generation.yaml")
    broken = dataclasses.replace(script, agent_faults=("no_audio_flush",))
    result = asyncio.run(run_call(broken, "audio", world_factory, mode_factory("audio")))
    assert result.verdict is Verdict.FAIL, (result.verdict.value, result.notes)
    assert any(v.startswith("invariant 5") for v in result.violations), result.violations
