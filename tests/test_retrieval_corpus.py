"""Corpus: scope before ranking, eligible-set BM25, when filters, tenants, sync."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.core.errors import InvalidInput
from retrieval.corpus import Corpus, SyncOutcome
from retrieval.passages import chunk, source_of
from retrieval.samples import (
    OPENED_TEXT,
    SEAL,
    UNOPENED_TEXT,
    returns_policy,
    revision,
    seal_registry,
    token,
)
from retrieval.terms import terms

QUESTION = terms("what torque for the pump seal bolts?")


def corpus_with(*revisions, snapshot: int = 1) -> Corpus:
    corpus = Corpus()
    corpus.sync(revisions, snapshot)
    return corpus


def ranked(result) -> list[tuple[str, float]]:
    return [(h.chunk, h.score) for h in result.hits]


def test_empty_allowed_set_returns_nothing_never_everything():
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token(), QUESTION)
    assert result.hits == () and result.eligible == 0


def test_only_allowed_revisions_are_candidates():
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token("bulletin-B"), QUESTION)
    assert [h.revision for h in result.hits] == ["bulletin-B"]
    assert "45 Nm" in result.hits[0].text


def test_superseded_near_identical_revisions_move_neither_membership_nor_order():
    current = revision("manual-C", sections=tuple((f"s{i}", (), text) for i, text in enumerate([
        SEAL.format(nm=50), "Replace the seal gasket when the pump housing is opened.",
        "Check the pump seal again after one hour of running.",
        "Record the seal torque in the service log."])), valid=((10, None),))
    corpus = corpus_with(current)
    before = corpus.search(token("manual-C"), QUESTION, limit=5)
    assert len(before.hits) == 4
    # Dozens of obsolete editions that repeat the query words: whole-table statistics would
    # shift every idf; eligible-set statistics cannot see them.
    obsolete = [revision(f"old-{i}", " ".join([SEAL.format(nm=30 + i)] * 3 + [
        "pump seal torque bolts seal seal"]), valid=((0, 10),)) for i in range(40)]
    corpus.sync([current, *obsolete], 2)
    after = corpus.search(token("manual-C"), QUESTION, limit=5)
    assert ranked(after) == ranked(before)
    assert len(corpus) == 40 + 4  # the obsolete passages are indexed, just never eligible


def test_obsolete_passage_ranking_first_never_reaches_current_use():
    corpus = corpus_with(*seal_registry(), revision(
        "manual-A2", "Pump seal bolts: torque seal bolts 40 Nm. Seal bolts torque.",
        valid=((0, 10),)))
    forced = corpus.search(token("manual-A2", "manual-C"), QUESTION)
    assert forced.hits[0].revision == "manual-A2"  # it would win on similarity
    current = corpus.search(token("manual-C", instant="12"), QUESTION, limit=10)
    assert {h.revision for h in current.hits} == {"manual-C"}


def test_callers_phrasing_finds_the_passage_because_terms_are_or_combined():
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token("manual-C"), terms("how tight should the seal bolts be"))
    assert [h.revision for h in result.hits] == ["manual-C"]


@pytest.mark.parametrize("question", [
    'seal" OR "*', "NOT seal", "seal NEAR(bolts)", "text: seal", "seal AND", "(", '"',
])
def test_fts_syntax_in_caller_words_is_plain_text(question):
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token("manual-C"), terms(question))
    assert {h.revision for h in result.hits} <= {"manual-C"}


def test_opened_yes_never_returns_the_unopened_section_however_similar():
    corpus = corpus_with(returns_policy())
    tok = token("returns-2026", family="returns", procedure="filter-kit")
    result = corpus.search(tok, terms(UNOPENED_TEXT), {"opened": "yes"}, limit=5)
    assert [h.text for h in result.hits] == [OPENED_TEXT]
    result = corpus.search(tok, terms(OPENED_TEXT), {"opened": "no"}, limit=5)
    assert [h.text for h in result.hits] == [UNOPENED_TEXT]


def test_unknown_when_field_fails_closed():
    corpus = corpus_with(returns_policy())
    tok = token("returns-2026", family="returns", procedure="filter-kit")
    assert corpus.search(tok, terms("return filter kit"), {}).hits == ()


TENANTS = ("t1", "t2", "t3")


@pytest.mark.parametrize("tenant", TENANTS)
def test_tenant_isolation_matrix_never_returns_another_tenants_passage(tenant):
    revisions = [revision(f"{t}-{n}", SEAL.format(nm=40 + n), tenant=t)
                 for t in TENANTS for n in range(3)]
    revisions.append(revision("shared", SEAL.format(nm=99), tenant="*"))
    corpus = corpus_with(*revisions)
    every = tuple(r.id for r in revisions)  # even a token naming every revision
    result = corpus.search(token(*every, tenant=tenant), QUESTION, limit=20)
    owners = {h.revision.split("-")[0] if h.revision != "shared" else "*" for h in result.hits}
    assert owners == {tenant, "*"}
    for other in set(TENANTS) - {tenant}:
        own = tuple(r.id for r in revisions if r.tenant == other)
        assert corpus.search(token(*own, tenant=tenant), QUESTION).hits == ()


def test_roles_restrict_visibility_of_a_revision():
    corpus = corpus_with(revision("bulletin-B", SEAL.format(nm=45), roles=("supervisor",)))
    assert corpus.search(token("bulletin-B"), QUESTION, roles=("technician",)).hits == ()
    assert corpus.search(token("bulletin-B"), QUESTION, roles=("supervisor",)).hits


def test_sync_with_the_same_snapshot_reads_and_writes_nothing():
    corpus = corpus_with(*seal_registry(), snapshot=3)

    def explode():
        raise AssertionError("the revision texts were read although nothing changed")
        yield

    assert corpus.sync(explode(), 3).outcome is SyncOutcome.UNCHANGED
    assert corpus.snapshot == 3


def test_sync_from_a_registry_reads_no_texts_when_its_snapshot_is_unchanged():
    class Registry:
        snapshot = 4
        reads = 0

        def revision_texts(self):
            self.reads += 1
            return seal_registry()

    registry, corpus = Registry(), Corpus()
    assert corpus.sync_from(registry).outcome is SyncOutcome.UPDATED
    assert corpus.sync_from(registry).outcome is SyncOutcome.UNCHANGED
    assert registry.reads == 1


def test_sync_adds_removes_and_applies_metadata_corrections():
    registry = list(seal_registry())
    corpus = corpus_with(*registry)
    size = len(corpus)
    corrected = revision("bulletin-B", SEAL.format(nm=45), kind="bulletin", valid=((5, 12),),
                         roles=("supervisor",))
    report = corpus.sync([r for r in registry if r.id not in ("bulletin-B", "manual-C")]
                         + [corrected], 2)
    assert (report.added, report.removed, report.corrected) == ((), ("manual-C",),
                                                                ("bulletin-B",))
    assert len(corpus) < size
    assert corpus.search(token("bulletin-B"), QUESTION, roles=("technician",)).hits == ()
    assert corpus.search(token("bulletin-B"), QUESTION, roles=("supervisor",)).hits[0].valid \
        == ((5, 12),)
    assert corpus.search(token("manual-C"), QUESTION).hits == ()


def test_passage_ids_are_stable_revision_index_and_digest():
    first = chunk(source_of(seal_registry()[1]))
    again = chunk(source_of(seal_registry()[1]))
    assert [p.chunk for p in first] == [p.chunk for p in again]
    assert first[0].chunk.startswith("bulletin-B#0-") and len(first[0].chunk) == len(
        "bulletin-B#0-") + 10


def test_a_revision_without_text_is_rejected_and_the_corpus_is_unchanged():
    corpus = corpus_with(*seal_registry())
    with pytest.raises(InvalidInput, match="broken"):
        corpus.sync([*seal_registry(), revision("broken", sections=(("s", (), "  "),))], 2)
    assert corpus.snapshot == 1
    assert corpus.search(token("manual-C"), QUESTION).hits


WORDS = ("pump", "seal", "torque", "bolts", "gasket", "housing", "check", "leaks", "cross",
         "pattern", "tighten", "replace", "nm", "40", "45", "50")
sentences = st.lists(st.sampled_from(WORDS), min_size=3, max_size=14).map(" ".join)


@settings(max_examples=30, deadline=None)
@given(current=st.lists(sentences, min_size=1, max_size=5),
       obsolete=st.lists(sentences, min_size=1, max_size=8),
       question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join))
def test_property_obsolete_text_never_changes_current_results(current, obsolete, question):
    sections = tuple((f"s{i}", (), text + ".") for i, text in enumerate(current))
    base = revision("current", sections=sections)
    corpus = corpus_with(base)
    before = corpus.search(token("current"), terms(question), limit=10)
    old = [revision(f"old-{i}", text + ". " + question) for i, text in enumerate(obsolete)]
    corpus.sync([*old, base], 2)
    after = corpus.search(token("current"), terms(question), limit=10)
    assert ranked(after) == ranked(before)
