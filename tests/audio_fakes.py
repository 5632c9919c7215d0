"""A small fake Conversation for the audio tests: echoes turns, invalidates on barge-in; and
the caller frames the end-of-turn tests feed (``audio_frames``, ``said``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
from pipecat.frames.frames import InputAudioRawFrame, TranscriptionFrame

from agent.core.ledger import Ledger
from agent.core.speech import Generations, SpeechKind, SpeechPlan, SpeechSink, Utterance
from agent.core.trace import Trace

FRAME_SECS = 0.02  # one caller audio frame: 320 samples at 16 kHz


def audio_frames(secs: float, *, voiced: bool = False) -> list[InputAudioRawFrame]:
    """``secs`` of caller audio in 20 ms frames: a steady level (voiced) or silence."""
    chunk = np.full(320, 3000 if voiced else 0, dtype=np.int16).tobytes()
    return [InputAudioRawFrame(chunk, 16000, 1) for _ in range(round(secs / FRAME_SECS))]


def said(text: str) -> TranscriptionFrame:
    """A final, cumulative transcript of the turn so far, as the recogniser sends it."""
    return TranscriptionFrame(text, "caller", "2026-12-01T09:00:00", result={"cumulative": True},
                              finalized=True)


LONG_GREETING = (
    "Hello, this is the Amend service desk.",
    "I can book a service visit, move one, or cancel one for you.",
    "I can also answer maintenance questions about your pumps and valves.",
    "Tell me what you need, and correct me any time.",
)


class EchoConversation:
    """Speaks a long greeting, then answers every turn with what it heard."""

    def __init__(self, sink: SpeechSink, trace: Trace, greeting=LONG_GREETING):
        self.sink, self.trace, self.greeting = sink, trace, greeting
        self.generations = Generations()
        self.turns: list[Utterance] = []
        self.barge_ins = 0
        self._ledger = Ledger("q-test")

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    @property
    def busy(self) -> bool:
        return False

    def _say(self, *sentences: str) -> SpeechPlan:
        plan = SpeechPlan(self.generations.next(), "q-test", 0, tuple(sentences),
                          SpeechKind.INFO)
        self.sink.speak(plan)
        return plan

    async def start(self) -> None:
        self._say(*self.greeting)

    async def user_turn(self, utterance: Utterance) -> None:
        self.turns.append(utterance)
        self._say("Got it.", f"You said: {utterance.text}")

    def barge_in(self) -> None:
        self.barge_ins += 1
        self.sink.invalidate(self.generations.invalidate(), "barge_in")

    async def wait_idle(self) -> None:
        return None

    async def close(self) -> None:
        return None


class EchoWorld:
    """A world for the call runner: no sandbox, just the echo agent (audio-mode plumbing)."""

    def __init__(self, spec, sink: SpeechSink, trace: Trace):
        self.spec = spec
        self.agent = EchoConversation(sink, trace, greeting=("Hello, echo line.",))

    @property
    def conversation(self) -> EchoConversation:
        return self.agent

    async def bookings(self):
        return []

    async def notifications(self):
        return []

    async def staff_edit(self, ref, changes):
        return None

    def meta(self):
        return {"tool_schema_version": "echo"}


def echo_world_factory():
    import contextlib

    @contextlib.asynccontextmanager
    async def build(spec, sink, trace):
        yield EchoWorld(spec, sink, trace)
    return build


@contextlib.asynccontextmanager
async def served_on_loopback(app: Any) -> AsyncIterator[tuple[int, Any]]:
    """``app`` under a real uvicorn server on 127.0.0.1, on this event loop; yields its port
    and the ``uvicorn.Server`` (whose ``server_state`` counts open connections)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                           lifespan="off"))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:  # uvicorn offers no event for it
            await asyncio.sleep(0.01)
        yield server.servers[0].sockets[0].getsockname()[1], server
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


class AnswersLate(EchoConversation):
    """Answers the first turn only once the test lets it (``answer``): by then the caller's
    next turn has begun, as on a loaded machine, where a turn's end and the caller going on
    after it reach the adapter together, before the reply exists."""

    def __init__(self, sink, trace):
        super().__init__(sink, trace, greeting=())
        self.answer = asyncio.Event()
        self.waiting = False  # the first turn came in and waits for ``answer``

    async def user_turn(self, utterance: Utterance) -> None:
        if not self.answer.is_set():
            self.waiting = True
            await self.answer.wait()
        await super().user_turn(utterance)
