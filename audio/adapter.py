"""The controller adapter: the ONLY module where pipecat meets ``agent/``.

Placed after ``UserTurnProcessor`` and before the TTS. Upstream of it, frames are speech
recognition; downstream, stamped sentences for the TTS. It:

* turns a *final* user turn into ``Conversation.user_turn(Utterance(text, confidence))``;
  interim transcripts never reach the controller (so never the ledger);
* handles barge-in: at speech onset over agent speech it pauses the generation gate at once;
  the recognised words then decide (``audio.barge_in``): a backchannel or noise resumes the
  same generation, a real turn invalidates it and goes to the controller;
* implements the controller's :class:`~agent.speech.SpeechSink` (``self.sink``): a plan
  becomes one :class:`~audio.frames.StampedSpeakFrame` per sentence, in order; an
  invalidation goes straight to the gate;
* puts speech events and per-turn latency on the call's :class:`~agent.trace.Trace`:
  ``user_turn_voiced`` (text, confidence, channel, ``last_voiced_t``) right before the
  controller's own ``user_turn_final``; ``turn_latency`` once the answer's first frame plays;
  the gate's ``agent_speech_*``, ``barge_in_*`` and (unless the controller already traced it)
  ``generation_invalidated``; ``backchannel_ignored``.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np
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

from agent.session import Conversation
from agent.speech import SpeechPlan, Utterance
from agent.trace import Trace
from audio.barge_in import Overlap, classify_overlap, is_lead_in
from audio.biasing import asset_ids_of, hotwords_for, sites_of
from audio.frames import PushToTalkFrame, StampedSpeakFrame, TypedTurnFrame
from audio.generation_gate import GateEvent, GenerationGate
from audio.latency import TurnClock
from audio.services import SharedWhisperSTT
from audio.turns import AudioClock

VOICED_RMS = 10 ** (-45 / 20)  # a frame louder than -45 dBFS counts as voiced
# Barge-in onset before the VAD is sure: this many 20 ms frames in a row louder than ONSET_RMS
# over agent speech pause it at once (the VAD needs ~250 ms: start_secs, its volume gate and
# its windows). A pause is reversible: no VAD speech within EARLY_RESUME_SECS of audio resumes.
ONSET_RMS = 10 ** (-35 / 20)
ONSET_FRAMES = 3
EARLY_RESUME_SECS = 0.6


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
                 bias: bool = True, **kwargs):
        super().__init__(**kwargs)
        self.gate = gate
        self.stt = stt  # to wait for a segment still being transcribed when the turn ends
        self.bias = bias
        self.trace = trace
        self.sink = AdapterSink(self)
        self.conversation: Conversation | None = None
        self.plans: dict[int, SpeechPlan] = {}
        self.clock = TurnClock(trace)
        self.transcripts: list[tuple[str, float]] = []  # every final STT result, for artifacts
        self.turn_texts: list[tuple[str, str]] = []  # (channel, text) per delivered turn
        self._noise_resume = noise_resume_secs
        self._segments: list[tuple[str, float]] = []
        # What the recogniser knows beyond the text, for the turn so far: its words with their
        # probabilities and its no-speech probability (agent.speech.Utterance; agent/trust.py).
        self._words: tuple[tuple[str, float], ...] = ()
        self._no_speech = 0.0
        self._overlapping = False  # this turn began over agent speech
        self._barged = False  # this turn already invalidated the agent's speech
        self._onset = 0.0
        self._last_voiced: float | None = None
        self._voice_run_start = 0.0  # first voiced frame after a silence: speech onset
        self._received = 0  # transcripts received from self.stt
        # Timers run in audio time (seconds of caller frames), never on the wall clock: on a
        # busy machine frames arrive late and in bursts, and a wall-clock timer would fire
        # before the audio it is waiting for was even looked at (audio/turns.py).
        self.audio = AudioClock()
        self._noise: AudioTimer | None = None
        self._loud_run = 0  # consecutive frames louder than ONSET_RMS
        self._vad_speaking = False
        self._hold: AudioTimer | None = None
        self._stt_settled = asyncio.Event()
        if stt is not None:
            stt.settled_listeners.append(self._on_stt_settled)
        self._lead_in_hold = lead_in_hold_secs
        self._outbox: asyncio.Queue[StampedSpeakFrame] = asyncio.Queue()
        self._pusher: asyncio.Task | None = None
        self._turns = asyncio.Lock()
        self._deliveries: set[asyncio.Task] = set()
        self.errors: list[Exception] = []  # controller failures, surfaced by wait_turns
        gate.add_listener(self.on_gate_event)

    def attach(self, conversation: Conversation) -> None:
        """Bind the call's conversation (side effect: biases recognition with its caller's
        asset ids and sites unless the pipeline was configured with explicit hotwords)."""
        self.conversation = conversation
        if self.stt is not None and self.stt.hotwords is None and self.bias:
            self.stt.hotwords = hotwords_for(asset_ids_of(conversation),
                                             sites=sites_of(conversation))

    def bind(self, conversation: Conversation, trace: Trace) -> None:
        """Attach a conversation that brings its own trace (the browser's tab session)."""
        self.trace = trace
        self.clock.trace = trace
        self.attach(conversation)

    # -- speech out ------------------------------------------------------------------------

    def speak(self, plan: SpeechPlan) -> None:
        """Queue ``plan``'s sentences for the TTS, stamped with its generation."""
        self.plans[plan.generation] = plan
        self.clock.decided(plan.generation)
        sentences = [s for s in plan.sentences if s.strip()]
        self.gate.expect(plan.generation, len(sentences))
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
            self._note_voice(frame)  # consumed: nothing downstream plays caller audio
            self.audio.advance(frame)
        elif isinstance(frame, VADUserStartedSpeakingFrame):
            self._vad_speaking = True
            self._speech_started()
            await self.push_frame(frame, direction)
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self.clock.vad_stopped()  # a latency milestone (audio/latency.py)
            self._vad_speaking = False
            self._speech_paused()
            await self.push_frame(frame, direction)
        elif isinstance(frame, InterimTranscriptionFrame):
            pass  # never reaches the controller: interim words can still change
        elif isinstance(frame, TranscriptionFrame):
            self._transcribed(frame)
        elif isinstance(frame, UserStartedSpeakingFrame):
            await self.push_frame(frame, direction)
        elif isinstance(frame, UserStoppedSpeakingFrame):
            if self._stt_busy():
                self.create_task(self._turn_ended_after_stt(), "turn_end")
            else:
                self._turn_ended()
            await self.push_frame(frame, direction)
        elif isinstance(frame, TypedTurnFrame):
            if frame.text.strip():
                if self.gate.speaking:
                    self._barge_in()
                    if not self._segments:
                        # a typed turn is whole: the next sound over agent speech must be
                        # judged afresh, not cut the agent as if this turn went on
                        self._barged = False
                self._deliver(frame.text.strip(), 1.0, "typed")
        elif isinstance(frame, PushToTalkFrame):
            if frame.on:
                self._speech_started()
        else:
            await self.push_frame(frame, direction)

    def _note_voice(self, frame: InputAudioRawFrame) -> None:
        samples = np.frombuffer(frame.audio[: len(frame.audio) // 2 * 2], dtype=np.int16)
        rms = float(np.sqrt(np.mean((samples / 32768.0) ** 2))) if samples.size else 0.0
        if rms > VOICED_RMS:
            now = time.monotonic()
            if self._last_voiced is None or now - self._last_voiced > 0.3:
                self._voice_run_start = now
            self._last_voiced = now
        self._loud_run = self._loud_run + 1 if rms > ONSET_RMS else 0
        if (self._loud_run == ONSET_FRAMES and not self._vad_speaking and self.gate.speaking
                and not self.gate.paused):
            self._speech_started()  # pauses the agent now; the VAD confirms or not
            if self.gate.paused and not self._barged:
                self._noise = AudioTimer(self, EARLY_RESUME_SECS, self._resume_after_noise)

    def _speech_started(self) -> None:
        self._cancel_noise_timer()
        if self._hold is not None:  # the caller goes on after a lead-in: one turn
            self._hold.cancel()
            self._hold = None
        if self.gate.speaking and not self.gate.paused:
            self._overlapping = True
            # onset = the first voiced frame of this run (VAD needs start_secs to be sure)
            recent = time.monotonic() - self._voice_run_start < 1.0
            self._onset = self._voice_run_start if recent else time.monotonic()
            self.gate.pause()
            if self._barged:
                # This turn is already known to be real: whatever started playing meanwhile
                # talks over the caller. Cut it now rather than wait for words.
                self._barge_in()

    def _speech_paused(self) -> None:
        if self.gate.paused and not self._barged:
            # No words may follow (a cough, a door): resume once noise_resume_secs of audio
            # passed and the recogniser has nothing pending, unless a transcript came first.
            self._cancel_noise_timer()
            self._noise = AudioTimer(self, self._noise_resume, self._resume_after_noise)

    def _resume_after_noise(self) -> None:
        if self._stt_busy():
            self._noise = AudioTimer(self, 0.0, self._resume_after_noise, on_settled=True)
            return
        self._noise = None
        if not self._vad_speaking and not self._segments:
            self._overlapping = False  # a sound the VAD never took for speech: no turn
        if self.gate.paused and not self._barged:
            self.gate.resume()

    def _cancel_noise_timer(self) -> None:
        if self._noise is not None:
            self._noise.cancel()
        self._noise = None

    def _transcribed(self, frame: TranscriptionFrame) -> None:
        self._cancel_noise_timer()
        result = frame.result if isinstance(frame.result, dict) else {}
        confidence = float(result.get("confidence", 1.0))
        self._received += 1
        self._stt_settled.set()
        words = tuple(tuple(w) for w in result.get("words") or ())
        no_speech = float(result.get("no_speech", 0.0))
        if result.get("cumulative"):  # the whole turn so far: replaces earlier segments
            self._segments = [(frame.text.strip(), confidence)]
            self._words, self._no_speech = words, no_speech
        else:
            self._segments.append((frame.text.strip(), confidence))
            self._words, self._no_speech = self._words + words, max(self._no_speech, no_speech)
        self.transcripts.append((frame.text.strip(), confidence))
        self.clock.transcribed()
        if not self._overlapping or self._barged:
            return
        if classify_overlap(self._text()) is Overlap.TURN:
            self._barge_in()
        elif self.gate.paused:
            self.gate.resume()

    def _stt_busy(self) -> bool:
        """A segment is queued or being recognised, or its transcript is on its way here."""
        return self.stt is not None and (self.stt.pending > 0 or
                                         self._received < self.stt.emitted)

    def idle_ear(self) -> bool:
        """Nothing of the caller's is being recognised, held or assembled into a turn."""
        return not self._stt_busy() and self._hold is None and not self._segments

    def _on_stt_settled(self) -> None:
        self._stt_settled.set()

    async def _turn_ended_after_stt(self, backstop: float = 30.0) -> None:
        """The turn ended while its last segment was still being recognised: wait for the
        recogniser (an event per finished segment; the backstop only bounds a hung model)."""
        deadline = time.monotonic() + backstop
        while self._stt_busy() and time.monotonic() < deadline:
            self._stt_settled.clear()
            try:
                await asyncio.wait_for(self._stt_settled.wait(), deadline - time.monotonic())
            except TimeoutError:
                break
        self._turn_ended()

    def _turn_ended(self) -> None:
        if is_lead_in(self._text()) and self._hold is None:
            # "Sorry," / "Actually," then a breath: the turn is not over. Hold it for
            # lead_in_hold_secs of audio; speech resuming merges into this turn.
            self._hold = AudioTimer(self, self._lead_in_hold, self._release_held_turn)
            return
        self._deliver_turn()

    def _release_held_turn(self) -> None:
        self._hold = None
        self._deliver_turn()

    def _deliver_turn(self) -> None:
        if self.stt is not None:
            self.stt.reset_turn()
        text, segments = self._text(), self._segments
        words, no_speech = self._words, self._no_speech
        self._words, self._no_speech = (), 0.0
        overlapping, barged = self._overlapping, self._barged
        self._segments, self._overlapping, self._barged = [], False, False
        if self.gate.paused:  # the turn is decided: output is never left on hold
            if barged:
                self._barge_in()
                self._barged = False
            else:
                self.gate.resume()
        if not text:
            return
        if overlapping and not barged and classify_overlap(text) is not Overlap.TURN:
            self.trace.emit("backchannel_ignored", **self._where(self.gate.latest),
                            text=self.trace.private(text))
            return
        confidence = min(c for _, c in segments)
        self._deliver(text, confidence, "voice", words=words, no_speech=no_speech)

    def _text(self) -> str:
        return " ".join(t for t, _ in self._segments if t).strip()

    def _barge_in(self) -> None:
        """A real turn over agent speech: the controller invalidates; make sure it happened,
        and never leave output paused (side effects on the gate)."""
        self._barged = True
        self._cancel_noise_timer()
        if self.conversation is not None:
            self.conversation.barge_in()
        gate = self.gate
        if (gate.paused or gate.speaking) and gate.latest > gate.floor:
            gate.invalidate(gate.latest, "barge_in")  # the controller had nothing live to drop
        if gate.paused:
            # Only under the no_audio_flush control can stale audio still be held here: let it
            # play on (that is the failure the control exists to expose), never hang the call.
            gate.resume()

    def _deliver(self, text: str, confidence: float, channel: str, *,
                 words: tuple[tuple[str, float], ...] = (), no_speech: float = 0.0) -> None:
        self.turn_texts.append((channel, text))
        last_voiced = self._last_voiced if channel == "voice" else None
        self.clock.turn(last_voiced, self.gate.latest)
        where = self._where(self.gate.latest)
        extra = {"last_voiced_t": self.clock.trace_t(last_voiced)} if last_voiced else {}
        self.trace.emit("user_turn_voiced", **where, text=self.trace.private(text),
                        confidence=confidence, channel=channel, **extra)
        utterance = Utterance(text, confidence, words=words, no_speech=no_speech)
        task = self.create_task(self._user_turn(utterance), "user_turn")
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)

    async def _user_turn(self, utterance: Utterance) -> None:
        if self.conversation is None:
            return
        async with self._turns:  # one turn at a time, in order
            try:
                await self.conversation.user_turn(utterance)
            except Exception as exc:  # noqa: BLE001 - kept for wait_turns; the call goes on
                self.errors.append(exc)

    async def wait_turns(self) -> None:
        """Return when every delivered turn was handled; re-raise a controller failure."""
        while self._deliveries:
            await asyncio.gather(*tuple(self._deliveries), return_exceptions=True)
        if self.errors:
            raise self.errors.pop(0)

    # -- gate events -> trace --------------------------------------------------------------

    def on_gate_event(self, event: GateEvent) -> None:
        data = dict(event.data)
        if event.name == "tts_first_audio":
            self.clock.first_tts_audio(event.generation, event.t)
            return
        if event.name == "barge_in_paused":
            data["onset_to_paused_ms"] = round((event.t - self._onset) * 1000, 1)
        if event.name == "generation_invalidated":
            if any(e.name == "generation_invalidated" and
                   e.get("invalidated", e.generation) == event.generation
                   for e in self.trace.events[-50:]):
                return  # the controller already traced it (it invalidated through the sink)
            data["invalidated"] = event.generation
        self.trace.emit(event.name, **self._where(event.generation), **data)
        if event.name == "agent_speech_started":
            self.clock.first_output(event.generation, event.t)

    def _where(self, generation: int) -> dict:
        plan = self.plans.get(generation)
        if plan is not None:
            return {"question": plan.question, "revision": plan.revision,
                    "generation": generation}
        if self.conversation is not None:
            snap = self.conversation.ledger.current
            return {"question": snap.question, "revision": snap.revision,
                    "generation": generation}
        return {"question": "", "revision": -1, "generation": generation}

    async def _stop_tasks(self) -> None:
        self._cancel_noise_timer()
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
        if self._pusher is not None:
            await self.cancel_task(self._pusher)
            self._pusher = None

    async def cleanup(self):
        await self._stop_tasks()
        await super().cleanup()


class AudioTimer:
    """A one-shot timer of the adapter, in audio time.

    Fires ``callback`` once ``secs`` of caller audio have arrived (or, with ``on_settled``,
    when the recogniser next finishes a segment). A wall-clock backstop of
    ``BACKSTOP_FACTOR * secs`` (at least 5 s) fires it too, for a caller whose audio stopped
    arriving altogether (a closed microphone): it bounds a wait, it never orders events."""

    BACKSTOP_FACTOR = 5.0

    def __init__(self, adapter: ControllerAdapter, secs: float, callback, *,
                 on_settled: bool = False):
        self._adapter = adapter
        self._callback = callback
        self._done = False
        self._alarm = None if on_settled else adapter.audio.after(secs, self._fire)
        if on_settled and adapter.stt is not None:
            adapter.stt.settled_listeners.append(self._fire)
        self._backstop = adapter.create_task(
            self._wait(max(5.0, self.BACKSTOP_FACTOR * secs)), "audio_timer_backstop")

    async def _wait(self, secs: float) -> None:
        await asyncio.sleep(secs)  # a bound on a stalled microphone, not an ordering
        self._fire()

    def _fire(self) -> None:
        if self._done:
            return
        self.cancel()
        self._callback()

    def cancel(self) -> None:
        self._done = True
        self._adapter.audio.cancel(self._alarm)
        stt = self._adapter.stt
        if stt is not None and self._fire in stt.settled_listeners:
            stt.settled_listeners.remove(self._fire)
        if not self._backstop.done() and self._backstop is not asyncio.current_task():
            self._backstop.cancel()
