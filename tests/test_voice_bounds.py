"""Every bound on the browser voice link (issue 19, item 2), each with its message.

* a binary message over MAX_AUDIO_MESSAGE_BYTES is refused with a ``warning`` naming the
  bound, and the link stays usable; so is a text message over MAX_TEXT_MESSAGE_CHARS;
* audio faster than real time is held to real-time pace past RATE_ALLOWANCE_SECS of lead,
  with one ``too_fast`` warning;
* a caller turn is cut at ``max_turn_secs`` of audio, heard and handled like any other, and
  the reply starts with LONG_TURN_NOTICE;
* one link past ``max_sessions`` is told ``busy`` and closed, with no pipeline built for it;
* the shared Whisper workers take callers' recognitions in a fair order (FairQueue).

The socket tests run the real router in a real uvicorn server on 127.0.0.1 with the real
pipeline; the agent's voice is stood in (a 10 ms chunk per sentence, each sentence recorded)
so what the agent says can be read without waiting for speech. Sequencing is by the messages
the server sends, never by sleeping.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agent.core.errors import InvalidInput
from agent.core.speech import SpeechPlan
from agent.core.trace import Trace

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import EchoConversation, served_on_loopback  # noqa: E402


class StandInVoice:
    """Piper's voice as the TTS service uses it; keeps every sentence it was asked to say."""

    class config:  # noqa: N801 - the attribute Piper's voice has
        sample_rate = 24000

    class Chunk:
        audio_int16_bytes = bytes(480)

    def __init__(self):
        self.said: list[str] = []

    def synthesize(self, text):
        self.said.append(text)
        yield self.Chunk()


@pytest.fixture
def voice(monkeypatch):
    from audio import services

    stand_in = StandInVoice()
    monkeypatch.setitem(services._cache, "piper", stand_in)
    return stand_in


class Session:
    """A session as the hub's voice_session makes one: its greeting on the next loop turn."""

    def __init__(self, sink):
        self.trace = Trace(debug=True)
        self.conversation = EchoConversation(sink, self.trace, greeting=("Hello.",))
        self.started = asyncio.get_running_loop().create_task(self.conversation.start())


@contextlib.asynccontextmanager
async def serving(router):
    """``router`` in a real uvicorn server on 127.0.0.1; yields the socket's URL."""
    from fastapi import FastAPI

    app = FastAPI()
    app.include_router(router)
    async with served_on_loopback(app) as (port, _server):
        yield f"ws://127.0.0.1:{port}/ws/voice"


async def until(ws, predicate, timeout: float = 30.0) -> dict:
    """The first JSON message ``predicate`` accepts (audio and other messages skipped)."""
    async def read():
        while True:
            data = await ws.recv()
            if isinstance(data, str) and predicate(message := json.loads(data)):
                return message
    return await asyncio.wait_for(read(), timeout)


def event(name: str, **match):
    return lambda m: (m.get("type") == "event" and m["event"].get("event") == name
                      and all(m["event"].get(k) == v for k, v in match.items()))


# -- audio and text per message ------------------------------------------------------------

@pytest.mark.audio
@pytest.mark.anyio
async def test_an_audio_message_over_the_bound_is_refused_and_the_link_stays_usable(voice):
    import websockets

    from audio.browser import MAX_AUDIO_MESSAGE_BYTES, make_voice_router

    assert MAX_AUDIO_MESSAGE_BYTES == 16000  # 500 ms of 16 kHz PCM16
    async with serving(make_voice_router(Session)) as url, websockets.connect(url) as ws:
        await until(ws, event("agent_speech_stopped"))  # the greeting has played
        await ws.send(bytes(MAX_AUDIO_MESSAGE_BYTES + 2))  # e.g. 8 MiB of audio at once
        warning = await until(ws, lambda m: m.get("type") == "warning")
        assert warning["code"] == "audio_too_large"
        assert "16000 bytes" in warning["message"] and "500 ms" in warning["message"]
        await ws.send(bytes(MAX_AUDIO_MESSAGE_BYTES))  # at the bound: taken
        await ws.send(json.dumps({"type": "text", "text": "Still there?"}))
        heard = await until(ws, event("user_turn_voiced", channel="typed"))
        assert heard["event"]["text"] == "Still there?"
        await until(ws, event("agent_speech_stopped"))
    assert "You said: Still there?" in voice.said


