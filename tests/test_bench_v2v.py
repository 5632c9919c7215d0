"""Voice-to-voice with the real agent (audio/bench_v2v.py) and its milestones (audio/latency.py).

The arithmetic (stage split, percentiles, ratios, right/wrong classification, the rows) is
tested with fakes and no models. One slow test runs the real measurement on a couple of turns
and checks the rows are well formed; timing targets live only in the bench table.
"""

from __future__ import annotations

import math
import os

import pytest

from agent.bench import BenchRow
from agent.core.trace import Trace
from audio import bench_v2v as b
from audio.latency import TurnClock


def milestones(**over) -> b.Milestones:
    base = dict(last_voiced=10.0, vad_stop=10.25, transcript=10.6, turn_end=10.65,
                decision=10.67, first_tts=10.75, first_output=10.76)
    base.update(over)
    return b.Milestones(**base)


# -- stage split ----------------------------------------------------------------------------
def test_stages_run_between_consecutive_milestones_and_add_up_to_voice_to_voice():
    stages = b.split_stages(milestones())
    assert list(stages) == [key for key, _ in b.STAGES]
    expected = {"vad": 0.25, "stt": 0.35, "end_of_turn": 0.05, "decision": 0.02, "tts": 0.08,
                "output": 0.01}
    assert stages == pytest.approx(expected)
    assert sum(stages.values()) == pytest.approx(0.76)


def test_a_missing_milestone_adds_nothing_and_its_time_goes_to_the_next_stage():
    stages = b.split_stages(milestones(vad_stop=None, first_tts=None))
    assert stages["vad"] == 0.0
    assert stages["stt"] == pytest.approx(0.6)  # last voiced -> transcript
    assert stages["tts"] == 0.0
    assert stages["output"] == pytest.approx(0.09)  # decision -> first frame played
    assert sum(stages.values()) == pytest.approx(0.76)


def test_a_transcript_before_the_vad_stop_is_not_a_negative_stage():
    # the transcript of the first part of a turn can be ready before the last VAD stop
    stages = b.split_stages(milestones(transcript=10.2))
    assert stages["stt"] == 0.0
    assert min(stages.values()) >= 0.0
    assert stages["end_of_turn"] == pytest.approx(0.4)  # VAD stop -> turn handed over
    assert sum(stages.values()) == pytest.approx(0.76)


def test_dominant_stage_is_the_largest_share_of_the_summed_time():
    turns = [b.split_stages(milestones()), b.split_stages(milestones(first_output=11.5))]
    key, share = b.dominant_stage(turns)
    assert key == "output"  # 0.01 + 0.75 s, more than STT's 0.35 + 0.35 s
    assert share == pytest.approx((0.01 + 0.75) / (0.76 + 1.5))
    with pytest.raises(ValueError):
        b.dominant_stage([])


