"""The controller adapter's barge-in decisions, driven by scripted recognition frames
(``run_test``, no models): pause at onset, resume on a backchannel, cut on a real turn, and
never leave output on hold. And its trace: every invalidation on it exactly once, whether
the conversation traced it (the controller) or not (the benchmarks' stand-in), decided by
state, never by reading the trace back."""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path

import numpy as np
import pytest
from pipecat.frames.frames import (
    InputAudioRawFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.tests.utils import SleepFrame, run_test

from agent.core.speech import SpeechKind, SpeechPlan, Utterance
from agent.core.trace import Trace
from audio.adapter import ControllerAdapter
from audio.barge_in_control import EARLY_RESUME_SECS
from audio.frames import (
    CLIP_END_KEY,
    SEGMENT_KEY,
    GenerationAudio,
    SegmentHeardFrame,
    context_id_for,
    stamp_captured,
)
from audio.generation_gate import GateEvent, GenerationGate
from audio.live_call import CLIP_LOST_SECS
from audio.stand_in import Responder
from audio.turn_intake import UNHEARD_TURN_SECS
from tests.fakes.clock import FakeClock
from tests.fakes.world import open_fake_world

sys.path.insert(0, str(Path(__file__).parent))
from audio_fakes import AnswersLate, EchoConversation  # noqa: E402

RATE = 16000
FRAME_SECS = 0.02
CHUNK = b"\x01\x00" * (RATE // 50)


def speech(generation: int, chunks: int):
    ctx = context_id_for(generation)
    return [TTSStartedFrame(context_id=ctx),
            *[TTSAudioRawFrame(CHUNK, RATE, 1, context_id=ctx) for _ in range(chunks)],
            TTSStoppedFrame(context_id=ctx)]


def heard(text: str) -> list:
    """A final transcript, then a beat: in the pipeline, turn and VAD frames (system frames)
    come after the transcript they follow; here they would overtake it in the queue."""
    return [TranscriptionFrame(text, "caller", "2026-12-01T09:00:00Z",
                               result={"confidence": 0.9, "cumulative": True}, finalized=True),
            SleepFrame(0.02)]


class SoundOnly:
    """The recogniser's side the turn intake reads, for a turn it heard no words in: the
    turn's segments held ``voiced`` seconds of sound from VAD onset to stop."""

    hotwords = "none"  # not biased: the adapter leaves it alone
    pending = emitted = 0

    def __init__(self, voiced: float):
        self.voiced = voiced
        self.settled_listeners: list = []
        self.resets = 0

    def turn_voiced_secs(self) -> float:
        return self.voiced

    def reset_turn(self) -> None:
        self.resets += 1


async def drive(frames, stt=None, *, first_plan: SpeechKind | None = None, watch=None,
                **adapter_kw):
    """Run ``frames`` through the adapter and the gate; generation 1 is the one the frames
    play. With ``first_plan``, generation 1 is a plan of that kind (the agent's words).
    ``watch(adapter, gate)`` is called before the frames go in."""
    trace = Trace(debug=True)
    gate = GenerationGate()
    adapter = ControllerAdapter(gate, trace, stt=stt, **adapter_kw)
    conversation = EchoConversation(adapter.sink, trace)
    conversation.generations.current = 1  # generation 1 is "playing" below
    adapter.attach(conversation)
    if watch is not None:
        watch(adapter, gate)
    if first_plan is not None:
        adapter.bridge.planned(SpeechPlan(1, "q-test", 0, ("Which day suits you?",), first_plan))
    down, _ = await run_test(Pipeline([adapter, gate]), frames_to_send=frames)
    return trace, gate, conversation, list(down)


def gens_after_clear(down, generation):
    clear = next(i for i, f in enumerate(down) if getattr(f, "message", None) ==
                 {"type": "clear", "generation": generation})
    return [type(f).generation for f in down[clear:] if isinstance(f, GenerationAudio)]


@pytest.mark.anyio
async def test_agent_speech_restarting_over_a_real_turn_is_cut_and_never_left_paused():
    frames = [*speech(1, 30), SleepFrame(0.1),
              VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
              *heard("Sorry, make it Thursday"), SleepFrame(0.05),
              *speech(2, 30), SleepFrame(0.1),  # the agent starts again; the caller goes on
              VADUserStoppedSpeakingFrame(), VADUserStartedSpeakingFrame(),
              *heard("Sorry, make it Thursday morning instead"),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.3)]
    trace, gate, conversation, down = await drive(frames)
    assert not gate.paused
    assert 1 not in gens_after_clear(down, 1)
    assert 2 not in gens_after_clear(down, 2)
    assert [t.text for t in conversation.turns] == ["Sorry, make it Thursday morning instead"]
    assert [e.generation for e in trace.named("barge_in_paused")] == [1, 2]
    # the echo conversation does not trace its invalidation (1); the adapter's own cut of the
    # newer speech (2) is the gate's alone: each is on the trace once
    assert [e.get("invalidated") for e in trace.named("generation_invalidated")] == [1, 2]


@pytest.mark.anyio
async def test_backchannel_resumes_and_is_not_a_turn():
    frames = [*speech(1, 40), SleepFrame(0.1),
              VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), SleepFrame(0.1),
              *heard("Mm-hmm."), VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(),
              SleepFrame(0.9)]
    trace, gate, conversation, down = await drive(frames)
    assert not gate.paused and conversation.turns == [] and conversation.barge_ins == 0
    assert [type(f).generation for f in down if isinstance(f, GenerationAudio)] == [1] * 40
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert trace.named("backchannel_ignored")