@pytest.mark.anyio
async def test_a_text_message_over_the_bound_is_refused_with_a_warning():
    from audio.browser import MAX_TEXT_MESSAGE_CHARS, VoiceSerializer
    from audio.frames import TypedTurnFrame

    sent: list[dict] = []

    async def notify(message):
        sent.append(message)

    serializer = VoiceSerializer(notify=notify)
    long = json.dumps({"type": "text", "text": "x" * MAX_TEXT_MESSAGE_CHARS})
    assert await serializer.deserialize(long) is None
    assert [m["code"] for m in sent] == ["text_too_long"]
    assert f"at most {MAX_TEXT_MESSAGE_CHARS} characters" in sent[0]["message"]
    typed = await serializer.deserialize(json.dumps({"type": "text", "text": "hi"}))
    assert isinstance(typed, TypedTurnFrame) and typed.text == "hi" and len(sent) == 1


# -- pace ----------------------------------------------------------------------------------

class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


FRAME = bytes(640)  # 20 ms


def test_audio_may_run_ahead_of_the_clock_by_the_allowance_and_no_more():
    from audio.browser import RATE_ALLOWANCE_SECS, InputGuard, LinkLimits

    clock = FakeClock()
    guard = InputGuard(LinkLimits(clock=clock))
    frames = round(RATE_ALLOWANCE_SECS * 50)
    decisions = [guard.audio(len(FRAME)) for _ in range(frames)]  # 3 s at once: allowed
    assert all(take and hold == 0 and notice is None for take, hold, notice in decisions)
    take, hold, notice = guard.audio(len(FRAME))  # one frame more: held for its length
    assert take and hold == pytest.approx(0.02)
    assert notice is not None and notice["code"] == "too_fast" and "3 s" in notice["message"]
    assert guard.audio(len(FRAME))[1:] == (pytest.approx(0.04), None)  # warned once
    clock.now += 1.0  # a second later: a second of audio more
    for _ in range(47):
        assert guard.audio(len(FRAME))[1] == 0
    clock.now += 60.0  # a long pause refills the credit only up to the allowance
    assert sum(guard.audio(len(FRAME))[1] > 0 for _ in range(frames + 1)) == 1


@pytest.mark.anyio
async def test_the_link_reads_audio_ahead_of_real_time_at_real_time_pace():
    from audio.browser import InputGuard, LinkLimits, VoiceSerializer

    clock, held, sent = FakeClock(), [], []

    async def pause(secs):  # what the receive loop would wait; the clock moves as it would
        held.append(secs)
        clock.now += secs

    async def notify(message):
        sent.append(message["code"])

    serializer = VoiceSerializer(InputGuard(LinkLimits(rate_allowance_secs=0.1, clock=clock)),
                                 notify=notify, pause=pause)
    frames = [await serializer.deserialize(FRAME) for _ in range(10)]  # 200 ms at once
    assert all(f is not None and f.audio == FRAME for f in frames)  # nothing dropped
    assert held == [pytest.approx(0.02)] * 5 and sent == ["too_fast"]


# -- the length of a turn ------------------------------------------------------------------

