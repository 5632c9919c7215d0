"""Corpus: scope before ranking, eligible-set BM25, when filters, tenants, sync; on SQLite + FTS5
and on PostgreSQL, which must give the same hits in the same order with the same scores."""

from __future__ import annotations

import random

import pytest
from backend_support import (  # noqa: F401 (fixtures: backend, corpus_at, places)
    backend_param,
    connect,
    corpus_at_fixture,
    new_schema,
    pg_shared_fixture,
    places_fixture,
)
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


@pytest.fixture
def corpus_with(corpus_at):
    """``corpus_with(*revisions, snapshot=1)``: a corpus of the test's backend, synced."""
    def build(*revisions, snapshot: int = 1) -> Corpus:
        corpus = corpus_at()
        corpus.sync(revisions, snapshot)
        return corpus

    return build


def ranked(result) -> list[tuple[str, float]]:
    return [(h.chunk, h.score) for h in result.hits]


def test_empty_allowed_set_returns_nothing_never_everything(corpus_with):
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token(), QUESTION)
    assert result.hits == () and result.eligible == 0


def test_only_allowed_revisions_are_candidates(corpus_with):
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token("bulletin-B"), QUESTION)
    assert [h.revision for h in result.hits] == ["bulletin-B"]
    assert "45 Nm" in result.hits[0].text


def test_superseded_near_identical_revisions_move_neither_membership_nor_order(corpus_with):
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


def test_obsolete_passage_ranking_first_never_reaches_current_use(corpus_with):
    corpus = corpus_with(*seal_registry(), revision(
        "manual-A2", "Pump seal bolts: torque seal bolts 40 Nm. Seal bolts torque.",
        valid=((0, 10),)))
    forced = corpus.search(token("manual-A2", "manual-C"), QUESTION)
    assert forced.hits[0].revision == "manual-A2"  # it would win on similarity
    current = corpus.search(token("manual-C", instant="12"), QUESTION, limit=10)
    assert {h.revision for h in current.hits} == {"manual-C"}


def test_callers_phrasing_finds_the_passage_because_terms_are_or_combined(corpus_with):
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token("manual-C"), terms("how tight should the seal bolts be"))
    assert [h.revision for h in result.hits] == ["manual-C"]


@pytest.mark.parametrize("question", [
    'seal" OR "*', "NOT seal", "seal NEAR(bolts)", "text: seal", "seal AND", "(", '"',
])
def test_fts_syntax_in_caller_words_is_plain_text(question, corpus_with):
    corpus = corpus_with(*seal_registry())
    result = corpus.search(token("manual-C"), terms(question))
    assert {h.revision for h in result.hits} <= {"manual-C"}


def test_opened_yes_never_returns_the_unopened_section_however_similar(corpus_with):
    corpus = corpus_with(returns_policy())
    tok = token("returns-2026", family="returns", procedure="filter-kit")
    result = corpus.search(tok, terms(UNOPENED_TEXT), {"opened": "yes"}, limit=5)
    assert [h.text for h in result.hits] == [OPENED_TEXT]
    result = corpus.search(tok, terms(OPENED_TEXT), {"opened": "no"}, limit=5)
    assert [h.text for h in result.hits] == [UNOPENED_TEXT]


def test_unknown_when_field_fails_closed(corpus_with):
    corpus = corpus_with(returns_policy())
    tok = token("returns-2026", family="returns", procedure="filter-kit")
    assert corpus.search(tok, terms("return filter kit"), {}).hits == ()


TENANTS = ("t1", "t2", "t3")


@pytest.mark.parametrize("tenant", TENANTS)
def test_tenant_isolation_matrix_never_returns_another_tenants_passage(tenant, corpus_with):
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


def test_roles_restrict_visibility_of_a_revision(corpus_with):
    corpus = corpus_with(revision("bulletin-B", SEAL.format(nm=45), roles=("supervisor",)))
    assert corpus.search(token("bulletin-B"), QUESTION, roles=("technician",)).hits == ()
    assert corpus.search(token("bulletin-B"), QUESTION, roles=("supervisor",)).hits


def test_sync_with_the_same_snapshot_reads_and_writes_nothing(corpus_with):
    corpus = corpus_with(*seal_registry(), snapshot=3)

    def explode():
        raise AssertionError("the revision texts were read although nothing changed")
        yield

    assert corpus.sync(explode(), 3).outcome is SyncOutcome.UNCHANGED
    assert corpus.snapshot == 3


def test_sync_from_a_registry_reads_no_texts_when_its_snapshot_is_unchanged(corpus_at):
    class Registry:
        snapshot = 4
        reads = 0

        def revision_texts(self):
            self.reads += 1
            return seal_registry()

    registry, corpus = Registry(), corpus_at()
    assert corpus.sync_from(registry).outcome is SyncOutcome.UPDATED
    assert corpus.sync_from(registry).outcome is SyncOutcome.UNCHANGED
    assert registry.reads == 1