@pytest.mark.anyio
async def test_what_the_recogniser_knows_beyond_the_text_reaches_the_turn():
    """Words, no-speech and the answer share (audio/whisper.py) go with the turn to the agent,
    from the recogniser's last cumulative transcript of it."""
    said = TranscriptionFrame("Yes.", "caller", "2026-12-01T09:00:00Z", result={
        "confidence": 0.56, "cumulative": True, "words": (("Yes", 0.33),), "no_speech": 0.02,
        "answer": 0.97}, finalized=True)
    frames = [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), said, SleepFrame(0.02),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.2)]
    _, _, conversation, _ = await drive(frames)
    [turn] = conversation.turns
    assert (turn.text, turn.confidence, turn.words, turn.no_speech, turn.answer) == \
        ("Yes.", 0.56, (("Yes", 0.33),), 0.02, 0.97)


@pytest.mark.anyio
async def test_lead_in_then_breath_then_words_is_one_turn():
    frames = [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), *heard("Sorry."),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.3),
              VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
              *heard("Sorry. Thursday morning, not Wednesday."),
              VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.2)]
    _, _, conversation, _ = await drive(frames)
    assert [t.text for t in conversation.turns] == ["Sorry. Thursday morning, not Wednesday."]


def answer_once_the_caller_went_on(adapter, gate) -> None:
    """``watch`` for :func:`drive`: let the conversation answer the first turn right after
    the adapter took in the VAD start of the caller's next one."""
    started = adapter.barge.vad_started

    def vad_started():
        started()
        conversation = adapter.intake.conversation
        if isinstance(conversation, AnswersLate) and conversation.waiting:
            conversation.answer.set()
    adapter.barge.vad_started = vad_started


def first_turn_then(*after) -> list:
    return [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
            *heard("I'd like to book the gearbox on"), VADUserStoppedSpeakingFrame(),
            UserStoppedSpeakingFrame(), SleepFrame(0.05),
            VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), SleepFrame(0.05), *after]


async def drive_late(frames):
    trace = Trace(debug=True)
    gate = GenerationGate()
    adapter = ControllerAdapter(gate, trace)
    conversation = AnswersLate(adapter.sink, trace)
    adapter.attach(conversation)
    answer_once_the_caller_went_on(adapter, gate)
    down, _ = await run_test(Pipeline([adapter, gate]), frames_to_send=frames)
    return trace, gate, conversation, list(down)


@pytest.mark.anyio
async def test_a_reply_begun_while_the_caller_already_went_on_is_held_and_cut_by_their_words():
    """Found under load: a sentence split at a pause, and the reply to its first half played
    in full over the second half, because the caller's going on reached the adapter before
    the reply existed. Held at once instead, then cut by the real turn, as when the caller's
    onset comes after the reply began."""
    frames = first_turn_then(*speech(1, 30), SleepFrame(0.05),  # the reply, generation 1
                             *heard("Friday afternoon."), VADUserStoppedSpeakingFrame(),
                             UserStoppedSpeakingFrame(), SleepFrame(0.3))
    trace, gate, conversation, down = await drive_late(frames)
    assert not any(isinstance(f, GenerationAudio) and type(f).generation == 1 for f in down)
    [paused] = trace.named("barge_in_paused")
    assert paused.generation == 1 and paused.get("caller_first") is True
    assert paused.get("onset_to_paused_ms") is None  # no onset over speech to time
    assert [e.get("invalidated") for e in trace.named("generation_invalidated")] == [1]
    assert [t.text for t in conversation.turns] == ["I'd like to book the gearbox on",
                                                    "Friday afternoon."]
    assert not gate.paused


