"""Benchmark figures of the dialogue controller, end to end in text mode (no speech models).

One world (demo registry, sandbox on 127.0.0.1), a fresh session per repetition, the real
RuleProposer. Measured per repetition:

* turn latency: a final user turn in -> the response planned (understand, validate, accept,
  invalidate, decide); the booking port's reads on loopback are included;
* correction -> stale action cancelled: a correction turn in -> the superseded draft is
  ``cancelled`` (the no-stale-dispatch guarantee's own cost);
* confirmation -> verified booking spoken: "yes" in -> ``confirmation_spoken`` from the record
  (a real HTTP create on loopback and the read-back).

Registered as ``controller``; run with ``amend bench --only controller`` once this module is in
``ui.cli.BENCH_MODULES``, or ``python -m ui.bench_controller``.
"""

from __future__ import annotations

import asyncio
import time

from agent.bench import BenchRow, median, percentile, register

COMMAND = "amend bench --only controller"


class _NullSink:
    def speak(self, plan) -> None:
        pass

    def invalidate(self, generation: int, reason: str) -> None:
        pass


async def _measure(repeats: int) -> dict[str, list[float]]:
    from agent.core.trace import Trace
    from ui.bootstrap import fixed_clock, open_world

    samples: dict[str, list[float]] = {"turn": [], "correction": [], "confirmed": []}
    clock = fixed_clock("2026-12-01T09:00:00+01:00")
    async with open_world(clock=clock) as world:
        # Every repetition books the same slot: lift its capacity so none is refused.
        world.sandbox.admin.set_capacity("2026-12-03", "morning", 10_000)
        for _ in range(repeats):
            trace = Trace()
            controller = world.controller(_NullSink(), trace)
            await controller.start()
            start = time.perf_counter()
            await controller.user_turn(_utterance("Book a visit for P-100 on Wednesday afternoon."))
            samples["turn"].append(time.perf_counter() - start)
            start = time.perf_counter()
            await controller.user_turn(_utterance("Sorry, Thursday morning, not Wednesday."))
            samples["correction"].append(time.perf_counter() - start)
            samples["turn"].append(samples["correction"][-1])
            spoken = asyncio.Event()
            trace.listeners.append(_on(spoken, "confirmation_spoken"))
            start = time.perf_counter()
            await controller.user_turn(_utterance("yes"))
            await asyncio.wait_for(spoken.wait(), 10)
            samples["confirmed"].append(time.perf_counter() - start)
            await controller.wait_idle()
            await controller.close()
    return samples


def _on(event: asyncio.Event, name: str):
    return lambda e: event.set() if e.name == name else None


def _utterance(text: str):
    from agent.core.speech import Utterance

    return Utterance(text)


@register("controller")
def controller_costs(quick: bool):
    samples = asyncio.run(_measure(5 if quick else 30))
    ms = {k: [v * 1000 for v in vs] for k, vs in samples.items()}
    return [
        BenchRow("text turn -> response planned p50", median(ms["turn"]), "ms", "≤ 30 ms",
                 COMMAND),
        BenchRow("text turn -> response planned p95", percentile(ms["turn"], 95), "ms",
                 "≤ 80 ms", COMMAND),
        BenchRow("correction turn -> stale draft cancelled p50", median(ms["correction"]), "ms",
                 "≤ 30 ms", COMMAND),
        BenchRow("yes -> verified booking confirmed p50", median(ms["confirmed"]), "ms",
                 "≤ 150 ms", COMMAND),
        BenchRow("yes -> verified booking confirmed p95", percentile(ms["confirmed"], 95), "ms",
                 "≤ 300 ms", COMMAND),
    ]


if __name__ == "__main__":
    for row in controller_costs(False):  # quick=False: registered, it takes it by position
        print(f"{row.figure}: {row.value:.3g} {row.unit} (target {row.target})")
