"""The demo page in headless Debian Chromium: typed booking with a correction, and a barge-in.

The page, its JS, the worklets, the websocket protocol and the panels are all real; the agent
behind them is the fake conversation of ``ui_support`` and the voice is the tone voice of
``browser_support`` (the protocol's server side). The fake microphone hears silence; the
caller's words (Piper) are fed into the page's capture path while the agent's answer plays.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import (
    ARTIFACTS,
    CHROMIUM,
    LiveServer,
    chromium_flags,
    piper_speech,
    tone_voice_router,
)
from ui_support import build_fake_world

from ui.app import build_app
from ui.personas import load_personas
from ui.session_hub import SessionHub

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="BROWSER TESTS SKIPPED: /usr/bin/chromium is missing; install "
                              "Debian's chromium package (.ci/run does) to run them"),
]


@pytest.fixture(scope="module")
def correction() -> tuple[bytes, int]:
    """What the caller says over the agent: Piper's PCM16 and its rate."""
    return piper_speech("Sorry, Thursday morning, not Wednesday.")


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    hub = SessionHub(build_fake_world, load_personas())
    voices: list = []
    live = LiveServer(build_app(hub, tone_voice_router(hub, voices)), hub).start()
    live.voices = voices
    yield live
    live.stop()


@pytest.fixture(scope="module")
def real_server() -> Iterator[LiveServer]:
    """The real controller, sandbox and demo registry per tab, on a fixed Tuesday."""
    from ui.bootstrap import fixed_clock
    from ui.demo_world import world_builder

    hub = SessionHub(world_builder(fixed_clock("2026-12-01T09:00:00+01:00")), load_personas())
    voices: list = []
    live = LiveServer(build_app(hub, tone_voice_router(hub, voices)), hub).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Chromium whose fake microphone hears silence (the file loops): a test that speaks
    injects its words at the moment it picks (``window.amendVoice.inject``)."""
    from playwright.sync_api import sync_playwright

    from audio.browser_bench import silent_wav

    mic = silent_wav(tmp_path_factory.mktemp("mic") / "silence.wav")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=chromium_flags(mic))
        yield chromium
        chromium.close()


def _open(browser, server):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server.url)
    page.wait_for_function("window.amendVoice && window.amendVoice.open()", timeout=20000)
    return page


def _tab_to(page, element_id: str, limit: int = 80) -> None:
    """Reach a control with the Tab key alone (keyboard accessibility)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == element_id:
            return
    raise AssertionError(f"#{element_id} is not reachable with Tab in {limit} presses")


def _voice_of(server, page):
    """The tone voice speaking to ``page`` (the server keeps one per socket ever opened)."""
    session = server.hub.get(page.evaluate("window.amendVoice.tab"))
    return next(v for v in server.voices if v.conversation is session.conversation)


# Seconds of each generation the page has played, summed over its stretches (a stretch is
# listed once it ended). The player's "drained" only says its queue ran dry, which a slow
# socket also causes mid-answer; what was played is what was heard.
PLAYED_SECS = """() => { const s = {}; for (const r of window.amendVoice.played())
    s[r.generation] = (s[r.generation] || 0) + (r.end - r.start); return s; }"""


