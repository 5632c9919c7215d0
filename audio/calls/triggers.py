"""Waiting for things to happen in a call: trace events, heard speech, silence, idleness.

Everything is event-driven: the trace's listener and the mode's heard listener wake waiters;
timeouts bound every wait. Nothing here polls the trace on a timer.
"""

from __future__ import annotations

import asyncio
import re

from agent.core.session import Conversation
from agent.core.trace import Trace, TraceEvent
from audio.calls.mode import CallMode
from audio.calls.script import Trigger

SETTLE_LIMIT_S = 60.0  # the longest an agent may take over a turn before a timeout starts


class Watcher:
    """Wakes every waiter on each trace event and each piece of heard speech."""

    def __init__(self, trace: Trace, mode: CallMode, conversation: Conversation):
        self.trace = trace
        self.mode = mode
        self.conversation = conversation
        self._waiters: set[asyncio.Event] = set()
        # (trace events, heard stream) positions when the previous turn was spoken
        self.marks: tuple[int, int] = (0, 0)
        self.failed: str | None = None  # the call is over: every wait ends at once
        self.harness_failed = False  # ... because the harness failed (INVALID), not the agent
        trace.listeners.append(self._on_event)
        mode.add_heard_listener(self._poke)

    def abort(self, reason: str, *, harness: bool = False) -> None:
        """End every wait: the agent crashed, or (``harness``) the harness cannot go on."""
        if self.failed is None:
            self.failed = reason
            self.harness_failed = harness
        self._poke()

    def detach(self) -> None:
        if self._on_event in self.trace.listeners:
            self.trace.listeners.remove(self._on_event)

    def _on_event(self, _event: TraceEvent) -> None:
        self._poke()

    def poke(self) -> None:
        """Wake every waiter to re-check its condition (something outside the trace moved)."""
        self._poke()

    def _poke(self) -> None:
        for waiter in tuple(self._waiters):
            waiter.set()

    async def _until(self, condition, timeout_s: float) -> bool:
        """Wait until ``condition()`` holds, re-checking whenever anything happens."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        waiter = asyncio.Event()
        self._waiters.add(waiter)
        try:
            while not condition():
                if self.failed is not None:
                    return False
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return False
                waiter.clear()
                try:
                    await asyncio.wait_for(waiter.wait(), remaining)
                except TimeoutError:
                    return condition()
            return True
        finally:
            self._waiters.discard(waiter)

    # -- triggers -------------------------------------------------------------------------------
    def fired(self, trigger: Trigger, event_mark: int, heard_mark: int) -> bool:
        if trigger.heard is not None:
            text = self.mode.heard_since(heard_mark)
            return re.search(trigger.heard, text, re.IGNORECASE) is not None
        return any(matches(trigger, e) for e in self.trace.events[event_mark:])

    async def wait_trigger(self, trigger: Trigger, event_mark: int, heard_mark: int,
                           timeout_s: float, *, settled=None,
                           settle_limit_s: float = SETTLE_LIMIT_S) -> bool:
        """True once the trigger fired after the marks; False if it did not in time.

        With ``settled`` (a condition), the ``timeout_s`` clock starts only once it holds
        (at most ``settle_limit_s`` later): the trigger may fire before, at any time."""
        def fired() -> bool:
            return self.fired(trigger, event_mark, heard_mark)

        if settled is not None:
            if not await self._until(lambda: fired() or settled(), settle_limit_s):
                return False
        return await self._until(fired, timeout_s)

    # -- silence and idleness -------------------------------------------------------------------
    async def quiet_for(self, gap_s: float, timeout_s: float, *, idle: bool) -> bool:
        """Wait until nothing is playing (and, with ``idle``, no work is in flight) for
        ``gap_s`` without interruption. False if that did not happen within ``timeout_s``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s

        def calm() -> bool:
            return not self.mode.speaking and not (idle and self.conversation.busy)

        while True:
            remaining = deadline - loop.time()
            if remaining <= 0 or not await self._until(calm, remaining):
                return False
            mark = len(self.trace.events)
            window = min(gap_s, max(0.0, deadline - loop.time()))
            changed = await self._until(
                lambda m=mark: len(self.trace.events) != m or not calm(), window)
            if not changed and calm():
                return True
            if deadline - loop.time() <= 0:
                return False


def matches(trigger: Trigger, event: TraceEvent) -> bool:
    """An event trigger's name and filters against one event (filters match event keys)."""
    if event.name != trigger.event:
        return False
    if trigger.op is not None and event.get("op") != trigger.op:
        return False
    if trigger.field is not None:
        fields = event.get("fields") or ()
        if isinstance(fields, str):
            fields = (fields,)
        if trigger.field not in tuple(fields) and event.get("field") != trigger.field:
            return False
    return True
