"""The JSON form of a :class:`~agent.understanding.proposals.Proposal`, and its JSON Schema.

A proposer outside this process (a language model behind an OpenAI-compatible server) answers
in this form; :func:`proposal_from_json` reads it back, strictly: a reply that is not exactly
this form is refused with :class:`ProposalJSONError`, which says where and why. Pure: no I/O.
The form is pinned in ``docs/proposal-json.md``; ``amend proposer schema`` prints
:data:`SCHEMA`.

Every key is always present (``null`` or ``[]`` when it does not apply), so the schema is
usable in the strict structured-output modes of model servers, which require that.

``slots[].text`` and ``withdrawn[].text`` quote the caller's words the value came from.
They are what validation checks a value against (``agent/understanding/model_checks.py``):
a value whose words the turn does not contain changes nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent.core import names
from agent.understanding.proposals import (
    CorrectionKind,
    Intent,
    Proposal,
    SlotRole,
    SlotValue,
)

# The fields a proposal may name (agent/core/names.py), in the ledger's order.
FIELDS: tuple[str, ...] = (
    names.ASSET, names.VISIT_DATE, names.VISIT_WINDOW, names.VISIT_TIME, names.UNITS,
    names.SITE, names.CONTACT, names.BOOKING_REF, names.LANGUAGE, names.FAMILY,
    names.PROCEDURE, names.CONFIGURATION, names.REGION, names.ITEM_CATEGORY, names.OPENED)
WINDOWS = ("morning", "afternoon")
_TIME = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # fromisoformat also takes 2026-W49-4
_LANGUAGE = re.compile(r"^[a-z]{2}$")
MAX_TEXT = 200  # characters of any string value: a reply is a reading of one turn

_NULLABLE_STRING = {"type": ["string", "null"], "maxLength": MAX_TEXT}
_FIELD = {"type": "string", "enum": list(FIELDS)}
_QUOTE = {"type": "string", "maxLength": MAX_TEXT,
          "description": "the caller's words the value came from, as said in the turn"}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://amend.invalid/schemas/proposal-1.json",
    "title": "Amend proposal",
    "description": "One reading of one caller turn: what the caller seems to want and which "
                   "values they give, withdraw or clear. A proposal is never accepted as is: "
                   "the application validates it against what the call holds.",
    "type": "object",
    "additionalProperties": False,
    "required": ["intent", "slots", "correction", "withdrawn", "cleared", "referent",
                 "authority", "go_ahead"],
    "properties": {
        "intent": {"type": "string", "enum": [i.value for i in Intent]},
        "slots": {
            "type": "array", "maxItems": 12,
            "items": {
                "type": "object", "additionalProperties": False,
                "required": ["field", "value", "candidates", "role", "text"],
                "properties": {
                    "field": _FIELD,
                    "value": {**_NULLABLE_STRING, "description":
                              "visit_date: ISO YYYY-MM-DD; visit_window: morning|afternoon; "
                              "visit_time: HH:MM (24 h); units: a whole number; opened: "
                              "yes|no; null when candidates lists two or more, or, for "
                              "an asset id heard that is not on the account, the one it "
                              "may be"},
                    "candidates": {"type": "array", "maxItems": 6,
                                   "items": {"type": "string", "maxLength": MAX_TEXT}},
                    "role": {"type": "string", "enum": [r.value for r in SlotRole
                                                        if r in (SlotRole.NEW, SlotRole.TO)]},
                    "text": _QUOTE,
                },
            },
        },
        "correction": {"type": "string", "enum": [c.value for c in CorrectionKind]},
        "withdrawn": {
            "type": "array", "maxItems": 12,
            "items": {
                "type": "object", "additionalProperties": False,
                "required": ["field", "value", "text"],
                "properties": {"field": _FIELD,
                               "value": {"type": "string", "maxLength": MAX_TEXT},
                               "text": _QUOTE},
            },
        },
        "cleared": {"type": "array", "maxItems": 12, "items": _FIELD},
        "referent": _NULLABLE_STRING,
        "authority": _NULLABLE_STRING,
        "go_ahead": {"type": "boolean"},
    },
}


@dataclass(frozen=True, slots=True)
class Reading:
    """A proposal read from its JSON form, with the words quoted for each withdrawn value
    (a ``Proposal`` keeps only ``(field, value)`` pairs; slots keep theirs in ``text``)."""

    proposal: Proposal
    withdrawn_text: tuple[str, ...] = ()


class ProposalJSONError(ValueError):
    """A reply that is not a proposal in the JSON form. ``where`` is the key path."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


