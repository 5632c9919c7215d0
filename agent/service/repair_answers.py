"""The caller's turn read against the repair question it answers (:mod:`agent.service.repair`).

A plain "yes" to a question that proposed values gives those values; "the second one" picks an
option of a closed choice. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agent.core.names import OPENED
from agent.service.repair import CONFIRMATION, PERSON, REQUEST, TARGET, Asked, Step
from agent.understanding.proposals import Intent, Proposal, SlotValue


def read_answer(asked: Asked | None, p: Proposal, text: str) -> Proposal:
    """The caller's turn read against the question it answers.

    A plain "yes" to a question that proposed values (a yes/no on the most likely value, a
    choice with one option) gives those values; to "Is it about booking a service visit?" it is
    a booking request. "The first one" / "the second" picks an option of a closed choice. Any
    other turn is left as understood.
    """
    if asked is None:
        return p
    field = asked.question.field
    given = {s.field for s in p.slots if s.value is not None or s.candidates}
    if p.intent is Intent.YES and asked.proposes:
        if field == REQUEST:
            return replace(p, intent=Intent.BOOK, reason=p.reason + "; yes to a repair question")
        extra = tuple(SlotValue(name, value, text) for name, value in asked.proposes
                      if name not in given)
        if extra:
            return replace(p, intent=Intent.INFORM, slots=p.slots + extra,
                           reason=p.reason + "; yes to a repair question")
    if asked.step is Step.CLOSED_CHOICE and len(asked.options) > 1 and field not in (
            CONFIRMATION, PERSON, OPENED, REQUEST, TARGET):
        pick = _ordinal(text, len(asked.options))
        if pick is not None:
            slots = tuple(s for s in p.slots if s.field != field)
            return replace(p, intent=Intent.INFORM, slots=slots + (
                SlotValue(field, asked.options[pick], text),),
                reason=p.reason + "; picked an option of a repair question")
    return p


_ORDINAL = re.compile(r"^\W*(?:(?:the|that|it'?s|um|uh)\s+)*(first|former|second|latter|last)"
                      r"(?:\s+one)?(?:\s+please)?\W*$")


def _ordinal(text: str, count: int) -> int | None:
    """The option a whole turn like "the second one" picks, or None."""
    match = _ORDINAL.match(text.lower().strip())
    if match is None:
        return None
    word = match.group(1)
    return 0 if word in ("first", "former") else 1 if word == "second" else count - 1
