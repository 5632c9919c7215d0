"""Seed 003's integration test against the real registry and index.

Obsolete and current passages with near-identical wording; the obsolete one is forced to rank
highly. For current use it never reaches the answer context: with lexical search, with query
expansion and through the cache. Then the CLI prints exactly that.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from backend_support import (  # noqa: F401 (fixtures: backend, corpus_at, db_target, places)
    backend_param,
    corpus_at_fixture,
    db_target_fixture,
    pg_shared_fixture,
    places_fixture,
)
from click.testing import CliRunner

from agent.core.gate import AdmissionGate, Stamp
from agent.core.ledger import Ledger
from agent.core.ports import ResolutionQuery, RetrievalOutcome
from agent.core.trace import Trace
from registry import store
from registry.parse import parse_file
from retrieval.cache import EvidenceCache
from retrieval.query import build_query
from retrieval.retriever import ScopedRetriever
from retrieval.terms import terms
from ui.retrieve_cli import retrieve

REGISTRY = """
registry: seed-003
time: ticks
revisions:
  - {id: manual-A, family: pump-seal, kind: manual, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [0, 10]}],
     text: "Pump seal torque: torque the pump seal bolts to 40 Nm. Seal bolts torque pump seal
            torque bolts, pump seal bolts torque."}
  - {id: bulletin-B, family: pump-seal, kind: bulletin, language: en, status: approved,
     tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [5, 10]}],
     supersedes: [{revision: manual-A, procedure: seal-torque, decision: AD-17}],
     text: "Torque the pump seal bolts to 45 Nm in a cross pattern."}
  - {id: manual-C, family: pump-seal, kind: manual, language: en, status: approved, tenant: "*",
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [10, null]}],
     sections: [{id: torque, text: "Torque the pump seal bolts to 50 Nm in a cross pattern."},
                {id: check, text: "Check the housing for leaks after a test run."}]}
  - {id: manual-A-de, family: pump-seal, kind: translation, language: de, status: approved,
     tenant: "*", equivalent_to: manual-A,
     applies: [{procedure: seal-torque, configurations: [C2], regions: [EU], valid: [0, 10]}],
     text: "Dichtungsschrauben der Pumpe mit 40 Nm anziehen."}
