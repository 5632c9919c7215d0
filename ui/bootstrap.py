"""The composition root: build one isolated world (registry, corpus, sandbox) and wire sessions.

Used by ``amend chat``, the scripted-call runner (one world per call: fresh sandbox database,
fresh registry database, fixed clock), the audio pipeline and the browser demo::

    async with open_world(caller=DEFAULT_CALLER, clock=FixedClock(now)) as world:
        controller = world.controller(sink, Trace())
        await controller.start()

Side effects of :func:`open_world`: a temporary directory with two SQLite files and a uvicorn
thread serving the sandbox on 127.0.0.1 (a free port). Leaving the block stops the server,
closes every client the world handed out and deletes the files.
"""

from __future__ import annotations

import contextlib
import secrets
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from agent.core.caller import Asset, CallerProfile
from agent.core.clock import Clock, FixedClock, SystemClock
from agent.core.errors import InvalidInput
from agent.core.gate import GateMode
from agent.core.ports import BookingPort, Resolver, RevisionSource
from agent.core.speech import SpeechSink
from agent.core.trace import Trace
from agent.service.controller import Controller, RetrieverFactory
from agent.service.controls import AgentFaults, FromPlan, RetryWithNewKey, TrustTheQueue
from agent.service.dialogue import ControllerOptions
from agent.service.safeguards import Safeguards
from agent.understanding.proposals import Proposer

DEFAULT_CALLER = CallerProfile(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
            Asset("P-200", "C1", "EU", "4 Dock Street, Rotterdam", kind="pump")),
    name="Sam")

_PROPOSERS: dict[str, Proposer] = {}  # construction warms dateparser; reuse per process


def caller_from_mapping(data: object, where: str = "caller") -> CallerProfile:
    """A caller profile from a call script's ``caller:`` block. Raises InvalidInput."""
    if not isinstance(data, Mapping):
        raise InvalidInput(f"{where}: a mapping with tenant, subject, roles, account, assets "
                           "is required")
    missing = [k for k in ("tenant", "subject", "account") if not data.get(k)]
    if missing:
        raise InvalidInput(f"{where}: missing {', '.join(missing)}; add them to the caller block")
    roles = data.get("roles", [])
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        raise InvalidInput(f"{where}.roles: a list of role names is required, e.g. [technician]")
    assets = []
    for i, raw in enumerate(data.get("assets") or []):
        if not isinstance(raw, Mapping) or not all(raw.get(k) for k in (
                "id", "configuration", "region")):
            raise InvalidInput(f"{where}.assets[{i}]: needs id, configuration and region")
        assets.append(Asset(str(raw["id"]), str(raw["configuration"]), str(raw["region"]),
                            str(raw.get("site") or ""), str(raw.get("family") or "pump-seal"),
                            str(raw.get("title") or ""), str(raw.get("kind") or "unit")))
    return CallerProfile(str(data["tenant"]), str(data["subject"]), tuple(roles),
                         str(data["account"]), tuple(assets), str(data.get("name") or ""),
                         int(data.get("auth_epoch") or 0),
                         str(data["region"]) if data.get("region") else None)


