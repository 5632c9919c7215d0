"""The authenticated caller: tenant, subject, roles, account and trusted asset records.

None of this ever comes from an utterance. ``auth_epoch`` increases whenever roles or tenant
membership change; scope tokens carry it so cached answers are re-resolved after a change.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Asset:
    id: str
    configuration: str
    region: str
    site: str
    family: str = "pump-seal"
    title: str = ""
    kind: str = "unit"  # what the caller calls it: "pump", "compressor", "gearbox"...


@dataclass(frozen=True, slots=True)
class CallerProfile:
    tenant: str
    subject: str
    roles: tuple[str, ...]
    account: str
    assets: tuple[Asset, ...]
    name: str = ""
    auth_epoch: int = 0
    region: str | None = None  # purchase region for return policies, if known

    def asset(self, asset_id: str) -> Asset | None:
        for asset in self.assets:
            if asset.id == asset_id:
                return asset
        return None
