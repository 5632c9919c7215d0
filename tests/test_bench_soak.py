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


def test_a_demo_that_settles_late_is_level_in_the_second_half():
    settling = [(float(t), 800.0 + min(t, 600) / 6.0) for t in range(60, 3601, 2)]  # +100, flat
    assert bench_soak.slope_per_hour(settling) > 5
    half = [s for s in settling if s[0] >= 1830]
    assert bench_soak.slope_per_hour(half) == pytest.approx(0.0)
    assert bench_soak.means_by_part(settling)[1:] == [900.0] * 4
    assert bench_soak.means_by_part([]) == []


def rows(*, parts: bool = False, **extra) -> dict[str, object]:
    tally = bench_soak.Tally(start=0.0)
    tally.calls = 12
    if parts:  # the workers level, Whisper's host growing
        tally.parts = {"front": [(float(t), 100.0) for t in range(0, 301, 2)],
                       "workers": [(float(t), 700.0) for t in range(0, 301, 2)],
                       "whisper": [(float(t), 200.0 + t / 10) for t in range(0, 301, 2)]}
    tally.v2v = [(10.0, 400.0), (20.0, 800.0), (290.0, 500.0), (295.0, 700.0)]
    samples = [(float(t), 1000.0 + (t - 60) / 36.0 if t >= 60 else 900.0 + t)
               for t in range(0, 301, 2)]
    return {r.figure: r.value for r in bench_soak._rows(4, 5.0, samples, tally, **extra)}


def test_the_rows_measure_after_the_warm_up_and_compare_the_first_and_last_minute():
    found = rows(allocator="the C library's malloc")
    assert found["calls completed (4 browsers, 5 min, the C library's malloc)"] == 12
    assert found["memory slope after the warm-up"] == pytest.approx(100.0)
    half = found["memory slope over the second half of the run after the warm-up"]
    assert half == pytest.approx(100.0)  # the same line all along
    fifths = [float(m) for m in found["resident memory after the warm-up, mean of each fifth "
                                      "of the run"].split(", ")]
    assert len(fifths) == 5 and fifths == sorted(fifths) and fifths[-1] - fifths[0] > 5
    assert found["p95 last minute / first minute"] == pytest.approx(
        found["voice-to-voice p95, last minute"] / found["voice-to-voice p95, first minute"])


def test_the_rows_say_which_process_holds_the_memory():
    found = rows(parts=True)
    fifths = "after the warm-up, mean of each fifth of the run"
    assert found[f"its worker processes (the calls) {fifths}"] == "700, 700, 700, 700, 700"
    assert found[f"the demo's front process (the proxy) {fifths}"] == "100, 100, 100, 100, 100"
    started = [float(m) for m in found[f"Whisper's host process (audio/whisper_host.py) "
                                       f"{fifths}"].split(", ")]
    assert started == sorted(started) and started[0] > 206  # after the warm-up only
    assert not any("process" in k and "fifth" in k for k in rows())  # not sampled: no row


def test_a_demo_is_sampled_by_its_parts():
    class Demo:
        def rss_parts(self) -> dict[str, float]:
            return {"front": 100.0, "workers": 600.0, "whisper": 250.0}

    tally = bench_soak.Tally(start=0.0)
    assert tally.sample(Demo()) == 950.0
    assert {p: [m for _, m in v] for p, v in tally.parts.items()} == {
        "front": [100.0], "workers": [600.0], "whisper": [250.0]}


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


def test_what_the_demo_keeps_is_read_with_no_call_in_flight():
    rows = {r.figure: r.value for r in bench_soak.idle_rows([(60.0, 900.0), (1860.0, 905.0)])}
    kept = next(k for k in rows if k.startswith("resident memory with no call in flight"))
    assert rows[kept] == "900 → 905"
    assert rows["... its change per hour (what the demo keeps, without the calls in flight)"] \
        == pytest.approx(10.0)
    assert bench_soak.idle_rows([(60.0, 900.0)]) == []  # a short run has no lull


def test_a_lull_waits_for_the_calls_in_flight_and_holds_new_ones(monkeypatch):
    import asyncio

    monkeypatch.setattr(bench_soak, "TRIM_EVERY_S", 0.0)
    monkeypatch.setattr(bench_soak, "IDLE_MARGIN_S", 0.0)
    log: list[str] = []

    async def scenario() -> None:
        lull = bench_soak.Lull()
        in_call, finish = asyncio.Event(), asyncio.Event()

        async def browser(name: str, entered: asyncio.Event | None = None) -> None:
            async with lull.call():
                log.append(f"{name} calls")
                if entered is not None:
                    entered.set()
                    await finish.wait()
                log.append(f"{name} done")

        first = asyncio.ensure_future(browser("first", in_call))
        await in_call.wait()
        def measure() -> float:
            log.append("read")
            return 812.0

        reading = asyncio.ensure_future(lull.read(measure))
        await asyncio.sleep(0)  # one turn of the loop (no timing): the lull is on
        assert lull.on
        second = asyncio.ensure_future(browser("second"))
        await asyncio.sleep(0)  # the new call's first step: it waits for the lull to end
        assert "second calls" not in log and not reading.done()
        finish.set()
        assert await reading == 812.0
        await asyncio.gather(first, second)
        assert not lull.on

    asyncio.run(scenario())
    assert log == ["first calls", "first done", "read", "second calls", "second done"]
