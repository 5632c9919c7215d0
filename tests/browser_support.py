"""Browser-test plumbing: Chromium flags, a fake-mic WAV from Piper, a live server, a tone voice.

The tone voice is a stand-in for the audio pipeline that speaks the websocket protocol exactly
(binary frames with a generation header, ``pause``/``clear`` control messages): it lets the page's
capture, playback and flush be tested before or without the real models.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import APIRouter, WebSocket

from agent.core.errors import InvalidInput
from agent.core.session import Conversation
from agent.core.speech import SpeechPlan, Utterance
from agent.core.trace import Trace
from ui.session_hub import SessionHub

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
         "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def chromium_flags(mic_wav: Path | None) -> list[str]:
    extra = [f"--use-file-for-fake-audio-capture={mic_wav}"] if mic_wav else []
    return FLAGS + extra


def piper_speech(text: str) -> tuple[bytes, int]:
    """The bundled Piper voice saying ``text``: PCM16 LE mono bytes and their sample rate."""
    from piper import PiperVoice as Piper

    from audio.models import piper_voice

    voice = piper_voice()
    tts = Piper.load(voice.model, voice.config)
    speech = np.concatenate([c.audio_int16_array for c in tts.synthesize(text)])
    return speech.astype("<i2").tobytes(), voice.sample_rate


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn on 127.0.0.1 in a thread; ``stop()`` shuts it down and closes every session."""

    def __init__(self, app, hub: SessionHub):
        import uvicorn

        self.port = free_port()
        self.hub = hub
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("demo server did not start within 30 s")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


class ToneVoice:
    """A SpeechSink that 'speaks' each plan as a tone over the socket, with energy barge-in."""

    RATE = 24000
    ONSET_RMS = 0.02
    REAL_TURN_FRAMES = 10  # 200 ms of voice over agent speech is a real turn, not a blip

    def __init__(self, ws: WebSocket):
        self.ws = ws
        self.conversation: Conversation | None = None  # set once the factory made it
        self.trace: Trace | None = None
        self.generation = 0
        self.until = 0.0  # monotonic time the current generation stops sounding
        self.paused = False
        self.voiced = 0
        self.task: asyncio.Task | None = None
        self.stats: dict[str, float | None] = {"pause_sent": None, "clear_sent": None}
        self.lengths: dict[int, float] = {}  # generation -> seconds of tone it streams in all

    def _emit(self, name: str, **data: Any) -> None:  # as Trace.emit takes them
        assert self.conversation is not None and self.trace is not None  # set before speech
        snap = self.conversation.ledger.current
        self.trace.emit(name, question=snap.question, revision=snap.revision,
                                generation=self.generation, **data)

    def speak(self, plan: SpeechPlan) -> None:
        if self.task is not None:
            self.task.cancel()
        self.task = asyncio.get_running_loop().create_task(self._stream(plan))

    async def _stream(self, plan: SpeechPlan) -> None:
        self.generation, self.paused, self.voiced = plan.generation, False, 0
        seconds = max(4.0, len(plan.text) / 15)
        self.lengths[plan.generation] = seconds
        self.until = time.monotonic() + seconds + 0.3
        t = np.arange(int(seconds * self.RATE)) / self.RATE
        tone = (0.3 * np.sin(2 * np.pi * 220 * t) * 32767).astype("<i2")
        header = struct.pack("<II", plan.generation, self.RATE)
        self._emit("agent_speech_started")
        step = self.RATE // 10
        for start in range(0, len(tone), step):
            await self.ws.send_bytes(header + tone[start:start + step].tobytes())
            await asyncio.sleep(0.05)  # transport pacing at 2x real time, not a race
        # Sent is not heard: the page is still playing until the tone's real duration ends.
        await asyncio.sleep(max(0.0, self.until - time.monotonic()))
        self._emit("agent_speech_stopped", reason="completed")

    def invalidate(self, generation: int, reason: str) -> None:
        if self.task is not None and self.generation <= generation:
            self.task.cancel()
        self.until = 0.0
        self.stats["clear_sent"] = time.monotonic()
        self._emit("generation_invalidated", reason=reason, invalidated=generation)
        asyncio.get_running_loop().create_task(
            self.ws.send_text(json.dumps({"type": "clear", "generation": generation})))

    async def hear(self, frame: bytes) -> None:
        pcm = np.frombuffer(frame[: len(frame) // 2 * 2], "<i2").astype(np.float32) / 32768
        rms = float(np.sqrt(np.mean(pcm * pcm))) if len(pcm) else 0.0
        speaking = time.monotonic() < self.until
        if rms >= self.ONSET_RMS and speaking:
            if not self.paused:
                self.paused = True
                self.stats["pause_sent"] = time.monotonic()
                self._emit("barge_in_paused")
                await self.ws.send_text(json.dumps({"type": "pause",
                                                    "generation": self.generation}))
            self.voiced += 1
            if self.voiced >= self.REAL_TURN_FRAMES:
                assert self.conversation is not None  # set before any speech can be heard
                self.conversation.barge_in()
        elif rms < self.ONSET_RMS and not speaking:
            self.voiced = 0


def tone_voice_router(hub: SessionHub, voices: list[ToneVoice]) -> APIRouter:
    """The protocol's server side with a tone voice, wired the way ``audio.browser`` is: the
    hub's ``voice_session`` factory gives the socket its conversation."""
    router = APIRouter()

    @router.websocket("/ws/voice")
    async def voice(ws: WebSocket) -> None:
        await ws.accept()
        out = ToneVoice(ws)
        try:
            session = hub.voice_session(out)
        except InvalidInput:
            await ws.close(code=4404)
            return
        conversation = session.conversation
        out.conversation, out.trace = conversation, session.trace
        voices.append(out)
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                if msg.get("bytes"):
                    await out.hear(msg["bytes"])
                elif msg.get("text"):
                    data = json.loads(msg["text"])
                    if data.get("type") == "text":
                        await conversation.user_turn(Utterance(data["text"]))
        finally:
            if out.task is not None:
                out.task.cancel()
            hub.voice_closed()

    return router