def _type_turn(page, text: str) -> None:
    box = page.locator("#amend-typed textarea, #amend-typed input").first
    box.focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def test_booking_with_correction_completes_through_the_page(browser, server):
    page = _open(browser, server)
    _type_turn(page, "Book P-100 on Wednesday afternoon")
    page.locator("#amend-transcript").get_by_text("Shall I book P-100 on 2026-12-02").wait_for()
    _type_turn(page, "Sorry, Thursday morning, not Wednesday")
    page.locator("#amend-transcript").get_by_text("on 2026-12-03 in the morning").wait_for()
    _type_turn(page, "Yes, please go ahead")
    page.locator("#amend-transcript").get_by_text("It is booked").wait_for()

    # The system of record holds the corrected booking ...
    session = server.hub.get(page.evaluate("window.amendVoice.tab"))
    (record,) = session.conversation.book
    assert (record.asset, record.date, record.window) == ("P-100", "2026-12-03", "morning")
    # ... the ledger panel shows the corrected field at version 2 ...
    row = page.locator("#amend-ledger tr", has_text="visit_date")
    row.get_by_text("2026-12-03").wait_for()
    assert row.locator("td").nth(2).inner_text() == "2"
    # ... and the transcript has the confirmation rendered from the verified record.
    assert "It is booked: P-100 on 2026-12-03, morning." in page.locator(
        "#amend-transcript").inner_text()
    page.get_by_role("tab", name="Sandbox").click()
    page.locator("#amend-bookings").get_by_text("BK-1").wait_for()
    page.get_by_role("tab", name="Ledger").click()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-booking-correction.png"), full_page=True)
    page.close()


def test_barge_in_pauses_then_clears_stale_playback_in_the_page(browser, server, correction):
    page = _open(browser, server)
    _tab_to(page, "amend-mic")  # keyboard only: Tab to the microphone, press Enter
    page.keyboard.press("Enter")
    page.wait_for_function("window.amendVoice.micOn")
    # The greeting has played out (a turn typed over it would be a barge-in of its own): every
    # sample the voice streamed for it was played, to within one resampling block.
    page.wait_for_function("window.amendVoice.measures.started.length > 0", timeout=20000)
    voice = _voice_of(server, page)  # it streamed what the page started: known, with lengths
    page.wait_for_function(f"""(lengths) => {{ const played = ({PLAYED_SECS})();
        const started = window.amendVoice.measures.started;
        return started.every((s) =>
            (played[s.gen] || 0) >= (lengths[s.gen] || Infinity) - 0.01); }}""",
                           arg={str(g): secs for g, secs in voice.lengths.items()},
                           timeout=20000)
    after = page.evaluate("Math.max(0, ...window.amendVoice.measures.started.map((s) => s.gen))")
    _type_turn(page, "Book P-100 on Wednesday afternoon")
    # The answer starts playing in the page; the caller speaks 0.8 s into it.
    started = page.wait_for_function(
        "(after) => window.amendVoice.measures.started.find((s) => s.gen > after) || null",
        arg=after, timeout=20000, polling=20).json_value()
    rate = page.evaluate("window.amendVoice.ctx.sampleRate")
    page.evaluate("([pcm, o]) => { window.amendVoice.inject(pcm, o); }",
                  [base64.b64encode(correction[0]).decode(),
                   {"onsetAt": started["at"] / rate + 0.8, "rate": correction[1]}])
    page.wait_for_function("window.amendVoice.bargeInReport().length > 0", timeout=20000)
    measures = page.evaluate(f"""() => ({{report: window.amendVoice.bargeInReport(),
        pauses: window.amendVoice.measures.pauses, started: window.amendVoice.measures.started,
        playedSecs: ({PLAYED_SECS})(), sampleRate: window.amendVoice.ctx.sampleRate,
        outputLatency: window.amendVoice.ctx.outputLatency}})""")
    [report] = measures["report"]
    stale = report["gen"]
    assert stale == started["gen"]  # the answer the caller spoke over ...
    assert measures["pauses"] and measures["pauses"][0]["gen"] == stale  # ... paused first ...
    # ... and never finished: the caller's onset came 0.8 s into a tone of 4 s or more.
    assert measures["playedSecs"][str(stale)] < voice.lengths[stale] - 1.0, measures
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "browser-barge-in.json").write_text(json.dumps(measures, indent=1))
    # The transcript shows the agent's answer as cut.
    page.locator("#amend-transcript .amend-cut").first.wait_for()
    print(f"\nbarge-in: speech onset -> last stale sample played "
          f"{report['onsetToLastStaleMs']:.0f} ms (target <= 350 ms); onset -> clear "
          f"{report['onsetToClearMs']:.0f} ms; context {measures['sampleRate']} Hz")
    page.screenshot(path=str(ARTIFACTS / "browser-barge-in.png"), full_page=True)
    page.close()


