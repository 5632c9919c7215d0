"""The booking desk's questions: the one yes/no per action, a field asked, values read back.

The words come from :mod:`agent.service.render`; every question goes through
:meth:`agent.service.dialogue.CallContext.ask`, so one that follows itself climbs the repair ladder.
Nothing here touches the ledger or an action: the desk records which action waits for a yes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import assert_never

from agent.core.actions import Action
from agent.core.caller import CallerProfile
from agent.core.ledger import LedgerSnapshot
from agent.core.names import ASSET, BOOKING_REF, VISIT_DATE
from agent.core.ops import Op, spec
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
from agent.service.spoken import spoken_date


def confirm_fields(snap: LedgerSnapshot, op: str) -> list[str]:
    """The fields the confirmation of ``op`` names (its spec's ``confirms``; docs/call-scripts.md:
    confirmation_requested ``fields``): those usable now."""
    return [f for f in spec(op).confirms
            if (record := snap.get(f)) is not None and record.usable]


def confirmation_question(action: Action, records: Mapping[str, BookingRecord],
                          caller: CallerProfile, prefix: tuple[str, ...] = ()) -> Question:
    """The read-back of ``action`` (a change or a cancel from the record it changes)."""
    args = dict(action.args)  # a change or a cancel always names its record's "ref"
    op = action.op
    if op is Op.CREATE_BOOKING:
        sentences = confirm_create(args, caller)
    elif op is Op.RESCHEDULE_BOOKING:
        sentences = confirm_reschedule(records[args["ref"]], args, caller)
    elif op is Op.CANCEL_BOOKING:
        sentences = confirm_cancel(records[args["ref"]], caller)
    else:
        assert_never(op)  # an Op without its read-back here is a type error (make lint)
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


NAMED_AT_MOST = 3  # the most bookings "Which booking do you mean?" names in one question


def ask_which_booking(ctx: CallContext, cancel: bool) -> None:
    """Ask which booking a cancel or a move is for, offering the caller's bookings that fit
    what the call heard of it, held back or not: its asset, and for a cancel its day ("cancel
    the P-100 visit on the 8th" heard unclearly: "Did you mean booking BK-3101 for P-100 on
    Tuesday 8 December?", heard clearly but left open: "Which booking do you mean? Is it
    booking BK-3101 ...?"; "cancel the Harbour Road visit" with two there: "Is it booking HR-1
    ..., or booking HR-2 ...?"). A move's day is where it goes, so it does not narrow the
    choice. With nothing heard of the visit, or more than :data:`NAMED_AT_MOST` fitting it,
    the question is open."""
    snap = ctx.ledger.current
    heard: dict[str, set[str]] = {}
    unclear = False  # a value of the visit was heard unclearly and held back
    for field in (ASSET, VISIT_DATE) if cancel else (ASSET,):
        held = snap.get(field)
        if held is not None and held.usable and held.value:
            values: tuple[str, ...] = (held.value,)
        else:
            values = ctx.held_back(field)
            unclear = unclear or bool(values)
        if values:
            heard[field] = set(values)
    fits = [(ref, asset, day) for ref, asset, day in ctx.bookings_hint
            if asset in heard.get(ASSET, {asset}) and day in heard.get(VISIT_DATE, {day})]
    if not heard or not fits or len(fits) > NAMED_AT_MOST:
        # nothing heard of the visit, or more bookings fit it than a caller can hold in mind
        # from one sentence: the open question
        ask_field(ctx, BOOKING_REF)
        return
    names = tuple((ref, f"booking {ref} for {asset} on {spoken_date(day)}")
                  for ref, asset, day in fits)
    question = field_question(BOOKING_REF, ctx.caller, tuple(ref for ref, _, _ in fits),
                              names=names)
    if len(fits) == 1:  # one booking fits: a check, which a plain "yes" settles
        question = replace(question, proposes=((BOOKING_REF, fits[0][0]),))
        if not unclear:  # heard clearly: nothing to be sorry for, the turn left it open
            question = replace(question, sentences=("Which booking do you mean?",
                                                    f"Is it {names[0][1]}?"))
    ctx.ask(question)


def ask_other_time(ctx: CallContext, action: Action) -> None:
    """The system of record found the visit's slot full and wrote nothing: say so and ask for
    another day (the answer is a correction like any other)."""
    args = dict(action.args)
    day = spoken_date(args.get("date"))
    slot = f"The {args['window']} of {day}" if args.get("window") else day
    ctx.ask(field_question(VISIT_DATE, ctx.caller, prefix=(
        f"{slot} is fully booked.", "Nothing was changed.")))


def ask_where_to(ctx: CallContext, record: BookingRecord) -> None:
    """A move that said nothing of where ("could you move it?", "push it back an hour" with no
    clock time held): say where the booking stands and ask which day."""
    ctx.ask(field_question(VISIT_DATE, ctx.caller, prefix=(
        f"Booking {record.ref} is for {spoken_date(record.date)}.",)))
