"""Evidence bundles: the only thing an answer builder receives.

A bundle is frozen (tuples all the way down), carries the stamp it was admitted under and the
scope token, and every passage carries a citation manifest: request-scope id (the token's cache
key), revision id, source digest, chunk id, language, valid interval, resolved instant,
registry snapshot and applicability-policy version. Before a bundle is built, every passage's
revision is checked against the token's allowed set once more (seed 003: verify at selection
and again at citation time; fail closed on a mismatch).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from agent.core.gate import Stamp
from agent.core.ports import Citation, EvidenceBundle, Passage, ScopeToken
from retrieval.corpus import Hit

Interval = tuple[int | str | None, int | str | None]


def in_scope(hits: Iterable[Hit], token: ScopeToken) -> bool:
    """True when every hit belongs to one of the token's allowed revisions."""
    allowed = frozenset(token.allowed_revisions)
    return all(hit.revision in allowed for hit in hits)


def bundle_of(stamp: Stamp, token: ScopeToken, hits: Sequence[Hit]) -> EvidenceBundle:
    """A frozen, cited bundle of ``hits``. Raises ValueError if a hit is out of scope."""
    if not in_scope(hits, token):
        raise ValueError("evidence outside the scope token's allowed revisions")
    scope = token.cache_key  # hashed once per bundle, not per passage
    return EvidenceBundle(stamp, token, tuple(_passage(hit, token, scope) for hit in hits))


def _passage(hit: Hit, token: ScopeToken, scope: str) -> Passage:
    citation = Citation(
        request_scope=scope,
        revision=hit.revision,
        digest=hit.revision_digest,
        chunk=hit.chunk,
        language=hit.language,
        valid=valid_at(hit.valid, token.instant),
        instant=token.instant,
        registry_snapshot=token.known_at,
        policy_version=token.policy_version,
    )
    return Passage(hit.revision, hit.chunk, hit.text, hit.score, citation)


def valid_at(intervals: Sequence[Interval], instant: str) -> Interval:
    """The half-open interval that covers ``instant``; the only one if just one is known.

    Ticks compare as integers, RFC 3339 instants as aware datetimes. ``(None, None)`` when no
    interval is known or none can be chosen, rather than a guess.
    """
    point = _point(instant)
    for low, high in intervals:
        lo, hi = _point(low), _point(high)
        try:
            # A tick against an instant raises TypeError (handled below); mypy cannot see
            # that the operands are otherwise of one kind, hence the ignores.
            if (point is not None and (lo is None or lo <= point)  # type: ignore[operator]
                    and (hi is None or point < hi)):  # type: ignore[operator]
                return (low, high)
        except TypeError:  # a tick compared with an instant: this interval cannot cover it
            continue
    if len(intervals) == 1:
        return tuple(intervals[0])  # type: ignore[return-value]
    return (None, None)


def _point(value: int | str | None) -> int | datetime | None:
    if value is None or isinstance(value, int):
        return value
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