def test_real_agent_booking_with_correction_is_verified_in_the_sandbox(browser, real_server):
    page = _open(browser, real_server)
    transcript = page.locator("#amend-transcript")
    _type_turn(page, "I'd like a service visit for pump P-100 on Wednesday afternoon.")
    transcript.get_by_text("Wednesday 2 December, in the afternoon. Shall I book it?").wait_for()
    _type_turn(page, "Sorry, Thursday morning, not Wednesday.")
    transcript.get_by_text("Thursday 3 December, in the morning. Shall I book it?").wait_for()
    _type_turn(page, "Yes, please go ahead.")
    transcript.get_by_text("It's booked.").wait_for(timeout=20000)

    session = real_server.hub.get(page.evaluate("window.amendVoice.tab"))
    records = [b for b in session.world.world.sandbox.admin.bookings()
               if b["status"] != "cancelled"]
    assert [(b["asset"], b["date"], b["window"]) for b in records] == [
        ("P-100", "2026-12-03", "morning")]
    row = page.locator("#amend-ledger tr", has_text="visit_date")
    row.get_by_text("2026-12-03").wait_for()
    assert row.locator("td").nth(2).inner_text() == "2"
    heard = transcript.inner_text()
    assert f"Pump P-100, Thursday 3 December, in the morning. Your reference is " \
           f"{records[0]['ref']}" in heard
    ARTIFACTS.mkdir(exist_ok=True)
    page.get_by_role("tab", name="Actions").click()
    page.locator("#amend-actions").get_by_text("committed").wait_for()
    for name in ("Actions", "Sandbox", "Trace", "Latency"):  # every panel, for the record
        page.get_by_role("tab", name=name).click()
        page.screenshot(path=str(ARTIFACTS / f"browser-panel-{name.lower()}.png"))
    page.get_by_role("tab", name="Ledger").click()
    shot = ARTIFACTS / "browser-real-booking-correction.png"
    page.screenshot(path=str(shot), full_page=True)
    if os.environ.get("AMEND_UPDATE_SCREENSHOT") == "1":  # refresh the README picture
        shutil.copyfile(shot, Path(__file__).resolve().parent.parent / "docs" / "screenshot.png")
    page.close()


def test_demo_controls_fault_staff_edit_and_reset_drive_the_real_world(browser, real_server):
    page = _open(browser, real_server)
    transcript = page.locator("#amend-transcript")
    session = real_server.hub.get(page.evaluate("window.amendVoice.tab"))
    faults = session.world.world.sandbox.faults
    page.locator("#amend-controls").get_by_text("Demo controls").click()
    # A delay long enough that the test, not the clock, ends it: the panel is seen while the
    # booking is held however slowly the page refreshes, then the hold is released.
    page.get_by_label("Delay (ms)").fill("120000")
    page.get_by_role("button", name="Inject fault on the next call").click()
    page.get_by_text("next create_booking: delay_ms=120000").wait_for()
    _type_turn(page, "Book a visit for P-100 on Thursday morning.")
    transcript.get_by_text("Shall I book it?").wait_for()
    _type_turn(page, "Yes.")
    assert faults.wait_held(1, timeout=30), "the booking never reached the sandbox's delay"
    page.get_by_role("tab", name="Actions").click()
    page.locator("#amend-actions").get_by_text("committing").wait_for()  # held by the fault
    assert "It's booked." not in transcript.inner_text()  # nothing confirmed while held
    assert faults.release() == 1
    transcript.get_by_text("It's booked.").wait_for(timeout=20000)
    ref = session.world.world.sandbox.admin.bookings()[0]["ref"]

    page.get_by_label("Booking ref").fill(ref)
    page.get_by_label("New value").fill("afternoon")
    page.locator("#amend-controls").get_by_label("Field").click()
    page.get_by_role("option", name="window").click()
    page.get_by_role("button", name="Apply staff edit").click()
    page.get_by_role("tab", name="Sandbox").click()
    row = page.locator("#amend-bookings tr", has_text=ref)
    row.get_by_text("afternoon").wait_for()
    assert row.locator("td").nth(6).inner_text() == "2"  # the staff edit made version 2
    page.screenshot(path=str(ARTIFACTS / "browser-demo-controls.png"), full_page=True)

    question = session.conversation.ledger.question
    page.get_by_role("button", name="Reset session").click()
    page.locator("#amend-bookings").get_by_text("No bookings.").wait_for()
    page.get_by_role("tab", name="Ledger").click()
    page.locator("#amend-ledger").get_by_text("No accepted fields yet.").wait_for()
    assert real_server.hub.get(session.tab).conversation.ledger.question != question
    page.close()


