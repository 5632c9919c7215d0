"""A world of fakes: the shape of ``ui.bootstrap.World`` over in-memory ports.

``open_fake_world`` builds what ``open_world`` builds (registry, corpus, booking system, one
caller, a clock) from :mod:`tests.fakes`, with no server thread, no SQLite file and no temporary
directory, and wires controllers the way ``World.controller`` does: the caller's roles decide
what retrieval may see, the caller's own identifying values are scrubbed from search text, and
the retriever's scope check reads the answer desk of the controller it belongs to.

The oracle's handles have the real world's names: ``world.sandbox.admin`` (bookings,
notifications, requests, seed, staff edits) and ``world.sandbox.faults`` (set, add, release).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.caller import CallerProfile
from agent.core.errors import InvalidInput
from agent.service.controller import RetrieverFactory
from registry.demo import demo_files
from retrieval.query import private_values
from tests.fakes.booking import FakeBookingPort, FakeSandbox
from tests.fakes.clock import FakeClock
from tests.fakes.registry import FakeRegistry
from tests.fakes.retrieval import FakeCorpus, FakeRetriever, SearchControl
from ui.bootstrap import DEFAULT_CALLER, WorldCalls


@dataclass
class FakeWorld(WorldCalls):
    caller: CallerProfile
    clock: FakeClock
    sandbox: FakeSandbox
    registry: FakeRegistry
    corpus: FakeCorpus
    client_timeout: float | None = None  # set: a client gives up when its request is held
    refs: dict[str, str] = field(default_factory=dict)
    search: SearchControl = field(default_factory=SearchControl)

    def client(self, caller: CallerProfile | None = None,
               timeout: float | None = None) -> FakeBookingPort:
        caller = caller or self.caller
        return self.sandbox.client(caller.tenant, caller.subject, caller.account,
                                   timeout=timeout if timeout is not None else self.client_timeout)

    def retriever_factory(self, caller: CallerProfile | None = None, *,
                          current_scope=None) -> RetrieverFactory:
        caller = caller or self.caller
        private = private_values(caller)
        return lambda gate, trace: FakeRetriever(
            self.corpus, gate, trace, roles=caller.roles, current_scope=current_scope,
            private=private, control=self.search)


def fake_registry(path: str | Path | None, clock: FakeClock) -> FakeRegistry:
    """The demo registry (``None`` or "default") or one registry YAML file, in memory."""
    if path in (None, "default"):
        return FakeRegistry.from_files(demo_files(), clock=clock)
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(f"registry {file}: no such file; give a registry YAML or 'default'")
    return FakeRegistry.from_files([file], clock=clock)


@contextlib.asynccontextmanager
async def open_fake_world(*, caller: CallerProfile | None = None, clock: FakeClock,
                          registry: str | Path | None = "default",
                          sandbox_faults: Iterable[Mapping[str, object]] = (),
                          bookings: Iterable[Mapping[str, object]] = (),
                          client_timeout: float | None = None) -> AsyncIterator[FakeWorld]:
    """An isolated world of fakes; its held requests are released on exit."""
    caller = caller or DEFAULT_CALLER
    resolver = fake_registry(registry, clock)
    corpus = FakeCorpus()
    corpus.sync(resolver.revision_texts(), resolver.snapshot)
    sandbox = FakeSandbox(faults=list(sandbox_faults))
    world = FakeWorld(caller, clock, sandbox, resolver, corpus, client_timeout)
    seeded = [dict(b) for b in bookings]
    if seeded:
        for b in seeded:
            b.setdefault("account", caller.account)
        world.refs.update(sandbox.admin.seed(caller.tenant, seeded))
    try:
        yield world
    finally:
        await sandbox.aclose()
