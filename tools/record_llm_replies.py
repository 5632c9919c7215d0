"""Record the replies a language model could give for every turn of the acceptance pack.

    python tools/record_llm_replies.py            # rewrite tests/fixtures/llm_replies.json
    python tools/record_llm_replies.py --check    # exit 1 if the file differs from a new run

The pack's text-mode scripts (``tests/calls/*.yaml``) run once in text mode, as
``tests/test_calls_pack.py`` runs them, with each call's turns read by a :class:`Recorder`:
the rule proposer, which also keeps, for each turn, the rules' reading in the context the
controller gave it. Each reading becomes a reply in the proposal's JSON form
(``docs/proposal-json.md``), the one a model that reads like the rules would give, and
``tests/test_calls_pack_proposers.py`` serves the table from the fake model server
(``tests/fake_llm.py``) to run the pack with ``--proposer llm`` and ``hybrid``.

A reply quotes, for each value and each withdrawn value, the caller's words it came from,
because validation (``agent/understanding/model_checks.py``) refuses a value whose words are
not in the turn. The rules' own ``text`` is not always a quote ("wednesday / thursday" for a
from-to turn, "10 oclock" for "ten o'clock"), so :func:`quote_for` looks for the shortest
stretch of the turn's words that the rules read as that value in the same context. A reading
with a value nothing quotes is left out of the table (counted in the header); every reply
written passes ``check_reading`` against the reading it came from.

The table is keyed by the turn's words (that is what the fake server answers by), so a text
said in several calls keeps the reply of its first occurrence, in script order; the header
lists the texts whose reading differs elsewhere. Deterministic: the pack's scripts run on
fixed clocks; a re-run writes the same bytes.

Side effects: writes ``tests/fixtures/llm_replies.json`` (not with ``--check``); each call
runs in its own world (a sandbox and a registry, deleted afterwards), like ``amend call``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: python tools/record_llm_replies.py
    sys.path.insert(0, str(ROOT))

from agent.core.speech import Utterance  # noqa: E402
from agent.understanding.model_checks import MAX_QUOTE_WORDS, check_reading  # noqa: E402
from agent.understanding.nlu.normalise import normalise  # noqa: E402
from agent.understanding.proposal_json import parse_reply, proposal_to_json  # noqa: E402
from agent.understanding.proposals import Proposal, ProposalContext, Proposer  # noqa: E402

PACK = ROOT / "tests" / "calls"
OUT = ROOT / "tests" / "fixtures" / "llm_replies.json"
RECORDED_BY = ("tools/record_llm_replies.py: the rule proposer's reading of each turn of the "
               "pack's text-mode scripts, in its call's context, quoting the caller's words")
CONCURRENCY = 7  # as tests/test_calls_pack.py
_EDGE = ".,;:!?\"'()[]"  # not part of a quoted word at either end of a stretch


# -- quoting ---------------------------------------------------------------------------------
def _tokens(text: str) -> list[str]:
    """The turn's words as validation compares them (model_checks: normalised, alphanumeric)."""
    return re.findall(r"[a-z0-9]+", normalise(text)) if text.strip() else []


def _in_turn(quote: str, words: list[str]) -> bool:
    wanted = _tokens(quote)
    n = len(wanted)
    return bool(wanted) and any(words[i:i + n] == wanted for i in range(len(words) - n + 1))


