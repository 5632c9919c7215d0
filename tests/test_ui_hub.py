"""Each tab owns its session: typed turns, panels, reset and close, against a fake world."""

from __future__ import annotations

import asyncio
import time

import pytest
from ui_support import build_fake_world

from agent.core.errors import InvalidInput
from agent.core.trace import Trace
from ui.personas import load_personas
from ui.session_hub import CURRENT_TAB, SessionHub
from ui.session_view import latencies, render_all, transcript


@pytest.fixture
def hub():
    return SessionHub(build_fake_world, load_personas())


@pytest.mark.anyio
async def test_two_tabs_have_separate_ledgers(hub):
    a = await hub.open("tab-a")
    b = await hub.open("tab-b", "globex-single-gearbox")
    await a.typed_turn("Book P-100 on Wednesday afternoon")
    assert a.conversation.ledger.current.value("visit_date") == "2026-12-02"
    assert b.conversation.ledger.current.fields == ()
    assert a.conversation.ledger.question != b.conversation.ledger.question
    assert b.persona.tenant == "globex"


@pytest.mark.anyio
async def test_booking_with_correction_renders_version_two_and_verified_confirmation(hub):
    s = await hub.open("tab")
    await s.typed_turn("Book P-100 on Wednesday afternoon")
    await s.typed_turn("Sorry, Thursday morning, not Wednesday")
    await s.typed_turn("Yes, please go ahead")
    html = await render_all(s)
    row = next(r for r in html.ledger.split("<tr") if "visit_date" in r)
    assert "2026-12-03" in row and "<td>2</td>" in row
    assert "It is booked" in html.transcript and "BK-1" in html.bookings
    lines = transcript(s)
    assert [line.speaker for line in lines] == ["agent", "caller", "agent", "caller", "agent",
                                                "caller", "agent"]
    assert lines[1].text == "Book P-100 on Wednesday afternoon"  # debug trace: own words shown


@pytest.mark.anyio
async def test_invalidated_plan_without_audio_shows_as_cut(hub):
    s = await hub.open("tab")
    await s.typed_turn("Book P-100 on Wednesday afternoon")
    s.conversation.barge_in()
    cut = [line for line in transcript(s) if line.cut]
    assert cut and cut[-1].text.startswith("Shall I book")


@pytest.mark.anyio
async def test_plan_that_finished_playing_before_invalidation_is_not_cut(hub):
    s = await hub.open("tab")
    base = time.monotonic()
    now = [base]
    s.sink.clock = lambda: now[0]
    await s.typed_turn("Book P-100 on Wednesday afternoon")
    now[0] = base + 60.0  # a minute later: the answer has long been heard in full
    s.conversation.barge_in()
    assert not any(line.cut for line in transcript(s))


@pytest.mark.anyio
async def test_reset_closes_old_session_and_greets_again(hub):
    first = await hub.open("tab")
    second = await hub.open("tab")
    assert first.conversation.closed and first.world.closed
    assert len(second.sink.plans) == 1 and len(hub) == 1


@pytest.mark.anyio
async def test_closing_a_tab_ends_its_session(hub):
    s = await hub.open("tab")
    await hub.close("tab")
    assert s.conversation.closed and hub.get("tab") is None
    await hub.close("tab")  # closing twice is harmless


@pytest.mark.anyio
async def test_empty_and_oversized_typed_turns_are_refused_with_a_reason(hub):
    s = await hub.open("tab")
    with pytest.raises(InvalidInput, match="empty"):
        await s.typed_turn("   ")
    with pytest.raises(InvalidInput, match="500"):
        await s.typed_turn("x" * 501)
    with pytest.raises(InvalidInput, match="unknown"):
        await hub.open("tab", "nobody")


@pytest.mark.anyio
async def test_voice_link_gets_a_fresh_conversation_in_the_same_world(hub):
    s = await hub.open("tab-v")
    typed_only = s.conversation

    class Spy:
        def __init__(self):
            self.plans, self.cleared = [], []

        def speak(self, plan):
            self.plans.append(plan)

        def invalidate(self, generation, reason):
            self.cleared.append(generation)

    spy = Spy()
    token = CURRENT_TAB.set("tab-v")
    try:
        linked = hub.voice_session(spy)
        assert linked is s and s.conversation is not typed_only
        await asyncio.gather(*s.background)  # the old one closes, the new one greets
        await s.typed_turn("Book P-100 on Wednesday afternoon")
        assert typed_only.closed
        assert [p.text[:12] for p in spy.plans] == ["Hello, this ", "Shall I book"]
        s.conversation.barge_in()
        assert spy.cleared == [2] and transcript(s)[-1].cut
        hub.voice_closed()
        assert s.sink.downstream is None
    finally:
        CURRENT_TAB.reset(token)
    with pytest.raises(InvalidInput, match="no session"):
        hub.voice_session(spy)  # a socket without a known tab


def test_latency_rows_measure_from_last_voiced_frame():
    times = iter([10.0, 10.2, 10.5, 10.9])
    trace = Trace(clock=lambda: next(times))
    stamp = {"question": "q", "revision": 0, "generation": 1}
    trace.emit("user_turn_final", **stamp, last_voiced_t=9.8)
    trace.emit("field_accepted", **stamp)
    trace.emit("confirmation_requested", **stamp)
    trace.emit("agent_speech_started", **stamp)
    (row,) = latencies(trace.events)
    assert round(row.transcript_ms) == 200 and round(row.decision_ms) == 700
    assert round(row.first_audio_ms) == 1100


@pytest.mark.anyio
async def test_turn_reported_by_pipeline_and_controller_shows_once_but_repeats_stay(hub):
    s = await hub.open("tab")
    stamp = {"question": "q", "revision": 0, "generation": 1}
    s.trace.emit("user_turn_final", **stamp, text="yes", channel="voice")  # the pipeline
    await s.typed_turn("yes")  # the (fake) controller reports it again, then answers
    await s.typed_turn("yes")  # a genuine second "yes" after the agent spoke
    assert [line.text for line in transcript(s) if line.speaker == "caller"] == ["yes", "yes"]


def test_pipeline_turn_latency_events_are_used_as_measured():
    trace = Trace()
    trace.emit("turn_latency", question="", revision=-1, generation=3, transcript_ms=310.0,
               decision_ms=335.5, first_tts_audio_ms=420.0, first_output_ms=480.0)
    (row,) = latencies(trace.events)
    assert (row.transcript_ms, row.decision_ms, row.first_audio_ms) == (310.0, 335.5, 480.0)
