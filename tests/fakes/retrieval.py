"""In-memory retrieval: ``agent.core.ports.Retriever`` with no SQLite, no FTS5 and no threads.

:class:`FakeCorpus` keeps the passages of a registry's revision texts in a list. A search
applies the same eligibility as ``retrieval.corpus.Corpus`` (the token's allowed revisions
only, tenant ``*`` or the token's, revisions the subject's roles may see, every section ``when``
condition equal to an accepted field, failing closed) and ranks the passages that share a query
term with BM25 over the eligible set. Chunking, the tokeniser, the BM25 formula, the query
scrubber and the citation builder are the real pure functions: they are not storage, and a
second stemmer could only drift.

:class:`FakeRetriever` follows ``retrieval.retriever.ScopedRetriever`` step by step: scrub the
request text, ``retrieval_started``, search, ``retrieval_completed``, then the admission gate
with no await in between (OUT_OF_SCOPE for a stamp or passage outside the token's scope, then
the gate's disposition against the ledger now, with the shadow gate's ``would_be``), and the
same trace events and outcomes. Instead of a wall-clock deadline it has :class:`SearchControl`:
a test holds a request on an event, releases it, or makes it time out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from agent.core.gate import AdmissionGate, Disposition
from agent.core.ports import RetrievalOutcome, RetrievalRequest, RetrievalResult, ScopeToken
from agent.core.trace import Trace
from retrieval.corpus import Hit, SearchResult
from retrieval.evidence import bundle_of, in_scope
from retrieval.passages import chunk, source_of
from retrieval.query import scrub
from retrieval.ranking import bm25
from retrieval.terms import frequencies, terms

_REJECTED = {Disposition.STALE: RetrievalOutcome.STALE,
             Disposition.CLOSED: RetrievalOutcome.CLOSED,
             Disposition.OUT_OF_SCOPE: RetrievalOutcome.OUT_OF_SCOPE}


@dataclass(frozen=True, slots=True)
class _Passage:
    rowid: int
    revision: str
    index: int
    chunk: str
    section: str
    when: tuple[tuple[str, str], ...]
    text: str
    tf: Mapping[str, int]
    length: int


@dataclass(frozen=True, slots=True)
class _Revision:
    digest: str
    language: str
    tenant: str
    roles: tuple[str, ...]
    valid: tuple[tuple[int | str | None, int | str | None], ...]
    equivalent_to: str | None


class FakeCorpus:
    """Passages of every registry revision, in memory."""

    def __init__(self) -> None:
        self.snapshot: int | None = None
        self._revisions: dict[str, _Revision] = {}
        self._passages: list[_Passage] = []
        self._rowid = 0

    def __len__(self) -> int:
        return len(self._passages)

    def sync(self, revision_texts: Iterable[object], snapshot: int) -> None:
        """Mirror the registry as of ``snapshot`` (a no-op when already there)."""
        if self.snapshot == snapshot:
            return
        sources = {s.revision: s for s in map(source_of, revision_texts)}
        changed = {rid for rid, s in sources.items()
                   if rid not in self._revisions or self._revisions[rid].digest != s.digest}
        gone = set(self._revisions) - set(sources)
        self._passages = [p for p in self._passages if p.revision not in changed | gone]
        for rid in gone:
            del self._revisions[rid]
        for rid, s in sources.items():
            self._revisions[rid] = _Revision(s.digest, s.language, s.tenant, tuple(s.roles),
                                             s.valid, s.equivalent_to)  # source_of made tuples
            if rid in changed:
                for p in chunk(s):
                    tf = frequencies(p.text, s.language)
                    self._rowid += 1
                    self._passages.append(_Passage(self._rowid, rid, p.index, p.chunk,
                                                   p.section, p.when, p.text, tf,
                                                   sum(tf.values())))
        self.snapshot = snapshot

    def search(self, token: ScopeToken, query_terms: Iterable[str],
               filters: Mapping[str, str] | Iterable[tuple[str, str]] = (), *,
               roles: Iterable[str] = (), limit: int = 3) -> SearchResult:
        wanted = dict(filters)
        subject = frozenset(roles)
        query = list(query_terms)
        snapshot = self.snapshot or 0
        allowed = set(token.allowed_revisions)
        if not allowed or limit <= 0:
            return SearchResult((), snapshot, 0)
        eligible = [p for p in self._passages if p.revision in allowed
                    and self._revisions[p.revision].tenant in ("*", token.tenant)
                    and self._visible(p.revision, subject)
                    and all(wanted.get(k) == v for k, v in p.when)]
        words = set(query)
        if not eligible or not words:
            return SearchResult((), snapshot, len(eligible))
        found = {p.rowid: p for p in eligible if words & set(p.tf)}
        avg = sum(p.length for p in eligible) / len(eligible)
        ranked = bm25(query, {k: (p.length, p.tf) for k, p in found.items()}, len(eligible),
                      avg)[:limit]
        hits = tuple(self._hit(found[s.key], s.score) for s in ranked)
        return SearchResult(hits, snapshot, len(eligible))

    def _visible(self, revision: str, subject: frozenset[str]) -> bool:
        required = self._revisions[revision].roles
        return not required or bool(subject.intersection(required))

    def _hit(self, p: _Passage, score: float) -> Hit:
        rev = self._revisions[p.revision]
        valid = rev.valid
        if not valid and rev.equivalent_to in self._revisions:
            valid = self._revisions[rev.equivalent_to].valid  # a translation's: its original's
        return Hit(p.revision, p.chunk, p.index, p.section, p.text, round(score, 6),
                   rev.digest, rev.language, valid)


class SearchControl:
    """Holds, releases or times out searches by request id (``"*"``: every request)."""

    def __init__(self) -> None:
        self._held: dict[str, asyncio.Event] = {}
        self._started: dict[str, asyncio.Event] = {}
        self._timeouts: set[str] = set()

    def hold(self, request: str = "*") -> None:
        self._held[request] = asyncio.Event()
        self._started.setdefault(request, asyncio.Event())

    async def started(self, request: str = "*") -> None:
        """Until the held search of ``request`` has begun (it is now waiting)."""
        await self._started.setdefault(request, asyncio.Event()).wait()

    def release(self, request: str = "*") -> None:
        self._held.pop(request, asyncio.Event()).set()

    def time_out(self, request: str = "*") -> None:
        """The search of ``request`` gets no answer by its deadline (now, or when it starts)."""
        self._timeouts.add(request)
        held = self._held.get(request)
        if held is not None:
            held.set()

    async def wait(self, request: str) -> bool:
        """Pass, or wait while held; False when the search timed out."""
        key = request if request in self._held or request in self._timeouts else "*"
        self._started.setdefault(key, asyncio.Event()).set()
        held = self._held.get(key)
        if held is not None and key not in self._timeouts:
            await held.wait()
        return key not in self._timeouts


class FakeRetriever:
    """``agent.core.ports.Retriever`` for one session over a :class:`FakeCorpus`."""

    def __init__(self, corpus: FakeCorpus, gate: AdmissionGate, trace: Trace, *,
                 roles: Iterable[str] = (), current_scope: Callable[[], str | None] | None = None,
                 private: Iterable[str] = (), control: SearchControl | None = None,
                 generation: Callable[[], int] = lambda: 0):
        self._corpus = corpus
        self._gate = gate
        self._trace = trace
        self._roles = tuple(sorted(set(roles)))
        self._current_scope = current_scope or (lambda: None)
        self._private = tuple(private)
        self.control = control or SearchControl()
        self._generation = generation

    async def retrieve(self, request: RetrievalRequest) -> RetrievalResult:
        text = scrub(request.text, self._private)
        if text != request.text:
            request = replace(request, text=text)
        self._emit("retrieval_started", request, query=self._trace.private(request.text),
                   allowed=request.token.allowed_revisions)
        if not await self.control.wait(request.stamp.request):
            self._emit("retrieval_completed", request, outcome=RetrievalOutcome.TIMEOUT.value)
            return RetrievalResult(RetrievalOutcome.TIMEOUT, request.stamp.request)
        result = self._corpus.search(request.token, terms(request.text, request.token.language),
                                     request.filters, roles=self._roles, limit=request.limit)
        self._emit("retrieval_completed", request, passages=len(result.hits), cached=False,
                   snapshot=result.snapshot)
        return self._admit(request, result.hits)

    def _admit(self, request: RetrievalRequest, hits: tuple[Hit, ...]) -> RetrievalResult:
        stamp, token = request.stamp, request.token
        if (stamp.scope is not None and stamp.scope != token.cache_key) \
                or not in_scope(hits, token):
            return self._reject(request, Disposition.OUT_OF_SCOPE)
        before = len(self._gate.shadow_log)
        disposition = self._gate.admit(stamp, scope=self._current_scope())
        if disposition is not Disposition.CURRENT:
            return self._reject(request, disposition)
        extra = {}
        shadow = self._gate.shadow_log[before:]
        if shadow:
            extra["would_be"] = shadow[-1].disposition.value
        bundle = bundle_of(stamp, token, hits) if hits else None
        self._emit("retrieval_admitted", request, Disposition.CURRENT, passages=len(hits),
                   chunks=tuple(h.chunk for h in hits), **extra)
        outcome = RetrievalOutcome.EVIDENCE if hits else RetrievalOutcome.NO_ELIGIBLE_EVIDENCE
        return RetrievalResult(outcome, stamp.request, bundle)

    def _reject(self, request: RetrievalRequest, disposition: Disposition) -> RetrievalResult:
        self._emit("retrieval_rejected", request, disposition)
        return RetrievalResult(_REJECTED[disposition], request.stamp.request)

    def _emit(self, name: str, request: RetrievalRequest,
              disposition: Disposition | None = None, **data: object) -> None:
        stamp = request.stamp
        self._trace.emit(name, question=stamp.question, revision=stamp.revision,
                         generation=self._generation(), request=stamp.request,
                         disposition=disposition.value if disposition else None,
                         scope=request.token.cache_key, reads=stamp.reads, **data)
