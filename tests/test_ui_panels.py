"""Panels render from plain session views, and nothing user-derived reaches HTML unescaped."""

from __future__ import annotations

from agent.core.caller import Asset, CallerProfile
from agent.core.ledger import Ledger
from agent.core.ports import BookingRecord
from agent.core.trace import Trace
from ui import panels
from ui.panels import TranscriptLine, TurnLatency

HOSTILE = '<img src=x onerror="alert(1)">'


def test_hostile_transcript_text_is_escaped_not_executed():
    html = panels.render_transcript([TranscriptLine("caller", HOSTILE),
                                     TranscriptLine("agent", "ok & <b>", 3)])
    assert "<img" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "ok &amp; &lt;b&gt;" in html


def test_hostile_ledger_value_and_source_are_escaped():
    ledger = Ledger("q-1")
    ledger.set("site", HOSTILE, "utterance:<script>")
    html = panels.render_ledger(ledger.current, ["site"])
    assert "<img" not in html and "<script>" not in html
    assert "&lt;script&gt;" in html


def test_persona_card_escapes_record_strings():
    caller = CallerProfile("acme", "t<1>", ("tech",), "A-1",
                           (Asset("P-1", "C2", "EU", HOSTILE),))
    html = panels.render_persona(caller)
    assert "<img" not in html and "t&lt;1&gt;" in html


def test_corrected_field_shows_version_two_and_is_highlighted():
    ledger = Ledger("q-1")
    ledger.set("visit_date", "2026-12-02", "utterance:u1")
    ledger.set("visit_window", "afternoon", "utterance:u1")
    ledger.set("visit_date", "2026-12-03", "utterance:u2")
    snap = ledger.current
    changed = [n for n, r in snap.fields if r.updated_at == snap.revision]
    html = panels.render_ledger(snap, changed)
    row = html.split("<tr")[html.split("<tr").index(
        next(r for r in html.split("<tr") if "visit_date" in r))]
    assert 'class="amend-changed"' in row and "2026-12-03" in row and "<td>2</td>" in row
    other = next(r for r in html.split("<tr") if "visit_window" in r)
    assert "amend-changed" not in other


def test_agent_speech_cut_by_barge_in_is_marked_cut():
    html = panels.render_transcript([TranscriptLine("agent", "Shall I book", 2, cut=True)])
    assert "amend-cut" in html and "(cut: barge in)" in html


def test_bookings_and_trace_tables_show_records_and_stamps():
    record = BookingRecord("BK-<1>", "A-1", "P-100", "2026-12-03", "morning", None, 1,
                           "site", "tech", "confirmed", 2)
    html = panels.render_bookings([record])
    assert "BK-&lt;1&gt;" in html and "2026-12-03" in html and "<td>2</td>" in html
    trace = Trace()
    trace.emit("generation_invalidated", question="q", revision=4, generation=7,
               reason="barge_in")
    html = panels.render_trace(trace.events)
    assert "generation_invalidated" in html and "<td>4</td>" in html and "reason=barge_in" in html


def test_empty_panels_say_so():
    assert "No bookings." in panels.render_bookings([])
    assert "No actions." in panels.render_actions([])
    assert "No voiced turns" in panels.render_waterfall([])


def test_waterfall_bars_scale_with_milestones_and_show_missing_ones():
    html = panels.render_waterfall([TurnLatency(1, 150.0, 300.0, None)], scale_ms=1500)
    assert "width:10.0%" in html and "width:20.0%" in html
    assert "150 ms" in html and "—" in html