# -- right, wrong, missed -------------------------------------------------------------------
def read_words(text: str) -> tuple[str, ...]:
    """A fake reader: the lower-case words, without punctuation."""
    return tuple("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def test_right_when_the_values_read_are_the_same_wrong_when_they_differ_missed_unanswered():
    said = "Sorry, Thursday morning, not Wednesday."
    assert b.classify(said, "sorry thursday morning not wednesday", True, read_words) == "right"
    assert b.classify(said, "Sorry, Thursday morning and that Wednesday.", True,
                      read_words) == "wrong"
    assert b.classify(said, "sorry thursday morning not wednesday", False,
                      read_words) == "missed"
    assert b.classify(said, "  ", True, read_words) == "missed"


def test_the_proposer_reader_compares_values_not_spelling():
    from datetime import datetime

    read = b.proposer_reader(b.CALLER, datetime.fromisoformat(b.NOW))
    said = "Can you send someone to look at P-100 on Wednesday afternoon?"
    assert b.classify(said, "Can you send someone to look at P 100 on Wednesday afternoon",
                      True, read) == "right"
    assert b.classify(said, "Can you send someone to look at P 200 on Wednesday afternoon",
                      True, read) == "wrong"
    assert b.classify("Sorry, Thursday morning, not Wednesday.",
                      "Sorry, Thursday morning, and Wednesday.", True, read) == "wrong"


# -- percentiles and ratios -----------------------------------------------------------------
def test_p50_is_the_median_and_p95_the_nearest_rank():
    assert b.pct([0.8, 0.9], 50) == pytest.approx(0.85)
    assert b.pct([0.1 * i for i in range(1, 21)], 95) == pytest.approx(2.0)  # rank 20 of 20
    with pytest.raises(ValueError):
        b.pct([], 95)


def test_ratio_is_the_quotient_of_the_two_percentiles():
    v2v = [0.5, 0.6, 0.7, 0.8, 2.0]
    floor = [0.4, 0.5, 0.5, 0.6, 0.9]
    assert b.ratio(v2v, floor, 50) == pytest.approx(0.7 / 0.5)  # p50 is the median
    assert b.ratio(v2v, floor, 95) == pytest.approx(2.0 / 0.9)
    with pytest.raises(ValueError):
        b.ratio(v2v, [], 50)
    with pytest.raises(ValueError):
        b.ratio(v2v, [0.0], 50)


def sample(v2v: float | None, outcome: str, voice: str = "piper joe") -> b.TurnSample:
    stages = None if v2v is None else b.split_stages(milestones(first_output=10.0 + v2v))
    answered = v2v is not None
    return b.TurnSample(voice, "said", "heard" if answered else "", outcome, v2v, stages,
                        "Okay." if answered else "", stt_runs=2 if answered else 0,
                        stt_last=0.4 if answered else None,
                        waits=(1, 0, 0) if answered else (0, 0, 0))


def rows_by_figure(rows: list[BenchRow]) -> dict[str, BenchRow]:
    return {r.figure: r for r in rows}


def test_rows_report_right_and_wrong_apart_stages_floor_ratio_and_the_workers():
    samples = [sample(0.8, "right"), sample(0.9, "right"), sample(1.0, "right"),
               sample(2.0, "wrong"), sample(None, "missed")]
    floors = [b.Floor(0.25, 0.4, 0.05, 0.3), b.Floor(0.25, 0.45, 0.05, 0.35),
              b.Floor(0.25, 0.5, 0.05, 0.4), b.Floor(0.25, 0.5, 0.05, 0.4)]
    tradeoff = b.Tradeoff(single={(1, 2): [0.8, 0.9], (2, 1): [0.7, 0.75]},
                          together={(1, 2): [1.0, 1.2, 1.4], (2, 1): [1.1, 1.5, 1.9]},
                          whisper={(1, 2): [0.4, 0.45], (2, 1): [0.3, 0.32]}, calls=3)
    rows = b.figure_rows(samples, floors, tradeoff, quick=False, vad_stop_secs=0.2,
                         voices_used=["piper joe", "espeak-ng en-us", "espeak-ng en-gb female"])
    by = rows_by_figure(rows)
    assert by["voice-to-voice p50, real agent (4 turns, 3 voices)"].value == 950  # median
    assert by["voice-to-voice p95, real agent"].value == 2000  # nearest rank
    assert by["turns recognised right (values as said)"].value == 3
    assert by["turns recognised wrong (values differ from what was said)"].value == 1
    assert by["turns missed (no answer to time)"].value == 1
    assert by["voice-to-voice p50, right turns (3)"].value == 900
    assert by["voice-to-voice p50, wrong turns (1)"].value == 2000
    for _, label in b.STAGES:
        assert isinstance(by[f"stage {label}, p50"].value, int)
        assert isinstance(by[f"stage {label}, p95"].value, int)
    assert by["STT stage: the final Whisper run in the pipeline, p50"].value == 400
    assert by["Whisper runs per turn (one per VAD pause), mean"].value == 2.0
    held = next(r for f, r in by.items() if f.startswith("pauses whose audio waited"))
    assert held.value == "4 / 0"  # one per answered turn, none on the backstop
    assert next(r for f, r in by.items() if f.startswith("segments heard before")).value == 0
    assert by["floor: bare VAD stop on the same turns, p50"].value == 250
    # Whisper's floor is the pipeline's call (words scored); the text alone beside it
    assert by["floor: Whisper alone on the same turns, words scored as the pipeline does, p50"
              ].value == 475
    assert by["floor: Whisper alone on the same turns, text only (no word scores), p50"
              ].value == 375
    assert by["voice-to-voice / floor with Whisper's text alone, p50"].value == round(
        0.95 / 0.675, 2)
    assert by["floor: VAD + Whisper + Piper per turn, p50"].value == 775
    assert by["voice-to-voice / floor, p50"].value == round(0.95 / 0.775, 2)
    assert by["voice-to-voice / floor, p95"].value == round(2.0 / 0.8, 2)
    assert by["whisper 1 thread × 2 workers (default): single call v2v p50 (2 turns)"].value \
        == 850
    assert by["whisper 2 threads × 1 worker: v2v p95, 3 simultaneous calls (3 turns)"].value \
        == 1900
    # the fakes' extra time all lands between first audio and the first frame played
    assert by["dominant stage (share of summed voice-to-voice)"].value.startswith("output (")
    assert all(r.command == b.CMD for r in rows)


def test_rows_say_when_nothing_was_answered_or_no_turn_was_wrong():
    rows = b.figure_rows([sample(None, "missed")], [], None, quick=True, vad_stop_secs=0.2,
                         voices_used=["piper joe"])
    assert len(rows) == 1 and "n/a" in str(rows[0].value)
    rows = b.figure_rows([sample(0.8, "right")], [b.Floor(0.2, 0.4, 0.05)], None, quick=True,
                         vad_stop_secs=0.2, voices_used=["piper joe"])
    by = rows_by_figure(rows)
    assert by["voice-to-voice p50, wrong turns (0)"].value == "n/a (0 turns)"
    assert all(r.command == b.CMD_QUICK for r in rows)


def test_without_a_world_the_rows_say_how_to_get_one(monkeypatch):
    monkeypatch.setattr(b, "_worlds", [])
    rows = b.v2v_rows(True)
    assert len(rows) == 1 and "amend bench" in str(rows[0].value)


def test_the_composition_root_provides_the_world_amend_call_builds():
    from ui import call_cli

    assert b.provided_world() is call_cli.world_factory


# -- the milestones on the trace ------------------------------------------------------------
def test_turn_latency_keeps_its_keys_and_adds_vad_stop_and_turn_end(monkeypatch):
    now = [100.0]
    monkeypatch.setattr("audio.latency.time.monotonic", lambda: now[0])
    trace = Trace(clock=lambda: now[0] - 100.0)
    clock = TurnClock(trace)
    clock.vad_stopped()  # at 100.0: a pause of an earlier turn is overwritten below
    now[0] = 100.25
    clock.vad_stopped()
    now[0] = 100.6
    clock.transcribed()
    now[0] = 100.65
    clock.turn(last_voiced=100.0, after_generation=1)
    now[0] = 100.67
    clock.decided(2)
    clock.first_tts_audio(2, 100.75)
    clock.first_output(2, 100.76)
    event = trace.named("turn_latency")[-1]
    assert {k: event.get(k) for k in ("transcript_ms", "decision_ms", "first_tts_audio_ms",
                                      "first_output_ms", "vad_stop_ms", "turn_end_ms")} == {
        "transcript_ms": 600.0, "decision_ms": 670.0, "first_tts_audio_ms": 750.0,
        "first_output_ms": 760.0, "vad_stop_ms": 250.0, "turn_end_ms": 650.0}
    # a stop belongs to one turn; a typed turn has none
    clock.turn(last_voiced=None, after_generation=2)
    assert clock.turns[-1].vad_stop is None and clock.turns[-1].transcript is None


# -- the real thing, briefly ----------------------------------------------------------------
@pytest.mark.audio
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("AMEND_AUDIO_PACK") != "all",
                    reason="three minutes of real calls (both Whisper settings, three calls at "
                           "once): runs in `make test-audio`")
