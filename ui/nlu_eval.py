"""Score a proposer against the labelled understanding corpus (docs/understanding.md).

A corpus file is a YAML list of turns: ``text``, an optional ``context`` (caller, clock, held
ledger values, a booking, the field asked for, a pending confirmation, the recogniser's
confidence) and ``expect`` (intent, correction kind, slots with roles). :func:`load_corpus`
validates every turn and names the file, the turn id and the key on any mistake;
:func:`evaluate` runs a proposer over the turns and counts frames that are exactly right
(:func:`evaluate_async` awaits a proposer that waits, such as a language model).

``amend eval-nlu`` (:func:`eval_nlu`) scores the proposer ``--proposer`` chooses: the rules
(the baseline), a language model (``llm``) or the model only where the rules are unsure
(``hybrid``); for a model it also prints how often the model was asked, how often its reading
stood, the rejection rate with the top reasons, and the model's latency p50/p95.

Read-only: nothing here writes a file (a model proposer sends each turn to its server).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from importlib import resources
from pathlib import Path

import click
import yaml

from agent.core.caller import Asset, CallerProfile
from agent.core.fields import FieldRecord
from agent.core.ledger import LedgerSnapshot
from agent.core.names import BOOKING_REF, VISIT_TIME, VISIT_WINDOW
from agent.core.ports import ProcedureInfo
from agent.core.speech import Utterance
from agent.understanding.model_proposer import ModelStats
from agent.understanding.proposals import (
    CorrectionKind,
    Intent,
    Proposal,
    ProposalContext,
    Proposer,
    propose,
)
from ui.llm_proposer import ProposerSettings, open_proposer, proposer_options

DEFAULT_CLOCK = "2026-12-01T09:00:00+01:00"
ROLES = ("new", "to", "from", "negated")
# The fields a frame is scored on (docs/understanding.md, "Fields and values").
FIELDS = ("asset", "visit_date", "visit_window", "visit_time", "units", "site", "booking_ref",
          "procedure", "item_category", "opened", "language")
CONTEXT_KEYS = ("caller", "clock", "held", "booked", "expecting", "confirming", "confidence")
TURN_KEYS = ("id", "construction", "text", "context", "expect")
EXPECT_KEYS = ("intent", "correction", "slots")
SLOT_KEYS = ("field", "value", "candidates", "role")


def _asset(asset_id: str, kind: str, configuration: str, region: str, site: str) -> Asset:
    return Asset(asset_id, configuration, region, site, kind=kind)


_HARBOUR = "12 Harbour Road, Rotterdam"
CALLERS: dict[str, CallerProfile] = {
    "acme": CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (
        _asset("P-100", "pump", "C2", "EU", _HARBOUR),
        _asset("P-200", "pump", "C1", "EU", "4 Canal Street, Utrecht"))),
    "acme-one": CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (
        _asset("P-100", "pump", "C2", "EU", _HARBOUR),)),
    "globex": CallerProfile("globex", "ops-5", ("technician",), "GLOBEX-042", (
        _asset("G-7", "gearbox", "C3", "US", "800 Mill Avenue, Tempe"),
        _asset("C-7", "compressor", "C2", "US", "800 Mill Avenue, Tempe")), region="US"),
    "initech": CallerProfile("initech", "eng-2", ("technician",), "INITECH-9", (
        _asset("AB-12", "unit", "C1", "EU", "3 Quay Road, Ghent"),
        _asset("K9", "compressor", "C2", "EU", "3 Quay Road, Ghent"))),
}
PROCEDURES = (
    ProcedureInfo("pump-seal", "pump seal", "seal-torque", "seal torque",
                  ("seal bolts", "seal bolt torque", "pump seal torque")),
    ProcedureInfo("pump-seal", "pump seal", "valve-gasket", "valve gasket",
                  ("gasket replacement",)),
    ProcedureInfo("returns", "returns", "filter-kit", "filter kit", ("filters",)),
    ProcedureInfo("returns", "returns", "impeller", "impeller", ("spare impeller",)),
)


class CorpusError(ValueError):
    """A corpus file that cannot be read as the format says; the message names file and turn."""


SlotKey = tuple[str, str | None, tuple[str, ...], str]


@dataclass(frozen=True, slots=True)
class LabelledTurn:
    source: str  # "file.yaml:ho-0001"
    id: str
    construction: str
    text: str
    context: ProposalContext
    confidence: float
    intent: str
    correction: str
    slots: frozenset[SlotKey]


@dataclass(frozen=True, slots=True)
class Miss:
    turn: LabelledTurn
    intent: str
    correction: str
    slots: frozenset[SlotKey]


@dataclass
class Score:
    turns: int = 0
    frames_right: int = 0
    intents_right: int = 0
    kinds_right: int = 0
    per_intent: Counter = field(default_factory=Counter)
    per_intent_right: Counter = field(default_factory=Counter)
    per_construction: Counter = field(default_factory=Counter)
    per_construction_right: Counter = field(default_factory=Counter)
    misses: list[Miss] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    # Turns whose model reading was refused, by reason code ("timeout", "not_in_the_turn"):
    # a turn counts once per code however many of its values that code names.
    rejections: Counter = field(default_factory=Counter)

    @property
    def frame_accuracy(self) -> float:
        return self.frames_right / self.turns if self.turns else 0.0


def default_corpus_dir() -> Path:
    """The corpus shipped with the package (``tests/nlu_corpus`` links to it)."""
    return Path(str(resources.files("ui") / "nlu_corpus"))


def corpus_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.yaml") if p.is_file())


def load_corpus(paths: Iterable[Path]) -> list[LabelledTurn]:
    """Every turn of ``paths``, validated. Raises :class:`CorpusError` naming file and turn."""
    turns: list[LabelledTurn] = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise CorpusError(f"{path}: cannot read it as YAML ({exc}); fix the file") from exc
        if data is None:
            continue
        if not isinstance(data, list):
            raise CorpusError(f"{path}: a corpus file is a list of turns, got "
                              f"{type(data).__name__}")
        for index, raw in enumerate(data):
            turn = _turn(Path(path).name, index, raw)
            if turn.id in seen:
                raise CorpusError(f"{turn.source}: id also used in {seen[turn.id]}")
            seen[turn.id] = turn.source
            turns.append(turn)
    return turns


def _turn(name: str, index: int, raw: object) -> LabelledTurn:
    where = f"{name}:[{index}]"
    if not isinstance(raw, Mapping):
        raise CorpusError(f"{where}: a turn is a mapping with {', '.join(TURN_KEYS)}")
    turn_id = str(raw.get("id") or f"#{index}")
    where = f"{name}:{turn_id}"
    _known(where, raw, TURN_KEYS)
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise CorpusError(f"{where}: text: a non-empty string is required")
    ctx_raw = raw.get("context") or {}
    expect = raw.get("expect")
    if not isinstance(ctx_raw, Mapping) or not isinstance(expect, Mapping):
        raise CorpusError(f"{where}: context and expect must be mappings (expect is required)")
    _known(f"{where}: context", ctx_raw, CONTEXT_KEYS)
    _known(f"{where}: expect", expect, EXPECT_KEYS)
    context, confidence = _context(where, ctx_raw)
    intent = _text(expect.get("intent", ""))  # an unquoted yes/no reads as a YAML boolean
    if intent not in {i.value for i in Intent}:
        raise CorpusError(f"{where}: expect.intent {intent!r} is not one of "
                          f"{', '.join(i.value for i in Intent)}")
    correction = _text(expect.get("correction", "none"))
    if correction not in {k.value for k in CorrectionKind}:
        raise CorpusError(f"{where}: expect.correction {correction!r} is not one of "
                          f"{', '.join(k.value for k in CorrectionKind)}")
    slots = frozenset(_slot(where, s) for s in expect.get("slots") or ())
    return LabelledTurn(where, turn_id, str(raw.get("construction", "")), text, context,
                        confidence, intent, correction, _without_implied(slots))


def _known(where: str, mapping: Mapping, keys: Sequence[str]) -> None:
    unknown = sorted(set(map(str, mapping)) - set(keys))
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {', '.join(unknown)}; "
                          f"known: {', '.join(keys)}")


def _slot(where: str, raw: object) -> SlotKey:
    if not isinstance(raw, Mapping):
        raise CorpusError(f"{where}: each slot is a mapping with field, value, role")
    _known(f"{where}: slot", raw, SLOT_KEYS)
    name = str(raw.get("field"))
    if name not in FIELDS:
        raise CorpusError(f"{where}: slot field {name!r} is not one of {', '.join(FIELDS)}")
    role = str(raw.get("role", "new"))
    if role not in ROLES:
        raise CorpusError(f"{where}: slot {name} role {role!r} is not one of {', '.join(ROLES)}")
    value = raw.get("value")
    candidates = tuple(sorted(_text(c) for c in raw.get("candidates") or ()))
    if value is None and not candidates:
        raise CorpusError(f"{where}: slot {name} needs a value or candidates")
    return (name, None if value is None else _text(value), candidates, role)


def _text(value: object) -> str:
    """YAML may read an unquoted date or number; the frame compares ISO text."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _context(where: str, raw: Mapping) -> tuple[ProposalContext, float]:
    caller_name = str(raw.get("caller", "acme"))
    if caller_name not in CALLERS:
        raise CorpusError(f"{where}: context.caller {caller_name!r} is not one of "
                          f"{', '.join(CALLERS)}")
    caller = CALLERS[caller_name]
    try:
        now = datetime.fromisoformat(_text(raw.get("clock", DEFAULT_CLOCK)))
    except ValueError as exc:
        raise CorpusError(f"{where}: context.clock: an ISO date-time with offset, "
                          f"e.g. {DEFAULT_CLOCK}") from exc
    if now.tzinfo is None:
        raise CorpusError(f"{where}: context.clock needs a UTC offset, e.g. {DEFAULT_CLOCK}")
    held = {str(k): _text(v) for k, v in (raw.get("held") or {}).items()}
    booked = raw.get("booked")
    bookings: tuple[tuple[str, str, str], ...] = ()
    if booked:
        held.setdefault(BOOKING_REF, str(booked))
        bookings = ((str(booked), held.get("asset", ""), held.get("visit_date", "")),)
    fields = tuple((name, FieldRecord(value, "utterance:t0")) for name, value in held.items())
    expecting = raw.get("expecting")
    try:
        confidence = float(raw.get("confidence", 1.0))
    except (TypeError, ValueError) as exc:
        raise CorpusError(f"{where}: context.confidence: a number from 0 to 1") from exc
    context = ProposalContext(
        now=now, ledger=LedgerSnapshot("corpus", 1, fields), caller=caller,
        procedures=PROCEDURES, expecting=str(expecting) if expecting else None,
        pending_confirmation=bool(raw.get("confirming", False)), bookings=bookings)
    return context, confidence


