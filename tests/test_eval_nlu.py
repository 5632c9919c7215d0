"""``amend eval-nlu`` (issue 16, items 4 and 7): the NLU corpus through the rules, a model or
both, against the fake model server (``tests/fake_llm.py``) answering from a recorded table.

The table is what a model that reads like the rules would answer (the replies
``tools/record_llm_replies.py`` builds for the pack, here for corpus turns), plus a reply that
validation must refuse and a turn with no reply at all.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from fake_llm import FakeLLM, reply

from agent.core.speech import Utterance
from agent.understanding.model_proposer import needs_model
from agent.understanding.nlu.proposer import RuleProposer
from tools.record_llm_replies import record_turn
from ui.llm_proposer import ProposerSettings
from ui.nlu_eval import (
    DEFAULT_CLOCK,
    LabelledTurn,
    corpus_files,
    default_corpus_dir,
    eval_nlu,
    evaluate,
    load_corpus,
    main,
    percentile,
    run_eval,
)

# The lines every run prints, in order; a model proposer adds MODEL_LINES.
BASE_LINES = (r"proposer rules \(the baseline\)|proposer (llm|hybrid): model \S+ at \S+, "
              r"timeout \d+ ms", r"turns: \d+", r"frame accuracy: [01]\.\d{3} \(\d+/\d+\)")
MODEL_LINES = (r"model asked: \d+ of \d+ turns \([01]\.\d{3}\)(, the turns the rules could "
               r"not settle)?",
               r"model reading used: \d+ of \d+ turns \([01]\.\d{3}\)",
               r"rejection rate: ([01]\.\d{3}|n/a) \(\d+ of \d+ asked\)",
               r"top rejection reasons: (-|[a-z_]+ \d+(, [a-z_]+ \d+)*)",
               r"model latency: p50 \d+ ms, p95 \d+ ms \(\d+ asks\)")
# Generous: the fake answers at once, and a slow CI machine must not turn a reply into a
# timeout (the counts below are exact).
TIMEOUT_MS = "20000"
NO_ENV = {k: None for k in ("AMEND_PROPOSER", "AMEND_LLM_BASE_URL", "AMEND_LLM_MODEL",
                            "AMEND_LLM_TIMEOUT_MS", "AMEND_LLM_API_KEY")}


@pytest.fixture(scope="module")
def rules() -> RuleProposer:
    return RuleProposer(warm_at=datetime.fromisoformat(DEFAULT_CLOCK))


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory) -> Path:
    """Eight turns of the shipped corpus: four bookings, four corrections with held values."""
    folder = tmp_path_factory.mktemp("corpus")
    turns = []
    for name in ("booking.yaml", "corrections.yaml"):
        turns += yaml.safe_load((default_corpus_dir() / name).read_text(encoding="utf-8"))[:4]
    (folder / "small.yaml").write_text(yaml.safe_dump(turns, sort_keys=False),
                                       encoding="utf-8")
    return folder


def recorded(turns: list[LabelledTurn], rules: RuleProposer) -> dict[str, str]:
    """The replies a model reading like the rules would give, as the pack's table is made."""
    table = {}
    for turn in turns:
        made = record_turn("corpus", rules, Utterance(turn.text, turn.confidence), turn.context)
        assert made.reply is not None, (turn.source, made.unquoted)
        table[turn.text] = json.dumps(made.reply)
    return table