@pytest.mark.anyio
async def test_a_reply_held_for_the_callers_next_turn_is_cut_at_once_if_its_words_are_in():
    frames = [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
              *heard("I'd like to book the gearbox on"), VADUserStoppedSpeakingFrame(),
              UserStoppedSpeakingFrame(), SleepFrame(0.05), VADUserStartedSpeakingFrame(),
              UserStartedSpeakingFrame(), *heard("Friday afternoon."), SleepFrame(0.05),
              *speech(1, 30), SleepFrame(0.1), VADUserStoppedSpeakingFrame(),
              UserStoppedSpeakingFrame(), SleepFrame(0.3)]
    trace = Trace(debug=True)
    gate = GenerationGate()
    adapter = ControllerAdapter(gate, trace)
    conversation = AnswersLate(adapter.sink, trace)
    adapter.attach(conversation)
    heard_words = adapter.barge.heard

    def heard_then_answer(text):  # the reply comes once the next turn's words are in
        heard_words(text)
        if conversation.waiting:
            conversation.answer.set()
    adapter.barge.heard = heard_then_answer
    down, _ = await run_test(Pipeline([adapter, gate]), frames_to_send=frames)
    assert not any(isinstance(f, GenerationAudio) and type(f).generation == 1 for f in down)
    assert [e.get("invalidated") for e in trace.named("generation_invalidated")] == [1]
    assert [t.text for t in conversation.turns] == ["I'd like to book the gearbox on",
                                                    "Friday afternoon."]


@pytest.mark.anyio
async def test_a_reply_held_for_a_backchannel_plays_in_full():
    frames = first_turn_then(*speech(1, 30), SleepFrame(0.05), *heard("Mm-hmm."),
                             VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(),
                             SleepFrame(0.8))
    trace, gate, conversation, down = await drive_late(frames)
    assert [type(f).generation for f in down if isinstance(f, GenerationAudio)] == [1] * 30
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert trace.named("backchannel_ignored") and not trace.named("generation_invalidated")
    assert [t.text for t in conversation.turns] == ["I'd like to book the gearbox on"]


@pytest.mark.anyio
async def test_a_reply_held_for_a_sound_that_never_became_words_plays_in_full():
    frames = first_turn_then(*speech(1, 30), SleepFrame(0.05), VADUserStoppedSpeakingFrame(),
                             *caller_audio(60, loud=False), UserStoppedSpeakingFrame(),
                             SleepFrame(0.8))
    trace, gate, conversation, down = await drive_late(frames)
    assert [type(f).generation for f in down if isinstance(f, GenerationAudio)] == [1] * 30
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert not trace.named("generation_invalidated") and not gate.paused


@pytest.mark.anyio
async def test_a_reply_after_the_callers_turn_ended_is_not_held():
    frames = [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(),
              *heard("Book the gearbox for Friday."), VADUserStoppedSpeakingFrame(),
              UserStoppedSpeakingFrame(), SleepFrame(0.1), *speech(2, 30), SleepFrame(0.8)]
    trace, gate, conversation, down = await drive(frames)
    assert [type(f).generation for f in down if isinstance(f, GenerationAudio)] == [2] * 30
    assert trace.named("barge_in_paused") == []


def sound_without_words():
    return [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), SleepFrame(0.05),
            VADUserStoppedSpeakingFrame(), UserStoppedSpeakingFrame(), SleepFrame(0.2)]


