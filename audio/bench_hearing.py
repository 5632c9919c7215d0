"""Hearing real voices: first-word retention and calibrated trust over the voice set.

Figures (reported, never asserted here; ``tests/test_audio_voices.py`` asserts a small
subset):

* **first-word retention** per voice of :mod:`audio.voices` and overall, with the configured
  pre-roll and without any, measured in one run: each voice is one scripted call through the
  real pipeline (Silero VAD, :class:`~audio.services.SharedWhisperSTT`, the end-of-turn
  strategy, the adapter), the calls one after another in this process, each turn one phrase
  of :data:`audio.corpus.OPENINGS` played in real time. A first word counts as kept when the
  turn's transcript starts with it (:func:`audio.corpus.first_word_fate`). Beside it, the
  same share among the turns whose first word Whisper hears when given the whole clip,
  unclipped (:func:`unclipped`): that share isolates what the pipeline's cut loses (the
  pre-roll's job) from what tiny.en mishears in a voice wherever the clip starts;
* **calibrated trust** (:mod:`agent.understanding.trust`) over turns that carry values, said by a
  caller who owns P-100 and P-200: the rate of check questions on correct transcripts, and the
  values accepted without a check that the caller did not say, beside the same figures under the old
  rule (mean confidence < 0.6). Each turn is recognised as the pipeline recognises a
  one-segment turn (:func:`audio.services.recognise` over pre-roll, clip, trailing silence),
  then read by the real proposer and validated by the controller's own ``validate``. A
  transcript is correct when the values the proposer reads in it are the values it reads in
  the reference text. The turns: every voice of the set saying
  :data:`audio.corpus.EXPECTED_VALUES` and :data:`audio.corpus.UNEXPECTED_VALUES`, and the
  base voices saying the expected ones again under heavy noise (:data:`CORRUPTED`). The same
  two figures again on each held-out set (:func:`held_out_turns`, full run only): phrasings
  and voices written after the thresholds were set, so the calibration is also judged on
  callers it has not met (the third to the seventh written from ``docs/`` alone, each after
  the rules the sets before it shaped). A transcript
  whose values are right may still be badly heard ("The afternoon sold snee-bait up"); the
  check rate is also given over the turns heard *word for word* (the same words as said,
  once written alike: :func:`heard_word_for_word`), where a check question is wasted.

:func:`hearing_rows` returns the rows; ``audio/bench.py`` adds them to the ``audio`` group.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import cast

import numpy as np

from agent.bench import BenchInputError, BenchRow, option
from agent.core.caller import Asset, CallerProfile
from agent.core.ledger import FieldOpKind, Ledger
from agent.core.ports import BookingPort
from agent.core.speech import SpeechSink, Utterance
from agent.core.trace import Trace
from agent.understanding.proposals import Proposal, ProposalContext, SlotValue
from audio import corpus, voices

CMD = "amend bench --only audio"
CMD_QUICK = "amend bench --only audio --quick"
CMD_TRUST = "amend bench --only trust"
VOICE_SET = "voice-set"  # the voice set's name among the evidence files (trust-<name>.jsonl)
# The docs' corpus caller `acme` and the demo's Acme personas: a blind writer of held-out turns
# reads of its pumps in Rotterdam and Utrecht, so "the one in Utrecht" names P-200 here too.
CALLER = CallerProfile(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
            Asset("P-200", "C1", "EU", "4 Canal Street, Utrecht", kind="pump")))
# Deliberately corrupted turns: the base voices under noise far above the voice set's 20 dB.
CORRUPTED = (("white", 5.0), ("pink", 0.0))
SETTLE_AUDIO_SECS = 1.5  # caller audio after a clip by which every turn of it has ended
LEAD_SECS = 0.5  # silence the 1 s pre-roll leaves before speech whose onset fired 0.25-0.5 s in


# -- first-word retention ---------------------------------------------------------------------

class Listener:
    """A Conversation that keeps every turn and says nothing: the pipeline alone is measured.
    It exposes ``caller`` so recognition is biased with the caller's assets, as in a call."""

    def __init__(self, sink: SpeechSink, trace: Trace) -> None:
        from agent.core.speech import Generations

        self.sink, self.trace, self.caller = sink, trace, CALLER
        self.generations = Generations()
        self.turns: list[Utterance] = []
        self._ledger = Ledger("q-hearing")

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    @property
    def busy(self) -> bool:
        return False

    async def start(self) -> None:
        return None

    async def user_turn(self, utterance: Utterance) -> None:
        self.turns.append(utterance)

    def barge_in(self) -> None:
        return None

    async def wait_idle(self) -> None:
        return None

    async def close(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Opening:
    """One phrase said in one voice, and what became of its first word."""

    voice: str
    preroll: float
    said: str
    heard: tuple[str, ...]  # the turns the agent received for it (more than one: split)
    fate: str  # kept | garbled | dropped


async def _turns_for(call, listener: Listener, audio) -> tuple[str, ...]:
    """Play ``audio`` and return the turns it became, once SETTLE_AUDIO_SECS of caller audio
    passed after it and nothing of it is still being recognised or assembled."""
    before = len(listener.turns)
    said = await call.say(audio)
    try:  # (the bound is on a hung model; never reached in a good run)
        await asyncio.wait_for(call.settled_after(said, SETTLE_AUDIO_SECS), 30.0)
    except TimeoutError:
        pass
    await call.pipeline.adapter.wait_turns()
    return tuple(u.text for u in listener.turns[before:])


async def _one_voice(voice: voices.Voice, phrases: tuple[str, ...],
                     preroll: float) -> list[Opening]:
    from audio.live_call import LiveCall
    from audio.pipeline import PipelineConfig

    out = []
    async with LiveCall(Listener, config=PipelineConfig(preroll_secs=preroll)) as call:
        listener = call.conversation
        assert isinstance(listener, Listener)  # LiveCall built it with Listener
        for phrase in phrases:
            audio = await asyncio.to_thread(voices.speak, voice, phrase)  # other calls run
            heard = await _turns_for(call, listener, audio)
            out.append(Opening(voice.name, preroll, phrase, heard,
                               corpus.first_word_fate(phrase, " ".join(heard))))
    return out


RETENTION_CALLS = 4  # calls at once: each plays in real time and mostly waits


def retention(voice_list: tuple[voices.Voice, ...], phrases: tuple[str, ...],
              prerolls: tuple[float, ...], *, at_once: int = RETENTION_CALLS
              ) -> list[Opening]:
    """Every phrase in every voice, one call per (voice, pre-roll), ``at_once`` calls at a
    time in this process (a call plays its audio in real time; the first word's fate depends
    on the VAD's onset, in audio time, not on how busy the machine is). In input order."""
    async def run() -> list[Opening]:
        gate = asyncio.Semaphore(at_once)

        async def one(voice: voices.Voice, preroll: float) -> list[Opening]:
            async with gate:
                return await _one_voice(voice, phrases, preroll)

        done = await asyncio.gather(*(one(v, p) for v in voice_list for p in prerolls))
        return [o for call in done for o in call]

    return asyncio.run(run())


def kept_share(openings: list[Opening]) -> float:
    return sum(o.fate == "kept" for o in openings) / len(openings) if openings else 0.0


def unclipped(openings: list[Opening], voice_list: tuple[voices.Voice, ...]) -> list[Opening]:
    """The openings whose first word Whisper hears in the whole clip, recognised as a
    one-segment turn (:func:`heard_as_in_a_call`): no VAD, nothing cut. A first word lost
    there is lost to the recogniser, not to the pipeline (blocking; the shared model)."""
    by_name = {v.name: v for v in voice_list}
    hotwords = caller_hotwords()
    whole: dict[tuple[str, str], str] = {}
    for o in openings:
        if (o.voice, o.said) not in whole:
            heard = heard_as_in_a_call(voices.speak(by_name[o.voice], o.said).samples,
                                       hotwords)
            whole[o.voice, o.said] = corpus.first_word_fate(o.said, heard.text)
    return [o for o in openings if whole[o.voice, o.said] == "kept"]


# -- calibrated trust -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Judged:
    """One value-carrying turn: what was heard, and what the agent did with its values."""

    voice: str
    kind: str  # expected | unexpected | corrupted
    said: str
    heard: str
    confidence: float
    correct: bool  # the values read in the transcript are the values said
    checked: bool  # the agent checks before acting on its values (agent/understanding/trust.py)
    checked_before: bool  # ... under the old rule (mean confidence < 0.6)
    accepted: tuple[str, ...]  # "field=value" accepted without a check
    accepted_before: tuple[str, ...]  # ... under the old rule
    reference: tuple[str, ...]  # "field=value" read in what was said
    verbatim: bool = False  # heard word for word (heard_word_for_word)
    unexpected: tuple[str, ...] = ()  # those of the reference the call does not expect
    weakest: float | None = None  # the faintest value word
    reason: str = ""
    # "field=value" validation sets from what was said, as typed: what it derives from a value
    # said (12:00 -> the morning window) is no value the caller did not say
    derived: tuple[str, ...] = ()
    # what the recogniser knew beyond the text (agent.core.speech.Utterance), so a turn can be
    # judged again by later rules without being recognised again (:func:`replay_evidence`)
    words: tuple[tuple[str, float], ...] = ()
    no_speech: float = 0.0
    answer: float | None = None

    @property
    def wrong_accepted(self) -> tuple[str, ...]:
        """Values accepted without a check that the caller did not say."""
        return tuple(v for v in self.accepted if v not in (*self.reference, *self.derived))

    @property
    def wrong_accepted_before(self) -> tuple[str, ...]:
        return tuple(v for v in self.accepted_before
                     if v not in (*self.reference, *self.derived))


@dataclass
class _Reader:
    """The real proposer and validation, for a caller who owns P-100 and P-200."""

    now: datetime = field(default_factory=lambda: datetime.fromisoformat(corpus.VALUE_CLOCK))

    def __post_init__(self) -> None:
        from agent.understanding.nlu.proposer import RuleProposer

        self.proposer = RuleProposer(self.now)
        self.context = ProposalContext(now=self.now, ledger=Ledger("q-trust").current,
                                       caller=CALLER)

    def values(self, text: str) -> tuple[SlotValue, ...]:
        """The values the proposer reads in ``text`` (as if typed)."""
        return self._values_of(self.proposer.propose(Utterance(text), self.context))

    @staticmethod
    def _values_of(proposal: Proposal) -> tuple[SlotValue, ...]:
        from agent.understanding.trust import VALUE_FIELDS

        return tuple(s for s in proposal.slots
                     if s.value is not None and s.field in VALUE_FIELDS)

    def judge(self, voice: str, kind: str, said: str, utterance: Utterance) -> Judged:
        from agent.service.validation import validate
        from agent.understanding import trust

        read_said = self.proposer.propose(Utterance(said), self.context)
        reference = self._values_of(read_said)
        proposal = self.proposer.propose(utterance, self.context)
        expect = trust.expected(self.context)
        verdict = trust.judge(utterance, proposal.slots, expect,
                              proposal_confidence=proposal.confidence,
                              withdrawn=proposal.withdrawn)
        checked = bool(proposal.slots) and not verdict.clear
        before = bool(proposal.slots) and min(proposal.confidence,
                                              utterance.confidence) < trust.CONFIDENCE_FLOOR

        def accepted(uncertain: bool, read: Proposal = proposal) -> tuple[str, ...]:
            # A cast: validate() asks for a whole BookingPort but reads only get() (for a
            # named booking), which is all _NoBookings has.
            no_bookings = cast(BookingPort, _NoBookings())
            result = asyncio.run(validate(read, self.context.ledger, CALLER, self.now,
                                          no_bookings, "utterance:bench",
                                          uncertain=uncertain))
            return tuple(f"{op.name}={op.value}" for op in result.ops
                         if op.kind is FieldOpKind.SET and op.value)

        def named(slots) -> tuple[str, ...]:
            return tuple(f"{s.field}={s.value}" for s in slots)

        return Judged(voice, kind, said, utterance.text, utterance.confidence,
                      set(named(self.values(utterance.text))) == set(named(reference)),
                      checked, before,
                      accepted(checked), accepted(before), named(reference),
                      heard_word_for_word(said, utterance.text),
                      named(s for s in reference if not trust.is_expected(s, expect)),
                      verdict.weakest, verdict.reason,
                      accepted(False, read_said),
                      tuple(utterance.words), utterance.no_speech, utterance.answer)


def heard_word_for_word(said: str, heard: str) -> bool:
    """Whether ``heard`` has the words of ``said``, in order, once both are written alike
    (the proposer's normalising: case, punctuation, "eleven" and "11", "P-200" and "P 200",
    and where the spaces fall: "two pm" and "2pm", "ten thirty" and "1030")."""
    from agent.understanding.nlu.normalise import normalise

    def words(text: str) -> str:
        return "".join(re.findall(r"[a-z0-9]+", normalise(text)))

    return words(said) == words(heard)


class _NoBookings:
    """A booking port for turns that name no booking (validation never reads it then)."""

    async def get(self, ref: str) -> None:
        return None

    async def bookings(self):
        return ()


def caller_hotwords() -> str | None:
    """The hotwords of :data:`CALLER`'s calls: its asset ids and sites (audio/biasing.py)."""
    from audio.biasing import hotwords_for

    return hotwords_for([a.id for a in CALLER.assets], sites=[a.site for a in CALLER.assets])


def heard_as_in_a_call(audio: np.ndarray, hotwords: str | None) -> Utterance:
    """What the pipeline hands the agent for a one-segment turn of ``audio``: Whisper over
    the lead-in the pre-roll leaves before the speech (:data:`LEAD_SECS`), the clip and the
    trailing silence."""
    from audio import services

    pad = np.zeros(int(LEAD_SECS * 16000), dtype=np.float32)
    tail = np.zeros(int(0.5 * 16000), dtype=np.float32)
    heard = services.recognise(np.concatenate([pad, audio, tail]), hotwords=hotwords)
    return Utterance(heard.text, heard.confidence, words=heard.words,
                     no_speech=heard.no_speech, answer=heard.answer)


def trust_turns(voice_list: tuple[voices.Voice, ...],
                corrupted: tuple[voices.Voice, ...]) -> list[tuple[voices.Voice, str, str]]:
    """(voice, kind, text) of every turn the trust figures are measured on."""
    return (_said_by(voice_list, "expected", corpus.EXPECTED_VALUES)
            + _said_by(voice_list, "unexpected", corpus.UNEXPECTED_VALUES)
            + _said_by(corrupted, "corrupted", corpus.EXPECTED_VALUES))


def held_out_turns(n: int = 1) -> list[tuple[voices.Voice, str, str]]:
    """(voice, kind, text) of the ``n``-th held-out set (:data:`audio.corpus.HELD_OUT_SETS`,
    :func:`audio.voices.held_out_voices`): phrasings and voices no threshold was set on. The
    second was written and voiced after trust.py's last rule of the time; the third to the
    ninth from ``docs/`` alone by someone who had read no code, each after the rules the
    sets before it shaped."""
    return _said_by(voices.held_out_voices(n), "expected", corpus.HELD_OUT_SETS[n - 1])


def _said_by(voice_list: tuple[voices.Voice, ...], kind: str,
             texts: tuple[str, ...]) -> list[tuple[voices.Voice, str, str]]:
    """(voice, kind, text): every voice of ``voice_list`` saying every one of ``texts``."""
    return [(v, kind, t) for v in voice_list for t in texts]


def corrupted_voices(bases: tuple[voices.Voice, ...]) -> tuple[voices.Voice, ...]:
    return tuple(replace(b, name=f"{b.name} {kind} {snr:g}dB", noise=kind, snr_db=snr)
                 for b in bases for kind, snr in CORRUPTED)


def judge_all(turns: list[tuple[voices.Voice, str, str]]) -> list[Judged]:
    """Recognise and judge every turn (blocking; the shared Whisper model)."""
    reader = _Reader()
    hotwords = caller_hotwords()
    return [reader.judge(v.name, kind, text,
                         heard_as_in_a_call(voices.speak(v, text).samples, hotwords))
            for v, kind, text in turns]


def write_evidence(name: str, judged: list[Judged]) -> Path | None:
    """With ``amend bench --evidence DIR``: every judged turn of one set as a JSON line in
    ``DIR/trust-<name>.jsonl`` (side effect: writes the file whole or not at all), so the turns
    behind a figure, a wrong value accepted above all, can be read and replayed."""
    folder = option("evidence")
    if folder is None:
        return None
    path = Path(folder) / f"trust-{name}.jsonl"
    part = path.with_name(path.name + ".part")
    try:
        with part.open("w", encoding="utf-8") as out:
            for j in judged:
                out.write(json.dumps({**asdict(j), "wrong_accepted": list(j.wrong_accepted)})
                          + "\n")
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)  # a failed write leaves no part file behind
        raise
    return path


