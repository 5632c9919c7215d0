"""The call pipeline, one per call, over the process-wide models (``audio.services``).

Stages, in order:

1. ``transport.input()``: 20 ms PCM16 frames at 16 kHz (scripted caller, browser, sound card),
   then ``InputMark`` (:mod:`audio.backlog`): notes each frame's capture time, so that a reply
   never begins over caller audio still queued unheard on a busy machine.
2. ``CappedVADProcessor(SharedSilero)`` (:mod:`audio.vad`, :mod:`audio.turns`): speech
   start/stop, stop after 0.2 s of silence; the voice fading, the first 64 ms of that
   silence; and the cap on a turn's length (``max_turn_secs``): a turn that reaches it is
   cut as if the caller had paused there. Silero runs on one process-wide session
   (``audio.services.SharedSilero``): a call builds no model of its own.
3. ``SharedWhisperSTT``: keeps ``preroll_secs`` of audio before each onset, and transcribes
   the turn so far at each VAD segment's stop, i.e. *speculatively* at the
   first silence, while the end-of-turn timer below still runs; with ``early_transcription``
   (the default) it starts at the fade when a Whisper worker stays idle, and that
   transcript stands if the stop follows. If the caller goes
   on speaking, the segment is just the first part of the turn: nothing reaches the
   controller before the turn ends, so nothing needs undoing.
4. ``UserTurnProcessor`` with :class:`~audio.turns.AudioClockTurnStop`: at each pause Smart
   Turn v3.2 judges whether the turn sounds finished, and a transcript that stops on "on" or
   "the" is not; the turn ends after ``turn_end_secs``, ``turn_doubt_secs`` or
   ``turn_unfinished_secs`` more silence, counted in audio frames (never a wall-clock timer:
   see ``audio/turns.py``), once every word is transcribed. Pipecat's own
   interruptions are off: barge-in is decided by the adapter.
5. ``ControllerAdapter``: final turn -> ``Conversation.user_turn``; plans -> stamped sentences.
   The controller speaks through :class:`LongTurnNotice` (``CallPipeline.sink``): the reply
   to a cut turn starts with LONG_TURN_NOTICE.
6. ``GenerationPiperTTS``: sentence -> audio under a generation-naming context id.
7. ``GenerationGate``: drops stale generations, paces, pauses, flushes.
8. ``transport.output()``.

Runs under ``PipelineWorker`` (``idle_timeout_secs=None``: a caller may think for a while).
When the runner has finished, :func:`end_dangling_tasks` cancels what the processors left
running (a call cancelled while it was starting left its recogniser's task waiting forever).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from pipecat.audio.vad.vad_analyzer import VADParams
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.transports.base_transport import BaseTransport
from pipecat.turns.user_start import (
    TranscriptionUserTurnStartStrategy,
    VADUserTurnStartStrategy,
)
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.workers.runner import WorkerRunner

from agent.core.session import Conversation
from agent.core.speech import SpeechPlan, SpeechSink
from agent.core.trace import Trace
from audio.adapter import ControllerAdapter
from audio.backlog import InputMark
from audio.generation_gate import GenerationGate
from audio.no_input import NO_INPUT_MAX_IN_ROW, NO_INPUT_SECS
from audio.services import PREROLL_SECS, GenerationPiperTTS, SharedSilero, SharedWhisperSTT
from audio.turn_intake import UNHEARD_TURN_SECS
from audio.turn_order import HUNG_HELD_SECS, OrderedUserTurnProcessor
from audio.turns import MAX_TURN_SECS, AudioClockTurnStop, CappedVADProcessor, smart_turn
from audio.vad import FADE_SECS

# What the agent says first in its reply to a turn cut at the length cap (max_turn_secs).
LONG_TURN_NOTICE = "That was a long one, let me take it from there."


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    """Tuned on this 2-core CPU: see ``audio/bench.py`` for the figures they produce."""

    vad_start_secs: float = 0.1  # speech onset detection (barge-in pause latency floor)
    vad_stop_secs: float = 0.2  # first silence: the speculative transcription starts here
    # ... or this far into it, when a Whisper worker stays idle (audio/vad.py). The turn is
    # then heard up to the voice's fade, not to the stop, whether the hearing started early or
    # not. Off until 2026-12-07: tiny.en had heard script 18's "Sorry, P-200, not P-100" as
    # "key 200" from that shorter tail (2026-12-02, before the pre-roll and the trailing
    # silence of today). Measured again on 1,318 turns (the voice set and six held-out sets),
    # heard up to the fade against up to the stop: values right 552 / 545, word for word
    # 193 / 191, wrong values accepted 2 / 2. Voice-to-voice p50 822 -> 710 ms, p95 1250 ->
    # 1033 (one run each, on a floor of 737 ms).
    early_transcription: bool = True
    vad_fade_secs: float = FADE_SECS
    # Audio before the VAD onset handed to Whisper with each turn (audio.services.PREROLL_SECS;
    # measured by first-word retention in audio/bench_hearing.py). 0 = none.
    preroll_secs: float = PREROLL_SECS
    # End of turn, in seconds of audio after the VAD stop (itself 0.2 s of silence), once
    # every word is transcribed (audio/turns.py): a pause Smart Turn hears as finished ends
    # the turn after turn_end_secs; one it doubts after turn_doubt_secs; a transcript that
    # stops on "on", "the", "and"... after turn_unfinished_secs (mid-sentence pauses).
    # turn_end_secs: the pack's Piper sentences resume at most 0.2 s after a VAD stop inside
    # a turn (a comma, a full stop between two sentences of one turn: "Sorry, I meant P-200,
    # not P-100."), so 0.25 s, 0.45 s of silence in all. Since the answers are awaited in
    # audio order (audio/turn_order.py) this is what the turn waits, never less; before, the
    # recogniser's latency added to it on most turns, and a fast one split that sentence.
    smart_turn: bool = True  # False: no model, every pause is doubtful (a fixed silence)
    smart_turn_model: str | None = None  # another smart-turn v3 ONNX file; None = pipecat's
    turn_text_rule: bool = True  # wait longer on a transcript that stops mid-clause
    # The longest caller turn, in seconds of caller audio from its first VAD start; past it
    # the turn is cut there and handled, the reply starting with LONG_TURN_NOTICE (None: no
    # cap). At most 24 s: Whisper hears the last 25 s of a turn, pre-roll included.
    max_turn_secs: float | None = MAX_TURN_SECS
    turn_end_secs: float = 0.25
    turn_doubt_secs: float = 0.3
    # A caller who stops on "on" or "the" is looking for the next word, often for over a
    # second. At 0.9 s a blind script's 0.9 s pause after "on" split (at a tie, and split
    # every time at 1.0 s); at 1.4 s a 1.4 s pause there is one turn (2026-12-06, its
    # recording lengthened). Only a caller who really stops on such a word waits longer.
    turn_unfinished_secs: float = 1.4
    # A transcript that stops on a short word the recogniser doubts (a closed-class word cut
    # off by the pause and heard wrong: "Please book that." for "Please book the <pause>
    # service visit"): weaker evidence, so halfway between turn_doubt_secs and
    # turn_unfinished_secs. 1.05 s of silence in all: the split-turn benchmark's pauses (0.3
    # to 0.7 s) with room, and a finished turn heard that way (1 in 27 of the voice-to-voice
    # calls) waits 0.6 s more, not 1.15 s.
    turn_doubted_word_secs: float = 0.85
    noise_resume_secs: float = 1.0  # paused by a sound that never became words: resume
    # A sound this long (VAD onset to stop) that never became words, while the agent waited,
    # is an unheard turn: the caller is asked again (audio/turn_intake.py).
    unheard_turn_secs: float = UNHEARD_TURN_SECS
    # No input: this much caller audio without speech after a question asks it again, at
    # most no_input_max_in_row times until the caller speaks (0: never; audio/no_input.py).
    no_input_secs: float = NO_INPUT_SECS
    no_input_max_in_row: int = NO_INPUT_MAX_IN_ROW
    flush: bool = True  # False only under the no_audio_flush agent fault
    bias: bool = True  # hotwords from the caller's asset ids (measured: audio/biasing.py)
    hotwords: str | None = None  # explicit hotwords (override the caller-derived ones)
    initial_prompt: str | None = None
    out_sample_rate: int = 24000
    # A sentence the agent says again and again ("Let me check I have this right.") is spoken
    # from its kept audio instead of synthesised each time (audio/spoken_cache.py).
    keep_sentences: bool = True


class LongTurnNotice:
    """The controller's :class:`~agent.core.speech.SpeechSink` for one call: the adapter's,
    except that the first plan after a turn cut at its length cap starts with
    LONG_TURN_NOTICE, in the same generation (a barge-in cuts both). The notice is due from
    the cut turn's end until the next turn ends; a plan with nothing to say does not use it.

    ``cuts()`` counts the turns the VAD stage has cut so far (``CappedVADProcessor.cuts``);
    ``turn_ended()`` runs where the turn's end reaches the controller (the adapter, on the
    same downstream path as the reply that follows). A turn that ended after a cut is the cut
    one: the cut happens in the VAD, before its stop goes downstream. The VAD's own notice of
    the end travels upstream and can arrive after the reply is spoken on a busy machine, so
    the notice never waits for it.
    """

    def __init__(self, sink: SpeechSink, cuts: Callable[[], int] = lambda: 0):
        self._sink = sink
        self._cuts = cuts
        self._cuts_seen = 0
        self.due = False
        self.said = 0  # notices spoken

    def turn_ended(self) -> None:
        cuts = self._cuts()
        self.due, self._cuts_seen = cuts > self._cuts_seen, cuts

    def speak(self, plan: SpeechPlan) -> None:
        if self.due and any(s.strip() for s in plan.sentences):
            self.due = False
            self.said += 1
            plan = dataclasses.replace(plan, sentences=(LONG_TURN_NOTICE, *plan.sentences))
        self._sink.speak(plan)

    def invalidate(self, generation: int, reason: str) -> None:
        self._sink.invalidate(generation, reason)


@dataclass
class CallPipeline:
    worker: PipelineWorker
    adapter: ControllerAdapter
    gate: GenerationGate
    stt: SharedWhisperSTT
    transport: BaseTransport
    tts: GenerationPiperTTS
    end_of_turn: AudioClockTurnStop
    vad: CappedVADProcessor | None = None
    notice: LongTurnNotice | None = None
    turns: OrderedUserTurnProcessor | None = None  # its holds and backstops (amend bench)

    @property
    def sink(self) -> SpeechSink:
        """The controller's SpeechSink for this call."""
        return self.notice if self.notice is not None else self.adapter.sink

    def attach(self, conversation: Conversation) -> None:
        self.adapter.attach(conversation)


