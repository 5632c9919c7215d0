"""Fair shares of the Whisper workers: how long a short turn waits behind long segments.

Every call shares the process's Whisper workers (``audio.services``). Some callers send long
segments (a monologue up to the turn cap, noise the VAD hears as a voice) one after another;
another caller says something short. Measured here with the real model, for two ways of
sharing the workers:

* ``fifo``: each recognition goes straight to a worker thread, as before
  :class:`~audio.services.FairQueue` (the model's own queue takes them in arrival order);
* ``fair``: through :func:`audio.services.whisper_queue` (weighted fair queuing on seconds of
  audio), as every call's recognitions go now.

The figure is the short turn's *wait*: its time from being handed over to its transcript,
less what the same recognition takes on idle workers. Reported with the median time of one
long recognition, the bound the fair queue is built to: at most one segment's worth.

``run(...) -> rows`` runs both; :func:`fairness_rows` is the ``amend bench`` group's entry.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agent.bench import BenchRow

CMD = "amend bench --only audio"
LONG_TEXT = ("I would like to book a service visit for pump P one hundred at the harbour road "
             "site on Thursday morning, and while I have you, the valves on the second pump "
             "have been making a noise since the last visit, so please check those as well.")
SHORT_TEXT = "Thursday morning, please."
POLICIES = ("fifo", "fair")


@dataclass(frozen=True, slots=True)
class Measured:
    policy: str
    waits: tuple[float, ...]  # seconds each short turn waited (latency less the idle time)
    long_secs: tuple[float, ...]  # each long segment, handed over to transcript (seconds)
    idle_long: float  # one long recognition on idle workers: "one segment's worth"


def _speech(text: str, seconds: float | None = None) -> np.ndarray:
    """``text`` in the bundled Piper voice, 16 kHz float32; repeated up to ``seconds``."""
    from audio import synth

    samples = synth.piper(text).samples
    if seconds is None:
        return samples
    reps = int(np.ceil(seconds * 16000 / samples.size))
    return np.tile(samples, reps)[: int(seconds * 16000)]


def _hand_over(policy: str) -> Callable[[object, np.ndarray], Awaitable[object]]:
    from audio import services

    if policy == "fifo":
        async def straight(_caller: object, audio: np.ndarray) -> object:
            return await asyncio.to_thread(services.recognise, audio)
        return straight
    if policy == "fair":
        async def queued(caller: object, audio: np.ndarray) -> object:
            return await services.whisper_queue().run(caller, audio.size / 16000,
                                                      services.recognise, audio)
        return queued
    raise ValueError(f"policy {policy!r}: choose one of {', '.join(POLICIES)}")


async def _measure(policy: str, long_audio: np.ndarray, short_audio: np.ndarray, *,
                   long_callers: int, short_turns: int, gap_secs: float,
                   idle_short: float, idle_long: float) -> Measured:
    recognise = _hand_over(policy)
    stop = asyncio.Event()
    long_secs: list[float] = []

    async def talker(caller: object) -> None:
        while not stop.is_set():
            start = time.perf_counter()
            await recognise(caller, long_audio)
            long_secs.append(time.perf_counter() - start)

    talkers = [asyncio.create_task(talker(object())) for _ in range(long_callers)]
    short_caller = object()
    waits = []
    try:
        await asyncio.sleep(gap_secs)  # the long callers have the workers busy
        for _ in range(short_turns):
            start = time.perf_counter()
            await recognise(short_caller, short_audio)
            waits.append(max(0.0, time.perf_counter() - start - idle_short))
            await asyncio.sleep(gap_secs)  # lands at another point of the long ones' work
    finally:
        stop.set()
        await asyncio.gather(*talkers)
    return Measured(policy, tuple(waits), tuple(long_secs), idle_long)


def measure(*, long_callers: int = 3, short_turns: int = 8, long_secs: float = 20.0,
            gap_secs: float = 0.7, policies: Sequence[str] = POLICIES) -> list[Measured]:
    """Both ways of sharing the workers, one after the other, on the same audio (side effect:
    loads the models; runs for about ``short_turns`` x (long recognition + gap) per policy).
    With more long callers than workers, the model's queue always holds a long segment."""
    from audio import services

    services.warm()
    long_audio = _speech(LONG_TEXT, long_secs)
    short_audio = _speech(SHORT_TEXT)
    def alone(audio: np.ndarray, times: int) -> float:
        took = []
        for _ in range(times):
            start = time.perf_counter()
            services.recognise(audio)
            took.append(time.perf_counter() - start)
        return statistics.median(took)

    idle_short, idle_long = alone(short_audio, 3), alone(long_audio, 2)
    return [asyncio.run(_measure(policy, long_audio, short_audio, long_callers=long_callers,
                                 short_turns=short_turns, gap_secs=gap_secs,
                                 idle_short=idle_short, idle_long=idle_long))
            for policy in policies]


def rows_of(measured: Sequence[Measured], *, long_callers: int,
            cmd: str = CMD) -> list[BenchRow]:
    """The figures (pure)."""
    rows = []
    if measured:
        rows.append(BenchRow("Whisper sharing: one long segment's recognition on idle workers",
                             round(measured[0].idle_long * 1000), "ms",
                             "report (one segment's worth)", cmd))
    for m in measured:
        label = "FIFO, as before" if m.policy == "fifo" else "fair queue"
        rows.append(BenchRow(
            f"Whisper sharing, {label}: short turn's wait behind {long_callers} callers' long "
            f"segments, median ({len(m.waits)} turns)",
            round(statistics.median(m.waits) * 1000) if m.waits else "n/a", "ms",
            f"≤ {round(m.idle_long * 1000)} ms (one segment)" if m.policy == "fair"
            else "report", cmd))
        if m.long_secs:
            rows.append(BenchRow(f"Whisper sharing, {label}: a long segment, handed over to "
                                 "transcript, median", round(statistics.median(m.long_secs)
                                                             * 1000), "ms", "report", cmd))
    return rows


def run(*, long_callers: int = 3, short_turns: int = 8, long_secs: float = 20.0,
        gap_secs: float = 0.7, cmd: str = CMD) -> list[BenchRow]:
    """Measure both ways and return the rows (what ``amend bench`` prints)."""
    measured = measure(long_callers=long_callers, short_turns=short_turns,
                       long_secs=long_secs, gap_secs=gap_secs)
    return rows_of(measured, long_callers=long_callers, cmd=cmd)


def fairness_rows(quick: bool) -> list[BenchRow]:
    """The ``amend bench --only audio`` entry: fewer short turns with ``quick``."""
    return run(short_turns=4 if quick else 8,
               cmd=CMD + " --quick" if quick else CMD)
