"""The browser voice link: a FastAPI websocket running one call pipeline per connection.

``make_voice_router(session_factory, max_sessions=...) -> VoiceRouter`` serves ``/ws/voice``.
The UI mounts it (before Gradio) behind its ``TabScope`` middleware, so ``session_factory``
runs in the tab's context and can find the tab's session.

PROTOCOL (the browser widget, ``ui/static/voice-widget.js``, is built against exactly this)

client -> server
  * binary: PCM16 little-endian, mono, 16 kHz, 20 ms frames (640 bytes; other sizes accepted,
    an odd trailing byte is dropped). At most ``MAX_AUDIO_MESSAGE_BYTES`` (16000 bytes, 500 ms)
    per message: a larger one is refused (dropped) with a ``warning`` (``audio_too_large``).
  * text JSON ``{"type": "text", "text": "..."}``: a typed turn into the same session
    (at most 500 characters)
  * text JSON ``{"type": "ptt", "on": true|false}``: push-to-talk pressed/released (pressing
    it while the agent speaks pauses the agent, as speech onset would)
  * text JSON ``{"type": "mic", "on": false}``: the microphone was switched off. After a
    release or a switch-off the browser sends no audio, so the server adds
    ``RELEASE_SILENCE_SECS`` of silence: the VAD and the end of turn count silence in audio
    frames, never in wall-clock time, and a turn in progress ends as if the caller went
    quiet
  * a text message longer than ``MAX_TEXT_MESSAGE_CHARS`` (2000) is refused with a
    ``warning`` (``text_too_long``).

server -> client
  * binary: 8-byte header (uint32 LE generation, uint32 LE sample rate) + PCM16 LE mono
  * text JSON ``{"type": "clear", "generation": N}``: drop every queued chunk of generations
    <= N now, and any that still arrives (late chunks of a cleared generation)
  * text JSON ``{"type": "pause", "generation": N}`` / ``{"type": "resume", "generation": N}``:
    hold / continue playback (barge-in onset; a backchannel or noise resumes). A resume
    names the generation its pause named, even when that reply had sent no audio yet; one
    hold at a time. A ``clear`` that leaves the held generation live is followed by its
    ``resume``
  * text JSON ``{"type": "event", "event": {...}}``: every trace event of the call
    (``TraceEvent.to_dict()``)
  * text JSON ``{"type": "warning", "code": "...", "message": "..."}``: something the client
    sent was refused or slowed; the link stays up and usable. Codes: ``audio_too_large``,
    ``text_too_long``, ``too_fast`` (below).
  * text JSON ``{"type": "error", "code": "...", "message": "..."}``: the link cannot be
    used; the server closes it. Codes: ``busy`` (close code 1013, try again later),
    ``no_session`` (1008; the session factory's reason, e.g. "reload the page").

BOUNDS (each with its message; the figures are the defaults)
  * Audio per message: ``MAX_AUDIO_MESSAGE_BYTES`` = 16000 bytes (500 ms of 16 kHz PCM16).
    Larger: refused, ``warning`` ``audio_too_large`` naming the bound (once, until audio
    within the bound arrives).
  * Text per message: ``MAX_TEXT_MESSAGE_CHARS`` = 2000 characters; longer: refused,
    ``warning`` ``text_too_long``.
  * Pace: audio may run at most ``RATE_ALLOWANCE_SECS`` = 3 s ahead of the wall clock (credit
    accrues in real time, never more than that). Faster: the link reads it at real-time pace
    (the client's sends block; nothing is dropped), ``warning`` ``too_fast`` once per episode.
  * Length of a caller turn: ``audio.turns.MAX_TURN_SECS`` = 24 s of caller audio from its
    first VAD start. Past it the turn is cut there, heard and handled like any other, and the
    agent's reply starts with "That was a long one, let me take it from there."
    (``audio.pipeline.LONG_TURN_NOTICE``); what the caller says until that turn has ended
    is not taken in (``audio.turns.CappedVADProcessor``). No message: the agent says it.
  * Simultaneous links: ``max_sessions`` (``DEFAULT_MAX_SESSIONS`` = 8). One more gets
    ``error`` ``busy`` ("voice link: busy, 8 voice calls are in progress (the most this
    server takes); try again shortly") and is closed; no pipeline is built for it.

Malformed client messages are ignored (a one-line warning in the server log), never fatal.

A connection keeps nothing once it has closed, however it ends (cleanly, dropped, refused
before it got a session): no pipeline is built before the session is known, the call's
listeners, sink and every task its processors started are let go, the models every call
uses are shared (``audio.services``), and the call's reference cycles are collected when no
other call is in progress (``COLLECT_MIN_SECS``); ``tests/test_voice_leaks.py`` holds it to
that.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import json
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from fastapi import APIRouter, WebSocket
from loguru import logger
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    OutputAudioRawFrame,
    OutputTransportMessageFrame,
    OutputTransportMessageUrgentFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.serializers.base_serializer import FrameSerializer
from pipecat.transports.websocket.fastapi import (
    FastAPIWebsocketInputTransport,
    FastAPIWebsocketOutputTransport,
    FastAPIWebsocketParams,
    FastAPIWebsocketTransport,
)
from pipecat.workers.runner import WorkerRunner

from agent.core.errors import InvalidInput
from agent.core.session import Conversation
from agent.core.speech import SpeechPlan, SpeechSink
from agent.core.trace import Trace, TraceEvent
from audio import services
from audio.frames import (
    UNSTAMPED,
    PushToTalkFrame,
    TypedTurnFrame,
    generation_of_audio,
    stamp_captured,
)
from audio.pipeline import PipelineConfig, build_pipeline, end_dangling_tasks

IN_RATE = 16000
# Silence added after push-to-talk is released or the microphone switched off: more than the
# VAD stop (0.2 s) plus the longest end-of-turn wait (0.9 s after an unfinished clause).
RELEASE_SILENCE_SECS = 1.5
MAX_TYPED = 500
HEADER = struct.Struct("<II")
# The bounds on one link (module docstring, BOUNDS).
MAX_AUDIO_MESSAGE_BYTES = IN_RATE // 2 * 2  # one binary message: 500 ms of 16 kHz PCM16
MAX_TEXT_MESSAGE_CHARS = 2000  # one JSON text message (a typed turn is at most 500 of them)
RATE_ALLOWANCE_SECS = 3.0  # how far the caller's audio may run ahead of the wall clock
DEFAULT_MAX_SESSIONS = 8  # simultaneous voice links (make_voice_router's max_sessions)
CLOSE_TRY_AGAIN = 1013  # websocket close code: "try again later"
CLOSE_POLICY = 1008
# A call's pipeline is a web of reference cycles (pipecat's processors, tasks and handlers):
# only the garbage collector frees it (~250 KB an ended call), and in a process of Gradio and
# models its full pass (~0.2 s) runs rarely, so ended calls piled up until one did. When a
# call ends and no other is in progress (no caller's audio to delay), the link runs that pass
# itself, at most once per this many seconds, so a caller who reconnects in a loop cannot
# make it run more. Measured by tests/test_voice_leaks.py (1000 connections): resident
# memory +2 MiB at 1 s between passes, +26 MiB at 5 s.
COLLECT_MIN_SECS = 1.0


class VoiceSession(Protocol):
    """What the voice link needs from a session (the UI's TabSession has both)."""

    conversation: Conversation
    trace: Trace


SessionFactory = Callable[[SpeechSink], "VoiceSession | Awaitable[VoiceSession]"]
Notify = Callable[[dict], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class LinkLimits:
    """The bounds on what one link may send (module docstring, BOUNDS). ``clock``: monotonic
    seconds, for the pace (tests give their own)."""

    max_audio_bytes: int = MAX_AUDIO_MESSAGE_BYTES
    max_text_chars: int = MAX_TEXT_MESSAGE_CHARS
    rate_allowance_secs: float = RATE_ALLOWANCE_SECS
    clock: Callable[[], float] = time.monotonic


def warning(code: str, message: str) -> dict:
    """A non-fatal ``warning`` message (the link stays up)."""
    return {"type": "warning", "code": code, "message": message}


def error(code: str, message: str) -> dict:
    """A fatal ``error`` message (the link is closed after it)."""
    return {"type": "error", "code": code, "message": message}


def busy_message(max_sessions: int) -> str:
    calls = "1 voice call is" if max_sessions == 1 else f"{max_sessions} voice calls are"
    return (f"voice link: busy, {calls} in progress (the most this server takes); "
            "try again shortly")


class InputGuard:
    """The bounds on one link's input, as bookkeeping (no I/O): what to refuse, how long to
    hold audio that runs ahead of real time, which warning to send.

    The pace is a credit in seconds of audio: it grows with the wall clock up to
    ``rate_allowance_secs`` (full when the link opens) and each audio message spends its
    duration. A message that leaves it below zero waits until the clock has paid it back."""

    def __init__(self, limits: LinkLimits = LinkLimits()):
        self.limits = limits
        self.refused = 0  # messages refused
        self.held_secs = 0.0  # total time audio was held back
        self._credit = limits.rate_allowance_secs
        self._last = limits.clock()
        self._warned_size = False
        self._warned_pace = False

    def audio(self, size: int) -> tuple[bool, float, dict | None]:
        """A binary message of ``size`` bytes: (take it?, seconds to hold it first, a warning
        to send or None)."""
        limit = self.limits.max_audio_bytes
        if size > limit:
            self.refused += 1
            first, self._warned_size = not self._warned_size, True
            return False, 0.0, warning("audio_too_large", (
                f"voice link: an audio message of {size} bytes was refused: at most {limit} "
                f"bytes ({limit * 500 // IN_RATE} ms of 16 kHz PCM16) per message; send 20 ms "
                f"frames of {IN_RATE // 50 * 2} bytes")) if first else None
        self._warned_size = False
        now = self.limits.clock()
        allowance = self.limits.rate_allowance_secs
        self._credit = min(allowance, self._credit + max(0.0, now - self._last))
        self._last = now
        self._credit -= size / 2 / IN_RATE
        if self._credit >= -1e-9:  # (sums of 20 ms frames are not exact in binary)
            self._warned_pace = False
            return True, 0.0, None
        hold = -self._credit
        self.held_secs += hold
        first, self._warned_pace = not self._warned_pace, True
        return True, hold, warning("too_fast", (
            f"voice link: audio is arriving faster than real time (more than "
            f"{allowance:g} s ahead of the clock); it is read at real-time pace from now "
            "on")) if first else None

    def text(self, length: int) -> tuple[bool, dict | None]:
        """A text message of ``length`` characters: (take it?, a warning to send or None)."""
        limit = self.limits.max_text_chars
        if length <= limit:
            return True, None
        self.refused += 1
        return False, warning("text_too_long", (
            f"voice link: a text message of {length} characters was refused: at most {limit} "
            "characters per message (a typed turn at most 500)"))


class VoiceSerializer(FrameSerializer):
    """PCM16 + JSON, as in the module docstring, within the link's bounds (``guard``).
    ``notify`` sends a warning to the client (None: only logged); ``pause`` holds audio that
    runs ahead of real time (the receive loop waits, so the client's sends do)."""

    def __init__(self, guard: InputGuard | None = None, notify: Notify | None = None,
                 pause: Callable[[float], Awaitable[None]] = asyncio.sleep):
        super().__init__()
        self.guard = guard or InputGuard()
        self.notify = notify
        self._pause = pause

    async def _warn(self, message: dict | None) -> None:
        if message is None:
            return
        logger.warning(message["message"])
        if self.notify is not None:
            await self.notify(message)

    async def serialize(self, frame: Frame) -> str | bytes | None:
        if isinstance(frame, OutputAudioRawFrame):
            generation = generation_of_audio(frame)
            return HEADER.pack(max(generation, 0) if generation != UNSTAMPED else 0,
                               frame.sample_rate) + frame.audio
        if isinstance(frame, (OutputTransportMessageFrame, OutputTransportMessageUrgentFrame)):
            if isinstance(frame.message, dict) and "type" in frame.message:
                return json.dumps(frame.message, default=str)
        return None  # interruptions are announced by "clear", which names the generation

    async def deserialize(self, data: str | bytes) -> Frame | None:
        if isinstance(data, (bytes, bytearray)):
            take, hold, notice = self.guard.audio(len(data))
            await self._warn(notice)
            if not take:
                return None
            if hold > 0:
                await self._pause(hold)  # pacing: the client's sends wait meanwhile
            usable = len(data) // 2 * 2
            return stamp_captured(InputAudioRawFrame(bytes(data[:usable]), IN_RATE, 1),
                                  time.monotonic()) if usable else None
        take, notice = self.guard.text(len(data))
        await self._warn(notice)
        if not take:
            return None
        try:
            message = json.loads(data)
        except ValueError:
            logger.warning("voice link: ignored a text message that is not JSON")
            return None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "text" and isinstance(message.get("text"), str):
            text = message["text"].strip()[:MAX_TYPED]
            return TypedTurnFrame(text=text) if text else None
        if kind == "ptt" and isinstance(message.get("on"), bool):
            return PushToTalkFrame(on=message["on"])
        if kind == "mic" and message.get("on") is False:
            return PushToTalkFrame(on=False)  # the caller's audio stops, as on a release
        logger.warning(f"voice link: ignored message of unknown shape (type={kind!r})")
        return None


class MicInput(FastAPIWebsocketInputTransport):
    """The browser's microphone. When push-to-talk is released or the microphone switched off
    the browser stops sending audio; this side then adds ``RELEASE_SILENCE_SECS`` of silence,
    20 ms at a time, so the turn in progress ends exactly as if the caller had gone quiet.
    (The VAD's own wall-clock idle timer is off: on a busy machine it fired while frames
    were still queued and cut a sentence in two; see ``audio/pipeline.py``.)"""

    async def push_frame(self, frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM):
        await super().push_frame(frame, direction)
        if isinstance(frame, PushToTalkFrame) and not frame.on:
            silence = bytes(IN_RATE // 50 * 2)
            for _ in range(round(RELEASE_SILENCE_SECS * 50)):
                await self.push_audio_frame(stamp_captured(
                    InputAudioRawFrame(silence, IN_RATE, 1), time.monotonic()))


class StampedWebsocketOutput(FastAPIWebsocketOutputTransport):
    """Sends the transport's chunks as they are: the stock writer re-wraps each chunk in a
    plain ``OutputAudioRawFrame``, which would lose the generation the header needs."""

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        if self._client.is_closing or not self._client.is_connected:
            return False
        if not await self._write_frame(frame):
            return False
        await self._write_audio_sleep()  # paces like a sound card would
        return True


def voice_transport(websocket: WebSocket, out_rate: int = 24000,
                    limits: LinkLimits = LinkLimits()) -> FastAPIWebsocketTransport:
    serializer = VoiceSerializer(InputGuard(limits))
    params = FastAPIWebsocketParams(
        audio_in_enabled=True, audio_in_sample_rate=IN_RATE, audio_out_enabled=True,
        audio_out_sample_rate=out_rate, audio_out_end_silence_secs=0,
        serializer=serializer, add_wav_header=False, session_timeout=None)
    transport = FastAPIWebsocketTransport(websocket, params)
    client = transport._client

    async def notify(message: dict) -> None:
        await client.send(json.dumps(message))

    serializer.notify = notify
    transport._input = MicInput(transport, client, params, name="voice-in")
    transport._output = StampedWebsocketOutput(transport, client, params, name="voice-out")
    return transport


class LinkSink:
    """The :class:`~agent.core.speech.SpeechSink` the session factory is given before the
    call's pipeline exists: what it is told is kept until :meth:`attach` hands it on, and
    after :meth:`detach` (the link ended) goes nowhere. The session may outlive the link;
    this sink never keeps the pipeline alive after it."""

    def __init__(self) -> None:
        self._target: SpeechSink | None = None
        self._held: list[tuple[str, tuple]] = []
        self._ended = False

    def speak(self, plan: SpeechPlan) -> None:
        if self._target is not None:
            self._target.speak(plan)
        elif not self._ended:
            self._held.append(("speak", (plan,)))

    def invalidate(self, generation: int, reason: str) -> None:
        if self._target is not None:
            self._target.invalidate(generation, reason)
        elif not self._ended:
            self._held.append(("invalidate", (generation, reason)))

    def attach(self, sink: SpeechSink) -> None:
        held, self._held = self._held, []
        self._target = sink
        for name, args in held:
            getattr(sink, name)(*args)

    def detach(self) -> None:
        self._target, self._held, self._ended = None, [], True


class VoiceLinks:
    """The links in progress, at most ``max_sessions`` of them. A link holds its place from
    the moment it is accepted until its handler has let go of everything."""

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS,
                 clock: Callable[[], float] = time.monotonic):
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, not {max_sessions}")
        self.max_sessions = max_sessions
        self.active = 0
        self.opened = 0  # links that got a place, ever
        self.refused_busy = 0
        self.collections = 0  # garbage collections run after calls (COLLECT_MIN_SECS)
        self.collect_secs = 0.0  # the time they took
        self._clock = clock
        self._collected_at: float | None = None
        self._idle: list[asyncio.Future[None]] = []

    def enter(self) -> bool:
        if self.active >= self.max_sessions:
            self.refused_busy += 1
            return False
        self.active += 1
        self.opened += 1
        return True

    def call_ended(self) -> None:
        """A link that ran a call (a pipeline) is about to leave: with no other call in
        progress, free what ended calls left in reference cycles (COLLECT_MIN_SECS)."""
        now = self._clock()
        if self.active > 1 or (self._collected_at is not None
                               and now - self._collected_at < COLLECT_MIN_SECS):
            return
        started = time.perf_counter()
        gc.collect()
        self.collections += 1
        self.collect_secs += time.perf_counter() - started
        self._collected_at = self._clock()

    def summary(self) -> str:
        """One line for the demo's exit message."""
        if not self.collections:
            return "collections after calls: 0"
        return (f"collections after calls: {self.collections}, mean "
                f"{1000 * self.collect_secs / self.collections:.1f} ms")

    def leave(self) -> None:
        self.active -= 1
        if self.active == 0:
            waiters, self._idle = self._idle, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    async def wait_idle(self) -> None:
        """Return once no link is in progress (every handler has finished)."""
        while self.active:
            waiter = asyncio.get_running_loop().create_future()
            self._idle.append(waiter)
            await waiter


class VoiceRouter(APIRouter):
    """The ``/ws/voice`` router, with its links (``links``: how many, waiting for none)."""

    links: VoiceLinks


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    """Send a fatal ``error`` and close; a client already gone is no error here."""
    with contextlib.suppress(Exception):
        await websocket.send_text(json.dumps(error(code, message)))
        await websocket.close(code=close_code)


def make_voice_router(session_factory: SessionFactory, *,
                      on_close: Callable[[], object] | None = None,
                      config: PipelineConfig | None = None,
                      max_sessions: int = DEFAULT_MAX_SESSIONS,
                      limits: LinkLimits | None = None) -> VoiceRouter:
    """A router serving ``/ws/voice``: one pipeline per connection, over the shared models.

    ``session_factory(sink)`` returns the session whose conversation the caller talks to
    (and whose trace gets the speech events); it may raise ``InvalidInput``, which the client
    receives as an ``error`` (``no_session``). ``on_close()`` runs when a link that got a
    session ends (e.g. detach). At most ``max_sessions`` links at once; one more is refused
    (``error`` ``busy``) before anything is built for it. ``limits``: the bounds on each
    link's input (module docstring, BOUNDS).
    """
    router = VoiceRouter()
    router.links = links = VoiceLinks(max_sessions)
    config = config or PipelineConfig()
    limits = limits or LinkLimits()
    services.warm()  # at start-up: the first caller must not wait for a model load

    @router.websocket("/ws/voice")
    async def voice(websocket: WebSocket) -> None:
        await websocket.accept()
        if not links.enter():
            await _refuse(websocket, "busy", busy_message(links.max_sessions),
                          CLOSE_TRY_AGAIN)
            return
        try:
            await _link(websocket)
        finally:
            links.leave()

    async def _link(websocket: WebSocket) -> None:
        sink = LinkSink()
        try:
            session = session_factory(sink)
            if inspect.isawaitable(session):
                session = await session
        except InvalidInput as exc:
            await _refuse(websocket, "no_session", str(exc), CLOSE_POLICY)
            return
        try:
            await _run(websocket, session, sink)
        finally:
            sink.detach()
            if on_close is not None:
                result = on_close()
                if inspect.isawaitable(result):
                    await result
            links.call_ended()

    async def _run(websocket: WebSocket, session: VoiceSession, sink: LinkSink) -> None:
        transport = voice_transport(websocket, config.out_sample_rate, limits)
        call = build_pipeline(transport, Trace(), config)
        sink.attach(call.sink)
        call.adapter.bind(session.conversation, session.trace)
        runner = WorkerRunner(handle_sigint=False)
        loop = asyncio.get_running_loop()
        sending: set[asyncio.Task] = set()

        def forward(event: TraceEvent) -> None:
            message = OutputTransportMessageUrgentFrame(
                message={"type": "event", "event": event.to_dict()})
            task = loop.create_task(call.worker.queue_frame(message))
            sending.add(task)
            task.add_done_callback(sending.discard)

        @transport.event_handler("on_client_disconnected")
        async def _gone(transport, client):
            await runner.cancel()

        trace = session.trace  # (a newer link of the same tab may replace session.trace)
        trace.listeners.append(forward)
        try:
            await runner.add_workers(call.worker)
            await runner.run()
        finally:
            if forward in trace.listeners:
                trace.listeners.remove(forward)
            for task in tuple(sending):
                task.cancel()
            await end_dangling_tasks(runner)

    return router
