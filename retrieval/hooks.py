"""Fetch hooks: an awaitable the retriever runs before each fetch or stream increment.

Tests force races with :class:`FetchHold` (block chosen requests on ``asyncio.Event``s, never
sleeps); scripted calls add a deterministic latency with :func:`fixed_latency` (a test-only
knob: production retrievers run without a hook).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from agent.core.ports import RetrievalRequest

FetchHook = Callable[[RetrievalRequest, int], Awaitable[None]]  # (request, increment index)


def fixed_latency(seconds: float) -> FetchHook:
    """A hook that delays every fetch by ``seconds`` (scripted-call latency, not a race)."""
    if seconds < 0:
        raise ValueError(f"latency: a non-negative number of seconds is required, got {seconds}")

    async def delay(request: RetrievalRequest, part: int) -> None:
        await asyncio.sleep(seconds)

    return delay


class FetchHold:
    """Holds the fetches of chosen request ids until released, and says when they began.

    ``hold("r1")`` holds every increment of request ``r1``; ``hold("r1", part=2)`` only the
    third. Unheld requests pass straight through.
    """

    def __init__(self) -> None:
        self._held: dict[tuple[str, int | None], tuple[asyncio.Event, asyncio.Event]] = {}

    def hold(self, request: str, part: int | None = None) -> None:
        self._held[(request, part)] = (asyncio.Event(), asyncio.Event())

    async def started(self, request: str, part: int | None = None) -> None:
        """Wait until the held fetch has begun (it is now blocked)."""
        await self._held[(request, part)][0].wait()

    def release(self, request: str, part: int | None = None) -> None:
        self._held[(request, part)][1].set()

    async def __call__(self, request: RetrievalRequest, part: int) -> None:
        pair = self._held.get((request.stamp.request, part)) or self._held.get(
            (request.stamp.request, None))
        if pair is None:
            return
        started, released = pair
        started.set()
        await released.wait()
