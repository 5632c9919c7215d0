"""Barge-in in the browser, measured on the page's own audio clock.

A headless Chromium opens the demo page (``amend demo --port --clock`` on 127.0.0.1), turns the
microphone on (Chromium's fake device, fed a silent file) and has the agent read a booking
back. While the agent speaks, the caller's correction is fed into the page's capture path
through ``window.amendVoice.inject`` (Piper and espeak-ng voices, taking turns); the real
pipeline pauses, then cuts, the agent; the agent reads the corrected booking back, and the
caller barges in again.

Both ends of each figure are read on the page's AudioContext clock, from
``window.amendVoice.timeline()``:

* **speech onset**: the first voiced 5 ms block (louder than -45 dBFS) of the injected clip,
  at the moment the page fed it to the capture worklet;
* **last stale sample played**: the end of the last non-silent sample of the interrupted
  generation (or an older one) that the player worklet wrote to the output, plus the
  context's ``baseLatency + outputLatency`` (when that sample leaves the device).

``barge_ins(timeline, events)`` and ``barge_in_rows(...)`` are pure and take what the page
recorded, so ``amend bench`` can print the same figures; ``measure(...)`` drives the page.
Nothing here waits for a fixed time to force an order: each step waits for a page condition.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from agent.bench import BenchRow, median, percentile
from audio.trace_bridge import held_at_start

CHROMIUM = Path("/usr/bin/chromium")
# The same flags as the browser tests' (tests/browser_support.py): headless, fake media
# devices, no background networking.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
                  "--use-fake-device-for-media-stream",
                  "--autoplay-policy=no-user-gesture-required",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]
CLOCK = "2026-12-01T09:00:00+01:00"  # a Tuesday: "Wednesday" is 2 December
TARGET_P95_MS = 350.0
COMMAND = "pytest tests/test_browser_voice.py -k barge -s"

FIRST_TURN = "I'd like a service visit for pump P-100 on Wednesday afternoon."
# Each moves the booking to another day and window (never Tuesday: that one is ambiguous
# on a Tuesday, and the agent would ask which week).
CORRECTIONS = (
    "Sorry, Thursday morning, not Wednesday.",
    "No, make it Friday afternoon.",
    "Actually, Monday morning instead.",
    "Sorry, Wednesday afternoon, not Monday.",
    "No, make it Thursday afternoon.",
    "Actually, Friday morning instead.",
    "Sorry, Monday afternoon, not Friday.",
    "No, make it Wednesday morning.",
    "Actually, Thursday morning instead.",
    "Sorry, Friday afternoon, not Thursday.",
    "No, make it Monday morning.",
    "Actually, Wednesday afternoon instead.",
)
# Where the caller's speech starts, after the agent's answer started playing (seconds).
ONSET_OFFSETS = (0.35, 0.6, 0.85, 1.1)


@dataclass(frozen=True, slots=True)
class Clip:
    voice: str  # "piper" | "espeak-ng"
    text: str
    pcm16: bytes  # 16 kHz mono PCM16 LE

    @property
    def seconds(self) -> float:
        return len(self.pcm16) / 32000


@dataclass(frozen=True, slots=True)
class BargeIn:
    """One barge-in, on the page's AudioContext clock (seconds)."""

    voice: str
    generation: int  # the generation cut (the newest stale one)
    onset: float  # the first voiced sample of the caller's clip, fed to the capture path
    last_stale: float  # end of the last non-silent stale sample the player wrote
    device_latency: float  # baseLatency + outputLatency of the context
    sent: float | None  # the page sent its first loud captured frame to the server
    received: float | None  # the server's "pause" arrived (main thread, to ~10 ms)
    held: float | None  # the player applied it
    cleared: float  # the player applied the server's "clear"
    server_onset_to_paused_ms: float | None  # the server's own view (barge_in_paused event)

    @property
    def ms(self) -> float:
        """Speech onset -> last stale sample played (leaving the device)."""
        return (self.last_stale - self.onset + self.device_latency) * 1000

    @property
    def onset_to_sent_ms(self) -> float | None:
        return None if self.sent is None else (self.sent - self.onset) * 1000

    @property
    def onset_to_received_ms(self) -> float | None:
        return None if self.received is None else (self.received - self.onset) * 1000

    @property
    def onset_to_held_ms(self) -> float | None:
        return None if self.held is None else (self.held - self.onset) * 1000

    @property
    def onset_to_cleared_ms(self) -> float:
        return (self.cleared - self.onset) * 1000


