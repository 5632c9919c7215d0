"""The booking operations the agent can ask of the system of record, one :class:`OpSpec` each.

An op's spec says everything about it that is not a decision: the ledger fields its
confirmation names, whether it changes a booking that exists, its sandbox route, its words
when spoken (what was requested, what is done, the yes/no question) and the notification the
system of record sends when it commits. The decisions (when to propose, confirm, dispatch,
supersede or reconcile it) are the policy tables' (``agent/service/policy.py``).

Adding a tool is one spec here and one route in the sandbox (docs/guide-add-a-tool.md).
The values of :class:`Op` are public: call scripts, trace events and the sandbox's faults use
them as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TypedDict

from agent.core.names import ASSET, BOOKING_REF, VISIT_DATE, VISIT_TIME, VISIT_WINDOW


class Op(StrEnum):
    """An action's ``op``: one booking operation of the system of record."""

    CREATE_BOOKING = "create_booking"
    RESCHEDULE_BOOKING = "reschedule_booking"
    CANCEL_BOOKING = "cancel_booking"


class Notification(StrEnum):
    """The kind of notification the system of record sends when an op commits."""

    CONFIRMATION = "confirmation"
    CHANGE = "change"
    CANCELLATION = "cancellation"


@dataclass(frozen=True, slots=True)
class OpSpec:
    """Everything about one op that is not a decision."""

    op: Op
    confirms: tuple[str, ...]  # the ledger fields its confirmation question names
    changes_record: bool  # it changes a booking that exists: it names "ref" and its version
    route: str  # the sandbox's POST path; "{ref}" is the booking it changes
    requested: str  # "I've requested <requested>." while the system of record works
    done: str  # "It's <done>." once the record is verified
    ask: str  # the yes/no question, from the action's args and "{when}" (the spoken time)
    notification: Notification  # what the system of record sends when it commits

    def path(self, ref: str | None = None) -> str:
        """The route with the booking it changes filled in."""
        if self.changes_record and not ref:
            raise ValueError(f"{self.op}: the route {self.route} needs the booking's ref")
        return self.route.format(ref=ref)


SPECS: Mapping[Op, OpSpec] = MappingProxyType({spec.op: spec for spec in (
    OpSpec(Op.CREATE_BOOKING, (ASSET, VISIT_DATE, VISIT_WINDOW, VISIT_TIME),
           changes_record=False, route="/v1/bookings", requested="the booking",
           done="booked", ask="Shall I book the visit for {asset} on {when}?",
           notification=Notification.CONFIRMATION),
    OpSpec(Op.RESCHEDULE_BOOKING, (BOOKING_REF, VISIT_DATE, VISIT_WINDOW, VISIT_TIME),
           changes_record=True, route="/v1/bookings/{ref}/reschedule", requested="the change",
           done="moved", ask="Shall I move booking {ref} to {when}?",
           notification=Notification.CHANGE),
    OpSpec(Op.CANCEL_BOOKING, (BOOKING_REF,),
           changes_record=True, route="/v1/bookings/{ref}/cancel",
           requested="the cancellation", done="cancelled", ask="Shall I cancel booking {ref}?",
           notification=Notification.CANCELLATION),
)})


# The sandbox's operations a fault rule may name (call scripts' ``sandbox.faults``, the demo's
# fault panel, ``amend sandbox serve --fault``): every op, and the outbox's deliveries.
SANDBOX_OPS: tuple[str, ...] = (*(op.value for op in Op), "send_notification")


def spec(op: str) -> OpSpec:
    """The spec of ``op`` (an :class:`Op` or its value); ValueError for an unknown op."""
    return SPECS[Op(op)]


# -- the requests the booking port sends (BookingPort in agent/core/ports.py) ----------------
class Visit(TypedDict, total=False):
    """A new booking as the system of record takes it (``account`` comes from the token)."""

    asset: str
    date: str  # ISO date
    window: str  # "morning" | "afternoon"
    time: str  # "HH:MM"
    units: int
    site: str
    contact: str
    account: str


class VisitChanges(TypedDict, total=False):
    """What a reschedule changes; a key left out stays as the record holds it."""

    date: str
    window: str
    time: str
    units: int
    site: str


def visit_of(args: Mapping[str, str]) -> Visit:
    """The create request of an action's args (every value an action holds is a string)."""
    visit = Visit(asset=args["asset"], date=args["date"], site=args["site"],
                  contact=args["contact"], units=int(args.get("units", "1")))
    if args.get("window"):
        visit["window"] = args["window"]
    if args.get("time"):
        visit["time"] = args["time"]
    return visit


def changes_of(args: Mapping[str, str]) -> VisitChanges:
    """The reschedule request of an action's args: only the values it holds."""
    changes = VisitChanges()
    if args.get("date"):
        changes["date"] = args["date"]
    if args.get("window"):
        changes["window"] = args["window"]
    if args.get("time"):
        changes["time"] = args["time"]
    if args.get("site"):
        changes["site"] = args["site"]
    if args.get("units"):
        changes["units"] = int(args["units"])
    return changes
