"""The controller adapter: the pipecat processor where the call's frames meet ``agent/``.

Placed after ``UserTurnProcessor`` and before the TTS. Upstream of it, frames are speech
recognition; downstream, stamped sentences for the TTS. :class:`ControllerAdapter` reads the
frames and wires five parts, each with one job and none of them reading a frame:

* :mod:`audio.caller_clock`: the caller's audio time and the timers in it (never the wall
  clock), the caller's voice level and speech onset, the recogniser's progress;
* :mod:`audio.turn_intake`: a *final* turn becomes
  ``Conversation.user_turn(Utterance(text, confidence))``; interim transcripts never reach
  the controller (so never the ledger); waits for the recogniser, holds a lead-in;
* :mod:`audio.no_input`: after a question that played to its end, so much caller audio with
  no speech asks it again (an empty turn on the ``silence`` channel), at most twice in a row;
* :mod:`audio.barge_in_control`: at speech onset over agent speech the generation gate pauses
  at once; the recognised words then decide (``audio.barge_in``): a backchannel or noise
  resumes the same generation, a real turn invalidates it and goes to the controller;
* :mod:`audio.trace_bridge`: speech events, the gate's events and per-turn latency on the
  call's :class:`~agent.core.trace.Trace`.

It also implements the controller's :class:`~agent.core.speech.SpeechSink` (``self.sink``): a
plan becomes one :class:`~audio.frames.StampedSpeakFrame` per sentence, in order; an
invalidation goes straight to the gate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    InterimTranscriptionFrame,
    StartFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from agent.core.session import Conversation
from agent.core.speech import SpeechKind, SpeechPlan
from agent.core.trace import Trace
from audio.backlog import InputBacklog
from audio.barge_in_control import UNHEARD_HOLD_SECS, BargeIn
from audio.biasing import asset_ids_of, hotwords_for, sites_of
from audio.caller_clock import CallerVoice, Recogniser, Timers
from audio.frames import (
    PushToTalkFrame,
    SegmentHeardFrame,
    StampedSpeakFrame,
    TypedTurnFrame,
    captured_at,
    clip_end,
    stop_segment,
)
from audio.generation_gate import GateEvent, GenerationGate
from audio.latency import TurnClock
from audio.no_input import NO_INPUT_MAX_IN_ROW, NO_INPUT_SECS, NoInput
from audio.services import SharedWhisperSTT
from audio.trace_bridge import TraceBridge
from audio.turn_intake import UNHEARD_TURN_SECS, TurnIntake
from audio.turns import AudioClock


class AdapterSink:
    """The controller's SpeechSink for one call. Never blocks."""

    def __init__(self, adapter: ControllerAdapter):
        self._adapter = adapter

    def speak(self, plan: SpeechPlan) -> None:
        self._adapter.speak(plan)

    def invalidate(self, generation: int, reason: str) -> None:
        self._adapter.gate.invalidate(generation, reason)


