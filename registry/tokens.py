"""Scope tokens: everything an answer depended on, so caches and citations can carry it.

The applicability policy version names the rules in ``resolver`` (docs/registry-format.md's six
steps). Bump it whenever those rules change meaning: every cached answer keyed under the old
version then misses, as it must.
"""

from __future__ import annotations

from agent.core.ports import ResolutionQuery, ScopeToken

POLICY_VERSION = "applicability/1"


def scope_token(query: ResolutionQuery, instant: str, known_at: int,
                allowed: tuple[str, ...], policy_version: str = POLICY_VERSION) -> ScopeToken:
    """The token of a RESOLVED answer; ``allowed`` is the winner plus its reviewed edition."""
    return ScopeToken(
        tenant=query.tenant or "", auth_epoch=query.auth_epoch,
        configuration=query.configuration or "", region=query.region or "",
        family=query.family or "", procedure=query.procedure or "", mode=query.mode,
        instant=instant, known_at=known_at, policy_version=policy_version,
        language=query.language, allowed_revisions=tuple(allowed))
