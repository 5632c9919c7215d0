"""Field-level ledger operations, the gate's scope rule, the dependency map and the trace."""

import pytest

from agent.core.dependencies import DependencyMap, Dependent, DependentKind
from agent.core.errors import InvalidInput
from agent.core.fields import FieldStatus
from agent.core.gate import AdmissionGate, Disposition, GateMode, Stamp
from agent.core.ledger import FieldOp, Ledger, UpdateOutcome
from agent.core.trace import Trace, redact
from agent.service.controls import AgentFaults, agent_faults


def test_first_value_is_version_one_and_each_acceptance_bumps_it():
    ledger = Ledger()
    first = ledger.set("visit_date", "2026-12-01", "utterance:u1")
    assert first.outcome is UpdateOutcome.ACCEPTED and first.revision == 0
    assert ledger.set("visit_date", "2026-12-03", "utterance:u2").revision == 1
    record = ledger.current.get("visit_date")
    assert (record.value, record.version, record.source, record.updated_at) == (
        "2026-12-03", 2, "utterance:u2", 1)


def test_exact_redelivery_of_a_correction_makes_no_new_version():
    ledger = Ledger()
    ledger.set("visit_date", "2026-12-01", "utterance:u1")
    ledger.set("visit_date", "2026-12-03", "utterance:u2")
    again = ledger.set("visit_date", "2026-12-03", "utterance:u2")
    assert again.outcome is UpdateOutcome.DUPLICATE
    assert ledger.current.version("visit_date") == 2 and ledger.revision == 1


def test_several_fields_at_once_are_one_revision():
    ledger = Ledger()
    ledger.revise([FieldOp.set("visit_date", "2026-12-03", "u1"),
                   FieldOp.set("visit_time", "14:00", "u1")])
    result = ledger.revise([FieldOp.set("visit_date", "2026-12-04", "u2"),
                            FieldOp.set("visit_time", "10:00", "u2")])
    assert result.outcome is UpdateOutcome.ACCEPTED
    assert result.changed == ("visit_date", "visit_time")
    assert ledger.revision == 1


def test_negation_withdraws_and_clear_removes():
    ledger = Ledger()
    ledger.set("visit_date", "2026-12-01", "u1")
    ledger.mark_unresolved("visit_date", "u2")
    record = ledger.current.get("visit_date")
    assert record.status is FieldStatus.UNRESOLVED and record.value is None
    assert record.version == 2
    ledger.clear("visit_date", "u3")
    assert ledger.current.get("visit_date").status is FieldStatus.CLEARED
    assert ledger.current.version("visit_date") == 3


def test_revise_rejects_malformed_operations():
    ledger = Ledger()
    with pytest.raises(InvalidInput):
        ledger.revise([])
    with pytest.raises(InvalidInput):
        ledger.set("", "x", "u1")
    with pytest.raises(InvalidInput):
        ledger.set("visit_date", "", "u1")
    assert ledger.revision == -1


def test_changes_after_final_conflict():
    ledger = Ledger()
    ledger.update(0, {"visit_date": "2026-12-01"}, final=True)
    assert ledger.set("visit_date", "2026-12-02", "u2") == "conflict"


def test_correction_to_an_unread_field_leaves_the_dependent_current():
    ledger = Ledger()
    ledger.revise([FieldOp.set("opened", "no", "u1"), FieldOp.set("visit_date", "x", "u1")])
    gate = AdmissionGate(ledger)
    query = Stamp.of(ledger.current, ["opened"])
    ledger.set("visit_date", "y", "u2")
    assert gate.admit(query) is Disposition.CURRENT
    ledger.set("opened", "yes", "u3")
    assert gate.admit(query) is Disposition.STALE


def test_result_for_another_scope_is_out_of_scope():
    ledger = Ledger()
    ledger.set("opened", "no", "u1")
    stamp = Stamp.of(ledger.current, ["opened"], scope="token-a")
    gate = AdmissionGate(ledger)
    assert gate.admit(stamp, scope="token-a") is Disposition.CURRENT
    assert gate.admit(stamp, scope="token-b") is Disposition.OUT_OF_SCOPE


