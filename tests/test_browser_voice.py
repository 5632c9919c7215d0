"""The whole demo by voice: Chromium's fake microphone speaks, Whisper hears, Piper answers.

Everything is real: the page, the AudioWorklets, the websocket pipeline (``audio.browser``), the
controller, the sandbox and the demo registry. The fake microphone file holds the caller's turns
with pauses between them (Chromium loops it, so a long silence ends it); the correction
arrives while the agent is still reading back the first request, which is a real barge-in.
Whisper sometimes hears the correction with low confidence; the agent then checks the values
before reading the booking back, so the caller's last "Yes." answers whichever question is
still open (after a booking it is harmless).
"""

from __future__ import annotations

import json
import wave

import numpy as np
import pytest
from browser_support import ARTIFACTS, CHROMIUM, FLAGS, LiveServer

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
