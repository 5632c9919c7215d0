"""The six invariants and the severity gates, checked on every call (docs/call-scripts.md).

Pure functions over :class:`~audio.calls.evidence.Evidence`: the trace says what the agent
did and when; the sandbox's records (read before and after, never written) say what really
happened. Each check returns violations as readable lines, prefixed by what they break.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agent.core.ops import Op
from agent.core.trace import TraceEvent
from audio.calls.evidence import Evidence

BOOKING_FIELDS = ("asset", "visit_date", "visit_window", "visit_time", "units", "site",
                  "contact", "booking_ref")
QUERY_FIELDS = ("asset", "family", "procedure", "configuration", "region", "language",
                "item_category", "opened")
RECORD_OF_FIELD = {"asset": "asset", "visit_date": "date", "visit_window": "window",
                   "visit_time": "time", "site": "site"}
OPS = tuple(Op)  # every booking op (agent/core/ops.py): none is dispatched unasked
LATE_AUDIO_S = 0.25  # playback may end this long after an invalidation (scheduling slack)


def _fields(event: TraceEvent) -> set[str]:
    fields = event.get("fields") or ()
    return {fields} if isinstance(fields, str) else set(fields)


def _reads(event: TraceEvent | None, default: tuple[str, ...]) -> set[str]:
    """The fields a dependent read, from its vector when the event carries one."""
    if event is not None:
        for key in ("reads", "basis", "vector", "dependency_vector"):
            value = event.get(key)
            if isinstance(value, dict):
                return set(value)
            if value:
                return {item[0] if isinstance(item, (list, tuple)) else
                        item.get("field", "") if isinstance(item, dict) else str(item)
                        for item in value}
    return set(default)


def _changes_between(events: tuple[TraceEvent, ...], start: int, end: int, question: str,
                     reads: set[str]) -> list[TraceEvent]:
    return [e for e in events[start + 1:end]
            if e.name == "field_accepted" and e.question == question and _fields(e) & reads]


def _last_before(events, name: str, request: str | None,
                 before: int) -> tuple[int, TraceEvent]:
    for i in range(before - 1, -1, -1):
        if events[i].name == name and events[i].request == request:
            return i, events[i]
    return -1, None  # type: ignore[return-value]


def _first(events, name: str, request: str | None, after: int = -1) -> tuple[int, TraceEvent]:
    for i, e in enumerate(events):
        if i > after and e.name == name and e.request == request:
            return i, e
    return -1, None  # type: ignore[return-value]


# ----------------------------------------------------------------------------- 1 and 2
def stale_dispatch(ev: Evidence) -> list[str]:
    """1. Nothing is dispatched after a field it reads changed since it was built."""
    out = []
    events = ev.events
    for i, e in enumerate(events):
        if e.name != "action_dispatched":
            continue
        built, proposal = _last_before(events, "action_proposed", e.request, i)
        if proposal is None:
            built = _built_at(events, i, e)
        reads = _reads(proposal, BOOKING_FIELDS) | _reads(e, ()) if proposal else \
            _reads(e, BOOKING_FIELDS)
        for change in _changes_between(events, built, i, e.question, reads):
            out.append(f"invariant 1 (no stale dispatch): {e.get('op')} {e.request} was "
                       f"dispatched at t={e.t:.2f}s after {sorted(_fields(change) & reads)} "
                       f"changed at t={change.t:.2f}s (revision {change.revision})")
            break
    return out


def _built_at(events, index: int, dispatched: TraceEvent) -> int:
    """Without a proposal event: the last event at the revision the action was built on."""
    based = dispatched.get("based_on_revision", dispatched.revision)
    for j in range(index - 1, -1, -1):
        if events[j].question == dispatched.question and events[j].revision <= based:
            return j
    return -1


def stale_work(ev: Evidence, final_fields: dict[str, dict[str, Any]]) -> list[str]:
    """2. Work made stale in flight is cancelled or reconciled; no booking stands on a
    superseded value unless the caller re-confirmed it."""
    out = []
    events = ev.events
    for i, e in enumerate(events):
        if e.name != "action_dispatched":
            continue
        end, _ = _terminal(events, e.request, i)
        for change in _changes_between(events, i, end if end >= 0 else len(events), e.question,
                                       _reads(e, BOOKING_FIELDS)):
            j = events.index(change)
            resolved = any(x.request == e.request and x.name in ("action_cancelled",
                                                                  "action_reconciled")
                           for x in events[j:])
            if not resolved:
                out.append(f"invariant 2 (stale work resolved): {e.get('op')} {e.request} "
                           f"became stale at t={change.t:.2f}s and was never cancelled or "
                           "reconciled")
            break
    if not ev.named("handoff"):  # a handoff passes residual effects to a person explicitly
        for booking in changed_bookings(ev):
            for field, key in RECORD_OF_FIELD.items():
                current = final_fields.get(field)
                if not current or current.get("status") != "confirmed" or \
                        current.get("value") is None or booking.get(key) in (None, ""):
                    continue
                if str(booking.get(key)) != str(current["value"]) and current["version"] > 1:
                    out.append(f"invariant 2 (stale work resolved): booking {booking.get('ref')}"
                               f" stands on {key}={booking.get(key)} but the caller's current "
                               f"{field} is {current['value']} (version {current['version']})")
    return out


def _terminal(events, request, after: int) -> tuple[int, TraceEvent | None]:
    """The event that ended ``request``: committed, cancelled, or failed (refused by the
    booking system or given up, so nothing of it stands: a change after it makes nothing
    stale)."""
    for i in range(after + 1, len(events)):
        e = events[i]
        if e.request == request and e.name in ("action_committed", "action_cancelled",
                                                "action_failed"):
            return i, e
    return -1, None


def changed_bookings(ev: Evidence) -> list[dict[str, Any]]:
    """Bookings created or changed during the call, not cancelled, by anyone but staff."""
    before = {b.get("ref"): b for b in ev.bookings_before}
    return [b for b in ev.bookings
            if b.get("status") != "cancelled" and b.get("ref") not in ev.staff_refs
            and before.get(b.get("ref"), {}).get("version") != b.get("version")]


# ----------------------------------------------------------------------------- 3
def duplicates(ev: Evidence) -> list[str]:
    """3. One logical request never produces two bookings (nor two notifications)."""
    out = []
    before = {b.get("ref") for b in ev.bookings_before}
    created = [b for b in ev.bookings if b.get("ref") not in before]
    keys = Counter(b.get("created_key") for b in created if b.get("created_key"))
    out += [f"invariant 3 (no duplicates): request {k} produced {n} bookings"
            for k, n in keys.items() if n > 1]
    slots = Counter((b.get("account"), b.get("asset"), b.get("date"), b.get("window"),
                     b.get("time")) for b in created if b.get("status") != "cancelled")
    out += [f"invariant 3 (no duplicates): {n} bookings for account {s[0]} asset {s[1]} on "
            f"{s[2]} {s[3] or ''}{' ' + s[4] if s[4] else ''} were created in one call"
            for s, n in slots.items() if n > 1]
    old = {n.get("id") for n in ev.notifications_before}
    notes = Counter((n.get("booking_ref"), n.get("booking_version"), n.get("kind"))
                    for n in ev.notifications if n.get("id") not in old)
    out += [f"invariant 3 (no duplicates): {c} {k[2]} notifications for booking {k[0]} "
            f"version {k[1]}" for k, c in notes.items() if c > 1]
    out += [f"invariant 3 (no duplicates): notification {n.get('id')} delivered "
            f"{n.get('deliveries')} times" for n in ev.notifications
            if n.get("id") not in old and (n.get("deliveries") or 0) > 1]
    return out


# ----------------------------------------------------------------------------- 4
def false_confirmations(ev: Evidence, account: str,
                        history: list[dict[str, Any]] | None = None) -> list[str]:
    """4. Every confirmation_spoken matches a verified record (ref, version, values)."""
    out = []
    records = {b.get("ref"): b for b in ev.bookings}
    for e in ev.named("confirmation_spoken"):
        ref, version = e.get("ref"), e.get("version")
        record = records.get(ref)
        label = f"invariant 4 (no false confirmation): confirmation at t={e.t:.2f}s"
        if record is None:
            out.append(f"{label} names booking {ref!r}, which the sandbox does not hold")
            continue
        if record.get("account") != account:
            out.append(f"{label} names booking {ref} of another account")
            continue
        if version is None or int(version) > int(record.get("version") or 0):
            out.append(f"{label} claims version {version} of {ref}; the sandbox has version "
                       f"{record.get('version')}")
            continue
        if int(version) == int(record.get("version") or 0):
            wrong = [f"{k}={e.get(k)} (record: {record.get(k)})"
                     for k in ("asset", "date", "window", "time", "status", "units", "site")
                     if e.get(k) is not None and str(e.get(k)) != str(record.get(k))]
            if wrong:
                out.append(f"{label} of {ref} v{version} says {', '.join(wrong)}")
    return out


# ----------------------------------------------------------------------------- 5 and 6
def stale_audio(ev: Evidence) -> list[str]:
    """5. No speech of a generation is heard after that generation was invalidated."""
    out = []
    for e in ev.named("generation_invalidated"):
        stale = int(e.get("invalidated", e.generation))
        for h in ev.heard:
            if h.generation > stale or not h.heard_chars or h.started is None:
                continue
            if (h.stopped or 0.0) > e.t + LATE_AUDIO_S and h.started < (h.stopped or 0.0):
                out.append(f"invariant 5 (no stale audio): generation {h.generation} kept "
                           f"playing {(h.stopped or 0) - e.t:.2f}s after it was invalidated "
                           f"at t={e.t:.2f}s")
    return out


def stale_evidence(ev: Evidence) -> list[str]:
    """6. No evidence is admitted whose field versions or scope changed since it was asked."""
    out = []
    events = ev.events
    for i, e in enumerate(events):
        if e.name != "retrieval_admitted":
            continue
        if e.get("would_be") not in (None, "current"):  # a shadow gate let it through
            out.append(f"invariant 6 (no stale evidence): {e.request} was admitted at "
                       f"t={e.t:.2f}s although the gate found it {e.get('would_be')}")
            continue
        if e.disposition not in (None, "current"):
            out.append(f"invariant 6 (no stale evidence): {e.request} admitted although it was "
                       f"{e.disposition}")
            continue
        start, started = _first(events, "retrieval_started", e.request)
        reads = _reads(started, QUERY_FIELDS) | _reads(e, ())
        changes = _changes_between(events, start, i, e.question, reads)
        if changes:
            out.append(f"invariant 6 (no stale evidence): {e.request} was admitted at "
                       f"t={e.t:.2f}s after {sorted(_fields(changes[0]) & reads)} changed at "
                       f"t={changes[0].t:.2f}s")
        elif started is not None and started.question != e.question:
            out.append(f"invariant 6 (no stale evidence): {e.request} asked for question "
                       f"{started.question} was admitted into {e.question}")
    for i, e in enumerate(events):  # evidence that went stale after admission, spoken anyway
        if e.name != "answer_spoken" or e.request is None:
            continue
        start, started = _first(events, "retrieval_started", e.request)
        if started is None:
            continue
        changes = _changes_between(events, start, i, e.question, _reads(started, QUERY_FIELDS))
        if changes:
            out.append(f"invariant 6 (no stale evidence): the answer of {e.request} was spoken "
                       f"at t={e.t:.2f}s although {sorted(_fields(changes[0]))} changed at "
                       f"t={changes[0].t:.2f}s, after its retrieval started")
    return out


# ----------------------------------------------------------------------------- severity
def unauthorized(ev: Evidence) -> list[str]:
    """Side effects without the caller's go-ahead, or on another account's records."""
    out = []
    events = ev.events
    for i, e in enumerate(events):
        if e.name != "action_dispatched" or e.get("op") not in OPS:
            continue
        asked = [j for j in range(i) if events[j].name == "confirmation_requested"]
        answered = asked and any(x.name == "user_turn_final" for x in events[asked[-1]:i])
        if not answered:
            out.append(f"SEVERITY unauthorized action: {e.get('op')} {e.request} dispatched "
                       "without a confirmation the caller answered")
    return out


def wrong_party(ev: Evidence, account: str) -> list[str]:
    before = {b.get("ref"): b for b in ev.bookings_before}
    out = [f"SEVERITY wrong-party action: booking {b.get('ref')} of account {b.get('account')} "
           f"was changed during the call" for b in ev.bookings
           if b.get("account") != account and b.get("ref") not in ev.staff_refs
           and before.get(b.get("ref")) != b]
    old = {n.get("id") for n in ev.notifications_before}
    out += [f"SEVERITY wrong-party action: notification {n.get('id')} sent to account "
            f"{n.get('account')}" for n in ev.notifications
            if n.get("id") not in old and n.get("account") != account]
    return out
