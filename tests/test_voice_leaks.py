"""Nothing is kept per voice connection (issue 19, item 1).

The real demo app (``ui.app.build_app``: the voice router behind ``TabScope``, Gradio mounted)
runs in a real uvicorn server on 127.0.0.1, and a websocket client opens and closes the voice
link over and over, in the two ways a browser does:

* a socket whose tab has no session (the server refuses it: ``error`` ``no_session``);
* a socket of a real tab, whose session the hub opened as a page load does, with the demo's
  own world (controller, sandbox, registry): every link replaces the tab's conversation.

Each kind ends three ways in turn: a clean close after the first message, a dropped TCP
connection (no close handshake), and a close right after the handshake. After a warm-up, the
counts of the classes a connection builds (pipelines, transports, workers, the link's and the
session's objects, booking clients), the asyncio tasks, the open file descriptors and the
threads must be back exactly where they were, and resident memory may grow by at most
RSS_BOUND_MIB. Before the fix (see the issue), every connection built a pipeline with its own
Silero ONNX session, freed only by the garbage collector and never given back to the system
(~0.9 MiB per connection), and every tab link left a booking client with its SSL context in
the tab's world (~1.6 MiB more).

Only the speech synthesizer is stood in (:class:`StandInVoice`): the greeting of every link
would otherwise cost a real Piper synthesis, minutes over the whole run. Its path through the
pipeline (the TTS service, the gate, the socket) is the real one.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import os
import threading
import time
from urllib.parse import urlsplit

import numpy as np
import psutil
import pytest
from audio_fakes import served_on_loopback

WARM_UP = 50
CYCLES = 500
RSS_BOUND_MIB = 20
TAB = "leak-tab"
CLOCK = "2026-12-01T09:00:00+01:00"
# What one connection builds, by class name: none of it may outlive the connection.
TRACKED = (
    # pipecat and the pipeline (audio/pipeline.py)
    "PipelineWorker", "Pipeline", "WorkerRunner", "TaskManager", "FastAPIWebsocketTransport",
    "FastAPIWebsocketClient", "MicInput", "StampedWebsocketOutput", "CallPipeline",
    "CappedVADProcessor", "SharedSilero", "SharedSileroModel", "SharedWhisperSTT",
    "GenerationPiperTTS", "UserTurnProcessor", "AudioClockTurnStop", "ControllerAdapter",
    "GenerationGate", "TraceBridge", "TurnIntake", "LongTurnNotice", "InferenceSession",
    # the link (audio/browser.py)
    "VoiceSerializer", "InputGuard", "LinkSink", "WebSocket",
    # the session and its world (ui/session_hub.py, ui/bootstrap.py)
    "TabSession", "RecordingSink", "Trace", "Controller", "SandboxClient", "AsyncClient",
    "SSLContext",
    # the machinery
    "Task", "ThreadPoolExecutor", "Thread",
)


class StandInVoice:
    """Piper's voice as the TTS service uses it: one 10 ms chunk of silence per sentence."""

    class config:  # noqa: N801 - the attribute Piper's voice has
        sample_rate = 24000

    class Chunk:
        audio_int16_bytes = bytes(480)

    def synthesize(self, text):
        yield self.Chunk()


class HandlerTracker:
    """ASGI middleware around the whole app: how many websocket handlers are running, and an
    await for none (the server's own signal that a connection's handler has finished)."""

    def __init__(self, app) -> None:
        self.app = app
        self.active = 0
        self._idle: list[asyncio.Future] = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1
            if not self.active:
                waiters, self._idle = self._idle, []
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)

    async def idle(self) -> None:
        while self.active:
            waiter = asyncio.get_running_loop().create_future()
            self._idle.append(waiter)
            await asyncio.wait_for(waiter, 60)


def census() -> dict[str, int]:
    """Live objects of the TRACKED classes, after a full collection."""
    gc.collect()
    wanted = set(TRACKED)
    counts = collections.Counter(type(o).__name__ for o in gc.get_objects()
                                 if type(o).__name__ in wanted)
    return {name: counts.get(name, 0) for name in TRACKED}


def machinery(proc: psutil.Process, sandbox_port: int) -> dict[str, int]:
    """Asyncio tasks, open file descriptors and threads. The tab's world talks to its sandbox
    over keep-alive HTTP connections that the sandbox's own idle timer closes, whenever: those
    sockets are the world's, not a link's, and are left out."""
    world = {c.fd for c in proc.net_connections("tcp")
             if sandbox_port in (c.laddr.port if c.laddr else None,
                                 c.raddr.port if c.raddr else None)}
    fds = set(os.listdir(f"/proc/{proc.pid}/fd"))
    return {"asyncio tasks": len(asyncio.all_tasks()),
            "open fds": len({int(fd) for fd in fds} - world), "threads": proc.num_threads()}


