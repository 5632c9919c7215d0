"""Audio mode of ``amend call``: the runner's :class:`~audio.calls.mode.CallMode` over the
real pipeline (``audio.live_call.LiveCall`` with the scripted caller transport).

* Each turn is Piper-synthesised from ``say`` (cached by text hash), or loaded from
  ``audio:`` (any WAV the runner converts; one that broke after the script was read makes
  the call INVALID), and played in real time.
* What the caller heard comes from the output frames actually played: per sentence, the
  share of its audio that played, rounded down to whole words, so a sentence cut half-way
  is heard half-way.
* ``transcripts()`` is what STT produced per turn; ``--verify-heard`` also transcribes the
  recorded ``output.wav`` with Whisper (``heard_verified.txt``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.core.session import Conversation
from agent.core.speech import SpeechKind, SpeechSink
from agent.core.trace import Trace
from agent.service.controls import AgentFaults
from audio import synth
from audio.calls.mode import turn_audio
from audio.calls.player import Heard
from audio.calls.script import Turn
from audio.live_call import LiveCall
from audio.pipeline import PipelineConfig
from audio.trace_bridge import held_at_start
from audio.wav_input import CallerAudio, load_wav


def quiet_pipecat_logs() -> None:
    """Pipecat logs every frame at DEBUG to stderr; a call run wants warnings only."""
    import os
    import sys

    from loguru import logger

    if os.environ.get("AMEND_AUDIO_DEBUG") != "1":
        logger.remove()
        logger.add(sys.stderr, level="WARNING")


# Released by the gate but not yet on the device: more than the output transport's re-chunking
# can hold back (it sends 40 ms chunks).
IN_FLIGHT_SLACK_S = 0.1
SENTENCE_SLACK_S = 0.08  # a sentence whose audio played to within this is heard in full
# After the caller's audio ends, this much more caller audio (silence) with nothing left to
# recognise means the agent did not take it as a turn. Audio time, not wall-clock time: on a
# loaded machine the recogniser may take longer than any fixed wall-clock wait.
TURN_SETTLE_AUDIO_S = 2.5


class AudioMode:
    """A scripted call spoken and heard through the whole speech pipeline."""

    name = "audio"

    def __init__(self, trace: Trace, *, config: PipelineConfig | None = None,
                 cache_dir: Path | None = None, verify_heard: bool = False):
        self.trace = trace
        self.call = LiveCall(trace=trace, config=config)
        self.cache_dir = cache_dir
        self.verify_heard = verify_heard
        self.call.launch()
        self._stream: list[str] = []
        self._heard_words: dict[int, int] = {}  # generation -> words appended to the stream
        self._listeners: list[Callable[[], None]] = []
        self._watch = asyncio.get_running_loop().create_task(self._watch_heard())

    # -- seam ------------------------------------------------------------------------------
    @property
    def sink(self) -> SpeechSink:
        return self.call.sink

    def attach(self, conversation: Conversation, controls: AgentFaults | None = None) -> None:
        self.call.attach(conversation)
        # The no_audio_flush known-answer control is this side's (test runs only; see
        # agent/service/controls.py): invalidated generations keep their queued audio.
        if controls is not None and controls.no_audio_flush:
            self.call.pipeline.gate.disable_flush()

    async def say(self, turn: Turn) -> None:
        """Play the turn's audio; return once the agent took it (or clearly did not)."""
        await self.call.ready()
        audio = self._audio_for(turn)
        mark = len(self.trace.events)
        said = await self.call.say(audio)

        def taken() -> bool:
            names = {e.name for e in self.trace.events[mark:]}
            return bool(names & {"user_turn_voiced", "backchannel_ignored"})

        # taken (or a backchannel), or clearly not: TURN_SETTLE_AUDIO_S of caller audio after
        # the clip's end with nothing of it still being recognised or assembled
        await self.call.settled_after(said, TURN_SETTLE_AUDIO_S, done=taken)
        # user_turn_voiced is emitted as the turn is handed over; let the controller plan
        await self.call.pipeline.adapter.wait_turns()

    def barge_in(self) -> None:
        """Nothing to do: the caller's audio itself barges in (VAD onset pauses output)."""

    @property
    def speaking(self) -> bool:
        """The agent is speaking as the caller hears it: the gate has audio queued, paused or
        being synthesised, audio it released has not reached the caller's device yet, or the
        device is still playing it. The gate's own playout estimate is not enough: on a busy
        machine the output transport delivers late, and the device plays on after the gate
        thinks it stopped (a caller who answered then would talk over the agent)."""
        gate = self.call.pipeline.gate
        rec = self.call.recording
        return gate.speaking or gate.paused or rec.playing() or self._in_flight(gate, rec)

    @staticmethod
    def _in_flight(gate, rec) -> bool:
        """Audio of a live generation released by the gate and not yet written to the device
        (a stale generation's is flushed on the way, so it never arrives)."""
        return any(secs - rec.received.get(g, 0.0) > IN_FLIGHT_SLACK_S
                   for g, secs in gate.counters.released_by_generation.items()
                   if not gate.is_stale(g))

    async def wait_silent(self) -> None:
        while self.speaking:
            await asyncio.sleep(0.02)

    def heard_mark(self) -> int:
        return len(self._stream)

    def heard_since(self, mark: int) -> str:
        return "".join(self._stream[mark:])

    def add_heard_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def heard(self) -> tuple[Heard, ...]:
        return tuple(self._heard_records())

    def transcripts(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.call.pipeline.adapter.turn_texts)

    def latency_ms(self) -> dict[str, list[float]]:
        v2v = [e.get("first_output_ms") for e in self.trace.named("turn_latency")
               if e.get("first_output_ms") is not None]
        barge = [e.get("onset_to_paused_ms") for e in self.trace.named("barge_in_paused")
                 if not held_at_start(e)]  # (a reply held at its start: no onset)
        return {"voice_to_voice": v2v, "barge_in": barge,
                "barge_in_last_stale": self._last_stale_ms()}

    def _last_stale_ms(self) -> list[float]:
        """Per invalidation after a barge-in pause: onset -> end of the last stale frame
        the caller's device played (0 if nothing played after the onset)."""
        offset = time.monotonic() - self.trace.clock()
        out = []
        for paused in self.trace.named("barge_in_paused"):
            if held_at_start(paused):
                continue  # a reply held at its start: nothing stale played after an onset
            onset = paused.t - paused.get("onset_to_paused_ms", 0.0) / 1000 + offset
            later = [e for e in self.trace.named("generation_invalidated")
                     if e.t >= paused.t and int(e.get("invalidated", e.generation)) >=
                     paused.generation]
            if not later:
                continue  # resumed: nothing was stale
            stale = int(later[0].get("invalidated", later[0].generation))
            ends = [c.end for c in self.call.recording.played()
                    if c.generation <= stale and c.end > onset]
            out.append(round(max(0.0, max(ends, default=onset) - onset) * 1000, 1))
        return out

    def write_artifacts(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        wav = directory / "output.wav"
        # time zero of output.wav = the trace's zero, so the wav lines up with trace.jsonl
        self.call.recording.write_wav(wav, time.monotonic() - self.trace.clock())
        lines = [f"{channel}\t{text}" for channel, text in self.call.pipeline.adapter.turn_texts]
        (directory / "transcripts.txt").write_text("\n".join(lines) + "\n")
        if self.verify_heard:
            from audio.services import transcribe
            audio = load_wav(wav)
            text, confidence = transcribe(audio.samples) if audio.samples.size else ("", 0.0)
            (directory / "heard_verified.txt").write_text(
                f"# Whisper transcript of output.wav (confidence {confidence})\n{text}\n"
                f"# heard from played generations\n{' '.join(h.heard for h in self.heard())}\n")

    def meta(self) -> dict[str, Any]:
        from audio import models
        cfg = self.call.config
        return {"stt": f"faster-whisper {models.whisper_model_dir().name} (cpu int8, beam 1, "
                       f"hotwords={'on' if cfg.hotwords else 'off'})",
                "tts": f"piper {models.piper_voice().name}",
                "vad": f"silero start {cfg.vad_start_secs}s stop {cfg.vad_stop_secs}s",
                "turn_end": (f"smart turn v3.2 + transcript: {cfg.turn_end_secs}/"
                             f"{cfg.turn_doubt_secs}/{cfg.turn_doubted_word_secs}/"
                             f"{cfg.turn_unfinished_secs}s after a finished/doubtful/"
                             f"doubted-word/unfinished pause" if cfg.smart_turn else
                             f"{cfg.turn_doubt_secs}s after any pause")}

    async def close(self) -> None:
        self._watch.cancel()
        try:
            await self._watch
        except asyncio.CancelledError:
            pass
        self._publish()
        await self.call.stop()

    # -- heard -----------------------------------------------------------------------------
    def _audio_for(self, turn: Turn) -> CallerAudio:
        """The turn's `audio:` file (a broken one raises TurnUnplayable: INVALID), or `say`
        synthesised."""
        if turn.audio is not None:
            return turn_audio(turn)
        return synth.piper(turn.say, cache_dir=self.cache_dir)

    def _sentence_words(self, generation: int, index: int, sentence: str,
                        played: dict[tuple[int, int], float]) -> int:
        words = sentence.split()
        key = (generation, index)
        secs = played.get(key, 0.0)
        if secs <= 0:
            return 0
        total = self.call.pipeline.gate.synthesised_secs.get(key, 0.0)
        if key in self.call.pipeline.gate.synthesised and secs >= total - SENTENCE_SLACK_S:
            return len(words)
        return min(len(words), int(len(words) * secs / max(total, secs, 1e-6)))

    def _heard_records(self) -> list[Heard]:
        rec = self.call.recording
        played = rec.heard_seconds()
        offset = time.monotonic() - self.trace.clock()  # monotonic -> trace time
        reasons = {int(e.get("invalidated", e.generation)): e.get("reason", "invalidated")
                   for e in self.trace.named("generation_invalidated")}
        out = []
        for generation, plan in sorted(self.call.pipeline.adapter.plans.items()):
            heard: list[str] = []
            complete = True
            for i, sentence in enumerate(s for s in plan.sentences if s.strip()):
                n = self._sentence_words(generation, i, sentence, played)
                words = sentence.split()
                if n:
                    heard.append(" ".join(words[:n]))
                if n < len(words):
                    complete = False
                    break
            chunks = [c for c in rec.played() if c.generation == generation and c.samples.size]
            started = min(c.start for c in chunks) - offset if chunks else None
            stopped = max(c.end for c in chunks) - offset if chunks else None
            text = " ".join(heard)
            chars = len(plan.text) if complete and chunks else len(text)
            reason = "completed" if complete and chunks else (
                "dropped" if not chunks else _reason(reasons, generation))
            kind = plan.kind.value if isinstance(plan.kind, SpeechKind) else str(plan.kind)
            out.append(Heard(generation, kind, plan.text, chars, started, stopped, reason,
                             plan.record, tuple(plan.citations), plan.outcome, plan.question,
                             plan.revision, tuple(plan.sentences)))
        return out

    async def _watch_heard(self) -> None:
        speaking = False
        while True:
            await asyncio.sleep(0.1)  # heard text grows with playback; sampled at 10 Hz
            # the device going quiet is no trace event: tell the waiters it happened
            was, speaking = speaking, self.speaking
            self._publish(changed=was != speaking)

    def _publish(self, *, changed: bool = False) -> None:
        wake = changed
        for h in self._heard_records():
            words = h.heard.split()
            done = self._heard_words.get(h.generation, 0)
            if len(words) > done:
                self._stream.append(" ".join(words[done:]) + " ")
                self._heard_words[h.generation] = len(words)
                wake = True
        if wake:
            for listener in tuple(self._listeners):
                listener()


def _reason(reasons: dict[int, str], generation: int) -> str:
    stale = [r for g, r in reasons.items() if g >= generation]
    return stale[0] if stale else "closed"


def audio_mode_factory(*, verify_heard: bool = False, cache_dir: Path | None = None,
                       config: PipelineConfig | None = None) -> Callable[[Trace], AudioMode]:
    """The runner's ModeFactory for ``--mode audio`` (side effect: pipecat's per-frame debug
    log is turned down to warnings, unless ``AMEND_AUDIO_DEBUG=1``)."""
    quiet_pipecat_logs()
    return lambda trace: AudioMode(trace, config=config, cache_dir=cache_dir,
                                   verify_heard=verify_heard)


mode_factory = audio_mode_factory  # the name ui/call_cli.py looks up