def load_caller(path: str | Path) -> CallerProfile:
    """Read a caller YAML file (the shape of a call script's ``caller:`` block, or a whole
    script with one). Raises InvalidInput naming the file."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read the caller file ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{path}: not valid YAML ({exc.__class__.__name__}); fix the file") \
            from None
    if isinstance(data, Mapping) and "caller" in data:
        data = data["caller"]
    return caller_from_mapping(data, f"{path}: caller")


def safeguards(faults: AgentFaults | None = None) -> Safeguards:
    """The session's safeguards: the agent's own, except where a test switched one off.

    Each known-answer switch (``agent.service.controls``, test runs only) injects the naive strategy
    of :mod:`agent.service.controls` in place of the agent's. ``no_audio_flush`` is not the agent's:
    the scripted-call runner hands it to audio mode."""
    faults = faults or AgentFaults()
    chosen = Safeguards()
    if faults.gate_off:
        chosen = replace(chosen, gate_mode=GateMode.SHADOW)
    if faults.confirm_from_plan:
        chosen = replace(chosen, confirmations=FromPlan())
    if faults.no_recheck_before_dispatch:
        chosen = replace(chosen, dispatch_check=TrustTheQueue())
    if faults.retry_with_new_key:
        chosen = replace(chosen, unknown_outcome=RetryWithNewKey())
    return chosen


def rule_proposer(now: datetime | None = None) -> Proposer:
    """The default deterministic proposer (one per process: construction is slow)."""
    if "rule" not in _PROPOSERS:
        from agent.understanding.nlu.proposer import RuleProposer

        _PROPOSERS["rule"] = RuleProposer(now)
    return _PROPOSERS["rule"]


class WorldRegistry(Resolver, RevisionSource, Protocol):
    """A world's registry: it resolves documents and hands its revisions to the corpus."""


class WorldPorts(Protocol):
    """The ports a world holds, which :class:`WorldCalls` works over (its ``self`` type)."""

    caller: CallerProfile
    corpus: Any  # retrieval.corpus.Corpus
    sandbox: Any  # tools_sandbox.server.SandboxHandle
    refs: dict[str, str]
    proposer: Proposer | None  # what reads every session's turns; None: the rules

    @property
    def clock(self) -> Clock: ...  # read-only here: a world may hold a subtype (a fake clock)

    @property
    def registry(self) -> WorldRegistry: ...

    @property
    def tenant(self) -> str: ...

    def client(self, caller: CallerProfile | None = None) -> BookingPort: ...

    def retriever_factory(self, caller: CallerProfile | None = None, *,
                          current_scope: Callable[[], str | None] | None = None
                          ) -> RetrieverFactory: ...


class WorldCalls:
    """What a world does for a call, over the ports it holds (:class:`WorldPorts`).
    :class:`World` and the tests' world of fakes both inherit it, so both wire a controller,
    edit as staff, set faults and resync the same way."""

    # The proposer every session of the world gets unless one is given (``--proposer``:
    # ui/llm_proposer.py); None is the process's rule proposer.
    proposer: Proposer | None = None

    def controller(self: WorldPorts, sink: SpeechSink, trace: Trace | None = None, *,
                   faults: AgentFaults | None = None, clock: Clock | None = None,
                   caller: CallerProfile | None = None, proposer: Proposer | None = None,
                   options: ControllerOptions | None = None,
                   resolver: Resolver | None = None,
                   retriever_factory: RetrieverFactory | None = None) -> Controller:
        """A new session (controller) in this world: its registry, a retriever from its
        ``retriever_factory``, a booking client from its ``client``, the safeguards the
        ``faults`` leave (:func:`safeguards`), ``proposer`` or else the world's. Nothing
        starts until ``start()``."""
        caller = caller or self.caller
        clock = clock or self.clock
        # The retriever is built inside the controller, before its answer desk exists: the
        # scope check reads the desk through this late-bound cell.
        built: list[Controller] = []

        def current_scope() -> str | None:
            return built[0].answers.current_scope() if built else None

        proposer = proposer or self.proposer or rule_proposer(clock.now())
        controller = Controller(caller, clock, proposer,
                                resolver or self.registry,
                                retriever_factory or self.retriever_factory(
                                    caller, current_scope=current_scope),
                                self.client(caller), sink, trace or Trace(),
                                safeguards(faults), options)
        built.append(controller)
        return controller

    @property
    def tenant(self: WorldPorts) -> str:
        """The tenant the sandbox knows this world's bookings under: the caller's own, or in a
        shared sandbox a tenant of its own (the agent's caller keeps the real one: it is part
        of what the caller's words are understood against)."""
        return getattr(self.sandbox, "tenant", None) or self.caller.tenant

    def staff_edit(self: WorldPorts, ref: str, changes: Mapping[str, object],
                   notify: bool = False) -> dict:
        """Change a booking as a staff member would (bumps its version)."""
        return self.sandbox.admin.staff_edit(self.tenant, self.refs.get(ref, ref),
                                             dict(changes), notify=notify)

    def set_faults(self: WorldPorts, faults: Iterable[Mapping[str, object]]) -> None:
        """Replace the sandbox's fault rules (docs/call-scripts.md ``sandbox.faults`` entries)."""
        self.sandbox.faults.set(list(faults))

    def resync(self: WorldPorts) -> None:
        """Bring the retrieval corpus up to the registry's latest snapshot."""
        self.corpus.sync(self.registry.revision_texts(), self.registry.snapshot)