"""
QUESTION = "what torque for the pump seal bolts?"
OBSOLETE_WORDING = "pump seal torque bolts seal bolts torque 40 Nm"


@pytest.fixture
def registry(tmp_path, places):
    path = tmp_path / "seed003.yaml"
    path.write_text(REGISTRY)
    return places.registry(path, now_tick=12)


def resolve(registry, *, at=None):
    query = ResolutionQuery(tenant="northwind", roles=("technician",), family="pump-seal",
                            procedure="seal-torque", configuration="C2", region="EU",
                            mode="historical" if at is not None else "current",
                            at=None if at is None else str(at))
    return registry.resolve(query)


def wire(registry, corpus, cache=None):
    corpus.sync(registry.revision_texts(), registry.snapshot)
    ledger = Ledger("q-seal")
    ledger.update(0, {"family": "pump-seal", "procedure": "seal-torque"})
    trace = Trace()
    return ledger, ScopedRetriever(corpus, AdmissionGate(ledger), trace, roles=("technician",),
                                   cache=cache)


def request_for(ledger, resolution, request, query=None):
    snapshot = ledger.issue()
    query = query or build_query(snapshot, QUESTION)
    stamp = Stamp.of(snapshot, ("family", "procedure"), scope=resolution.token.cache_key,
                     request=request)
    return query.request(stamp, resolution.token, limit=10)


def revisions_of(result) -> set[str]:
    return {p.revision for p in result.bundle.passages}


def test_obsolete_passage_would_rank_first_if_it_were_eligible(registry, corpus_at):
    corpus = corpus_at()
    corpus.sync(registry.revision_texts(), registry.snapshot)
    both = dataclasses.replace(resolve(registry).token,
                               allowed_revisions=("manual-A", "manual-C"))
    assert corpus.search(both, terms(QUESTION)).hits[0].revision == "manual-A"


@pytest.mark.anyio
async def test_lexical_search_for_current_use_never_returns_the_obsolete_passage(registry,
                                                                                 corpus_at):
    current = resolve(registry)
    assert current.revision == "manual-C"
    ledger, retriever = wire(registry, corpus_at())
    result = await retriever.retrieve(request_for(ledger, current, "r1"))
    assert result.outcome is RetrievalOutcome.EVIDENCE
    assert revisions_of(result) == {"manual-C"}
    assert "50 Nm" in result.bundle.passages[0].text


@pytest.mark.anyio
async def test_query_expansion_with_the_obsolete_wording_still_stays_in_scope(registry, corpus_at):
    current = resolve(registry)
    ledger, retriever = wire(registry, corpus_at())
    expanded = build_query(ledger.issue(), QUESTION).expanded(OBSOLETE_WORDING.split())
    result = await retriever.retrieve(request_for(ledger, current, "r1", expanded))
    assert revisions_of(result) == {"manual-C"}


@pytest.mark.anyio
async def test_cache_filled_by_a_historical_answer_never_serves_current_use(registry, corpus_at):
    cache = EvidenceCache()
    ledger, retriever = wire(registry, corpus_at(), cache)
    historical = resolve(registry, at=4)
    assert historical.revision == "manual-A"
    old = await retriever.retrieve(request_for(ledger, historical, "r-old"))
    assert revisions_of(old) == {"manual-A"}
    current = resolve(registry)
    first = await retriever.retrieve(request_for(ledger, current, "r1"))
    again = await retriever.retrieve(request_for(ledger, current, "r2"))
    assert revisions_of(first) == revisions_of(again) == {"manual-C"}
    assert (cache.hits, cache.misses) == (1, 2)


@pytest.mark.anyio
async def test_registry_correction_resyncs_the_corpus_and_drops_the_cache(registry, tmp_path,
                                                                          corpus_at):
    cache = EvidenceCache()
    corpus = corpus_at()
    ledger, retriever = wire(registry, corpus, cache)
    await retriever.retrieve(request_for(ledger, resolve(registry), "r1"))
    corrected = tmp_path / "correction.yaml"
    corrected.write_text(REGISTRY.replace("valid: [10, null]", "valid: [9, null]"))
    store.apply_file(registry.db, parse_file(corrected))
    report = corpus.sync(registry.revision_texts(), registry.snapshot)
    assert report.corrected == ("manual-C",) and report.added == ()
    result = await retriever.retrieve(request_for(ledger, resolve(registry), "r2"))
    assert revisions_of(result) == {"manual-C"} and cache.hits == 0
    assert result.bundle.citations[0].valid == (9, None)


def cli(db_path, *args):
    return CliRunner().invoke(retrieve, [QUESTION, "--family", "pump-seal", "--procedure",
                                         "seal-torque", "--region", "EU", "--db",
                                         str(db_path), *args])


@pytest.fixture
def db_file(tmp_path, db_target):
    path = tmp_path / "seed003.yaml"
    path.write_text(REGISTRY)
    store.import_path(db_target, path)
    return db_target


def test_cli_json_prints_the_resolved_revision_and_cited_passages(db_file):
    out = cli(db_file, "--configuration", "C2", "--at", "12", "--json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert (report["outcome"], report["revision"], report["edition"]) == (
        "RESOLVED", "manual-C", "manual-C")
    assert {p["revision"] for p in report["passages"]} == {"manual-C"}
    passage = report["passages"][0]
    assert passage["chunk"] == passage["citation"]["chunk"]
    assert passage["citation"]["valid"] == [10, None]


def test_cli_unresolved_outcome_prints_no_passages_and_names_no_revision(db_file):
    out = cli(db_file, "--at", "12", "--json")  # no configuration
    assert out.exit_code == 0
    assert json.loads(out.output) == {"outcome": "MISSING_SCOPE", "passages": []}
    text = cli(db_file, "--configuration", "C2", "--at", "12", "--language", "fr")
    assert text.exit_code == 0 and text.output.startswith("NO_EQUIVALENT_EDITION")
    assert "manual" not in text.output


def test_cli_bad_database_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_text("not a database")
    out = cli(bad, "--configuration", "C2", "--at", "12")
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_cli_unreachable_postgres_url_is_one_line_and_exit_2_without_the_password():
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        url = f"postgresql://amend:s3cret@127.0.0.1:{free.getsockname()[1]}/registry"
    out = cli(url, "--configuration", "C2", "--at", "12")
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert len(out.output.strip().splitlines()) == 1 and "s3cret" not in out.output
    assert out.output.startswith("error: postgresql://amend@127.0.0.1:")


def test_cli_names_the_field_a_conditional_section_needs(db_target):
    from registry.demo import demo_files

    db = db_target
    for path in demo_files():
        store.import_path(db, path)
    base = ["can I return the filter kit?", "--family", "returns", "--procedure", "filter-kit",
            "--configuration", "*", "--region", "EU", "--db", str(db), "--json"]
    unknown = json.loads(CliRunner().invoke(retrieve, base).output)
    assert (unknown["retrieval"], unknown["needs"], unknown["passages"]) == (
        "no_eligible_evidence", ["opened"], [])
    opened = json.loads(CliRunner().invoke(retrieve, [*base, "--field", "opened=yes"]).output)
    assert [p["text"].startswith("Opened") for p in opened["passages"]] == [True]
