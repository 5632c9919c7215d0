"""A script's ``expect`` block checked against the system of record and the trace.

Pure functions over :class:`~audio.calls.evidence.Evidence`. Each returns the list of violated
expectations as one readable line each; an empty list means every expectation held.
"""

from __future__ import annotations

import re
from typing import Any

from audio.calls.evidence import Evidence
from audio.calls.player import Heard
from audio.calls.script import CallScript

Entry = tuple[tuple[str, Any], ...]
# Notification keys a script uses for the record's own (a booking record has its own version).
# What expect.outcome reads: the registry's decision and the answer spoken from it.
OUTCOME_EVENTS = frozenset({"registry_resolved", "answer_spoken"})
ALIASES = {"booking": "booking_ref", "ref": "booking_ref", "version": "booking_version"}


def same(expected: Any, actual: Any) -> bool:
    """Compare as ISO text: dates, times and numbers by what they say, not their YAML type."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(expected).lower() == str(actual).lower()
    left, right = str(expected).strip(), str(actual).strip()
    if left == right:
        return True
    times = re.compile(r"^\d{1,2}:\d{2}(:00)?$")
    if times.match(left) and times.match(right):  # "9:00" == "09:00" == "09:00:00"
        return left.zfill(5)[:5] == right.zfill(5)[:5]
    return False


def entry_matches(entry: Entry, record: dict[str, Any]) -> bool:
    for key, expected in entry:
        actual = record.get(key, record.get(ALIASES.get(key, key)))
        if not same(expected, actual):
            return False
    return True


def show(entry: Entry | dict[str, Any], keys: tuple[str, ...] = ()) -> str:
    items = entry.items() if isinstance(entry, dict) else entry
    return "{" + ", ".join(f"{k}: {v}" for k, v in items if not keys or k in keys) + "}"


def one_to_one(entries: tuple[Entry, ...], records: list[dict[str, Any]]) -> tuple[list[int],
                                                                                    list[int]]:
    """Maximum bipartite matching (order-free). Returns unmatched entries and records."""
    owner: dict[int, int] = {}  # record index -> entry index

    def assign(i: int, seen: set[int]) -> bool:
        for j, record in enumerate(records):
            if j in seen or not entry_matches(entries[i], record):
                continue
            seen.add(j)
            if j not in owner or assign(owner[j], seen):
                owner[j] = i
                return True
        return False

    matched = {i for i in range(len(entries)) if assign(i, set())}
    unmatched_entries = [i for i in range(len(entries)) if i not in matched]
    unmatched_records = [j for j in range(len(records)) if j not in owner]
    return unmatched_entries, unmatched_records


def _set_match(name: str, entries: tuple[Entry, ...], records: list[dict[str, Any]],
               keys: tuple[str, ...]) -> list[str]:
    missing, extra = one_to_one(entries, records)
    out = [f"expect.{name}: nothing matches {show(entries[i])}" for i in missing]
    out += [f"expect.{name}: unexpected {show(records[j], keys)}" for j in extra]
    return out


BOOKING_SHOWN = ("ref", "account", "asset", "date", "window", "time", "status", "version")
NOTE_SHOWN = ("kind", "account", "booking_ref", "booking_version", "contact")


def caller_bookings(script: CallScript, evidence: Evidence) -> list[dict[str, Any]]:
    return [b for b in evidence.bookings
            if b.get("account") == script.caller.account and b.get("status") != "cancelled"]


def check_expectations(script: CallScript, evidence: Evidence) -> list[str]:
    exp = script.expect
    out: list[str] = []
    if exp.bookings is not None:
        out += _set_match("bookings", exp.bookings, caller_bookings(script, evidence),
                          BOOKING_SHOWN)
    for entry in exp.absent_bookings:
        hits = [b for b in evidence.bookings if entry_matches(entry, b)]
        out += [f"expect.absent_bookings: {show(entry)} exists: {show(b, BOOKING_SHOWN)}"
                for b in hits]
    if exp.notifications is not None:
        notes = [n for n in notification_view(evidence)
                 if n.get("account") == script.caller.account]
        out += _set_match("notifications", exp.notifications, notes, NOTE_SHOWN)
    heard_confirmations = confirmations_heard(evidence)
    for entry in exp.confirmed:
        if not any(entry_matches(entry, values) for values in heard_confirmations):
            out.append(f"expect.confirmed: the caller never heard in full a confirmation "
                       f"rendered from a verified record matching {show(entry)}")
    out += _fields(exp.fields, evidence.fields)
    heard = heard_text(evidence.heard)
    out += [f"expect.heard.include: /{p}/ not in what the caller heard"
            for p in exp.heard_include if not re.search(p, heard, re.IGNORECASE)]
    out += [f"expect.heard.exclude: /{p}/ was heard"
            for p in exp.heard_exclude if re.search(p, heard, re.IGNORECASE)]
    asked = {f for e in evidence.named("clarification_requested") for f in _fields_of(e)}
    out += [f"expect.clarified: no clarification_requested named {f!r}"
            for f in exp.clarified if f not in asked]
    if exp.handoff is not None:
        handed = bool(evidence.named("handoff"))
        if handed != exp.handoff:
            out.append(f"expect.handoff: expected {exp.handoff}, the agent "
                       f"{'did' if handed else 'did not'} hand off")
    cited = cited_revisions(evidence)
    out += [f"expect.citations.include: {c!r} not cited in any answer the caller heard"
            for c in exp.citations_include if c not in cited]
    out += [f"expect.citations.exclude: {c!r} was cited in an answer the caller heard"
            for c in exp.citations_exclude if c in cited]
    if exp.turns is not None:
        taken = [str(e.get("text", "")) for e in evidence.named("user_turn_final")]
        if len(taken) != exp.turns:
            shown = "; ".join(repr(t) for t in taken) or "none"
            out.append(f"expect.turns: expected {exp.turns} caller turns, the agent took "
                       f"{len(taken)}: {shown}")
    if exp.outcome is not None:
        # a question's outcome: the registry's decision and the answer spoken from it, never a
        # search's own (retrieval_completed's "timeout" is how the search went, not the answer)
        outcomes = [e.get("outcome") for e in evidence.events
                    if e.name in OUTCOME_EVENTS and e.get("outcome") is not None]
        last = outcomes[-1] if outcomes else None
        if not same(exp.outcome, last):
            out.append(f"expect.outcome: expected {exp.outcome}, the last question resolved "
                       f"to {last}")
    return out


def _fields(expected, actual: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for name, spec in expected:
        record = actual.get(name)
        for key, want in spec:
            if key == "value":
                have = record.get("value") if record else None
                if not same(want, have):
                    out.append(f"expect.fields.{name}.value: expected {want}, ledger has {have}")
            elif key == "status":
                have = record.get("status") if record else None
                if want != have:
                    out.append(f"expect.fields.{name}.status: expected {want}, ledger has "
                               f"{have}")
            elif key == "min_version":
                have = record.get("version", 0) if record else 0
                if have < want:
                    out.append(f"expect.fields.{name}.min_version: expected at least {want}, "
                               f"ledger has version {have}")
    return out


def _fields_of(event) -> tuple[str, ...]:
    fields = event.get("fields") or ()
    if isinstance(fields, str):
        fields = (fields,)
    single = event.get("field")
    return tuple(fields) + ((single,) if single else ())


def heard_text(heard: tuple[Heard, ...]) -> str:
    ordered = sorted((h for h in heard if h.heard_chars), key=lambda h: h.started or 0.0)
    return " ".join(h.heard.strip() for h in ordered)


def fully_heard(heard: tuple[Heard, ...], generation: int) -> bool:
    """The statement sentences (not a trailing question) of that generation were all heard."""
    for h in heard:
        if h.generation == generation and h.heard_chars:
            statements = [i for i, s in enumerate(h.sentences) if not s.rstrip().endswith("?")]
            count = (statements[-1] + 1) if statements else len(h.sentences)
            return h.heard_through(count) if h.sentences else h.completed
    return False


def confirmations_heard(evidence: Evidence) -> list[dict[str, Any]]:
    """The record values behind every confirmation_spoken the caller heard in full."""
    out = []
    for event in evidence.named("confirmation_spoken"):
        if fully_heard(evidence.heard, int(event.get("spoken_generation", event.generation))):
            values = dict(event.data)
            values.setdefault("ref", event.get("ref"))
            out.append(values)
    return out


def cited_revisions(evidence: Evidence) -> set[str]:
    cited: set[str] = set()
    for event in evidence.named("answer_spoken"):
        heard = [h for h in evidence.heard if h.generation == event.generation]
        if any(h.heard_through(1) for h in heard):
            cited.update(str(c) for c in (event.get("citations") or ()))
    return cited


def notification_view(evidence: Evidence) -> list[dict[str, Any]]:
    """Notifications joined with their booking (asset, date, window, time) for matching."""
    bookings = {b.get("ref"): b for b in evidence.bookings}
    out = []
    for note in evidence.notifications:
        view = dict(note)
        booking = bookings.get(note.get("booking_ref"), {})
        for key in ("asset", "date", "window", "time"):
            view.setdefault(key, booking.get(key))
        out.append(view)
    return out
