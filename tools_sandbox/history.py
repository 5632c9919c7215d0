"""A Jepsen-style history of booking operations, and a checker for three safety properties.

Each client operation is recorded twice: ``invoke`` when it is sent, then ``ok`` (the target
acknowledged it), ``fail`` (the target proved nothing was written) or ``info`` (the outcome is
unknown: it may or may not have happened). A *logical request* is what the caller meant once
("book P-100 on Thursday"); it may be sent several times, under one key or, if the client is
broken, under several.

:func:`check` compares the history with the system of record (the sandbox's final bookings and
its ``booking_events`` log) and reports:

- ``DUPLICATE_BOOKING``: one logical request produced more than one booking;
- ``LOST_BOOKING``: an acknowledged create or change is missing from the record;
- ``STALE_COMMIT``: a conditional change was committed over a version other than the one it
  was built on;
- ``PHANTOM_WRITE``: a caller write the history never invoked.

Pure: no I/O. Recording is thread-safe so concurrent workers can share one history.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass
from enum import StrEnum


class Phase(StrEnum):
    INVOKE = "invoke"
    OK = "ok"  # acknowledged: it happened
    FAIL = "fail"  # refused: it did not happen
    INFO = "info"  # unknown: it may have happened


class AnomalyKind(StrEnum):
    DUPLICATE_BOOKING = "duplicate_booking"
    LOST_BOOKING = "lost_booking"
    STALE_COMMIT = "stale_commit"
    PHANTOM_WRITE = "phantom_write"


@dataclass(frozen=True, slots=True)
class Event:
    index: int
    process: int
    phase: Phase
    f: str  # create | reschedule | cancel
    request: str  # logical request id
    key: str  # idempotency key actually sent
    ref: str | None = None  # booking ref (known for changes; for creates once acknowledged)
    version: int | None = None  # acknowledged version
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Anomaly:
    kind: AnomalyKind
    detail: str


class History:
    """An append-only, thread-safe list of :class:`Event`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[Event] = []

    def record(self, process: int, phase: Phase, f: str, request: str, key: str,
               ref: str | None = None, version: int | None = None, detail: str = "") -> Event:
        with self._lock:
            event = Event(len(self._events), process, Phase(phase), f, request, key, ref,
                          version, detail)
            self._events.append(event)
            return event

    @property
    def events(self) -> tuple[Event, ...]:
        with self._lock:
            return tuple(self._events)


def check(events: tuple[Event, ...], bookings: list[dict],
          writes: list[dict]) -> tuple[Anomaly, ...]:
    """Check a finished history against the record. ``bookings``: ``/admin/bookings`` rows
    (with ``created_key``); ``writes``: ``/admin/events`` rows. Returns every anomaly found."""
    anomalies: list[Anomaly] = []
    request_of_key = {e.key: e.request for e in events if e.phase is Phase.INVOKE}
    by_ref = {b["ref"]: b for b in bookings}

    made: dict[str, list[str]] = defaultdict(list)
    for b in bookings:
        if b.get("created_key") is None:
            continue  # seeded before the run
        request = request_of_key.get(b["created_key"])
        if request is None:
            anomalies.append(Anomaly(AnomalyKind.PHANTOM_WRITE, f"booking {b['ref']} was "
                                     f"created under key {b['created_key']!r}, never invoked"))
            continue
        made[request].append(b["ref"])
    for request, refs in sorted(made.items()):
        if len(refs) > 1:
            anomalies.append(Anomaly(AnomalyKind.DUPLICATE_BOOKING,
                                     f"logical request {request} made {len(refs)} bookings: "
                                     f"{sorted(refs)}"))

    written = {(w["ref"], w["version"]) for w in writes}
    for e in events:
        if e.phase is not Phase.OK or e.ref is None:
            continue
        if e.ref not in by_ref or (e.version is not None and (e.ref, e.version) not in written):
            anomalies.append(Anomaly(AnomalyKind.LOST_BOOKING, f"{e.f} {e.request} was "
                                     f"acknowledged as {e.ref} v{e.version}, which the record "
                                     "does not hold"))

    for w in writes:
        if w["op"] in ("create", "seed"):
            continue
        if w["expected_version"] is not None and w["expected_version"] != w["prior_version"]:
            anomalies.append(Anomaly(AnomalyKind.STALE_COMMIT, f"{w['op']} of {w['ref']} "
                                     f"built on v{w['expected_version']} was committed over "
                                     f"v{w['prior_version']} (key {w['key']!r})"))
        if w["key"] is not None and w["key"] not in request_of_key:
            anomalies.append(Anomaly(AnomalyKind.PHANTOM_WRITE, f"{w['op']} of {w['ref']} under "
                                     f"key {w['key']!r} was never invoked"))
    return tuple(anomalies)
