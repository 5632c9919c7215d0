"""Sentences the agent speaks. Pure string building; the first sentence of each is short.

Anything that claims a side effect is built here from a verified
:class:`~agent.ports.BookingRecord` only (``booked``, ``rescheduled``, ``cancelled``).
Sentences about intended or pending work say so ("Shall I ...", "I've requested ...").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from agent.caller import CallerProfile
from agent.ports import BookingRecord
from agent.proposals import (
    ASSET,
    BOOKING_REF,
    CONFIGURATION,
    FAMILY,
    ITEM_CATEGORY,
    LANGUAGE,
    OPENED,
    PROCEDURE,
    REGION,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)

LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish",
                  "it": "Italian", "nl": "Dutch"}


def spoken_date(value: str | None) -> str:
    """"Thursday 3 December" for an ISO date; the raw text when it is not one."""
    if not value:
        return "no date"
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return value
    return f"{day.strftime('%A')} {day.day} {day.strftime('%B')}"


def spoken_when(values: Mapping[str, str | None]) -> str:
    """"Thursday 3 December, in the morning" or "..., at 14:00"."""
    when = spoken_date(values.get("date"))
    if values.get("time"):
        return f"{when}, at {values['time']}"
    if values.get("window"):
        return f"{when}, in the {values['window']}"
    return when


def language_name(code: str | None) -> str:
    return LANGUAGE_NAMES.get(code or "", code or "the original language")


# -- questions -------------------------------------------------------------------------------

def ask_for(field: str, caller: CallerProfile, candidates: tuple[str, ...] = ()) -> tuple[str, ...]:
    """One targeted question for one field. With candidates, offer them (never pick one)."""
    if candidates:
        shown = [spoken_date(c) if field == VISIT_DATE else c for c in candidates]
        unit = " units" if field == UNITS else ""
        if len(shown) == 1:  # one value heard unclearly: check it, there is no "which"
            return ("Sorry, I didn't catch that clearly.", f"Did you mean {shown[0]}{unit}?")
        return ("Sorry, which one?", f"Did you mean {' or '.join(shown)}{unit}?")
    if field in (ASSET, CONFIGURATION, REGION):
        pumps = " or ".join(a.id for a in caller.assets) or "your pump"
        return ("Which pump is it?", f"I have {pumps} on your account.")
    questions = {
        VISIT_DATE: ("Which day would suit you?",),
        VISIT_WINDOW: ("Morning or afternoon?",),
        VISIT_TIME: ("What time would suit you?",),
        BOOKING_REF: ("Which booking do you mean?",),
        PROCEDURE: ("Which procedure is it about?",),
        FAMILY: ("Which procedure is it about?",),
        ITEM_CATEGORY: ("Which item do you want to return?",),
        OPENED: ("Has it been opened?",),
        UNITS: ("How many units?",),
        LANGUAGE: ("Which language would you like?",),
    }
    return questions.get(field, (f"Could you tell me the {field.replace('_', ' ')}?",))


def check_values(values: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """One check of several values heard unclearly in one turn: never pick, read them back."""
    named = dict(values)
    when = {"date": named.get(VISIT_DATE), "window": named.get(VISIT_WINDOW),
            "time": named.get(VISIT_TIME)}
    parts = [spoken_when(when)] if when["date"] else [
        v for k, v in values if k in (VISIT_WINDOW, VISIT_TIME)]
    parts += [f"{v} units" if k == UNITS else v for k, v in values
              if k not in (VISIT_DATE, VISIT_WINDOW, VISIT_TIME)]
    return ("Sorry, I didn't catch that clearly.", f"Did you mean {', '.join(parts)}?")


def ask_which_field(fields: tuple[str, ...]) -> tuple[str, ...]:
    names = " or the ".join(f.replace("_", " ") for f in fields)
    return ("Which one do you want to change?", f"The {names}?")


def confirm_create(args: Mapping[str, str]) -> tuple[str, ...]:
    units = args.get("units") or "1"
    # More than one unit is read back: it was said, perhaps after a clarification.
    count = "" if units == "1" else f", for {units} units"
    return ("Let me check I have this right.",
            f"A service visit for pump {args.get('asset')} on {spoken_when(args)}{count}.",
            "Shall I book it?")


def confirm_reschedule(record: BookingRecord, changes: Mapping[str, str]) -> tuple[str, ...]:
    before, after = spoken_when(_record_values(record)), spoken_when(changes)
    site = changes.get("site")
    if before == after and site and site != record.site:
        # Only the address changes: naming the same time twice would hide what moves.
        return ("Let me check.",
                f"Change the address of booking {record.ref} for pump {record.asset} on "
                f"{after} to {site}.",
                "Shall I go ahead?")
    return ("Let me check.",
            f"Move booking {record.ref} for pump {record.asset} from {before} to {after}.",
            "Shall I go ahead?")


def confirm_cancel(record: BookingRecord) -> tuple[str, ...]:
    return ("Just to confirm.",
            f"Cancel booking {record.ref} for pump {record.asset} on "
            f"{spoken_when(_record_values(record))}?")


# -- verified results (from the system of record only) -----------------------------------------

def booked(record: BookingRecord) -> tuple[str, ...]:
    return ("It's booked.",
            f"Pump {record.asset}, {spoken_when(_record_values(record))}.",
            f"Your reference is {record.ref}.")


def rescheduled(record: BookingRecord) -> tuple[str, ...]:
    return ("It's moved.",
            f"Booking {record.ref} for pump {record.asset} is now on "
            f"{spoken_when(_record_values(record))}.",
            "A change notice is on its way to you.")


def cancelled(record: BookingRecord) -> tuple[str, ...]:
    return ("It's cancelled.",
            f"Booking {record.ref} for pump {record.asset} on "
            f"{spoken_when(_record_values(record))} no longer stands.")


def from_plan(op: str, args: Mapping[str, str]) -> tuple[str, ...]:
    """The ``confirm_from_plan`` known-answer fault: claims the PLAN happened. Never use else."""
    verb = {"create_booking": "booked", "reschedule_booking": "moved",
            "cancel_booking": "cancelled"}.get(op, "done")
    return (f"It's {verb}.", f"Pump {args.get('asset')}, {spoken_when(args)}.")


def _record_values(record: BookingRecord) -> dict[str, str | None]:
    return {"date": record.date, "window": record.window, "time": record.time}


# -- pending, waiting and residual effects ---------------------------------------------------

def requested(op: str) -> tuple[str, ...]:
    noun = {"create_booking": "the booking", "reschedule_booking": "the change",
            "cancel_booking": "the cancellation"}.get(op, "it")
    return (f"I've requested {noun}.", "I'll tell you as soon as the booking system confirms.")


def notice_already_sent(record: BookingRecord) -> tuple[str, ...]:
    return ("One thing first.",
            f"The confirmation for {spoken_when(_record_values(record))} was already sent "
            "to you, and I can't take it back.",
            "If we change the booking, you'll get a change notice.")


def staff_changed(latest: BookingRecord, wanted: Mapping[str, str]) -> tuple[str, ...]:
    return ("Someone on our team just changed this booking.",
            f"It's now on {spoken_when(_record_values(latest))}.",
            f"Do you still want it moved to {spoken_when(wanted)}?")


def values_line(fields: Mapping[str, str]) -> str:
    shown = []
    for name in (ASSET, VISIT_DATE, VISIT_WINDOW, VISIT_TIME):
        if fields.get(name):
            shown.append(spoken_date(fields[name]) if name == VISIT_DATE else fields[name])
    return ", ".join(shown)