def frame_of(proposal: Proposal) -> frozenset[SlotKey]:
    """The scored frame of a proposal: every slot with its role (docs/understanding.md)."""
    return _without_implied(frozenset(
        (s.field, s.value, tuple(sorted(s.candidates)) if s.value is None else (), str(s.role))
        for s in proposal.frame() if s.field in FIELDS))


def _without_implied(slots: frozenset[SlotKey]) -> frozenset[SlotKey]:
    """Drop a window implied by a time of the same role (the contract lets a frame omit it)."""
    times = {(role, _window_of(value)) for name, value, _, role in slots
             if name == VISIT_TIME and value}
    return frozenset(s for s in slots
                     if not (s[0] == VISIT_WINDOW and (s[3], s[1]) in times))


def _window_of(hhmm: str) -> str | None:
    try:
        hour = int(hhmm.split(":")[0])
    except ValueError:
        return None
    return "morning" if hour < 12 else "afternoon"


def evaluate(proposer: Proposer, turns: Sequence[LabelledTurn]) -> Score:
    """Run ``proposer`` over ``turns`` and count exact frames (read-only)."""
    score = Score()
    for turn in turns:
        started = time.perf_counter()
        proposal = proposer.propose(Utterance(turn.text, turn.confidence), turn.context)
        score.seconds.append(time.perf_counter() - started)
        _count(score, turn, proposal)
    return score


