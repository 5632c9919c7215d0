"""Resolution beyond the seed: chains, roles, tenants, editions, instants, statuses, sections,
and the operator tools (explain, validate) over the same data."""

from __future__ import annotations

from datetime import datetime

import pytest
from backend_support import (  # noqa: F401 (fixtures: backend, db_target, registry_from)
    backend_param,
    db_target_fixture,
    pg_shared_fixture,
    places_fixture,
    registry_from_fixture,
)
from registry_support import seed_query, write

from agent.core.clock import FixedClock
from agent.core.ports import RegistryOutcome, ResolutionQuery
from registry.demo import load_demo
from registry.errors import BadQuery
from registry.explain import Verdict, explain
from registry.findings import validate

R = RegistryOutcome


def entry(valid="[0, null]", configs="[C2]", regions="[EU]", procedure="seal-torque"):
    return (f"{{procedure: {procedure}, configurations: {configs}, regions: {regions}, "
            f"valid: {valid}}}")


def revision(rid, *entries, kind="manual", status="approved", tenant="*", roles=None,
             supersedes=(), equivalent_to=None, language="en", family="pump-seal"):
    lines = [f"  - id: {rid}", f"    family: {family}", f"    kind: {kind}",
             f"    language: {language}", f"    status: {status}", f"    tenant: \"{tenant}\"",
             "    applies:"] + [f"      - {e}" for e in entries]
    if roles:
        lines.append(f"    roles: [{', '.join(roles)}]")
    if supersedes:
        lines.append("    supersedes:")
        lines += [f"      - {{revision: {target}, procedure: {proc}, decision: AD-{i}}}"
                  for i, (target, proc) in enumerate(supersedes)]
    if equivalent_to:
        lines.append(f"    equivalent_to: {equivalent_to}")
    lines.append(f"    text: \"content of {rid}\"")
    return "\n".join(lines) + "\n"


def build(registry_from, tmp_path, *revisions, time="ticks", **kwargs):
    text = f"registry: t\ntime: {time}\nrevisions:\n" + "".join(revisions)
    return registry_from(write(tmp_path, "r.yaml", text), **kwargs)


def test_transitive_chain_picks_the_newest_authority(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry()),
                revision("B", entry(), supersedes=[("A", "seal-torque")]),
                revision("D", entry(), supersedes=[("B", "seal-torque")]))
    assert reg.resolve(seed_query(at="3")).revision == "D"


def test_chain_through_a_revision_that_is_not_a_candidate_still_decides(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry()),
                revision("X", entry("[0, 1]"), supersedes=[("A", "seal-torque")]),
                revision("D", entry(), supersedes=[("X", "seal-torque")]))
    assert reg.resolve(seed_query(at="5")).revision == "D"  # X expired at 1, still an edge


def test_supersession_for_another_procedure_does_not_decide_this_one(tmp_path, registry_from):
    both = [entry(), entry(procedure="impeller")]
    reg = build(registry_from, tmp_path, revision("A", *both),
                revision("B", *both, supersedes=[("A", "impeller")]))
    assert reg.resolve(seed_query(at="5")).outcome is R.UNRESOLVED_AUTHORITY
    assert reg.resolve(seed_query(at="5", procedure="impeller")).revision == "B"


def test_one_applies_entry_must_cover_configuration_and_region_together(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry(configs="[C2]", regions="[US]"),
                                   entry(configs="[C3]", regions="[EU]")))
    assert reg.resolve(seed_query(at="5")).outcome is R.NOT_APPLICABLE
    assert reg.resolve(seed_query(at="5", region="US")).revision == "A"


def test_explicit_wildcard_scope_covers_every_configuration(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("P", entry(configs='["*"]'), kind="policy"))
    assert reg.resolve(seed_query(at="5", configuration="C9")).revision == "P"
    assert reg.resolve(seed_query(at="5", region="US")).outcome is R.NOT_APPLICABLE


def test_role_restricted_winner_serves_its_role_and_no_one_else(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry()),
                revision("B", entry(), roles=["supervisor"], supersedes=[("A", "seal-torque")]))
    assert reg.resolve(seed_query(at="5", roles=("supervisor",))).revision == "B"
    refused = reg.resolve(seed_query(at="5", roles=("technician",)))
    assert refused.outcome is R.UNAVAILABLE and refused.revision is None
    rows = {r.revision: r for r in explain(reg, seed_query(at="5")).rows}
    assert rows["B"].verdict is Verdict.WINNER and "no fallback" in rows["B"].reason


