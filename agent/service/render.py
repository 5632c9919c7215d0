"""Sentences the agent speaks: questions, confirmations, verified results, pending effects.

Pure string building; the first sentence of each is short. How single values are said is in
:mod:`agent.service.spoken`; the repair ladder's sentences are in :mod:`agent.service.repair_words`.

Anything that claims a side effect is built here from a verified
:class:`~agent.core.ports.BookingRecord` only (``booked``, ``rescheduled``, ``cancelled``).
Sentences about intended or pending work say so ("Shall I ...", "I've requested ...").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
    SITE,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.core.ops import spec
from agent.core.ports import BookingRecord
from agent.service.slots import window_of_time
from agent.service.spoken import heard_line, spoken_date, spoken_time, spoken_when

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
        if field == BOOKING_REF:  # the caller's bookings that fit the visit: nothing misheard
            return ("Which booking do you mean?", f"Is it {', or '.join(shown)}?")
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
        SITE: ("Which address should the engineer come to?",),
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


def ask_which_field(fields: tuple[str, ...]) -> tuple[str, ...]:
    names = " or the ".join(f.replace("_", " ") for f in fields)
    return ("Which one do you want to change?", f"The {names}?")


# -- confirmations (the questions before an action) ----------------------------------------


def confirm_create(args: Mapping[str, str], caller: CallerProfile | None = None
                   ) -> tuple[str, ...]:
    units = args.get("units") or "1"
    # More than one unit is read back: it was said, perhaps after a clarification.
    count = "" if units == "1" else f", for {units} units"
    return ("Let me check I have this right.",
            f"A service visit for {_noun(caller, args.get('asset'))} {args.get('asset')} on "
            f"{spoken_when(args)}{count}{_elsewhere(caller, args.get('asset'), args.get('site'))}.",
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
            f"{_when_and_where(record, caller)}.",
            f"Your reference is {record.ref}.")


def rescheduled(record: BookingRecord, caller: CallerProfile | None = None
                ) -> tuple[str, ...]:
    return ("It's moved.",
            f"Booking {record.ref} for {_noun(caller, record.asset)} {record.asset} is now on "
            f"{_when_and_where(record, caller)}.",
            "A change notice is on its way to you.")


def cancelled(record: BookingRecord, caller: CallerProfile | None = None
              ) -> tuple[str, ...]:
    return ("It's cancelled.",
            f"Booking {record.ref} for {_noun(caller, record.asset)} {record.asset} on "
            f"{spoken_when(_record_values(record))} no longer stands.")


def visits_held(records: Sequence[BookingRecord], caller: CallerProfile) -> tuple[str, ...]:
    """The caller's bookings as the booking system holds them, soonest first (at most three
    named): what a question about their visits is answered with."""
    if not records:
        return ("I don't see a visit booked on your account.",
                "I can book one if you tell me what needs a visit and when.")
    said = [f"booking {r.ref} for {_noun(caller, r.asset)} {r.asset} on "
            f"{_when_and_where(r, caller)}" for r in records[:3]]
    more = len(records) - len(said)
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + f", and {said[-1]}"
    count = "one visit" if len(records) == 1 else f"{len(records)} visits"
    return (f"You have {count} booked: {listed}.",
            *((f"And {more} more after that.",) if more else ()))


def _noun(caller: CallerProfile | None, asset_id: str | None) -> str:
    """What the caller calls the asset ("pump", "compressor"); "unit" when it is not known."""
    return caller.noun_for(asset_id) if caller is not None else "unit"


def _elsewhere(caller: CallerProfile | None, asset_id: str | None, site: str | None) -> str:
    """", at 7 Dock Street, Rotterdam" when the visit goes to another address than the one the
    caller's account holds for the asset (a site the caller gave); "" otherwise."""
    if not site or caller is None:
        return ""
    own = next((asset.site for asset in caller.assets if asset.id == asset_id), None)
    return "" if site == own else f", at {site}"


def _when_and_where(record: BookingRecord, caller: CallerProfile | None) -> str:
    return spoken_when(_record_values(record)) + _elsewhere(caller, record.asset, record.site)


def _record_values(record: BookingRecord) -> dict[str, str | None]:
    return {"date": record.date, "window": record.window, "time": record.time}


# -- pending, waiting and residual effects ---------------------------------------------------

def requested(op: str) -> tuple[str, ...]:
    return (f"I've requested {spec(op).requested}.",
            "I'll tell you as soon as the booking system confirms.")


def notice_already_sent(record: BookingRecord) -> tuple[str, ...]:
    """The notice of ``record``'s version that went out: its confirmation when it was made,
    a change notice for every version after."""
    notice = "confirmation" if record.version <= 1 else "change notice"
    return ("One thing first.",
            f"The {notice} for {spoken_when(_record_values(record))} was already sent "
            "to you, and I can't take it back.",
            "If we change the booking, you'll get a change notice.")


def staff_changed(latest: BookingRecord, wanted: Mapping[str, str]) -> tuple[str, ...]:
    return ("Someone on our team just changed this booking.",
            f"It's now on {spoken_when(_record_values(latest))}.",
            f"Do you still want it moved to {spoken_when(wanted)}?")
