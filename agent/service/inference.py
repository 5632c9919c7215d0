"""What the controller infers around a turn: the proposer's context and implied values.

Implied values come only from trusted records: the caller's only asset, the asset record's
configuration and region, the caller's only active booking. Never from the utterance.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from agent.core.fields import FieldRecord
from agent.core.ledger import FieldOp, LedgerSnapshot
from agent.core.names import ASSET, BOOKING_REF, VISIT_DATE, VISIT_TIME, VISIT_WINDOW
from agent.core.ports import BookingPort, BookingRecord, held_by
from agent.service.dialogue import CallContext
from agent.service.repair import Asked
from agent.service.slots import window_of_time
from agent.service.vocabulary import Focus
from agent.service.workflow import Goal, GoalEvent
from agent.understanding.nlu import corrections, dates, withdrawals
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import Proposal, ProposalContext, SlotRole

if TYPE_CHECKING:
    from agent.service.answer_desk import AnswerDesk
    from agent.service.booking_desk import BookingDesk


async def proposal_context(ctx: CallContext, port: BookingPort, answers: AnswerDesk,
                           desk: BookingDesk, *, offer: bool = False) -> ProposalContext:
    """The context a proposer reads. Reads the caller's bookings (a hint only).

    ``expecting`` is the field of the question asked in response to the previous turn
    (:meth:`CallContext.on_table`), if it asked for one; ``asked`` says that a question or an
    offer stands (``offer``: one the desks do not hold, intent_handlers.offer_standing).
    """
    snap = ctx.ledger.current
    records = await read_bookings(ctx, port)
    bookings = tuple((r.ref, r.asset, r.date) for r in held_by(records, ctx.caller.account))
    ctx.bookings_hint = bookings  # side effect: a repair question may name them
    standing = ctx.on_table()  # the question this turn answers: state, not the trace
    return ProposalContext(
        now=ctx.clock.now(), ledger=snap, caller=ctx.caller, procedures=answers.procedures(),
        expecting=standing.expecting if standing is not None else None,
        pending_confirmation=desk.awaiting is not None,
        active_date_fields=(VISIT_DATE,) if snap.get(VISIT_DATE) else (), bookings=bookings,
        offered=offered_values(standing), asked=standing is not None or offer)


async def read_bookings(ctx: CallContext, port: BookingPort) -> tuple[BookingRecord, ...]:
    """Every booking of the caller's account as the booking system lists it now, for
    understanding a turn (which booking it means, what a move shifts).

    When the system does not answer in time (an outage, or a machine too busy to answer
    within the client's timeout), the list last read in this call stands in, and ``()`` if
    none was. Understanding must not change with the machine's load: "bring my booking
    forward a day" means the same when a read is slow. Nothing is confirmed from that list:
    every action is re-checked against the record when it is sent, and what the agent tells
    the caller about their visits is read afresh (intent_handlers.about_visits). Side effects:
    remembers the list read (:attr:`CallContext.bookings_read`); a read that failed is traced
    as ``bookings_unread``.
    """
    try:
        records = await port.bookings()
    except Exception as exc:  # noqa: BLE001 - a hint: the call goes on with what it knew
        known = ctx.bookings_read
        ctx.emit("bookings_unread", detail=f"{type(exc).__name__}: {exc}"[:200],
                 known=None if known is None else len(known))
        return known or ()
    ctx.bookings_read = records
    return records


def offered_values(standing: Asked | None) -> tuple[str, ...]:
    """The values the question on the table named: its options, the candidates it asks about
    ("Did you mean P-200?") and what a plain "yes" settles. Values the caller gives back from
    these are expected (agent/understanding/trust.py), and a plain "yes" takes a candidate
    only when the question named it (agent/understanding/nlu/proposer.py)."""
    if standing is None:
        return ()
    return tuple(dict.fromkeys((*standing.options, *standing.question.candidates,
                                *(v for _, v in standing.proposes))))


def implied_ops(ctx: CallContext, answers: AnswerDesk, focus: Focus | None,
                ops: list[FieldOp], source: str) -> list[FieldOp]:
    """Values the trusted records imply: the only asset, its configuration and region."""
    snap = ctx.ledger.current
    names = {op.name for op in ops}
    extra: list[FieldOp] = []
    asset = next((op.value for op in ops if op.name == ASSET and op.value), None)
    if asset is None and snap.get(ASSET) is None and focus is not None \
            and len(ctx.caller.assets) == 1 and ASSET not in names:
        asset = ctx.caller.assets[0].id
        extra.append(FieldOp.set(ASSET, asset, f"asset:{asset}"))
    if focus is Focus.QUESTION:
        probe = snap if asset is None else with_value(snap, ASSET, asset)
        extra += [op for op in answers.scope_ops(probe, source) if op.name not in names]
    return extra


async def implied_target(ctx: CallContext, port: BookingPort, desk: BookingDesk,
                         ops: list[FieldOp], heard: Proposal | None = None, text: str = ""
                         ) -> list[FieldOp]:
    """A reschedule or cancel means the caller's one active booking that fits what the turn
    named (its asset, its date), or their only active booking when the turn named neither.
    ``heard``, the turn's reading when it was heard clearly, names it too: by the assets its
    words left open ("the pump service" of two pumps) and by the day a move is from ("move
    the Thursday visit to Friday"). The booking found settles the asset left open ("could the
    pump service be brought forward a day?" with one booking, the P-100 one: no "which
    pump?"); a value held back as doubtful is never settled by it. A week the turn's ``text``
    names as a whole names the booking too ("the visit you've got us down for next week"),
    unless a move goes to it (:func:`weeks_meant`). So do the days a cancel left open ("the
    Tuesday one", said on a Tuesday: today or next week's), and the booking found settles the
    day.

    Side effects: the desk adopts that booking's verified record as its target; an asset left
    open in ``ops`` is replaced by the booking's.
    """
    named_ref = next((op.value for op in ops if op.name == BOOKING_REF and op.value), None)
    if named_ref is not None:  # "move booking BK-2001 to Monday": validation adopted it
        held = desk.records.get(named_ref)
        if desk.goal is Goal.RESCHEDULE and held is not None:
            elsewhere(held, ops)
            return kept_by_move(ctx, held, ops, f"tool:booking:{held.ref}")
        return []
    named = {op.name: op.value for op in ops if op.value}
    retarget = await _moves_another(ctx, port, desk, named)
    if retarget:
        return retarget
    another = calls_off_another(desk, named)
    if another:  # "not the P-100 one, I meant the P-200 visit": find the visit meant now
        desk.workflow.on(GoalEvent.FIND_CANCEL)
    if desk.goal is Goal.RESCHEDULE and desk.target_ref is not None \
            and (held := desk.records.get(desk.target_ref)) is not None:
        # a cancel turned into a move ("rather than scrapping it, could he come on Monday?")
        # keeps what the booking has, as a move that found it here does
        return kept_by_move(ctx, held, ops, f"tool:booking:{held.ref}")
    if desk.goal not in (Goal.RESCHEDULE, Goal.CANCEL) or desk.target_ref is not None:
        return []
    asked = ctx.on_table()
    if not ops and asked is not None and asked.question.field == BOOKING_REF:
        return []  # asked which booking, a turn that names nothing picks none ("No, never mind")
    records = await read_bookings(ctx, port)  # none at all: the agent asks which booking
    mine = held_by(records, ctx.caller.account)
    open_assets = assets_left_open(heard) if heard is not None else ()
    moved_from = moved_from_values(heard, text) if heard is not None \
        and desk.goal is Goal.RESCHEDULE else {}
    weeks = weeks_meant(text, ctx.clock.now(), desk.goal, named) if heard is not None else ()
    open_days = days_left_open(ops) if desk.goal is Goal.CANCEL else ()
    fits = [r for r in mine if named.get(ASSET, r.asset) == r.asset
            and (not open_assets or r.asset in open_assets)
            and (not open_days or r.date in open_days)
            and (desk.goal is Goal.RESCHEDULE or named.get(VISIT_DATE, r.date) == r.date)
            and _is_moved_from(r, moved_from)
            and (not weeks or any(w.holds(r.date) for w in weeks))]
    if ASSET in named or open_assets or moved_from or weeks or open_days \
            or (VISIT_DATE in named and desk.goal is not Goal.RESCHEDULE):
        mine = fits  # named, and nothing fits: ask which booking rather than guess
    if len(mine) != 1:
        # The visit called off before is not the one meant: it no longer stands as the target
        # (its read-back dies with it), and the agent asks which booking.
        return [FieldOp.clear(BOOKING_REF, "caller_named_another")] if another else []
    record = mine[0]
    desk.records[record.ref] = record
    desk.workflow.adopt(record.ref)
    source = f"tool:booking:{record.ref}"
    found = [FieldOp.set(BOOKING_REF, record.ref, source)]
    others = [a.id for a in ctx.caller.assets if a.id != record.asset]
    said_asset = heard.slot(ASSET) if heard is not None else None
    if said_asset is not None and not said_asset.value and len(others) == 1 \
            and corrections.points_elsewhere(said_asset.text):
        # "swap the Friday visit to the other pump": other than the booking's, not the
        # booking's own (the desk then books that one and leaves this booking as it is)
        ops[:] = [FieldOp.set(ASSET, others[0], source) if op.name == ASSET else op
                  for op in ops]
    elif record.asset in open_assets:
        ops[:] = [FieldOp.set(ASSET, record.asset, source) if op.name == ASSET else op
                  for op in ops]
    if record.date in open_days:  # "the Tuesday one" on a Tuesday: the booking's Tuesday
        ops[:] = [FieldOp.set(VISIT_DATE, record.date, source) if op.name == VISIT_DATE
                  else op for op in ops]
    if desk.goal is Goal.RESCHEDULE:
        elsewhere(record, ops)
        return found + kept_by_move(ctx, record, ops, source)
    return found + [FieldOp.set(ASSET, record.asset, source)]


_TO_WEEK = re.compile(r"\b(?:to|into|till|until|til)\s+$")


def weeks_meant(text: str, now: datetime, goal: Goal | None,
                named: dict[str, str]) -> tuple[dates.WeekReading, ...]:
    """The weeks (:func:`~agent.understanding.nlu.dates.read_weeks`) that say which booking
    a cancel or a move means. A cancel has no destination: each week it names is the
    visit's. A move's week is the visit's only when the turn names where it goes otherwise
    (a day, a window, a time) and no "to" leads to the week ("bump the one next week to the
    afternoon"; "move it to next week" names where it goes)."""
    said = normalise(text)
    weeks = dates.read_weeks(said, now)
    if goal is Goal.RESCHEDULE:
        if not named.keys() & {VISIT_DATE, VISIT_WINDOW, VISIT_TIME}:
            return ()
        weeks = tuple(w for w in weeks if not _TO_WEEK.search(said[:w.start]))
    return weeks


def days_left_open(ops: list[FieldOp]) -> tuple[str, ...]:
    """The days a turn left open between ("the Tuesday one", said on a Tuesday: today or
    next week's), if it named a day that way."""
    return next((op.candidates for op in ops if op.name == VISIT_DATE and not op.value
                 and len(op.candidates) > 1), ())


def _is_moved_from(record: BookingRecord, moved_from: dict[str, set[str]]) -> bool:
    """Whether ``record`` has the day and the part of the day a move named it by, if any."""
    window = record.window or window_of_time(record.time or "")
    return record.date in moved_from.get(VISIT_DATE, {record.date}) \
        and window in moved_from.get(VISIT_WINDOW, {window})


def assets_left_open(proposal: Proposal) -> tuple[str, ...]:
    """The caller's assets the turn's words left open between ("the pump" of two pumps)."""
    slot = proposal.slot(ASSET)
    return slot.candidates if slot is not None and not slot.value \
        and len(slot.candidates) > 1 else ()


def moved_from_values(proposal: Proposal, text: str = "") -> dict[str, set[str]]:
    """The days and windows a move names as the ones it moves from ("the Thursday visit to
    Friday", "the morning one to the afternoon"): values the turn replaced by the ones it
    moves to, but not a destination put right ("to Monday, no, Tuesday"). A booking with one
    of them is the one moved. So is a window said with the day
    moved from, when the turn names no other ("the Thursday afternoon one, could your engineer
    do that one on Friday instead?", or "... the day after?": the afternoon visit on Thursday,
    and the move keeps its window)."""
    out: dict[str, set[str]] = {}
    for slot in proposal.frame():
        if slot.field in (VISIT_DATE, VISIT_WINDOW) and slot.role is SlotRole.FROM \
                and slot.value:
            out.setdefault(slot.field, set()).add(slot.value)
    day, window = proposal.slot(VISIT_DATE), proposal.slot(VISIT_WINDOW)
    if VISIT_DATE in out and day is not None and "/" in day.text and text:
        # "move that visit to Monday, no wait, Tuesday the 8th": the day put right was where
        # the visit goes, not the one it is on (every earlier day said after "to")
        said = normalise(text)
        earlier = [part.strip() for part in day.text.split("/")][:-1]
        if all(withdrawals.said_as_a_target(said, part) for part in earlier):
            del out[VISIT_DATE]
    if VISIT_DATE in out and VISIT_WINDOW not in out and day is not None and window is not None \
            and window.value and "/" in day.text and "/" not in window.text:
        said = normalise(text)
        parts = [part.strip() for part in day.text.split("/")]
        first, last = parts[0], parts[-1]
        beside = r",? (?:in the |on the )?" + re.escape(window.text.strip())
        if re.search(rf"\b{re.escape(first)}{beside}\b", said) \
                and not re.search(rf"\b{re.escape(last)}{beside}\b", said):
            out[VISIT_WINDOW] = {window.value}
    elif VISIT_DATE in out and VISIT_WINDOW not in out and window is not None and window.value \
            and text and "/" not in window.text:
        # a move by an amount from the day said: "the Thursday afternoon one, could your
        # engineer do the day after?" moves the afternoon visit on Thursday, window and all
        said = normalise(text)
        beside = r"(?:'s)?,? (?:in the |on the )?" + re.escape(window.text.strip())
        days = {datetime.fromisoformat(day).strftime("%A").lower() for day in out[VISIT_DATE]}
        if any(re.search(rf"\b{day}{beside}\b", said) for day in days):
            out[VISIT_WINDOW] = {window.value}
    return out


def elsewhere(record: BookingRecord, ops: list[FieldOp]) -> None:
    """A move goes to another day than the one its booking has: of the days a turn left open,
    the booking's own names the visit moved, not where it goes ("...this Thursday morning.
    Could we push that next, or Tuesday next week?", misheard from "push that back to
    Tuesday next week": Tuesday the 8th is the day to check). Side effect: replaces that
    operation in ``ops``."""
    for index, op in enumerate(ops):
        if op.name == VISIT_DATE and record.date in op.candidates and len(op.candidates) > 1:
            left = tuple(c for c in op.candidates if c != record.date)
            ops[index] = FieldOp.unresolve(VISIT_DATE, op.source, left, op.confidence)


async def _moves_another(ctx: CallContext, port: BookingPort, desk: BookingDesk,
                         named: dict[str, str]) -> list[FieldOp]:
    """A move whose booking is known, and the turn names another asset that has one booking
    of the caller's: that booking is the one to move ("it's the Canal Street one I want
    moving, not Harbour Road"). The day and time the move goes to stay; what the first
    booking lent the move (its window, its time) gives way to the new booking's. With no
    booking for that asset the caller wants a visit for it (the desk books one, and the first
    booking stays as it is). Side effect: the desk adopts the booking found."""
    if desk.goal is not Goal.RESCHEDULE or desk.target_ref is None or desk.in_flight() \
            or ASSET not in named:
        return []
    held = desk.records.get(desk.target_ref)
    if held is None or named[ASSET] == held.asset:
        return []
    records = await read_bookings(ctx, port)  # none at all: the desk's own path decides
    mine = [r for r in held_by(records, ctx.caller.account)
            if r.asset == named[ASSET] and r.ref != held.ref]
    if len(mine) != 1:
        return []
    record = mine[0]
    desk.records[record.ref] = record
    desk.workflow.adopt(record.ref)
    source = f"tool:booking:{record.ref}"
    snap = ctx.ledger.current
    lent = [name for name in (VISIT_WINDOW, VISIT_TIME) if name not in named
            and (had := snap.get(name)) is not None and had.source == f"tool:booking:{held.ref}"]
    ops = [FieldOp.set(BOOKING_REF, record.ref, source)]
    for name in lent:
        value = record.window if name == VISIT_WINDOW else record.time
        ops.append(FieldOp.set(name, value, source) if value else FieldOp.clear(name, source))
    return ops


def calls_off_another(desk: BookingDesk, named: dict[str, str]) -> bool:
    """A cancel whose booking is known, and the turn names an asset or a date that booking is
    not for: the caller means another visit ("not the P-100 one, the P-200 visit")."""
    if desk.goal is not Goal.CANCEL or desk.target_ref is None or desk.in_flight():
        return False
    held = desk.records.get(desk.target_ref)
    return held is not None and held.status != "cancelled" and (
        named.get(ASSET, held.asset) != held.asset
        or named.get(VISIT_DATE, held.date) != held.date)


def kept_by_move(ctx: CallContext, record: BookingRecord, ops: list[FieldOp],
                 source: str) -> list[FieldOp]:
    """What a move keeps of the booking it moves: its asset, its window (and time) unless
    the turn names a new one, and its day when the move names only a new window or time
    ("bump it to the afternoon, same day"), in this turn or before the booking was known
    ("Which booking do you mean?" "The one on the 9th"). Only for fields the ledger does not
    hold yet, so a value the caller gave earlier in the call is never overwritten from the
    record; a value another booking lent the move is not the caller's, and gives way to this
    one's ("Can we shift the Thursday visit to Friday?" "No, the other one.": the other
    visit moves with its own part of the day, not Thursday's)."""
    snap = ctx.ledger.current
    names = {op.name for op in ops}

    def lent(name: str) -> bool:  # held, from another booking's record than this one
        held = snap.get(name)
        return held is not None and held.source.startswith("tool:booking:") \
            and held.source != source

    def open_(name: str) -> bool:
        return snap.get(name) is None or lent(name)

    kept: list[FieldOp] = []
    if ASSET not in names and open_(ASSET):
        kept.append(FieldOp.set(ASSET, record.asset, source))
    new_part = names & {VISIT_WINDOW, VISIT_TIME} or any(
        (held := snap.get(name)) is not None and held.usable and not lent(name)
        for name in (VISIT_WINDOW, VISIT_TIME))
    if VISIT_DATE not in names and open_(VISIT_DATE) and new_part:
        kept.append(FieldOp.set(VISIT_DATE, record.date, source))
    if not names & {VISIT_WINDOW, VISIT_TIME} and open_(VISIT_WINDOW) and open_(VISIT_TIME):
        for name, value in ((VISIT_WINDOW, record.window), (VISIT_TIME, record.time)):
            if value:
                kept.append(FieldOp.set(name, value, source))
            elif lent(name):
                kept.append(FieldOp.clear(name, source))
    return kept


def with_value(snap: LedgerSnapshot, name: str, value: str) -> LedgerSnapshot:
    """A probe snapshot with one value replaced (never stored; used to derive scope)."""
    fields = dict(snap.fields)
    fields[name] = FieldRecord(value, "probe")
    return replace(snap, fields=tuple(sorted(fields.items())))
