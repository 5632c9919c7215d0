"""Voice-to-voice with the real agent: the ``audio`` rows of ``amend bench`` that time a
caller's turn to the agent's answer (issue 14, item 6).

Why it is measured this way:

* **The real agent.** A maintenance call (:data:`CALL_TURNS`: a pump question, a booking, a
  correction, a confirmation, a second pump, a correction of that, ...) is spoken into the
  real pipeline (:class:`~audio.live_call.LiveCall` over the scripted transport, the same
  ``PipelineConfig`` as ``amend call``) and answered by the real controller, sandbox and
  registry: the world ``amend call`` builds for a script. This package may import only
  ``agent``, so that world comes from the composition root: ``ui/call_cli.py`` hands its
  ``world_factory`` to :func:`provide_world` when it is imported (``amend bench`` imports
  it); tests pass one in.
* **Several voices.** Piper (the bundled voice) and two espeak-ng voices (en-us, en-gb
  female) when espeak-ng is installed: recognition and VAD timing depend on the voice.
* **Voice-to-voice per turn**: the caller's last voiced frame as fed -> the first frame of
  the answer's generation played by the simulated device.
* **Stages**, between consecutive milestones of the turn (``audio.latency.TurnTiming``): VAD
  stop, STT, end of turn, understanding and decision, TTS first chunk, output. A turn's
  stages add up to its voice-to-voice exactly (:func:`split_stages`).
* **Right and wrong turns.** A turn is *right* when the rule-based proposer reads the same
  values (intent, slots with their roles, negated values) from the transcript as from the
  words said, *wrong* when they differ, *missed* when no answer came. Wrong turns count in
  the totals and are also reported apart: a misheard turn is answered just as fast, but it is
  not the same experience.
* **The floor**, on the same turns, each part alone on an idle machine after the calls: the
  bare VAD stop (Silero with the pipeline's parameters over the same audio, in audio time),
  Whisper on the same audio as the pipeline calls it, each word scored for calibrated trust
  (compute time; text alone is reported beside it), Piper's first chunk of the agent's actual first
  reply sentence. Voice-to-voice / floor says what the pipeline adds around the models.
* **Whisper workers**: the same call alone and as 3 simultaneous calls, under 1 thread x 2
  workers (the default in ``audio.services``) and 2 threads x 1 worker
  (``services.use_whisper``), in the same run; each setting's single call is a replay after
  the calls above, so both speak with the same kept sentences.

Figures are reported, never asserted; targets stand beside them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.bench import BenchRow, median, percentile
from agent.core.caller import Asset, CallerProfile

CMD = "amend bench --only audio"
CMD_QUICK = "amend bench --only audio --quick"

NOW = "2026-12-01T09:00:00+01:00"  # a Tuesday, as in the example scripts
CALLER = CallerProfile(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
            Asset("P-200", "C1", "EU", "4 Dock Street, Rotterdam", kind="pump")),
    name="Sam")
# One call, as a technician would make it. Every turn gets a spoken answer from the agent.
CALL_TURNS: tuple[str, ...] = (
    "Hi, pump P-100 is leaking at the seal. How tight should the seal bolts be?",
    "Can you send someone to look at P-100 on Wednesday afternoon?",
    "Sorry, Thursday morning, not Wednesday.",
    "Yes, go ahead.",
    "P-200 is making a grinding noise. Could a technician come on Friday at 10?",
    "Actually, make that Monday morning instead.",
    "Yes please.",
    "What is the torque for the seal on P-200?",
    "Thanks, that's all.",
)
# (key, label): the stages of one turn, in order; each ends at the milestone of its name.
STAGES: tuple[tuple[str, str], ...] = (
    ("vad", "VAD end-of-turn: last voiced frame -> VAD stop"),
    ("stt", "STT: VAD stop -> final transcript"),
    ("end_of_turn", "end of turn: transcript -> turn handed to the agent"),
    ("decision", "understanding and decision: turn -> first plan"),
    ("tts", "TTS first chunk: plan -> first audio"),
    ("output", "output: first audio -> first frame played"),
)
DEFAULT_WHISPER = (1, 2)  # (threads, workers): audio.services' setting
OTHER_WHISPER = (2, 1)
ANSWER_TIMEOUT_S = 10.0  # the caller's audio ended this long ago and nothing played: missed
STAGGER_S = 0.37  # simultaneous callers do not speak in lockstep


def voices() -> dict[str, Callable[[str], Any]]:
    """The caller voices: name -> ``text -> CallerAudio`` (espeak-ng ones when installed)."""
    from audio import synth

    out: dict[str, Callable[[str], Any]] = {"piper joe": synth.piper}
    if synth.espeak_available():
        out["espeak-ng en-us"] = lambda t: synth.espeak(t, voice="en-us", speed=165)
        out["espeak-ng en-gb female"] = lambda t: synth.espeak(t, voice="en-gb+f3", speed=150,
                                                               pitch=70)
    return out


# -- the world ------------------------------------------------------------------------------
_worlds: list[Any] = []


def provide_world(factory: Any) -> None:
    """Set the world factory (``audio.calls.world.WorldFactory``) the measurement calls run
    in. The composition root calls this; the latest one wins."""
    _worlds[:] = [factory]


def provided_world() -> Any | None:
    return _worlds[0] if _worlds else None


# -- pure parts -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Milestones:
    """Monotonic seconds of one turn. ``None``: not reached or not seen."""

    last_voiced: float  # the caller's last voiced frame, as fed
    vad_stop: float | None
    transcript: float | None
    turn_end: float | None
    decision: float | None
    first_tts: float | None
    first_output: float  # the answer's first frame played


def split_stages(m: Milestones) -> dict[str, float]:
    """Seconds per stage (:data:`STAGES`), adding up to ``first_output - last_voiced``.

    Each stage runs from the previous milestone reached to its own. A milestone that is
    missing, or earlier than the one before it (the transcript of a turn can be ready before
    the VAD is sure the caller stopped), adds 0 and its time goes to the next stage. Pure.
    """
    points = (m.vad_stop, m.transcript, m.turn_end, m.decision, m.first_tts, m.first_output)
    out: dict[str, float] = {}
    previous = m.last_voiced
    for (key, _), t in zip(STAGES, points, strict=True):
        if t is None:
            out[key] = 0.0
            continue
        t = min(max(t, previous), max(m.first_output, previous))
        out[key] = t - previous
        previous = t
    return out


def classify(said: str, heard: str, answered: bool, read: Callable[[str], object]) -> str:
    """``right``: the values ``read`` from what reached the agent equal those of what was said;
    ``wrong``: they differ; ``missed``: no answer came (or nothing was heard). Pure given
    ``read``."""
    if not answered or not heard.strip():
        return "missed"
    return "right" if read(said) == read(heard) else "wrong"


def pct(samples: Sequence[float], q: float) -> float:
    """p50 is the median (as elsewhere in ``amend bench``), other ``q`` the nearest rank
    (``agent.bench.percentile``). Raises ValueError on an empty sample. Pure."""
    if not samples:
        raise ValueError("percentile of an empty sample")
    return median(list(samples)) if q == 50 else percentile(list(samples), q)


def ratio(numerator: Sequence[float], denominator: Sequence[float], q: float) -> float:
    """``pct(numerator, q) / pct(denominator, q)``. Raises ValueError if either is empty or
    the denominator's percentile is not positive."""
    bottom = pct(denominator, q)
    if bottom <= 0:
        raise ValueError("the floor must be positive")
    return pct(numerator, q) / bottom