def test_hostile_turn_is_shown_as_text_and_never_runs(browser, server):
    page = _open(browser, server)
    _type_turn(page, '<img src=x onerror="window.pwned=1"> on Wednesday')
    page.locator("#amend-transcript").get_by_text('<img src=x onerror="window.pwned=1">',
                                                  exact=False).wait_for()
    assert page.evaluate("window.pwned") is None
    assert page.locator("#amend-transcript img").count() == 0
    page.close()


def test_push_to_talk_sends_audio_only_while_talk_is_held(browser, server):
    page = _open(browser, server)
    page.evaluate("""() => { const v = window.amendVoice; v.sent = {audio: 0, ptt: []};
        const send = v.ws.send.bind(v.ws);
        v.ws.send = (d) => { if (typeof d === 'string') v.sent.ptt.push(JSON.parse(d));
                             else v.sent.audio++; send(d); }; }""")
    _tab_to(page, "amend-ptt-mode")
    page.keyboard.press("Enter")  # push-to-talk mode on (before the mic starts)
    _tab_to(page, "amend-mic")
    page.keyboard.press("Enter")
    page.wait_for_function("window.amendVoice.micOn")
    # 30 captured frames (600 ms of microphone) while Talk is not held: none may be sent.
    page.wait_for_function("window.amendVoice.framesCaptured > 30")
    assert page.evaluate("window.amendVoice.sent.audio") == 0
    _tab_to(page, "amend-talk")
    page.keyboard.down(" ")
    page.wait_for_function("window.amendVoice.sent.audio > 10")
    page.keyboard.up(" ")
    sent = page.evaluate("window.amendVoice.sent.ptt")
    assert [m for m in sent if m["type"] == "ptt"] == [{"type": "ptt", "on": True},
                                                      {"type": "ptt", "on": False}]
    page.close()


def test_closing_the_tab_ends_its_session(browser, server):
    page = _open(browser, server)
    tab = page.evaluate("window.amendVoice.tab")
    session = server.hub.get(tab)
    assert session is not None
    page.close(run_before_unload=True)
    deadline = time.monotonic() + 20
    while server.hub.get(tab) is not None and time.monotonic() < deadline:
        time.sleep(0.1)  # polling the server from outside; the page is gone
    assert server.hub.get(tab) is None and session.world.closed


def test_without_a_voice_link_typed_turns_still_reach_the_session(browser):
    hub = SessionHub(build_fake_world, load_personas())
    live = LiveServer(build_app(hub, None), hub).start()
    try:
        page = browser.new_page()
        page.goto(live.url)
        page.locator("#amend-voice-status").get_by_text("voice link").wait_for()
        _type_turn(page, "Book P-100 on Wednesday afternoon")
        page.locator("#amend-transcript").get_by_text("Shall I book P-100").wait_for()
        page.close()
    finally:
        live.stop()
