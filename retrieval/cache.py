"""Search results cached by scope token + query snapshot, dropped when the registry changes.

The key is ``(token.cache_key, query key)``: the token already changes with policy, resolved
revisions, authorisation epoch, registry snapshot, locale, instant, mode and tenant (seed 003's
eight cache checks), and the query key with the text, the hard filters and the subject's
roles (visibility), so sessions may share one cache. Every entry also remembers
the corpus snapshot it was computed at; reading with a newer snapshot empties the cache, so a
registry import can never leave an old answer behind. A hit is only a search result: the
retriever passes it through the same admission gate as a fresh one.
"""

from __future__ import annotations

from collections import OrderedDict

from agent.core.ports import ScopeToken
from retrieval.corpus import SearchResult


class EvidenceCache:
    """A bounded LRU of :class:`SearchResult` values (immutable, safe to share)."""

    def __init__(self, max_entries: int = 512):
        self._entries: OrderedDict[tuple[str, str], SearchResult] = OrderedDict()
        self._max = max_entries
        self._snapshot: int | None = None
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, token: ScopeToken, query_key: str, snapshot: int) -> SearchResult | None:
        """The cached result, or None. Side effect: a changed ``snapshot`` empties the cache."""
        self._observe(snapshot)
        result = self._entries.get((token.cache_key, query_key))
        if result is None:
            self.misses += 1
            return None
        self._entries.move_to_end((token.cache_key, query_key))
        self.hits += 1
        return result

    def put(self, token: ScopeToken, query_key: str, result: SearchResult) -> None:
        """Store ``result`` unless it was computed at another snapshot than the cache holds."""
        self._observe(result.snapshot)
        self._entries[(token.cache_key, query_key)] = result
        self._entries.move_to_end((token.cache_key, query_key))
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def invalidate(self) -> None:
        """Forget everything (call after a registry import or revocation)."""
        self._entries.clear()
        self._snapshot = None

    def _observe(self, snapshot: int) -> None:
        if snapshot != self._snapshot:
            self._entries.clear()
            self._snapshot = snapshot
