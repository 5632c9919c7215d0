"""What one call leaves behind, and its result.

:class:`Evidence` is collected once the call has ended and before anything is judged: the
trace, what the caller heard, and the system of record read (never written) before and after.
:class:`CallResult` is the judged call as the report shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agent.core.ledger import LedgerSnapshot
from agent.core.trace import TraceEvent
from audio.calls.player import Heard


class Verdict(StrEnum):
    PASS = "PASS"  # a valid run; every expectation and invariant held
    FAIL = "FAIL"  # a valid run in which the product behaved wrongly
    INVALID = "INVALID"  # the harness could not judge (script, fixture, trigger, evidence)


class Measure(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NA = "n/a"


MEASURES = ("correction_capture", "state_adoption", "stale_action_suppression",
            "external_reconciliation", "duplicate_prevention", "confirmation_fidelity",
            "safe_uncertainty")


@dataclass(frozen=True, slots=True)
class Evidence:
    events: tuple[TraceEvent, ...]
    heard: tuple[Heard, ...]
    bookings_before: tuple[dict[str, Any], ...]
    bookings: tuple[dict[str, Any], ...]
    notifications_before: tuple[dict[str, Any], ...]
    notifications: tuple[dict[str, Any], ...]
    fields: dict[str, dict[str, Any]]
    staff_refs: tuple[str, ...] = ()
    transcripts: tuple[str, ...] = ()
    latency_ms: dict[str, list[float]] = field(default_factory=dict)
    world_meta: dict[str, Any] = field(default_factory=dict)

    def named(self, name: str) -> list[TraceEvent]:
        return [e for e in self.events if e.name == name]


def ledger_fields(snapshot: LedgerSnapshot) -> dict[str, dict[str, Any]]:
    """The final ledger as plain data (fields.json and ``expect.fields``)."""
    return {name: {"value": r.value, "status": str(r.status), "version": r.version,
                   "source": r.source, "confidence": r.confidence, "updated_at": r.updated_at,
                   "candidates": list(r.candidates)}
            for name, r in snapshot.fields}


@dataclass(frozen=True, slots=True)
class CallResult:
    id: str
    file: str
    mode: str
    verdict: Verdict
    violations: tuple[str, ...] = ()
    measures: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    latency_ms: dict[str, list[float]] = field(default_factory=dict)
    duration_s: float = 0.0
    notes: tuple[str, ...] = ()
    evidence: Evidence | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "file": self.file, "mode": self.mode,
                "verdict": self.verdict.value, "violations": list(self.violations),
                "measures": dict(self.measures), "counts": dict(self.counts),
                "latency_ms": {k: list(v) for k, v in self.latency_ms.items()},
                "duration_s": round(self.duration_s, 2), "notes": list(self.notes)}


def invalid(id_: str, file: str, mode: str, *reasons: str, evidence: Evidence | None = None,
            duration_s: float = 0.0) -> CallResult:
    """A call the harness could not judge; its measures are all n/a."""
    return CallResult(id_, file, mode, Verdict.INVALID, tuple(reasons),
                      {m: Measure.NA.value for m in MEASURES}, {}, {}, duration_s, (),
                      evidence)