def test_shadow_gate_records_without_suppressing():
    ledger = Ledger()
    ledger.set("opened", "no", "u1")
    seen = []
    gate = AdmissionGate(ledger, GateMode.SHADOW, on_decision=lambda s, d: seen.append(d))
    stamp = Stamp.of(ledger.current, ["opened"])
    ledger.set("opened", "yes", "u2")
    assert gate.admit(stamp) is Disposition.CURRENT
    assert [r.disposition for r in gate.shadow_log] == [Disposition.STALE]
    assert seen == [Disposition.STALE]


def test_dependency_map_invalidates_exactly_the_readers():
    query = Dependent(DependentKind.RETRIEVAL_QUERY, "r1")
    action = Dependent(DependentKind.ACTION, "a1")
    language = Dependent(DependentKind.OUTPUT_LANGUAGE, "lang")
    response = Dependent(DependentKind.RESPONSE, "g3")
    deps = (DependencyMap()
            .with_dependent(query, {"procedure", "configuration", "language"})
            .with_dependent(action, {"visit_date", "visit_window", "asset"})
            .with_dependent(language, {"language"})
            .with_dependent(response, {"visit_date"}))
    assert deps.invalidated_by({"visit_date"}) == {action, response}
    assert deps.preserved_by({"visit_date"}) == {query, language}
    assert deps.invalidated_by({"language"}) == {query, language}
    assert deps.invalidated_by({"site_note"}) == frozenset()
    assert deps.without(action).invalidated_by({"asset"}) == frozenset()
    assert deps.of_kind(DependentKind.ACTION) == (action,)


def test_trace_hashes_private_values_unless_debug():
    trace = Trace()
    event = trace.emit("field_accepted", question="q", revision=1, generation=0,
                       fields=["visit_date"], value=trace.private("2026-12-03"))
    assert event.to_dict()["value"] == redact("2026-12-03")
    assert event.to_dict()["fields"] == ["visit_date"]
    assert Trace(debug=True).private("2026-12-03") == "2026-12-03"


def test_trace_listeners_see_every_event_in_order():
    trace = Trace(clock=lambda: 1.5)
    seen = []
    trace.listeners.append(lambda e: seen.append(e.name))
    trace.emit("user_turn_final", question="q", revision=0, generation=1)
    trace.emit("field_accepted", question="q", revision=1, generation=1)
    assert seen == ["user_turn_final", "field_accepted"]
    assert trace.events[0].t == 1.5


def test_agent_faults_exist_only_in_test_runs(monkeypatch):
    assert agent_faults(["gate_off"]) == AgentFaults(gate_off=True)
    with pytest.raises(InvalidInput, match="unknown"):
        agent_faults(["gate_of"])
    monkeypatch.delenv("AMEND_ALLOW_AGENT_FAULTS")
    with pytest.raises(InvalidInput, match="only in test runs"):
        agent_faults(["gate_off"])
    assert agent_faults([]) == AgentFaults()


def test_uncertain_values_of_a_new_field_are_kept_as_unresolved_candidates():
    ledger = Ledger()
    result = ledger.mark_unresolved("units", "utterance:u1", candidates=("15", "50"),
                                    confidence=0.4)
    assert result.outcome is UpdateOutcome.ACCEPTED
    record = ledger.current.get("units")
    assert (record.value, record.status, record.candidates) == (
        None, FieldStatus.UNRESOLVED, ("15", "50"))
    assert ledger.clear("never_set", "utterance:u2").outcome is UpdateOutcome.DUPLICATE


def test_a_new_field_left_to_ask_is_a_change_and_a_second_time_is_not():
    # "You've got the wrong address": the site the booking would default to is disowned, so
    # the agent must ask for it though the caller never gave one
    ledger = Ledger()
    assert ledger.mark_unresolved("site", "utterance:u1").outcome is UpdateOutcome.ACCEPTED
    record = ledger.current.get("site")
    assert (record.value, record.status, record.version) == (None, FieldStatus.UNRESOLVED, 1)
    assert ledger.mark_unresolved("site", "utterance:u2").outcome is UpdateOutcome.DUPLICATE
