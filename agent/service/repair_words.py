"""The sentences of the repair ladder (:mod:`agent.service.repair`): a question that came back
unanswered, asked another way (a closed choice, a yes/no, the offer of a person).

Pure string building.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from agent.core.ops import spec
from agent.service.spoken import spoken_date, spoken_day, spoken_time, spoken_when

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
    if field in (PROCEDURE, ITEM_CATEGORY):
        return (f"Is it about {option}?",)
    if field == VISIT_WINDOW:
        return (f"Shall I put you down for {option.partition(',')[0]}?",)
    if field in (OPENED, "target", "confirmation", "person"):
        return None
    return (f"Shall I put {option}?",)


def confirm_plainly(op: str, args: Mapping[str, str]) -> str:
    """The action on the table in one yes/no sentence (the yes/no step of a confirmation)."""
    return spec(op).ask.format(asset=args.get("asset"), ref=args.get("ref"),
                               when=spoken_when(args))


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
