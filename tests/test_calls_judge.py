"""The judge on hand-made evidence: each invariant and severity gate catches its failure.

Every scenario is built twice where it matters: the failing history and the corrected one,
so a check that always fails (or never does) cannot pass here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.trace import TraceEvent
from audio.calls import invariants as inv
from audio.calls.evidence import Evidence, Verdict
from audio.calls.expectations import one_to_one, same
from audio.calls.judge import judge
from audio.calls.player import Heard
from audio.calls.script import ScriptInvalid, load_script

Q = "q-1"


def ev(name: str, t: float, *, revision: int = 0, generation: int = 1, request=None,
       disposition=None, **data) -> TraceEvent:
    frozen = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items())
    return TraceEvent(name, t, Q, revision, generation, request, disposition, frozen)


def evidence(events=(), bookings=(), before=(), notes=(), heard=(), fields=None,
             staff=()) -> Evidence:
    return Evidence(tuple(events), tuple(heard), tuple(before), tuple(bookings), (),
                    tuple(notes), fields or {}, tuple(staff))


BOOKING = {"ref": "B1", "account": "ACME-001", "asset": "P-100", "date": "2026-12-03",
           "window": "morning", "time": None, "status": "confirmed", "version": 1,
           "created_key": "q-1:a1"}


def test_iso_text_comparison_and_order_free_one_to_one_matching():
    assert same("2026-12-03", "2026-12-03") and same("9:00", "09:00:00") and same(1, "1")
    assert not same("2026-12-03", "2026-12-04") and not same(None, "x")
    entries = ((("date", "2026-12-03"),), (("asset", "P-100"),))
    records = [{"asset": "P-100", "date": "2026-12-09"}, {"asset": "P-200", "date": "2026-12-03"}]
    assert one_to_one(entries, records) == ([], [])  # needs the second-choice assignment
    assert one_to_one(entries, records[:1]) == ([0], [])


def test_dispatch_after_the_field_it_reads_changed_is_a_stale_dispatch():
    history = [ev("action_proposed", 1, request="k1", vector={"visit_date": 1}),
               ev("field_accepted", 2, revision=1, fields=["visit_date"]),
               ev("action_dispatched", 3, revision=1, request="k1")]
    assert inv.stale_dispatch(evidence(history))
    unrelated = [history[0], ev("field_accepted", 2, revision=1, fields=["language"]),
                 history[2]]
    assert not inv.stale_dispatch(evidence(unrelated))


def test_work_made_stale_in_flight_must_be_cancelled_or_reconciled():
    history = [ev("action_dispatched", 1, request="k1"),
               ev("field_accepted", 2, revision=1, fields=["visit_date"])]
    assert inv.stale_work(evidence(history), {})
    resolved = history + [ev("action_reconciled", 3, request="k1")]
    assert not inv.stale_work(evidence(resolved), {})


def test_work_that_failed_before_a_change_was_not_stale_in_flight():
    # blind round 24's h09: a create the booking system refused (503), then a new day, was
    # reported as stale work never cancelled; a failed action ended before the change
    failed = [ev("action_dispatched", 1, request="k1"), ev("action_failed", 2, request="k1"),
              ev("field_accepted", 3, revision=1, fields=["visit_date"])]
    assert not inv.stale_work(evidence(failed), {})
    # failing after the change: it was in flight when it went stale
    late = [failed[0], failed[2], ev("action_failed", 4, request="k1")]
    assert inv.stale_work(evidence(late), {})


def test_booking_standing_on_a_superseded_value_breaks_invariant_2_unless_handed_off():
    fields = {"visit_date": {"value": "2026-12-04", "status": "confirmed", "version": 2}}
    stale = evidence(bookings=[BOOKING], fields=fields)
    assert any("stands on date=2026-12-03" in v for v in inv.stale_work(stale, fields))
    handed = evidence([ev("handoff", 5)], bookings=[BOOKING], fields=fields)
    assert not inv.stale_work(handed, fields)


def test_two_bookings_from_one_call_for_the_same_slot_are_duplicates():
    twin = dict(BOOKING, ref="B2", created_key="q-1:a2")
    assert inv.duplicates(evidence(bookings=[BOOKING, twin]))
    moved = dict(twin, date="2026-12-04")
    assert not inv.duplicates(evidence(bookings=[BOOKING, moved]))
    note = {"id": 1, "booking_ref": "B1", "booking_version": 1, "kind": "confirmation",
            "deliveries": 2}
    assert inv.duplicates(evidence(bookings=[BOOKING], notes=[note]))


def test_confirmation_must_match_the_verified_record():
    spoken = ev("confirmation_spoken", 4, ref="B1", version=1, date="2026-12-03",
                window="morning")
    assert not inv.false_confirmations(evidence([spoken], [BOOKING]), "ACME-001")
    wrong = ev("confirmation_spoken", 4, ref="B1", version=1, date="2026-12-02")
    assert inv.false_confirmations(evidence([wrong], [BOOKING]), "ACME-001")
    ahead = ev("confirmation_spoken", 4, ref="B1", version=2)
    assert inv.false_confirmations(evidence([ahead], [BOOKING]), "ACME-001")
    missing = ev("confirmation_spoken", 4, ref="B9", version=1)
    assert inv.false_confirmations(evidence([missing], [BOOKING]), "ACME-001")
    other = dict(BOOKING, account="GLOBEX-9")
    assert inv.false_confirmations(evidence([spoken], [other]), "ACME-001")


def test_audio_heard_after_its_generation_was_invalidated_is_stale_audio():
    heard = Heard(2, "answer", "An answer that kept playing.", 28, 1.0, 4.0, "completed")
    invalidated = ev("generation_invalidated", 1.5, invalidated=2)
    assert inv.stale_audio(evidence([invalidated], heard=[heard]))
    cut = Heard(2, "answer", "An answer that was cut.", 8, 1.0, 1.52, "invalidated")
    assert not inv.stale_audio(evidence([invalidated], heard=[cut]))


def test_evidence_admitted_or_spoken_after_its_question_changed_is_stale_evidence():
    started = ev("retrieval_started", 1, request="r1")
    change = ev("field_accepted", 2, revision=1, fields=["asset"])
    assert inv.stale_evidence(evidence([started, change,
                                        ev("retrieval_admitted", 3, request="r1")]))
    shadow = ev("retrieval_admitted", 1.5, request="r1", disposition="current", would_be="stale")
    assert inv.stale_evidence(evidence([started, shadow]))
    spoken = ev("answer_spoken", 3, request="r1", citations=["x"])
    admitted = ev("retrieval_admitted", 1.5, request="r1", disposition="current")
    assert inv.stale_evidence(evidence([started, admitted, change, spoken]))
    assert not inv.stale_evidence(evidence([started, admitted, spoken, change]))


def test_dispatch_without_an_answered_confirmation_is_unauthorized():
    asked = [ev("confirmation_requested", 1), ev("user_turn_final", 2),
             ev("action_dispatched", 3, request="k1", op="create_booking")]
    assert not inv.unauthorized(evidence(asked))
    assert inv.unauthorized(evidence([asked[0], asked[2]]))


def test_changing_another_accounts_booking_is_a_wrong_party_action():
    theirs = dict(BOOKING, account="GLOBEX-9")
    assert inv.wrong_party(evidence(bookings=[theirs]), "ACME-001")
    assert not inv.wrong_party(evidence(bookings=[theirs], before=[theirs]), "ACME-001")
    assert not inv.wrong_party(evidence(bookings=[theirs], staff=["B1"]), "ACME-001")


def test_a_notification_entry_names_the_booking_version_as_version(tmp_path):
    path = tmp_path / "note.yaml"
    path.write_text(Path(__file__).parent.joinpath("calls", "05-which-thursday.yaml")
                    .read_text().replace("  clarified: [visit_date]\n", "")
                    + "  notifications:\n    - {kind: confirmation, booking: B1, version: 2}\n")
    note = {"id": 1, "account": "ACME-001", "booking_ref": "B1", "booking_version": 2,
            "kind": "confirmation"}
    result = judge(load_script(path), evidence(notes=[note]), "text")
    assert not any("notifications" in v for v in result.violations), result.violations
    result = judge(load_script(path), evidence(notes=[dict(note, booking_version=1)]), "text")
    assert any("expect.notifications: nothing matches" in v for v in result.violations)


def test_a_quiet_call_passes_with_every_measure_not_applicable(tmp_path):
    path = tmp_path / "quiet.yaml"
    path.write_text(Path(__file__).parent.joinpath("calls", "05-which-thursday.yaml")
                    .read_text().replace("  clarified: [visit_date]\n", ""))
    result = judge(load_script(path), evidence([ev("user_turn_final", 1)]), "text")
    assert result.verdict is Verdict.PASS, result.violations
    assert set(result.measures.values()) == {"n/a"}
    assert result.counts["stale_missed"] == 0


def test_expect_turns_counts_the_caller_turns_the_agent_took(tmp_path):
    """A sentence split at a pause is two turns even when the reply to its first half was
    cut before the caller heard it: only the count shows it."""
    path = tmp_path / "turns.yaml"
    path.write_text(Path(__file__).parent.joinpath("calls", "05-which-thursday.yaml")
                    .read_text().replace("  clarified: [visit_date]\n", "") + "  turns: 1\n")
    one = [ev("user_turn_final", 1, text="I need a visit on Friday afternoon")]
    split = [ev("user_turn_final", 1, text="I need a visit on"),
             ev("user_turn_final", 2, text="Friday afternoon")]
    assert judge(load_script(path), evidence(one), "audio").verdict is Verdict.PASS
    result = judge(load_script(path), evidence(split), "audio")
    assert result.violations == ("expect.turns: expected 1 caller turns, the agent took 2: "
                                 "'I need a visit on'; 'Friday afternoon'",)


def test_expect_turns_must_be_a_whole_number_of_at_least_one(tmp_path):
    path = tmp_path / "zero.yaml"
    path.write_text(Path(__file__).parent.joinpath("calls", "05-which-thursday.yaml")
                    .read_text() + "  turns: 0\n")
    with pytest.raises(ScriptInvalid, match=r"expect.turns: must be at least 1, got 0"):
        load_script(path)


def test_expect_outcome_reads_the_answers_outcome_not_a_searchs(tmp_path):
    """A search that timed out after the answer was spoken (retrieval_completed carries its
    own outcome, "timeout") does not change what the question resolved to (blind round 42
    asked which event expect.outcome reads)."""
    path = tmp_path / "outcome.yaml"
    path.write_text(Path(__file__).parent.joinpath("calls", "05-which-thursday.yaml")
                    .read_text().replace("  clarified: [visit_date]\n", "")
                    + "  outcome: RESOLVED\n")
    answered = [ev("registry_resolved", 1, outcome="RESOLVED"),
                ev("answer_spoken", 2, outcome="RESOLVED", citations=["nw-bulletin-b"]),
                ev("retrieval_completed", 3, outcome="timeout")]
    assert judge(load_script(path), evidence(answered), "text").verdict is Verdict.PASS
    refused = answered[:1] + [ev("answer_spoken", 2, outcome="NOT_APPLICABLE", citations=[])]
    result = judge(load_script(path), evidence(refused), "text")
    assert result.violations == ("expect.outcome: expected RESOLVED, the last question "
                                 "resolved to NOT_APPLICABLE",)