def dominant_stage(stages: Sequence[dict[str, float]]) -> tuple[str, float]:
    """The stage with the largest share of total voice-to-voice over ``stages`` (one dict per
    turn), and that share (0..1). Shares of all stages add up to 1. Pure."""
    totals = {key: sum(s.get(key, 0.0) for s in stages) for key, _ in STAGES}
    whole = sum(totals.values())
    if whole <= 0:
        raise ValueError("no time to share out")
    key = max(totals, key=lambda k: totals[k])
    return key, totals[key] / whole


@dataclass(frozen=True)
class TurnSample:
    """One caller turn of a measured call."""

    voice: str
    said: str
    heard: str  # what reached the agent ("" when nothing did)
    outcome: str  # right | wrong | missed (see classify)
    v2v: float | None  # seconds; None when missed
    stages: dict[str, float] | None
    reply: str  # the first sentence of the answer ("" when missed)
    audio: Any = field(default=None, repr=False, compare=False)  # the CallerAudio fed
    hotwords: str | None = None  # the recognition biasing the call used
    stt_runs: int = 0  # Whisper runs during the turn (one per VAD pause: cumulative)
    stt_last: float | None = None  # seconds the last run took (the final transcript)
    early: tuple[int, int] = (0, 0)  # early transcriptions (at the voice's fade): started, used
    # Pauses whose audio waited for their answers (audio/turn_order.py), holds ended by the
    # wall-clock backstop, and segments heard without waiting to be reached (audio/services.py)
    waits: tuple[int, int, int] = (0, 0, 0)
    kept: bool = False  # the reply's first sentence was spoken from kept audio, not synthesised