def test_tenant_scoped_revision_is_never_a_candidate_for_another_tenant(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("public", entry()),
                revision("globex-only", entry(), tenant="globex",
                         supersedes=[("public", "seal-torque")]))
    assert reg.resolve(seed_query(at="5", tenant="globex")).revision == "globex-only"
    assert reg.resolve(seed_query(at="5", tenant="acme")).revision == "public"
    lone = build(registry_from, tmp_path, revision("initech-only", entry(), tenant="initech"))
    assert lone.resolve(seed_query(at="5")).outcome is R.NOT_APPLICABLE


def test_translation_of_a_superseded_revision_never_stands_in_for_the_winner(registry_from):
    reg = registry_from("registry.yaml")
    assert reg.resolve(seed_query(at="6", language="de")).outcome is R.NO_EQUIVALENT_EDITION
    assert reg.resolve(seed_query(at="4", language="de")).edition == "manual-A-de"


def test_translation_alone_is_never_an_authority(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry("[0, 5]")),
                revision("A-de", entry(), kind="translation", language="de",
                         equivalent_to="A"))
    assert reg.resolve(seed_query(at="7", language="de")).outcome is R.NOT_APPLICABLE


@pytest.mark.parametrize("status", ["draft", "withdrawn"])
def test_draft_or_withdrawn_revision_never_wins(tmp_path, status, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry()),
                revision("B", entry(), status=status, supersedes=[("A", "seal-torque")]))
    # B is no candidate, and only a candidate removes another: A still answers
    assert reg.resolve(seed_query(at="5")).revision == "A"
    alone = build(registry_from, tmp_path, revision("B", entry(), status=status))
    assert alone.resolve(seed_query(at="5")).outcome is R.NOT_APPLICABLE


INSTANT_ENTRY = entry('["2026-12-01T00:00:00+01:00", "2027-01-01T00:00:00+01:00"]')


@pytest.mark.parametrize("at,outcome", [
    ("2026-11-30T23:00:00Z", R.RESOLVED),  # the start, written in UTC
    ("2026-11-30T18:00:00-05:00", R.RESOLVED),  # the start, written in New York time
    ("2026-11-30T23:59:59+01:00", R.NOT_APPLICABLE),  # an hour before the start
    ("2026-12-31T22:59:59.999999Z", R.RESOLVED),  # the last microsecond
    ("2026-12-31T23:00:00Z", R.NOT_APPLICABLE),  # the end is exclusive
    ("2027-01-01T09:00:00+10:00", R.NOT_APPLICABLE),  # the same end, written in Sydney
    ("2026-12-31T23:30:00+01:00", R.RESOLVED),  # still 2026 in Berlin
])
def test_instants_at_interval_boundaries_compare_as_instants(tmp_path, at, outcome, registry_from):
    reg = build(registry_from, tmp_path, revision("A", INSTANT_ENTRY), time="instants")
    assert reg.resolve(seed_query(at=at)).outcome is outcome


def test_current_mode_captures_the_injected_clock_once(tmp_path, registry_from):
    clock = FixedClock(datetime.fromisoformat("2026-12-01T09:00:00+01:00"))
    reg = build(registry_from, tmp_path, revision("A", INSTANT_ENTRY), time="instants", clock=clock)
    current = reg.resolve(seed_query(mode="current"))
    assert current.revision == "A" and current.label == "current"
    assert current.token.instant == "2026-12-01T09:00:00+01:00"
    late = reg.resolve(seed_query(mode="current", at="2027-01-02T00:00:00Z"))
    assert late.outcome is R.NOT_APPLICABLE


@pytest.mark.parametrize("query,fragment", [
    (dict(at="2026-12-01"), "integer tick"),
    (dict(at="6", known_at=9), "no such registry snapshot"),
    (dict(at="6", mode="someday"), "use 'current' or 'historical'"),
])
def test_malformed_query_values_are_errors_not_outcomes(query, fragment, registry_from):
    with pytest.raises(BadQuery, match=fragment):
        registry_from("registry.yaml").resolve(seed_query(**query))


