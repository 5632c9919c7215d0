"""Each speech model's memory alone: ``amend bench --only model-memory`` (issue 19).

A soaked demo grows by about 130 MiB an hour while its Python heap stays flat (README), so the
growth is native memory. This splits it by library: each model the demo shares between calls
(:func:`audio.services.silero_session`, :func:`audio.turns.smart_turn_session`,
:func:`audio.services.piper_voice`, :func:`audio.services.recognise`) is run alone in a
fresh process, with two malloc arenas as in the demo, as a stream of "calls" of three runs
each, either all from one thread or each call from a thread of its own (what the demo does
for Smart Turn: pipecat gives each call's analyzer its own executor thread). The process's
resident memory is read as it goes; the figure is its growth per 1000 calls after the first
quarter of them (the warm-up: buffers growing to the largest input so far).

Figures are reported, never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable

from agent.bench import BenchRow, register

CMD = "amend bench --only model-memory"
MODELS = ("silero", "smart-turn", "piper", "whisper")
PATTERNS = ("one thread", "a thread per call")
RUNS_PER_CALL = 3
CALLS, QUICK_CALLS = 400, 60
# glibc's mmap threshold against each model's speed (`amend bench --only mmap-threshold`;
# ui.demo_build.tune_malloc, AMEND_MMAP_THRESHOLD): 0 is glibc's own, which rises.
THRESHOLD_CMD = "amend bench --only mmap-threshold"
THRESHOLDS = (0, 128 << 10, 1 << 20, 4 << 20)
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8  # mallopt's parameter (ui.demo_build.tune_malloc: two, as the demo)


def _resident_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _work(model: str) -> Callable[[], None]:
    """One run of ``model`` on inputs like a call's (side effect: loads it)."""
    import random

    import numpy as np

    from audio import services
    from audio.turns import smart_turn_session

    rng = np.random.default_rng(7)
    pick = random.Random(7)
    if model == "silero":
        session = services.silero_session()

        def silero() -> None:
            state = np.zeros((2, 1, 128), np.float32)
            for _ in range(20):  # 20 windows of 32 ms, each with its context
                window = (rng.standard_normal((1, 576)) * 0.1).astype(np.float32)
                _, state = session.run(None, {"input": window, "state": state,
                                              "sr": np.array(16000, dtype=np.int64)})
        return silero
    if model == "smart-turn":
        turn = smart_turn_session()
        name = turn.get_inputs()[0].name
        features = rng.standard_normal((1, 80, 800)).astype(np.float32)

        def smart() -> None:
            turn.run(None, {name: features})
        return smart
    if model == "piper":
        voice = services.piper_voice()
        words = ("the pump seal on Thursday morning is booked for you and it will be moved "
                 "to next week").split()

        def piper() -> None:
            for _ in voice.synthesize(" ".join(pick.choices(words, k=pick.randint(3, 14)))
                                      + "."):
                pass
        return piper
    if model == "whisper":
        clips = [(rng.standard_normal(int(16000 * pick.uniform(1.5, 6.0))) * 0.01)
                 .astype(np.float32) for _ in range(20)]

        def whisper() -> None:
            services.recognise(pick.choice(clips))
        return whisper
    raise ValueError(f"unknown model {model!r}: one of {', '.join(MODELS)}")


def growth(model: str, pattern: str, calls: int) -> dict[str, float]:
    """Run ``calls`` calls of ``model`` in this process; its resident memory at the start
    (after one warm run), at the end, and its growth per 1000 calls after the first quarter."""
    import ctypes

    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_ARENA_MAX, 2)
    work = _work(model)
    work()
    start = _resident_mib()
    quarter = None

    def call() -> None:
        for _ in range(RUNS_PER_CALL):
            work()

    for i in range(calls):
        if i == calls // 4:
            quarter = _resident_mib()
        if pattern == PATTERNS[1]:
            thread = threading.Thread(target=call)
            thread.start()
            thread.join()
        else:
            call()
    end = _resident_mib()
    later = calls - calls // 4
    per_1000 = (end - (quarter if quarter is not None else start)) / max(1, later) * 1000
    return {"start": start, "end": end, "per_1000": per_1000}


