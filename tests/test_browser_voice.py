"""The whole demo by voice: Chromium's fake microphone speaks, Whisper hears, Piper answers.

Everything is real: the page, the AudioWorklets, the websocket pipeline (``audio.browser``), the
controller, the sandbox and the demo registry. The fake microphone file holds the caller's turns
with pauses between them (Chromium loops it, so a long silence ends it); the correction
arrives while the agent is still reading back the first request, which is a real barge-in.
Whisper sometimes hears the correction with low confidence; the agent then checks the values
before reading the booking back, so the caller's last "Yes." answers whichever question is
still open (after a booking it is harmless).

The barge-in measurement (issue 14, item 7) runs ``amend demo`` as a child process and feeds
the caller's speech through the page's ``window.amendVoice.inject`` hook instead of the looping
file: ``pytest tests/test_browser_voice.py -k barge -s`` prints count, p50 and p95 per voice.
"""

from __future__ import annotations

import json
import math
import wave

import numpy as np
import pytest
from browser_support import ARTIFACTS, CHROMIUM, FLAGS, LiveServer

from agent.bench import percentile
from ui.app import build_app
from ui.personas import load_personas
from ui.session_hub import SessionHub

pytestmark = [
    pytest.mark.browser, pytest.mark.audio, pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="BROWSER TESTS SKIPPED: /usr/bin/chromium is missing; install "
                              "Debian's chromium package (.ci/run does) to run them"),
]

TURNS = (("I'd like a service visit for pump P-100 on Wednesday afternoon.", 1.5),
         ("Sorry, Thursday morning, not Wednesday.", 7.0),
         ("Yes, please go ahead.", 9.0),
         ("Yes.", 9.0))


def _caller_wav(path) -> None:
    """Silence, turn, silence, turn ... then 60 s of silence (Chromium loops the file)."""
    from piper import PiperVoice as Piper

    from audio.models import piper_voice

    voice = piper_voice()
    tts = Piper.load(voice.model, voice.config)
    rate = voice.sample_rate
    parts = []
    for text, pause in TURNS:
        parts.append(np.zeros(int(pause * rate), np.int16))
        parts.extend(c.audio_int16_array for c in tts.synthesize(text))
    parts.append(np.zeros(60 * rate, np.int16))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.concatenate(parts).tobytes())


@pytest.fixture(scope="module")
def voice_server():
    from audio.browser import make_voice_router
    from ui.bootstrap import fixed_clock
    from ui.demo_world import world_builder

    hub = SessionHub(world_builder(fixed_clock("2026-12-01T09:00:00+01:00")), load_personas())
    router = make_voice_router(hub.voice_session, on_close=hub.voice_closed)
    live = LiveServer(build_app(hub, router), hub).start()
    yield live
    live.stop()


def test_booking_with_a_spoken_correction_completes_through_the_page(voice_server, tmp_path):
    from playwright.sync_api import sync_playwright

    wav = tmp_path / "caller.wav"
    _caller_wav(wav)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=FLAGS + [f"--use-file-for-fake-audio-capture={wav}"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(voice_server.url)
        page.wait_for_function("window.amendVoice && window.amendVoice.open()", timeout=20000)
        page.locator("#amend-mic").focus()
        page.keyboard.press("Enter")
        transcript = page.locator("#amend-transcript")
        try:
            transcript.get_by_text("It's booked.").wait_for(timeout=90000)
        finally:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "browser-voice-booking.png"), full_page=True)
            (ARTIFACTS / "browser-voice-events.json").write_text(json.dumps(
                page.evaluate("window.amendVoice.events"), indent=1))
        session = voice_server.hub.get(page.evaluate("window.amendVoice.tab"))
        records = [b for b in session.world.world.sandbox.admin.bookings()
                   if b["status"] != "cancelled"]
        assert [(b["asset"], b["date"], b["window"]) for b in records] == [
            ("P-100", "2026-12-03", "morning")]
        row = page.locator("#amend-ledger tr", has_text="visit_date")
        row.get_by_text("2026-12-03").wait_for()
        # Version 2 is the corrected value. When Whisper heard the correction with low
        # confidence, the value was first held for a check (an unresolved version, so a stale
        # action built on Wednesday dies at once) and then confirmed: version 3.
        events = page.evaluate("window.amendVoice.events")
        held = any(e.get("event") == "clarification_requested"
                   and "visit_date" in (e.get("fields") or ()) for e in events)
        assert row.locator("td").nth(2).inner_text() == ("3" if held else "2")
        assert f"Your reference is {records[0]['ref']}" in transcript.inner_text()
        report = page.evaluate("window.amendVoice.bargeInReport()")
        (ARTIFACTS / "browser-voice-barge-in.json").write_text(json.dumps(report, indent=1))
        if report:
            print(f"\nvoice barge-in: onset -> last stale sample "
                  f"{report[0]['onsetToLastStaleMs']:.0f} ms")
        browser.close()