class EvidenceError(BenchInputError):
    """An evidence file that cannot be replayed: names the file, the line and what to do."""


def replay_evidence(path: Path) -> list[Judged]:
    """The turns of one evidence file (:func:`write_evidence`) judged again by the rules as
    they are now, from the transcripts and word scores recorded, without recognising them
    again (``amend bench --only trust --replay DIR``). Raises :class:`EvidenceError`."""
    reader = _Reader()
    judged = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise EvidenceError(f"{path}: cannot be read ({exc}); write it again with "
                            "amend bench --only trust --evidence DIR") from None
    for n, line in enumerate(lines, 1):
        try:
            turn = json.loads(line)
            utterance = Utterance(str(turn["heard"]), float(turn["confidence"]),
                                  words=tuple((str(w), float(p)) for w, p in turn["words"]),
                                  no_speech=float(turn["no_speech"]),
                                  answer=None if turn["answer"] is None else float(turn["answer"]))
            judged.append(reader.judge(str(turn["voice"]), str(turn["kind"]), str(turn["said"]),
                                       utterance))
        except (ValueError, KeyError, TypeError) as exc:
            raise EvidenceError(
                f"{path}, line {n}: not a turn written by amend bench --evidence ({exc!r}); "
                "write the folder again with amend bench --only trust --evidence DIR") from None
    return judged


