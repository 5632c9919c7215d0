"""How a resolution is shown: the contract's JSON object and a one-line human form.

A non-RESOLVED answer carries no ``revision``, ``edition`` or ``valid``, so nothing shown to a
subject can name a revision it may not use. Historical answers carry their label.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict
from datetime import datetime

from agent.core.ports import RegistryOutcome, Resolution


def spoken_label(resolution: Resolution) -> str:
    """"current", "as of tick 6", or "as of 3 March 2026, 09:00 +01:00" for an instant."""
    if not resolution.historical or resolution.instant.lstrip("-").isdigit():
        return resolution.label
    try:
        moment = datetime.fromisoformat(resolution.instant.replace("Z", "+00:00"))
    except ValueError:
        return resolution.label
    offset = moment.isoformat()[-6:]  # "+01:00", as written
    return f"as of {moment.day} {moment:%B %Y, %H:%M} {offset}"


def token_text(resolution: Resolution) -> str:
    """The scope token as an opaque string (base64url of its canonical JSON)."""
    if resolution.token is None:
        raise ValueError("this resolution carries no scope token (only RESOLVED answers do)")
    data = json.dumps(asdict(resolution.token), sort_keys=True, separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def resolution_json(resolution: Resolution, sections=None) -> dict:
    out: dict = {"outcome": resolution.outcome.value}
    if resolution.outcome is RegistryOutcome.RESOLVED:
        assert resolution.valid is not None, "a RESOLVED answer always carries its interval"
        out.update(revision=resolution.revision, edition=resolution.edition,
                   language=resolution.language, valid=list(resolution.valid))
    out.update(known_at=resolution.known_at, instant=resolution.instant,
               mode="historical" if resolution.historical else "current",
               label=spoken_label(resolution))
    if resolution.missing:
        out["missing"] = list(resolution.missing)
    if resolution.token is not None:
        out.update(scope_token=token_text(resolution), cache_key=resolution.token.cache_key,
                   allowed_revisions=list(resolution.token.allowed_revisions),
                   policy_version=resolution.token.policy_version)
    if sections is not None:
        out["sections"] = [{"id": sid, "when": dict(when), "text": text}
                           for sid, when, text in sections.sections]
        out["needs"] = list(sections.needs)
    return out


def resolution_line(resolution: Resolution, sections=None) -> str:
    label = f"{spoken_label(resolution)}, snapshot {resolution.known_at}"
    if resolution.outcome is RegistryOutcome.MISSING_SCOPE:
        return f"MISSING_SCOPE: ask for {', '.join(resolution.missing)} ({label})"
    if resolution.outcome is not RegistryOutcome.RESOLVED:
        return f"{resolution.outcome.value} ({label})"
    assert resolution.valid is not None, "a RESOLVED answer always carries its interval"
    start, end = resolution.valid
    line = (f"RESOLVED {resolution.revision}, edition {resolution.edition} "
            f"({resolution.language}), valid [{start}, {'∞' if end is None else end}), {label}")
    if sections is not None:
        for sid, _, text in sections.sections:
            line += f"\n  [{sid}] {text}"
        if sections.needs:
            line += f"\n  (conditions still need: {', '.join(sections.needs)})"
    return line
