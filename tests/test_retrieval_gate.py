"""Seed 000's retrieval fixtures: the retriever behind the admission gate.

Races are forced with FetchHold (asyncio events), never with sleeps.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from agent.core.gate import AdmissionGate, Disposition, GateMode, Stamp
from agent.core.ledger import Ledger
from agent.core.ports import RetrievalOutcome
from agent.core.trace import Trace
from retrieval.cache import EvidenceCache
from retrieval.corpus import Corpus
from retrieval.hooks import FetchHold
from retrieval.query import build_query
from retrieval.retriever import ScopedRetriever
from retrieval.samples import OPENED_TEXT, UNOPENED_TEXT, revision, token

READS = ("family", "item_category", "opened")
RECEIPT = "Every return of a filter kit needs the original receipt."
POLICY = revision("returns-2026", family="returns", kind="policy", sections=(
    ("receipt", (), RECEIPT),
    ("opened", (("opened", "yes"),), OPENED_TEXT),
    ("unopened", (("opened", "no"),), UNOPENED_TEXT),
))
TOKEN = token("returns-2026", family="returns", procedure="filter-kit")


@dataclasses.dataclass
class Session:
    ledger: Ledger
    gate: AdmissionGate
    trace: Trace
    hold: FetchHold
    retriever: ScopedRetriever
    corpus: Corpus

    def ask(self, request: str, question: str = "can I return the filter kit?", tok=TOKEN):
        snapshot = self.ledger.issue()
        query = build_query(snapshot, question)
        stamp = Stamp.of(snapshot, READS, scope=tok.cache_key, request=request)
        return query.request(stamp, tok, limit=5)

    def events(self, request: str) -> list[tuple[str, str | None]]:
        return [(e.name, e.disposition) for e in self.trace.events if e.request == request]


def session(opened: str = "no", *, mode=GateMode.ENFORCE, cache=None, timeout=5.0,
            current_scope=None) -> Session:
    ledger = Ledger("q-returns")
    ledger.update(0, {"family": "returns", "item_category": "filter-kit", "opened": opened})
    corpus = Corpus()
    corpus.sync([POLICY], 1)
    gate, trace, hold = AdmissionGate(ledger, mode), Trace(), FetchHold()
    retriever = ScopedRetriever(corpus, gate, trace, cache=cache, timeout=timeout,
                                fetch_hook=hold, current_scope=current_scope)
    return Session(ledger, gate, trace, hold, retriever, corpus)


def texts(result) -> list[str]:
    return [p.text for p in result.bundle.passages] if result.bundle else []


@pytest.mark.anyio
async def test_late_result_after_correction_is_stale_and_current_bundle_unchanged():
    s = session(opened="no")
    s.hold.hold("old")
    old = asyncio.create_task(s.retriever.retrieve(s.ask("old")))
    await s.hold.started("old")
    s.ledger.set("opened", "yes", "utterance:2")  # "actually, I opened it"
    current = await s.retriever.retrieve(s.ask("new"))
    kept = current.bundle
    assert current.outcome is RetrievalOutcome.EVIDENCE
    assert OPENED_TEXT in texts(current) and UNOPENED_TEXT not in texts(current)
    s.hold.release("old")
    late = await old
    assert (late.outcome, late.bundle) == (RetrievalOutcome.STALE, None)
    assert current.bundle is kept and UNOPENED_TEXT not in texts(current)
    assert s.events("old") == [("retrieval_started", None), ("retrieval_completed", None),
                               ("retrieval_rejected", "stale")]


@pytest.mark.anyio
async def test_admitted_result_then_correction_before_use_is_stale_at_use():
    s = session(opened="no")
    result = await s.retriever.retrieve(s.ask("r1"))
    assert result.outcome is RetrievalOutcome.EVIDENCE
    s.ledger.set("opened", "yes", "utterance:3")  # arrives before the answer is spoken
    assert s.gate.admit(result.bundle) is Disposition.STALE  # the bundle carries its stamp


@pytest.mark.anyio
@pytest.mark.parametrize(("opened", "question", "expected", "excluded"), [
    ("yes", "I did not open it, can I return it?", OPENED_TEXT, UNOPENED_TEXT),
    ("no", "I opened it, can I return it?", UNOPENED_TEXT, OPENED_TEXT),
    ("yes", "unopened full refund 30 days", OPENED_TEXT, UNOPENED_TEXT),
])
async def test_negation_is_decided_by_the_field_not_by_similarity(opened, question, expected,
                                                                 excluded):
    s = session(opened=opened)
    result = await s.retriever.retrieve(s.ask("r1", question))
    assert expected in texts(result) and excluded not in texts(result)


@pytest.mark.anyio
async def test_removed_constraint_leaves_no_hidden_filter_and_old_result_is_stale():
    s = session(opened="no")
    s.hold.hold("old")
    old = asyncio.create_task(s.retriever.retrieve(s.ask("old")))
    await s.hold.started("old")
    s.ledger.clear("opened", "utterance:4")  # "opened or not, doesn't matter"
    request = s.ask("new")
    assert request.filters == () and "unopened" not in request.text
    result = await s.retriever.retrieve(request)
    assert texts(result) == [RECEIPT]  # conditional sections fail closed, none widens
    s.hold.release("old")
    assert (await old).outcome is RetrievalOutcome.STALE


@pytest.mark.anyio
async def test_cached_result_after_question_closed_is_rejected_closed():
    cache = EvidenceCache()
    s = session(opened="yes", cache=cache)
    first = await s.retriever.retrieve(s.ask("r1"))
    assert first.outcome is RetrievalOutcome.EVIDENCE
    again = s.ask("r2")  # issued while open; its answer comes from the cache
    s.ledger.close()
    result = await s.retriever.retrieve(again)
    assert (result.outcome, result.bundle) == (RetrievalOutcome.CLOSED, None)
    completed = [e for e in s.trace.named("retrieval_completed") if e.request == "r2"]
    assert completed[0].get("cached") is True and cache.hits == 1
    assert s.events("r2")[-1] == ("retrieval_rejected", "closed")


@pytest.mark.anyio
async def test_timeout_and_no_eligible_evidence_are_distinct_outcomes():
    slow = session(opened="yes", timeout=0.05)
    slow.hold.hold("slow")  # never released: the deadline passes
    assert (await slow.retriever.retrieve(slow.ask("slow"))).outcome is RetrievalOutcome.TIMEOUT
    s = session(opened="yes")  # the default deadline: a busy machine answers within it
    unmatched = dataclasses.replace(s.ask("none"), text="zzz qqq")
    empty = await s.retriever.retrieve(unmatched)
    assert (empty.outcome, empty.bundle) == (RetrievalOutcome.NO_ELIGIBLE_EVIDENCE, None)
    nothing_allowed = s.ask("scope", tok=token(family="returns", procedure="filter-kit"))
    result = await s.retriever.retrieve(nothing_allowed)
    assert result.outcome is RetrievalOutcome.NO_ELIGIBLE_EVIDENCE


@pytest.mark.anyio
async def test_stale_result_discard_never_cancels_or_disturbs_the_newer_request():
    s = session(opened="no")
    s.hold.hold("old")
    s.hold.hold("new")
    old = asyncio.create_task(s.retriever.retrieve(s.ask("old")))
    await s.hold.started("old")
    s.ledger.set("opened", "yes", "utterance:2")
    new = asyncio.create_task(s.retriever.retrieve(s.ask("new")))
    await s.hold.started("new")
    s.hold.release("old")
    assert (await old).outcome is RetrievalOutcome.STALE
    assert not new.done() and not new.cancelled()
    s.hold.release("new")
    assert OPENED_TEXT in texts(await new)


@pytest.mark.anyio
async def test_old_stream_increment_stays_stale_after_the_new_stream_began():
    s = session(opened="yes")
    s.hold.hold("old", part=1)
    old_stream = s.retriever.stream(s.ask("old"))
    first = await anext(old_stream)
    assert first.outcome is RetrievalOutcome.EVIDENCE and len(first.bundle.passages) == 1
    pending = asyncio.create_task(anext(old_stream))
    await s.hold.started("old", part=1)
    s.ledger.set("item_category", "pump-kit", "utterance:5")  # the caller meant another item
    new_results = [r async for r in s.retriever.stream(s.ask("new"))]
    current = new_results[-1].bundle
    s.hold.release("old", part=1)
    late = await pending
    assert (late.outcome, late.bundle) == (RetrievalOutcome.STALE, None)
    with pytest.raises(StopAsyncIteration):
        await anext(old_stream)
    assert new_results[-1].bundle is current and len(current.passages) == 2
    assert all(r.outcome is RetrievalOutcome.EVIDENCE for r in new_results)
    assert new_results[0].bundle.passages == current.passages[:1]  # a new bundle per increment


@pytest.mark.anyio
async def test_shadow_mode_records_the_stale_result_without_suppressing_it():
    s = session(opened="no", mode=GateMode.SHADOW)
    s.hold.hold("old")
    old = asyncio.create_task(s.retriever.retrieve(s.ask("old")))
    await s.hold.started("old")
    s.ledger.set("opened", "yes", "utterance:2")
    s.hold.release("old")
    result = await old
    assert result.outcome is RetrievalOutcome.EVIDENCE  # not suppressed
    assert [r.disposition for r in s.gate.shadow_log] == [Disposition.STALE]
    admitted = [e for e in s.trace.named("retrieval_admitted") if e.request == "old"]
    assert admitted[0].get("would_be") == "stale"


@pytest.mark.anyio
async def test_result_for_another_scope_is_out_of_scope_even_in_shadow_mode():
    other = token("returns-2026", family="returns", procedure="filter-kit", auth_epoch=1)
    s = session(opened="yes", current_scope=lambda: other.cache_key)
    result = await s.retriever.retrieve(s.ask("r1"))
    assert result.outcome is RetrievalOutcome.OUT_OF_SCOPE
    shadow = session(opened="yes", mode=GateMode.SHADOW)
    mismatched = dataclasses.replace(shadow.ask("r2"), token=other)  # stamp names TOKEN
    assert (await shadow.retriever.retrieve(mismatched)).outcome is RetrievalOutcome.OUT_OF_SCOPE


@pytest.mark.anyio
async def test_trace_separates_completion_from_admission_with_full_identity():
    s = session(opened="yes")
    await s.retriever.retrieve(s.ask("r1"))
    names = [e.name for e in s.trace.events]
    assert names == ["retrieval_started", "retrieval_completed", "retrieval_admitted"]
    admitted = s.trace.events[-1]
    assert (admitted.question, admitted.revision, admitted.generation, admitted.request,
            admitted.disposition) == ("q-returns", 0, 0, "r1", "current")
    assert admitted.get("reads") == (("family", 1), ("item_category", 1), ("opened", 1))
    assert admitted.get("scope") == TOKEN.cache_key
    assert "filter" not in str(s.trace.events[0].get("query"))  # query text is hashed


@pytest.mark.anyio
async def test_registry_change_invalidates_the_cache():
    cache = EvidenceCache()
    s = session(opened="yes", cache=cache)
    await s.retriever.retrieve(s.ask("r1"))
    await s.retriever.retrieve(s.ask("r2"))
    assert cache.hits == 1
    s.corpus.sync([POLICY], 2)  # a registry import created snapshot 2
    await s.retriever.retrieve(s.ask("r3"))
    assert cache.hits == 1 and cache.misses == 2
    cached = [e.get("cached") for e in s.trace.named("retrieval_completed")]
    assert cached == [False, True, False]


@pytest.mark.anyio
async def test_evidence_bundle_is_frozen_and_carries_the_citation_manifest() -> None:
    s = session(opened="yes")
    bundle = (await s.retriever.retrieve(s.ask("r1"))).bundle
    assert bundle is not None  # the gate answers r1 with a bundle
    assert isinstance(bundle.passages, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bundle.passages = ()  # type: ignore[misc]
    citation = bundle.citations[0]
    assert (citation.request_scope, citation.revision, citation.digest, citation.language,
            citation.valid, citation.instant, citation.registry_snapshot,
            citation.policy_version) == (TOKEN.cache_key, "returns-2026",
                                         "sha256:returns-2026", "en", (0, None), "6", 1,
                                         "applicability-1")
    assert citation.chunk.startswith("returns-2026#") and bundle.stamp.request == "r1"
    assert bundle.token is TOKEN


@pytest.mark.anyio
async def test_cache_shared_by_sessions_never_leaks_a_passage_across_roles():
    restricted = revision("bulletin-R", "Supervisor only: filter kit returns need approval.",
                          family="returns", roles=("supervisor",))
    corpus, cache = Corpus(), EvidenceCache()
    corpus.sync([restricted], 1)
    tok = token("bulletin-R", family="returns", procedure="filter-kit")
    results = []
    for roles in (("supervisor",), ("technician",)):
        s = session(opened="yes")
        retriever = ScopedRetriever(corpus, s.gate, s.trace, roles=roles, cache=cache)
        results.append(await retriever.retrieve(s.ask("r1", tok=tok)))
    assert [r.outcome for r in results] == [RetrievalOutcome.EVIDENCE,
                                            RetrievalOutcome.NO_ELIGIBLE_EVIDENCE]