@pytest.mark.anyio
async def test_a_long_sound_without_words_while_the_agent_waits_is_an_unheard_turn():
    """An answer drowned in noise: the recogniser heard no words, but the caller made sound
    for longer than UNHEARD_TURN_SECS while the agent waited. The conversation gets an empty
    turn (confidence 0), so the agent asks again instead of waiting for a turn that
    already happened."""
    trace, gate, conversation, _ = await drive(sound_without_words(),
                                               stt=SoundOnly(UNHEARD_TURN_SECS + 0.3))
    assert [(t.text, t.confidence) for t in conversation.turns] == [("", 0.0)]
    assert [e.get("text") for e in trace.named("user_turn_voiced")] == [""]


@pytest.mark.anyio
@pytest.mark.parametrize("case", ["short sound", "over agent speech"])
async def test_a_cough_or_a_sound_over_agent_speech_is_no_turn(case):
    stt = SoundOnly(UNHEARD_TURN_SECS - 0.2 if case == "short sound" else 2.0)
    frames = sound_without_words()
    if case == "over agent speech":
        frames = [*speech(1, 60), SleepFrame(0.1), *frames]
    trace, gate, conversation, _ = await drive(frames, stt=stt)
    assert conversation.turns == [] and trace.named("user_turn_voiced") == []
    assert stt.resets == 1 and not gate.paused


class Numbered:
    """A recogniser that numbers its segments: records when the adapter lets it hear one
    (``reached``) and when a delivered turn's audio is forgotten (``reset_turn``)."""

    hotwords = "none"

    def __init__(self):
        self.settled_listeners: list = []
        self.segments = 0
        self.events: list[str] = []

    def turn_voiced_secs(self) -> float:
        return 1.0

    def reset_turn(self) -> None:
        self.events.append("reset")

    def reached(self, segment: int) -> None:
        self.events.append(f"hear {segment}")


def stop(segment: int) -> VADUserStoppedSpeakingFrame:
    frame = VADUserStoppedSpeakingFrame()
    frame.metadata[SEGMENT_KEY] = segment
    return frame


@pytest.mark.anyio
async def test_the_next_segment_is_heard_only_after_the_turn_before_it_was_delivered():
    """The turn ends after segment 1, whose words are still on their way; the caller has
    already gone on (segment 2's stop). Segment 2 may be heard only once turn 1 has been
    delivered and its audio forgotten, so it is heard without turn 1's words; and turn 1 is
    segment 1's words only."""
    stt = Numbered()
    stt.segments = 2
    frames = [VADUserStartedSpeakingFrame(), UserStartedSpeakingFrame(), stop(1),
              UserStoppedSpeakingFrame(), VADUserStartedSpeakingFrame(),
              UserStartedSpeakingFrame(), stop(2),
              TranscriptionFrame("Thursday morning.", "caller", "2026-12-01T09:00:00Z",
                                 result={"confidence": 0.9, "cumulative": True, "segment": 1},
                                 finalized=True),
              SegmentHeardFrame(number=1), SleepFrame(0.2)]
    _, _, conversation, down = await drive(frames, stt=stt)
    assert stt.events == ["hear 1", "reset", "hear 2"]
    assert [t.text for t in conversation.turns] == ["Thursday morning."]
    assert not any(isinstance(f, SegmentHeardFrame) for f in down)  # consumed


@pytest.mark.anyio
async def test_a_cough_over_agent_speech_resumes_it_once_its_segment_is_heard():
    """A cough pauses the agent. Its noise_resume_secs of audio pass while the recogniser
    is still on the cough's segment; the agent resumes when the adapter hears that the
    segment is done (no words), not at a wall-clock backstop."""
    stt = Numbered()
    stt.segments = 1
    paused: list[tuple[bool, bool]] = []  # the gate, before and after the segment was heard

    def watch(adapter, gate):
        heard = adapter.recogniser.segment_heard

        def segment_heard(number):
            before = gate.paused
            heard(number)
            paused.append((before, gate.paused))
        adapter.recogniser.segment_heard = segment_heard

    frames = [*speech(1, 60), SleepFrame(0.1), VADUserStartedSpeakingFrame(), stop(1),
              *caller_audio(60, loud=False), SegmentHeardFrame(number=1), SleepFrame(0.1)]
    trace, gate, conversation, _ = await drive(frames, stt=stt, watch=watch)
    assert paused == [(True, False)]  # 1.2 s of audio passed, paused; resumed on the answer
    assert conversation.turns == []
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]


# ------------------------------------------------------------ no input (audio/no_input.py)
def silence(secs: float) -> list:
    return caller_audio(round(secs / 0.02), loud=False)