@dataclass
class World(WorldCalls):
    """One isolated set of systems a call talks to. Build sessions with :meth:`controller`."""

    caller: CallerProfile
    clock: Clock
    sandbox: Any  # tools_sandbox.server.SandboxHandle
    registry: WorldRegistry
    corpus: Any  # retrieval.corpus.Corpus
    tmp: Path
    client_timeout: float = 3.0
    proposer: Proposer | None = None  # every session's, unless one is given; None: the rules
    refs: dict[str, str] = field(default_factory=dict)  # seeded booking handle -> ref
    _clients: list[Any] = field(default_factory=list)
    _tokens: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def token(self, caller: CallerProfile | None = None) -> str:
        """A sandbox bearer token for the caller (minted once per world)."""
        caller = caller or self.caller
        key = (getattr(self.sandbox, "tenant", None) or caller.tenant, caller.subject,
               caller.account)  # see ``tenant``
        if key not in self._tokens:
            self._tokens[key] = self.sandbox.admin.mint(*key)
        return self._tokens[key]

    def client(self, caller: CallerProfile | None = None, timeout: float | None = None):
        """A booking client (``agent.core.ports.BookingPort``) for the caller, closed with the
        world."""
        from tools_sandbox.client import SandboxClient

        client = SandboxClient(self.sandbox.base_url, self.token(caller),
                               timeout=timeout or self.client_timeout)
        self._clients.append(client)
        return client

    def retriever_factory(self, caller: CallerProfile | None = None, *,
                          current_scope: Callable[[], str | None] | None = None
                          ) -> RetrieverFactory:
        """Retrievers for one session: the caller's roles decide visibility, the caller's own
        identifying values are scrubbed from every request text, and ``current_scope`` (the
        scope the question resolves to now) makes a result computed for an old scope
        OUT_OF_SCOPE."""
        from retrieval.query import private_values
        from retrieval.retriever import ScopedRetriever

        caller = caller or self.caller
        private = private_values(caller)
        return lambda gate, trace: ScopedRetriever(
            self.corpus, gate, trace, roles=caller.roles, current_scope=current_scope,
            private=private)


def open_registry(path: str | Path | None, db_path: Path, clock: Clock):
    """The demo registry (``None`` or "default") or a registry YAML file, in a fresh DB."""
    from registry.demo import load_demo
    from registry.resolver import Registry
    from registry.store import import_path

    if path in (None, "default"):
        return load_demo(db_path, clock=clock)
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(f"registry {file}: no such file; give a registry YAML "
                           "(docs/registry-format.md) or 'default'")
    import_path(db_path, file)
    return Registry.open(db_path, clock=clock)


@dataclass(frozen=True)
class SharedSystems:
    """Systems that many agent processes share instead of each world starting its own
    (issue 17): the sandbox at ``sandbox_url`` (test mode; each world is a tenant of its own
    there) and, if given, the registry database ``registry_db`` for worlds of the default
    registry (a script's own registry file still gets a private copy)."""

    sandbox_url: str
    registry_db: str | None = None