@dataclass(frozen=True, slots=True)
class Floor:
    """The models' own time for one turn, each alone (seconds)."""

    vad: float  # bare VAD stop after the last voiced frame, in audio time
    whisper: float  # recognising the turn's audio as the pipeline does, words scored
    piper: float  # first chunk of the reply's first sentence
    whisper_plain: float | None = None  # the same audio, text only (no word probabilities)

    @property
    def total(self) -> float:
        return self.vad + self.whisper + self.piper


@dataclass(frozen=True)
class Tradeoff:
    """The Whisper workers comparison: v2v seconds per setting ``(threads, workers)``."""

    single: dict[tuple[int, int], list[float]]  # one call (the first voice)
    together: dict[tuple[int, int], list[float]]  # simultaneous calls, all their turns
    whisper: dict[tuple[int, int], list[float]]  # Whisper alone on the single call's turns
    calls: int  # how many simultaneous calls


def _ms(seconds: Sequence[float], q: float) -> int:
    return round(pct(seconds, q) * 1000)


def _setting(s: tuple[int, int]) -> str:
    threads, workers = s
    text = (f"{threads} thread{'s' if threads > 1 else ''} × {workers} "
            f"worker{'s' if workers > 1 else ''}")
    return text + (" (default)" if s == DEFAULT_WHISPER else "")


