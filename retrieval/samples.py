"""Synthetic revisions and scope tokens for tests, the benchmark and the CLI's docs.

The torque values and return rules are invented test data (seed 003's fixture shape), never
maintenance or policy advice.
"""

from __future__ import annotations

from agent.core.ports import RevisionText, ScopeToken

SEAL = "Torque the pump seal bolts to {nm} Nm in a cross pattern, then check the seal for leaks."


def revision(rid: str, text: str | None = None, *, sections=(), language: str = "en",
             tenant: str = "*", roles: tuple[str, ...] = (), family: str = "pump-seal",
             kind: str = "manual", valid=((0, None),), equivalent_to: str | None = None,
             digest: str | None = None) -> RevisionText:
    """A ``RevisionText`` as the registry would hand it over."""
    triples = tuple(sections) or (("text", (), text or ""),)
    return RevisionText(id=rid, family=family, language=language, tenant=tenant, roles=roles,
                        kind=kind, digest=digest or f"sha256:{rid}", valid=tuple(valid),
                        sections=triples, equivalent_to=equivalent_to)


def seal_registry() -> tuple[RevisionText, ...]:
    """Seed 003's four records: A (40 Nm), B (45 Nm, supersedes A), C (50 Nm), German A."""
    return (
        revision("manual-A", SEAL.format(nm=40), valid=((0, 10),)),
        revision("bulletin-B", SEAL.format(nm=45), kind="bulletin", valid=((5, 10),)),
        revision("manual-C", SEAL.format(nm=50), valid=((10, None),)),
        revision("manual-A-de", "Ziehen Sie die Schrauben der Pumpendichtung über Kreuz mit "
                 "40 Nm an und prüfen Sie die Dichtung auf Lecks.", language="de",
                 kind="translation", valid=(), equivalent_to="manual-A"),
    )


OPENED_TEXT = "Opened filter kits can be returned within 14 days with a 15 percent restocking fee."
UNOPENED_TEXT = "Unopened filter kits can be returned within 30 days for a full refund."


def returns_policy(rid: str = "returns-2026") -> RevisionText:
    """A return policy whose sections apply only under ``opened`` (docs/registry-format.md)."""
    return revision(rid, family="returns", kind="policy", sections=(
        ("opened", (("opened", "yes"),), OPENED_TEXT),
        ("unopened", (("opened", "no"),), UNOPENED_TEXT),
    ))


def token(*allowed: str, tenant: str = "northwind", family: str = "pump-seal",
          procedure: str = "seal-torque", instant: str = "6", known_at: int = 1,
          language: str = "en", auth_epoch: int = 0) -> ScopeToken:
    """A scope token as the resolver would issue it (``allowed`` = the allowed revisions)."""
    return ScopeToken(tenant=tenant, auth_epoch=auth_epoch, configuration="C2", region="EU",
                      family=family, procedure=procedure, mode="historical", instant=instant,
                      known_at=known_at, policy_version="applicability-1", language=language,
                      allowed_revisions=tuple(allowed))