def replay_rows(folder: Path, cmd: str = CMD_TRUST) -> list[BenchRow]:
    """The trust rows of every set in ``folder`` judged again (:func:`replay_evidence`): the
    voice set's and each held-out set's, then all held-out sets together."""
    files = sorted(folder.glob("trust-*.jsonl"))
    if not files:
        raise EvidenceError(f"{folder}: holds no trust-*.jsonl; write them with "
                            "amend bench --only trust --evidence DIR")
    rows: list[BenchRow] = []
    every: list[Judged] = []
    held_out = 0
    for path in files:
        judged = replay_evidence(path)
        name = path.stem.removeprefix("trust-")
        if name == VOICE_SET:
            rows += _trust_rows(judged, cmd)
            continue
        every += judged
        held_out += 1
        rows += _trust_rows(judged, cmd, held_out=f"{name} (replayed)")
    if every:
        rows += _trust_rows(every, cmd, held_out=f"all {held_out} replayed held-out")
    return rows


def check_rate(judged: list[Judged], *, before: bool = False,
               verbatim: bool = False) -> tuple[float, int]:
    """Share of correct transcripts of expected values that were checked, and their count
    (``verbatim``: of those heard word for word)."""
    correct = [j for j in judged if j.kind == "expected" and j.correct
               and (j.verbatim or not verbatim)]
    if not correct:
        return 0.0, 0
    return sum(j.checked_before if before else j.checked for j in correct) / len(correct), \
        len(correct)


