"""Judging one call: expectations, invariants, severity gates, the seven measures, a verdict.

Pure: reads the script and the collected :class:`Evidence`, returns a
:class:`~audio.calls.evidence.CallResult`. The trace says what the agent did; the sandbox's
records are the oracle for what happened. Transcripts are never trusted over records.
"""

from __future__ import annotations

from audio.calls import invariants as inv
from audio.calls.evidence import MEASURES, CallResult, Evidence, Measure, Verdict
from audio.calls.expectations import check_expectations
from audio.calls.script import CallScript

SEVERITY = "SEVERITY"
CORRECTION_FAULTS = ("delay_ms", "drop_response", "hang", "ignore_precondition",
                     "duplicate_delivery", "fail_before_commit")


def judge(script: CallScript, evidence: Evidence, mode: str) -> CallResult:
    account = script.caller.account
    expectations = check_expectations(script, evidence)
    checks = {
        "stale_dispatch": inv.stale_dispatch(evidence),
        "stale_work": inv.stale_work(evidence, evidence.fields),
        "duplicates": inv.duplicates(evidence),
        "false_confirmation": inv.false_confirmations(evidence, account),
        "stale_audio": inv.stale_audio(evidence),
        "stale_evidence": inv.stale_evidence(evidence),
    }
    severity = inv.unauthorized(evidence) + inv.wrong_party(evidence, account)
    severity += [f"{SEVERITY} duplicate irreversible side effect: {v}"
                 for v in checks["duplicates"]]
    severity += [f"{SEVERITY} false confirmation: {v}" for v in checks["false_confirmation"]]
    errors = [f"agent error: {e.get('task')}: {e.get('error')}"
              for e in evidence.named("agent_error")]
    violations = severity + [v for name, vs in checks.items()
                             if name not in ("duplicates", "false_confirmation") for v in vs]
    violations += expectations + errors
    measures = _measures(script, evidence, expectations, checks)
    verdict = Verdict.FAIL if violations else Verdict.PASS
    return CallResult(script.id, str(script.path), mode, verdict, tuple(violations), measures,
                      _counts(evidence, checks), evidence=evidence)


def _measure(applies: bool, ok: bool) -> str:
    if not applies:
        return Measure.NA.value
    return Measure.PASS.value if ok else Measure.FAIL.value


def _measures(script: CallScript, ev: Evidence, expectations: list[str],
              checks: dict[str, list[str]]) -> dict[str, str]:
    """The seven measures of seed 001, each pass, fail or n/a for this call."""
    exp = script.expect
    failed = lambda prefix: any(v.startswith(prefix) for v in expectations)  # noqa: E731
    corrected_fields = [name for name, spec in exp.fields
                        if dict(spec).get("min_version", 0) >= 2]
    corrections = corrected_fields or any(
        e.get("versions") and any(v > 1 for v in dict(e.get("versions")).values())
        for e in ev.named("field_accepted"))
    dispatched = ev.named("action_dispatched")
    became_stale = bool(checks["stale_dispatch"] or checks["stale_work"]) or any(
        e.name in ("action_cancelled", "action_reconciled") for e in ev.events)
    faults = {k for fault in script.faults for k, _ in fault}
    reconciled = any(e.name in ("action_cancel_requested", "action_reconciled")
                     or (e.name == "action_cancelled" and e.get("dispatched"))
                     for e in ev.events)
    committed_at = [i for i, e in enumerate(ev.events) if e.name == "action_committed"]
    corrected_after_commit = bool(committed_at) and any(
        e.name == "field_accepted" and set(e.get("fields") or ()) & set(inv.BOOKING_FIELDS)
        - {"booking_ref"} for e in ev.events[committed_at[0]:])
    in_flight = bool(dispatched) and (bool(faults & set(CORRECTION_FAULTS))
                                      or bool(script.staff_edits) or reconciled
                                      or corrected_after_commit)
    retries = bool(faults & {"drop_response", "hang", "duplicate_delivery"}) or \
        "retry_with_new_key" in script.agent_faults
    spoken = bool(ev.named("confirmation_spoken")) or bool(exp.confirmed)
    # Uncertainty: an ambiguous value (candidates), a withdrawn or rejected value, a boundary
    # the caller may not cross, or a case the agent had to hand to a person.
    uncertain = bool(exp.clarified) or exp.handoff is True or bool(ev.named("handoff")) \
        or bool(ev.named("field_rejected")) or any(
            e.get("candidates") for e in ev.named("clarification_requested"))
    values = {
        "correction_capture": _measure(bool(corrections),
                                       not failed("expect.fields") and not failed(
                                           "expect.clarified")),
        "state_adoption": _measure(bool(exp.fields), not failed("expect.fields")),
        "stale_action_suppression": _measure(
            became_stale or bool(corrections and dispatched),
            not checks["stale_dispatch"] and not checks["stale_work"]
            and not failed("expect.absent_bookings")),
        "external_reconciliation": _measure(
            in_flight, not checks["stale_work"] and not failed("expect.bookings")
            and not failed("expect.notifications")),
        "duplicate_prevention": _measure(retries or reconciled,
                                         not checks["duplicates"]),
        "confirmation_fidelity": _measure(spoken, not checks["false_confirmation"]
                                          and not failed("expect.confirmed")
                                          and not failed("expect.heard")),
        "safe_uncertainty": _measure(uncertain, not failed("expect.clarified")
                                     and not failed("expect.handoff")
                                     and not failed("expect.absent_bookings")),
    }
    return {name: values[name] for name in MEASURES}


def _counts(ev: Evidence, checks: dict[str, list[str]]) -> dict[str, int]:
    """Stale results that were rejected, counted apart from stale work that got through."""
    rejected = len(ev.named("retrieval_rejected")) + len(ev.named("action_cancelled")) + sum(
        1 for e in ev.named("action_reconciled") if e.disposition in ("stale", "rejected_stale"))
    return {
        "stale_rejected": rejected,
        "stale_missed": len(checks["stale_dispatch"]) + len(checks["stale_work"])
        + len(checks["stale_evidence"]) + len(checks["stale_audio"]),
        "generations_invalidated": len(ev.named("generation_invalidated")),
        "ambiguous": len(ev.named("clarification_requested")),
        "backstops": len(ev.named("backstop")),
    }
