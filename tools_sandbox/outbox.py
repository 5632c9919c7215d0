"""The notification outbox's delivery side: at-least-once, recorded, never recalled.

A notification row is written in the same transaction as the booking change it announces
(see :mod:`tools_sandbox.service`). This module delivers it afterwards, as a real outbox relay
would, under the ``send_notification`` faults: a failed attempt is retried, a dropped
acknowledgement causes a redelivery (the recipient drops it by ``dedupe_key``), a duplicate
delivery is counted. Delivery only ever moves a row from ``queued`` to ``delivered``; nothing
deletes or edits a delivered message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine

from tools_sandbox.faults import FaultPlan
from tools_sandbox.store import Store, now_iso

MAX_ATTEMPTS = 3
RETRY_BACKOFF_S = 0.02  # product retry timer of the relay, not a test synchronisation device


def message(kind: str, booking: dict) -> str:
    """The text of a notification, rendered from the committed booking row."""
    when = booking["time"] or booking["window"]
    verb = {"confirmation": "is booked", "change": "was changed",
            "cancellation": "was cancelled"}[kind]
    return (f"Service visit {booking['ref']} for {booking['asset']} on {booking['date']} "
            f"({when}) at {booking['site']} {verb}.")


class Outbox:
    """Delivers queued notifications in background tasks spawned by ``spawn``."""

    def __init__(self, store: Store, faults: FaultPlan, max_hold_s: float,
                 spawn: Callable[[Coroutine], object]):
        self._store = store
        self._faults = faults
        self._max_hold_s = max_hold_s
        self._spawn = spawn

    def schedule(self, notification_id: int) -> None:
        """Start delivering one notification (side effect: a background task)."""
        self._spawn(self._deliver(notification_id))

    async def _deliver(self, nid: int) -> None:
        row = self._store.notification(nid)
        tenant = row["tenant"] if row else None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            decision = self._faults.decide("send_notification", tenant)
            if not decision.any:  # the common case: one write records attempt and delivery
                self._store.execute(
                    "UPDATE notifications SET attempts = attempts + 1, status = 'delivered', "
                    "deliveries = deliveries + 1, delivered_at = COALESCE(delivered_at, ?) "
                    "WHERE id = ?", now_iso(), nid)
                return
            self._store.execute(
                "UPDATE notifications SET attempts = attempts + 1 WHERE id = ?", nid)
            if decision.delay_ms:
                await self._faults.hold(decision.delay_ms / 1000)
            if decision.hang:
                await self._faults.hold(self._max_hold_s)
                continue  # the attempt was abandoned; try again
            if decision.fail_before_commit:
                await asyncio.sleep(RETRY_BACKOFF_S * attempt)
                continue
            copies = 2 if decision.duplicate_delivery else 1
            self._store.execute(
                "UPDATE notifications SET status = 'delivered', deliveries = deliveries + ?, "
                "delivered_at = COALESCE(delivered_at, ?) WHERE id = ?", copies, now_iso(), nid)
            if decision.drop_response:
                # Delivered, but the acknowledgement was lost: the relay must try again.
                continue
            return
