"""The labelled understanding corpus: its shape, its loader's errors, and the accuracy floor.

The floor lives in ``tests/nlu_accuracy_floor.json``: the rule proposer's frame accuracy on
the development corpus and on the held-out file must not drop below it.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from agent.understanding.proposals import CorrectionKind, Intent, Proposal, SlotRole, SlotValue
from ui.nlu_eval import (
    CorpusError,
    corpus_files,
    default_corpus_dir,
    evaluate,
    frame_of,
    load_corpus,
)

HERE = Path(__file__).resolve().parent
FLOOR = json.loads((HERE / "nlu_accuracy_floor.json").read_text())
FILES = corpus_files(default_corpus_dir())
DEVELOPMENT = load_corpus([f for f in FILES if f.name != "heldout.yaml"])
HELDOUT = load_corpus([f for f in FILES if f.name == "heldout.yaml"])


@pytest.fixture(scope="module")
def proposer():
    from datetime import datetime

    from agent.understanding.nlu.proposer import RuleProposer

    return RuleProposer(warm_at=datetime.fromisoformat("2026-12-01T09:00:00+01:00"))


def test_the_corpus_in_tests_is_the_shipped_one():
    assert (HERE / "nlu_corpus").resolve() == default_corpus_dir().resolve()


def test_the_corpus_is_as_large_and_as_wide_as_the_contract_asks():
    assert len(DEVELOPMENT) + len(HELDOUT) >= 600 + 150
    assert len(HELDOUT) >= 150
    assert sum(t.construction.startswith("asr-") for t in DEVELOPMENT + HELDOUT) >= 150
    assert {t.intent for t in DEVELOPMENT} == {i.value for i in Intent}
    assert {t.correction for t in DEVELOPMENT} == {k.value for k in CorrectionKind}
    thin = {c: n for c, n in Counter(t.construction for t in DEVELOPMENT).items() if n < 10}
    assert not thin, f"constructions with fewer than 10 phrasings: {thin}"


def test_frame_accuracy_on_the_corpus_does_not_drop_below_the_recorded_floor(proposer):
    score = evaluate(proposer, DEVELOPMENT)
    assert score.frame_accuracy >= FLOOR["corpus"], (
        f"corpus frame accuracy {score.frame_accuracy:.3f} < floor {FLOOR['corpus']}; "
        "see python -m ui.nlu_eval --misses")


def test_frame_accuracy_held_out_does_not_drop_below_the_recorded_floor(proposer):
    score = evaluate(proposer, HELDOUT)
    assert score.frame_accuracy >= FLOOR["heldout"], (
        f"held-out frame accuracy {score.frame_accuracy:.3f} < floor {FLOOR['heldout']}")


class _Oracle:
    """Answers each labelled turn with its own label: the scorer must count it all right."""

    def __init__(self, turns, drop_roles=False):
        self.by_text = {t.text: t for t in turns}
        self.drop_roles = drop_roles

    def propose(self, utterance, context):
        turn = self.by_text[utterance.text]
        slots = tuple(SlotValue(f, v, candidates=c, role=SlotRole.NEW if self.drop_roles
                                else SlotRole(r))
                      for f, v, c, r in sorted(turn.slots, key=str) if r in ("new", "to"))
        withdrawn = tuple((f, v) for f, v, _, r in sorted(turn.slots, key=str)
                          if r in ("from", "negated"))
        return Proposal(Intent(turn.intent), slots, CorrectionKind(turn.correction), withdrawn)


def test_the_scorer_counts_a_perfect_proposer_right_and_catches_lost_roles():
    turns = list({t.text: t for t in DEVELOPMENT}.values())  # one label per text
    score = evaluate(_Oracle(turns), turns)
    assert score.frame_accuracy == 1.0, [m.turn.source for m in score.misses][:5]
    with_to = [t for t in turns if any(r == "to" for *_, r in t.slots)]
    assert with_to and evaluate(_Oracle(with_to, drop_roles=True), with_to).frame_accuracy == 0


def test_a_window_implied_by_a_time_is_not_counted_twice():
    proposal = Proposal(Intent.BOOK, (SlotValue("visit_time", "14:00"),
                                      SlotValue("visit_window", "afternoon")))
    assert frame_of(proposal) == {("visit_time", "14:00", (), "new")}
    said = replace(proposal, slots=(*proposal.slots[:1], SlotValue("visit_window", "morning")))
    assert ("visit_window", "morning", (), "new") in frame_of(said)


@pytest.mark.parametrize(("content", "message"), [
    ("- {text: hi}\n", "expect is required"),
    ("- {text: hi, expect: {intent: book, slots: [{field: colour, value: red}]}}\n",
     "slot field 'colour'"),
    ("- {text: hi, expect: {intent: booking}}\n", "expect.intent 'booking'"),
    ("- {text: hi, expect: {intent: book, slots: [{field: asset, value: P-1, role: old}]}}\n",
     "role 'old'"),
    ("- {text: hi, context: {caller: nobody}, expect: {intent: book}}\n", "context.caller"),
    ("- {text: hi, context: {clock: '2026-12-01T09:00'}, expect: {intent: book}}\n",
     "UTC offset"),
    ("- {id: a, text: hi, expect: {intent: book}}\n- {id: a, text: ho, expect: {intent: no}}\n",
     "id also used"),
    ("text: [unclosed\n", "cannot read it as YAML"),
    ("{text: hi}\n", "a list of turns"),
])
def test_a_bad_corpus_file_names_the_file_the_turn_and_what_to_fix(tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(CorpusError, match="bad.yaml") as caught:
        load_corpus([path])
    assert message in str(caught.value)


def test_an_unquoted_yes_intent_is_read_as_the_word(tmp_path):
    path = tmp_path / "yes.yaml"
    path.write_text("- {id: y1, text: 'yep', expect: {intent: yes}}\n")
    assert load_corpus([path])[0].intent == "yes"