def stretches(text: str, prefer: str = "") -> list[str]:
    """Every stretch of consecutive words of ``text``, as said, shortest first (punctuation
    at either end dropped; duplicates once). Among stretches of one length, those whose words
    are all in ``prefer`` (the rules' own text for the value) come first, then in order."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    preferred = _tokens(prefer)
    found: dict[str, None] = {}
    for length in range(1, len(spans) + 1):
        pieces = [text[spans[i][0]:spans[i + length - 1][1]].strip(_EDGE).strip()
                  for i in range(len(spans) - length + 1)]
        pieces.sort(key=lambda piece: not _in_turn(piece, preferred))  # stable: then in order
        for piece in pieces:
            if piece:
                found.setdefault(piece)
    return list(found)


def _reads_as(proposal: Proposal, name: str, value: str | None,
              candidates: tuple[str, ...]) -> bool:
    """``proposal`` gives ``name`` that value (or, for no value, those candidates), affirmed
    or withdrawn."""
    for slot in proposal.frame():
        if slot.field != name or slot.value != value:
            continue
        if value is not None or set(slot.candidates) == set(candidates):
            return True
    return False


def quote_for(rules: Proposer, context: ProposalContext, said: str, name: str,
              value: str | None, candidates: tuple[str, ...] = (),
              fallback: str = "") -> str | None:
    """The caller's words for one value of the rules' reading of ``said``: the shortest
    stretch of the turn the rules read, alone and in the same context, as that value, of at
    most MAX_QUOTE_WORDS words (a longer quote is refused: "the Thursday afternoon one, could
    your engineer do the day after" reads as the Friday, and quotes too much); else
    the rules' own ``fallback`` text, or one of its " / " parts, when the turn contains it
    ("the day after") (among stretches of one length, those within ``fallback`` are tried
    first); else None (nothing in the turn quotes it)."""
    words = _tokens(said)
    for piece in stretches(said, fallback):
        if len(piece.split()) > MAX_QUOTE_WORDS or not _in_turn(piece, words):
            continue
        if _reads_as(rules.propose(Utterance(piece), context), name, value, candidates):
            return piece
    for piece in (fallback, *fallback.split(" / ")):
        if piece.strip() and _in_turn(piece, words):
            return piece.strip()
    return None


@dataclass(frozen=True)
class Recorded:
    """One turn as the rules read it, and the reply a model could give (None: unquotable)."""

    call: str
    text: str
    reply: dict[str, Any] | None
    unquoted: tuple[str, ...] = ()  # "field=value" pairs no words of the turn quote
    whole_turn: tuple[str, ...] = ()  # values only the whole turn quotes


def record_turn(call: str, rules: Proposer, utterance: Utterance,
                context: ProposalContext) -> Recorded:
    """The rules' reading of ``utterance`` as a reply in the JSON form, with every changed
    or withdrawn value quoted from the turn, checked as a model's reply would be."""
    said = utterance.text or ""
    proposal = rules.propose(utterance, context)
    held = context.ledger.values()
    unquoted: list[str] = []
    whole: list[str] = []

    def quoted(name: str, value: str | None, candidates: tuple[str, ...], text: str,
               needed: bool) -> str:
        quote = quote_for(rules, context, said, name, value, candidates, text)
        shown = f"{name}={value if value is not None else '|'.join(candidates)}"
        if quote is None:
            if needed:
                unquoted.append(shown)
            return text
        if len(_tokens(quote)) == len(_tokens(said)) > 1:
            whole.append(shown)
        return quote

    slots = tuple(replace(s, text=quoted(s.field, s.value, s.candidates, s.text,
                                         s.value is None or held.get(s.field) != s.value))
                  for s in proposal.slots)
    withdrawn = tuple(quoted(f, v, (), "", True) for f, v in proposal.withdrawn)
    if unquoted:
        return Recorded(call, said, None, tuple(unquoted))
    reply = proposal_to_json(replace(proposal, slots=slots), withdrawn)
    reasons = check_reading(parse_reply(json.dumps(reply)), said, context, proposal)
    if reasons:  # cannot happen while the quoting above mirrors the checks; never write it
        return Recorded(call, said, None, reasons)
    return Recorded(call, said, reply, whole_turn=tuple(whole))


class Recorder:
    """The rule proposer for one call, keeping each turn's reading (:func:`record_turn`)."""

    def __init__(self, rules: Proposer, call: str, into: list[Recorded]) -> None:
        self.rules = rules
        self.call = call
        self.into = into

    def propose(self, utterance: Utterance, context: ProposalContext) -> Proposal:
        self.into.append(record_turn(self.call, self.rules, utterance, context))
        return self.rules.propose(utterance, context)


# -- the pack --------------------------------------------------------------------------------
def text_scripts() -> list[Path]:
    """The pack's scripts that run in text mode, in name order (tests/test_calls_pack.py)."""
    from audio.calls.script import load_script

    return [p for p in sorted(PACK.glob("*.yaml")) if "text" in load_script(p).modes]


@dataclass
class Recording:
    turns: dict[str, list[Recorded]] = field(default_factory=dict)  # call id -> its turns
    verdicts: dict[str, str] = field(default_factory=dict)
    clocks: dict[str, str] = field(default_factory=dict)  # call id -> the script's clock


async def record_pack(paths: Sequence[Path]) -> Recording:
    """Run ``paths`` in text mode with every call's turns read by a :class:`Recorder`."""
    from audio.calls.mode import TextMode
    from audio.calls.runner import run_calls
    from audio.calls.script import load_script
    from ui.bootstrap import rule_proposer
    from ui.call_cli import world_factory

    rules = rule_proposer()
    recording = Recording()
    for path in paths:
        script = load_script(path)
        recording.turns[script.id] = []
        recording.clocks[script.id] = script.clock.isoformat()

    def worlds(spec: Any, sink: Any, trace: Any) -> Any:
        recorder = Recorder(rules, spec.call_id, recording.turns[spec.call_id])
        return world_factory(spec, sink, trace, proposer=recorder)

    results, _ = await run_calls([str(p) for p in paths], "text", worlds, TextMode,
                                 concurrency=CONCURRENCY)
    recording.verdicts = {r.id: r.verdict.value for r in results}
    return recording


def table(recording: Recording) -> dict[str, Any]:
    """The file's content (pure): the header, then the replies by turn text."""
    replies: dict[str, str] = {}
    first: dict[str, dict[str, Any]] = {}
    differing: dict[str, list[str]] = {}
    unquotable: dict[str, list[str]] = {}
    whole_turn: dict[str, list[str]] = {}
    for call in sorted(recording.turns):
        for turn in recording.turns[call]:
            if turn.reply is None:
                unquotable.setdefault(turn.text, []).extend(
                    f"{call}: {u}" for u in turn.unquoted)
                continue
            if turn.whole_turn:
                whole_turn.setdefault(turn.text, list(turn.whole_turn))
            if turn.text not in first:
                first[turn.text] = turn.reply
                replies[turn.text] = json.dumps(turn.reply, ensure_ascii=False)
            elif turn.reply != first[turn.text] and call not in differing.get(turn.text, []):
                differing.setdefault(turn.text, []).append(call)
    clocks: dict[str, list[str]] = {}
    for call, clock in sorted(recording.clocks.items()):
        clocks.setdefault(clock, []).append(call)
    common = max(clocks, key=lambda c: len(clocks[c])) if clocks else ""
    clock_note = common + "".join(f"; {c} in {', '.join(calls)}"
                                  for c, calls in sorted(clocks.items()) if c != common)
    return {
        "recorded_by": RECORDED_BY,
        "clock": clock_note,
        "scripts": len(recording.turns),
        "turns_read": sum(len(t) for t in recording.turns.values()),
        # Read differently in these calls than where first said: the table keeps the first.
        "differing": dict(sorted(differing.items())),
        # Left out: a value the rules read that no words of the turn quote.
        "unquotable": dict(sorted(unquotable.items())),
        # Quoted by the whole turn only (no shorter stretch reads as the value).
        "whole_turn_quotes": dict(sorted(whole_turn.items())),
        "replies": dict(sorted(replies.items())),
    }


def render(content: dict[str, Any]) -> str:
    return json.dumps(content, indent=1, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/record_llm_replies.py",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true",
                        help="record, compare with the file, write nothing; exit 1 if they "
                             "differ")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    recording = asyncio.run(record_pack(text_scripts()))
    failed = {c: v for c, v in recording.verdicts.items() if v != "PASS"}
    if failed:
        print(f"not recorded: these calls did not pass with the rules: {failed}",
              file=sys.stderr)
        return 1
    content = table(recording)
    text = render(content)
    summary = (f"{content['scripts']} scripts, {content['turns_read']} turns read, "
               f"{len(content['replies'])} replies, {len(content['differing'])} texts read "
               f"differently elsewhere, {len(content['unquotable'])} unquotable, "
               f"{len(content['whole_turn_quotes'])} quoted by the whole turn")
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'differs from a new recording'} "
              f"({summary})")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({summary})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
