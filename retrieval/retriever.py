"""The async retriever behind ``agent.core.ports.Retriever``, gated after every await.

One :class:`ScopedRetriever` per session, built with that session's admission gate, trace and
subject roles. For each request:

1. ``retrieval_started`` is traced; the cache is consulted (key: scope token + query).
2. On a miss the fetch hook is awaited, then the SQLite search runs in ``asyncio.to_thread``;
   the whole fetch is bounded by ``timeout``. A timeout is its own outcome (TIMEOUT: we lack
   the evidence) and is never confused with NO_ELIGIBLE_EVIDENCE (the search completed and
   nothing eligible matched).
3. ``retrieval_completed`` is traced (completion says a result arrived, nothing more).
4. The result is admitted right after the await, with no await in between: the gate compares
   the request's stamp with the ledger *now*. ``retrieval_admitted`` or ``retrieval_rejected``
   follows, with the disposition. Cached results take exactly the same path.

Discarding a result touches nothing else: the retriever keeps no "current request" to cancel,
so a late old result can never disturb the newer request. Passages outside the token's allowed
revisions, or a stamp computed for another scope, are OUT_OF_SCOPE even in shadow mode: the
shadow gate may let stale results through for comparison, never unauthorised evidence.
Request text is scrubbed of identifying data (``private`` values and the patterns of
:func:`retrieval.query.scrub`) before it is traced, cached or searched.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import replace

from agent.core.gate import AdmissionGate, Disposition
from agent.core.ports import RetrievalOutcome, RetrievalRequest, RetrievalResult
from agent.core.trace import Trace
from retrieval.cache import EvidenceCache
from retrieval.corpus import Corpus, Hit, SearchResult
from retrieval.evidence import bundle_of, in_scope
from retrieval.hooks import FetchHook
from retrieval.query import query_key, scrub
from retrieval.terms import terms

_REJECTED = {Disposition.STALE: RetrievalOutcome.STALE,
             Disposition.CLOSED: RetrievalOutcome.CLOSED,
             Disposition.OUT_OF_SCOPE: RetrievalOutcome.OUT_OF_SCOPE}


class ScopedRetriever:
    """Implements ``agent.core.ports.Retriever`` over a :class:`Corpus` for one session."""

    def __init__(self, corpus: Corpus, gate: AdmissionGate, trace: Trace, *,
                 roles: Iterable[str] = (), cache: EvidenceCache | None = None,
                 timeout: float | None = 2.0, fetch_hook: FetchHook | None = None,
                 current_scope: Callable[[], str | None] | None = None,
                 generation: Callable[[], int] = lambda: 0, private: Iterable[str] = ()):
        self._corpus = corpus
        self._gate = gate
        self._trace = trace
        self._roles = tuple(sorted(set(roles)))
        self._cache = cache
        self._timeout = timeout
        self._hook = fetch_hook
        self._current_scope = current_scope or (lambda: None)
        self._generation = generation
        self._private = tuple(private)

    async def retrieve(self, request: RetrievalRequest) -> RetrievalResult:
        """Search, then admit. Side effects: trace events, cache entries, gate shadow log."""
        request = self._scrubbed(request)
        self._emit("retrieval_started", request, query=self._trace.private(request.text),
                   allowed=request.token.allowed_revisions)
        try:
            result, cached = await asyncio.wait_for(self._fetch(request, 0), self._timeout)
        except TimeoutError:
            self._emit("retrieval_completed", request, outcome=RetrievalOutcome.TIMEOUT.value)
            return RetrievalResult(RetrievalOutcome.TIMEOUT, request.stamp.request)
        self._emit("retrieval_completed", request, passages=len(result.hits), cached=cached,
                   snapshot=result.snapshot)
        return self._admit(request, result.hits)

    async def stream(self, request: RetrievalRequest) -> AsyncIterator[RetrievalResult]:
        """Deliver passages one increment at a time, each admitted after its own await.

        Every admitted increment yields a *new* frozen bundle of everything admitted so far in
        this stream. The first rejected increment yields its disposition and ends the stream:
        an increment of an old request stays stale however late it arrives.
        """
        request = self._scrubbed(request)
        self._emit("retrieval_started", request, query=self._trace.private(request.text),
                   allowed=request.token.allowed_revisions, streaming=True)
        try:
            result, cached = await asyncio.wait_for(self._search(request), self._timeout)
        except TimeoutError:
            self._emit("retrieval_completed", request, outcome=RetrievalOutcome.TIMEOUT.value)
            yield RetrievalResult(RetrievalOutcome.TIMEOUT, request.stamp.request)
            return
        admitted: list[Hit] = []
        if not result.hits:
            self._emit("retrieval_completed", request, passages=0, cached=cached, part=0)
            yield self._admit(request, ())
            return
        for part, hit in enumerate(result.hits):
            try:
                await asyncio.wait_for(self._delay(request, part), self._timeout)
            except TimeoutError:
                self._emit("retrieval_completed", request, part=part,
                           outcome=RetrievalOutcome.TIMEOUT.value)
                yield RetrievalResult(RetrievalOutcome.TIMEOUT, request.stamp.request)
                return
            self._emit("retrieval_completed", request, passages=1, cached=cached, part=part)
            step = self._admit(request, (*admitted, hit), part=part)
            yield step
            if step.bundle is None:
                return
            admitted.append(hit)

    # -- internals ---------------------------------------------------------------------------
    def _scrubbed(self, request: RetrievalRequest) -> RetrievalRequest:
        """The request with identifying data removed from its text, before anything reads it.

        Query text reaches the trace, the cache key and the search; whatever a caller of this
        port put in it (a future rewriter, a question quoted verbatim), names, account and asset
        ids, sites and phone numbers never get that far.
        """
        text = scrub(request.text, self._private)
        return request if text == request.text else replace(request, text=text)

    async def _fetch(self, request: RetrievalRequest, part: int) -> tuple[SearchResult, bool]:
        await self._delay(request, part)
        return await self._search(request)

    async def _delay(self, request: RetrievalRequest, part: int) -> None:
        if self._hook is not None:
            await self._hook(request, part)

    async def _search(self, request: RetrievalRequest) -> tuple[SearchResult, bool]:
        # The subject's roles decide visibility, and a cache may be shared by sessions whose
        # tokens are equal (same tenant and epoch) but whose roles differ: key by them too.
        key = query_key(request.text, (*request.filters, ("roles", ",".join(self._roles))))
        if self._cache is not None:
            hit = self._cache.get(request.token, key, self._corpus.snapshot or 0)
            if hit is not None:
                return hit, True
        result = await asyncio.to_thread(
            self._corpus.search, request.token, terms(request.text, request.token.language),
            request.filters, roles=self._roles, limit=request.limit)
        if self._cache is not None:
            self._cache.put(request.token, key, result)
        return result, False

    def _admit(self, request: RetrievalRequest, hits: tuple[Hit, ...],
               part: int | None = None) -> RetrievalResult:
        """The gate, synchronously: use the answer before the next await."""
        stamp, token = request.stamp, request.token
        extra: dict[str, object] = {} if part is None else {"part": part}
        if (stamp.scope is not None and stamp.scope != token.cache_key) or not in_scope(
                hits, token):
            return self._reject(request, Disposition.OUT_OF_SCOPE, **extra)
        before = len(self._gate.shadow_log)
        disposition = self._gate.admit(stamp, scope=self._current_scope())
        if disposition is not Disposition.CURRENT:
            return self._reject(request, disposition, **extra)
        shadow = self._gate.shadow_log[before:]
        if shadow:  # shadow mode let it through; record what enforcing would have done
            extra["would_be"] = shadow[-1].disposition.value
        bundle = bundle_of(stamp, token, hits) if hits else None
        self._emit("retrieval_admitted", request, Disposition.CURRENT, passages=len(hits),
                   chunks=tuple(h.chunk for h in hits), **extra)
        outcome = RetrievalOutcome.EVIDENCE if hits else RetrievalOutcome.NO_ELIGIBLE_EVIDENCE
        return RetrievalResult(outcome, stamp.request, bundle)

    def _reject(self, request: RetrievalRequest, disposition: Disposition,
                **extra: object) -> RetrievalResult:
        self._emit("retrieval_rejected", request, disposition, **extra)
        return RetrievalResult(_REJECTED[disposition], request.stamp.request)

    def _emit(self, name: str, request: RetrievalRequest,
              disposition: Disposition | None = None, **data: object) -> None:
        stamp = request.stamp
        self._trace.emit(name, question=stamp.question, revision=stamp.revision,
                         generation=self._generation(), request=stamp.request,
                         disposition=disposition.value if disposition else None,
                         scope=request.token.cache_key, reads=stamp.reads, **data)
