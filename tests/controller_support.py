"""Harness for controller scenario tests: a world, the real RuleProposer, a recording speech
sink, and event waits (never sleeps).

The world is a world of fakes (:mod:`tests.fakes`: in-memory booking system, registry,
retrieval and clock) unless a test asks for ``backend="real"``: the sandbox on loopback over
HTTP, the demo registry in SQLite and the FTS5 corpus, as ``amend chat`` runs them. Tests that
must hold on both say so with :data:`both_backends`; ``tests/test_port_contracts.py`` proves the
fakes answer as the real services do.

Timeouts: with the real sandbox ``client_timeout`` is the HTTP client's timeout in seconds
(default 3). The fakes have no wall clock: a client built with a ``client_timeout`` gives up
the moment its request is held by a fault (a hold always outlasts it), and without one it
waits for the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent.core.speech import SpeechPlan, Utterance
from agent.core.trace import Trace, TraceEvent
from agent.service.controller import Controller
from agent.service.controls import AgentFaults
from tests.fakes.clock import FakeClock
from tests.fakes.world import FakeWorld, open_fake_world
from ui.bootstrap import DEFAULT_CALLER, World, fixed_clock, open_world

CLOCK = "2026-12-01T09:00:00+01:00"  # a Tuesday
ONE_PUMP = DEFAULT_CALLER.__class__(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(DEFAULT_CALLER.assets[0],))
BACKENDS = ("fake", "real")
REAL_CLIENT_TIMEOUT = 3.0
# The same scenario on the fakes and on the real services (sandbox, registry, corpus).
both_backends = pytest.mark.parametrize("backend", BACKENDS)


@dataclass
class RecordingSink:
    """A speech sink that keeps every plan and every invalidation, in order."""

    plans: list[SpeechPlan] = field(default_factory=list)
    invalidated: list[tuple[int, str]] = field(default_factory=list)

    def speak(self, plan: SpeechPlan) -> None:
        self.plans.append(plan)

    def invalidate(self, generation: int, reason: str) -> None:
        self.invalidated.append((generation, reason))

    @property
    def said(self) -> str:
        return " ".join(p.text for p in self.plans)

    @property
    def last(self) -> str:
        return self.plans[-1].text if self.plans else ""


@dataclass
class Call:
    world: Any  # ui.bootstrap.World or tests.fakes.world.FakeWorld
    controller: Controller
    sink: RecordingSink
    trace: Trace

    @property
    def backend(self) -> str:
        return "fake" if isinstance(self.world, FakeWorld) else "real"

    async def say(self, text: str, *, confidence: float = 1.0,
                  alternatives: tuple[str, ...] = (),
                  words: tuple[tuple[str, float], ...] = (),
                  answer: float | None = None) -> str:
        """One final user turn; returns what the agent said in response (planned speech).
        ``words`` and ``answer``: a recogniser's detail, as audio mode hands it on."""
        before = len(self.sink.plans)
        await self.controller.user_turn(Utterance(text, confidence, alternatives, words=words,
                                                  answer=answer))
        return " ".join(p.text for p in self.sink.plans[before:])

    async def settle(self) -> None:
        await asyncio.wait_for(self.controller.wait_idle(), 20)

    def events(self, name: str, **filters: object) -> list[TraceEvent]:
        return [e for e in self.trace.events if e.name == name
                and all(e.get(k) == v for k, v in filters.items())]

    def names(self) -> list[str]:
        return [e.name for e in self.trace.events]

    async def until(self, name: str, count: int = 1, **filters: object) -> TraceEvent:
        """Wait for the ``count``-th event ``name`` (an asyncio.Event set by a listener)."""
        ready = asyncio.Event()

        def listener(event: TraceEvent) -> None:
            if len(self.events(name, **filters)) >= count:
                ready.set()

        self.trace.listeners.append(listener)
        try:
            if len(self.events(name, **filters)) < count:
                await asyncio.wait_for(ready.wait(), 20)
        finally:
            self.trace.listeners.remove(listener)
        return self.events(name, **filters)[count - 1]

    async def held(self, count: int = 1) -> None:
        """Until the booking system holds ``count`` requests in a delay or hang."""
        faults = self.world.sandbox.faults
        if self.backend == "fake":
            assert await faults.until_held(count, 10.0)
        else:  # the sandbox's holds are on its server thread: a thread wait
            assert await asyncio.to_thread(faults.wait_held, count, 10.0)

    async def request_finished(self, key: str) -> str:
        """Until the system of record has finished the request ``key``; its status."""
        caller = self.world.caller
        if self.backend == "fake":
            row = await asyncio.wait_for(
                self.world.sandbox.settled(caller.tenant, caller.account, key), 10)
            return row.status
        while True:  # the real sandbox: read its requests, waiting on its holds in between
            rows = await asyncio.to_thread(self.world.sandbox.admin.requests)
            status = next((r["status"] for r in rows if r["key"] == key), None)
            if status not in (None, "PENDING"):
                return status
            await asyncio.to_thread(self.world.sandbox.faults.wait_held, 1, 0.05)

    def bookings(self, *, all_accounts: bool = False) -> list[dict]:
        rows = self.world.sandbox.admin.bookings()
        return [b for b in rows if b["status"] != "cancelled"
                and (all_accounts or b["account"] == self.world.caller.account)]

    async def moved(self, said: str, ref: str, day: str, window: str,
                    read_back: tuple[str, ...] = ()) -> None:
        """Say ``said``; the move of booking ``ref`` is read back (naming ``read_back`` too), a
        yes confirms it, and the system of record has ``ref`` on ``day`` in ``window`` (version
        2) and every other booking untouched (version 1)."""
        await self.say(said)
        await self.until("confirmation_requested", op="reschedule_booking")
        for words in (ref, *read_back):
            assert words in self.sink.last, (words, self.sink.last)
        await self.say("Yes please.")
        await self.until("confirmation_spoken", op="reschedule_booking")
        for booking in self.bookings():
            if booking["ref"] == ref:
                assert (booking["date"], booking["window"], booking["version"]) == (
                    day, window, 2), booking
            else:
                assert booking["version"] == 1, booking

    async def settled(self, said: str, op: str, count: int = 1) -> None:
        """Say ``said``, answer its read-back of ``op`` (the ``count``-th of the call) with a
        yes, and wait until the system of record's verified outcome is spoken."""
        await self.say(said)
        await self.until("confirmation_requested", op=op, count=count)
        await self.say("Yes.")
        await self.until("confirmation_spoken", op=op, count=count)

    def notifications(self) -> list[dict]:
        return self.world.sandbox.admin.notifications()

    def field(self, name: str):
        return self.controller.snapshot.get(name)