@pytest.mark.audio
@pytest.mark.anyio
@pytest.mark.parametrize("vad_hears_the_end", ["in_its_time", "after_the_reply"])
async def test_a_long_turn_is_cut_heard_and_answered_and_the_reply_says_so(
        voice, monkeypatch, vad_hears_the_end):
    """A caller who talks on: the turn ends at max_turn_secs of audio (here 2 s, to keep the
    test short), what was said up to there reaches the conversation as a turn, and the reply
    starts with the notice. The audio is sent faster than real time (no pacing here).

    ``after_the_reply``: the turn's end reaches the VAD stage (upstream) only once the reply
    has been said, as it can on a busy machine; the notice must not wait for it."""
    import websockets

    from audio import synth
    from audio.browser import LinkLimits, make_voice_router
    from audio.pipeline import LONG_TURN_NOTICE, PipelineConfig
    from audio.turns import CappedVADProcessor

    if vad_hears_the_end == "after_the_reply":
        replied = asyncio.Event()
        synthesize = voice.synthesize

        def noting_the_reply(text):
            if text == "Got it.":
                replied.set()
            return synthesize(text)

        monkeypatch.setattr(voice, "synthesize", noting_the_reply)
        turn_ended = CappedVADProcessor._turn_ended

        async def late(self):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(replied.wait(), 30)  # the notice's failure: no reply
            await turn_ended(self)

        monkeypatch.setattr(CappedVADProcessor, "_turn_ended", late)

    sessions: list[Session] = []

    def factory(sink):
        sessions.append(Session(sink))
        return sessions[-1]

    speech = synth.piper("I need a technician for pump P 100 at the harbour site, and then "
                         "I also want to ask about the valves on the other pump.").samples
    assert speech.size > 3.5 * 16000
    pcm = (np.concatenate([speech, np.zeros(24000, np.float32)]) * 32767).astype("<i2")
    router = make_voice_router(factory, config=PipelineConfig(max_turn_secs=2.0),
                               limits=LinkLimits(rate_allowance_secs=600))
    async with serving(router) as url, websockets.connect(url) as ws:
        await until(ws, event("agent_speech_stopped"))
        data = pcm.tobytes()
        for i in range(0, len(data), 640):
            await ws.send(data[i:i + 640])
        heard = await until(ws, event("user_turn_voiced", channel="voice"))
        await until(ws, event("agent_speech_stopped", generation=2))  # the reply has played
    said = voice.said
    conversation = sessions[0].conversation
    assert heard["event"]["text"] and conversation.turns[0].text == heard["event"]["text"]
    assert "valves" not in conversation.turns[0].text.lower()  # cut before the end
    reply = said.index(LONG_TURN_NOTICE)
    assert said[reply + 1:reply + 3] == ["Got it.", f"You said: {conversation.turns[0].text}"]
    assert said.count(LONG_TURN_NOTICE) == 1


def test_the_notice_leads_only_the_reply_to_a_cut_turn():
    from audio.pipeline import LONG_TURN_NOTICE, LongTurnNotice

    spoken = []

    class Sink:
        def speak(self, plan):
            spoken.append(plan.sentences)

        def invalidate(self, generation, reason):
            spoken.append(("invalidated", generation))

    cuts = [0]  # the VAD stage's count of turns cut
    notice = LongTurnNotice(Sink(), cuts=lambda: cuts[0])

    def plan(generation, *sentences):
        return SpeechPlan(generation, "q", 0, sentences)

    notice.speak(plan(1, "Hello."))
    cuts[0] += 1
    notice.turn_ended()
    notice.invalidate(1, "barge_in")
    notice.speak(plan(2, " "))  # nothing to say: the notice waits for a reply that says some
    notice.speak(plan(3, "Got it."))
    notice.speak(plan(4, "Anything else?"))
    cuts[0] += 1
    notice.turn_ended()
    notice.turn_ended()  # the next turn ended without a reply and was not cut: no longer due
    notice.speak(plan(5, "Okay."))
    assert spoken == [("Hello.",), ("invalidated", 1), (" ",), (LONG_TURN_NOTICE, "Got it."),
                      ("Anything else?",), ("Okay.",)]
    assert notice.said == 1