@dataclass
class BargeInRun:
    barge_ins: list[BargeIn]
    missed: list[dict] = field(default_factory=list)  # injections that cut nothing
    timeline: dict = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)
    load: float | None = None  # 1-minute load average when the run ended

    def rows(self, command: str = COMMAND) -> list[BenchRow]:
        return barge_in_rows(self.barge_ins, command, load=self.load)

    def report(self) -> dict:
        return {"barge_ins": [dict(asdict(b), ms=b.ms, onset_to_sent_ms=b.onset_to_sent_ms,
                                   onset_to_received_ms=b.onset_to_received_ms,
                                   onset_to_held_ms=b.onset_to_held_ms,
                                   onset_to_cleared_ms=b.onset_to_cleared_ms)
                              for b in self.barge_ins],
                "missed": self.missed, "load": self.load, "timeline": self.timeline}


# ------------------------------------------------------------------------------ figures (pure)

def barge_ins(timeline: dict, events: Sequence[dict] = ()) -> tuple[list[BargeIn], list[dict]]:
    """Pair each injected clip with the clear that followed it; returns (barge-ins, missed).

    A clip counts as a barge-in when a generation was cleared after its onset and before the
    next clip's onset, and that generation (or an older one) was still sounding at the onset:
    otherwise the caller spoke over silence, and the clip is returned in ``missed``.
    """
    played = timeline.get("played", [])
    cleared = sorted(timeline.get("cleared", []), key=lambda c: c["at"])
    held = sorted(timeline.get("held", []), key=lambda h: h["at"])
    received = sorted((r for r in timeline.get("received", []) if r.get("at") is not None),
                      key=lambda r: r["at"])
    onsets = sorted((o for o in timeline.get("onsets", []) if o.get("sent") is not None),
                    key=lambda o: o["at"])
    latency = float(timeline.get("baseLatency", 0)) + float(timeline.get("outputLatency", 0))
    clips = sorted((c for c in timeline.get("injected", []) if c.get("onset") is not None),
                   key=lambda c: c["onset"])
    paused_events = [e for e in events if e.get("event") == "barge_in_paused"
                     and not held_at_start(e)]  # (a reply held at its start: no onset)
    found: list[BargeIn] = []
    missed: list[dict] = []
    for i, clip in enumerate(clips):
        onset = clip["onset"]
        until = clips[i + 1]["onset"] if i + 1 < len(clips) else float("inf")
        clear = next((c for c in cleared if onset <= c["at"] < until), None)
        if clear is None:
            missed.append(dict(clip, why="nothing was cleared before the next clip"))
            continue
        stale = [r for r in played if r["generation"] <= clear["generation"]
                 and r["start"] <= clear["at"]]
        last = max((r["lastSound"] for r in stale if r.get("lastSound") is not None),
                   default=None)
        if last is None or last < onset:
            missed.append(dict(clip, why="the agent was silent at the onset"))
            continue
        hold = next((h for h in held if onset <= h["at"] <= clear["at"]), None)
        got = next((r for r in received if onset <= r["at"] <= clear["at"]), None)
        loud = next((o for o in onsets if onset <= o["at"] <= clear["at"]), None)
        server = next((e.get("onset_to_paused_ms") for e in paused_events
                       if e.get("generation") == clear["generation"]), None)
        found.append(BargeIn(voice=clip.get("label") or "?", generation=clear["generation"],
                             onset=onset, last_stale=last, device_latency=latency,
                             sent=loud["sent"] if loud else None,
                             received=got["at"] if got else None,
                             held=hold["at"] if hold else None, cleared=clear["at"],
                             server_onset_to_paused_ms=server))
    return found, missed


def barge_in_rows(found: Sequence[BargeIn], command: str = COMMAND, *,
                  load: float | None = None) -> list[BenchRow]:
    """Count, p50 and p95 of onset -> last stale sample played: overall, then per voice;
    then where the time went (the page sent the onset; the pause came back and was applied;
    the server's own onset -> paused; the device's output latency) and the load average."""
    rows: list[BenchRow] = []
    groups = [("", list(found))] + [(f", {v}", [b for b in found if b.voice == v])
                                     for v in sorted({b.voice for b in found})]
    for suffix, group in groups:
        if not group:
            continue
        ms = [b.ms for b in group]
        rows.append(BenchRow(f"browser barge-in onset -> last stale sample played, "
                             f"count{suffix}", len(group), "barge-ins",
                             "≥ 10" if not suffix else "", command))
        rows.append(BenchRow(f"browser barge-in onset -> last stale sample played p50{suffix}",
                             round(median(ms), 1), "ms", "", command))
        rows.append(BenchRow(f"browser barge-in onset -> last stale sample played p95{suffix}",
                             round(percentile(ms, 95), 1), "ms",
                             f"≤ {TARGET_P95_MS:.0f} ms" if not suffix else "", command))
    stages = (("onset -> first loud frame sent by the page", lambda b: b.onset_to_sent_ms),
              ("onset -> pause message arrived in the page", lambda b: b.onset_to_received_ms),
              ("onset -> pause applied by the player", lambda b: b.onset_to_held_ms),
              ("server onset -> paused (server's clock)",
               lambda b: b.server_onset_to_paused_ms))
    for name, stage in stages:
        values = [v for v in map(stage, found) if v is not None]
        if values:
            rows.append(BenchRow(f"browser barge-in {name} p50", round(median(values), 1),
                                 "ms", "", command))
            rows.append(BenchRow(f"browser barge-in {name} p95",
                                 round(percentile(values, 95), 1), "ms", "", command))
    if found:
        rows.append(BenchRow("browser barge-in device output latency (base + output)",
                             round(found[0].device_latency * 1000, 1), "ms", "", command))
    if load is not None:
        rows.append(BenchRow("browser barge-in load average (1 min) after the run",
                             round(load, 2), "", "", command))
    return rows