async def saturate_default_executor() -> None:
    """Start every thread of the loop's default executor now (it adds threads on demand, up
    to its maximum, and keeps them): the thread count then depends on nothing done later."""
    loop = asyncio.get_running_loop()
    workers = min(32, (os.cpu_count() or 1) + 4)  # ThreadPoolExecutor's default
    barrier = threading.Barrier(workers)
    await asyncio.gather(*(loop.run_in_executor(None, barrier.wait, 30)
                           for _ in range(workers)))


@pytest.fixture
def stand_in_voice(monkeypatch):
    from audio import services

    monkeypatch.setitem(services._cache, "piper", StandInVoice())


@pytest.mark.audio
@pytest.mark.slow
@pytest.mark.anyio
async def test_voice_connections_leave_nothing_behind(stand_in_voice):
    import websockets

    from audio.browser import make_voice_router
    from ui.app import build_app
    from ui.bootstrap import fixed_clock
    from ui.demo_world import world_builder
    from ui.personas import load_personas
    from ui.session_hub import SessionHub

    started = time.perf_counter()
    hub = SessionHub(world_builder(fixed_clock(CLOCK)), load_personas())
    router = make_voice_router(hub.voice_session, on_close=hub.voice_closed)
    app = HandlerTracker(build_app(hub, router))
    try:
        async with served_on_loopback(app) as (port, server):
            session = await hub.open(TAB)  # the page load
            sandbox_port = urlsplit(session.world.world.sandbox.base_url).port
            urls = {"no session": f"ws://127.0.0.1:{port}/ws/voice?tab=no-such-tab",
                    "tab": f"ws://127.0.0.1:{port}/ws/voice?tab={TAB}"}
            await saturate_default_executor()
            ended = collections.Counter()

            async def cycle(kind: str, i: int) -> None:
                ws = await websockets.connect(urls[kind], open_timeout=30)
                way = ("clean", "dropped", "at once")[i % 3]
                if way != "at once":
                    if kind == "tab" and way == "clean":
                        await ws.send(bytes(640) * 1)  # 20 ms of silence through the input path
                    await asyncio.wait_for(ws.recv(), 30)  # the greeting, or the refusal
                if way == "dropped":
                    ws.transport.abort()
                else:
                    await ws.close()
                await ws.wait_closed()
                await app.idle()  # the server's handler has finished
                await asyncio.gather(*tuple(session.background))  # the replaced one has closed
                ended[kind, way] += 1

            async def settle() -> None:
                await app.idle()
                await asyncio.gather(*tuple(session.background))
                # the tab's conversation has no work in flight (the read of the caller's
                # bookings it starts with): the census counts what stays, not what is running
                await asyncio.wait_for(session.conversation.wait_idle(), 30)
                for _ in range(100_000):  # yields only: transports finish closing their sockets
                    if not server.server_state.connections:
                        break
                    await asyncio.sleep(0)
                for thread in threading.enumerate():  # e.g. a call's VAD thread, shut down
                    if thread not in known_threads:
                        thread.join(30)

            known_threads = set(threading.enumerate())  # a connection's own threads end with it
            for i in range(WARM_UP):
                await cycle("no session", i)
                await cycle("tab", i)
            await settle()
            proc = psutil.Process()
            before, machine_before = census(), machinery(proc, sandbox_port)
            rss_before = proc.memory_info().rss
            measured = time.perf_counter()
            for i in range(CYCLES):
                await cycle("no session", i)
                await cycle("tab", i)
            await settle()
            after, machine_after = census(), machinery(proc, sandbox_port)
            rss_after = proc.memory_info().rss
            grown = (rss_after - rss_before) / 2**20
            links = getattr(router, "links", None)  # (absent before the fix)
            print(f"\nvoice leaks: {CYCLES} cycles of each kind in "
                  f"{time.perf_counter() - measured:.1f} s (module "
                  f"{time.perf_counter() - started:.1f} s); RSS {rss_before / 2**20:.0f} -> "
                  f"{rss_after / 2**20:.0f} MiB "
                  f"({grown:+.1f} MiB); {machine_before} -> {machine_after}; links opened "
                  f"{getattr(links, 'opened', '?')}, collections after calls "
                  f"{getattr(links, 'collections', '?')} "
                  f"({getattr(links, 'collect_secs', 0):.1f} s)")
            assert sum(ended.values()) == 2 * (WARM_UP + CYCLES)
            grew = {k: (before[k], after[k]) for k in TRACKED if after[k] != before[k]}
            assert not grew, f"objects left by connections (after warm-up, after): {grew}"
            assert machine_after == machine_before
            assert grown <= RSS_BOUND_MIB, f"resident memory grew {grown:.1f} MiB"
    finally:
        await hub.close_all()


