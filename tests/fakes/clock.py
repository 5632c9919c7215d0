"""A controllable clock: ``agent.core.clock.Clock`` that a test sets and moves on purpose.

Like ``FixedClock`` it reads one aware instant and never the wall clock; unlike it, a test can
move it (:meth:`FakeClock.advance`, :meth:`FakeClock.set`), so "now" passing is a step of the
scenario, never a wait.
"""

from __future__ import annotations

from datetime import datetime, timedelta


class FakeClock:
    def __init__(self, instant: datetime | str):
        self._now = self._aware(instant)

    @staticmethod
    def _aware(instant: datetime | str) -> datetime:
        moment = datetime.fromisoformat(instant) if isinstance(instant, str) else instant
        if moment.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime (with an offset)")
        return moment

    def now(self) -> datetime:
        return self._now

    def set(self, instant: datetime | str) -> None:
        self._now = self._aware(instant)

    def advance(self, delta: timedelta | None = None, **parts: float) -> datetime:
        """Move forward by ``delta`` (or ``timedelta(**parts)``); never backwards."""
        step = delta if delta is not None else timedelta(**parts)
        if step < timedelta(0):
            raise ValueError(f"FakeClock only moves forward, not by {step}")
        self._now += step
        return self._now