class TenantFaults:
    """The fault plan of one tenant of a shared sandbox, as a world's ``sandbox.faults``."""

    def __init__(self, admin: Any, tenant: str):
        self._admin, self._tenant = admin, tenant

    def set(self, rules: Iterable[Mapping[str, object]]) -> None:
        self._admin.set_faults(list(rules), tenant=self._tenant)

    def add(self, rule: Mapping[str, object]) -> None:
        current = [r for r in self._admin.faults() if r.get("tenant") == self._tenant]
        self.set([*current, dict(rule)])

    def calls(self, op: str) -> int:
        """This tenant's calls of ``op`` so far (what its rules' ``nth`` counts)."""
        return self._admin.calls(op, self._tenant)

    def release(self) -> int:
        """End every held request of the shared sandbox (holds are not per tenant)."""
        return int(self._admin.release())


class SharedSandbox:
    """A world's view of a sandbox another process serves: one tenant of its own, its own
    faults; :meth:`stop` clears them and leaves the sandbox running."""

    def __init__(self, base_url: str, tenant: str):
        from tools_sandbox.admin_client import SandboxAdmin

        self.base_url, self.tenant = base_url, tenant
        self.admin = SandboxAdmin(base_url)
        self.faults = TenantFaults(self.admin, tenant)

    def stop(self) -> None:
        try:
            self.faults.set([])
        finally:
            self.admin.close()


@contextlib.asynccontextmanager
async def open_world(*, caller: CallerProfile | None = None, clock: Clock | None = None,
                     registry: str | Path | None = "default",
                     sandbox_faults: Iterable[Mapping[str, object]] = (),
                     bookings: Iterable[Mapping[str, object]] = (),
                     client_timeout: float = 3.0,
                     proposer: Proposer | None = None,
                     shared: SharedSystems | None = None) -> AsyncIterator[World]:
    """Start an isolated world; everything is stopped and deleted on exit. ``proposer`` reads
    the turns of every session the world builds (default: the process's rule proposer).
    ``shared``: use those systems instead of starting a sandbox (and registry) of its own."""
    from retrieval.corpus import Corpus
    from tools_sandbox.server import serve_in_background

    caller = caller or DEFAULT_CALLER
    clock = clock or SystemClock()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="amend-world-")))
        if shared is not None and shared.registry_db and registry in (None, "default"):
            from registry.resolver import Registry

            resolver = Registry.open(shared.registry_db, clock=clock)
        else:
            resolver = open_registry(registry, tmp / "registry.db", clock)
        stack.callback(resolver.close)
        corpus = Corpus(tmp / "corpus.db")
        stack.callback(corpus.close)
        corpus.sync(resolver.revision_texts(), resolver.snapshot)
        sandbox: Any
        if shared is None:
            sandbox = serve_in_background(faults=list(sandbox_faults))
        else:
            sandbox = SharedSandbox(shared.sandbox_url,
                                    f"{caller.tenant}~{secrets.token_hex(6)}")
            sandbox.faults.set(list(sandbox_faults))
        stack.callback(sandbox.stop)
        world = World(caller, clock, sandbox, resolver, corpus, tmp, client_timeout,
                      proposer)
        seeded = [dict(b) for b in bookings]
        if seeded:
            for b in seeded:
                b.setdefault("account", caller.account)
            # In a shared sandbox the world is a tenant of its own, and references are
            # unique within a tenant: a script's `ref:` handles are kept as they are.
            world.refs.update(sandbox.admin.seed(getattr(sandbox, "tenant", None)
                                                 or caller.tenant, seeded))
        try:
            yield world
        finally:
            for client in world._clients:
                with contextlib.suppress(Exception):
                    await client.aclose()


def fixed_clock(text: str) -> FixedClock:
    """A FixedClock from an RFC 3339 text with an offset. Raises InvalidInput."""
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"clock {text!r}: use RFC 3339 with an offset, e.g. "
                           "2026-12-01T09:00:00+01:00") from None
    if instant.tzinfo is None:
        raise InvalidInput(f"clock {text!r}: add an offset, e.g. +01:00")
    return FixedClock(instant)


__all__ = ["DEFAULT_CALLER", "World", "caller_from_mapping", "fixed_clock", "load_caller",
           "open_world", "rule_proposer", "safeguards"]