def wrong_accepted(judged: list[Judged], *, before: bool = False) -> int:
    """Turns with a value accepted without a check that the caller did not say."""
    return sum(bool(j.wrong_accepted_before if before else j.wrong_accepted) for j in judged)


def unexpected_accepted(judged: list[Judged], *, before: bool = False) -> int:
    """Turns whose value the call does not expect was accepted without a check."""
    return sum(bool(set(j.unexpected) & set(j.accepted_before if before else j.accepted))
               for j in judged)


# -- the rows ---------------------------------------------------------------------------------

def hearing_rows(quick: bool) -> list[BenchRow]:
    """The rows of both figures (side effects: loads the models, plays real-time calls)."""
    from audio import services

    cmd = CMD_QUICK if quick else CMD
    try:
        voices.require_tools()
    except voices.VoiceToolsMissing as exc:
        return [BenchRow("first-word retention and trust on the voice set: not measured",
                         str(exc), "", "", cmd)]
    services.warm()
    voice_list = voices.BASES if quick else voices.voice_set()
    phrases = corpus.OPENINGS[:3] if quick else corpus.OPENINGS[:6]
    openings = retention(voice_list, phrases, (services.PREROLL_SECS, 0.0))
    audible = unclipped([o for o in openings if o.preroll > 0], voice_list)
    return _retention_rows(openings, audible, voice_list, cmd) + trust_rows(quick, cmd)


