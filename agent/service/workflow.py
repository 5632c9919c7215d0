"""The booking workflow's shared vocabulary: what the caller is after (:class:`Goal`), and what
the dispatcher and the reconciler may ask of the booking desk (:class:`Desk`).

:mod:`agent.service.booking_desk` implements :class:`Desk`; :mod:`agent.service.dispatch` and
:mod:`agent.service.reconcile` are written against it and never import the desk, so the chain
desk -> dispatch -> reconcile has no way back (``tests/test_architecture.py`` fails on an
import cycle).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from agent.core.actions import Action
from agent.core.ops import Op
from agent.core.ports import BookingRecord


class Goal(StrEnum):
    """What the caller wants done with a booking in this call."""

    NONE = "none"
    BOOK = "book"
    RESCHEDULE = "reschedule"
    CANCEL = "cancel"


class Desk(Protocol):
    """The booking desk as the dispatcher and the reconciler see it."""

    goal: Goal
    target_ref: str | None  # the booking this task changes or cancels
    awaiting: str | None  # the draft waiting for the caller's yes

    def new_action(self, op: Op, args: dict[str, str], reads: tuple[str, ...]) -> Action:
        """Propose an action from the ledger now."""
        ...

    def cancel_args(self, record: BookingRecord) -> dict[str, str]:
        """The arguments of a cancel of ``record`` as it is now."""
        ...

    async def realign(self, *, quiet: bool = False) -> None:
        """Propose whatever makes the booking match the ledger now, or ask what is missing."""
        ...