def figure_rows(samples: Sequence[TurnSample], floors: Sequence[Floor],
                tradeoff: Tradeoff | None, *, quick: bool, vad_stop_secs: float,
                voices_used: Sequence[str]) -> list[BenchRow]:
    """The bench rows from measured turns (pure). ``floors`` pair with the answered turns of
    ``samples``, in order."""
    cmd = CMD_QUICK if quick else CMD
    answered = [s for s in samples if s.v2v is not None]
    rows: list[BenchRow] = []
    if not answered:
        return [BenchRow("voice-to-voice, real agent", "n/a (no turn was answered)", "",
                         "≥ 20 turns", cmd)]
    v2v = [s.v2v for s in samples if s.v2v is not None]  # seconds, of the answered turns
    rows += [
        BenchRow(f"voice-to-voice p50, real agent ({len(answered)} turns, "
                 f"{len(voices_used)} voice{'s' if len(voices_used) > 1 else ''})",
                 _ms(v2v, 50), "ms", "≤ 600 ms", cmd),
        BenchRow("voice-to-voice p95, real agent", _ms(v2v, 95), "ms", "≤ 900 ms", cmd),
    ]
    counts = {k: sum(1 for s in samples if s.outcome == k) for k in ("right", "wrong", "missed")}
    rows += [
        BenchRow("turns recognised right (values as said)", counts["right"], "turns", "report",
                 cmd),
        BenchRow("turns recognised wrong (values differ from what was said)", counts["wrong"],
                 "turns", "report", cmd),
        BenchRow("turns missed (no answer to time)", counts["missed"], "turns", "0", cmd),
    ]
    for kind in ("right", "wrong"):
        these = [s.v2v for s in samples if s.v2v is not None and s.outcome == kind]
        for q, target in ((50, "≤ 600 ms"), (95, "≤ 900 ms")):
            value: int | str = _ms(these, q) if these else "n/a (0 turns)"
            rows.append(BenchRow(f"voice-to-voice p{q}, {kind} turns ({len(these)})", value,
                                 "ms" if these else "", target, cmd))
    stages = [s.stages for s in answered if s.stages is not None]
    for key, label in STAGES:
        values = [s[key] for s in stages]
        rows.append(BenchRow(f"stage {label}, p50", _ms(values, 50), "ms", "report", cmd))
        rows.append(BenchRow(f"stage {label}, p95", _ms(values, 95), "ms", "report", cmd))
    kept = sum(1 for s in answered if s.kept)
    rows.append(BenchRow("replies whose first sentence was spoken from kept audio, not "
                         "synthesised (audio/spoken_cache.py)", f"{kept} of {len(answered)}",
                         "turns", "report", cmd))
    made = [s.stages["tts"] for s in answered if s.stages is not None and not s.kept]
    if made and kept:
        rows.append(BenchRow("stage TTS first chunk, synthesised first sentences only, p50",
                             _ms(made, 50), "ms", "report", cmd))
    key, share = dominant_stage(stages)
    name = dict(STAGES)[key].split(":")[0]
    rows.append(BenchRow("dominant stage (share of summed voice-to-voice)",
                         f"{name} ({share:.0%})", "", "report", cmd))
    last = [s.stt_last for s in answered if s.stt_last is not None]
    if last:  # the STT stage = the final run's compute + waiting (queue, a run before it)
        rows.append(BenchRow("STT stage: the final Whisper run in the pipeline, p50",
                             _ms(last, 50), "ms", "≈ floor: Whisper alone", cmd))
        rows.append(BenchRow("Whisper runs per turn (one per VAD pause), mean",
                             round(sum(s.stt_runs for s in answered) / len(answered), 2),
                             "runs", "report", cmd))
        started = sum(s.early[0] for s in answered)
        rows.append(BenchRow("early transcriptions (started at the voice's fade): used / "
                             "started", f"{sum(s.early[1] for s in answered)} / {started}",
                             "", "report: a started one not used is work lost", cmd))
        holds, backstops, reached = (sum(s.waits[i] for s in answered) for i in range(3))
        rows.append(BenchRow("pauses whose audio waited for their words and verdict "
                             "(audio/turn_order.py) / of them ended by the wall-clock backstop",
                             f"{holds} / {backstops}", "", "report: backstops 0", cmd))
        rows.append(BenchRow("segments heard before the adapter reached them (the 10 s "
                             "backstop, audio/services.py)", reached, "segments", "0", cmd))
    if floors:
        total = [f.total for f in floors]
        plain = [f.whisper_plain for f in floors if f.whisper_plain is not None]
        rows += [
            BenchRow("floor: bare VAD stop on the same turns, p50",
                     _ms([f.vad for f in floors], 50), "ms",
                     f"stop_secs {vad_stop_secs * 1000:.0f} ms + detection", cmd),
            BenchRow("floor: Whisper alone on the same turns, words scored as the pipeline "
                     "does, p50", _ms([f.whisper for f in floors], 50), "ms", "report", cmd),
            *([BenchRow("floor: Whisper alone on the same turns, text only (no word scores), "
                        "p50", _ms(plain, 50), "ms", "report", cmd)] if plain else []),
            BenchRow("floor: Piper first chunk of the agent's replies, p50",
                     _ms([f.piper for f in floors], 50), "ms", "report", cmd),
            BenchRow("floor: VAD + Whisper + Piper per turn, p50", _ms(total, 50), "ms",
                     "report", cmd),
            BenchRow("floor: VAD + Whisper + Piper per turn, p95", _ms(total, 95), "ms",
                     "report", cmd),
            BenchRow("voice-to-voice / floor, p50", round(ratio(v2v, total, 50), 2), "ratio",
                     "≤ 1.2", cmd),
            BenchRow("voice-to-voice / floor, p95", round(ratio(v2v, total, 95), 2), "ratio",
                     "≤ 1.2", cmd),
        ]
        if len(plain) == len(floors):  # the floor with Whisper's text alone, the lower floor
            bare = [f.vad + (f.whisper_plain or 0.0) + f.piper for f in floors]
            rows += [BenchRow(f"voice-to-voice / floor with Whisper's text alone, p{q}",
                              round(ratio(v2v, bare, q), 2), "ratio", "report", cmd)
                     for q in (50, 95)]
    if tradeoff is not None:
        for setting in (DEFAULT_WHISPER, OTHER_WHISPER):
            single = tradeoff.single.get(setting) or []
            together = tradeoff.together.get(setting) or []
            alone = tradeoff.whisper.get(setting) or []
            label = f"whisper {_setting(setting)}"
            rows.append(BenchRow(
                f"{label}: single call v2v p50 ({len(single)} turns)",
                _ms(single, 50) if single else "n/a", "ms", "≤ 600 ms", cmd))
            rows.append(BenchRow(
                f"{label}: Whisper alone p50 (same turns)",
                _ms(alone, 50) if alone else "n/a", "ms", "report", cmd))
            rows.append(BenchRow(
                f"{label}: v2v p95, {tradeoff.calls} simultaneous calls ({len(together)} turns)",
                _ms(together, 95) if together else "n/a", "ms", "≤ 1500 ms", cmd))
    return rows