def test_quick_real_measurement_gives_well_formed_rows():
    from audio.audio_mode import quiet_pipecat_logs
    from ui.call_cli import world_factory

    quiet_pipecat_logs()  # pipecat logs every frame at DEBUG
    rows = b.v2v_rows(True, world_factory)  # the --quick plan: 2 turns, every row
    by = rows_by_figure(rows)
    assert all(isinstance(r, BenchRow) and r.command == b.CMD_QUICK for r in rows)
    for r in rows:
        if isinstance(r.value, float | int):
            assert math.isfinite(r.value) and r.value >= 0, r
            assert r.unit, r
    assert b.QUICK.turns == 2
    turns = sum(by[f].value for f in ("turns recognised right (values as said)",
                                      "turns recognised wrong (values differ from what was "
                                      "said)", "turns missed (no answer to time)"))
    assert turns == 2
    names = " | ".join(by)
    for part in ("voice-to-voice p50, real agent", "voice-to-voice p95, real agent",
                 "stage VAD end-of-turn", "stage STT", "floor: Whisper alone",
                 "the final Whisper run in the pipeline", "Whisper runs per turn",
                 "voice-to-voice / floor, p50", "1 thread × 2 workers (default)",
                 "2 threads × 1 worker", "3 simultaneous calls", "load average"):
        assert part in names, part
    from audio import services
    assert services._whisper_setting == {"cpu_threads": 1, "num_workers": 2}  # set back
