"""Benchmarks of the core's own costs: a ledger revision and one gate admission (``core``).

They time ``agent/`` from outside it: of the benchmark code only the shared row type and
registry (``agent/bench.py``) live in the core.
"""

from __future__ import annotations

import time

from agent.bench import BenchRow, median, percentile, register
from agent.core.gate import AdmissionGate, Stamp
from agent.core.ledger import Ledger


def _timed_ns(fn, repeats: int) -> list[float]:
    samples: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - start)
    return samples


@register("core")
def core_costs(quick: bool):
    repeats = 2_000 if quick else 20_000
    ledger = Ledger()
    ledger.update(0, {f"f{i}": "v" for i in range(12)})
    counter = iter(range(10**9))
    revise = _timed_ns(lambda: ledger.set("f1", f"v{next(counter)}", "bench"), repeats)
    gate = AdmissionGate(ledger)
    stamp = Stamp.of(ledger.current, ["f1", "f2", "f3"])
    admit = _timed_ns(lambda: gate.admit(stamp), repeats)
    cmd = "amend bench --only core"
    return [
        BenchRow("ledger revision (set one field, 12 fields) p50", median(revise) / 1000, "µs",
                 "≤ 20 µs", cmd),
        BenchRow("ledger revision p99", percentile(revise, 99) / 1000, "µs", "≤ 50 µs", cmd),
        BenchRow("gate admission (3-field stamp) p50", median(admit) / 1000, "µs", "≤ 5 µs",
                 cmd),
        BenchRow("gate admission p99", percentile(admit, 99) / 1000, "µs", "≤ 20 µs", cmd),
    ]