class ControllerAdapter(FrameProcessor):
    """Between speech recognition and the TTS. ``attach`` the conversation before frames flow."""

    def __init__(self, gate: GenerationGate, trace: Trace, *, stt: SharedWhisperSTT | None = None,
                 noise_resume_secs: float = 1.0, lead_in_hold_secs: float = 0.7,
                 unheard_turn_secs: float = UNHEARD_TURN_SECS, no_input_secs: float = NO_INPUT_SECS,
                 no_input_max_in_row: int = NO_INPUT_MAX_IN_ROW, bias: bool = True,
                 unheard_hold_secs: float = UNHEARD_HOLD_SECS, **kwargs):
        super().__init__(**kwargs)
        self.gate = gate
        self.stt = stt  # to wait for a segment still being transcribed when the turn ends
        self.bias = bias
        self.sink = AdapterSink(self)
        self.conversation: Conversation | None = None
        self.audio = AudioClock()  # seconds of caller audio: the clock of every timer here
        # scripted clip number -> the audio time its last frame reached here (CLIP_END_KEY)
        self.clip_ends: dict[int, float] = {}
        self.voice = CallerVoice()
        self.recogniser = Recogniser(stt)
        self.timers = timers = Timers(self.audio, self.recogniser, self.create_task)
        self.bridge = TraceBridge(gate, trace)
        # caller audio in the pipeline not yet heard here (audio.backlog.InputMark feeds it)
        self.backlog = InputBacklog()
        self.barge = BargeIn(gate, self.bridge, self.voice, self.recogniser, timers,
                             noise_resume_secs=noise_resume_secs, backlog=self.backlog,
                             unheard_hold_secs=unheard_hold_secs)
        self.intake = TurnIntake(gate, self.bridge, self.barge, self.voice, self.recogniser,
                                 timers, self.create_task, stt=stt,
                                 lead_in_hold_secs=lead_in_hold_secs,
                                 unheard_turn_secs=unheard_turn_secs)
        self.no_input = NoInput(self.audio, self._no_input, secs=no_input_secs,
                                max_in_row=no_input_max_in_row)
        gate.add_listener(self._on_gate_event)
        self._outbox: asyncio.Queue[StampedSpeakFrame] = asyncio.Queue()
        self._pusher: asyncio.Task | None = None
        # run where a turn's end reaches the controller, before the turn is handed over
        self.turn_end_hooks: list[Callable[[], None]] = []

    @property
    def trace(self) -> Trace:
        return self.bridge.trace

    @property
    def plans(self) -> dict[int, SpeechPlan]:
        """Every plan spoken in this call, by generation."""
        return self.bridge.plans

    @property
    def clock(self) -> TurnClock:
        """Per-turn latency milestones (``clock.turns``)."""
        return self.bridge.clock

    @property
    def turn_texts(self) -> list[tuple[str, str]]:
        """(channel, text) of every turn handed to the conversation."""
        return self.intake.turn_texts

    def attach(self, conversation: Conversation) -> None:
        """Bind the call's conversation (side effect: biases recognition with its caller's
        asset ids and sites unless the pipeline was configured with explicit hotwords)."""
        self.conversation = conversation
        self.bridge.conversation = conversation
        self.barge.conversation = conversation
        self.intake.conversation = conversation
        if self.stt is not None and self.stt.hotwords is None and self.bias:
            self.stt.hotwords = hotwords_for(asset_ids_of(conversation),
                                             sites=sites_of(conversation))

    def bind(self, conversation: Conversation, trace: Trace) -> None:
        """Attach a conversation that brings its own trace (the browser's tab session)."""
        self.bridge.bind(trace)
        self.attach(conversation)

    def idle_ear(self) -> bool:
        """Nothing of the caller's is being recognised, held or assembled into a turn."""
        return self.intake.idle()

    async def wait_turns(self) -> None:
        """Return when every delivered turn was handled; re-raise a controller failure."""
        await self.intake.wait_turns()

    # -- speech out ------------------------------------------------------------------------

    def speak(self, plan: SpeechPlan) -> None:
        """Queue ``plan``'s sentences for the TTS, stamped with its generation."""
        self.bridge.planned(plan)
        self.no_input.agent_spoke()
        sentences = [s for s in plan.sentences if s.strip()]
        self.gate.expect(plan.generation, len(sentences))
        if sentences:  # held at once if the caller is already in their next turn
            self.barge.reply_starting(plan.generation)
        for i, sentence in enumerate(sentences):
            self._outbox.put_nowait(StampedSpeakFrame(text=sentence, append_to_context=False,
                                                      generation=plan.generation, sentence=i))

    async def _push_plans(self) -> None:
        while True:
            frame = await self._outbox.get()
            if not self.gate.is_stale(frame.generation):  # invalidated before synthesis
                await self.push_frame(frame)

    # -- frames in -------------------------------------------------------------------------

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._pusher = self.create_task(self._push_plans(), "adapter_outbox")
        elif isinstance(frame, (EndFrame, CancelFrame)):
            await self._stop_tasks()
            await self.push_frame(frame, direction)
        elif isinstance(frame, InputAudioRawFrame):
            # consumed: nothing downstream plays caller audio
            if self.voice.hear(frame.audio) and self.barge.may_pause_early():
                self._speech_started()  # pauses the agent now; the VAD confirms or not
                self.barge.await_vad()
            captured = captured_at(frame)
            self.no_input.frame_in(captured)
            self.audio.advance(frame)
            clip = clip_end(frame)
            if clip is not None:
                self.clip_ends[clip] = self.audio.now
            self.backlog.reached(captured)  # last: a reply held for this audio may play
        elif isinstance(frame, VADUserStartedSpeakingFrame):
            self.barge.vad_started()
            self._speech_started()
            await self.push_frame(frame, direction)
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self.clock.vad_stopped()  # a latency milestone (audio/latency.py)
            self.barge.vad_stopped()
            self.intake.stop_taken(stop_segment(frame))
            await self.push_frame(frame, direction)
        elif isinstance(frame, SegmentHeardFrame):
            self.recogniser.segment_heard(frame.number)  # consumed: the recogniser's note
        elif isinstance(frame, InterimTranscriptionFrame):
            pass  # never reaches the controller: interim words can still change
        elif isinstance(frame, TranscriptionFrame):
            self.intake.transcribed(frame.text, frame.result)
        elif isinstance(frame, UserStartedSpeakingFrame):
            await self.push_frame(frame, direction)
        elif isinstance(frame, UserStoppedSpeakingFrame):
            self.barge.turn_ended()
            for hook in self.turn_end_hooks:
                hook()
            self.intake.turn_ended()
            await self.push_frame(frame, direction)
        elif isinstance(frame, TypedTurnFrame):
            if frame.text.strip():
                if self.gate.speaking:
                    self.barge.typed_over_speech()
                self.no_input.caller_spoke()
                self.intake.deliver(frame.text.strip(), 1.0, "typed")
        elif isinstance(frame, PushToTalkFrame):
            if frame.on:
                self.barge.turn_began()
                self._speech_started()
        else:
            await self.push_frame(frame, direction)

    def _speech_started(self) -> None:
        self.no_input.caller_spoke()
        self.intake.speech_resumed()  # the caller goes on after a lead-in: one turn
        self.barge.speech_started()

    # -- no input (audio/no_input.py) ------------------------------------------------------

    def _on_gate_event(self, event: GateEvent) -> None:
        """A question of the agent's that played to its end starts the caller's time to
        answer (a newer response, or one cut short, does not)."""
        if event.name != "agent_speech_stopped" or dict(event.data).get("reason") != "completed":
            return
        plan = self.plans.get(event.generation)
        if plan is not None and plan.kind is SpeechKind.QUESTION and \
                event.generation == self.gate.latest and not self.gate.is_stale(event.generation):
            self.no_input.question_finished(time.monotonic())

    def _no_input(self) -> bool:
        """The caller said nothing for ``no_input_secs`` after a question: hand the
        conversation an empty turn, unless the agent or the caller's turn is busy after all."""
        if self.gate.speaking or not self.intake.idle() or self.intake.handling:
            return False
        self.intake.deliver("", 0.0, "silence", no_speech=1.0)
        return True

    async def _stop_tasks(self) -> None:
        self.no_input.stop()
        self.barge.stop()
        self.intake.stop()
        if self._pusher is not None:
            await self.cancel_task(self._pusher)
            self._pusher = None

    async def cleanup(self):
        await self._stop_tasks()
        await super().cleanup()
