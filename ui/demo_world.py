"""The world behind a demo tab: ``ui.bootstrap.open_world`` and a controller, as panels see it.

Each tab gets its own world (fresh sandbox database and server thread, fresh registry and
corpus), so "Reset session" really starts from nothing and tabs never see each other's
bookings. Behind ``amend demo --workers N`` a tab's world is instead a tenant of its own in
the sandbox and registry the processes share (``ui.bootstrap.SharedSystems``).

Sandbox admin calls are blocking HTTP on loopback; they run in a worker thread so the event
loop that carries the voice keeps moving.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from agent.core.caller import CallerProfile
from agent.core.clock import Clock
from agent.core.errors import InvalidInput
from agent.core.speech import SpeechSink
from agent.core.trace import Trace
from agent.understanding.proposals import Proposer
from tools_sandbox.admin_client import SandboxAdminError
from ui.session_hub import WorldBuilder

if TYPE_CHECKING:
    from ui.bootstrap import SharedSystems


@dataclass
class DemoWorld:
    """Adapts a bootstrap ``World`` and its ``Controller`` to :class:`ui.session_hub.DemoWorld`."""

    world: Any  # ui.bootstrap.World
    conversation: Any  # agent.service.controller.Controller
    stack: contextlib.AsyncExitStack

    async def bookings(self) -> tuple[Any, ...]:
        rows = await asyncio.to_thread(self.world.sandbox.admin.bookings, self.world.tenant)
        return tuple(SimpleNamespace(**{k: row.get(k) for k in (
            "ref", "asset", "date", "window", "time", "units", "status", "version")})
            for row in rows)

    async def notifications(self) -> tuple[dict[str, object], ...]:
        return tuple(await asyncio.to_thread(self.world.sandbox.admin.notifications,
                                             self.world.tenant))

    def actions(self) -> tuple[Any, ...]:
        return tuple(self.conversation.actions)

    def evidence(self) -> tuple[dict[str, object], ...]:
        """The last resolution's outcome and the citations of the last admitted bundle."""
        resolution = self.conversation.last_resolution
        bundle = self.conversation.last_evidence
        outcome = str(resolution.outcome) if resolution is not None else ""
        if bundle is None:
            return ({"outcome": outcome, "revision": resolution.revision or "—"},) \
                if resolution is not None else ()
        return tuple({"outcome": outcome, "revision": c.revision,
                      "interval": f"[{c.valid[0]}, {c.valid[1]})", "snapshot": c.registry_snapshot,
                      "chunk": c.chunk} for c in bundle.citations)

    async def set_fault(self, op: str, fault: Mapping[str, object]) -> None:
        """Arm ``fault`` for the next call of ``op`` only (side effect: sandbox fault plan)."""
        plan = self.world.sandbox.faults  # in-process, or a shared sandbox's (HTTP)

        def arm() -> None:
            rule = {"op": op, **fault, "nth": plan.calls(op) + 1}
            try:
                plan.add(rule)
            except (ValueError, KeyError, SandboxAdminError) as exc:
                raise InvalidInput(f"fault {rule}: {exc}") from None

        await asyncio.to_thread(arm)

    async def staff_edit(self, ref: str, changes: Mapping[str, object]) -> None:
        """Change booking ``ref`` as staff would (bumps its version; the caller is not asked)."""
        try:
            await asyncio.to_thread(self.world.staff_edit, ref, dict(changes))
        except InvalidInput:
            raise
        except Exception as exc:  # the admin client reports HTTP errors its own way
            raise InvalidInput(f"staff edit of {ref}: {str(exc).splitlines()[0]}") from None

    def new_conversation(self, sink: SpeechSink, trace: Trace) -> Any:
        return self.world.controller(sink, trace)

    async def aclose(self) -> None:
        await self.stack.aclose()


def world_builder(clock: Clock | None = None, registry: str = "default",
                  proposer: Proposer | None = None,
                  shared: SharedSystems | None = None) -> WorldBuilder:
    """A :data:`~ui.session_hub.WorldBuilder` opening one isolated world per tab; every
    conversation's turns are read by ``proposer`` (default: the process's rule proposer).
    ``shared``: each tab is a tenant of its own in those systems (``amend demo --workers``)
    instead of starting a sandbox and registry of its own."""

    async def build(caller: CallerProfile, trace: Trace, sink: SpeechSink) -> DemoWorld:
        from ui.bootstrap import open_world

        stack = contextlib.AsyncExitStack()
        try:
            world = await stack.enter_async_context(
                open_world(caller=caller, clock=clock, registry=registry, proposer=proposer,
                           shared=shared))
            controller = world.controller(sink, trace)
        except BaseException:
            await stack.aclose()
            raise
        return DemoWorld(world, controller, stack)

    return build
