"""The ``nlu`` benchmark group: how often understanding is right, and what a turn costs.

Registers with :mod:`agent.bench` on import. Accuracy is scored on the labelled corpus
(docs/understanding.md): frame accuracy (intent, every slot and role exact) on the
development turns, per intent, and on the held-out file apart. Cost is ``propose()`` per turn
over the same turns with every memo cache cleared first (first sight of the words, the honest
case for live speech), plus constructing a proposer (dateparser's warm-up).
"""

from __future__ import annotations

import time
from datetime import datetime

from agent.bench import BenchRow, median, percentile, register
from ui.nlu_eval import DEFAULT_CLOCK, corpus_files, default_corpus_dir, evaluate, load_corpus

HELDOUT = "heldout.yaml"
COMMAND = "amend bench --only nlu"


def _clear_caches() -> None:
    from agent.understanding.nlu import dates, normalise

    normalise.normalise.cache_clear()
    dates.read_dates.cache_clear()
    dates._parse.cache_clear()


class _Cold:
    """A proposer whose every turn starts with cold caches (the timing is what evaluate takes)."""

    def __init__(self, proposer) -> None:
        self.proposer = proposer

    def propose(self, utterance, context):
        _clear_caches()
        return self.proposer.propose(utterance, context)


@register("nlu")
def nlu_figures(quick: bool) -> list[BenchRow]:
    from agent.understanding.nlu.proposer import RuleProposer

    start = time.perf_counter_ns()
    proposer = RuleProposer(warm_at=datetime.fromisoformat(DEFAULT_CLOCK))
    construct_ms = (time.perf_counter_ns() - start) / 1e6
    files = corpus_files(default_corpus_dir())
    development = load_corpus([f for f in files if f.name != HELDOUT])
    heldout = load_corpus([f for f in files if f.name == HELDOUT])
    dev = evaluate(_Cold(proposer), development)
    held = evaluate(_Cold(proposer), heldout)
    ms = [s * 1000 for s in dev.seconds + held.seconds]
    rows = [
        BenchRow(f"nlu frame accuracy, corpus ({dev.turns} turns)", round(dev.frame_accuracy, 3),
                 "fraction", "≥ 0.95", COMMAND),
        BenchRow(f"nlu frame accuracy, held-out ({held.turns} turns)",
                 round(held.frame_accuracy, 3), "fraction", "≥ 0.90", COMMAND),
        BenchRow("nlu intent accuracy, corpus", round(dev.intents_right / dev.turns, 3),
                 "fraction", "", COMMAND),
        BenchRow("nlu correction-kind accuracy, corpus", round(dev.kinds_right / dev.turns, 3),
                 "fraction", "", COMMAND),
    ]
    if not quick:
        for intent in sorted(dev.per_intent):
            rows.append(BenchRow(
                f"nlu frame accuracy, corpus, intent {intent} ({dev.per_intent[intent]} turns)",
                round(dev.per_intent_right[intent] / dev.per_intent[intent], 3), "fraction", "",
                COMMAND))
    rows += [
        BenchRow("nlu RuleProposer construction (dateparser warm-up)", round(construct_ms, 1),
                 "ms", "≤ 500 ms, once per process", COMMAND),
        BenchRow(f"nlu propose() per turn p50 ({len(ms)} corpus turns, caches cold)",
                 round(median(ms), 2), "ms", "", COMMAND),
        BenchRow("nlu propose() per turn p99", round(percentile(ms, 99), 2), "ms", "≤ 5 ms",
                 COMMAND),
    ]
    return rows