def parse_reply(text: str) -> Reading:
    """The proposal in a model's reply text (one JSON object, nothing else)."""
    if not isinstance(text, str) or not text.strip():
        raise ProposalJSONError("", "the reply is empty; expected one JSON object")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProposalJSONError("", f"the reply is not JSON ({exc.msg} at character "
                                    f"{exc.pos}); expected one JSON object") from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, nesting too deep
        raise ProposalJSONError("", f"the reply cannot be read as JSON ({type(exc).__name__})"
                                    f"; expected one JSON object") from None
    return reading_from_json(data)


def proposal_from_json(data: object) -> Proposal:
    """Read the JSON form strictly (every key, no other key, every value in its shape)."""
    return reading_from_json(data).proposal


def reading_from_json(data: object) -> Reading:
    """:func:`proposal_from_json`, keeping the words quoted for withdrawn values."""
    obj = _object(data, "", SCHEMA["required"])
    intent = Intent(_enum(obj["intent"], "intent", [i.value for i in Intent]))
    correction = CorrectionKind(_enum(obj["correction"], "correction",
                                      [c.value for c in CorrectionKind]))
    slots = tuple(_slot(item, f"slots[{i}]")
                  for i, item in enumerate(_array(obj["slots"], "slots")))
    withdrawn = tuple(_withdrawn(item, f"withdrawn[{i}]")
                      for i, item in enumerate(_array(obj["withdrawn"], "withdrawn")))
    cleared = tuple(_enum(f, f"cleared[{i}]", FIELDS)
                    for i, f in enumerate(_array(obj["cleared"], "cleared")))
    go_ahead = obj["go_ahead"]
    if not isinstance(go_ahead, bool):
        raise ProposalJSONError("go_ahead", f"expected true or false, not {go_ahead!r}")
    return Reading(Proposal(
        intent=intent, slots=slots, correction=correction,
        withdrawn=tuple((field, value) for field, value, _ in withdrawn), cleared=cleared,
        referent=_string(obj["referent"], "referent", nullable=True),
        authority=_string(obj["authority"], "authority", nullable=True),
        go_ahead=go_ahead, reason="model"), tuple(text for _, _, text in withdrawn))


def proposal_to_json(proposal: Proposal, withdrawn_text: tuple[str, ...] = ()
                     ) -> dict[str, Any]:
    """The JSON form of ``proposal`` (what a model would answer for the same reading);
    ``withdrawn_text`` quotes the words of each withdrawn value, in order ("" if unknown)."""
    quotes = list(withdrawn_text) + [""] * (len(proposal.withdrawn) - len(withdrawn_text))
    return {
        "intent": proposal.intent.value,
        "slots": [{"field": s.field, "value": s.value, "candidates": list(s.candidates),
                   "role": s.role.value if s.role in (SlotRole.NEW, SlotRole.TO)
                   else SlotRole.NEW.value, "text": s.text}
                  for s in proposal.slots],
        "correction": proposal.correction.value,
        "withdrawn": [{"field": f, "value": v, "text": q}
                      for (f, v), q in zip(proposal.withdrawn, quotes, strict=False)],
        "cleared": list(proposal.cleared),
        "referent": proposal.referent,
        "authority": proposal.authority,
        "go_ahead": proposal.go_ahead,
    }


