"""The scope a question has NOW, for the retriever's admission check (seed 000's scope gate).

A retrieval result carries the scope key of the resolution it was computed for. Before it is
admitted, :func:`scope_now` re-resolves the ledger's question with the trusted caller and asset
record as they are now; a different key makes the result OUT_OF_SCOPE. Reads the registry (one
resolution); changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from agent.proposals import ASSET

if TYPE_CHECKING:
    from agent.answer_desk import AnswerDesk


def scope_now(desk: AnswerDesk) -> str | None:
    """The scope key of ``desk``'s question now; None before any resolution.

    Resolved at the instant the last resolution used, so time passing is no scope change; a
    changed asset record (configuration, region), auth epoch or registry snapshot is. An outcome
    marker stands in for the key when the question no longer resolves, so nothing matches it.
    """
    from agent.answer_desk import Topic

    last = desk.last_resolution
    if last is None or last.token is None:
        return None
    snap = desk.ctx.ledger.current
    query = replace(desk.query_of(snap), at=last.instant or None)
    asset = desk.ctx.caller.asset(snap.value(ASSET) or "")
    if asset is not None and desk.topic is Topic.MAINTENANCE:  # the record as it is now
        query = replace(query, configuration=asset.configuration, region=asset.region)
    try:
        now = desk.resolver.resolve(query)
    except Exception as exc:  # noqa: BLE001 - an unresolvable scope admits nothing
        return f"unresolvable:{type(exc).__name__}"
    return now.token.cache_key if now.token is not None else f"outcome:{now.outcome}"