# -- measuring ------------------------------------------------------------------------------
def proposer_reader(caller: CallerProfile, now: Any, procedures: tuple = ()
                    ) -> Callable[[str], object]:
    """``text -> values``: what the rule-based proposer reads from ``text`` (intent, slots
    with their roles, negated values), in one neutral context for both sides of a
    comparison."""
    from agent.core.ledger import Ledger
    from agent.core.speech import Utterance
    from agent.understanding.proposals import ProposalContext

    proposer = _proposer(now)
    context = ProposalContext(now=now, ledger=Ledger("q-bench").current, caller=caller,
                              procedures=procedures)

    def read(text: str) -> object:
        p = proposer.propose(Utterance(text), context)
        slots = tuple(sorted((s.field, s.value or "", str(s.role)) for s in p.slots))
        return str(p.intent), slots, tuple(sorted(p.withdrawn))

    return read


_proposers: dict[str, Any] = {}


def _proposer(now: Any) -> Any:
    from agent.understanding.nlu.proposer import RuleProposer

    if "rule" not in _proposers:  # construction warms dateparser: once per process
        _proposers["rule"] = RuleProposer(now)
    return _proposers["rule"]


async def run_call(world_factory: Any, voice: str, clips: Sequence[tuple[str, Any]], *,
                   stagger: float = 0.0) -> list[TurnSample]:
    """One call in a fresh world: greet, then each ``(text, audio)`` turn spoken in real time,
    waiting for the agent to answer and go idle. Returns one sample per turn."""
    import asyncio

    from agent.core.clock import FixedClock
    from agent.core.trace import Trace
    from audio.calls.world import WorldSpec
    from audio.live_call import LiveCall

    now = _instant(NOW)
    trace = Trace(debug=True)  # synthetic caller: transcripts stay readable
    call = LiveCall(trace=trace)
    call.launch()
    raw: list[tuple] = []
    procedures: tuple = ()
    try:
        spec = WorldSpec(f"bench-{voice}", CALLER, FixedClock(now), "default")
        async with world_factory(spec, call.sink, trace) as world:
            conversation = world.conversation
            call.attach(conversation)
            await call.ready()
            await conversation.start()
            await call.wait_idle()
            answers = getattr(conversation, "answers", None)
            procedures = tuple(answers.procedures()) if answers is not None else ()
            if stagger:
                await asyncio.sleep(stagger)  # scenario timing: callers start apart
            try:
                for text, audio in clips:
                    raw.append(await _turn(call, text, audio))
            finally:
                await conversation.close()
    finally:
        await call.stop()
    hotwords = call.pipeline.stt.hotwords
    read = proposer_reader(CALLER, now, procedures)
    return [TurnSample(voice, said, heard, classify(said, heard, v2v is not None, read), v2v,
                       stages, reply, audio, hotwords, len(runs), runs[-1] if runs else None,
                       early, waits, kept)
            for said, heard, v2v, stages, reply, audio, runs, early, waits, kept in raw]


