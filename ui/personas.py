"""Caller personas for the demo's picker, loaded from ``ui/personas.yaml`` (or another file).

``ui/personas.yaml`` is package data: it ships in the wheel and is found through
:mod:`importlib.resources`, so an installed ``amend demo`` needs no source checkout.

A persona is an authenticated session: tenant, subject, roles and trusted asset records.
Loading is read-only; a malformed file raises :class:`~agent.core.errors.InvalidInput` naming the
file and the entry, and nothing is half-loaded.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import yaml

from agent.core.caller import Asset, CallerProfile
from agent.core.errors import InvalidInput

DEFAULT_PATH: Traversable = resources.files(__package__) / "personas.yaml"
_ASSET_KEYS = ("id", "configuration", "region", "site")


def _profile(path: Path | Traversable, key: str, raw: object) -> CallerProfile:
    where = f"{path.name}: persona {key!r}"
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: must be a mapping of tenant, subject, roles, account, assets")
    missing = [k for k in ("tenant", "subject", "roles", "account", "assets") if not raw.get(k)]
    if missing:
        raise InvalidInput(f"{where}: missing {', '.join(missing)}")
    if not isinstance(raw["roles"], list) or not isinstance(raw["assets"], list):
        raise InvalidInput(f"{where}: roles and assets must be lists")
    assets = []
    for n, item in enumerate(raw["assets"]):
        if not isinstance(item, dict) or any(not item.get(k) for k in _ASSET_KEYS):
            raise InvalidInput(f"{where}: asset #{n + 1} needs {', '.join(_ASSET_KEYS)}")
        assets.append(Asset(str(item["id"]), str(item["configuration"]), str(item["region"]),
                            str(item["site"]), str(item.get("family", "pump-seal")),
                            str(item.get("title", "")), str(item.get("kind", "unit"))))
    return CallerProfile(tenant=str(raw["tenant"]), subject=str(raw["subject"]),
                         roles=tuple(str(r) for r in raw["roles"]),
                         account=str(raw["account"]), assets=tuple(assets),
                         name=str(raw.get("name", "")),
                         region=str(raw["region"]) if raw.get("region") else None)


def load_personas(path: Path | str | Traversable = DEFAULT_PATH) -> dict[str, CallerProfile]:
    """Persona id -> profile, in file order. Raises InvalidInput for a bad or missing file."""
    if isinstance(path, str):
        path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read personas ({exc.strerror}); "
                           "check the path") from None
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{path}: not valid YAML ({str(exc).splitlines()[0]}); "
                           "fix the file") from None
    if not isinstance(data, dict) or not data:
        raise InvalidInput(f"{path}: expected a mapping of persona id to caller; found none")
    return {str(key): _profile(path, str(key), raw) for key, raw in data.items()}