@contextlib.asynccontextmanager
async def call(*, caller=None, clock: str = CLOCK, faults: Iterable[Mapping] = (),
               bookings: Iterable[Mapping] = (), agent_faults: Iterable[str] = (),
               debug: bool = True, client_timeout: float | None = None, resolver=None,
               retriever_factory=None, registry: str = "default", options=None,
               backend: str = "fake") -> AsyncIterator[Call]:
    """A started call in a fresh world (``backend`` "fake" or "real"). The trace is in debug
    mode so values are readable."""
    world_cm: contextlib.AbstractAsyncContextManager[World | FakeWorld]
    if backend == "real":
        world_cm = open_world(caller=caller or DEFAULT_CALLER, clock=fixed_clock(clock),
                              sandbox_faults=faults, bookings=bookings,
                              client_timeout=client_timeout or REAL_CLIENT_TIMEOUT,
                              registry=registry)
    elif backend == "fake":
        world_cm = open_fake_world(caller=caller or DEFAULT_CALLER, clock=FakeClock(clock),
                                   sandbox_faults=faults, bookings=bookings,
                                   client_timeout=client_timeout, registry=registry)
    else:
        raise ValueError(f"backend {backend!r}: one of {BACKENDS}")
    async with world_cm as world:
        sink, trace = RecordingSink(), Trace(debug=debug)
        controller = world.controller(
            sink, trace, faults=AgentFaults(**{n: True for n in agent_faults}),
            resolver=resolver, retriever_factory=retriever_factory, options=options)
        await controller.start()
        try:
            yield Call(world, controller, sink, trace)
        finally:
            await controller.close()