BARGE_INS = 12  # Piper and espeak-ng callers taking turns: 6 each


def test_barge_in_over_agent_speech_in_two_voices_is_measured_in_the_page():
    """Issue 14, item 7: speech onset -> last stale sample the page played, measured for
    twelve barge-ins in two voices (the p95 target, 350 ms, is judged in the benchmark).

    ``amend demo --port --clock`` runs as a child process; the caller's corrections (Piper
    and espeak-ng, taking turns) are fed into the page's capture path with
    ``window.amendVoice.inject`` while the agent reads a booking back, and both ends of each
    figure are read on the page's AudioContext clock (``audio/browser_bench.py``).
    """
    from audio import browser_bench, synth

    if not synth.espeak_available():
        pytest.skip("BROWSER BARGE-IN SKIPPED: espeak-ng is missing (the second caller voice); "
                    "install Debian's espeak-ng package")
    # Twice the clips it needs: on a busy machine an answer may play in bursts, and a clip
    # spoken into a gap is no barge-in; the run stops once BARGE_INS have cut agent speech.
    clips = browser_bench.caller_clips(2 * BARGE_INS)
    ARTIFACTS.mkdir(exist_ok=True)
    with browser_bench.demo_server(log=ARTIFACTS / "browser-barge-in-demo.log") as url:
        run = browser_bench.measure(url, clips, chromium=CHROMIUM, flags=FLAGS,
                                    artifacts=ARTIFACTS, wanted=BARGE_INS)
    (ARTIFACTS / "browser-barge-in-voices.json").write_text(json.dumps(run.report(), indent=1))
    rows = run.rows()
    print("\n" + browser_bench.summary(run.barge_ins))
    for row in rows:
        print(f"  {row.figure}: {row.value} {row.unit}")
    if run.missed:
        print(f"  clips that cut nothing (not counted): {len(run.missed)}")
    ms = [b.ms for b in run.barge_ins]
    assert len(ms) >= BARGE_INS, f"only {len(ms)} barge-ins were measured; missed: {run.missed}"
    assert {b.voice for b in run.barge_ins} == {"piper", "espeak-ng"}
    # The figure is reported here and judged against its target (p95 <= 350 ms) in
    # `amend bench --only audio`: speed targets live in the benchmark, never in a timed test
    # (a busy CI machine would fail a correct page). What must hold here is that every
    # barge-in cut the old answer: each measured one has a last stale sample.
    assert all(math.isfinite(x) and x >= 0 for x in ms), ms
    p95 = percentile(ms, 95)
    print(f"  p95 {p95:.0f} ms (target <= {browser_bench.TARGET_P95_MS:.0f} ms, judged in "
          "`amend bench --only audio`)")


def test_barge_in_figures_pair_each_clip_with_the_clear_that_followed_it():
    """The pure half of the measurement, on a made-up page timeline (seconds)."""
    from audio.browser_bench import barge_in_rows, barge_ins

    timeline = {
        "baseLatency": 0.01, "outputLatency": 0.03,
        "injected": [{"label": "piper", "onset": 1.0}, {"label": "espeak-ng", "onset": 5.0},
                     {"label": "piper", "onset": 9.0}],
        "played": [{"generation": 2, "start": 0.5, "end": 1.25, "lastSound": 1.25},
                   {"generation": 2, "start": 1.3, "end": 1.4, "lastSound": None},  # silence
                   {"generation": 3, "start": 4.0, "end": 5.2, "lastSound": 5.18},
                   {"generation": 4, "start": 7.0, "end": 8.0, "lastSound": 8.0}],
        "received": [{"generation": 2, "at": 1.24}, {"generation": 3, "at": 5.19}],
        "held": [{"generation": 2, "at": 1.25}, {"generation": 3, "at": 5.2}],
        "cleared": [{"generation": 2, "at": 3.0}, {"generation": 3, "at": 7.5},
                    {"generation": 4, "at": 9.5}],
    }
    events = [{"event": "barge_in_paused", "generation": 3, "onset_to_paused_ms": 150.0}]
    found, missed = barge_ins(timeline, events)
    assert [(b.voice, b.generation, round(b.ms)) for b in found] == [
        ("piper", 2, 290), ("espeak-ng", 3, 220)]  # last stale sample + 40 ms of device
    assert found[1].server_onset_to_paused_ms == 150.0 and found[0].onset_to_held_ms == 250
    assert [m["why"] for m in missed] == ["the agent was silent at the onset"]  # gen 4 ended
    rows = {r.figure: r.value for r in barge_in_rows(found)}
    assert rows["browser barge-in onset -> last stale sample played, count"] == 2
    assert rows["browser barge-in onset -> last stale sample played p95"] == 290
