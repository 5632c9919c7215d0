"""One running call over the scripted caller transport: the harness behind audio-mode calls,
the barge-in tests and the benchmark.

Usage::

    async with LiveCall(make_conversation) as call:      # warm models, start the pipeline
        said = await call.say(load_wav("turn.wav"))       # real-time caller audio
        await call.wait_idle()                            # agent finished speaking, not busy
    call.recording                                        # what the caller heard
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pipecat.workers.runner import WorkerRunner

from agent.core.session import Conversation
from agent.core.speech import SpeechSink
from agent.core.trace import Trace, TraceEvent
from audio import services
from audio.pipeline import CallPipeline, PipelineConfig, build_pipeline, end_dangling_tasks
from audio.scripted import Recording, SaidTurn, ScriptedCaller
from audio.wav_input import CallerAudio

ConversationFactory = Callable[[SpeechSink, Trace], Conversation]
# LiveCall.settled_after: caller audio that reached the adapter after a clip was fed, with its
# marked last frame never among it: that frame was lost, so the settling counts from here.
CLIP_LOST_SECS = 30.0


class LiveCall:
    """A call in progress. Enter to start it (greets the caller), exit to end it."""

    def __init__(self, make_conversation: ConversationFactory | None = None, *,
                 trace: Trace | None = None, config: PipelineConfig | None = None):
        """Build the call's pipeline (side effect: loads the shared models on first use)."""
        self._make = make_conversation
        self.trace = trace or Trace()
        self.config = config or PipelineConfig()
        services.warm()  # a no-op after the first call in this process
        self.transport = ScriptedCaller(out_rate=self.config.out_sample_rate)
        self.pipeline: CallPipeline = build_pipeline(self.transport, self.trace, self.config)
        self.conversation: Conversation | None = None
        self._runner: WorkerRunner | None = None
        self._task: asyncio.Task | None = None
        self._started = asyncio.Event()

        @self.pipeline.worker.event_handler("on_pipeline_started")
        async def _started(worker, frame):
            self._started.set()

    @property
    def recording(self) -> Recording:
        return self.transport.recording

    @property
    def sink(self) -> SpeechSink:
        return self.pipeline.sink

    def attach(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.pipeline.attach(conversation)

    def launch(self) -> None:
        """Start the pipeline in the background (side effect: a task on the running loop)."""
        if self._task is None:
            self._runner = WorkerRunner(handle_sigint=False)
            self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        assert self._runner is not None  # launch() creates it before it starts this task
        await self._runner.add_workers(self.pipeline.worker)
        await self._runner.run()

    async def ready(self, timeout: float = 30.0) -> None:
        """Return once frames flow (``launch`` first)."""
        await asyncio.wait_for(self._started.wait(), timeout=timeout)

    async def __aenter__(self) -> LiveCall:
        if self._make is not None:
            self.attach(self._make(self.pipeline.sink, self.trace))
        self.launch()
        await self.ready()
        if self.conversation is not None:
            await self.conversation.start()
        return self

    async def say(self, audio: CallerAudio) -> SaidTurn:
        """Play caller audio in real time; returns once the last sample was fed."""
        return await self.transport.say(audio)

    async def wait_for(self, name: str, *, after: int = 0, timeout: float = 20.0,
                       **match: object):
        """The first trace event ``name`` at index >= ``after`` matching ``match``."""
        found = asyncio.Event()

        def look(_event: TraceEvent | None = None) -> TraceEvent | None:
            for e in self.trace.events[after:]:
                if e.name == name and all(e.get(k, getattr(e, k, None)) == v
                                          for k, v in match.items()):
                    found.set()
                    return e
            return None

        def listener(event: TraceEvent) -> None:  # a trace listener returns nothing
            look(event)

        hit = look()
        if hit is not None:
            return hit
        self.trace.listeners.append(listener)
        try:
            await asyncio.wait_for(found.wait(), timeout=timeout)
        finally:
            self.trace.listeners.remove(listener)
        return look()

    async def settled_after(self, said: SaidTurn, settle_secs: float, *,
                            done: Callable[[], bool] = lambda: False) -> None:
        """Return once ``done()`` holds, or once the pipeline has taken in the whole clip
        ``said`` and ``settle_secs`` more of caller audio after its last frame, with nothing of
        the caller's being recognised, held or assembled into a turn.

        The silence is counted from where the clip ended in the audio stream (its last frame
        is marked, :data:`~audio.frames.CLIP_END_KEY`), never from where the pipeline had got
        to when the clip was fed: on a busy machine the pipeline runs seconds behind the
        microphone, and a count begun there ran out while the caller's words were still on
        their way to the recogniser. Audio time only: woken by trace events, the
        recogniser and the audio clock, with no wall-clock wait. A pipeline that lost the
        clip's last frame (never in a good run) is waited for CLIP_LOST_SECS of audio more."""
        adapter = self.pipeline.adapter
        stt = self.pipeline.stt
        wake = asyncio.Event()
        lost_at = adapter.audio.now + CLIP_LOST_SECS

        def settle_at() -> float | None:
            end = adapter.clip_ends.get(said.number)
            if end is None:
                end = lost_at if adapter.audio.now >= lost_at else None
            return None if end is None else end + settle_secs

        def settled() -> bool:
            at = settle_at()
            return at is not None and adapter.audio.now >= at and adapter.idle_ear()

        def poke(*_args) -> None:
            wake.set()

        self.trace.listeners.append(poke)
        stt.settled_listeners.append(poke)
        alarm: int | None = None
        try:
            while not done() and not settled():
                wake.clear()
                at = settle_at()
                adapter.audio.cancel(alarm)
                # until the clip's end is in, and while the recogniser works past the
                # settling point, look again every 0.1 s of audio
                alarm = adapter.audio.after(
                    0.1 if at is None or adapter.audio.now >= at else at - adapter.audio.now,
                    poke)
                await wake.wait()
        finally:
            adapter.audio.cancel(alarm)
            self.trace.listeners.remove(poke)
            stt.settled_listeners.remove(poke)

    async def wait_idle(self, *, quiet_secs: float = 0.3, timeout: float = 30.0) -> None:
        """Return once the agent is not speaking, not busy, and stayed so for ``quiet_secs``."""
        deadline = time.monotonic() + timeout
        quiet_since = None
        while time.monotonic() < deadline:
            busy = self.pipeline.gate.speaking or self.pipeline.gate.paused or \
                (self.conversation is not None and self.conversation.busy)
            if busy:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= quiet_secs:
                return
            await asyncio.sleep(0.05)  # polling a condition, not forcing an order
        raise TimeoutError(f"the call did not go idle within {timeout:.0f} s")

    async def __aexit__(self, *exc) -> None:
        try:
            if self.conversation is not None and self._make is not None:
                await self.conversation.close()
        finally:
            await self.stop()

    async def stop(self) -> None:
        """End the pipeline (side effect: cancels the worker, waits for it, and cancels what
        its processors left running)."""
        if self._runner is not None:
            await self._runner.cancel()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=10)
            except (asyncio.CancelledError, TimeoutError):
                pass
            self._task = None
        if self._runner is not None:
            await end_dangling_tasks(self._runner)