@pytest.mark.anyio
async def test_silence_after_a_question_is_a_no_input_turn():
    """The agent's question played to its end, then the caller's audio brought no speech for
    no_input_secs: the conversation gets an empty turn on the ``silence`` channel (it asks
    again; in a repair, a failed answer)."""
    frames = [*speech(1, 20), SleepFrame(0.6), *silence(1.3), SleepFrame(0.1)]
    trace, _, conversation, _ = await drive(frames, first_plan=SpeechKind.QUESTION,
                                            no_input_secs=1.0)
    assert [(t.text, t.confidence) for t in conversation.turns] == [("", 0.0)]
    assert [(e.get("text"), e.get("channel")) for e in trace.named("user_turn_voiced")] == \
        [("", "silence")]


@pytest.mark.anyio
@pytest.mark.parametrize("after", [False, True])
async def test_no_input_counts_only_audio_captured_after_the_question(after):
    """Audio captured while the question was still playing (queued on a busy machine, here
    stamped long ago) is no silence after it; audio captured after it is."""
    backlog = [stamp_captured(f, 0.0) for f in silence(1.3)]
    frames = [*speech(1, 20), SleepFrame(0.6), *backlog]
    if after:
        frames += [stamp_captured(f, float("inf")) for f in silence(1.3)]
    _, _, conversation, _ = await drive([*frames, SleepFrame(0.1)],
                                        first_plan=SpeechKind.QUESTION, no_input_secs=1.0)
    assert [(t.text, t.confidence) for t in conversation.turns] == ([("", 0.0)] if after else [])


@pytest.mark.anyio
@pytest.mark.parametrize("case", ["not a question", "caller started speaking",
                                  "not enough audio"])
async def test_no_input_needs_a_question_and_that_much_silent_audio(case):
    """Information (not a question) starts no timer; speech onset stops it; and only caller
    audio counts (a microphone that sends nothing lets no time pass, however long)."""
    kind = SpeechKind.INFO if case == "not a question" else SpeechKind.QUESTION
    frames = [*speech(1, 20), SleepFrame(0.6), *silence(0.5)]
    if case == "caller started speaking":
        frames += [VADUserStartedSpeakingFrame(), *silence(1.0)]
    elif case == "not a question":
        frames += silence(1.0)
    else:
        frames += [SleepFrame(1.2)]  # wall-clock time passes; no audio arrives
    trace, _, conversation, _ = await drive([*frames, SleepFrame(0.1)], first_plan=kind,
                                            no_input_secs=1.0)
    assert conversation.turns == [] and trace.named("user_turn_voiced") == []


def caller_audio(frames: int, *, loud: bool):
    level = 3000 if loud else 0  # -20.8 dBFS: well above the onset threshold
    return [InputAudioRawFrame((np.full(320, level, dtype=np.int16)).tobytes(), RATE, 1)
            for _ in range(frames)]


@pytest.mark.anyio
async def test_loud_caller_audio_pauses_the_agent_before_the_vad_is_sure():
    """Three loud 20 ms frames over agent speech pause it at once (the VAD would take
    ~250 ms); a sound the VAD never confirms resumes after EARLY_RESUME_SECS of audio and is
    no turn, and the next turn is judged afresh."""
    frames = [*speech(1, 60), SleepFrame(0.1), *caller_audio(3, loud=True),
              *caller_audio(round(EARLY_RESUME_SECS / 0.02) + 2, loud=False), SleepFrame(0.1)]
    trace, gate, conversation, down = await drive(frames)
    paused = trace.named("barge_in_paused")
    assert [e.generation for e in paused] == [1]
    assert [e.name for e in trace.events if e.name.startswith("barge_in")] == \
        ["barge_in_paused", "barge_in_resumed"]
    assert not gate.paused and conversation.turns == [] and conversation.barge_ins == 0


@pytest.mark.anyio
async def test_quiet_caller_audio_does_not_pause_the_agent():
    frames = [*speech(1, 40), SleepFrame(0.1), *caller_audio(10, loud=False), SleepFrame(0.1)]
    trace, gate, _, _ = await drive(frames)
    assert trace.named("barge_in_paused") == [] and not gate.paused


