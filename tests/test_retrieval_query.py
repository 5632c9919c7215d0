"""Query snapshots: deterministic, immutable, scrubbed; rewrites validated against fields."""

from __future__ import annotations

import dataclasses

import pytest

from agent.core.caller import Asset, CallerProfile
from agent.core.ledger import Ledger
from retrieval.query import (
    RewriteVerdict,
    asserted,
    build_query,
    private_values,
    scrub,
    validate_rewrite,
)

CALLER = CallerProfile(tenant="northwind", subject="sub-dana", roles=("technician",),
                       account="ACME-20391", name="Dana Whitfield",
                       assets=(Asset("pump-7", "C2", "EU", "12 Harbour Road"),))
FIELDS = {"family": "returns", "item_category": "filter-kit", "opened": "yes",
          "site": "12 Harbour Road", "contact": "+44 20 7946 0958", "asset": "pump-7"}


def test_same_accepted_fields_give_the_same_snapshot_and_key():
    one = build_query(dict(FIELDS), "can I return it?")
    two = build_query(dict(reversed(list(FIELDS.items()))), "can I return it?")
    assert one == two and one.key == two.key


def test_snapshot_is_immutable_and_does_not_alias_the_fields() -> None:
    fields = dict(FIELDS)
    query = build_query(fields)
    fields["opened"] = "no"
    assert query.filters == (("opened", "yes"),)
    with pytest.raises(dataclasses.FrozenInstanceError):
        query.text = "anything"  # type: ignore[misc]


def test_human_text_is_separate_from_hard_filters():
    query = build_query(FIELDS)
    assert query.filters == (("opened", "yes"),)
    assert query.text == "returns filter kit opened"


def test_snapshot_built_from_a_ledger_skips_unresolved_fields():
    ledger = Ledger("q-1")
    ledger.update(0, {"family": "returns", "item_category": "filter-kit", "opened": "no"})
    ledger.mark_unresolved("opened", "utterance:2", candidates=("yes", "no"))
    query = build_query(ledger.current)
    assert query.filters == ()  # unknown: the conditional sections fail closed, never widen


def test_identifying_data_never_reaches_query_text():
    question = ("This is Dana Whitfield, account ACME-20391, call me on +44 20 7946 0958 or "
                "dana@example.com; the pump-7 at 12 Harbour Road, can I return the filter kit?")
    query = build_query(FIELDS, question, private=private_values(CALLER))
    for secret in ("Dana", "Whitfield", "20391", "7946", "example.com", "Harbour", "pump-7"):
        assert secret.lower() not in query.search_text.lower()
    assert "return the filter kit" in query.text


def test_scrub_keeps_ordinary_question_words_and_configuration_names():
    assert scrub("what torque for the C2 pump seal at 45 Nm?") == (
        "what torque for the C2 pump seal at 45 Nm?")


@pytest.mark.parametrize(("text", "expected"), [
    ("I did not open it", {"opened": {"no"}}),
    ("I opened it", {"opened": {"yes"}}),
    ("it is still sealed, never used", {"opened": {"no"}}),
    ("return policy for an unopened filter kit", {"opened": {"no"}}),
    ("return policy for a filter kit", {}),
])
def test_negation_is_read_as_the_field_it_asserts(text, expected):
    assert asserted(text) == expected


def test_rewrite_contradicting_an_accepted_field_is_rejected():
    base = build_query(FIELDS)
    check = validate_rewrite(base, "return policy for an unopened filter kit")
    assert check.verdict is RewriteVerdict.CONTRADICTS_FIELD and check.snapshot is None


def test_rewrite_dropping_or_changing_a_trusted_filter_is_rejected():
    base = build_query(FIELDS)
    assert validate_rewrite(base, "filter kit returns", filters=()).verdict is (
        RewriteVerdict.DROPS_FILTER)
    assert validate_rewrite(base, "filter kit returns", filters=[("opened", "no")]).verdict is (
        RewriteVerdict.DROPS_FILTER)
    assert validate_rewrite(base, "filter kit returns", filters=[
        ("opened", "yes"), ("tenant", "*")]).verdict is RewriteVerdict.ADDS_FILTER


def test_rewrite_asserting_a_value_that_was_never_accepted_is_rejected():
    base = build_query({"family": "returns", "item_category": "filter-kit"})
    assert validate_rewrite(base, "opened filter kit return").verdict is (
        RewriteVerdict.UNACCEPTED_VALUE)


def test_rewrite_carrying_identifying_data_is_rejected():
    base = build_query(FIELDS)
    check = validate_rewrite(base, "opened filter kit for Dana Whitfield",
                             private=private_values(CALLER))
    assert check.verdict is RewriteVerdict.IDENTIFYING_DATA


def test_consistent_rewrite_changes_wording_but_keeps_the_trusted_filters():
    base = build_query(FIELDS)
    check = validate_rewrite(base, "how long can an opened filter kit be returned")
    assert check.verdict is RewriteVerdict.ACCEPTED
    assert check.snapshot.filters == base.filters
    assert check.snapshot.text == "how long can an opened filter kit be returned"