@pytest.mark.anyio
async def test_a_cut_turn_ends_once_its_words_are_in_whatever_follows():
    """The end-of-turn strategy on a cut: no silence to wait for, only the recogniser."""
    from pipecat.frames.frames import (
        InputAudioRawFrame,
        VADUserStartedSpeakingFrame,
        VADUserStoppedSpeakingFrame,
    )

    from audio.frames import TurnCutFrame, VoiceStartingFrame
    from audio.turns import AudioClockTurnStop

    idle = [False]
    strategy = AudioClockTurnStop(stt_idle=lambda: idle[0])
    stopped = []

    async def trigger():
        stopped.append(strategy.clock.now)

    strategy.trigger_user_turn_stopped = trigger
    audio = InputAudioRawFrame(bytes(640), 16000, 1)
    await strategy.handle_user_turn_started()
    await strategy.process_frame(VADUserStartedSpeakingFrame())
    await strategy.process_frame(audio)
    await strategy.process_frame(VADUserStoppedSpeakingFrame())  # the cut's stop
    await strategy.process_frame(TurnCutFrame())
    await strategy.process_frame(VoiceStartingFrame(started=True))  # a voice goes on
    await strategy.process_frame(audio)
    assert stopped == []  # the recogniser is still hearing the cut turn
    idle[0] = True
    await strategy.process_frame(audio)
    assert stopped == [pytest.approx(0.06)]  # at once: no silence was needed
    await strategy.handle_user_turn_stopped()
    await strategy.handle_user_turn_started()
    await strategy.process_frame(VADUserStoppedSpeakingFrame())
    await strategy.process_frame(audio)
    assert len(stopped) == 1  # a turn that was not cut waits for its silence again