def build_pipeline(transport: BaseTransport, trace: Trace,
                   config: PipelineConfig = PipelineConfig()) -> CallPipeline:
    """Wire one call's processors. Pure construction: models come from the shared cache."""
    # No wall-clock idle stop (pipecat's default forces a VAD stop after 1 s without audio
    # *processed*): on a busy machine the frames are queued, not missing, and a forced stop
    # cut one sentence into two turns. Every transport here sends silence instead, the
    # browser's adds it when push-to-talk is released (audio/browser.py).
    vad = CappedVADProcessor(vad_analyzer=SharedSilero(params=VADParams(
        start_secs=config.vad_start_secs, stop_secs=config.vad_stop_secs),
        fade_secs=config.vad_fade_secs), audio_idle_timeout=0,
        max_turn_secs=config.max_turn_secs)
    stt = SharedWhisperSTT(hotwords=config.hotwords, initial_prompt=config.initial_prompt,
                           preroll_secs=config.preroll_secs, early=config.early_transcription,
                           paced=True)  # each segment heard once the adapter took its stop in
    end_of_turn = AudioClockTurnStop(
        finished_secs=config.turn_end_secs, doubtful_secs=config.turn_doubt_secs,
        unfinished_secs=config.turn_unfinished_secs,
        doubted_secs=config.turn_doubted_word_secs, text_rule=config.turn_text_rule,
        analyzer=smart_turn(config.smart_turn_model) if config.smart_turn else None)
    # The watchdog (wall clock) only ends a turn whose audio stopped arriving altogether.
    # After a VAD stop the caller's audio waits for the words up to that stop and Smart Turn's
    # verdict (audio/turn_order.py): a pause ends the turn or not by the audio alone.
    # It waits as long as the recogniser or Smart Turn is still working on the answers.
    turns = OrderedUserTurnProcessor(
        settled=end_of_turn.settled, on_quiet=end_of_turn.quiet_ahead,
        working=lambda: stt.pending > 0 or end_of_turn.judging is not None,
        user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy(enable_interruptions=False),
                   TranscriptionUserTurnStartStrategy(enable_interruptions=False)],
            stop=[end_of_turn]),
        # pipecat's wall-clock stop after a VAD stop with no news: longer than any hold
        user_turn_stop_timeout=HUNG_HELD_SECS + 15.0)
    end_of_turn.settled_listeners.append(turns.wake)  # (the words come as frames)
    gate = GenerationGate(flush=config.flush)
    adapter = ControllerAdapter(gate, trace, stt=stt, bias=config.bias,
                                noise_resume_secs=config.noise_resume_secs,
                                unheard_turn_secs=config.unheard_turn_secs,
                                no_input_secs=config.no_input_secs,
                                no_input_max_in_row=config.no_input_max_in_row)
    # Caller audio the turn processor holds is arriving, not missing: the adapter's timers'
    # wall-clock backstops (a closed microphone) wait while it is held.
    adapter.timers.held = lambda: turns.holding
    tts = GenerationPiperTTS(keep=config.keep_sentences)
    pipeline = Pipeline([transport.input(), InputMark(adapter.backlog), vad, stt, turns,
                         adapter, tts, gate, transport.output()])
    worker = PipelineWorker(pipeline, params=PipelineParams(
        audio_in_sample_rate=16000, audio_out_sample_rate=config.out_sample_rate),
        idle_timeout_secs=None, enable_rtvi=False)
    notice = LongTurnNotice(adapter.sink, cuts=lambda: vad.cuts)
    adapter.turn_end_hooks.append(notice.turn_ended)
    # The two bounds for a stalled pipeline that are not audio-time orders: on the trace when
    # they end a wait (a call's result counts them as `backstops`).
    turns.on_backstop = lambda held, idle: adapter.bridge.backstop(
        "turn_hold", gate.latest, held_secs=round(held, 2), idle_secs=round(idle, 2))
    stt.on_reach_backstop = lambda segment: adapter.bridge.backstop(
        "recogniser_reach", gate.latest, segment=segment)
    return CallPipeline(worker, adapter, gate, stt, transport, tts, end_of_turn, vad, notice,
                        turns)


async def end_dangling_tasks(runner: WorkerRunner, timeout: float = 10.0) -> int:
    """After ``runner.run()`` returned: cancel the tasks the call's processors left running
    on the runner's task manager, and wait for them; returns how many there were.

    A call cancelled while its pipeline was still starting (a browser that closed the socket
    right after opening it) left its recogniser's segment task waiting forever, and with it
    the whole pipeline: pipecat only logs such tasks ("dangling tasks detected")."""
    tasks = [t for t in runner.task_manager.current_tasks()
             if not t.done() and t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)
    return len(tasks)


ConversationFactory = Callable[[SpeechSink, Trace], Conversation]