def speed(model: str, threshold: int, runs: int) -> dict[str, float]:
    """The median of ``runs`` timed runs of ``model`` in this process (ms), after three warm
    ones, with two arenas and glibc's mmap threshold fixed at ``threshold`` (0: its own)."""
    import ctypes
    import statistics
    import time

    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_ARENA_MAX, 2)
        if threshold:
            mallopt(_M_MMAP_THRESHOLD, threshold)
    work = _work(model)
    for _ in range(3):
        work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(times)}


_CHILD = ("import json, sys; from audio import bench_memory as m; "
          "print(json.dumps(getattr(m, sys.argv[1])(*json.loads(sys.argv[2]))))")


def _child(function: str, *args: object) -> subprocess.Popen[str]:
    """``function`` of this module with ``args``, started in a fresh process (so one setting
    or model is not another's)."""
    return subprocess.Popen([sys.executable, "-c", _CHILD, function, json.dumps(args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})


def _result(child: subprocess.Popen[str]) -> dict[str, float] | str:
    """A child's JSON result, or a line saying why it could not run."""
    out, err = child.communicate(timeout=1800)
    if child.returncode != 0:
        return (err.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.strip().splitlines()[-1])


def _in_child(function: str, *args: object) -> dict[str, float] | str:
    return _result(_child(function, *args))


@register("mmap-threshold")
def mmap_threshold_rows(quick: bool) -> list[BenchRow]:
    """Whisper and Piper run by run under each threshold, one process per threshold, all at
    once so that they share whatever load the machine has (the ratios are what to read): what
    AMEND_MMAP_THRESHOLD costs in speed (README, issue 19: what it saves in memory)."""
    runs = 5 if quick else 15
    rows = []
    for model in ("whisper", "piper"):
        children = [_child("speed", model, threshold, runs) for threshold in THRESHOLDS]
        found = [_result(child) for child in children]
        base = found[0]["median_ms"] if isinstance(found[0], dict) else None
        for threshold, result in zip(THRESHOLDS, found, strict=True):
            setting = f"{threshold >> 10} KiB" if threshold else "glibc's own"
            label = f"{model}, one run, median of {runs}, mmap threshold {setting}"
            if isinstance(result, str):
                rows.append(BenchRow(f"{label}: not measured", result, "", "", THRESHOLD_CMD))
                continue
            ms = result["median_ms"]
            ratio = f"{ms / base:.2f}x glibc's own" if base else "report"
            rows.append(BenchRow(f"{label} (4 processes at once)", round(ms, 1), "ms", ratio,
                                 THRESHOLD_CMD))
    return rows


def _measure(model: str, pattern: str, calls: int) -> dict[str, float] | str:
    """:func:`growth` in a fresh process (so one model's memory is not another's)."""
    return _in_child("growth", model, pattern, calls)


@register("model-memory")
def model_memory_rows(quick: bool) -> list[BenchRow]:
    calls = QUICK_CALLS if quick else CALLS
    rows = []
    for model in MODELS:
        for pattern in PATTERNS:
            found = _measure(model, pattern, calls)
            label = f"{model}, {pattern}, {calls} calls of {RUNS_PER_CALL} runs"
            if isinstance(found, str):
                rows.append(BenchRow(f"{label}: not measured", found, "", "", CMD))
                continue
            rows.append(BenchRow(
                f"{label}: resident memory {found['start']:.0f} -> {found['end']:.0f} MiB; "
                "growth per 1000 calls after the first quarter", round(found["per_1000"], 1),
                "MiB", "report (the demo soaked: about 100 MiB per 1000 calls)", CMD))
    return rows
