"""The browser voice link: a FastAPI websocket running one call pipeline per connection.

``make_voice_router(session_factory) -> APIRouter`` serves ``/ws/voice``. The UI mounts it
(before Gradio) behind its ``TabScope`` middleware, so ``session_factory`` runs in the tab's
context and can find the tab's session.

PROTOCOL (the browser widget, ``ui/static/voice-widget.js``, is built against exactly this)

client -> server
  * binary: PCM16 little-endian, mono, 16 kHz, 20 ms frames (640 bytes; other sizes accepted,
    an odd trailing byte is dropped)
  * text JSON ``{"type": "text", "text": "..."}``: a typed turn into the same session
    (at most 500 characters)
  * text JSON ``{"type": "ptt", "on": true|false}``: push-to-talk pressed/released (pressing
    it while the agent speaks pauses the agent, as speech onset would)
  * text JSON ``{"type": "mic", "on": false}``: the microphone was switched off. After a
    release or a switch-off the browser sends no audio, so the server adds
    ``RELEASE_SILENCE_SECS`` of silence: the VAD and the end of turn count silence in audio
    frames, never in wall-clock time, and a turn in progress ends as if the caller went
    quiet

server -> client
  * binary: 8-byte header (uint32 LE generation, uint32 LE sample rate) + PCM16 LE mono
  * text JSON ``{"type": "clear", "generation": N}``: drop every queued chunk of generations
    <= N now, and any that still arrives (late chunks of a cleared generation)
  * text JSON ``{"type": "pause", "generation": N}`` / ``{"type": "resume", "generation": N}``:
    hold / continue playback (barge-in onset; a backchannel or noise resumes)
  * text JSON ``{"type": "event", "event": {...}}``: every trace event of the call
    (``TraceEvent.to_dict()``)
  * text JSON ``{"type": "error", "message": "..."}``: the link cannot be used (then closed)

Malformed client messages are ignored (a one-line warning in the server log), never fatal.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import struct
from collections.abc import Awaitable, Callable
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
from agent.core.speech import SpeechSink
from agent.core.trace import Trace, TraceEvent
from audio import services
from audio.frames import UNSTAMPED, PushToTalkFrame, TypedTurnFrame, generation_of_audio
from audio.pipeline import PipelineConfig, build_pipeline

IN_RATE = 16000
# Silence added after push-to-talk is released or the microphone switched off: more than the
# VAD stop (0.2 s) plus the longest end-of-turn wait (0.9 s after an unfinished clause).
RELEASE_SILENCE_SECS = 1.5
MAX_TYPED = 500
HEADER = struct.Struct("<II")


class VoiceSession(Protocol):
    """What the voice link needs from a session (the UI's TabSession has both)."""

    conversation: Conversation
    trace: Trace


SessionFactory = Callable[[SpeechSink], "VoiceSession | Awaitable[VoiceSession]"]


class VoiceSerializer(FrameSerializer):
    """PCM16 + JSON, as in the module docstring."""

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
            usable = len(data) // 2 * 2
            return InputAudioRawFrame(bytes(data[:usable]), IN_RATE, 1) if usable else None
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
                await self.push_audio_frame(InputAudioRawFrame(silence, IN_RATE, 1))


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


def voice_transport(websocket: WebSocket, out_rate: int = 24000) -> FastAPIWebsocketTransport:
    params = FastAPIWebsocketParams(
        audio_in_enabled=True, audio_in_sample_rate=IN_RATE, audio_out_enabled=True,
        audio_out_sample_rate=out_rate, audio_out_end_silence_secs=0,
        serializer=VoiceSerializer(), add_wav_header=False, session_timeout=None)
    transport = FastAPIWebsocketTransport(websocket, params)
    transport._input = MicInput(transport, transport._client, params, name="voice-in")
    transport._output = StampedWebsocketOutput(transport, transport._client, params,
                                               name="voice-out")
    return transport


def make_voice_router(session_factory: SessionFactory, *,
                      on_close: Callable[[], object] | None = None,
                      config: PipelineConfig | None = None) -> APIRouter:
    """A router serving ``/ws/voice``: one pipeline per connection, over the shared models.

    ``session_factory(sink)`` returns the session whose conversation the caller talks to
    (and whose trace gets the speech events); it may raise ``InvalidInput``, which the client
    receives as an ``error`` message. ``on_close()`` runs when the link ends (e.g. detach).
    """
    router = APIRouter()
    config = config or PipelineConfig()
    services.warm()  # at start-up: the first caller must not wait for a model load

    @router.websocket("/ws/voice")
    async def voice(websocket: WebSocket) -> None:
        await websocket.accept()
        transport = voice_transport(websocket, config.out_sample_rate)
        call = build_pipeline(transport, Trace(), config)
        try:
            session = session_factory(call.sink)
            if inspect.isawaitable(session):
                session = await session
        except InvalidInput as exc:
            await websocket.send_text(json.dumps({"type": "error", "message": str(exc)}))
            await websocket.close(code=1008)
            return
        call.adapter.bind(session.conversation, session.trace)
        runner = WorkerRunner(handle_sigint=False)

        def forward(event: TraceEvent) -> None:
            message = OutputTransportMessageUrgentFrame(
                message={"type": "event", "event": event.to_dict()})
            asyncio.get_running_loop().create_task(call.worker.queue_frame(message))

        @transport.event_handler("on_client_disconnected")
        async def _gone(transport, client):
            await runner.cancel()

        session.trace.listeners.append(forward)
        try:
            await runner.add_workers(call.worker)
            await runner.run()
        finally:
            if forward in session.trace.listeners:
                session.trace.listeners.remove(forward)
            if on_close is not None:
                result = on_close()
                if inspect.isawaitable(result):
                    await result

    return router