# -- shapes ----------------------------------------------------------------------------------
def _object(data: object, where: str, required: list[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProposalJSONError(where, f"expected a JSON object, not {_kind(data)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise ProposalJSONError(where, f"missing key(s) {', '.join(missing)}")
    extra = sorted(str(k) for k in data if k not in required)
    if extra:
        raise ProposalJSONError(where, f"unknown key(s) {', '.join(extra)}")
    return data


def _array(data: object, where: str, most: int = 12) -> list[Any]:
    if not isinstance(data, list):
        raise ProposalJSONError(where, f"expected a list, not {_kind(data)}")
    if len(data) > most:  # the schema's maxItems
        raise ProposalJSONError(where, f"{len(data)} items; at most {most}")
    return data


def _string(data: object, where: str, *, nullable: bool = False) -> str | None:
    if data is None and nullable:
        return None
    if not isinstance(data, str):
        raise ProposalJSONError(where, f"expected a string{' or null' if nullable else ''}, "
                                       f"not {_kind(data)}")
    if len(data) > MAX_TEXT:
        raise ProposalJSONError(where, f"{len(data)} characters; at most {MAX_TEXT}")
    return data


def _enum(data: object, where: str, allowed: Any) -> str:
    value = _string(data, where)
    if value not in allowed:
        raise ProposalJSONError(where, f"{value!r} is not one of {', '.join(allowed)}")
    return str(value)


def _slot(data: object, where: str) -> SlotValue:
    obj = _object(data, where, ["field", "value", "candidates", "role", "text"])
    field = _enum(obj["field"], f"{where}.field", FIELDS)
    value = _string(obj["value"], f"{where}.value", nullable=True)
    candidates = tuple(_value(field, _string(c, f"{where}.candidates[{i}]") or "",
                              f"{where}.candidates[{i}]")
                       for i, c in enumerate(_array(obj["candidates"], f"{where}.candidates", 6)))
    if value is None and len(candidates) < (1 if field == names.ASSET else 2):
        raise ProposalJSONError(f"{where}.value", "null needs two or more candidates (one "
                                                  "for an asset heard but not on the account)")
    role = SlotRole(_enum(obj["role"], f"{where}.role", (SlotRole.NEW.value, SlotRole.TO.value)))
    text = _string(obj["text"], f"{where}.text") or ""
    return SlotValue(field, None if value is None else _value(field, value, f"{where}.value"),
                     text=text, candidates=candidates, role=role)


def _withdrawn(data: object, where: str) -> tuple[str, str, str]:
    obj = _object(data, where, ["field", "value", "text"])
    field = _enum(obj["field"], f"{where}.field", FIELDS)
    value = _value(field, _string(obj["value"], f"{where}.value") or "", f"{where}.value")
    return field, value, _string(obj["text"], f"{where}.text") or ""


def _value(field: str, value: str, where: str) -> str:
    """``value`` in the shape ``field`` takes (docs/understanding.md, "Fields and values")."""
    value = value.strip()
    if not value:
        raise ProposalJSONError(where, "an empty value")
    if field == names.VISIT_DATE:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ProposalJSONError(where, f"{value!r} is not a real date in YYYY-MM-DD "
                                           f"form") from None
        if not _DATE.match(value):
            raise ProposalJSONError(where, f"{value!r}: write the date as YYYY-MM-DD")
    elif field == names.VISIT_WINDOW and value not in WINDOWS:
        raise ProposalJSONError(where, f"{value!r} is not one of {', '.join(WINDOWS)}")
    elif field == names.VISIT_TIME and not _TIME.match(value):
        raise ProposalJSONError(where, f"{value!r} is not a 24-hour time HH:MM")
    elif field == names.UNITS and not (value.isascii() and value.isdigit()
                                       and 0 < int(value) <= 999):
        raise ProposalJSONError(where, f"{value!r} is not a whole number from 1 to 999")
    elif field == names.OPENED and value not in ("yes", "no"):
        raise ProposalJSONError(where, f"{value!r} is not yes or no")
    elif field == names.LANGUAGE and not _LANGUAGE.match(value):
        raise ProposalJSONError(where, f"{value!r} is not a two-letter language code")
    return value


def _kind(data: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(data),
                                                                      type(data).__name__)


__all__ = ["FIELDS", "SCHEMA", "ProposalJSONError", "Reading", "parse_reply",
           "proposal_from_json", "proposal_to_json", "reading_from_json"]