def test_sync_adds_removes_and_applies_metadata_corrections(corpus_with):
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


def test_a_revision_without_text_is_rejected_and_the_corpus_is_unchanged(corpus_with):
    corpus = corpus_with(*seal_registry())
    with pytest.raises(InvalidInput, match="broken"):
        corpus.sync([*seal_registry(), revision("broken", sections=(("s", (), "  "),))], 2)
    assert corpus.snapshot == 1
    assert corpus.search(token("manual-C"), QUESTION).hits


WORDS = ("pump", "seal", "torque", "bolts", "gasket", "housing", "check", "leaks", "cross",
         "pattern", "tighten", "replace", "nm", "40", "45", "50")
sentences = st.lists(st.sampled_from(WORDS), min_size=3, max_size=14).map(" ".join)


def test_property_obsolete_text_never_changes_current_results(corpus_with):
    @settings(max_examples=30, deadline=None)
    @given(current=st.lists(sentences, min_size=1, max_size=5),
           obsolete=st.lists(sentences, min_size=1, max_size=8),
           question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join))
    def unchanged(current, obsolete, question):
        check_obsolete_text_changes_nothing(corpus_with, current, obsolete, question)

    unchanged()


def check_obsolete_text_changes_nothing(corpus_with, current, obsolete, question):
    sections = tuple((f"s{i}", (), text + ".") for i, text in enumerate(current))
    base = revision("current", sections=sections)
    corpus = corpus_with(base)
    before = corpus.search(token("current"), terms(question), limit=10)
    old = [revision(f"old-{i}", text + ". " + question) for i, text in enumerate(obsolete)]
    corpus.sync([*old, base], 2)
    after = corpus.search(token("current"), terms(question), limit=10)
    assert ranked(after) == ranked(before)


def test_postgres_search_agrees_with_sqlite_on_a_synthetic_corpus(pg_shared):
    """The same 1,000 passages on both backends; small and large allowed sets, every query
    of the benchmark plus domain words: the same results (hits, order, scores, eligible)."""
    from retrieval.bench import DOMAIN, QUERIES, build_corpus

    sqlite, _ = build_corpus(1_000)
    postgres, _ = build_corpus(1_000, target=new_schema(pg_shared))
    rng = random.Random(3)
    try:
        for _ in range(80):
            allowed = {f"rev-{rng.randrange(200):06d}" for _ in range(rng.choice((1, 2, 40)))}
            query = terms(rng.choice(QUERIES)) + rng.sample(DOMAIN, rng.randrange(3))
            tok, limit = token(*sorted(allowed)), rng.choice((3, 10))
            expected = sqlite.search(tok, query, limit=limit)
            assert postgres.search(tok, query, limit=limit) == expected, (allowed, query)
    finally:
        sqlite.close()
        postgres.close()


def test_postgres_vocabulary_is_the_terms_whatever_the_database_locale(pg_cluster):
    """Under LC_CTYPE C.UTF-8 PostgreSQL's own word parser drops "½" and cuts "mm²" to "mm";
    the corpus indexes the terms themselves, so it finds what SQLite finds."""
    name = "ctype_utf8"
    with connect(pg_cluster.dsn()) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 LC_CTYPE 'C.UTF-8' "
                     "LC_COLLATE 'C.UTF-8'")
    text = "Use ½ inch bolts on 2.5 mm² cable lugs; x² is the square."
    sqlite, postgres = Corpus(), Corpus(pg_cluster.dsn(name))
    try:
        for corpus in (sqlite, postgres):
            corpus.sync([revision("manual-U", text)], 1)
        for question in ("½", "mm²", "x²"):
            expected = sqlite.search(token("manual-U"), terms(question))
            assert expected.hits and postgres.search(token("manual-U"), terms(question)) \
                == expected
    finally:
        sqlite.close()
        postgres.close()


def test_postgres_corpus_refuses_a_schema_that_holds_a_registry(pg_shared):
    from registry_support import SEED

    from registry import store

    target = new_schema(pg_shared)
    store.import_path(target, SEED / "registry.yaml")
    with pytest.raises(InvalidInput, match=r"not a passage corpus, though .*\(revisions: a "
                                           r"registry\?\); give the corpus its own database"):
        Corpus(target)


def test_unreachable_postgres_corpus_is_one_clear_error_without_the_password():
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        url = f"postgresql://amend:s3cret@127.0.0.1:{free.getsockname()[1]}/corpus"
    with pytest.raises(InvalidInput) as caught:
        Corpus(url)
    message = str(caught.value)
    assert message.startswith("postgresql://amend@127.0.0.1:") and "s3cret" not in message
    assert "cannot open the passage corpus on PostgreSQL" in message and "\n" not in message