async def evaluate_async(proposer: Proposer, turns: Sequence[LabelledTurn]) -> Score:
    """:func:`evaluate`, awaiting each reading of a proposer that waits (a model: its
    ``propose_async``), one turn after another on the running event loop."""
    score = Score()
    for turn in turns:
        started = time.perf_counter()
        proposal = await propose(proposer, Utterance(turn.text, turn.confidence), turn.context)
        score.seconds.append(time.perf_counter() - started)
        _count(score, turn, proposal)
    return score


def _count(score: Score, turn: LabelledTurn, proposal: Proposal) -> None:
    frame = frame_of(proposal)
    intent_ok = proposal.intent.value == turn.intent
    right = intent_ok and frame == turn.slots
    score.turns += 1
    score.intents_right += intent_ok
    score.kinds_right += proposal.correction.value == turn.correction
    score.per_intent[turn.intent] += 1
    score.per_construction[turn.construction] += 1
    score.rejections.update({reason.split(":", 1)[0].strip() for reason in proposal.rejected})
    if right:
        score.frames_right += 1
        score.per_intent_right[turn.intent] += 1
        score.per_construction_right[turn.construction] += 1
    else:
        score.misses.append(Miss(turn, proposal.intent.value, proposal.correction.value,
                                 frame))


def describe_miss(miss: Miss) -> str:
    """One readable block: the text, what was expected and what was proposed."""
    def show(slots: frozenset[SlotKey]) -> str:
        return ", ".join(f"{f}={v if v is not None else '|'.join(c)}:{r}"
                         for f, v, c, r in sorted(slots, key=str)) or "-"
    t = miss.turn
    return (f"{t.source} [{t.construction}] {t.text!r}\n"
            f"    expected {t.intent}/{t.correction}: {show(t.slots)}\n"
            f"    proposed {miss.intent}/{miss.correction}: {show(miss.slots)}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ui.nlu_eval [--heldout] [--misses] [--construction NAME ...] [DIR]``."""
    import argparse

    from agent.understanding.nlu.proposer import RuleProposer

    parser = argparse.ArgumentParser(prog="python -m ui.nlu_eval",
                                     description="Score the rule proposer on the labelled corpus.")
    parser.add_argument("directory", nargs="?", type=Path, default=None)
    parser.add_argument("--heldout", action="store_true", help="score heldout.yaml only")
    parser.add_argument("--misses", action="store_true", help="print every wrong frame")
    parser.add_argument("--construction", action="append", default=[],
                        help="only turns of this construction (repeatable)")
    args = parser.parse_args(argv)
    directory = args.directory or default_corpus_dir()
    files = [f for f in corpus_files(directory) if (f.name == "heldout.yaml") == args.heldout]
    turns = load_corpus(files)
    if args.construction:
        turns = [t for t in turns if t.construction in args.construction]
    proposer = RuleProposer(warm_at=datetime.fromisoformat(DEFAULT_CLOCK))
    score = evaluate(proposer, turns)
    if args.misses:
        for miss in score.misses:
            print(describe_miss(miss))
    for name in sorted(score.per_construction,
                       key=lambda c: score.per_construction_right[c] / score.per_construction[c]):
        print(f"  {name:32s} {score.per_construction_right[name]:3d}/"
              f"{score.per_construction[name]}")
    print(f"{len(turns)} turns: frame accuracy {score.frame_accuracy:.3f}, "
          f"intent {score.intents_right / max(1, score.turns):.3f}, "
          f"correction kind {score.kinds_right / max(1, score.turns):.3f}")
    return 0


# -- amend eval-nlu --------------------------------------------------------------------------
TOP_REJECTIONS = 5  # reason codes printed, most frequent first


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0 < q <= 100) of ``values``; 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def report_lines(settings: ProposerSettings, score: Score,
                 stats: ModelStats | None) -> list[str]:
    """What ``amend eval-nlu`` prints after the misses: one figure a line (see its help)."""
    lines = [settings.describe() + (" (the baseline)" if settings.kind == "rules" else ""),
             f"turns: {score.turns}",
             f"frame accuracy: {score.frame_accuracy:.3f} ({score.frames_right}/{score.turns})"]
    if stats is None:
        return lines
    asked = (f"model asked: {stats.asked} of {stats.turns} turns "
             f"({_share(stats.asked, stats.turns)})")
    if settings.kind == "hybrid":
        asked += ", the turns the rules could not settle"
    top = ", ".join(f"{code} {n}" for code, n in
                    sorted(score.rejections.items(), key=lambda kv: (-kv[1], kv[0]))
                    [:TOP_REJECTIONS])
    ms = [s * 1000 for s in stats.seconds]
    lines += [
        asked,
        f"model reading used: {stats.used} of {stats.turns} turns "
        f"({_share(stats.used, stats.turns)})",
        f"rejection rate: {_share(stats.rejected, stats.asked)} "
        f"({stats.rejected} of {stats.asked} asked)",
        f"top rejection reasons: {top or '-'}",
        f"model latency: p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms "
        f"({len(ms)} asks)",
    ]
    return lines


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "n/a"


