"""The authenticated caller: tenant, subject, roles, account and trusted asset records.

None of this ever comes from an utterance. ``auth_epoch`` increases whenever roles or tenant
membership change; scope tokens carry it so cached answers are re-resolved after a change.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.core.names import SITE, UNITS


@dataclass(frozen=True, slots=True)
class Asset:
    id: str
    configuration: str
    region: str
    site: str
    family: str = "pump-seal"
    title: str = ""
    kind: str = "unit"  # what the caller calls it: "pump", "compressor", "gearbox"...

    @property
    def noun(self) -> str:
        """The word for this asset in speech: its kind, lower case ("unit" when none)."""
        return " ".join((self.kind or "").lower().split()) or "unit"


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

    def noun_for(self, asset_id: str | None) -> str:
        """The word for one of this caller's assets ("compressor"); "unit" when unknown."""
        asset = self.asset(asset_id or "")
        return asset.noun if asset is not None else "unit"

    def asset(self, asset_id: str) -> Asset | None:
        for asset in self.assets:
            if asset.id == asset_id:
                return asset
        return None

    def booking_default(self, field: str, asset_id: str | None) -> str | None:
        """What a booking of ``asset_id`` takes for ``field`` when the caller gives nothing:
        one unit, at the asset's site. None for a field with no default."""
        if field == UNITS:
            return "1"
        asset = self.asset(asset_id or "") if field == SITE else None
        return asset.site if asset is not None else None