# ------------------------------------------------------------ invalidations on the trace
ROOT = Path(__file__).resolve().parent.parent
# The controller adapter and the parts it wires (audio/adapter.py's docstring).
ADAPTER_MODULES = ("audio/adapter.py", "audio/caller_clock.py", "audio/turn_intake.py",
                   "audio/no_input.py",
                   "audio/barge_in_control.py", "audio/trace_bridge.py")
TRACE_READS = frozenset({"events", "named"})  # Trace's record, read back


def trace_reads(source: str) -> list[str]:
    """Where ``source`` reads a trace's record back: ``<...>.events`` / ``<...>.named``."""
    found = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Attribute) and node.attr in TRACE_READS]
    return [f"line {n.lineno}: {ast.unparse(n)}"
            for n in sorted(found, key=lambda n: (n.lineno, n.col_offset))]


def test_the_check_catches_a_scan_of_the_trace():
    old = ("if any(e.name == 'generation_invalidated' for e in self.trace.events[-50:]):\n"
           "    pass\n"
           "seen = trace.named('generation_invalidated')\n")
    assert trace_reads(old) == ["line 1: self.trace.events", "line 3: trace.named"]


@pytest.mark.parametrize("module", ADAPTER_MODULES)
def test_the_adapter_never_reads_the_trace_back(module):
    """The trace records what happened; it decides nothing. The adapter keeps what it needs
    to know as state (the invalidations already traced: audio.trace_bridge)."""
    assert trace_reads((ROOT / module).read_text(encoding="utf-8")) == []


def invalidations(trace: Trace) -> list[int]:
    return [e.get("invalidated", e.generation) for e in trace.named("generation_invalidated")]


def gate_invalidations(gate: GenerationGate) -> list[int]:
    seen: list[int] = []

    def note(event: GateEvent) -> None:
        if event.name == "generation_invalidated":
            seen.append(event.generation)

    gate.add_listener(note)
    return seen


@pytest.mark.anyio
@pytest.mark.parametrize("wiring", ["attach", "bind"])
async def test_an_invalidation_the_controller_traced_is_on_the_trace_once(wiring):
    """The controller traces generation_invalidated, then invalidates through the sink; the
    gate reports the same invalidation: the trace carries it once. ``bind`` (the browser's
    tab session brings its own trace) moves that bookkeeping to the new trace."""
    trace, gate = Trace(debug=True), GenerationGate()
    first = Trace() if wiring == "bind" else trace
    adapter = ControllerAdapter(gate, first)
    at_gate = gate_invalidations(gate)
    async with open_fake_world(clock=FakeClock("2026-12-01T09:00:00+01:00")) as world:
        controller = world.controller(adapter.sink, trace)
        if wiring == "bind":
            adapter.bind(controller, trace)
        else:
            adapter.attach(controller)
        await controller.start()
        controller.barge_in()  # the greeting, cut
        await controller.user_turn(Utterance("Book a service visit for P-100 on Wednesday "
                                             "afternoon."))
        # a correction of what the read-back says: the controller invalidates it itself
        await controller.user_turn(Utterance("Sorry, Thursday morning, not Wednesday."))
        controller.barge_in()
        await controller.close()
    assert len(at_gate) >= 3 and at_gate == sorted(set(at_gate))
    assert sorted(invalidations(trace)) == at_gate  # each once, all of them
    assert all(e.get("reason") for e in trace.named("generation_invalidated"))
    if wiring == "bind":
        assert first.events == [] and first.listeners == []


@pytest.mark.anyio
async def test_an_invalidation_no_one_traced_is_traced_by_the_adapter_once():
    """The benchmarks' stand-in invalidates through the sink without tracing: the gate's
    event is what puts each invalidation on the trace, once."""
    trace, gate = Trace(debug=True), GenerationGate()
    adapter = ControllerAdapter(gate, trace)
    at_gate = gate_invalidations(gate)
    stand_in = Responder(adapter.sink, trace)
    adapter.attach(stand_in)
    await stand_in.start()
    stand_in.barge_in()
    await stand_in.user_turn(Utterance("Thursday."))
    stand_in.barge_in()
    stand_in.barge_in()  # nothing live: the gate has it already, nothing new is traced
    assert at_gate == [1, 2]
    assert invalidations(trace) == [1, 2]
    assert [e.get("reason") for e in trace.named("generation_invalidated")] == ["barge_in"] * 2