_ORDINALS = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth")
_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
          "seventeenth", "eighteenth", "nineteenth")
_TENS = ("", "", "twent", "thirt", "fort", "fift", "sixt", "sevent", "eight", "ninet")


def held_out_name(n: int) -> str:
    """How the ``n``-th held-out set is named in its rows: "" for the first (its rows predate
    the others), then "second" ... "twenty-eighth" ... "ninety-ninth". Any set the corpus holds
    has a name: a set added is never a crash at the end of an hour's run."""
    if not 1 <= n <= 99:
        raise ValueError(f"held-out set {n}: sets are numbered 1 to 99")
    if n == 1:
        return ""
    if n < 10:
        return _ORDINALS[n]
    if n < 20:
        return _TEENS[n - 10]
    tens, units = divmod(n, 10)
    return f"{_TENS[tens]}ieth" if units == 0 else f"{_TENS[tens]}y-{_ORDINALS[units]}"


def trust_rows(quick: bool, cmd: str = CMD_TRUST) -> list[BenchRow]:
    """The calibrated-trust rows alone (``amend bench --only trust``; side effects: loads the
    models): the voice set, its corrupted turns and, on a full run, every held-out set."""
    from audio import services

    replay = option("replay")
    if replay is not None:
        return replay_rows(Path(replay), cmd)
    try:
        voices.require_tools()
    except voices.VoiceToolsMissing as exc:
        return [BenchRow("calibrated trust on the voice set: not measured", str(exc), "", "",
                         cmd)]
    services.warm()
    voice_list = voices.BASES if quick else voices.voice_set()
    judged = judge_all(trust_turns(voice_list, corrupted_voices(voices.BASES)))
    write_evidence(VOICE_SET, judged)
    rows = _trust_rows(judged, cmd)
    named = () if quick else tuple(v for bases, _, _ in voices.HELD_OUT[16:] for v in bases)
    rows += answer_rows(voice_list + named, cmd)
    if not quick:
        every: list[Judged] = []
        for n in range(1, len(corpus.HELD_OUT_SETS) + 1):
            judged = judge_all(held_out_turns(n))
            write_evidence(f"held-out-{n:02d}", judged)
            every += judged
            rows += _trust_rows(judged, cmd, held_out=f"{held_out_name(n)} held-out".lstrip())
        rows += _trust_rows(every, cmd, held_out=f"all {len(corpus.HELD_OUT_SETS)} held-out")
    return rows