# -- what the leak came from, one piece at a time -----------------------------------------

@pytest.mark.audio
def test_every_call_shares_one_silero_session_and_keeps_its_own_state():
    """Pipecat's analyzer loaded a Silero ONNX session per call (~40 ms, native memory the
    garbage collector freed late and the allocator never gave back). The pipeline's runs
    on the process's one session; each call keeps only the model's recurrent state, and
    hears exactly what a session of its own would."""
    from pipecat.audio.vad.silero import SileroVADAnalyzer
    from pipecat.audio.vad.vad_analyzer import VADParams

    from agent.core.trace import Trace
    from audio import services
    from audio.pipeline import build_pipeline
    from audio.scripted import ScriptedCaller

    def sessions() -> int:
        gc.collect()
        return sum(type(o).__name__ == "InferenceSession" for o in gc.get_objects())

    build_pipeline(ScriptedCaller(), Trace())  # loads what every call shares
    loaded = sessions()
    calls = [build_pipeline(ScriptedCaller(), Trace()) for _ in range(3)]
    assert sessions() == loaded  # no ONNX session of a call's own
    models = [call.vad._analyzer._model for call in calls]
    assert all(m.session is services.silero_session() for m in models)
    assert len({id(m._state) for m in models}) == 3
    own = SileroVADAnalyzer(sample_rate=16000, params=VADParams())
    shared = services.SharedSilero(params=VADParams())
    shared.set_sample_rate(16000)
    own.set_sample_rate(16000)
    noise = (np.random.default_rng(7).normal(0, 3000, 512 * 20)).astype("<i2").tobytes()
    for at in range(0, len(noise), 1024):
        window = noise[at:at + 1024]
        assert shared.voice_confidence(window) == pytest.approx(own.voice_confidence(window))


@pytest.mark.anyio
async def test_a_closing_link_detaches_itself_not_the_link_that_replaced_it():
    """A reset (or a persona change) reconnects the page: the new socket may link the tab
    before the old socket's close has run. That late close must leave the new link alone."""
    import contextvars

    from ui_support import build_fake_world

    from ui.personas import load_personas
    from ui.session_hub import CURRENT_TAB, SessionHub

    hub = SessionHub(build_fake_world, load_personas())
    session = await hub.open("tab")

    class Sink:
        def speak(self, plan):
            pass

        def invalidate(self, generation, reason):
            pass

    token = CURRENT_TAB.set("tab")
    try:
        old_socket, new_socket = contextvars.copy_context(), contextvars.copy_context()
        old_sink, new_sink = Sink(), Sink()
        old_socket.run(hub.voice_session, old_sink)
        old_link = session.sink
        new_socket.run(hub.voice_session, new_sink)
        old_socket.run(hub.voice_closed)  # late
        assert session.sink.downstream is new_sink and old_link is not session.sink
        new_socket.run(hub.voice_closed)
        assert session.sink.downstream is None
        await asyncio.gather(*tuple(session.background))
    finally:
        CURRENT_TAB.reset(token)
        await hub.close_all()



def test_an_ended_call_is_collected_when_no_other_call_is_on_and_not_too_often(monkeypatch):
    """Ended calls' reference cycles are freed when a call ends with no other in progress,
    never twice within COLLECT_MIN_SECS; the demo's exit message counts the passes."""
    from audio import browser

    now = [0.0]
    passes = []
    monkeypatch.setattr(browser.gc, "collect", lambda: passes.append(now[0]) or 0)
    links = browser.VoiceLinks(max_sessions=4, clock=lambda: now[0])
    assert links.summary() == "collections after calls: 0"
    assert links.enter() and links.enter()
    links.call_ended()  # another call on: its audio would wait behind a full pass
    assert passes == []
    links.leave()
    links.call_ended()  # alone now
    assert passes == [0.0]
    now[0] = browser.COLLECT_MIN_SECS / 2
    links.call_ended()  # too soon after the last
    assert passes == [0.0]
    now[0] = browser.COLLECT_MIN_SECS * 2
    links.call_ended()
    links.leave()
    assert passes == [0.0, browser.COLLECT_MIN_SECS * 2]
    assert links.summary().startswith("collections after calls: 2, mean ")
