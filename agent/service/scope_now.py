"""The scope a question has NOW, for the retriever's admission check (seed 000's scope gate).

A retrieval result carries the scope key of the resolution it was computed for. Before it is
admitted, :func:`scope_now` re-resolves the ledger's question with the trusted caller and asset
record as they are now; a different key makes the result OUT_OF_SCOPE. Reads the registry (one
resolution); changes nothing. It takes what it needs as values (the answer desk passes them),
so it knows nothing of the desk.
"""

from __future__ import annotations

from dataclasses import replace

from agent.core.caller import Asset
from agent.core.ports import Resolution, ResolutionQuery, Resolver


def scope_now(resolver: Resolver, last: Resolution | None, query: ResolutionQuery,
              asset: Asset | None) -> str | None:
    """The scope key of ``query`` (the ledger's question now); None before any resolution.

    Resolved at the instant ``last`` (the last resolution) used, so time passing is no scope
    change; a changed ``asset`` record (configuration, region: pass it for questions about the
    asset, None otherwise), auth epoch or registry snapshot is. An outcome marker stands in
    for the key when the question no longer resolves, so nothing matches it.
    """
    if last is None or last.token is None:
        return None
    query = replace(query, at=last.instant or None)
    if asset is not None:  # the record as it is now
        query = replace(query, configuration=asset.configuration, region=asset.region)
    try:
        now = resolver.resolve(query)
    except Exception as exc:  # noqa: BLE001 - an unresolvable scope admits nothing
        return f"unresolvable:{type(exc).__name__}"
    return now.token.cache_key if now.token is not None else f"outcome:{now.outcome}"