def run(*args: str) -> list[str]:
    result = CliRunner().invoke(eval_nlu, list(args), env=NO_ENV, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def assert_documented(lines: list[str], model: bool) -> None:
    expected = BASE_LINES + (MODEL_LINES if model else ())
    assert len(lines) == len(expected), lines
    for line, pattern in zip(lines, expected, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)


def figure(lines: list[str], prefix: str) -> str:
    return next(line for line in lines if line.startswith(prefix))


def test_eval_nlu_is_an_amend_command():
    from ui.cli import main as amend

    assert amend.commands["eval-nlu"] is eval_nlu


def test_rules_print_the_baseline(small_corpus, rules):
    lines = run("--proposer", "rules", str(small_corpus))
    assert_documented(lines, model=False)
    score = evaluate(rules, load_corpus(corpus_files(small_corpus)))
    assert lines[1:] == ["turns: 8", f"frame accuracy: {score.frame_accuracy:.3f} "
                                     f"({score.frames_right}/8)"]


def test_llm_against_a_recorded_table(small_corpus, rules):
    turns = load_corpus(corpus_files(small_corpus))
    table = recorded(turns, rules)
    table[turns[0].text] = reply("yes")  # a yes the rules did not hear: refused
    del table[turns[1].text]  # no reply recorded: the fake answers 404
    baseline = evaluate(rules, turns)
    with FakeLLM(replies=table) as url:
        lines = run("--proposer", "llm", "--llm-base-url", url, "--llm-model", "recorded",
                    "--llm-timeout-ms", TIMEOUT_MS, str(small_corpus))
    assert_documented(lines, model=True)
    assert lines[1:7] == [
        "turns: 8",
        # The readings used are the rules' own: the same frames.
        f"frame accuracy: {baseline.frame_accuracy:.3f} ({baseline.frames_right}/8)",
        "model asked: 8 of 8 turns (1.000)",
        "model reading used: 6 of 8 turns (0.750)",
        "rejection rate: 0.250 (2 of 8 asked)",
        "top rejection reasons: model_unavailable 1, yes_not_heard 1"]
    assert lines[7].endswith("(8 asks)")


def test_a_model_that_is_down_is_refused_every_turn_and_the_rules_stand(small_corpus, rules):
    fake = FakeLLM()
    url = fake.start()
    fake.stop()  # nothing listens there any more: every ask fails to connect
    lines = run("--proposer", "llm", "--llm-base-url", url, "--llm-model", "recorded",
                "--llm-timeout-ms", TIMEOUT_MS, str(small_corpus))
    assert_documented(lines, model=True)
    baseline = run("--proposer", "rules", str(small_corpus))
    assert figure(lines, "frame accuracy") == figure(baseline, "frame accuracy")
    assert figure(lines, "rejection rate") == "rejection rate: 1.000 (8 of 8 asked)"
    assert figure(lines, "model reading used") == "model reading used: 0 of 8 turns (0.000)"
    assert figure(lines, "top rejection reasons") == "top rejection reasons: model_unavailable 8"


def test_hybrid_asks_only_on_the_turns_the_rules_do_not_settle(rules):
    """Over the whole development corpus: the model is asked exactly on the turns whose rule
    reading ``needs_model`` says is not settled, and on no other."""
    turns = load_corpus(f for f in corpus_files(default_corpus_dir())
                        if f.name != "heldout.yaml")
    unsettled = [t for t in turns
                 if needs_model(rules.propose(Utterance(t.text, t.confidence), t.context))]
    assert 0 < len(unsettled) < len(turns) / 4
    fake = FakeLLM(replies=recorded(unsettled, rules))
    with fake as url:
        settings = ProposerSettings("hybrid", url, "recorded", timeout_ms=int(TIMEOUT_MS))
        score, stats = asyncio.run(run_eval(settings, turns))
    assert stats is not None
    assert (stats.turns, stats.asked, len(stats.seconds)) == (len(turns), len(unsettled),
                                                              len(unsettled))
    assert Counter(r.facts["turn"] for r in fake.requests) == Counter(t.text for t in unsettled)
    assert stats.used + stats.rejected == stats.asked and stats.used > 0
    assert score.turns == len(turns)


def test_hybrid_with_a_model_that_is_down_keeps_the_rules_accuracy():
    fake = FakeLLM()
    url = fake.start()
    fake.stop()
    lines = run("--proposer", "hybrid", "--llm-base-url", url, "--llm-model", "recorded",
                "--llm-timeout-ms", TIMEOUT_MS)
    assert_documented(lines, model=True)
    baseline = run("--proposer", "rules")
    assert figure(lines, "turns") == figure(baseline, "turns")
    assert figure(lines, "frame accuracy") == figure(baseline, "frame accuracy")
    asked = re.fullmatch(r"model asked: (\d+) of (\d+) turns .*", figure(lines, "model asked"))
    assert asked and 0 < int(asked[1]) < int(asked[2])
    assert figure(lines, "rejection rate") == f"rejection rate: 1.000 ({asked[1]} of " \
                                              f"{asked[1]} asked)"


def test_misses_prints_the_first_n_wrong_frames():
    lines = run("--heldout", "--misses", "2")
    blocks = [line for line in lines if line.startswith("heldout.yaml:")]
    assert len(blocks) == 2
    assert sum(line.startswith("    expected ") for line in lines) == 2
    assert_documented(lines[6:], model=False)


def test_a_model_proposer_without_a_server_is_a_usage_error():
    result = CliRunner().invoke(eval_nlu, ["--proposer", "llm"], env=NO_ENV)
    assert result.exit_code == 2
    assert "--llm-base-url / AMEND_LLM_BASE_URL" in result.output


def test_percentile_is_nearest_rank():
    assert percentile([], 50) == 0.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0
    assert percentile([5.0], 95) == 5.0


def test_python_m_ui_nlu_eval_still_scores_the_rules(capsys):
    assert main(["--heldout"]) == 0
    assert re.search(r"^250 turns: frame accuracy [01]\.\d{3}, ", capsys.readouterr().out, re.M)


def test_recorded_replies_quote_the_turn_where_the_rules_text_does_not(rules):
    """The rules' text for a from-to turn is "wednesday / thursday", not the caller's words:
    the recorded reply quotes the shortest stretch of the turn the rules read as each value,
    so it passes validation (record_turn checks it) and never quotes the whole turn."""
    turns = load_corpus([default_corpus_dir() / "corrections.yaml"])
    rewritten = 0
    for turn in turns:
        utterance = Utterance(turn.text, turn.confidence)
        made = record_turn("corpus", rules, utterance, turn.context)
        assert made.reply is not None and not made.whole_turn, (turn.source, made)
        texts = [s.text for s in rules.propose(utterance, turn.context).slots]
        rewritten += texts != [s["text"] for s in made.reply["slots"]]
        assert all(" / " not in s["text"] for s in made.reply["slots"])
    assert rewritten > 0
