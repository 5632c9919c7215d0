"""One demo session per browser tab: the hub that opens, finds and ends them.

A tab gets its own world (caller, ledger, controller, sandbox handle) when the page loads, and
loses it when the tab closes (Gradio ``unload``) or is reset. The voice websocket finds the same
session through :data:`CURRENT_TAB`, set from the socket's ``?tab=`` query by
:class:`TabScope`, so typed turns, speech and panels all drive one conversation.

Every method here runs on the server's single event loop; nothing is shared across tabs.

A voice link keeps nothing in the hub once it has ended: the conversation it replaced is closed
with what the world made for it alone (its booking client), and a link that ends detaches
only itself, never a newer link of the same tab.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs

from agent.core.caller import CallerProfile
from agent.core.errors import InvalidInput
from agent.core.session import Conversation
from agent.core.speech import SpeechPlan, SpeechSink, Utterance
from agent.core.trace import Trace

TEXT_CPS = 15.0  # how fast typed-mode speech "plays" (docs/call-scripts.md, "Run semantics")
CURRENT_TAB: contextvars.ContextVar[str | None] = contextvars.ContextVar("amend_tab", default=None)
# A token for the link voice_session made, set in that socket's context, so voice_closed
# detaches that link and no other. Only a bare token: asyncio keeps copies of a context
# (in timer handles) for a while after the socket has gone, and they must hold nothing.
_LINK: contextvars.ContextVar[object | None] = contextvars.ContextVar("amend_voice_link",
                                                                     default=None)


class DemoWorld(Protocol):
    """What the page needs from a built session (the composition root provides it)."""

    conversation: Conversation

    async def bookings(self) -> tuple[Any, ...]: ...

    async def notifications(self) -> tuple[dict[str, object], ...]: ...

    def actions(self) -> tuple[Any, ...]: ...

    def evidence(self) -> tuple[dict[str, object], ...]: ...

    async def set_fault(self, op: str, fault: dict[str, object]) -> None: ...

    async def staff_edit(self, ref: str, changes: dict[str, object]) -> None: ...

    def new_conversation(self, sink: SpeechSink, trace: Trace) -> Conversation:
        """Another conversation in this world (same sandbox and registry); not started."""

    async def aclose(self) -> None: ...


# Builds a world for one caller, speaking into ``sink`` and tracing into ``trace``.
WorldBuilder = Callable[[CallerProfile, Trace, SpeechSink], Awaitable[DemoWorld]]


@dataclass
class RecordingSink:
    """Keeps every plan for the transcript and forwards to the voice output when one is attached.

    Without a voice link (typed turns only) the plans are the whole story: the transcript shows
    them in full, and invalidations mark them cut.
    """

    trace: Trace | None = None
    plans: list[SpeechPlan] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # trace length when each plan was spoken
    spoken_at: list[float] = field(default_factory=list)
    invalidated: dict[int, str] = field(default_factory=dict)
    downstream: SpeechSink | None = None
    clock: Callable[[], float] = time.monotonic
    link: object | None = None  # the voice link this sink speaks to (voice_session's token)

    def speak(self, plan: SpeechPlan) -> None:
        self.plans.append(plan)
        self.positions.append(len(self.trace.events) if self.trace is not None else 0)
        self.spoken_at.append(self.clock())
        if self.downstream is not None:
            self.downstream.speak(plan)

    def invalidate(self, generation: int, reason: str) -> None:
        # Without audio a plan "plays" at 15 characters per second from the moment it was
        # planned (docs/call-scripts.md, "Run semantics"); only a plan still playing is cut.
        now = self.clock()
        for plan, at in zip(self.plans, self.spoken_at, strict=True):
            if plan.generation <= generation and now < at + len(plan.text) / TEXT_CPS:
                self.invalidated.setdefault(plan.generation, reason)
        if self.downstream is not None:
            self.downstream.invalidate(generation, reason)


@dataclass
class TabSession:
    """Everything one tab owns. Replaced wholesale on reset or persona change."""

    tab: str
    persona_id: str
    persona: CallerProfile
    trace: Trace
    sink: RecordingSink
    world: DemoWorld
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    background: set[asyncio.Task] = field(default_factory=set)  # closings of replaced sessions
    # What the world made for the current conversation alone when a voice link replaced the
    # one before (its booking clients): released when this conversation is replaced in turn.
    owned: list[Any] = field(default_factory=list)

    @property
    def conversation(self) -> Conversation:
        return self.world.conversation

    async def typed_turn(self, text: str) -> None:
        """Feed one typed caller turn into the conversation (side effect: the agent responds).

        The controller records the turn on the trace (``user_turn_final``) itself.
        """
        text = text.strip()
        if not text:
            raise InvalidInput("typed turn: the text is empty; type what the caller says")
        if len(text) > 500:
            raise InvalidInput("typed turn: longer than 500 characters; say it in shorter turns")
        async with self.lock:
            turn = Utterance(text=text, id=f"typed-{len(self.trace.events)}")
            await self.conversation.user_turn(turn)


class SessionHub:
    """Tab id -> :class:`TabSession`. Opening an existing tab replaces (and closes) its session."""

    def __init__(self, build: WorldBuilder, personas: dict[str, CallerProfile],
                 *, debug_trace: bool = True):
        if not personas:
            raise InvalidInput("personas: at least one caller persona is required")
        self._build = build
        self.personas = personas
        self._debug = debug_trace  # the demo shows the caller their own words and values
        self._tabs: dict[str, TabSession] = {}

    def __len__(self) -> int:
        return len(self._tabs)

    def get(self, tab: str | None) -> TabSession | None:
        return self._tabs.get(tab or "")

    async def open(self, tab: str | None, persona_id: str | None = None) -> TabSession:
        """Build a fresh session for ``tab`` (closing any previous one) and greet the caller."""
        if not tab:
            raise InvalidInput("tab id: empty; reload the page")
        persona_id = persona_id or next(iter(self.personas))
        if persona_id not in self.personas:
            raise InvalidInput(f"persona {persona_id!r}: unknown; choose one of "
                               f"{', '.join(self.personas)}")
        await self.close(tab)
        trace = Trace(debug=self._debug)
        sink = RecordingSink(trace)
        persona = self.personas[persona_id]
        world = await self._build(persona, trace, sink)
        session = TabSession(tab, persona_id, persona, trace, sink, world)
        self._tabs[tab] = session
        await world.conversation.start()
        return session

    async def close(self, tab: str | None) -> None:
        """End the tab's session: the conversation closes, the world is torn down."""
        session = self._tabs.pop(tab or "", None)
        if session is None:
            return
        try:
            await session.conversation.close()
        finally:
            await session.world.aclose()

    async def close_all(self) -> None:
        for tab in list(self._tabs):
            await self.close(tab)

    def voice_session(self, sink: SpeechSink) -> TabSession:
        """The voice endpoint's session factory: the socket's tab, with a fresh conversation.

        Called by ``audio.browser.make_voice_router`` when the tab's socket connects (the tab is
        found through :data:`CURRENT_TAB`). The new conversation lives in the tab's world (same
        sandbox and registry) and speaks through the pipeline's ``sink``; it replaces the
        typed-only conversation the page started with, which is closed. Its greeting is
        scheduled for the next loop turn, after the pipeline has bound the session's trace.
        """
        session = self.get(CURRENT_TAB.get())
        if session is None:
            raise InvalidInput("voice link: no session for this tab; reload the page")
        trace = Trace(debug=self._debug)
        link = object()
        recording = RecordingSink(trace, downstream=sink, link=link)
        world = session.world
        kept = _kept_clients(world)
        before = len(kept) if kept is not None else 0
        conversation = world.new_conversation(recording, trace)
        made = list(kept[before:]) if kept is not None else []
        old, old_owned = world.conversation, session.owned
        world.conversation, session.owned = conversation, made
        session.trace, session.sink = trace, recording
        _LINK.set(link)  # in the socket's context: voice_closed finds it there
        loop = asyncio.get_running_loop()
        for job in (_retire(world, old, old_owned), conversation.start()):
            task = loop.create_task(job)
            session.background.add(task)
            task.add_done_callback(session.background.discard)
        return session

    def voice_closed(self) -> None:
        """The tab's socket ended: typed turns go on without a voice (``on_close`` hook).

        Runs in the socket's context, so it detaches the link this socket made and nothing
        else: when a reset or a persona change replaced the session and a new socket already
        linked it, the old socket's late close leaves the new link alone."""
        session = self.get(CURRENT_TAB.get())
        link = _LINK.get()
        if session is not None and link is not None and session.sink.link is link:
            session.sink.downstream = None


