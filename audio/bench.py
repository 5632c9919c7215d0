"""Speech benchmarks (``amend bench --only audio``): real models, real-time scripted calls.

Figures (reported, never asserted):

* voice-to-voice with the REAL agent (controller, sandbox, registry: the world ``amend call``
  builds), p50/p95 over >= 20 turns in 3 voices, split into stages, right and wrong
  recognitions apart, against the floor of the models alone, and the Whisper workers'
  trade-off between one call and simultaneous calls: see :mod:`audio.bench_v2v`;
* barge-in: speech onset -> output paused, and onset -> end of the last stale frame played;
* correction-to-current-answer: a correction spoken over the agent, from its last voiced frame
  to the first frame of the new answer;
* STT real-time factor and WER on the scripted corpus, per voice (Piper; espeak-ng and sox
  when installed), with the biasing the pipeline uses;
* hearing real voices: first-word retention over the voice set, check questions on correct
  transcripts and wrong values accepted (:mod:`audio.bench_hearing`);
* the end of a turn: split turns on mid-sentence pauses of 300-700 ms and the end-of-turn
  delay on finished sentences, with and without Smart Turn (:mod:`audio.bench_turns`);
* resident memory of this process after all of it.

The barge-in figures use a minimal stand-in, :class:`audio.stand_in.Responder` (it talks
at length on demand, so there is always speech to barge into): they measure the pipeline's
pause and flush, not the controller.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from agent.bench import BenchRow, median, percentile, register

CMD = "amend bench --only audio"
CMD_QUICK = "amend bench --only audio --quick"


def _first_voiced(samples) -> float:
    import numpy as np

    from audio.wav_input import FRAME

    n = samples.size // FRAME
    rms = np.sqrt(np.mean(samples[: n * FRAME].reshape(n, FRAME) ** 2, axis=1))
    voiced = np.nonzero(rms > 10 ** (-45 / 20))[0]
    return float(voiced[0]) * FRAME / 16000 if voiced.size else 0.0


async def _turns(call, phrases, *, barge: bool) -> dict[str, list[float]]:
    """Speak ``phrases`` one per turn; measure from the recording (monotonic seconds)."""
    import asyncio

    from audio import synth

    out: dict[str, list[float]] = {"v2v": [], "paused": [], "last_stale": [], "transcript": [],
                                   "tts": []}
    rec = call.recording
    for phrase in phrases:
        audio = synth.piper(phrase)
        latest = call.pipeline.gate.latest
        if barge:
            call.conversation.long = True
            call.conversation._say("Okay.", "Let me read the whole booking back to you now.",
                                   "Pump P 100, Wednesday afternoon, one unit.")
            await call.wait_for("agent_speech_started", generation=latest + 1)
            await asyncio.sleep(0.8)  # scenario timing: the agent talks a little first
            latest = call.pipeline.gate.latest
        mark = len(call.trace.events)
        said = await call.say(audio)
        try:
            await call.wait_for("turn_latency", after=mark, timeout=8)
        except TimeoutError:
            continue  # recognition missed the turn: no sample (counted by WER instead)
        await call.wait_idle(quiet_secs=0.2)
        first = rec.first_output_after(said.onset, newer_than=latest)
        if first is not None and said.last_voiced is not None:
            out["v2v"].append(first.start - said.last_voiced)
        latency = call.trace.named("turn_latency")[-1]
        if latency.get("transcript_ms") is not None:
            out["transcript"].append(latency.get("transcript_ms") / 1000)
        if latency.get("first_tts_audio_ms") is not None:
            out["tts"].append(latency.get("first_tts_audio_ms") / 1000)
        if barge:
            onset = said.onset + _first_voiced(audio.samples)
            pauses = [t for t, m in rec.controls if m["type"] == "pause" and t >= onset - 0.5]
            if pauses:
                out["paused"].append(max(0.0, pauses[0] - onset))
            stale = [c.end for c in rec.chunks if c.generation <= latest and c.end > onset]
            out["last_stale"].append(max(stale) - onset if stale else 0.0)
    call.conversation.long = False
    return out


async def _barge_call(barge_phrases) -> dict:
    from audio.live_call import LiveCall
    from audio.stand_in import Responder

    async with LiveCall(Responder) as call:
        await call.wait_idle()
        return await _turns(call, barge_phrases, barge=True)


def _stt_rows(quick: bool) -> list[BenchRow]:
    from audio import services, synth
    from audio.biasing import hotwords_for
    from audio.corpus import ASSETS, CORPUS, wer
    from audio.wav_input import CallerAudio

    cmd = CMD_QUICK if quick else CMD
    hot = hotwords_for(ASSETS)
    voices: dict[str, Callable[[str], CallerAudio]] = {"piper joe": synth.piper}
    if synth.espeak_available() and not quick:
        voices["espeak-ng en-us"] = lambda t: synth.espeak(t, voice="en-us", speed=165)
        voices["espeak-ng en-gb female"] = lambda t: synth.espeak(t, voice="en-gb+f3",
                                                                  speed=150, pitch=70)
        voices["espeak-ng + sox tempo 1.15"] = lambda t: synth.espeak(
            t, voice="en-us+m3", speed=175, tempo=1.15)
    phrases = CORPUS[:6] if quick else CORPUS
    rows = []
    for name, voice in voices.items():
        pairs, compute, seconds = [], 0.0, 0.0
        for phrase in phrases:
            audio = voice(phrase)
            start = time.perf_counter()
            text, _ = services.transcribe(audio.samples, hotwords=hot)
            compute += time.perf_counter() - start
            seconds += audio.seconds
            pairs.append((phrase, text))
        rows.append(BenchRow(f"STT WER, {name} ({len(phrases)} phrases, biased)",
                             round(wer(pairs), 3), "ratio", "lower is better", cmd))
        rows.append(BenchRow(f"STT real-time factor, {name}", round(compute / seconds, 3),
                             "ratio", "≤ 0.3", cmd))
    return rows


@register("audio")
def audio_figures(quick: bool):
    import asyncio
    import sys

    import psutil
    from loguru import logger

    from audio import services
    from audio.bench_hearing import hearing_rows
    from audio.bench_turns import turn_rows
    from audio.bench_v2v import v2v_rows

    logger.remove()  # pipecat logs every frame at DEBUG: keep the table readable
    logger.add(sys.stderr, level="ERROR")
    cmd = CMD_QUICK if quick else CMD
    start = time.perf_counter()

    def progress(part: str) -> None:
        """One line per part on stderr: the full run takes tens of minutes, and the table
        prints only at the end."""
        print(f"amend bench audio: {part} (at {time.perf_counter() - start:.0f} s)",
              file=sys.stderr, flush=True)

    progress("models")
    services.warm()
    rows = [BenchRow("model load + warm-up (once per process)",
                     round(time.perf_counter() - start, 2), "s", "paid at start, not per call",
                     cmd)]
    progress("recognition on the corpus")
    rows += _stt_rows(quick)
    progress("voice-to-voice with the real agent")
    rows += v2v_rows(quick)  # the real agent (audio/bench_v2v.py)
    progress("barge-in")
    barge_phrases = ["Sorry, make that Thursday morning instead."] * (3 if quick else 8)
    barged = asyncio.run(_barge_call(barge_phrases))
    if barged["paused"]:
        paused = [s * 1000 for s in barged["paused"]]
        stale = [s * 1000 for s in barged["last_stale"]]
        fix = [s * 1000 for s in barged["v2v"]]
        rows += [
            BenchRow(f"barge-in onset -> paused p95 ({len(paused)} barge-ins)",
                     round(percentile(paused, 95)), "ms", "≤ 250 ms", cmd),
            BenchRow("barge-in onset -> last stale frame played, p95",
                     round(percentile(stale, 95)), "ms", "≈ paused (nothing after)", cmd),
        ]
        if fix:
            rows.append(BenchRow("correction over agent speech -> current answer, p50",
                                 round(median(fix)), "ms", "≈ voice-to-voice", cmd))
    progress("first-word retention and calibrated trust")
    rows += hearing_rows(quick)  # first-word retention, calibrated trust (bench_hearing)
    progress("split turns and end-of-turn delay")
    rows += turn_rows(quick)  # split turns and end-of-turn delay, Smart Turn on/off
    from audio.bench_fairness import fairness_rows

    progress("fair shares of the Whisper workers")
    rows += fairness_rows(quick)  # a short turn's wait behind long segments (bench_fairness)
    rss = psutil.Process().memory_info().rss / 2**20
    rows.append(BenchRow("resident memory of this process (after all calls)", round(rss),
                         "MiB", "report", cmd))
    return rows


@register("trust")
def trust_figures(quick: bool):
    """Calibrated trust alone (its rows of the ``audio`` group): the voice set and the five
    held-out sets, each turn recognised as a one-segment turn of a call. About 12 minutes."""
    import sys

    from loguru import logger

    from audio.bench_hearing import CMD_TRUST, trust_rows

    logger.remove()
    logger.add(sys.stderr, level="ERROR")
    return trust_rows(quick, CMD_TRUST + (" --quick" if quick else ""))