async def _turn(call: Any, text: str, audio: Any):
    """Say one turn; wait for its answer and for the agent to go idle; read the milestones."""
    from audio.frames import generation_of_context, sentence_of_context

    adapter, stt, turns = call.pipeline.adapter, call.pipeline.stt, call.pipeline.turns
    timings_before, texts_before = len(adapter.clock.turns), len(adapter.turn_texts)

    def waited() -> tuple[int, int, int]:
        held = (turns.holds, turns.backstops) if turns is not None else (0, 0)
        return (*held, stt.reach_backstops)

    waits_before = waited()
    runs_before = len(stt.stt_seconds)
    early_before = dict(stt.early_counts)
    mark = len(call.trace.events)
    said = await call.say(audio)
    try:
        await call.wait_for("turn_latency", after=mark, timeout=ANSWER_TIMEOUT_S)
    except TimeoutError:
        pass  # not recognised, or not answered: counted as missed
    await call.wait_idle(quiet_secs=0.5, timeout=90)
    heard = " ".join(t for _, t in adapter.turn_texts[texts_before:]).strip()
    runs = [compute for _, compute in stt.stt_seconds[runs_before:]]
    early = (stt.early_counts["started"] - early_before["started"],
             stt.early_counts["used"] - early_before["used"])
    waits = tuple(now - then for now, then in zip(waited(), waits_before, strict=True))
    timing = next((t for t in reversed(adapter.clock.turns[timings_before:])
                   if t.generation is not None), None)
    first = None
    if timing is not None:
        first = next((c.start for c in call.recording.chunks
                      if c.generation == timing.generation and c.samples.size), None)
        if first is None:
            first = timing.first_output
    if timing is None or first is None or said.last_voiced is None or first < said.last_voiced:
        return text, heard, None, None, "", audio, runs, early, waits, False
    plan = adapter.plans.get(timing.generation)
    at, reply = next(((i, s) for i, s in enumerate(plan.sentences) if s.strip()), (0, "")) \
        if plan is not None else (0, "")
    kept = any(k for c, k in call.pipeline.tts.sources
               if (generation_of_context(c), sentence_of_context(c)) == (timing.generation, at))
    stages = split_stages(Milestones(said.last_voiced, timing.vad_stop, timing.transcript,
                                     timing.ended, timing.decision, timing.first_tts_audio,
                                     first))
    return (text, heard, first - said.last_voiced, stages, reply, audio, runs, early, waits,
            kept)


def _instant(text: str):
    from datetime import datetime

    return datetime.fromisoformat(text)