@dataclass(frozen=True, slots=True)
class Answered:
    """One spoken answer to a check, as the agent judged it."""

    meant: str  # "yes" or "no"
    heard: str  # "yes", "no" or "other": the answer the words give
    clear: bool  # acted on without asking again
    clear_without_share: bool  # the same, without Utterance.answer


def answer_rows(voice_list: tuple[voices.Voice, ...], cmd: str = CMD_TRUST) -> list[BenchRow]:
    """Yes/no answers to a check (:data:`audio.corpus.ANSWERS`) spoken in each voice, heard as
    in a call and judged with the check on the table: how often a right answer is asked about
    again, with and without the answer's share against the other (``Utterance.answer``), and
    how often an answer heard as the other one is taken (side effect: loads the models)."""
    hotwords = caller_hotwords()
    answered = [answered_as(voice, said, meant, hotwords) for voice in voice_list
                for said, meant in corpus.ANSWERS]
    right = [a for a in answered if a.heard == a.meant]
    asked = sum(not a.clear for a in right) / len(right) if right else 0.0
    asked_before = sum(not a.clear_without_share for a in right) / len(right) if right else 0.0
    wrong = sum(a.clear for a in answered if a.heard not in (a.meant, "other"))
    where = f"{len(answered)} answers in {len(voice_list)} voices"
    return [
        BenchRow(f"check questions on yes/no answers to a check heard right ({where}, "
                 f"{len(right)} heard right; without the answer's share against the other: "
                 f"{asked_before:.3f})", round(asked, 3), "fraction", "≤ 0.10", cmd),
        BenchRow(f"yes/no answers to a check taken as the other answer without a check "
                 f"({where})", wrong, "turns", "0", cmd),
    ]


