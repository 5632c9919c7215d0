"""Validating a proposal against the caller's authority and the call's rules.

A :class:`~agent.understanding.proposals.Proposal` is what the caller *seems* to say. This module
turns it into ledger operations, or into rejections that leave the ledger unchanged: an asset or
booking of another account, a contact that is another person, a date in the past, a time outside the
windows, a scope value (configuration, region) that only the trusted asset record may supply.
Uncertain or ambiguous values become UNRESOLVED fields that keep every candidate.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from agent.core.caller import CallerProfile
from agent.core.ledger import FieldOp, LedgerSnapshot
from agent.core.names import (
    ASSET,
    BOOKING_REF,
    CONFIGURATION,
    CONTACT,
    REGION,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.core.ports import BookingPort, BookingRecord
from agent.service.slots import DateCheck, check_date, window_of_time
from agent.understanding.proposals import CorrectionKind, Proposal

# Scope values that come only from trusted records, never from what the caller says.
TRUSTED_ONLY = (CONFIGURATION, REGION, "tenant", "account", "roles", "subject")


@dataclass(frozen=True, slots=True)
class Rejection:
    field: str
    reason: str  # "authority:<what>", "past_date", "malformed", "outside_hours", "trusted_scope"
    value: str | None = None


@dataclass(frozen=True, slots=True)
class Validated:
    ops: tuple[FieldOp, ...]
    rejections: tuple[Rejection, ...]
    records: tuple[BookingRecord, ...] = ()  # bookings the turn identified (verified owner)
    # Ids the caller said that are not on their account, by field ("asset": "V-200"): the
    # agent says so when it asks which one they mean. Never applied to anything.
    heard: tuple[tuple[str, str], ...] = ()


async def validate(p: Proposal, snap: LedgerSnapshot, caller: CallerProfile, now: datetime,
                   port: BookingPort, source: str, *, uncertain: bool,
                   sure: Collection[str] = ()) -> Validated:
    """Operations for one proposal, or rejections. Reads the booking port for referents only.
    ``uncertain``: the turn was not heard clearly, and its values are held back to be asked
    about, except those of the fields in ``sure`` (a yes heard clearly settled them)."""
    ops: list[FieldOp] = []
    rejections: list[Rejection] = []
    records: list[BookingRecord] = []
    heard: list[tuple[str, str]] = []
    given = {s.field for s in p.slots if s.value or s.candidates}
    for slot in p.slots:
        name, value = slot.field, slot.value
        candidates = tuple(dict.fromkeys(c for c in ((value,) if value else ()) + slot.candidates
                                         if c))
        if name in TRUSTED_ONLY:
            rejections.append(Rejection(name, "trusted_scope", value))
            continue
        if len(candidates) > 1 and name in (VISIT_WINDOW, VISIT_TIME):
            # A choice never offers what cannot be booked: "Wednesday the night in the
            # morning" (misheard from "the ninth") is not asked "Did you mean night or
            # morning?", only about the morning.
            bookable = tuple(c for c in candidates if _bookable(name, c))
            candidates = bookable or candidates
        if name == ASSET and not value and candidates and _UNKNOWN_ID.fullmatch(slot.text) \
                and caller.asset(slot.text) is None:
            heard.append((name, slot.text))  # said, not on the account: asked about, not applied
        if (uncertain and name not in sure) or len(slot.candidates) > 1 or (
                p.correction is CorrectionKind.AMBIGUOUS_VALUE and not value):
            # Safe uncertainty (seed 001 cases 5 and 7): keep both candidates, ask.
            if candidates:
                ops.append(FieldOp.unresolve(name, source, candidates, slot.confidence))
            continue
        if not value:
            if candidates:
                # "V-200" heard, P-200 owned: ask "Did you mean P-200?" (one candidate to check).
                ops.append(FieldOp.unresolve(name, source, candidates, slot.confidence))
            continue
        problem = await _check(name, value, caller, now, port, records)
        if problem is not None:
            rejections.append(problem)
            continue
        ops.append(FieldOp.set(name, value, source, confidence=slot.confidence))
        if name == VISIT_TIME and VISIT_WINDOW not in given:
            ops.append(FieldOp.set(VISIT_WINDOW, window_of_time(value) or "", source))
        if name == VISIT_WINDOW and VISIT_TIME not in given:
            current_time = snap.value(VISIT_TIME)
            if current_time and window_of_time(current_time) != value:
                ops.append(FieldOp.clear(VISIT_TIME, source))
            held = snap.get(VISIT_TIME)
            if held is not None and not held.usable and held.candidates:
                # "At 7?" "The afternoon": the window settles an hour left open - the one
                # reading inside it, else no exact time (a window is enough for a booking).
                inside = [c for c in held.candidates if window_of_time(c) == value]
                ops.append(FieldOp.set(VISIT_TIME, inside[0], source) if len(inside) == 1
                           else FieldOp.clear(VISIT_TIME, source))
    for name, value in p.withdrawn:
        # "not Thursday": withdraw it only if it is what we hold; a replacement wins.
        if name in given or (value and snap.value(name) not in (value, None)):
            continue
        if snap.get(name) is not None or value is not None and ASSET not in given \
                and value == caller.booking_default(name, snap.value(ASSET)):
            # ("the wrong address": the default; not "the Canal Street one, not Harbour
            # Road", where the site ruled out goes with the asset it names)
            ops.append(FieldOp.unresolve(name, source))
    for name in p.cleared:
        if name in TRUSTED_ONLY:
            rejections.append(Rejection(name, "trusted_scope"))
        elif snap.get(name) is not None and name not in given:
            ops.append(FieldOp.clear(name, source))
    if p.referent:
        ref_ops, problem = await _referent(p.referent, caller, port, source, records)
        if problem is not None:
            rejections.append(problem)
        ops += [op for op in ref_ops if op.name not in given]
    return Validated(tuple(ops), tuple(rejections), tuple(records), tuple(heard))


# An asset id as the proposer writes one it heard but did not find on the account ("V-200").
_UNKNOWN_ID = re.compile(r"[A-Z]+-\d+")


def _bookable(name: str, value: str) -> bool:
    """A window or time a visit can be booked for (what :func:`_check` lets through)."""
    if name == VISIT_WINDOW:
        return value in ("morning", "afternoon")
    return window_of_time(value) is not None


async def _check(name: str, value: str, caller: CallerProfile, now: datetime,
                 port: BookingPort, records: list[BookingRecord]) -> Rejection | None:
    if name == ASSET and caller.asset(value) is None:
        return Rejection(name, "authority:asset_not_on_account", value)
    if name == CONTACT and value != caller.subject:
        return Rejection(name, "authority:another_person", value)
    if name == VISIT_DATE:
        verdict = check_date(value, now.date())
        if verdict is DateCheck.PAST:
            return Rejection(name, "past_date", value)
        if verdict is DateCheck.MALFORMED:
            return Rejection(name, "malformed", value)
    if name == VISIT_TIME and not _bookable(name, value):
        return Rejection(name, "outside_hours", value)
    if name == VISIT_WINDOW and not _bookable(name, value):
        # "Thursday evening", "at night": a part of the day the visits do not cover
        return Rejection(name, "outside_hours" if value in ("evening", "night") else "malformed",
                         value)
    if name == UNITS and not (value.isdigit() and 1 <= int(value) <= 100):
        return Rejection(name, "malformed", value)
    if name == BOOKING_REF:
        return await _own_booking(value, caller, port, records)
    return None


async def _own_booking(ref: str, caller: CallerProfile, port: BookingPort,
                       records: list[BookingRecord]) -> Rejection | None:
    try:
        record = await port.get(ref)
    except Exception:  # noqa: BLE001 - an unreadable booking is not the caller's to change
        record = None
    if record is None:
        return Rejection(BOOKING_REF, "unknown_booking", ref)
    if record.account != caller.account:
        return Rejection(BOOKING_REF, "authority:another_account", ref)
    records.append(record)
    return None


async def _referent(referent: str, caller: CallerProfile, port: BookingPort, source: str,
                    records: list[BookingRecord]) -> tuple[list[FieldOp], Rejection | None]:
    """"The other pump" / "my other booking": the identity now meant, no history copied."""
    if caller.asset(referent) is not None:
        return [FieldOp.set(ASSET, referent, source)], None
    problem = await _own_booking(referent, caller, port, records)
    if problem is not None:
        if problem.reason == "unknown_booking":
            return [], Rejection(ASSET, "authority:asset_not_on_account", referent)
        return [], problem
    record = records[-1]
    return [FieldOp.set(BOOKING_REF, record.ref, source),
            FieldOp.set(ASSET, record.asset, f"tool:booking:{record.ref}")], None