@pytest.mark.anyio
async def test_a_timers_wall_clock_backstop_waits_while_the_callers_audio_is_held(monkeypatch):
    """The backstop of an audio-time timer stands for a microphone that went quiet. Caller
    audio the turn processor holds for the recogniser (audio/turn_order.py) is arriving, so
    the backstop waits again while it is held, and fires once nothing is held. Its sleeps are
    counted, not slept."""
    import types

    from audio import caller_clock
    from audio.caller_clock import Recogniser, Timers
    from audio.turns import AudioClock

    real_sleep = asyncio.sleep
    slept: list[float] = []

    async def sleep(secs: float) -> None:
        slept.append(secs)
        await real_sleep(0)

    monkeypatch.setattr(caller_clock, "asyncio",
                        types.SimpleNamespace(**{**vars(asyncio), "sleep": sleep}))
    loop = asyncio.get_running_loop()
    timers = Timers(AudioClock(), Recogniser(None), lambda coro, _name: loop.create_task(coro))
    held = [True, True, True]
    timers.held = lambda: bool(held) and held.pop()
    fired: list[str] = []
    timer = timers.after(0.7, lambda: fired.append("fired"))
    await timer._backstop
    assert fired == ["fired"]
    assert slept == [5.0] * 4  # the first wait, then again for each look that found audio held
    assert held == []


# ------------------------------------- where a scripted clip ended (audio.frames.CLIP_END_KEY)
@pytest.mark.anyio
async def test_the_adapter_notes_the_audio_time_a_clip_ended():
    frames = silence(3.0)
    frames[49].metadata[CLIP_END_KEY] = 1  # the 50th 20 ms frame ends at 1.0 s
    frames[99].metadata[CLIP_END_KEY] = 2
    caught: dict = {}
    await drive(frames, watch=lambda adapter, _gate: caught.setdefault("adapter", adapter))
    assert caught["adapter"].clip_ends == {1: pytest.approx(1.0), 2: pytest.approx(2.0)}


async def settled_at(frames: list, settle_secs: float) -> float | None:
    """The audio time at which ``LiveCall.settled_after`` for clip 1 returns, over an adapter
    (its audio clock, its clip ends, an idle ear) that takes in ``frames`` one at a time
    after the wait began, as when the pipeline runs behind the microphone. Each frame is
    followed by a few turns of the loop, so the wait sees every frame's effect before the
    next one (no timing)."""
    from types import SimpleNamespace

    from audio.live_call import LiveCall
    from audio.scripted import SaidTurn
    from audio.turns import AudioClock

    adapter = SimpleNamespace(audio=AudioClock(), clip_ends={}, idle_ear=lambda: True)
    call = SimpleNamespace(trace=Trace(), pipeline=SimpleNamespace(
        adapter=adapter, stt=SimpleNamespace(settled_listeners=[])))
    waiting = asyncio.ensure_future(
        LiveCall.settled_after(call, SaidTurn(0.0, 0.0, None, 1), settle_secs))  # type: ignore[arg-type]
    try:
        for frame in frames:
            for _ in range(5):
                await asyncio.sleep(0)  # (a turn of the loop: lets the wait look)
            if waiting.done():
                return adapter.audio.now
            adapter.audio.advance(frame)
            if CLIP_END_KEY in frame.metadata:  # as the adapter notes it (test above)
                adapter.clip_ends[frame.metadata[CLIP_END_KEY]] = adapter.audio.now
        return None
    finally:
        waiting.cancel()


@pytest.mark.anyio
async def test_the_silence_after_a_clip_is_counted_from_where_it_ended_in_the_stream():
    """The clip's last frame is 2 s into the audio the adapter had still to take in when the
    harness began to wait: the 2.5 s of settling silence count from there (4.5 s), not from
    where the adapter was (2.5 s, while the clip's words were still on their way)."""
    frames = silence(6.0)
    frames[99].metadata[CLIP_END_KEY] = 1  # the 100th 20 ms frame ends at 2.0 s
    assert await settled_at(frames, 2.5) == pytest.approx(4.5, abs=FRAME_SECS)  # (float sums)


@pytest.mark.anyio
async def test_a_clip_whose_last_frame_never_arrives_is_waited_for_a_bounded_time():
    assert await settled_at(silence(CLIP_LOST_SECS + 3.0), 2.5) == \
        pytest.approx(CLIP_LOST_SECS + 2.5, abs=FRAME_SECS)