@pytest.mark.audio
@pytest.mark.anyio
async def test_the_vad_holds_a_cut_turn_until_it_ends_then_opens_the_next_one():
    """The VAD stage on its own, with a scripted voice (loud frames are a voice): the cut
    comes at max_turn_secs of audio after the start, the VAD's own frames are held back
    while the cut turn lasts, and the end of that turn opens the next one (still speaking)."""
    from pipecat.audio.vad.vad_analyzer import VADParams
    from pipecat.frames.frames import (
        Frame,
        InputAudioRawFrame,
        SystemFrame,
        UserSpeakingFrame,
        UserStoppedSpeakingFrame,
        VADUserStartedSpeakingFrame,
        VADUserStoppedSpeakingFrame,
    )
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.workers.runner import WorkerRunner

    from audio.frames import TurnCutFrame, VoiceFadingFrame, VoiceStartingFrame
    from audio.services import SharedSilero
    from audio.turns import CappedVADProcessor

    class ScriptedVoice(SharedSilero):
        def voice_confidence(self, buffer) -> float:
            return 1.0 if any(buffer) else 0.0

    class Marker(SystemFrame):
        pass

    watched = (VADUserStartedSpeakingFrame, VADUserStoppedSpeakingFrame, UserSpeakingFrame,
               TurnCutFrame, VoiceFadingFrame, VoiceStartingFrame, Marker)

    seen: list[str] = []
    arrived: dict[str, asyncio.Event] = collections.defaultdict(asyncio.Event)

    class Capture(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if direction == FrameDirection.DOWNSTREAM and isinstance(frame, watched):
                seen.append(type(frame).__name__)
                arrived[type(frame).__name__].set()
            await self.push_frame(frame, direction)

    ended: list[bool] = []
    vad = CappedVADProcessor(vad_analyzer=ScriptedVoice(params=VADParams(
        start_secs=0.1, stop_secs=0.2, min_volume=0.0)), audio_idle_timeout=0,
        max_turn_secs=0.5, on_turn_end=ended.append)
    worker = PipelineWorker(Pipeline([vad, Capture()]), params=PipelineParams(
        audio_in_sample_rate=16000), idle_timeout_secs=None, enable_rtvi=False)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    running = asyncio.create_task(runner.run())
    voice = InputAudioRawFrame(b"\xff\x7f\x01\x80" * 160, 16000, 1)  # 20 ms, full scale

    async def send(*frames, until: str):
        arrived[until].clear()
        for frame in frames:
            await worker.queue_frame(frame)
        await asyncio.wait_for(arrived[until].wait(), 30)

    try:
        await send(*[voice] * 40, Marker(), until="Marker")  # 0.8 s of voice
        core = {"VADUserStartedSpeakingFrame", "VADUserStoppedSpeakingFrame", "TurnCutFrame"}
        assert [n for n in seen if n in core] == [
            "VADUserStartedSpeakingFrame", "VADUserStoppedSpeakingFrame", "TurnCutFrame"]
        assert seen[seen.index("TurnCutFrame"):] == ["TurnCutFrame", "Marker"]
        seen.clear()
        await send(*[voice] * 20, Marker(), until="Marker")  # the caller goes on: held back
        assert seen == ["Marker"] and vad.cuts == 1
        seen.clear()
        arrived["VADUserStartedSpeakingFrame"].clear()
        await worker.queue_frame(UserStoppedSpeakingFrame(), FrameDirection.UPSTREAM)
        await asyncio.wait_for(arrived["VADUserStartedSpeakingFrame"].wait(), 30)
        assert seen == ["VADUserStartedSpeakingFrame"] and ended == [True]
    finally:
        await runner.cancel()
        await running


# -- simultaneous links --------------------------------------------------------------------

@pytest.mark.audio
@pytest.mark.anyio
async def test_a_link_past_max_sessions_is_told_busy_and_gets_no_pipeline(voice, monkeypatch):
    import websockets

    from audio import browser

    built = []
    real_build = browser.build_pipeline

    def counting_build(*args, **kwargs):
        built.append(1)
        return real_build(*args, **kwargs)

    monkeypatch.setattr(browser, "build_pipeline", counting_build)
    factory_calls = []

    def factory(sink):
        factory_calls.append(1)
        return Session(sink)

    router = browser.make_voice_router(factory, max_sessions=1)
    async with serving(router) as url, websockets.connect(url) as first:
        await until(first, event("agent_speech_stopped"))
        async with websockets.connect(url) as second:
            refusal = json.loads(await asyncio.wait_for(second.recv(), 30))
            await second.wait_closed()
        assert refusal == {"type": "error", "code": "busy",
                           "message": browser.busy_message(1)}
        assert "busy" in refusal["message"] and "try again shortly" in refusal["message"]
        assert second.close_code == browser.CLOSE_TRY_AGAIN
        assert built == [1] and factory_calls == [1] and router.links.refused_busy == 1
        await first.send(json.dumps({"type": "text", "text": "Still mine?"}))
        await until(first, event("user_turn_voiced", channel="typed"))
    await router.links.wait_idle()
    async with serving(router) as url, websockets.connect(url) as again:  # the place is free
        await until(again, event("agent_speech_stopped"))
    assert built == [1, 1]


@pytest.mark.anyio
async def test_a_refused_session_builds_no_pipeline_either(monkeypatch):
    import websockets

    from audio import browser

    monkeypatch.setattr(browser, "build_pipeline", None)  # would fail if it were called

    def refuse(sink):
        raise InvalidInput("voice link: no session for this tab; reload the page")

    monkeypatch.setattr(browser.services, "warm", lambda: None)
    router = browser.make_voice_router(refuse)
    async with serving(router) as url, websockets.connect(url) as ws:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        await ws.wait_closed()
    assert message == {"type": "error", "code": "no_session",
                       "message": "voice link: no session for this tab; reload the page"}
    assert ws.close_code == browser.CLOSE_POLICY


# -- fair shares of the Whisper workers ----------------------------------------------------

@pytest.mark.anyio
async def test_a_short_turn_waits_for_one_running_segment_not_for_a_queue_of_long_ones():
    """One place (one worker). Caller A holds it with a long segment and has three more
    queued; caller B's short turn arrives last. FIFO would run A, A, A, A, B; the fair queue
    runs B as soon as the place frees: one segment's worth of waiting."""
    from audio.services import FairQueue

    queue = FairQueue(lambda: 1)
    order: list[str] = []
    done = {name: asyncio.Event() for name in ("a1", "a2", "a3", "a4", "b1")}

    async def job(name: str, caller: str, cost: float) -> None:
        await queue.acquire(caller, cost)
        order.append(name)
        await done[name].wait()
        queue.release()

    tasks = [asyncio.create_task(job("a1", "A", 20.0))]
    while not order:
        await asyncio.sleep(0)  # yields until a1 holds the place
    for name in ("a2", "a3", "a4"):
        tasks.append(asyncio.create_task(job(name, "A", 20.0)))
    tasks.append(asyncio.create_task(job("b1", "B", 2.0)))
    await asyncio.sleep(0)  # every job is queued (each queued at its first step)
    assert (queue.busy, queue.waiting) == (1, 4)
    for name in ("a1", "b1", "a2", "a3", "a4"):
        while order[-1] != name:
            await asyncio.sleep(0)  # yields until the queue gives the place on
        done[name].set()
    await asyncio.gather(*tasks)
    assert order == ["a1", "b1", "a2", "a3", "a4"]
    assert (queue.busy, queue.waiting, queue.callers) == (0, 0, 0)


@pytest.mark.anyio
async def test_a_busy_caller_still_gets_its_turn_and_a_cancelled_wait_gives_its_place_up():
    from audio.services import FairQueue

    queue = FairQueue(lambda: 1)
    order: list[str] = []
    release = asyncio.Event()

    async def job(name: str, caller: str, cost: float) -> None:
        await queue.acquire(caller, cost)
        order.append(name)
        await release.wait()
        release.clear()
        queue.release()

    first = asyncio.create_task(job("a1", "A", 5.0))
    while not order:
        await asyncio.sleep(0)
    queued = [asyncio.create_task(job("a2", "A", 5.0))]
    queued += [asyncio.create_task(job(f"b{i}", "B", 2.0)) for i in range(1, 6)]
    gone = asyncio.create_task(job("c1", "C", 1.0))
    await asyncio.sleep(0)
    gone.cancel()  # a caller who hung up while waiting
    with pytest.raises(asyncio.CancelledError):
        await gone
    jobs = (first, *queued)
    while not all(task.done() for task in jobs):
        seen = len(order)
        release.set()  # the job holding the place finishes; the queue picks the next
        while len(order) == seen and not all(task.done() for task in jobs):
            await asyncio.sleep(0)  # yields until the next job holds the place
    await asyncio.gather(*jobs)
    # B is charged 2 s a turn, A 5 s: after two of B's (4 s, finishing before A's second at
    # 10 s) and a third (6 s), A's second (10 s) comes before B's fifth (10 s: later arrival)
    assert order == ["a1", "b1", "b2", "b3", "b4", "a2", "b5"]
    assert "c1" not in order and queue.busy == 0


@pytest.mark.anyio
async def test_recognitions_run_through_the_queue_and_hold_a_place_until_their_thread_ends():
    import threading

    from audio.services import FairQueue

    queue = FairQueue(lambda: 1)
    started, finish = threading.Event(), threading.Event()

    def blocking(x):
        started.set()
        finish.wait(30)
        return x * 2

    task = asyncio.create_task(queue.run("A", 1.0, blocking, 21))
    await asyncio.to_thread(started.wait, 30)
    task.cancel()  # the caller hung up: the recognition cannot be stopped half way
    with pytest.raises(asyncio.CancelledError):
        await task
    assert queue.busy == 1  # the worker is still busy with it
    waiting = asyncio.create_task(queue.run("B", 1.0, lambda: "b"))
    await asyncio.sleep(0)
    assert queue.waiting == 1
    finish.set()
    assert await asyncio.wait_for(waiting, 30) == "b"
    assert queue.busy == 0


def test_the_fairness_benchmark_reports_the_wait_both_ways():
    """The pure half of audio/bench_fairness.py: medians in ms, the bound beside the queue's."""
    from audio.bench_fairness import Measured, rows_of

    rows = rows_of([Measured("fifo", (1.0, 1.4, 1.2), (2.0, 2.2), 2.0),
                    Measured("fair", (0.2, 0.4, 0.3), (2.1,), 2.0)], long_callers=3)
    values = {r.figure: (r.value, r.target) for r in rows}
    assert values["Whisper sharing: one long segment's recognition on idle workers"] == (
        2000, "report (one segment's worth)")
    fifo = "Whisper sharing, FIFO, as before: short turn's wait behind 3 callers' long " \
           "segments, median (3 turns)"
    fair = "Whisper sharing, fair queue: short turn's wait behind 3 callers' long segments, " \
           "median (3 turns)"
    assert values[fifo] == (1200, "report") and values[fair] == (300, "≤ 2000 ms (one segment)")
