"""The booking desk's questions: the one yes/no per action, a field asked, values read back.

The words come from :mod:`agent.service.render`; every question goes through
:meth:`agent.service.dialogue.CallContext.ask`, so one that follows itself climbs the repair ladder.
Nothing here touches the ledger or an action: the desk records which action waits for a yes.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent.core.actions import Action
from agent.core.caller import CallerProfile
from agent.core.ledger import LedgerSnapshot
from agent.core.names import ASSET, BOOKING_REF, VISIT_DATE, VISIT_TIME, VISIT_WINDOW
from agent.core.ports import BookingRecord
from agent.service.dialogue import CallContext
from agent.service.render import (
    check_values,
    confirm_cancel,
    confirm_create,
    confirm_reschedule,
)
from agent.service.repair import CONFIRMATION, Question, field_question
from agent.service.repair_words import confirm_plainly
from agent.service.slots import BOOKING_READS

# The fields a confirmation question names (docs/call-scripts.md: confirmation_requested `fields`).
CONFIRM_FIELDS = {"create_booking": (ASSET, VISIT_DATE, VISIT_WINDOW, VISIT_TIME),
                  "reschedule_booking": (BOOKING_REF, VISIT_DATE, VISIT_WINDOW, VISIT_TIME),
                  "cancel_booking": (BOOKING_REF,)}


def confirm_fields(snap: LedgerSnapshot, op: str) -> list[str]:
    """The fields the confirmation of ``op`` names: those of ``CONFIRM_FIELDS`` usable now."""
    return [f for f in CONFIRM_FIELDS[op] if snap.get(f) is not None and snap.get(f).usable]


def confirmation_question(action: Action, records: Mapping[str, BookingRecord],
                          caller: CallerProfile, prefix: tuple[str, ...] = ()) -> Question:
    """The read-back of ``action`` (a change or a cancel from the record it changes)."""
    if action.op == "create_booking":
        sentences = confirm_create(dict(action.args), caller)
    elif action.op == "reschedule_booking":
        sentences = confirm_reschedule(records[action.arg("ref")], dict(action.args), caller)
    else:
        sentences = confirm_cancel(records[action.arg("ref")], caller)
    return confirmation(action, sentences, prefix)


def confirmation(action: Action, sentences: tuple[str, ...],
                 prefix: tuple[str, ...] = ()) -> Question:
    """The yes/no question about ``action``, the one the caller's yes dispatches."""
    return Question(CONFIRMATION, tuple(sentences), prefix=tuple(prefix), event="",
                    reads=BOOKING_READS, key=action.id,
                    confirm=confirm_plainly(action.op, dict(action.args)))


def check_together(ctx: CallContext, field: str, together: tuple[tuple[str, str], ...]) -> None:
    """Read back every value held from one unclear turn in one question (one yes for all)."""
    ctx.ask(Question(field, check_values(together), candidates=tuple(v for _, v in together),
                     fields=tuple(name for name, _ in together), reads=(field,),
                     together=together))


def ask_field(ctx: CallContext, field: str, candidates: tuple[str, ...] = ()) -> None:
    """Ask for one field (the repair ladder words it when it follows itself)."""
    ctx.ask(field_question(field, ctx.caller, candidates, heard=ctx.heard.pop(field, None)))
