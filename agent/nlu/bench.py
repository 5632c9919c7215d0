"""The ``nlu`` benchmark figure: what one turn of understanding costs.

Registers with :mod:`agent.bench` on import (the lead lists ``agent.nlu.bench`` in
``BENCH_MODULES``). Three figures: constructing a RuleProposer (dateparser's warm-up), and
``propose()`` per turn p50/p99 over a mixed set of call-script turns with every memo cache
cleared before each call (first sight of the words, the honest case for live speech).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from agent.bench import BenchRow, median, percentile, register
from agent.caller import Asset, CallerProfile
from agent.ledger import LedgerSnapshot
from agent.ports import ProcedureInfo
from agent.proposals import ProposalContext
from agent.speech import Utterance

TURNS = (
    "I'd like a service visit for pump P-100 on Wednesday afternoon.",
    "Sorry, Thursday morning, not Wednesday.",
    "Friday at 10, not Thursday at 2",
    "yes please go ahead",
    "not thursday",
    "any day this week is fine",
    "I meant the other pump",
    "what's the torque for the seal on pee two hundred in German",
    "can I return a filter kit, I did not open it",
    "book it for account GLOBEX-9",
    "next thursday at half past two",
    "the 3rd in the morning for two units at 12 Harbour Road",
)


def _context() -> ProposalContext:
    now = datetime(2026, 12, 1, 9, 0, tzinfo=timezone(timedelta(hours=1)))
    caller = CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (
        Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam"),
        Asset("P-200", "C3", "EU", "4 Dock Street, Antwerp")))
    procedures = (
        ProcedureInfo("pump-seal", "pump seal", "seal-torque", "seal torque",
                      ("pump seal torque", "seal bolt torque")),
        ProcedureInfo("returns", "returns", "filter-kit", "filter kit", ()),
    )
    return ProposalContext(now=now, ledger=LedgerSnapshot("bench", 0), caller=caller,
                           procedures=procedures)


def _clear_caches() -> None:
    from agent.nlu import dates, normalise

    normalise.normalise.cache_clear()
    dates.read_dates.cache_clear()
    dates._parse.cache_clear()


@register("nlu")
def nlu_costs(quick: bool):
    from agent.nlu import RuleProposer

    context = _context()
    start = time.perf_counter_ns()
    proposer = RuleProposer(warm_at=context.now)
    construct_ms = (time.perf_counter_ns() - start) / 1e6
    rounds = 20 if quick else 200
    samples: list[float] = []
    for _ in range(rounds):
        for text in TURNS:
            _clear_caches()
            utterance = Utterance(text)
            start = time.perf_counter_ns()
            proposer.propose(utterance, context)
            samples.append((time.perf_counter_ns() - start) / 1e6)
    cmd = "amend bench --only nlu"
    return [
        BenchRow("nlu RuleProposer construction (dateparser warm-up)", round(construct_ms, 1),
                 "ms", "≤ 500 ms, once per process", cmd),
        BenchRow(f"nlu propose() per turn p50 ({len(TURNS)} turns, caches cold)",
                 round(median(samples), 2), "ms", "< 5 ms", cmd),
        BenchRow("nlu propose() per turn p99", round(percentile(samples, 99), 2), "ms",
                 "< 15 ms", cmd),
    ]
