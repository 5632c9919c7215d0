"""BM25 over the eligible set only.

FTS5's built-in ``bm25()`` takes document frequencies and the average length from the whole
table. Then importing a superseded revision with near-identical wording changes the idf of
every word it shares with the current one, and the current passages' scores and order move
although nothing about the current question changed. So the corpus uses FTS5 only to find
which eligible rows contain a query term, and this module scores them with statistics of the
eligible set alone: ``n_docs``, ``avg_length`` and each term's document frequency all come from
passages that passed the scope, tenant, visibility and ``when`` filters. Text outside the
allowed set cannot enter the formula, so it cannot move a result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class Scored:
    key: int  # the passage rowid
    score: float


def bm25(query_terms: Sequence[str], candidates: Mapping[int, tuple[int, Mapping[str, int]]],
         n_docs: int, avg_length: float) -> list[Scored]:
    """Score ``candidates`` ({rowid: (length, term frequencies)}) for ``query_terms``.

    ``candidates`` must be every eligible passage that contains at least one query term, so
    document frequencies counted over it equal those of the whole eligible set. Pure; returns
    passages with a positive score, best first, ties broken by rowid (insertion order).
    """
    unique = sorted(set(query_terms))
    if n_docs <= 0 or not unique:
        return []
    df = {t: sum(1 for _, tf in candidates.values() if tf.get(t)) for t in unique}
    # Lucene's idf: never negative, so a term present in most eligible passages still counts.
    idf = {t: math.log(1 + (n_docs - d + 0.5) / (d + 0.5)) for t, d in df.items() if d}
    avg = avg_length or 1.0
    scored = []
    for key, (length, tf) in candidates.items():
        norm = K1 * (1 - B + B * length / avg)
        score = sum(idf[t] * tf[t] * (K1 + 1) / (tf[t] + norm) for t in idf if tf.get(t))
        if score > 0:
            scored.append(Scored(key, score))
    scored.sort(key=lambda s: (-s.score, s.key))
    return scored
