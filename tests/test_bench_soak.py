"""The memory benches of issue 19. The soak (ui/bench_soak.py): the memory slope after the
warm-up, latency drift between the first and the last minute, and what the demo says of its
memory; the soak itself runs for minutes (``amend bench --only soak``), these check its
arithmetic. Each speech model alone (audio/bench_memory.py): measured in a process of its own."""

from __future__ import annotations

import pytest

from ui import bench_soak


def test_the_slope_is_the_least_squares_line_in_mib_per_hour():
    rising = [(t, 1000.0 + t / 36.0) for t in range(0, 600, 2)]  # 100 MiB an hour
    assert bench_soak.slope_per_hour(rising) == pytest.approx(100.0)
    assert bench_soak.slope_per_hour([(0.0, 5.0)]) == 0.0
    assert bench_soak.slope_per_hour([(3.0, 5.0), (3.0, 9.0)]) == 0.0


def rows(**extra) -> dict[str, object]:
    tally = bench_soak.Tally(start=0.0)
    tally.calls = 12
    tally.v2v = [(10.0, 400.0), (20.0, 800.0), (290.0, 500.0), (295.0, 700.0)]
    samples = [(float(t), 1000.0 + (t - 60) / 36.0 if t >= 60 else 900.0 + t)
               for t in range(0, 301, 2)]
    return {r.figure: r.value for r in bench_soak._rows(4, 5.0, samples, tally, **extra)}


def test_the_rows_measure_after_the_warm_up_and_compare_the_first_and_last_minute():
    found = rows(allocator="the C library's malloc")
    assert found["calls completed (4 browsers, 5 min, the C library's malloc)"] == 12
    assert found["memory slope after the warm-up"] == pytest.approx(100.0)
    assert found["p95 last minute / first minute"] == pytest.approx(
        found["voice-to-voice p95, last minute"] / found["voice-to-voice p95, first minute"])


def test_the_rows_say_what_the_demo_gave_back_between_calls():
    found = rows(trims="3, median 20.0 ms, longest 30.0 ms",
                 idle=812.5, collections="4, mean 120.0 ms")
    idle = next(k for k in found if k.startswith("resident memory") and "after the last" in k)
    assert found[idle] == 812.5
    assert found["malloc_trim runs in the demo process (ui/allocator.py)"].startswith("3, ")
    assert found["garbage collections after calls (audio/browser.py)"] == "4, mean 120.0 ms"
    assert rows()[idle] == "n/a"  # a soak that failed before the demo went idle


# -- each speech model alone (audio/bench_memory.py) ------------------------------------------

def test_a_models_memory_is_measured_in_a_process_of_its_own_per_thread_pattern():
    from audio import bench_memory

    found = bench_memory._measure("silero", bench_memory.PATTERNS[1], 8)
    assert isinstance(found, dict), found
    assert found["start"] > 0 and found["end"] > 0
    assert abs(found["per_1000"]) < 1000  # a few MiB either way over 6 calls


def test_a_model_that_cannot_run_is_a_row_that_says_why(monkeypatch):
    from audio import bench_memory

    monkeypatch.setattr(bench_memory, "MODELS", ("no-such-model",))
    rows = bench_memory.model_memory_rows(quick=True)
    assert len(rows) == len(bench_memory.PATTERNS)
    assert all("not measured" in r.figure and "unknown model" in str(r.value) for r in rows)


def test_a_models_speed_is_measured_under_a_fixed_mmap_threshold_in_a_fresh_process():
    from audio import bench_memory

    found = bench_memory._in_child("speed", "smart-turn", 128 << 10, 3)
    assert isinstance(found, dict), found
    assert found["median_ms"] > 0
    failed = bench_memory._in_child("speed", "no-such-model", 0, 3)
    assert isinstance(failed, str) and "unknown model" in failed
