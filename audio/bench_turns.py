"""End-of-turn figures for ``amend bench --only audio``: split turns and end-of-turn delay,
with and without Smart Turn, through the real pipeline (VAD, Whisper, the turn strategy).

* **Split-turn rate**: sentences with a pause of 300, 500 or 700 ms in the middle, spoken in
  three voices. Piper cannot pause inside a sentence, so its two halves are synthesised apart
  and joined with silence; espeak-ng pauses with SSML ``<break>`` inside one sentence. A
  sentence heard as more than one turn is split. Reported apart for pauses after a word no
  clause ends on ("a visit on... Thursday") and after a complete clause ("book pump P-100...
  for Thursday"): the transcript rule can only catch the first kind.
* **End-of-turn delay**: on finished sentences, the caller's last voiced frame to the turn
  being handed to the agent (VAD stop + the strategy's silence + recognition).

Configurations, measured in one run: a fixed silence after every pause (no model), Smart Turn
plus the transcript rule (the default), and the transcript rule alone.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass

import numpy as np

from agent.bench import BenchRow, percentile
from audio.pipeline import PipelineConfig
from audio.wav_input import CallerAudio

CMD = "amend bench --only audio"

# (first half, second half, the kind of place the pause falls)
PAUSED = (
    ("I need a visit on", "Thursday morning.", "dangling"),
    ("Could you send a technician to", "pump P-200 on Friday?", "dangling"),
    ("Please book the", "service visit for Wednesday afternoon.", "dangling"),
    ("Thursday morning works, and", "please call before you arrive.", "dangling"),
    ("Please book pump P-100", "for Thursday afternoon.", "clause"),
    ("I'd like to move my visit", "to next Monday.", "clause"),
)
FINISHED = (
    "I need a visit on Thursday morning.",
    "Could you send a technician to pump P-200 on Friday?",
    "Sorry, I meant Wednesday, not Tuesday.",
    "Yes, please go ahead.",
    "What is the torque for the pump seal on P-100?",
    "Please cancel my booking.",
)
PAUSES_MS = (300, 500, 700)

CONFIGS = {
    "fixed 0.3 s silence, no model": PipelineConfig(smart_turn=False, turn_text_rule=False),
    "Smart Turn v3.2 + transcript rule": PipelineConfig(),
    "transcript rule, no model": PipelineConfig(smart_turn=False),
}


def _piper_paused(first: str, second: str, pause_ms: int) -> CallerAudio:
    from audio import synth

    a = _trim(synth.piper(first, pad_secs=0.0).samples)
    b = _trim(synth.piper(second, pad_secs=0.0).samples)
    gap = np.zeros(int(16000 * pause_ms / 1000), dtype=np.float32)
    joined = np.concatenate([a, gap, b]).astype(np.float32)
    return CallerAudio(joined, f"piper: {first} ({pause_ms} ms) {second}", 16000, 1)


def _espeak_paused(voice: str):
    from audio import synth

    def make(first: str, second: str, pause_ms: int) -> CallerAudio:
        ssml = f'<speak>{first} <break time="{pause_ms}ms"/> {second}</speak>'
        return synth.espeak(ssml, voice=voice, ssml=True)
    return make


def _trim(samples: np.ndarray) -> np.ndarray:
    voiced = np.nonzero(np.abs(samples) > 0.01)[0]
    return samples[voiced[0]: voiced[-1] + 1] if voiced.size else samples


def voices(quick: bool) -> dict[str, tuple]:
    """Voice name -> (paused sentence maker, plain sentence maker)."""
    from audio import synth

    out: dict[str, tuple] = {"piper": (_piper_paused, synth.piper)}
    names = ("en-us",) if quick else ("en-us", "en-gb+f3")
    if synth.espeak_available():
        for name in names:
            out[f"espeak-ng {name}"] = (_espeak_paused(name),
                                        lambda t, v=name: synth.espeak(t, voice=v))
    return out


@dataclass
class TurnOutcome:
    turns: int  # user turns the sentence became
    delay: float | None  # last voiced frame -> the last turn handed to the agent (s)


async def _hear(call, audio: CallerAudio, settle_secs: float = 1.6) -> TurnOutcome:
    """Play one sentence; return once the ear is idle and ``settle_secs`` more of audio
    passed, so a second turn that a split would make has had its chance."""
    handed: list[float] = []

    def listen(event) -> None:
        if event.name == "user_turn_voiced":
            handed.append(time.monotonic())

    call.trace.listeners.append(listen)
    try:
        said = await call.say(audio)
        await call.settled_after(said, settle_secs)
    finally:
        call.trace.listeners.remove(listen)
    await call.wait_idle(quiet_secs=0.2)
    delay = handed[-1] - said.last_voiced if handed and said.last_voiced else None
    return TurnOutcome(len(handed), delay)


async def _measure(config: PipelineConfig, quick: bool) -> dict[str, list]:
    from audio.live_call import LiveCall
    from audio.stand_in import Responder

    paused = PAUSED[::2] if quick else PAUSED
    pauses = (700,) if quick else PAUSES_MS
    out: dict[str, list] = {"dangling": [], "clause": [], "delay": []}
    async with LiveCall(Responder, config=config) as call:
        await call.wait_idle()
        for paused_voice, plain_voice in voices(quick).values():
            for first, second, kind in paused:
                for pause in pauses:
                    outcome = await _hear(call, paused_voice(first, second, pause))
                    out[kind].append(outcome.turns > 1)
            finished = FINISHED[:3] if quick else FINISHED
            for text in finished:
                outcome = await _hear(call, plain_voice(text))
                if outcome.turns == 1 and outcome.delay is not None:
                    out["delay"].append(outcome.delay)
    return out


def turn_rows(quick: bool) -> list[BenchRow]:
    """The end-of-turn rows: split rate per pause kind and end-of-turn delay, per config."""
    rows = []
    for name, config in CONFIGS.items():
        if quick and name.startswith("transcript rule"):
            continue
        got = asyncio.run(_measure(config, quick))
        for kind, label in (("dangling", "after a word no clause ends on"),
                            ("clause", "after a complete clause")):
            if got[kind]:
                rate = sum(got[kind]) / len(got[kind])
                rows.append(BenchRow(f"split turns, pause {label} ({len(got[kind])} "
                                     f"sentences, 300-700 ms), {name}", round(rate, 3),
                                     "ratio", "0", CMD))
        if got["delay"]:
            ms = [d * 1000 for d in got["delay"]]
            rows.append(BenchRow(f"end-of-turn delay on finished sentences, p50 "
                                 f"({len(ms)}), {name}", round(statistics.median(ms)), "ms",
                                 "report", CMD))
            rows.append(BenchRow(f"end-of-turn delay on finished sentences, p95, {name}",
                                 round(percentile(ms, 95)), "ms", "report", CMD))
    return rows