async def run_eval(settings: ProposerSettings, turns: Sequence[LabelledTurn]
                   ) -> tuple[Score, ModelStats | None]:
    """Score the proposer ``settings`` describe on ``turns``, one turn at a time on this
    event loop; its model client is closed on return. The stats are a model's (else None)."""
    from agent.understanding.nlu.proposer import RuleProposer

    rules = RuleProposer(warm_at=datetime.fromisoformat(DEFAULT_CLOCK))
    async with open_proposer(settings, rules) as proposer:
        score = await evaluate_async(proposer, turns)
    stats = getattr(proposer, "stats", None)
    return score, stats if isinstance(stats, ModelStats) else None


@click.command("eval-nlu")
@click.argument("directory", required=False,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--heldout", is_flag=True,
              help="Score heldout.yaml only (default: the development files).")
@click.option("--misses", type=click.IntRange(min=0), default=0, show_default=True,
              metavar="N", help="First print the first N wrong frames beside their labels.")
@proposer_options
def eval_nlu(directory: Path | None, heldout: bool, misses: int,
             proposer_settings: ProposerSettings) -> None:
    """Score a proposer on the labelled understanding corpus (docs/understanding.md).

    DIRECTORY holds the corpus files (default: the shipped corpus). Prints the proposer,
    "turns: N" and "frame accuracy: A (right/N)"; for --proposer llm or hybrid also "model
    asked" (hybrid: the share of turns the rules could not settle), "model reading used",
    "rejection rate" (refused / asked: timeouts, failures, replies that are not a proposal
    or fail validation), "top rejection reasons" (by code) and "model latency" p50/p95 in ms.
    Turns are read one at a time; nothing is written.
    """
    folder = directory or default_corpus_dir()
    try:
        turns = load_corpus(f for f in corpus_files(folder)
                            if (f.name == "heldout.yaml") == heldout)
    except CorpusError as exc:
        raise click.ClickException(str(exc)) from None
    if not turns:
        raise click.UsageError(f"no corpus turns in {folder}"
                               + (" (heldout.yaml)" if heldout else ""))
    score, stats = asyncio.run(run_eval(proposer_settings, turns))
    for miss in score.misses[:misses]:
        click.echo(describe_miss(miss))
    for line in report_lines(proposer_settings, score, stats):
        click.echo(line)


if __name__ == "__main__":
    raise SystemExit(main())