def _kept_clients(world: Any) -> list[Any] | None:
    """The booking clients a demo world keeps until it closes, or None for a world that
    keeps none. ``ui.bootstrap.World`` keeps every client it makes (``_clients``), for its
    own close; a conversation replaced by a voice link must not leave its client there.
    (A world offering ``release_conversation(conversation)`` is asked instead.)"""
    kept = getattr(getattr(world, "world", None), "_clients", None)
    return kept if isinstance(kept, list) else None


async def _retire(world: Any, conversation: Conversation, owned: list[Any]) -> None:
    """Close a conversation a voice link replaced, then what its world made for it alone."""
    try:
        await conversation.close()
    finally:
        release = getattr(world, "release_conversation", None)
        if release is not None:
            await release(conversation)
        else:
            kept = _kept_clients(world)
            for client in owned:
                if kept is not None and any(c is client for c in kept):
                    kept.remove(client)
                with contextlib.suppress(Exception):  # closing it is tidying, not the turn
                    await client.aclose()


class TabScope:
    """ASGI middleware: a websocket under ``prefix`` runs with CURRENT_TAB set from ``?tab=``.

    The voice endpoint's session factory is then called inside that context and can find the
    tab's session without knowing about tabs at all.
    """

    def __init__(self, app: Any, prefix: str = "/ws/"):
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") == "websocket" and scope.get("path", "").startswith(self.prefix):
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            token = CURRENT_TAB.set((query.get("tab") or [None])[0])
            try:
                await self.app(scope, receive, send)
            finally:
                CURRENT_TAB.reset(token)
            return
        await self.app(scope, receive, send)
