"""``amend bench --only retrieval``: scoped search latency at scale and the gate's cost.

The corpus is synthetic: revisions of five passages each, drawn from a Zipf-like vocabulary
in which the query words ("pump", "seal", "torque", "bolts") occur in a large share of all
passages, so FTS5 candidate matching meets long posting lists (the hard case for scoping).
Each query's scope allows two revisions (a winner and its edition), as the resolver issues.
Figures are reported, never asserted. The corpus is in memory (SQLite), or with ``amend bench
--db postgresql://...`` in a scratch schema of that database, dropped afterwards; row names say
which.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent.bench import BenchRow, median, option, percentile, register
from agent.core.gate import AdmissionGate, Stamp
from agent.core.ledger import Ledger
from agent.core.trace import Trace
from retrieval.corpus import Corpus
from retrieval.evidence import bundle_of
from retrieval.passages import Section, SourceRevision
from retrieval.query import build_query
from retrieval.retriever import ScopedRetriever
from retrieval.samples import token
from retrieval.terms import terms

DOMAIN = ("pump", "seal", "torque", "bolts", "gasket", "housing", "impeller", "bearing",
          "shaft", "valve", "filter", "pressure", "flow", "check", "replace", "tighten")
QUERIES = ("what torque for the pump seal bolts", "how tight is the seal",
           "when do I replace the impeller bearing", "check the housing pressure")
PER_REVISION = 5


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    letters = "abcdefghiklmnoprstuvw"
    return [("".join(rng.choice(letters) for _ in range(rng.randint(4, 9)))) for _ in
            range(size)]


def build_corpus(passages: int, seed: int = 7, target: str | Path | None = None
                 ) -> tuple[Corpus, float]:
    """A corpus of about ``passages`` passages at ``target`` (None: in memory); returns it and
    the build seconds."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    weights = [1 / (i + 1) for i in range(len(vocab))]
    sources = []
    for r in range(max(1, passages // PER_REVISION)):
        sections = []
        for s in range(PER_REVISION):
            words = rng.choices(vocab, weights, k=rng.randint(18, 40))
            words += rng.sample(DOMAIN, k=rng.randint(1, 5))
            rng.shuffle(words)
            sections.append(Section(f"s{s}", " ".join(words) + "."))
        sources.append(SourceRevision(f"rev-{r:06d}", f"d{r}", "en", "*", (), tuple(sections)))
    corpus = Corpus(target)
    start = time.perf_counter()
    corpus.sync(sources, 1)
    return corpus, time.perf_counter() - start


def scoped_search_ms(corpus: Corpus, revisions: int, repeats: int, seed: int = 11
                     ) -> list[float]:
    rng = random.Random(seed)
    samples = []
    for i in range(repeats):
        allowed = tuple(f"rev-{rng.randrange(revisions):06d}" for _ in range(2))
        query = terms(QUERIES[i % len(QUERIES)])
        start = time.perf_counter_ns()
        corpus.search(token(*allowed), query, limit=3)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def gate_cost_us(repeats: int) -> tuple[list[float], list[float]]:
    """Per result: the admission check alone, and admission plus building the cited bundle."""
    ledger = Ledger("q-bench")
    ledger.update(0, {"family": "returns", "item_category": "filter-kit", "opened": "yes"})
    gate = AdmissionGate(ledger)
    corpus, _ = build_corpus(50)
    tok = token("rev-000001", "rev-000002")
    hits = corpus.search(tok, terms(QUERIES[0]), limit=3).hits
    stamp = Stamp.of(ledger.current, ("family", "item_category", "opened"),
                     scope=tok.cache_key, request="b")
    admit, with_bundle = [], []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        gate.admit(stamp)
        admit.append((time.perf_counter_ns() - start) / 1000)
        start = time.perf_counter_ns()
        gate.admit(stamp)
        bundle_of(stamp, tok, hits)
        with_bundle.append((time.perf_counter_ns() - start) / 1000)
    return admit, with_bundle


def retrieve_ms(corpus: Corpus, revisions: int, repeats: int) -> list[float]:
    """End to end through the async retriever: trace, to_thread search, gate, bundle."""
    ledger = Ledger("q-bench")
    ledger.update(0, {"family": "pump-seal", "procedure": "seal-torque"})
    retriever = ScopedRetriever(corpus, AdmissionGate(ledger), Trace())
    rng = random.Random(5)

    async def run() -> list[float]:
        samples = []
        for i in range(repeats):
            tok = token(f"rev-{rng.randrange(revisions):06d}")
            stamp = Stamp.of(ledger.current, ("family",), scope=tok.cache_key, request=f"b{i}")
            request = build_query(ledger.current, QUERIES[i % len(QUERIES)]).request(stamp, tok)
            start = time.perf_counter_ns()
            await retriever.retrieve(request)
            samples.append((time.perf_counter_ns() - start) / 1e6)
        return samples

    return asyncio.run(run())


@contextmanager
def _target(size: int) -> Iterator[str | None]:
    """Where one benchmark corpus lives: memory, or a scratch schema of the ``--db`` URL."""
    from retrieval.backend import scratch_schema

    url = option("db")
    if url is None:
        yield None
        return
    with scratch_schema(url, f"amend_bench_{os.getpid()}_corpus{size}") as target:
        yield target


@register("retrieval")
def retrieval_figures(quick: bool):
    backend = "SQLite" if option("db") is None else "PostgreSQL"
    cmd = ("amend bench --only retrieval" + (" --quick" if quick else "")
           + ("" if option("db") is None else " --db postgresql://..."))
    sizes = (10_000,) if quick else (10_000, 100_000)
    repeats = 100 if quick else 300
    rows = []
    for size in sizes:
        with _target(size) as target:
            corpus, build_s = build_corpus(size, target=target)
            revisions = size // PER_REVISION
            samples = scoped_search_ms(corpus, revisions, repeats)
            label = f"{size // 1000}k passages, {backend}"
            rows += [
                BenchRow(f"scoped search p50 ({label})", median(samples), "ms", "", cmd),
                BenchRow(f"scoped search p95 ({label})", percentile(samples, 95), "ms",
                         "≤ 20 ms at 100k", cmd),
                BenchRow(f"corpus sync, build ({label})", build_s, "s", "", cmd),
            ]
            if size == sizes[-1]:
                end_to_end = retrieve_ms(corpus, revisions, repeats // 2)
                rows.append(BenchRow(f"retrieve() end to end p50 ({label})",
                                     median(end_to_end), "ms", "", cmd))
            corpus.close()
    admit, with_bundle = gate_cost_us(2_000 if quick else 10_000)
    rows += [
        BenchRow("gate per result: admit p50", median(admit), "µs", "≤ 5 µs", cmd),
        BenchRow("gate per result: admit + cited bundle (3 passages) p50", median(with_bundle),
                 "µs", "", cmd),
        BenchRow("gate per result: admit + bundle p99", percentile(with_bundle, 99), "µs", "",
                 cmd),
    ]
    return rows
