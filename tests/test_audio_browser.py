"""The browser voice websocket on 127.0.0.1: protocol, typed turns, speech, clear on barge-in."""

from __future__ import annotations

import asyncio
import json
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from agent.core.errors import InvalidInput
from agent.core.trace import Trace
from audio import synth
from audio.browser import VoiceSerializer
from audio.frames import PushToTalkFrame, TypedTurnFrame, audio_class

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import EchoConversation  # noqa: E402


@pytest.mark.anyio
async def test_serializer_speaks_the_documented_protocol():
    ser = VoiceSerializer()
    frame = audio_class(7)(b"\x01\x00" * 4, sample_rate=24000, num_channels=1)
    data = await ser.serialize(frame)
    assert struct.unpack("<II", data[:8]) == (7, 24000) and data[8:] == b"\x01\x00" * 4
    typed = await ser.deserialize(json.dumps({"type": "text", "text": " hi "}))
    assert isinstance(typed, TypedTurnFrame) and typed.text == "hi"
    ptt = await ser.deserialize('{"type": "ptt", "on": true}')
    assert isinstance(ptt, PushToTalkFrame) and ptt.on
    pcm = await ser.deserialize(b"\x00\x01\x02")  # odd length: the stray byte is dropped
    assert pcm.audio == b"\x00\x01" and pcm.sample_rate == 16000
    mic_off = await ser.deserialize('{"type": "mic", "on": false}')
    assert isinstance(mic_off, PushToTalkFrame) and not mic_off.on
    for junk in ("not json", '{"type": "bogus"}', '{"type": "ptt", "on": "yes"}', "[1]", b"",
                 '{"type": "mic", "on": true}'):
        assert await ser.deserialize(junk) is None


@pytest.mark.anyio
@pytest.mark.parametrize("message", ['{"type": "ptt", "on": false}',
                                     '{"type": "mic", "on": false}'])
async def test_when_the_browser_stops_sending_audio_the_server_adds_the_silence(message):
    """Released push-to-talk or a microphone switched off: the browser sends no more audio,
    and the VAD has no wall-clock idle timer, so the input adds RELEASE_SILENCE_SECS of
    silence in 20 ms frames: the turn ends in audio time, as if the caller went quiet."""
    from audio.browser import RELEASE_SILENCE_SECS, MicInput

    pushed = []
    mic = MicInput.__new__(MicInput)  # only push_frame is exercised: no websocket needed

    async def audio(frame):
        pushed.append(frame)

    async def other(self, frame, direction):
        pushed.append(frame)

    mic.push_audio_frame = audio
    base = MicInput.__mro__[1]
    original = base.push_frame
    base.push_frame = other
    try:
        await mic.push_frame(await VoiceSerializer().deserialize(message))
        await mic.push_frame(PushToTalkFrame(on=True))
    finally:
        base.push_frame = original
    assert isinstance(pushed[0], PushToTalkFrame) and isinstance(pushed[-1], PushToTalkFrame)
    silence = pushed[1:-1]
    assert len(silence) == round(RELEASE_SILENCE_SECS * 50)
    assert all(f.audio == bytes(640) and f.sample_rate == 16000 for f in silence)


def test_the_vad_has_no_wall_clock_idle_stop():
    """pipecat's VAD forces a speech stop after 1 s without audio *processed*: on a busy
    machine the frames are only queued, and the forced stop cut a sentence into two turns."""
    from pipecat.processors.audio.vad_processor import VADProcessor

    from audio.pipeline import build_pipeline
    from audio.scripted import ScriptedCaller

    call = build_pipeline(ScriptedCaller(), Trace())
    def walk(processor):
        yield processor
        for inner in processor.processors:
            yield from walk(inner)

    vads = [p for p in walk(call.worker.pipeline) if isinstance(p, VADProcessor)]
    assert len(vads) == 1 and vads[0]._vad_controller._audio_idle_timeout == 0


class Server:
    """The router in a real uvicorn server on 127.0.0.1 (random port)."""

    def __init__(self, factory):
        import uvicorn
        from fastapi import FastAPI

        from audio.browser import make_voice_router

        app = FastAPI()
        app.include_router(make_voice_router(factory))
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0,
                                                    log_level="warning", lifespan="off"))

    async def __aenter__(self):
        self.task = asyncio.create_task(self.server.serve())
        while not self.server.started:
            await asyncio.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}/ws/voice"

    async def __aexit__(self, *exc):
        self.server.should_exit = True
        await asyncio.wait_for(self.task, timeout=10)


class Client:
    def __init__(self, ws) -> None:
        self.ws = ws
        self.log: list[tuple[str, object]] = []  # ("audio", generation) / ("json", message)

    async def until(self, predicate, timeout=15.0):
        async def pump():
            while not predicate():
                data = await self.ws.recv()
                if isinstance(data, bytes):
                    self.log.append(("audio", struct.unpack("<II", data[:8])[0]))
                else:
                    self.log.append(("json", json.loads(data)))
        await asyncio.wait_for(pump(), timeout)

    def events(self, name):
        return [m["event"] for k, m in self.log if k == "json" and m.get("type") == "event"
                and m["event"]["event"] == name]

    def audio_of(self, generation):
        return [g for k, g in self.log if k == "audio" and g == generation]


@pytest.mark.audio
@pytest.mark.slow
@pytest.mark.anyio
async def test_typed_and_spoken_turns_are_voiced_and_a_barge_in_clears_the_stale_generation():
    import websockets

    conversations = []

    def factory(sink):
        trace = Trace(debug=True)
        conversation = EchoConversation(sink, trace)
        conversations.append(conversation)
        return type("Session", (), {"conversation": conversation, "trace": trace})()

    async with Server(factory) as url, websockets.connect(url) as ws:
        client = Client(ws)
        await ws.send("this is not json")  # ignored, never fatal
        await ws.send(json.dumps({"type": "text", "text": "Tell me about the valves."}))
        await client.until(lambda: len(client.audio_of(1)) > 5)
        # a second typed turn while generation 1 plays is a real turn over agent speech
        await ws.send(json.dumps({"type": "text", "text": "Actually, Thursday."}))
        await client.until(lambda: ("json", {"type": "clear", "generation": 1}) in client.log)
        await client.until(lambda: len(client.audio_of(2)) > 3)
        cleared = client.log.index(("json", {"type": "clear", "generation": 1}))
        assert [g for k, g in client.log[cleared:] if k == "audio"] and \
            1 not in [g for k, g in client.log[cleared:] if k == "audio"]
        # speech: 20 ms PCM16 frames, then silence so the turn can end
        speech = synth.piper("Please book pump P 100 for Friday.").samples
        pcm = np.concatenate([speech, np.zeros(16000, np.float32)])
        pcm16 = (pcm * 32767).astype("<i2").tobytes()
        for i in range(0, len(pcm16), 640):
            await ws.send(pcm16[i:i + 640])
            await asyncio.sleep(0.004)  # faster than real time: the server copes either way
        await client.until(lambda: any("friday" in str(e.get("text", "")).lower()
                                       for e in client.events("user_turn_voiced")), timeout=20)
    assert [t.text for t in conversations[0].turns][:2] == ["Tell me about the valves.",
                                                            "Actually, Thursday."]
    assert client.events("generation_invalidated")


@pytest.mark.anyio
async def test_factory_refusal_reaches_the_client_as_an_error_message():
    import websockets

    def refuse(sink):
        raise InvalidInput("voice link: no session for this tab; reload the page")

    async with Server(refuse) as url, websockets.connect(url) as ws:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert message == {"type": "error", "code": "no_session",
                       "message": "voice link: no session for this tab; reload the page"}
