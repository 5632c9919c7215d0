"""What the runner needs from the system under test: one isolated world per call.

The runner may import only ``agent``; the composition root (``ui/bootstrap.py``) builds the
real thing and ``ui/call_cli.py`` adapts it to :class:`CallWorld`. Tests pass a fake.

A world factory is called with the :class:`WorldSpec` of one script, the speech sink of the
call's mode, and the call's trace. It returns an async context manager: entering it builds a
fresh sandbox database (seeded, with faults), a fresh registry database, the fixed clock and a
new session; leaving it tears all of that down.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from agent.core.caller import CallerProfile
from agent.core.clock import FixedClock
from agent.core.session import Conversation
from agent.core.speech import SpeechSink
from agent.core.trace import Trace
from agent.service.controls import AgentFaults


@dataclass(frozen=True, slots=True)
class WorldSpec:
    """Everything a script says about the world before the call starts."""

    call_id: str
    caller: CallerProfile
    clock: FixedClock
    registry: str  # "default" (the demo registry) or an absolute path to a registry file
    bookings: tuple[tuple[tuple[str, Any], ...], ...] = ()  # seed records, with `ref` handles
    faults: tuple[tuple[tuple[str, Any], ...], ...] = ()  # sandbox.faults of docs/call-scripts.md
    agent_faults: AgentFaults = AgentFaults()

    def booking_dicts(self) -> list[dict[str, Any]]:
        return [dict(b) for b in self.bookings]

    def fault_dicts(self) -> list[dict[str, Any]]:
        return [dict(f) for f in self.faults]


class CallWorld(Protocol):
    """One running world. Reads of the system of record never change it."""

    @property
    def conversation(self) -> Conversation: ...

    async def bookings(self) -> list[dict[str, Any]]:
        """Every booking of every account, as the sandbox holds it now (read-only)."""

    async def notifications(self) -> list[dict[str, Any]]:
        """Every notification in the outbox, all accounts (read-only)."""

    async def staff_edit(self, ref: str, changes: dict[str, Any]) -> None:
        """Change booking ``ref`` through the sandbox's staff endpoint (bumps its version)."""

    def meta(self) -> dict[str, Any]:
        """Build facts for the report: e.g. ``tool_schema_version``, ``registry``."""


WorldFactory = Callable[[WorldSpec, SpeechSink, Trace], AbstractAsyncContextManager[CallWorld]]


class WorldSetupError(Exception):
    """The fixture did not set up (the call is INVALID, never a product result)."""
