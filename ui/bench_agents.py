"""``amend bench --only agents``: how many calls N agent processes hold (issue 17).

For each number of agent processes P, batches of C simultaneous calls (C = 1, 2, 3, ...) run
in audio mode on P processes that share one sandbox and registry on PostgreSQL
(``amend call --agents P -j C``, :mod:`ui.agents`). Every call is the pack's script 01 (a
booking, a spoken correction, a confirmation from the record) spoken by Piper. A batch is
*held* when every call passes and the p95 of its turns' response latency (the caller's turn
handed over -> the agent's first audio) is at most 1.5 s. The figure for P is the largest C
held; the sweep for P stops at the first C not held.

``--db postgresql://...`` names the database; without it a throwaway cluster is started on
127.0.0.1 (``tools_sandbox.pg_local``), and without PostgreSQL the rows say so. Each batch
costs about as long as one call (a minute): the full sweep takes a while.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from agent.bench import BenchRow, option, percentile, register

COMMAND = "amend bench --only agents --db postgresql://..."
TARGET_MS = 1500.0
SCRIPT = "01-change-date-before-any-tool-call.yaml"


@contextlib.contextmanager
def _database() -> Iterator[str | None]:
    db = option("db")
    if db is not None:
        yield db
        return
    from tools_sandbox.pg_local import ClusterUnavailable, LocalCluster

    try:
        cluster = LocalCluster.start()
    except ClusterUnavailable:
        yield None
        return
    try:
        yield cluster.new_database("agents")
    finally:
        cluster.stop()


def _batch(db: str, processes: int, calls: int) -> tuple[bool, float]:
    """Run ``calls`` copies of the script at once on ``processes`` agents: (all passed, p95)."""
    import audio.calls
    from audio.calls.evidence import Verdict
    from ui.agents import run_on_agents
    from ui.call_cli import agent_main
    from ui.llm_proposer import ProposerSettings

    script = Path(audio.calls.__file__).parent / "examples" / SCRIPT
    with tempfile.TemporaryDirectory(prefix="amend-agents-") as tmp:
        paths = []
        for n in range(calls):  # one file per call: the report names each
            copy = Path(tmp) / f"{n:02d}-{SCRIPT}"
            copy.write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
            paths.append(str(copy))
        results, _, _ = run_on_agents(paths, "audio", agents=processes, concurrency=calls,
                                      db=db, artifacts=None, settings=ProposerSettings(),
                                      verify_heard=False, on_done=lambda: None,
                                      agent_main=agent_main)
    samples = [ms for r in results for ms in (r.latency_ms or {}).get("voice_to_voice", [])]
    passed = len(results) == calls and all(r.verdict is Verdict.PASS for r in results)
    return passed, percentile(samples, 95) if samples else float("inf")


@register("agents")
def agents_bench(quick: bool) -> list[BenchRow]:
    processes = (1, 2) if quick else (1, 2, 4)
    loads = (1, 2, 4) if quick else (1, 2, 3, 4, 6, 8)
    rows: list[BenchRow] = []
    with _database() as db:
        if db is None:
            return [BenchRow("calls held at p95 ≤ 1.5 s", "n/a: no PostgreSQL server here",
                             "calls", "", COMMAND)]
        for count in processes:
            held = 0
            for calls in loads:
                passed, p95 = _batch(db, count, calls)
                rows.append(BenchRow(f"response p95, {calls} calls on {count} agent "
                                     f"process{'es' if count > 1 else ''}", p95, "ms",
                                     f"≤ {TARGET_MS:.0f} ms", COMMAND))
                if not passed or p95 > TARGET_MS:
                    break
                held = calls
            rows.append(BenchRow(f"calls held at p95 ≤ 1.5 s ({count} agent "
                                 f"process{'es' if count > 1 else ''})", held, "calls",
                                 "grows with processes", COMMAND))
    return rows