def test_bare_date_query_in_an_instants_registry_is_refused(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", INSTANT_ENTRY), time="instants")
    with pytest.raises(BadQuery, match="bare date"):
        reg.resolve(seed_query(at="2026-12-01"))


def test_missing_scope_lists_every_missing_input_and_queries_nothing(registry_from):
    reg = registry_from("registry.yaml")
    answer = reg.resolve(ResolutionQuery(None, (), "pump-seal", None, None, "EU",
                                         mode="historical"))
    assert answer.outcome is R.MISSING_SCOPE
    assert answer.missing == ("tenant", "procedure", "configuration", "at")


def test_explain_accounts_for_every_revision_of_the_family(registry_from):
    reg = registry_from("registry.yaml", "competing.yaml")
    result = explain(reg, seed_query(at="6"))
    verdicts = {r.revision: (r.verdict, r.step) for r in result.rows}
    assert verdicts == {"bulletin-B": (Verdict.WINNER, "3 authority"),
                        "manual-A": (Verdict.DROPPED, "3 authority"),
                        "manual-A-de": (Verdict.DROPPED, "2 candidates"),
                        "manual-C": (Verdict.DROPPED, "2 candidates"),
                        "manual-D": (Verdict.DROPPED, "2 candidates")}


def test_validate_lists_unresolved_overlap_and_gap_as_findings_not_errors(tmp_path, registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry("[0, 10]")),
                revision("C", entry("[12, null]")), revision("D", entry("[15, null]")))
    findings = validate(reg)
    assert {f.severity for f in findings} == {"finding"}
    assert sorted(f.kind for f in findings) == ["gap", "overlap"]
    gap = next(f for f in findings if f.kind == "gap")
    assert "[10, 12)" in gap.message
    overlap = next(f for f in findings if f.kind == "overlap")
    assert overlap.revisions == ("C", "D") and "[15, ∞)" in overlap.message


def test_validate_reports_entries_that_start_together_one_of_them_open_ended(tmp_path,
                                                                             registry_from):
    reg = build(registry_from, tmp_path, revision("A", entry("[5, null]")),
                revision("B", entry("[5, 9]")), revision("C", entry("[0, 5]")))
    (overlap,) = validate(reg)
    assert overlap.kind == "overlap" and overlap.revisions == ("A", "B")


def test_seed_fixture_validates_clean_and_competing_edition_is_a_finding(registry_from):
    assert validate(registry_from("registry.yaml")) == []
    (finding,) = validate(registry_from("registry.yaml", "competing.yaml"))
    assert finding.kind == "overlap" and set(finding.revisions) == {"manual-C", "manual-D"}


def test_revision_texts_are_plain_data_for_retrieval(registry_from):
    texts = {t.id: t for t in registry_from("registry.yaml").revision_texts()}
    a = texts["manual-A"]
    assert a.sections == (("text", (), "Pump seal, configuration C2: tighten the seal bolts "
                                        "to 40 Nm."),)
    assert (a.valid, a.language, a.roles, a.procedures) == (((0, 10),), "en", (), ("seal-torque",))
    assert texts["manual-A-de"].equivalent_to == "manual-A" and len(a.digest) == 64


DEMO_NOW = FixedClock(datetime.fromisoformat("2026-12-01T09:00:00+01:00"))


def _demo_query(**overrides):
    base = dict(tenant="acme", roles=("technician",), family="pump-seal",
                procedure="seal-torque", configuration="C2", region="EU", mode="current")
    return ResolutionQuery(**{**base, **overrides})


def test_demo_registry_answers_the_december_2026_questions(db_target):
    reg = load_demo(db_target, clock=DEMO_NOW)
    assert validate(reg) == []
    assert reg.resolve(_demo_query()).revision == "nw-bulletin-b"
    assert reg.resolve(_demo_query(configuration="C3")).outcome is R.UNAVAILABLE
    assert reg.resolve(_demo_query(language="de")).outcome is R.NO_EQUIVALENT_EDITION
    policy = reg.resolve(_demo_query(family="returns", procedure="filter-kit", language="de"))
    assert (policy.revision, policy.edition) == ("returns-eu-2026", "returns-eu-2026-de")
    globex = reg.resolve(_demo_query(family="returns", procedure="filter-kit", tenant="globex"))
    assert globex.revision == "returns-globex-contract"
    assert load_demo(db_target).snapshot == reg.snapshot  # reload is a no-op


def test_demo_return_policy_sections_filter_on_the_opened_field(db_target):
    reg = load_demo(db_target, clock=DEMO_NOW)
    policy = reg.resolve(_demo_query(family="returns", procedure="filter-kit", region="US"))
    opened = reg.sections_for(policy.edition, {"opened": "yes"})
    assert [s[0] for s in opened.sections] == ["opened"] and opened.needs == ()
    unknown = reg.sections_for(policy.edition, {})
    assert unknown.sections == () and unknown.needs == ("opened",)
    titles = {p.procedure: p for p in reg.procedures()}
    assert "how tight" in titles["seal-torque"].aliases
    assert "filter kit" in titles["filter-kit"].aliases
    families = {f.family: f for f in reg.families()}
    assert "send back" in families["returns"].aliases and families["pump-seal"].title == "pump seal"