async def together(world_factory: Any, clips: dict[str, list[tuple[str, Any]]],
                   calls: int) -> list[float]:
    """``calls`` simultaneous calls (voices in turn), started apart; every answered v2v."""
    import asyncio

    names = list(clips)
    results = await asyncio.gather(*(
        run_call(world_factory, names[i % len(names)], clips[names[i % len(names)]],
                 stagger=i * STAGGER_S) for i in range(calls)))
    return [s.v2v for r in results for s in r if s.v2v is not None]


async def bare_vad_stop(samples: Any, *, start_secs: float, stop_secs: float) -> float | None:
    """Seconds of audio from the last voiced frame to the VAD's stop, Silero alone over the
    same audio with the pipeline's parameters (None: it never stopped)."""
    import numpy as np
    from pipecat.audio.vad.silero import SileroVADAnalyzer
    from pipecat.audio.vad.vad_analyzer import VADParams, VADState

    from audio.wav_input import FRAME, RATE, last_voiced_offset, to_pcm16

    last = last_voiced_offset(samples)
    if last is None:
        return None
    vad = SileroVADAnalyzer(params=VADParams(start_secs=start_secs, stop_secs=stop_secs))
    vad.set_sample_rate(RATE)
    pcm = to_pcm16(np.concatenate([samples, np.zeros(int(RATE * (stop_secs + 1.0)),
                                                     dtype=np.float32)]))
    speaking = False
    for i in range(len(pcm) // (FRAME * 2)):
        state = await vad.analyze_audio(pcm[i * FRAME * 2:(i + 1) * FRAME * 2])
        if state == VADState.SPEAKING:
            speaking = True
        elif speaking and state == VADState.QUIET and (i + 1) * FRAME / RATE > last:
            return (i + 1) * FRAME / RATE - last
    return None


def whisper_alone(sample: TurnSample, *, words: bool = True) -> float:
    """Seconds to recognise the turn's audio, alone, as the pipeline does (biased; each word
    scored for calibrated trust); ``words=False``: the text alone (decoded and aligned, its
    words not scored other ways), which is faster."""
    from audio import services

    start = time.perf_counter()
    services.recognise(sample.audio.samples, hotwords=sample.hotwords, words=words)
    return time.perf_counter() - start


def piper_first_chunk(sentence: str) -> float:
    """Seconds from asking Piper for ``sentence`` to its first audio chunk."""
    from audio import services

    voice = services.piper_voice()
    start = time.perf_counter()
    for _ in voice.synthesize(sentence):
        break
    return time.perf_counter() - start


async def floors(samples: Sequence[TurnSample], *, start_secs: float,
                 stop_secs: float) -> list[Floor]:
    """The floor of every answered turn (blocking model calls; run with nothing else)."""
    out = []
    for s in samples:
        if s.v2v is None:
            continue
        vad = await bare_vad_stop(s.audio.samples, start_secs=start_secs, stop_secs=stop_secs)
        out.append(Floor(stop_secs if vad is None else vad, whisper_alone(s),
                         piper_first_chunk(s.reply) if s.reply else 0.0,
                         whisper_alone(s, words=False)))
    return out


@dataclass(frozen=True)
class Plan:
    """How much to measure."""

    voices: int  # how many of voices(), in order
    turns: int  # of CALL_TURNS, per call
    tradeoff: bool = True  # compare the two Whisper settings
    single_turns: int = len(CALL_TURNS)  # ... on one call of the first voice
    together_calls: int = 3  # ... and on this many simultaneous calls
    together_turns: int = len(CALL_TURNS)  # ... of this many turns each


QUICK = Plan(voices=1, turns=2, single_turns=1, together_turns=1)  # every row, few turns
FULL = Plan(voices=3, turns=len(CALL_TURNS))


async def measure(world_factory: Any, plan: Plan, *, quick: bool) -> list[BenchRow]:
    """Run the calls of ``plan`` and return the rows (side effects: model loads, worlds,
    Whisper reloaded to compare settings and set back to the default; Whisper in a process
    of its own during the calls when the demo would run it there)."""
    from audio import services
    from audio.pipeline import PipelineConfig
    from audio.whisper_host import whisper_process_setting

    config = PipelineConfig()
    load_before = os.getloadavg()[0]
    apart = whisper_process_setting()  # where the demo runs Whisper (AMEND_WHISPER_PROCESS)
    services.use_whisper_process(apart)
    try:
        rows = await _measure(world_factory, plan, config, quick=quick)
    finally:
        services.use_whisper_process(False)
    rows.append(BenchRow("load average (1 min) before / after the voice-to-voice calls",
                         f"{load_before:.2f} / {os.getloadavg()[0]:.2f}", "",
                         "2 cores: above 2, other work competes", CMD_QUICK if quick else CMD))
    rows.append(BenchRow("where Whisper ran (AMEND_WHISPER_PROCESS, as amend demo)",
                         "a process of its own" if apart else "the calls' process", "", "",
                         CMD_QUICK if quick else CMD))
    return rows


async def _measure(world_factory: Any, plan: Plan, config: Any, *,
                   quick: bool) -> list[BenchRow]:
    from audio import services

    services.use_whisper(*DEFAULT_WHISPER)
    available = voices()
    names = list(available)[:plan.voices]
    turns = CALL_TURNS[:plan.turns]
    clips = {name: [(t, available[name](t)) for t in turns] for name in names}
    samples: list[TurnSample] = []
    for name in names:  # one call at a time: single-call latency
        samples += await run_call(world_factory, name, clips[name])
    answered = [s for s in samples if s.v2v is not None]
    measured_floors = await floors(answered, start_secs=config.vad_start_secs,
                                   stop_secs=config.vad_stop_secs)
    tradeoff = None
    if plan.tradeoff:
        # Each setting's single call replays the first voice's first single_turns turns, one
        # right after the other, so both speak with the same kept sentences: the first call of
        # the run above synthesised its stock sentences, and a replay after it speaks them from
        # kept audio (audio/spoken_cache.py), which once made the setting measured second look
        # faster on every run.
        first = names[0]
        said = {t for t, _ in clips[first][:plan.single_turns]}
        base = [(s, f) for s, f in zip(answered, measured_floors, strict=True)
                if s.voice == first and s.said in said]
        replayed = await run_call(world_factory, first, clips[first][:plan.single_turns])
        single = {DEFAULT_WHISPER: [s.v2v for s in replayed if s.v2v is not None]}
        alone = {DEFAULT_WHISPER: [f.whisper for _, f in base]}
        few = {n: c[:plan.together_turns] for n, c in clips.items()}
        both = {DEFAULT_WHISPER: await together(world_factory, few, plan.together_calls)}
        services.use_whisper(*OTHER_WHISPER)
        try:
            other = await run_call(world_factory, first, clips[first][:plan.single_turns])
            single[OTHER_WHISPER] = [s.v2v for s in other if s.v2v is not None]
            alone[OTHER_WHISPER] = [whisper_alone(s) for s, _ in base]
            both[OTHER_WHISPER] = await together(world_factory, few, plan.together_calls)
        finally:
            services.use_whisper(*DEFAULT_WHISPER)
        tradeoff = Tradeoff(single, both, alone, plan.together_calls)
    return figure_rows(samples, measured_floors, tradeoff, quick=quick,
                       vad_stop_secs=config.vad_stop_secs, voices_used=names)


def v2v_rows(quick: bool, world_factory: Any | None = None,
             plan: Plan | None = None) -> list[BenchRow]:
    """The voice-to-voice rows of ``audio_figures`` (runs its own event loop)."""
    import asyncio

    factory = world_factory or provided_world()
    cmd = CMD_QUICK if quick else CMD
    if factory is None:
        return [BenchRow("voice-to-voice, real agent", "n/a (no world: run it through "
                         "`amend bench`, whose ui/call_cli.py provides one)", "", "≥ 20 turns",
                         cmd)]
    return asyncio.run(measure(factory, plan or (QUICK if quick else FULL), quick=quick))
