"""Sentences the agent speaks. Pure string building; the first sentence of each is short.

Anything that claims a side effect is built here from a verified
:class:`~agent.core.ports.BookingRecord` only (``booked``, ``rescheduled``, ``cancelled``).
Sentences about intended or pending work say so ("Shall I ...", "I've requested ...").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from agent.core.caller import CallerProfile
from agent.core.names import (
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
from agent.core.ports import BookingRecord
from agent.service.slots import window_of_time

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

def ask_for(field: str, caller: CallerProfile, candidates: tuple[str, ...] = (), *,
            heard: str | None = None) -> tuple[str, ...]:
    """One targeted question for one field. With candidates, offer them (never pick one).

    ``heard``: an asset id the caller said that is not on their account ("V-200"); the
    question says so before it offers the candidates.
    """
    if field == ASSET:
        return ask_asset(caller, candidates, heard)
    if field == VISIT_TIME and candidates:
        return ask_time(candidates)
    if candidates:
        shown = [spoken_date(c) if field == VISIT_DATE else c for c in candidates]
        unit = " units" if field == UNITS else ""
        if len(shown) == 1:  # one value heard unclearly: check it, there is no "which"
            return ("Sorry, I didn't catch that clearly.", f"Did you mean {shown[0]}{unit}?")
        return ("Sorry, which one?", f"Did you mean {' or '.join(shown)}{unit}?")
    if field in (CONFIGURATION, REGION):
        return ask_asset(caller)
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


def ask_time(candidates: tuple[str, ...]) -> tuple[str, ...]:
    """Which time: an hour heard two ways ("at 7": 07:00 or 19:00) or several times.

    When no reading falls in a visit window the agent says so and offers the windows, rather
    than asking the caller to choose between two times it cannot book.
    """
    shown = [spoken_time(c) for c in candidates]
    if len(shown) == 1:
        return ("Sorry, I didn't catch that clearly.", f"Did you mean {shown[0]}?")
    if not any(window_of_time(c) for c in candidates):
        hours = dict.fromkeys(s.partition(" in the ")[0] for s in shown)
        both = "both" if len(shown) == 2 else "all"
        return (f"Sorry, we can't come at {' or '.join(hours)}.",
                f"{' and '.join(shown)[0].upper()}{' and '.join(shown)[1:]} are {both} outside "
                "our visit hours: we visit from 8 to 12 and from 1 to 5.",
                "What time would suit you?")
    return ("Sorry, which time?", f"Did you mean {' or '.join(shown)}?")


def assets_named(caller: CallerProfile, ids: Sequence[str]) -> tuple[str | None, str]:
    """The noun the assets ``ids`` share ("compressor"; None when their kinds differ) and the
    ids read as a choice: "P-100 or P-200", or "the gearbox G-7 or the compressor C-7"."""
    nouns = [caller.noun_for(i) for i in ids]
    shared = nouns[0] if nouns and len(set(nouns)) == 1 else None
    said = list(ids) if shared or not ids else [f"the {n} {i}" for n, i in zip(nouns, ids,
                                                                                strict=True)]
    if len(said) <= 2:
        return shared, " or ".join(said)
    return shared, ", ".join(said[:-1]) + f" or {said[-1]}"


def ask_asset(caller: CallerProfile, candidates: tuple[str, ...] = (),
              heard: str | None = None) -> tuple[str, ...]:
    """Which of the caller's assets: named by their kind ("Which compressor is it?").

    With one candidate it is a check ("Did you mean P-200?"); with ``heard`` (an id not on the
    account) it first says that id is not theirs. Never names an asset of another account.
    """
    ids = candidates or tuple(a.id for a in caller.assets)
    noun, choice = assets_named(caller, ids)
    first = f"I don't see {heard} on your account." if heard else None
    if len(candidates) == 1:
        return (first or "Sorry, I didn't catch that clearly.", f"Did you mean {candidates[0]}?")
    if not ids:
        return ((first,) if first else ()) + ("Which unit is it?",)
    if len(ids) > 4 and not candidates:  # a long list is no question: ask for the id
        return ((first,) if first else ()) + (f"Which {noun or 'one'} is it?",
                                              "Could you tell me its id?")
    if first:
        return (first, f"Which {noun} is it: {choice}?" if noun else f"Which one: {choice}?")
    if candidates:
        return (f"Sorry, which {noun or 'one'}?", f"Did you mean {choice}?")
    if noun is None:
        return ("Which one is it?", f"{choice[0].upper()}{choice[1:]}?")
    return (f"Which {noun} is it?", f"I have {choice} on your account.")


def check_values(values: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """One check of several values heard unclearly in one turn: never pick, read them back."""
    return ("Sorry, I didn't catch that clearly.", f"Did you mean {heard_line(values)}?")


def heard_line(values: tuple[tuple[str, str], ...]) -> str:
    """Several values heard in one turn, read back as one phrase ("Thursday 3 December, in
    the morning, 2 units")."""
    named = dict(values)
    when = {"date": named.get(VISIT_DATE), "window": named.get(VISIT_WINDOW),
            "time": named.get(VISIT_TIME)}
    parts = [spoken_when(when)] if when["date"] else [
        v for k, v in values if k in (VISIT_WINDOW, VISIT_TIME)]
    parts += [f"{v} units" if k == UNITS else v for k, v in values
              if k not in (VISIT_DATE, VISIT_WINDOW, VISIT_TIME)]
    return ", ".join(parts)


def ask_which_field(fields: tuple[str, ...]) -> tuple[str, ...]:
    names = " or the ".join(f.replace("_", " ") for f in fields)
    return ("Which one do you want to change?", f"The {names}?")


# -- repair: a question that came back unanswered, asked another way (agent/service/repair.py) --

# What the agent is after when a question about a field keeps failing ("getting the date right").
_TROUBLE = {
    "confirmation": "getting a clear yes or no",
    "request": "understanding what you need",
    "target": "working out what you want to change",
    "person": "getting a clear yes or no",
    OPENED: "finding out whether it has been opened",
}
_NOUNS = {VISIT_DATE: "date", VISIT_WINDOW: "time of day", VISIT_TIME: "time",
          BOOKING_REF: "booking", UNITS: "number of units", "site": "address",
          PROCEDURE: "procedure", FAMILY: "procedure", ITEM_CATEGORY: "item",
          LANGUAGE: "language"}
_OTHER = {VISIT_DATE: "another day", VISIT_TIME: "another time", UNITS: "another number",
          BOOKING_REF: "another booking"}


def asset_noun(caller: CallerProfile) -> str:
    """What the caller calls their assets, when they all share one kind ("unit" otherwise)."""
    kinds = {a.noun for a in caller.assets}
    return kinds.pop() if len(kinds) == 1 else "unit"


def spoken_day(value: str, today: date | None = None, *, month: bool = False) -> str:
    """"Friday the 4th" ("today, Thursday the 3rd"; ``month``: "Friday the 1st of January")."""
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return value
    n = day.day
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    said = f"{day.strftime('%A')} the {n}{suffix}" + (f" of {day.strftime('%B')}" if month else "")
    if today is not None and (day - today).days in (0, 1):
        return f"{'today' if day == today else 'tomorrow'}, {said}"
    return said


def spoken_time(value: str) -> str:
    """"7 in the morning", "2:30 in the afternoon", "noon" for "07:00", "14:30", "12:00"."""
    try:
        hour, minute = (int(part) for part in value.split(":")[:2])
    except ValueError:
        return value
    if (hour, minute) == (12, 0):
        return "noon"
    half = "in the morning" if hour < 12 else "in the afternoon" if hour < 18 else \
        "in the evening"
    shown = hour % 12 or 12
    return f"{shown}:{minute:02d} {half}" if minute else f"{shown} {half}"


def repair_value(field: str, value: str, *, today: date | None = None, month: bool = False,
                 bookings: Mapping[str, tuple[str, str]] | None = None) -> str:
    """One option of a repair question, spelled out the way it is said."""
    if field == VISIT_DATE:
        return spoken_day(value, today, month=month)
    if field == VISIT_TIME:
        return spoken_time(value)
    if field == VISIT_WINDOW:
        hours = {"morning": "between 8 and 12", "afternoon": "between 1 and 5"}.get(value)
        return f"the {value}, {hours}" if hours else value
    if field == UNITS:
        return "1 unit" if value == "1" else f"{value} units"
    if field == BOOKING_REF:
        asset, day = (bookings or {}).get(value, ("", ""))
        detail = (f" for {asset}" if asset else "") + (f" on {spoken_date(day)}" if day else "")
        return f"booking {value}{detail}"
    if field == "target":
        return f"the {value.replace('_', ' ')}"
    return value


def repair_choice(field: str, options: tuple[str, ...], *, suggested: bool) -> tuple[str, ...]:
    """A closed choice naming the options (already spelled out by :func:`repair_value`).

    ``suggested``: the options are the agent's suggestions (the next days), not values the
    caller said, so they are offered rather than checked.
    """
    if field in ("confirmation", "person"):
        return ("Shall I go ahead with that?" if field == "confirmation"
                else "Shall I put you through to a colleague?", "Just say yes or no.")
    if field == OPENED:
        return ("Has it been opened, yes or no?",)
    if field == "request":
        return ("Sorry, I didn't catch what you need.",
                "Would you like to book, move or cancel a service visit, or ask a maintenance "
                "question?")
    if len(options) == 1:
        return (f"Is it {options[0]}, or {_OTHER.get(field, 'something else')}?",)
    joined = ", ".join(options[:-1]) + f", or {options[-1]}"
    if field == "target":
        return (f"Do you want to change {joined}?",)
    if suggested:
        return (f"Would {joined} suit you?",)
    return (f"Is it {joined}?",)


def repair_yes_no(field: str, option: str) -> tuple[str, ...] | None:
    """A yes/no question on the most likely value (spelled out); None when there is none."""
    if field == "request":
        return ("Is it about booking a service visit?",)
    if field in (ASSET, CONFIGURATION, REGION):
        return (f"Is it {option}?",)
    if field == BOOKING_REF:
        return (f"Do you mean {option}?",)
    if field == VISIT_WINDOW:
        return (f"Shall I put you down for {option.partition(',')[0]}?",)
    if field in (OPENED, "target", "confirmation", "person"):
        return None
    return (f"Shall I put {option}?",)


def confirm_plainly(op: str, args: Mapping[str, str]) -> str:
    """The action on the table in one yes/no sentence (the yes/no step of a confirmation)."""
    if op == "create_booking":
        return f"Shall I book the visit for {args.get('asset')} on {spoken_when(args)}?"
    if op == "reschedule_booking":
        return f"Shall I move booking {args.get('ref')} to {spoken_when(args)}?"
    return f"Shall I cancel booking {args.get('ref')}?"


def repair_rephrase(field: str, noun: str, nth: int) -> tuple[str, ...]:
    """The question asked another way when no options can be named (``nth`` 1 or 2)."""
    if field in ("confirmation", "person"):
        return (("Sorry, I need a yes or a no.", "Shall I go ahead?") if nth == 1
                else ("Sorry, I still need a yes or a no.", "Should I go ahead, yes or no?"))
    if nth == 1:
        return (f"Sorry, I still don't have the {noun}.", "Could you say it another way?")
    return (f"I still need the {noun}.", "Could you say just that, in a few words?")


def trouble(field: str, noun: str) -> str:
    return _TROUBLE.get(field) or (f"working out which {noun} you mean"
                                   if field in (ASSET, CONFIGURATION, REGION)
                                   else f"getting the {noun} right")


def repair_offer(field: str, noun: str) -> tuple[str, ...]:
    """After two failed repairs: say why, and offer a person."""
    return (f"I'm having trouble {trouble(field, noun)}.",
            "Would you like me to put you through to a colleague?")


def repair_retry(sentences: tuple[str, ...]) -> tuple[str, ...]:
    """The caller declined a person: the question once more (without its apology)."""
    plain = tuple(s for s in sentences if not s.startswith("Sorry")) or sentences
    return ("Okay, let's try once more.", *plain)


def repair_give_up(field: str, noun: str) -> tuple[str, ...]:
    """The try after a declined offer failed too: said right before the handoff."""
    return (f"Sorry, I'm still having trouble {trouble(field, noun)}.",)


def field_noun(field: str, caller: CallerProfile) -> str:
    if field in (ASSET, CONFIGURATION, REGION):
        return asset_noun(caller)
    return _NOUNS.get(field, field.replace("_", " "))


def confirm_create(args: Mapping[str, str], caller: CallerProfile | None = None
                   ) -> tuple[str, ...]:
    units = args.get("units") or "1"
    # More than one unit is read back: it was said, perhaps after a clarification.
    count = "" if units == "1" else f", for {units} units"
    return ("Let me check I have this right.",
            f"A service visit for {_noun(caller, args.get('asset'))} {args.get('asset')} on "
            f"{spoken_when(args)}{count}.",
            "Shall I book it?")


def confirm_reschedule(record: BookingRecord, changes: Mapping[str, str],
                       caller: CallerProfile | None = None) -> tuple[str, ...]:
    before, after = spoken_when(_record_values(record)), spoken_when(changes)
    site = changes.get("site")
    if before == after and site and site != record.site:
        # Only the address changes: naming the same time twice would hide what moves.
        return ("Let me check.",
                f"Change the address of booking {record.ref} for "
                f"{_noun(caller, record.asset)} {record.asset} on "
                f"{after} to {site}.",
                "Shall I go ahead?")
    return ("Let me check.",
            f"Move booking {record.ref} for {_noun(caller, record.asset)} {record.asset} "
            f"from {before} to {after}.",
            "Shall I go ahead?")


def confirm_cancel(record: BookingRecord, caller: CallerProfile | None = None
                   ) -> tuple[str, ...]:
    return ("Just to confirm.",
            f"Cancel booking {record.ref} for {_noun(caller, record.asset)} {record.asset} on "
            f"{spoken_when(_record_values(record))}?")


# -- verified results (from the system of record only) -----------------------------------------

def booked(record: BookingRecord, caller: CallerProfile | None = None) -> tuple[str, ...]:
    return ("It's booked.",
            f"{_noun(caller, record.asset).capitalize()} {record.asset}, "
            f"{spoken_when(_record_values(record))}.",
            f"Your reference is {record.ref}.")


def rescheduled(record: BookingRecord, caller: CallerProfile | None = None
                ) -> tuple[str, ...]:
    return ("It's moved.",
            f"Booking {record.ref} for {_noun(caller, record.asset)} {record.asset} is now on "
            f"{spoken_when(_record_values(record))}.",
            "A change notice is on its way to you.")


def cancelled(record: BookingRecord, caller: CallerProfile | None = None
              ) -> tuple[str, ...]:
    return ("It's cancelled.",
            f"Booking {record.ref} for {_noun(caller, record.asset)} {record.asset} on "
            f"{spoken_when(_record_values(record))} no longer stands.")


def _noun(caller: CallerProfile | None, asset_id: str | None) -> str:
    """What the caller calls the asset ("pump", "compressor"); "unit" when it is not known."""
    return caller.noun_for(asset_id) if caller is not None else "unit"


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
