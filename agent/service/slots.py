"""Booking slots: what a visit needs, what it defaults, what to ask next (docs/call-scripts.md).

Pure functions over a :class:`~agent.core.ledger.LedgerSnapshot` and the trusted
:class:`~agent.core.caller.CallerProfile`. Defaults (units, site, contact, account) are never asked
for; they fill the action's arguments unless the caller gave a value.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from agent.core.caller import CallerProfile
from agent.core.fields import FieldStatus
from agent.core.ledger import LedgerSnapshot
from agent.core.names import ASSET, CONTACT, SITE, UNITS, VISIT_DATE, VISIT_TIME, VISIT_WINDOW

# Every field a booking action reads. A change to any of them makes a draft stale, even one
# the draft had no value for yet (a time given after the proposal changes the booking).
BOOKING_READS = (ASSET, VISIT_DATE, VISIT_WINDOW, VISIT_TIME, UNITS, SITE, CONTACT)
WINDOWS = {"morning": (8, 12), "afternoon": (13, 17)}


class DateCheck(StrEnum):
    OK = "ok"
    PAST = "past"  # never booked: the agent says so and asks
    MALFORMED = "malformed"  # not an ISO date: the proposer gave something unusable


def check_date(value: str, today: date) -> DateCheck:
    try:
        day = date.fromisoformat(value)
    except (TypeError, ValueError):
        return DateCheck.MALFORMED
    return DateCheck.PAST if day < today else DateCheck.OK


def window_of_time(value: str) -> str | None:
    """The window an exact time ("14:00") falls in, or None when it is outside both."""
    try:
        hour, minute = (int(part) for part in value.split(":")[:2])
    except ValueError:
        return None
    for name, (start, end) in WINDOWS.items():
        if (start, 0) <= (hour, minute) <= (end, 0):
            return name
    return None


def implied_asset(caller: CallerProfile) -> str | None:
    """The asset a booking means when the caller has exactly one."""
    return caller.assets[0].id if len(caller.assets) == 1 else None


def missing_slot(snapshot: LedgerSnapshot) -> str | None:
    """The one field to ask for next, or None when a visit can be proposed.

    An unresolved field (withdrawn, ambiguous or uncertain) is asked for like a missing one.
    A field whose candidates disagree ("2 or 10 units") is asked first: that is where the
    doubt lies. Units and site have defaults, so they are asked only when left unresolved.
    A time withdrawn after its window was given is asked for: the window held is the one the
    withdrawn time implied ("at 1 pm", then "it's the time that's wrong"), not one the caller
    chose; a window given with or after the withdrawal is enough ("not at 2, the morning").
    """
    for name in BOOKING_READS:
        record = snapshot.get(name)
        if record is not None and not record.usable and len(record.candidates) > 1:
            return name
    for name in (ASSET, VISIT_DATE):
        record = snapshot.get(name)
        if record is None or not record.usable:
            return name
    window, time = snapshot.get(VISIT_WINDOW), snapshot.get(VISIT_TIME)
    if not ((window is not None and window.usable) or (time is not None and time.usable)):
        return VISIT_WINDOW
    if (time is not None and time.status is FieldStatus.UNRESOLVED and window is not None
            and window.updated_at < time.updated_at):
        return VISIT_TIME  # the time withdrawn ("it's the time that's wrong") left its window
    for name in (UNITS, SITE):
        record = snapshot.get(name)
        if record is not None and record.status is FieldStatus.UNRESOLVED:
            return name  # never fall back to the default over a value the caller half-gave
            # or disowned ("you've got the wrong address")
    return None


def present_reads(snapshot: LedgerSnapshot) -> tuple[str, ...]:
    """The booking fields that hold a usable value: an action's basis for ``may_commit``."""
    return tuple(name for name in BOOKING_READS
                 if (record := snapshot.get(name)) is not None and record.usable)


def booking_args(snapshot: LedgerSnapshot, caller: CallerProfile) -> dict[str, str]:
    """The create payload from the ledger plus the contract's defaults. A fresh dict."""
    asset_id = snapshot.value(ASSET) or ""
    args = {
        "account": caller.account,
        "asset": asset_id,
        "date": snapshot.value(VISIT_DATE) or "",
        "units": snapshot.value(UNITS) or caller.booking_default(UNITS, asset_id) or "",
        "site": snapshot.value(SITE) or caller.booking_default(SITE, asset_id) or "",
        "contact": snapshot.value(CONTACT) or caller.subject,
    }
    time = _usable(snapshot, VISIT_TIME)
    window = _usable(snapshot, VISIT_WINDOW) or (window_of_time(time) if time else None)
    if window:
        args["window"] = window
    if time:
        args["time"] = time
    return args


def change_args(snapshot: LedgerSnapshot, caller: CallerProfile) -> dict[str, str]:
    """The fields a reschedule changes: date, window and time as the ledger holds them now."""
    full = booking_args(snapshot, caller)
    return {k: full[k] for k in ("date", "window", "time", "units", "site") if k in full}


def _usable(snapshot: LedgerSnapshot, name: str) -> str | None:
    record = snapshot.get(name)
    return record.value if record is not None and record.usable else None


def held_together(snapshot: LedgerSnapshot, field: str) -> tuple[tuple[str, str], ...]:
    """``field`` and every other value held back, one candidate each, from the same turn.

    An unclear turn ("Thursday morning, not Wednesday" heard with low confidence) holds all
    its values at once; they are read back together in one check, so one "yes" settles them.
    Returns () when ``field`` was held alone (then it is asked about on its own).
    """
    held = snapshot.get(field)
    if held is None or held.usable or len(held.candidates) != 1:
        return ()
    together = [(field, held.candidates[0])] + [
        (name, record.candidates[0]) for name, record in snapshot.fields
        if name != field and not record.usable and len(record.candidates) == 1
        and record.updated_at == held.updated_at]
    return tuple(together) if len(together) > 1 else ()