def summary(found: Sequence[BargeIn]) -> str:
    """One line per group: count, p50, p95 (ms)."""
    lines = []
    for name, group in [("all", list(found))] + [
            (v, [b for b in found if b.voice == v]) for v in sorted({b.voice for b in found})]:
        if group:
            ms = [b.ms for b in group]
            lines.append(f"browser barge-in, onset -> last stale sample played [{name}]: "
                         f"count {len(ms)}, p50 {median(ms):.0f} ms, "
                         f"p95 {percentile(ms, 95):.0f} ms")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ caller voices

def caller_clips(count: int = 12) -> list[Clip]:
    """``count`` corrections, Piper and espeak-ng taking turns (side effect: loads Piper)."""
    from audio import synth

    clips = []
    for i in range(count):
        text = CORRECTIONS[i % len(CORRECTIONS)]
        if i % 2 == 0:
            audio, voice = synth.piper(text), "piper"
        else:
            audio, voice = synth.espeak(text, voice="en-us"), "espeak-ng"
        pcm = np.clip(np.round(audio.samples * 32767), -32768, 32767).astype("<i2")
        clips.append(Clip(voice, text, pcm.tobytes()))
    return clips


def silent_wav(path: Path, seconds: float = 5.0) -> Path:
    """The fake microphone's file: silence (Chromium loops it). Side effect: writes ``path``."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes(int(seconds * 16000) * 2))
    return path


# ------------------------------------------------------------------------------ the demo server

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def demo_server(clock: str = CLOCK, *, log: Path | None = None,
                timeout: float = 120.0) -> Iterator[str]:
    """``amend demo --port P --clock CLOCK`` on 127.0.0.1 in a child process; yields its URL.

    Side effects: starts (and at exit terminates) that process; its console goes to ``log``.
    """
    port = _free_port()
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_DISABLE_TELEMETRY="1")
    with tempfile.TemporaryDirectory() as tmp:
        log = log or Path(tmp) / "demo.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "ui.cli", "demo", "--host",
                                     "127.0.0.1", "--port", str(port), "--clock", clock],
                                    stdout=out, stderr=subprocess.STDOUT, env=env)
            try:
                deadline = time.monotonic() + timeout
                while True:  # a condition (the port answers), not an ordering sleep
                    if proc.poll() is not None:
                        raise RuntimeError(f"amend demo exited with {proc.returncode}: "
                                           f"{log.read_text(errors='replace')[-2000:]}")
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=1).close()
                        break
                    except OSError:
                        if time.monotonic() > deadline:
                            raise RuntimeError(
                                f"amend demo did not listen within {timeout} s") from None
                        time.sleep(0.2)
                yield f"http://127.0.0.1:{port}/"
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


# ------------------------------------------------------------------------------ the page

# The page keeps only its last 500 trace events: keep every barge_in_paused apart.
_KEEP_PAUSES = """() => { window.amendBargeEvents = [];
    document.addEventListener("amend-event", (e) => {
        const ev = e.detail;
        if (ev && ev.event === "barge_in_paused") window.amendBargeEvents.push(ev);
    }); }"""
_NEXT = """([after, cut]) => {
    const v = window.amendVoice;
    const started = v.measures.started.find((s) => s.gen > after);
    const clear = v.measures.clears.find((c) => c.at !== undefined && c.gen >= cut);
    return started || clear ? {started: started || null, clear: clear || null} : null;
}"""


def drive(page, clips: Sequence[Clip], *, first_turn: str = FIRST_TURN,
          turn_timeout_ms: int = 45000, wanted: int | None = None) -> None:
    """On an open demo page with the microphone on: type ``first_turn``, then barge in with
    each clip while the agent's newest answer plays. Waits only for page conditions.

    ``wanted``: stop once that many clips cut agent speech, in every voice of ``clips``. On a
    busy machine an answer can play in bursts, and a clip whose onset falls in a gap is no
    barge-in (the caller spoke into silence): such a clip is counted as missed, and the next
    clip tries again."""
    voices = {clip.voice for clip in clips}
    # The greeting first: a turn typed over it would be a barge-in of its own.
    page.wait_for_function("window.amendVoice.events.some((e) => "
                           "e.event === 'agent_speech_stopped')", timeout=turn_timeout_ms)
    # Generations up to this one are done with (the greeting, still playing out in the page).
    after = page.evaluate("Math.max(0, ...window.amendVoice.measures.started.map((s) => s.gen))")
    page.evaluate("(t) => window.amendVoice.sendText(t)", first_turn)
    for i, clip in enumerate(clips):
        # 1. The agent's next answer starts playing in the page.
        handle = page.wait_for_function(
            "(after) => window.amendVoice.measures.started.find((s) => s.gen > after) || null",
            arg=after, timeout=turn_timeout_ms, polling=20)
        started = handle.json_value()
        gen = started["gen"]
        rate = page.evaluate("window.amendVoice.ctx.sampleRate")
        onset_at = started["at"] / rate + ONSET_OFFSETS[i % len(ONSET_OFFSETS)]
        # 2. The caller speaks over it, its first voiced sample at onset_at (context clock).
        page.evaluate("([pcm, o]) => { window.amendVoice.inject(pcm, o); }",
                      [base64.b64encode(clip.pcm16).decode(), {"onsetAt": onset_at,
                                                               "label": clip.voice}])
        # 3. It is cut (a clear for it), or it ended first and the next answer started.
        handle = page.wait_for_function(_NEXT, arg=[gen, gen], timeout=turn_timeout_ms,
                                        polling=20)
        outcome = handle.json_value()
        if outcome["clear"] is not None:
            after = max(gen, outcome["clear"]["gen"])
        else:
            after = gen  # the clip landed after the answer: counted as missed
        if wanted is not None:
            found, _ = barge_ins(page.evaluate("window.amendVoice.timeline()"),
                                 page.evaluate("window.amendBargeEvents || []"))
            if len(found) >= wanted and {b.voice for b in found} == voices:
                return
    # The last clip's clear is in (step 3); the runs it ended were posted before it.


def measure(url: str, clips: Sequence[Clip], *, chromium: Path = CHROMIUM,
            flags: Sequence[str] = CHROMIUM_FLAGS, artifacts: Path | None = None,
            wanted: int | None = None) -> BargeInRun:
    """Open ``url`` in headless Chromium, drive the barge-ins (all clips, or until ``wanted``
    cut agent speech: :func:`drive`), return what the page measured.

    Side effects: launches (and closes) Chromium; with ``artifacts``, writes a screenshot."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        mic = silent_wav(Path(tmp) / "silence.wav")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), headless=True,
                                        args=[*flags, f"--use-file-for-fake-audio-capture={mic}"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(url)
                page.wait_for_function("window.amendVoice && window.amendVoice.open()",
                                       timeout=30000)
                page.locator("#amend-mic").focus()
                page.keyboard.press("Enter")
                page.wait_for_function("window.amendVoice.micOn && window.amendVoice.capture")
                page.evaluate(_KEEP_PAUSES)
                try:
                    drive(page, clips, wanted=wanted)
                finally:
                    timeline = page.evaluate("window.amendVoice.timeline()")
                    events = page.evaluate("window.amendBargeEvents || []")
                    if artifacts is not None:
                        artifacts.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(artifacts / "browser-barge-in-voices.png"),
                                        full_page=True)
                        # The server's trace as the page received it (its last 500 events)
                        # and the page's own timeline: what a failed run is diagnosed from.
                        (artifacts / "browser-barge-in-voices-page.json").write_text(
                            json.dumps({"timeline": timeline, "barge_in_paused": events,
                                        "trace": page.evaluate("window.amendVoice.events")},
                                       indent=1))
            finally:
                browser.close()
    found, missed = barge_ins(timeline, events)
    return BargeInRun(found, missed, timeline, events, load=os.getloadavg()[0])


def bench_rows(quick: bool = False, command: str = "amend bench --only audio") -> list[BenchRow]:
    """The whole measurement as benchmark rows, for ``amend bench`` (``quick``: 10 barge-ins,
    else 12). Side effects: starts ``amend demo`` and Chromium. Without Chromium, Playwright or
    espeak-ng it returns one row saying what is missing."""
    import importlib.util
    import shutil

    missing = [name for name, ok in (
        ("/usr/bin/chromium", CHROMIUM.exists()),
        ("playwright", importlib.util.find_spec("playwright") is not None),
        ("espeak-ng", shutil.which("espeak-ng") is not None)) if not ok]
    if missing:
        return [BenchRow("browser barge-in onset -> last stale sample played", "skipped", "",
                         f"needs {', '.join(missing)}", command)]
    clips = caller_clips(10 if quick else 12)
    with demo_server() as url:
        run = measure(url, clips)
    return run.rows(command)
