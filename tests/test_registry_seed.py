"""Seed 003's fixture, exactly as shared: the 13 resolver cases and the 8 cache-key checks."""

from __future__ import annotations

import dataclasses
import json

import pytest
from backend_support import (  # noqa: F401 (fixtures: backend, registry_from)
    backend_param,
    pg_shared_fixture,
    places_fixture,
    registry_from_fixture,
)
from registry_support import SEED, seed_query

from agent.core.ports import RegistryOutcome
from registry.tokens import POLICY_VERSION

EXPECTED = json.loads((SEED / "expected.json").read_text())


def _run_case(registry_from, case: dict):
    q = case["q"]
    registry = registry_from(*case["db"], now_tick=q.get("now"))
    query = seed_query(configuration=q.get("configuration"), region=q.get("region"),
                       mode="current" if q.get("current") else "historical",
                       at=None if q.get("current") else str(q["at"]),
                       language=q.get("language", "en"))
    return registry.resolve(query)


@pytest.mark.parametrize("case", EXPECTED["cases"], ids=lambda c: f"case{c['n']}")
def test_seed_003_resolver_case(case, registry_from):
    resolution = _run_case(registry_from, case)
    assert resolution.outcome == RegistryOutcome(case["outcome"])
    if case["outcome"] == "RESOLVED":
        assert resolution.revision == case["revision"]
        assert resolution.edition == case.get("edition", case["revision"])
        assert resolution.token is not None
        assert case["revision"] in resolution.token.allowed_revisions
    else:  # no leak: a non-RESOLVED answer names nothing
        assert (resolution.revision, resolution.edition, resolution.token) == (None, None, None)


def test_seed_case_6_is_labelled_current_and_historical_cases_are_labelled_as_of_tick(
        registry_from):
    current = _run_case(registry_from, EXPECTED["cases"][5])
    historical = _run_case(registry_from, EXPECTED["cases"][0])
    assert current.label == "current" and not current.historical
    assert historical.label == "as of tick 4" and historical.historical


def test_seed_case_8_unavailable_never_falls_back_to_manual_a(registry_from):
    resolution = _run_case(registry_from, EXPECTED["cases"][7])
    assert resolution.outcome is RegistryOutcome.UNAVAILABLE
    assert "manual-A" not in repr(resolution) and "bulletin-B" not in repr(resolution)


def test_seed_case_11_missing_configuration_is_reported_by_name(registry_from):
    assert _run_case(registry_from, EXPECTED["cases"][10]).missing == ("configuration",)


# --------------------------------------------------------------------------- cache keys

def _base(registry_from):
    return registry_from("registry.yaml", "competing.yaml"), seed_query(at="6")


def _variant(registry_from, dimension: str):
    """(baseline resolution, resolution differing in ``dimension``), both real answers."""
    registry, query = _base(registry_from)
    base = registry.resolve(query)
    replace = dataclasses.replace
    other = {
        "applicability-policy version": lambda: registry_from(
            "registry.yaml", "competing.yaml", policy_version="applicability/2").resolve(query),
        "resolved revision set": lambda: registry.resolve(replace(query, at="4")),
        "authorisation epoch": lambda: registry.resolve(replace(query, auth_epoch=1)),
        "registry snapshot": lambda: registry.resolve(replace(query, known_at=1)),
        "locale (requested language)": lambda: registry.resolve(
            replace(query, at="4", language="de")),
        "instant": lambda: registry.resolve(replace(query, at="7")),
        "mode (current/historical)": lambda: registry_from(
            "registry.yaml", "competing.yaml", now_tick=6).resolve(
            replace(query, mode="current", at=None)),
        "tenant": lambda: registry.resolve(replace(query, tenant="globex")),
    }[dimension]()
    if dimension == "locale (requested language)":  # compare with the same instant in en
        base = registry.resolve(replace(query, at="4"))
    return base, other


FIELD = {"applicability-policy version": "policy_version",
         "resolved revision set": "allowed_revisions", "authorisation epoch": "auth_epoch",
         "registry snapshot": "known_at", "locale (requested language)": "language",
         "instant": "instant", "mode (current/historical)": "mode", "tenant": "tenant"}


def test_the_fixture_lists_exactly_the_eight_cache_dimensions():
    assert sorted(EXPECTED["cache_key_must_change_with"]) == sorted(FIELD)


@pytest.mark.parametrize("dimension", EXPECTED["cache_key_must_change_with"])
def test_cache_key_changes_with(dimension, registry_from):
    base, other = _variant(registry_from, dimension)
    assert base.outcome is other.outcome is RegistryOutcome.RESOLVED
    name = FIELD[dimension]
    assert getattr(base.token, name) != getattr(other.token, name)
    assert base.token.cache_key != other.token.cache_key
    # and that one member alone is enough to change the key
    alone = dataclasses.replace(base.token, **{name: getattr(other.token, name)})
    assert alone.cache_key != base.token.cache_key


def test_same_question_same_snapshot_gives_the_same_cache_key(registry_from):
    registry, query = _base(registry_from)
    assert registry.resolve(query).token.cache_key == registry.resolve(query).token.cache_key


def test_allowed_set_is_the_winner_plus_its_reviewed_edition(registry_from):
    registry, query = _base(registry_from)
    german = registry.resolve(dataclasses.replace(query, at="4", language="de"))
    assert german.token.allowed_revisions == ("manual-A", "manual-A-de")
    assert registry.resolve(query).token.allowed_revisions == ("bulletin-B",)
    assert POLICY_VERSION == registry.resolve(query).token.policy_version
