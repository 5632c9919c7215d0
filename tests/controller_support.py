"""Harness for controller scenario tests: a real world (sandbox on loopback, demo registry,
corpus), the real RuleProposer, a recording speech sink, and event waits (never sleeps)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field

from agent.clock import FixedClock
from agent.controller import Controller
from agent.faults import AgentFaults
from agent.speech import SpeechPlan, Utterance
from agent.trace import Trace, TraceEvent
from ui.bootstrap import DEFAULT_CALLER, World, fixed_clock, open_world

CLOCK = "2026-12-01T09:00:00+01:00"  # a Tuesday
ONE_PUMP = DEFAULT_CALLER.__class__(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(DEFAULT_CALLER.assets[0],))


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
    world: World
    controller: Controller
    sink: RecordingSink
    trace: Trace

    async def say(self, text: str, *, confidence: float = 1.0,
                  alternatives: tuple[str, ...] = ()) -> str:
        """One final user turn; returns what the agent said in response (planned speech)."""
        before = len(self.sink.plans)
        await self.controller.user_turn(Utterance(text, confidence, alternatives))
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
        """Until the sandbox holds ``count`` requests in a delay or hang (a thread wait)."""
        assert await asyncio.to_thread(self.world.sandbox.faults.wait_held, count, 10.0)

    def bookings(self, *, all_accounts: bool = False) -> list[dict]:
        rows = self.world.sandbox.admin.bookings()
        return [b for b in rows if b["status"] != "cancelled"
                and (all_accounts or b["account"] == self.world.caller.account)]

    def notifications(self) -> list[dict]:
        return self.world.sandbox.admin.notifications()

    def field(self, name: str):
        return self.controller.snapshot.get(name)


@contextlib.asynccontextmanager
async def call(*, caller=None, clock: str = CLOCK, faults: Iterable[Mapping] = (),
               bookings: Iterable[Mapping] = (), agent_faults: Iterable[str] = (),
               debug: bool = True, client_timeout: float = 3.0, resolver=None,
               retriever_factory=None, registry: str = "default",
               options=None) -> AsyncIterator[Call]:
    """A started call in a fresh world. The trace is in debug mode so values are readable."""
    clk: FixedClock = fixed_clock(clock)
    async with open_world(caller=caller or DEFAULT_CALLER, clock=clk, sandbox_faults=faults,
                          bookings=bookings, client_timeout=client_timeout,
                          registry=registry) as world:
        sink, trace = RecordingSink(), Trace(debug=debug)
        controller = world.controller(
            sink, trace, faults=AgentFaults(**{n: True for n in agent_faults}),
            resolver=resolver, retriever_factory=retriever_factory, options=options)
        await controller.start()
        try:
            yield Call(world, controller, sink, trace)
        finally:
            await controller.close()