def answered_as(voice: voices.Voice, said: str, meant: str, hotwords: str | None) -> Answered:
    """``said`` in ``voice``, heard as in a call, judged as the agent judges the answer to the
    check "Did you mean Friday 4 December, P-200?": a yes that takes the two values the check
    named is judged as the yes alone, since it says none of them (the validate step of
    agent/service/turn_steps.py), and so is a no."""
    from agent.understanding import trust
    from agent.understanding.nlu import intents
    from agent.understanding.proposals import Intent

    heard = heard_as_in_a_call(voices.speak(voice, said).samples, hotwords)
    intent = intents.answer_intent(heard.text.lower())
    given = "yes" if intent is Intent.YES else "no" if intent is Intent.NO else "other"
    expect = trust.Expected(frozenset(a.id for a in CALLER.assets), None, answer=True,
                            offered=frozenset({"P-200", "2026-12-04"}))
    return Answered(meant, given, trust.judge(heard, (), expect).clear,
                    trust.judge(replace(heard, answer=None), (), expect).clear)


def _retention_rows(openings: list[Opening], audible: list[Opening], voice_list,
                    cmd: str) -> list[BenchRow]:
    from audio.services import PREROLL_SECS

    with_pre = [o for o in openings if o.preroll > 0]
    without = [o for o in openings if o.preroll == 0]
    rows = []
    for voice in voice_list:
        mine = [o for o in with_pre if o.voice == voice.name]
        bare = [o for o in without if o.voice == voice.name]
        rows.append(BenchRow(
            f"first word kept, {voice.name} ({len(mine)} turns; without pre-roll "
            f"{kept_share(bare):.2f})", round(kept_share(mine), 3), "fraction", "≥ 0.98", cmd))
    dropped = sum(o.fate == "dropped" for o in with_pre)
    rows += [
        BenchRow(f"first word kept, all voices, pre-roll {PREROLL_SECS:g} s ({len(with_pre)} "
                 f"turns, {dropped} dropped)", round(kept_share(with_pre), 3), "fraction",
                 "≥ 0.98", cmd),
        BenchRow(f"first word kept where Whisper hears it in the unclipped clip, pre-roll "
                 f"{PREROLL_SECS:g} s ({len(audible)} of {len(with_pre)} turns)",
                 round(kept_share(audible), 3), "fraction", "≥ 0.98", cmd),
        BenchRow(f"first word kept, all voices, no pre-roll ({len(without)} turns, "
                 f"{sum(o.fate == 'dropped' for o in without)} dropped)",
                 round(kept_share(without), 3), "fraction", "report", cmd),
        BenchRow("turns split in two or more (pre-roll on)",
                 sum(len(o.heard) > 1 for o in with_pre), "turns", "0", cmd),
    ]
    return rows


def _trust_rows(judged: list[Judged], cmd: str, *, held_out: str = "") -> list[BenchRow]:
    rate, correct = check_rate(judged)
    rate_before, _ = check_rate(judged, before=True)
    verbatim, heard = check_rate(judged, verbatim=True)
    verbatim_before, _ = check_rate(judged, before=True, verbatim=True)
    expected = [j for j in judged if j.kind == "expected"]
    unexpected = [j for j in judged if j.kind == "unexpected"]
    where = f"{held_out} phrasings and voices, " if held_out else ""
    word_for_word = BenchRow(
        f"check questions on transcripts heard word for word, {where}{heard} turns (old rule "
        f"{verbatim_before:.2f})", round(verbatim, 3), "fraction", "≤ 0.10", cmd)
    if held_out:
        where = f"{held_out} phrasings and voices, {len(judged)} turns"
        return [
            BenchRow(f"check questions on correct transcripts, {where} ({correct} correct; "
                     f"old rule {rate_before:.2f})", round(rate, 3), "fraction", "≤ 0.10", cmd),
            word_for_word,
            BenchRow(f"wrong values accepted without a check, {where} (old rule "
                     f"{wrong_accepted(judged, before=True)})", wrong_accepted(judged), "turns",
                     "0", cmd),
        ]
    return [
        BenchRow(f"check questions on correct transcripts ({correct} of {len(expected)} "
                 f"value turns correct; old rule {rate_before:.2f})", round(rate, 3),
                 "fraction", "≤ 0.10", cmd),
        word_for_word,
        BenchRow(f"wrong values accepted without a check ({len(judged)} value turns, "
                 f"{sum(j.kind == 'corrupted' for j in judged)} corrupted; old rule "
                 f"{wrong_accepted(judged, before=True)})", wrong_accepted(judged), "turns",
                 "0", cmd),
        BenchRow(f"unexpected values accepted without a check ({len(unexpected)} turns; old "
                 f"rule {unexpected_accepted(judged, before=True)})",
                 unexpected_accepted(judged), "turns", "0", cmd),
    ]
