"""Calibrated trust (agent/understanding/trust.py): when a recognised turn's values are acted
on without a check. Pure unit tests, then the proposer and the controller with the verdict in
place."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

import pytest

from agent.core.caller import Asset, CallerProfile
from agent.core.ledger import Ledger
from agent.core.names import ASSET, OPENED, UNITS, VISIT_DATE, VISIT_TIME, VISIT_WINDOW
from agent.core.speech import Utterance
from agent.understanding import heard_numbers, trust
from agent.understanding.nlu.proposer import RuleProposer
from agent.understanding.proposals import CorrectionKind, ProposalContext, SlotValue
from tests.controller_support import call

NOW = datetime.fromisoformat("2026-12-01T09:00:00+01:00")  # a Tuesday
CALLER = CallerProfile(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
            Asset("P-200", "C1", "EU", "4 Dock Street, Rotterdam", kind="pump")))
EXPECT = trust.Expected(assets=frozenset({"P-100", "P-200"}), today=date(2026, 12, 1))
BOOK = (SlotValue(ASSET, "P-200", "p 200"), SlotValue(VISIT_DATE, "2026-12-03", "thursday"),
        SlotValue(VISIT_WINDOW, "afternoon", "afternoon"))


def heard(text: str, confidence: float, probabilities: dict[str, float] | None = None, *,
          default: float = 0.9, no_speech: float = 0.02) -> Utterance:
    """An utterance as the recogniser gives it: every word at ``default`` unless named."""
    probabilities = probabilities or {}
    words = tuple((w, probabilities.get(w, default)) for w in text.split())
    return Utterance(text, confidence, words=words, no_speech=no_speech)


SAID = "please book pump P 200 for Thursday afternoon"


def test_a_typed_turn_is_never_checked():
    assert trust.judge(Utterance(SAID), BOOK, EXPECT).clear


def test_without_word_detail_the_confidence_floor_decides_as_before():
    assert not trust.judge(Utterance(SAID, 0.45), BOOK, EXPECT).clear
    assert trust.judge(Utterance(SAID, 0.65), BOOK, EXPECT).clear


def test_expected_values_heard_clearly_are_trusted_below_the_confidence_floor():
    verdict = trust.judge(heard(SAID, 0.55, {"please": 0.2, "book": 0.3}), BOOK, EXPECT)
    assert verdict.clear, verdict
    assert verdict.weakest == pytest.approx(0.9)


def test_below_the_floor_a_stretch_of_faint_words_is_checked():
    """Vouching trusts the values and lets the filler be faint; a stretch of FAINT_STRETCH
    words in a row heard below CUE_WORD is a stretch the recogniser did not hear, and it may
    have held a value ("Our yard's shut on Friday, so would Thursday work for the Utrecht
    pump" heard as "I got a shot on Friday, so it was only work for the Utrecht pump", "it was
    only" at 0.40, 0.29, 0.46: Friday read; held-out set 16)."""
    said = "so it was only work for pump P 200 on Thursday afternoon"
    faint = {"it": 0.4, "was": 0.29, "only": 0.46}
    assert not trust.judge(heard(said, 0.55, faint), BOOK, EXPECT).clear
    assert trust.judge(heard(said, 0.55, {"it": 0.4, "was": 0.29}), BOOK, EXPECT).clear
    # split by a word heard well, two faint stretches are no stretch of three
    assert trust.judge(heard(said, 0.55, {**faint, "was": 0.6}), BOOK, EXPECT).clear


def test_below_the_floor_every_value_word_must_be_heard_well():
    assert not trust.judge(heard(SAID, 0.55, {"Thursday": 0.6}), BOOK, EXPECT).clear
    assert not trust.judge(heard(SAID, 0.45), BOOK, EXPECT).clear  # too unclear overall


def test_a_cue_word_heard_faintly_before_a_value_is_checked_below_the_floor():
    # "Sorry, Thursday morning, not Wednesday" heard as "... that Wednesday": the cue that
    # made Wednesday the old value was lost; its stand-in was heard faintly.
    slots = (SlotValue(VISIT_DATE, "2026-12-02", "wednesday"),
             SlotValue(VISIT_WINDOW, "morning", "morning"))
    said = "sorry here's the morning that Wednesday"
    assert not trust.judge(heard(said, 0.58, {"that": 0.44}), slots, EXPECT).clear
    assert trust.judge(heard(said, 0.58), slots, EXPECT).clear


def test_a_value_word_heard_faintly_is_checked_even_at_a_high_confidence():
    verdict = trust.judge(heard(SAID, 0.8, {"200": 0.2}), BOOK, EXPECT)
    assert not verdict.clear
    assert verdict.weakest == pytest.approx(0.2)
    assert not trust.judge(heard(SAID, 0.8, {"Thursday": 0.2}), BOOK, EXPECT).clear


def test_an_own_asset_is_carried_by_its_number_when_no_other_asset_shares_it():
    # A faint "P" before a clear "200" names P-200 and nothing else the caller owns...
    verdict = trust.judge(heard(SAID, 0.8, {"P": 0.2}), BOOK, EXPECT)
    assert verdict.clear, verdict
    # ... but not when another asset of theirs has that number: the letter tells them apart.
    twins = trust.Expected(frozenset({"P-200", "V-200"}), EXPECT.today)
    assert not trust.judge(heard(SAID, 0.8, {"P": 0.2}), BOOK, twins).clear
    assert not trust.judge(heard(SAID, 0.8, {"200": 0.2}), BOOK, EXPECT).clear


def test_a_value_named_twice_is_as_well_heard_as_its_faintest_mention():
    # "I said the 16th but I meant the 18th" reads one date from two mentions: the value
    # may have been corrected in between, so a faint mention is checked, clear or not.
    day = (SlotValue(VISIT_DATE, "2026-12-18", "the 16th / the 18th"),)
    text = "I said the 16th but I meant the 18th"
    assert trust.judge(heard(text, 0.8), day, EXPECT).clear
    assert not trust.judge(heard(text, 0.8, {"16th": 0.2}), day, EXPECT).clear


def test_a_turn_that_may_be_no_speech_is_checked():
    assert not trust.judge(heard(SAID, 0.9, no_speech=0.7), BOOK, EXPECT).clear


def test_a_spoken_value_the_call_does_not_expect_is_checked():
    units = (SlotValue(UNITS, "5", "5 units"),)
    assert not trust.judge(heard("make it 5 units", 0.9), units, EXPECT).clear
    far = (SlotValue(VISIT_DATE, "2027-03-15", "15th of march"),)
    assert not trust.judge(heard("the 15th of March", 0.9), far, EXPECT).clear
    # Typed, or from a recogniser without word detail: the confidence decides, as before.
    assert trust.judge(Utterance("make it 5 units", 0.9), units, EXPECT).clear


def test_a_past_date_goes_on_to_validation_which_refuses_it():
    past = (SlotValue(VISIT_DATE, "2026-11-30", "last monday"),)
    assert trust.judge(heard("last Monday", 0.55), past, EXPECT).clear


def test_a_value_the_agent_just_offered_is_expected():
    far = (SlotValue(VISIT_DATE, "2027-03-15", "15th of march"),)
    offered = trust.Expected(EXPECT.assets, EXPECT.today, offered=frozenset({"2027-03-15"}))
    assert trust.judge(heard("the 15th of March", 0.55), far, offered).clear


def test_value_words_that_cannot_be_found_fall_back_to_the_confidence_floor():
    odd = (SlotValue(ASSET, "P-200", "p 200"),)
    assert not trust.judge(heard("the usual pump please", 0.55), odd, EXPECT).clear
    # words that spell the value only once normalised together are found, and weighed
    assert trust.judge(heard("pee two hundred please", 0.55), odd, EXPECT).clear
    assert not trust.judge(heard("pee two hundred please", 0.9, {"two": 0.1}), odd,
                           EXPECT).clear


def test_a_value_is_found_across_the_words_the_recogniser_split_it_into():
    at_two = (SlotValue(VISIT_TIME, "14:00", "2 pm"), SlotValue(VISIT_WINDOW, "afternoon", "2 pm"))
    assert trust.judge(heard("tomorrow at 2 p m", 0.5, {"tomorrow": 0.3}), at_two, EXPECT).clear
    assert not trust.judge(heard("tomorrow at 2 p m", 0.9, {"2": 0.2}), at_two, EXPECT).clear
    # ... though a faint "p" of "2 p m" carries nothing: "2" alone is 14:00 too
    assert trust.judge(heard("tomorrow at 2 p m", 0.9, {"p": 0.2}), at_two, EXPECT).clear
    one_word = (SlotValue(ASSET, "P-200", "p 200"),)
    assert trust.judge(heard("book P-200", 0.5), one_word, EXPECT).clear


def test_a_proposer_that_doubts_more_than_the_recogniser_holds_the_values_back():
    assert not trust.judge(heard(SAID, 0.9), BOOK, EXPECT, proposal_confidence=0.4).clear
    assert trust.judge(heard(SAID, 0.55), BOOK, EXPECT, proposal_confidence=0.55).clear


def test_a_clear_yes_to_a_question_is_trusted():
    asked = trust.Expected(EXPECT.assets, EXPECT.today, answer=True)
    assert trust.judge(heard("yes please", 0.5, {"please": 0.2}), (), asked).clear
    assert not trust.judge(heard("yes please", 0.5, {"yes": 0.3}), (), asked).clear
    assert not trust.judge(heard("yes please", 0.5), (), EXPECT).clear  # nothing was asked
    opened = (SlotValue(OPENED, "no", "no i haven't"),)
    assert trust.judge(heard("no I haven't", 0.5, {"haven't": 0.1}), opened, asked).clear


def test_an_opening_yes_is_heard_as_surely_as_it_was_told_apart_from_no():
    """A blind audio script's "Yes." to a check, in an espeak-ng voice: 0.56 mean confidence,
    "Yes" 0.33 as a word (the start of a turn, where the recogniser is least sure), 0.97 of
    both answers' probability. The check's values, which the yes took, are not asked again."""
    asked = trust.Expected(EXPECT.assets, EXPECT.today, answer=True,
                           offered=frozenset({"P-200", "2026-12-04"}))
    took = (SlotValue(ASSET, "P-200", "Yes."), SlotValue(VISIT_DATE, "2026-12-04", "Yes."))
    yes = Utterance("Yes.", 0.56, words=(("Yes", 0.33),), no_speech=0.02, answer=0.97)
    assert trust.judge(yes, took, asked).clear
    unsure = Utterance("Yes.", 0.56, words=(("Yes", 0.33),), no_speech=0.02, answer=0.6)
    assert not trust.judge(unsure, took, asked).clear  # "no" was nearly as likely
    assert not trust.judge(yes, took, EXPECT).clear  # nothing was asked
    alone = Utterance("Yes.", 0.45, words=(("Yes", 0.33),), no_speech=0.02, answer=0.97)
    assert trust.judge(alone, took, asked).clear  # the answer is the turn: its share the mean
    weak = Utterance("Yes, so nake it.", 0.2, words=(("Yes,", 0.33), ("so", 0.05),
                                                     ("nake", 0.1), ("it.", 0.3)),
                     no_speech=0.02, answer=0.97)
    assert not trust.judge(weak, took, asked).clear  # the turn as a whole too unsure
    assert not trust.judge(weak, (), asked).clear  # a bare yes too: what followed was lost


def test_expectations_come_from_the_proposers_context():
    context = ProposalContext(now=NOW, ledger=Ledger("q").current, caller=CALLER,
                              offered=("2026-12-04",), pending_confirmation=True)
    expect = trust.expected(context)
    assert expect.assets == {"P-100", "P-200"}
    assert expect.today == date(2026, 12, 1)
    assert expect.offered == {"2026-12-04"} and expect.answer


@pytest.fixture(scope="module")
def proposer() -> RuleProposer:
    return RuleProposer(NOW)


def test_the_proposer_reads_a_clearly_heard_turn_as_certain(proposer):
    context = ProposalContext(now=NOW, ledger=Ledger("q").current, caller=CALLER)
    clear = proposer.propose(heard("Please book pump P 200 for Thursday afternoon.", 0.55,
                                   {"Please": 0.2}), context)
    assert clear.correction is CorrectionKind.NONE
    assert {(s.field, s.value) for s in clear.slots} >= {(ASSET, "P-200"),
                                                          (VISIT_WINDOW, "afternoon")}
    faint = proposer.propose(heard("Please book pump P 200 for Thursday afternoon.", 0.8,
                                   {"Thursday": 0.2}), context)
    assert faint.correction is CorrectionKind.UNCERTAIN


@pytest.mark.anyio
async def test_the_agent_takes_a_clearly_heard_turn_without_a_check_and_checks_a_faint_one():
    text = "Please book pump P 200 for Thursday afternoon."
    async with call() as c:
        said = await _turn(c, heard(text, 0.55, {"Please": 0.2, "book": 0.3}))
        assert "didn't catch" not in said, said
        assert c.field(ASSET).value == "P-200"
    async with call() as c:
        said = await _turn(c, heard(text, 0.8, {"200": 0.2}))
        assert "didn't catch that clearly" in said, said
        assert c.field(ASSET) is None or not c.field(ASSET).usable


@pytest.mark.anyio
async def test_a_call_opened_with_a_greeting_by_the_part_of_the_day_takes_the_window_said():
    # "Afternoon, ..." greets; the window is the morning the caller asked for, never a question
    # between two windows, and a faint greeting word does not hold the window back
    text = "Afternoon, could someone come to P 200 on Thursday morning?"
    async with call() as c:
        said = await _turn(c, heard(text, 0.8, {"Afternoon,": 0.2}))
        assert "didn't catch" not in said, said
        assert c.field(VISIT_WINDOW).value == "morning"
        assert c.field(VISIT_DATE).value == "2026-12-03"


@pytest.mark.anyio
async def test_a_correction_whose_old_value_was_heard_faintly_is_taken_without_a_check():
    text = "Book P 200 on the 22nd, sorry, the 21st, in the morning."
    async with call() as c:
        said = await _turn(c, heard(text, 0.8, {"22nd,": 0.15}))
        assert "didn't catch" not in said, said
        assert c.field(VISIT_DATE).value == "2026-12-21"
    async with call() as c:  # the new value heard faintly is checked
        said = await _turn(c, heard(text, 0.8, {"21st,": 0.15}))
        assert "didn't catch that clearly" in said, said


def read_slots(text: str) -> tuple[SlotValue, ...]:
    """The values the rule proposer reads in ``text``: what the verdict judges in a call."""
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    return RuleProposer(NOW).propose(Utterance(text), context).slots


def judged_as(text: str, clear: bool, reason: str) -> None:
    """``text`` heard clearly (every word at 0.9), read by the rule proposer and judged with what
    the turn withdrew, as in a call: clear or not, and when not, for ``reason``."""
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    proposal = RuleProposer(NOW).propose(Utterance(text), context)
    verdict = trust.judge(heard(text, 0.9), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots, proposal.withdrawn)
    if not clear:
        assert verdict.reason == reason, (verdict, proposal.slots)


async def _turn(c, utterance: Utterance) -> str:
    """One final turn as the audio adapter hands it over; what the agent said back."""
    before = len(c.sink.plans)
    await c.controller.user_turn(utterance)
    return " ".join(p.text for p in c.sink.plans[before:])


@pytest.mark.parametrize("text, day, clear", [
    ("Walk P 100 for 15th at March.", "2026-12-15", False),  # "the fifteenth of March", misheard
    ("Book P 100 for the 9th of December.", "2026-12-09", True),
    ("Not March, the 9th of December.", "2026-12-09", True),  # one of the months named
    ("May I book P 100 for the 9th?", "2026-12-09", True),  # "may" is a verb here
])
def test_a_date_read_outside_every_month_the_turn_names_is_checked(text, day, clear):
    said = f"the {int(day[-2:])}th"  # the words the date was read from
    slots = (SlotValue(ASSET, "P-100", "p 100"), SlotValue(VISIT_DATE, day, said))
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a month was said that the date read is not in"


@pytest.mark.parametrize("text, clear", [
    ("Can we do Wednesday the night since then?", False),  # "Wednesday the ninth", misheard
    ("Can we do Wednesday at home instead?", False),  # "at ten": the time was not heard
    ("Can we do Wednesday the 9th instead?", True),
    ("Wednesday at 10 works for me.", True),
    ("Wednesday at 2pm please.", True),
    ("Wednesday, the afternoon if you can.", True),
    ("Wednesday would be great.", True),
    # "that" for a hurried "the": "Wednesday the ninth" heard as "Wednesday that I've been"
    ("Can we do Wednesday that I've been stayed?", False),
    ("Wednesday that went to date, please.", False),
    # ... and "that" standing for the day itself
    ("Wednesday, that works for me.", True),
    ("Wednesday that would be great.", True),
    ("Wednesday, that's fine.", True),
    ("Wednesday that suits us.", True),
    ("Wednesday that afternoon.", True),
    # "from the 9th to the 11th" heard as "... to the limit": where it goes was lost (set 8)
    ("Can we shift the P 200 visit from the 9th to the limit in the morning?", False),
    ("Can we shift the P 200 visit from the 9th to the 11th in the morning?", True),
    ("Can we shift the P 200 visit from the 9th to the morning of the 11th?", True),
    # words that hedge a value lead on to it
    ("Wednesday at a quarter past 8 please.", True),
    ("Wednesday at about 10.", True),
    ("Wednesday at, um, around 10.", True),
    ("Wednesday at about home time.", False),
    # "the" after "at" is a hurried "a"
    ("Wednesday at the quarter after 2.", True),
    ("Wednesday at the depot.", False),
])
def test_a_date_followed_by_a_word_that_introduces_no_value_is_checked(text, clear):
    # the date and the time read ("the night" is read as a window no call expects)
    slots = tuple(s for s in read_slots(text) if s.field != VISIT_WINDOW)
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a word after the date introduces no value"


@pytest.mark.parametrize("weekday", ["Monday", "Friday", "Thursday"])
def test_a_weekday_after_the_date_is_a_value_the_word_before_it_introduces(weekday):
    # "I meant the 18th, the Friday": "the" introduces the day again, nothing was lost.
    slots = (SlotValue(VISIT_DATE, "2026-12-18", "the 16th / the 18th"),)
    verdict = trust.judge(heard(f"I said the 16th but I meant the 18th the {weekday}.", 0.8),
                          slots, EXPECT)
    assert verdict.clear, verdict


@pytest.mark.parametrize(("text", "slot", "glue"), [
    ("December the 14th please", SlotValue(VISIT_DATE, "2026-12-14", "december the 14th"),
     "the"),
    ("the 7th of December works", SlotValue(VISIT_DATE, "2026-12-07", "the 7th of december"),
     "of"),
    ("Friday in the morning", SlotValue(VISIT_WINDOW, "morning", "in the morning"), "in"),
])
def test_an_article_or_of_or_in_inside_a_value_carries_none_of_it(text, slot, glue):
    # A faint "the" in "December the 14th" names the same day whatever was said there...
    verdict = trust.judge(heard(text, 0.8, {glue: 0.1}), (slot,), EXPECT)
    assert verdict.clear, verdict
    # ... but a faint word that names the day still makes the turn checked.
    carrying = next(w for w in text.split()
                    if w.lower() in slot.text.split() and w not in ("the", "of", "in"))
    assert not trust.judge(heard(text, 0.8, {carrying: 0.1}), (slot,), EXPECT).clear


@pytest.mark.parametrize(("text", "read_from", "clear"), [
    # "a week on Friday" heard as "bumper week on Friday": read as this week's Friday
    ("I'd like someone out to the Utrecht bumper week on Friday.", "friday", False),
    ("P 100 the weak week, Friday after lunch.", "friday", False),
    ("Friday, the week after, if you can.", "friday", False),
    ("Can we do Friday? Week after would do too.", "friday", False),
    # the week read with the day
    ("A week on Friday, after lunch.", "a week on friday", True),
    ("Friday next week please.", "friday next week", True),
    ("Next week, Friday.", "next week friday", True),
    # a week said further off is about something else
    ("Friday please, we are away all of next week.", "friday", True),
    ("Friday works.", "friday", True),
])
def test_a_word_about_the_week_beside_the_weekday_not_read_with_it_is_checked(
        text, read_from, clear):
    friday = SlotValue(VISIT_DATE, "2026-12-11" if "week" in read_from else "2026-12-04",
                       read_from)
    verdict = trust.judge(heard(text, 0.9), (friday,), EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a word about the week was not read with the weekday"


def test_the_week_beside_the_weekday_read_by_the_proposer_is_not_checked():
    # the real reading of each way of saying the week with the day carries its week
    proposer = RuleProposer(NOW)
    context = ProposalContext(now=NOW, ledger=Ledger("q-week").current, caller=CALLER)
    for said in ("a week on Friday", "Friday week", "Friday next week", "next week on Friday",
                 "in two weeks on Friday", "Friday this week"):
        slots = proposer.propose(Utterance(said), context).slots
        assert trust.judge(heard(said, 0.9), slots, EXPECT).clear, said


@pytest.mark.parametrize(("text", "clear"), [
    ("Could you get someone out on Wednesday behind sometime in the morning?", False),
    ("Book it for Wednesday development please.", False),
    ("Wednesday works for me.", True),
    ("Wednesday, say ten, if you can.", True),
    ("Wednesday round ten would be best.", True),
    ("Wednesday morning please.", True),
    ("Wednesday the 9th then.", True),
    ("Wednesday.", True),
])
def test_a_weekday_followed_by_a_word_no_day_is_followed_by_is_checked(text, clear):
    # "Wednesday the ninth" heard as "Wednesday behind": the weekday is clear, its day lost.
    slots = read_slots(text)
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a word no day is followed by comes after the weekday"


def test_a_number_after_the_weekday_that_no_value_was_read_from_is_checked():
    # "Friday the 11th" heard as "Friday 11": the day of the month is there, unread.
    friday = SlotValue(VISIT_DATE, "2026-12-04", "friday")
    verdict = trust.judge(heard("Make that Friday 11 for P 200.", 0.9), (friday,), EXPECT)
    assert not verdict.clear
    assert verdict.reason == "a word no day is followed by comes after the weekday"
    # ... but a number read as the time is a value the turn carries
    at_ten = (friday, SlotValue(VISIT_TIME, "10:30", "10 30"))
    assert trust.judge(heard("Friday 10 30 please.", 0.9), at_ten, EXPECT).clear


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "Wednesday the ninth" heard as a faint conjunction and words that sound like it
    ("Could you come out on Wednesday, but I'm thinking the morning?", "but", False),
    ("Pump 200 on Wednesday and I'd say around ten.", "and", False),
    ("Friday, then, if that's fine.", "then,", False),
    # ... or after the weekday's "'s" ("Monday's no good" heard as "Monday's low good")
    ("We need P 200 seen to, but Monday's low good for us.", "low", False),
    # the same words heard well: a caller may well say them after a day
    ("Pump 200 on Wednesday and I'd say around ten.", None, True),
    # a faint word further on, or a faint value right after the day, is not this rule's
    ("Wednesday works for us, thanks a lot.", "thanks", True),
    ("Wednesday morning please.", "please.", True),
])
def test_a_faint_word_right_after_the_weekday_is_checked(text, faint, clear):
    verdict = trust.judge(heard(text, 0.9, {faint: 0.2} if faint else None), read_slots(text),
                          EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a faint word comes right after the weekday"
    # a date read from no weekday is not this rule's
    tenth = SlotValue(VISIT_DATE, "2026-12-10", "the 10th")
    assert trust.judge(heard("the 10th, but I'm flexible", 0.9, {"but": 0.1}), (tenth,),
                       EXPECT).clear


@pytest.mark.parametrize(("text", "probability", "clear"), [
    # tiny.en hears "at ten", "at eleven", "after next" after a weekday as "afternoon"
    ("Can we go next Monday afternoon?", 0.40, False),  # "next Monday at ten"
    ("Could you do pump 100 on Thursday afternoon, please?", 0.13, False),
    ("Pump 200, Friday afternoon is best for us.", 0.45, False),
    # heard clearly, or not right after the day: the window stands
    ("Can we go next Monday afternoon?", 0.9, True),
    ("Pump 200 on Friday, in the afternoon.", 0.4, True),
])
def test_a_faint_afternoon_right_after_the_weekday_is_checked(text, probability, clear):
    slots = read_slots(text)
    assert any(s.field == VISIT_WINDOW and s.value == "afternoon" for s in slots), slots
    verdict = trust.judge(heard(text, 0.9, {"afternoon": probability, "afternoon,": probability,
                                            "afternoon?": probability,
                                            "afternoon.": probability}), slots, EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a faint 'afternoon' after the weekday may be a time"


@pytest.mark.parametrize(("text", "said", "clear"), [
    # the day of the month misheard as a word in the frame "the ... of <month>"
    ("Could we do the fall on February 1st in the morning?", "february 1st", False),
    ("Could we do the force of January, 11 15?", "january 11", False),
    ("Sometime the end of January for P 100.", "january", False),
    # the day said in its place
    ("Could we do the 4th of February in the morning?", "the 4th of february", True),
    ("the fourth of February works", "the 4th of february", True),
    ("On the 12th, of January, at noon.", "the 12th of january", True),
    ("February the 4th please.", "february the 4th", True),
])
def test_a_word_in_the_place_of_the_day_of_the_month_is_checked(text, said, clear):
    day = {"february 1st": "2027-02-01", "january 11": "2027-01-11", "january": "2027-01-31",
           "the 4th of february": "2027-02-04", "the 12th of january": "2027-01-12",
           "february the 4th": "2027-02-04"}[said]
    slots = (SlotValue(VISIT_DATE, day, said),)
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "no day of the month before the month"
    # a month named with no date read from the turn: nothing to doubt
    assert trust.judge(heard("the end of January for P 100", 0.9),
                       (SlotValue(ASSET, "P-100", "p 100"),), EXPECT).clear


@pytest.mark.parametrize(("text", "clear"), [
    # "for January the twelfth" heard as "4 January 12": which number is the day?
    ("So could we book the P 100 pump in 4 January 12, around 1030?", False),
    ("book 4 January 12 please", False),
    # one number is the day and the other a time, or a comma parts them (a day of 4 before the
    # month is checked for another reason: test_a_day_of_2_or_4_before_its_month_is_checked)
    ("on 5 January, 12 noon", True),
    ("5 January 12 pm", True),
    ("5 January 12:30", True),
    ("the 4th of January please", True),
])
def test_a_month_between_two_numbers_that_could_each_be_its_day_is_checked(text, clear):
    slots = read_slots(text)
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a number on each side of the month"


def test_a_value_written_apart_by_the_recogniser_is_found_and_its_words_weighed():
    # "the twenty-second" written " 20", " second": the value "the 22nd" is those two words
    words = (("on", 0.9), ("the", 0.9), ("20", 0.9), ("second", 0.1), ("please", 0.9))
    slot = SlotValue(VISIT_DATE, "2026-12-22", "the 22nd")
    verdict = trust.judge(Utterance("on the 20 second please", 0.9, words=words), (slot,),
                          EXPECT)
    assert not verdict.clear and verdict.reason == "a value word was heard faintly"
    clear = tuple((w, 0.9) for w, _ in words)
    assert trust.judge(Utterance("on the 20 second please", 0.9, words=clear), (slot,),
                       EXPECT).clear


@pytest.mark.parametrize("text, clear", [
    # "on Wednesday, no, sorry, Thursday afternoon": the correction's day was not heard
    ("I need someone out to the Utrecht pump on Wednesday. No, sorry, so is the afternoon.",
     False),
    ("Book P 100 on Wednesday, no wait, the afternoon.", False),
    ("P 200 on Friday, I meant, there's no rush.", False),
    ("Put P 100 down for Wednesday, sorry.", False),  # taken back, and nothing after it
    # the same field named on both sides: the correction itself was heard
    ("I need someone out to P 200 on Wednesday. No, sorry, Thursday afternoon.", True),
    ("P 100, the 22nd, no wait, the 21st in the morning.", True),
    ("Tuesday, quarter past 1, no, half past 1.", True),
    ("Sorry, could P 100 have Thursday afternoon?", True),  # nothing before the word
    ("It's P 100, not P 200, sorry about that, on Thursday.", True),  # takes nothing back
    ("Sorry I mean P 200 and P 200 on the 17th please.", True),  # named again after it
    ("P 100 can wait till Thursday.", True),  # "wait" that opens no clause takes nothing back
    ("Book P 100 for the 10th, hold on, the afternoon.", False),
    # "actually" opening a clause takes back too ("in the morning, actually no, the afternoon"
    # heard as "actually know, after who would be better")
    ("P 200 the day after tomorrow in the morning, actually know, after who would be better.",
     False),
    ("P 200 on Thursday, actually the afternoon suits.", False),
    ("P 200 on Thursday, actually Friday.", True),  # the correction heard
    ("P 200 on Thursday works actually.", True),  # opens no clause
    # a last "sorry" apologises for the correction heard before it; with none heard it may be
    # a correction lost
    ("Put P 100 down for tomorrow morning. I mean P 200. Sorry.", True),
    ("Put P 100 down for tomorrow morning, sorry.", False),
    ("P 100 on Thursday, I mean Friday, sorry, the afternoon.", False),
    # "scratch that, the 8th" with its "that" and the day misheard
    ("P 100 on January the 7th and scratch the gate at 14.40 please.", False),
    ("P 100 on January the 7th, there's a scratch on the casing.", True),
    # a window withdrawn for a time's: the window was named on both sides
    ("Book pump 100 for Tuesday next week in the afternoon, actually no, half 10 in the "
     "morning suits us better.", True),
    ("Book pump 100 for Tuesday next week in the afternoon, actually no, so it's better.",
     False),
    # the twenty-third set: "No wait, Friday would be better" heard as "not wait, right it
    # would be better"; "I tell a lie" with its "a" heard as "that", the day after it lost
    ("Could we have someone look at pump 200 on Thursday in afternoon, not wait, right it "
     "would be better.", False),
    ("P 100 please, use the mid at 10 o'clock. I tell that lie when's the 15th.", False),
    ("P 100 on Tuesday the 8th at 10 o'clock. I tell the lie, Wednesday the 16th.", True),
    ("P 100 on Thursday, we'd rather not wait till next month.", True),  # no clause opened
])
def test_a_value_taken_back_with_nothing_of_its_kind_after_is_checked(text, clear):
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    proposal = RuleProposer(NOW).propose(Utterance(text), context)
    values = [s for s in proposal.slots if s.value is not None and s.field in trust.VALUE_FIELDS]
    assert values, text
    verdict = trust.judge(heard(text, 0.9), values, EXPECT, withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (text, verdict, proposal.slots)
    if not clear:
        assert verdict.reason == "a value is taken back and none of its kind follows"


@pytest.mark.parametrize(("text", "clear"), [
    # "January the twelfth, in the afternoon" heard as "January but 12 in the afternoon":
    # no date read, and the day became a time
    ("Can you pencil in P 100 for January but 12 in the afternoon?", False),
    ("Can you pencil in P 100 for January the 12th in the afternoon?", True),
    ("Can you pencil in P 100 for Thursday at 12 in the afternoon?", True),  # no month named
    ("P 100 sometime in May at 10.", True),  # "may" is mostly a verb: left aside
])
def test_a_month_named_with_no_date_read_and_a_time_read_is_checked(text, clear):
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    slots = RuleProposer(NOW).propose(Utterance(text), context).slots
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT)
    assert verdict.clear is clear, (text, verdict, slots)
    if not clear:
        assert verdict.reason == "a month was said that the date read is not in"


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # the day replaced was heard faintly: it carries nothing of the day acted on
    ("P 100 on the 22nd, sorry, the 21st at 20 past 9.", "22nd,", True),
    ("P 100 at 10, no, at 11 on Thursday.", "10,", True),
    # the day acted on heard faintly is still checked
    ("P 100 on the 22nd, sorry, the 21st at 20 past 9.", "21st", False),
])
def test_the_words_of_a_value_the_turn_replaced_carry_nothing(text, faint, clear):
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    proposal = RuleProposer(NOW).propose(Utterance(text), context)
    assert proposal.withdrawn, proposal
    verdict = trust.judge(heard(text, 0.9, {faint: 0.1}), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots)
    # without knowing what the turn replaced, every word of the value counts
    assert not trust.judge(heard(text, 0.9, {faint: 0.1}), proposal.slots, EXPECT).clear


@pytest.mark.parametrize(("text", "slot_text", "faint", "clear"), [
    # "first thing in the morning": the window named by its name is carried by that name
    ("December the 14th, please, first thing in the morning.", "1st thing in the morning",
     "thing", True),
    ("December the 14th, please, first thing in the morning.", "1st thing in the morning",
     "morning.", False),
    # a window not named by its name is carried by every word of it
    ("December the 14th, please, first thing.", "1st thing", "thing.", False),
])
def test_a_window_named_by_its_own_name_is_carried_by_it(text, slot_text, faint, clear):
    slots = (SlotValue(VISIT_DATE, "2026-12-14", "december the 14th"),
             SlotValue(VISIT_WINDOW, "morning", slot_text))
    verdict = trust.judge(heard(text, 0.9, {faint: 0.1}), slots, EXPECT)
    assert verdict.clear is clear, verdict


@pytest.mark.parametrize(("text", "offered", "clear"), [
    # "the Friday after next" heard as "the Friday afternoon", read as this Friday
    ("I need to move the P 200 visit to the Friday afternoon.", (), False),
    ("Could we do a Friday, after lunch?", (), False),
    ("Could we do Friday, after lunch?", (), True),  # no article: the coming Friday
    ("The Friday works.", ("2026-12-04",), True),  # the Friday the agent offered
])
def test_a_weekday_after_an_article_read_alone_is_checked(text, offered, clear):
    friday = SlotValue(VISIT_DATE, "2026-12-04", "friday")
    expect = trust.Expected(assets=EXPECT.assets, today=EXPECT.today, offered=frozenset(offered))
    verdict = trust.judge(heard(text, 0.9), (friday,), expect)
    assert verdict.clear is clear, verdict
    if not clear:
        assert verdict.reason == "a weekday after 'the' was read without what made it one day"


def test_a_weekday_after_an_article_is_judged_by_the_mention_the_date_was_read_from():
    # "shut on Thursdays ..., the Friday after next" heard as "shot on Thursday ... the Friday
    # afternoon": Thursday ruled out, the date read from "the Friday" alone
    friday = SlotValue(VISIT_DATE, "2026-12-04", "thursday / friday")
    text = "We're shot on Thursday, so could you see to P 100 on the Friday afternoon?"
    verdict = trust.judge(heard(text, 0.9), (friday,), EXPECT)
    assert verdict.reason == "a weekday after 'the' was read without what made it one day"


def test_a_weekday_after_an_article_read_with_its_qualifier_is_not_this_rule():
    proposer = RuleProposer(NOW)
    context = ProposalContext(now=NOW, ledger=Ledger("q-the").current, caller=CALLER)
    for said in ("the Friday after next", "the 18th, the Friday", "the Friday of next week"):
        slots = proposer.propose(Utterance(said), context).slots
        verdict = trust.judge(heard(said, 0.9), slots, EXPECT)
        assert verdict.reason != "a weekday after 'the' was read without what made it one day", \
            (said, slots)


NUMBER_LEFT = "a number was heard that no value was read from"


@pytest.mark.parametrize("text", [
    # a value read beside a number no value was read from: the words around it were misheard
    "Can we do the 17th artillery at 1.15 instead?",  # said "the 17th at 11.15"
    "But we do the 4th on 10, where we first dig in the morning for the 100 pump.",
    "Um, can you pencil P 100 in for next week? Use the 11 15th.",  # "Tuesday, 11 15"
    "We'd like an engineer at the pump down in Rotterdam on January 7th crash at 8 at 1430.",
    "Let's pencil in Thursday that went to date of January 11, 15 for pump P 200.",
    # "P-100, or rather P-200": the asset corrected to was heard as an id of no one's
    "I'd like to book a service visit for the 100 or RAP 200, the day after tomorrow.",
])
def test_a_number_no_value_was_read_from_is_checked(text):
    verdict = trust.judge(heard(text, 0.9), read_slots(text), EXPECT)
    assert not verdict.clear, (verdict, read_slots(text))
    assert verdict.reason == NUMBER_LEFT


@pytest.mark.parametrize("text", [
    "It's pump P 100, not P 200.",  # a value withdrawn
    "Sorry, I meant half 9, not half 10, on Wednesday the 23rd.",
    "Sorry, I said the 8, I meant the 15th, same pump, P 100.",  # taken back
    "Can you get somebody out to P 200 on the 20 second at 3 pm?",  # the 22nd in two words
    "How about January 12, first thing in the morning for pump P 200?",
    "Could somebody come out to the other one on Friday?",  # "one" is no value
    "Could you get someone to look at the 200 pump tomorrow morning?",  # an asset's number
    "Put the P 200 visit in for Friday the 11th at 10 past 2.",
])
def test_every_number_read_withdrawn_or_taken_back_leaves_the_turn_clear(text):
    proposal = RuleProposer(NOW).propose(Utterance(text), ProposalContext(
        now=NOW, ledger=Ledger("q-trust").current, caller=CALLER))
    verdict = trust.judge(heard(text, 0.9), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.clear, (verdict, proposal.slots, proposal.withdrawn)


@pytest.mark.parametrize(("text", "clear"), [
    # "would Thursday work ... about two o'clock" heard as "what does they work ... An out to a
    # clock?": the hour was lost, and the day read (Friday, ruled out) is wrong
    ("Our yards shot on Friday, so what does they work for P 200? An out to a clock?", False),
    ("P 200 on Friday at 2 o'clock.", True),
    ("P 200 on Friday, we work around the clock.", True),
    ("P 200 on Friday afternoon, anything but 3 o'clock.", True),  # a time withdrawn
    # "say half nine" heard as "say half line"
    ("P 100 on the Friday after next, say half line.", False),
    ("P 100 on Friday, at half past 9.", True),
    ("P 100 on Friday, half the team is in.", True),
    # held-out set 25: "twenty past one, actually, make that quarter past four" heard as "20th
    # 1 at Julie, make that quarter first 4th", read as the 4th of January
    ("Can I get someone to beat 100 on Wednesday 13th on January 20th 1 at Julie, make that "
     "quarter first 4th", False),
    ("P 100 on Friday at a quarter past 2.", True),
    ("P 100 on Friday, it takes a quarter of an hour.", True),
])
def test_o_clock_with_no_time_read_is_checked(text, clear):
    judged_as(text, clear, "a word of the clock was said and no time was read")


@pytest.mark.parametrize(("text", "clear"), [
    # held-out set 26: "Wednesday the twenty-third in the morning, oh, hang about, ... so the
    # afternoon" heard with "that 23rd": the take-back replaced the window, not the day, so the
    # 23rd left unread still counts (it was accepted as Wednesday the 2nd)
    ("Can we have the Utrecht pump service on Wednesday that 23rd in the morning? Oh, hang "
     "about, the deliveries coming that morning, so the afternoon, please.", False),
    # a take-back followed by a day or a number: what came before it was replaced
    ("P 200 on Wednesday that 23rd, sorry, Thursday the 24th.", True),
    ("P 200 on the 22 in the morning, hang about, the 23rd in the afternoon.", True),
    # "one" after the take-back may be a word: it replaces no number before it ("V4P 100 on
    # Monday the 17th morning. You know what? Let's do one dot in the afternoon instead.")
    ("Visit V4P 100 on Monday the 7th morning. You know what? Let's do one dot in the "
     "afternoon instead.", False),
    # ... but one the words of the clock stand around is a number of the clock
    ("P 100 on Wednesday the 13th of January V4 at 20 past 1, actually make that quarter past "
     "4.", True),
])
def test_a_number_before_a_take_back_counts_unless_a_day_or_number_follows_it(text, clear):
    judged_as(text, clear, NUMBER_LEFT)


def test_a_number_left_unread_in_a_turn_without_values_is_nothing_to_check():
    assert trust.judge(heard("I've got 3 questions.", 0.9), read_slots("I've got 3 questions."),
                       EXPECT).clear


@pytest.mark.parametrize(("text", "clear"), [
    # "nine fifteen" heard as "9.50am": a recogniser writes "fifteen" as "fifty"
    ("We'd like P 100 serviced on Thursday December 10th at 9.50am.", False),
    ("P 100 on Thursday at 10 40.", False),
    ("P 100 on Thursday at 9.15am.", True),
    ("P 100 on Thursday at 10 to 4.", True),  # 15:50 said another way
    ("P 100 on Thursday at 9:45.", True),
])
def test_minutes_heard_as_forty_or_fifty_are_checked(text, clear):
    judged_as(text, clear, "minutes heard as 40 or 50 may have been 14 or 15")


@pytest.mark.parametrize(("text", "clear"), [
    # "quarter to ten" as a recogniser writes it in voices it hears less well, "to" lost
    ("Work order for pump 100, Thursday 10th of December, Water 10 in the morning, please.",
     False),
    ("P 100 on the 4th, corridor 3 in the afternoon.", False),
    ("P 100 on Friday, around water to 10.", True),  # read as a quarter to ten
    ("P 100 on Friday at 10, the water pressure is low.", True),
])
def test_a_word_written_for_quarter_before_the_hour_is_checked(text, clear):
    judged_as(text, clear, "a word like 'quarter' comes before the time's hour")


def test_a_value_of_the_field_a_choice_asks_for_that_is_none_of_its_options_is_checked():
    # "Which time? 11:30 in the morning or 10 in the morning?" answered "Yes, half past 11,
    # that's right", heard "Yes, have passed 11": 11:00 is neither option
    ledger = Ledger("q-trust")
    ledger.mark_unresolved(VISIT_TIME, "utterance:u2", candidates=("11:30", "10:00"))
    context = ProposalContext(now=NOW, ledger=ledger.current, caller=CALLER,
                              expecting=VISIT_TIME, offered=("11:30", "10:00"))
    expect = trust.expected(context)
    assert expect.choosing == VISIT_TIME
    eleven = (SlotValue(VISIT_TIME, "11:00", "11"),)
    verdict = trust.judge(heard("Yes, 11, that's right.", 0.9), eleven, expect)
    assert (verdict.clear, verdict.reason) == (False, "a value the call does not expect")
    half = (SlotValue(VISIT_TIME, "11:30", "half past 11"),)
    assert trust.judge(heard("Yes, half past 11, that's right.", 0.9), half, expect).clear
    # a value of another field is not held to the choice
    friday = (SlotValue(VISIT_DATE, "2026-12-04", "friday"),)
    assert trust.judge(heard("Friday please.", 0.9), friday, expect).clear
    # values the agent suggests ("Would tomorrow or Thursday suit you?") are no choice the
    # caller's words left open: another day is an answer like any
    suggested = trust.expected(replace(context, ledger=Ledger("q-trust").current,
                                       expecting=VISIT_DATE,
                                       offered=("2026-12-02", "2026-12-03")))
    assert suggested.choosing is None
    assert trust.judge(heard("Friday please.", 0.9), friday, suggested).clear


def test_an_order_number_is_no_quarter():
    slots = read_slots("Work order 10: P 100 on Friday at 3 pm.")
    assert not heard_numbers.quarter_misheard("Work order 10: P 100 on Friday at 3 pm.", slots)
    assert heard_numbers.quarter_misheard("P 100 on Friday, order 10 in the morning.", slots)


@pytest.mark.parametrize(("text", "clear"), [
    # "the day after tomorrow" misheard before "after tomorrow": Monday is read
    ("Could someone look at P 200 Monday after tomorrow, first thing?", False),
    # ... or as "they have to tomorrow": tomorrow is read
    ("We'd like somebody to have a look at P 200 but they have to tomorrow, after lunch.",
     False),
    ("We'd like somebody to have a look at P 200 tomorrow, after lunch.", True),
    # ... or as "the next tomorrow", which no one says
    ("Put me down for the next tomorrow P 200, in the afternoon.", False),
    # ... or with "of" for "after" (held-out sets 6 and 21, this machine's recordings)
    ("We'd like a look at P 200 per day of the tomorrow, sometime after lunch.", False),
    ("Could P 200 be seen the very end of tomorrow, around four?", False),
    ("P 200 on the morning of tomorrow, please.", True),
    ("Could someone look at P 200 the day after tomorrow, first thing?", True),
    ("The day after tomorrow is no good, could someone look at P 200 on Monday?", True),
])
def test_after_tomorrow_with_no_date_read_from_it_is_checked(text, clear):
    proposal = RuleProposer(NOW).propose(Utterance(text), ProposalContext(
        now=NOW, ledger=Ledger("q-trust").current, caller=CALLER))
    slots = proposal.slots
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT, withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, slots)
    if not clear:
        assert verdict.reason == "'after tomorrow' was said and no date was read from it"


@pytest.mark.parametrize(("text", "clear", "reason"), [
    # "a week from tomorrow" heard with its count lost (held-out set 26, on this machine's
    # recordings): the date read is tomorrow
    ("Yeah, hi, I know to get P 200 service to read from tomorrow in the afternoon.", False,
     "a word before 'from tomorrow' that no count was read from"),
    ("I got a P 200 service tank from tomorrow in the afternoon, if you can.", False,
     "a word before 'from tomorrow' that no count was read from"),
    ("P 200 any time from tomorrow in the afternoon.", True, ""),
    ("P 200 a week from tomorrow in the afternoon.", True, ""),
    # "Monday the twenty-first" heard with its day lost around an ordinal
    ("Can I get the pump on Canal Street in for Monday, but when, at first, in the afternoon?",
     False, "an ordinal after the weekday that no date was read from"),
    ("Can I get P 200 in for Monday, first thing in the morning?", True, ""),
    ("Can I get P 200 in for Monday the 21st in the afternoon?", True, ""),
])
def test_a_date_whose_count_or_ordinal_went_unread_is_checked(text, clear, reason):
    proposal = RuleProposer(NOW).propose(Utterance(text), ProposalContext(
        now=NOW, ledger=Ledger("q-trust").current, caller=CALLER))
    verdict = trust.judge(heard(text, 0.9), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots)
    assert clear or verdict.reason == reason


@pytest.mark.parametrize(("text", "clear"), [
    # "needs seeing to a week on Wednesday" heard as "needs taking to wake on Wednesday"
    ("The P 200 pump needs taking to wake on Wednesday, after lunch.", False),
    ("P 100 that wake tomorrow at half 2.", False),  # "a week tomorrow"
    ("The flow is weak, so could you send someone to P 100 on Friday?", True),
    ("P 100 this week, tomorrow at half 2.", True),
    # "a week on Friday" heard as "when we come Friday", "a week on Thursday" as "we can"
    ("Could somebody come out to our Utrecht one when we come Friday after lunch?", False),
    ("P 100, please, and we can Thursday around quarter to ten.", False),
    ("P 100 on Friday, we can come in the morning.", True),
])
def test_a_week_heard_as_wake_or_weak_beside_the_day_is_checked(text, clear):
    judged_as(text, clear, "a word about the week was not read with the weekday")


@pytest.mark.parametrize("text", [
    # the replacing words heard, the value after them not
    "Send an engineer to the Utrecht pump tomorrow afternoon. Oh, on second thoughts, make "
    "that a lot of nampamp instead.",
    "P 200 on Friday, or rather, the other day.",
    "P 200 on the 9th, come to think of it, make that some other time.",
])
def test_a_value_replaced_by_words_not_heard_is_checked(text):
    verdict = trust.judge(heard(text, 0.9), read_slots(text), EXPECT)
    assert not verdict.clear, (verdict, read_slots(text))
    assert verdict.reason == "a value is taken back and none of its kind follows"


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "a week on Wednesday" heard as other words, the one before the day faint
    ("The 200 pump needs to be gone Wednesday, sometime after lunch.", "gone", False),
    ("Could you get someone out to P 200 that we'll come Monday at 10?", "come", False),
    ("Morning, we'd like the 100 service to recon Thursday, first thing.", "recon", False),
    # a faint closed-class word or word of which week before the day is no lost week
    ("Can you move P 200 to Monday afternoon?", "to", True),
    ("Sorry, Thursday morning for P 200, not Wednesday.", "Sorry,", True),
    ("P 200 on Thursday at half past 10.", "on", True),
    ("P 200 next Thursday at half past 10.", "next", True),
    # the same words heard well
    ("The 200 pump needs to be gone Wednesday, sometime after lunch.", None, True),
])
def test_a_faint_word_right_before_the_weekday_is_checked(text, faint, clear):
    # 0.45: "recon" as heard in a blind set, under FAINT_BEFORE_DAY but over FAINT_AFTER_DAY
    verdict = trust.judge(heard(text, 0.9, {faint: 0.45} if faint else None), read_slots(text),
                          EXPECT)
    assert verdict.clear is clear, (verdict, read_slots(text))
    if not clear:
        assert verdict.reason == "a faint word that may have said the week comes before the " \
            "weekday"


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "for Feb 3rd, ugh, my bad, the 5th" heard with the month lost, the word in its place
    # faint (held-out set 13): the 5th read takes the coming month
    ("So I'd like P 100 on the most 4th and 3rd, but my man, the 5th, in the morning.", "most",
     False),
    ("Please book P 200 for the Marge 12th, first thing.", "Marge", False),
    # a faint closed-class word before the day is no month lost
    ("Please book P 200 for the 12th, first thing.", "the", True),
    ("Please book P 200, ideally the 12th, first thing.", "ideally", True),
    ("P 200 on the 12th in the morning, sorta first thing.", "sorta", True),  # the day's start
    # ... and after the day, "the third of February" heard as "the third area"
    ("We'd like P 200 seen on the third and third area at 2 in the afternoon.", "area", False),
    ("We'd like P 200 seen on the third at 2 in the afternoon.", "at", True),
    # the month heard well before the day (a word that leads to no day before the day,
    # heard well or not, is test_a_day_of_the_month_after_a_word_that_leads_to_no_day...)
    ("Please book P 200 for December 12th, first thing.", None, True),
])
def test_a_faint_word_right_beside_a_day_of_the_month_is_checked(text, faint, clear):
    # 0.15: "most" and "area" as heard in held-out sets 13 and 28, under FAINT_MONTH
    verdict = trust.judge(heard(text, 0.9, {faint: 0.15} if faint else None), read_slots(text),
                          EXPECT)
    assert verdict.clear is clear, (verdict, read_slots(text))
    if not clear:
        assert verdict.reason == "a faint word that may have said the month is beside the day"


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "ignore that, put us down for half eight in the morning" heard with a "not" (set 27)
    ("Can I get P 100 booked in for Monday the 7th in the afternoon? It not let protest on for "
     "their fate in the morning.", "not", False),
    # ... in another voice with "not" at 0.54, and a word between them faint (set 27)
    ("Can I get P 100 booked in for Monday the 7th in the afternoon? It not let protest stand "
     "for their fate in the morning.", "their", False),
    ("P 100 on Monday the 7th in the afternoon. We can't have anyone up there the whole "
     "morning.", "whole", False),
    # a negation heard well, or right before what it rules out, or far before a value it
    # did not rule out
    ("Can I get P 100 booked in for Monday the 7th in the afternoon? It not let protest on for "
     "their fate in the morning.", None, True),
    ("P 100 on Monday the 7th in the afternoon, not in the morning.", "not", True),
    ("P 100 on Monday the 7th in the afternoon, just not the morning.", "just", True),
    ("P 100 in the afternoon. No, the lads knock off early that day, so give us the morning.",
     "No,", True),
    # a day named far after the negation that is the day meant, not one ruled out (set 26)
    ("Can we have somebody look at P 100 tomorrow afternoon? No, that's wrong, tomorrow is "
     "taken, so Thursday afternoon.", "No,", True),
])
def test_a_value_ruled_out_far_after_a_negation_with_a_faint_word_is_checked(text, faint,
                                                                            clear):
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    proposal = RuleProposer(NOW).propose(Utterance(text), context)
    verdict = trust.judge(heard(text, 0.9, {faint: 0.4} if faint else None), proposal.slots,
                          EXPECT, withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots, proposal.withdrawn)
    if not clear:
        assert verdict.reason == "a value ruled out far after a negation, a word between faint"


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "a fortnight today" heard as "a far-tight today" (held-out set 28)
    ("Can you put pump 200 down for a far-tight today in the afternoon?", "far-tight", False),
    ("Can you put pump 200 down for tomorrow in the afternoon?", "for", True),
])
def test_a_faint_word_before_today_or_tomorrow_is_checked(text, faint, clear):
    # 0.2: "far" as heard in held-out set 28, under FAINT_COUNT
    verdict = trust.judge(heard(text, 0.9, {faint: 0.2}), read_slots(text), EXPECT)
    assert verdict.clear is clear, (verdict, read_slots(text))
    if not clear:
        assert verdict.reason == "a faint word that may have said a count comes before the day"


@pytest.mark.parametrize(("text", "faint", "caught"), [
    # "it should be Friday at half past one" heard with the day lost (held-out set 18)
    ("Can you do P 100 on Thursday at 10? Sorry, I got that wrong, it should be quite a half "
     "past one.", "a", True),
    # the cue heard well, or after a day, a month or a closed-class word (other rules may
    # check a faint word there; this one does not)
    ("Can you do P 100 on Thursday at 10? Sorry, I got that wrong, it should be quite a half "
     "past one.", None, False),
    ("Can you do P 100 on Friday at half past one?", "at", False),
    ("Can you do P 100 on the 14th of January at 10 o'clock?", "at", False),
    ("Can you do P 100 tomorrow, say around 11?", "around", False),
])
def test_a_faint_word_before_the_time_after_an_unread_word_is_checked(text, faint, caught):
    verdict = trust.judge(heard(text, 0.9, {faint: 0.33} if faint else None), read_slots(text),
                          EXPECT)
    rule = "a faint word before the time follows a word no value was read from"
    assert (verdict.reason == rule) is caught, (verdict, read_slots(text))
    assert not caught or not verdict.clear


@pytest.mark.parametrize(("text", "clear", "reason"), [
    # "the fourteenth" heard as "beforeteenth" (held-out set 28)
    ("Could we book the Utrecht pump for the 12th of January in the morning, who I've misread "
     "the calendar beforeteenth.", False, "a word like an ordinal that no date was read from"),
    # "a quarter after three" heard as "water after 3": 14:15 is before the bound
    ("Can I get P 100 on Wednesday the 9th at quarter after 2. Make water after 3.", False,
     "the time read is outside a bound the turn says"),
    ("Can I get P 100 on Wednesday the 9th at quarter after 3, not before 3 anyway.", True, ""),
    ("Can I get P 100 on Wednesday the 9th at half past 10, or any time after 10.", True, ""),
])
def test_an_ordinal_or_a_bound_the_reading_did_not_take_is_checked(text, clear, reason):
    judged_as(text, clear, reason)


@pytest.mark.parametrize(("text", "clear"), [
    # "December 22nd" heard as "the same but when the second" (held-out set 8)
    ("Could somebody come out to P 200 on the same but when the second at 3 pm?", False),
    ("P 200 on the plenty 3rd, after lunch.", False),
    ("P 200 on the 2nd at 3 pm, when the lads are in.", True),
    ("When can you come? P 200 on the 22nd at 3 pm.", True),
])
def test_a_word_like_twenty_before_a_day_under_the_tenth_is_checked(text, clear):
    judged_as(text, clear, "a word like 'twenty' comes before a day under the 10th")


@pytest.mark.parametrize(("text", "clear"), [
    # "in for January the twelfth" heard as "in 4 January but well" (held-out set 6)
    ("So could we book the P 100 pump in 4 January, around 10 30?", False),
    ("Can P 200 be moved 2 March in the afternoon?", False),
    # "on the fourth of January" and "Monday the fourth of January" as recognisers write them
    ("Please book P 200 on 4 January at 9.", True),
    ("Put P 200 down for Monday 4 January, say 20 past 1.", True),
    ("So could we book the P 100 pump in for January the 4th, around 10 30?", True),
    ("So could we book the P 100 pump in for the 4th of January, around 10 30?", True),
])
def test_a_day_of_2_or_4_before_its_month_is_checked(text, clear):
    judged_as(text, clear, "a day of '2' or '4' before the month may be 'to' or 'for'")


@pytest.mark.parametrize(("text", "clear"), [
    # "Feb 3rd, my bad, the 5th" heard with the month glued to the day
    ("I'd like to get P 100 on the books for FEM3rd. My mad, the 5th, in the morning.", False),
    ("P 100 on the road for m3rd for my math, the 5th sometime in the morning.", False),
    ("Could you book V100, sorry, P 100, on the 5th in the morning?", True),  # taken back
])
def test_a_number_glued_to_a_misheard_word_is_checked(text, clear):
    judged_as(text, clear, NUMBER_LEFT)


@pytest.mark.parametrize(("text", "clear"), [
    # "push that to Friday morning instead" with "that to" misheard: Friday read as ruled out
    # or as a bound, and the Thursday it replaced kept
    ("For the Rotterdam 1, we'd said Thursday, but could you push not to Friday morning "
     "instead, around 10 o'clock?", False),
    ("For P 100 we'd said Thursday, could you push after Friday morning instead?", False),
    ("For P 100 we'd said Thursday, could you push it to Friday morning instead?", True),
    ("P 100 on Friday instead of Thursday, please.", True),
    ("Not Thursday, P 100 on the 11th instead.", True),
])
def test_the_day_before_instead_that_is_not_the_date_read_is_checked(text, clear):
    judged_as(text, clear, "the day said before 'instead' is not the date read")


@pytest.mark.parametrize(("text", "clear"), [
    ("Can I book P 100 for Thursday but end, in the afternoon?", False),  # "Thursday the tenth"
    ("Can I book P 100 for Thursday, but not too early?", True),
    ("Can I book P 100 for Thursday, but after lunch please?", True),
    ("Can I book P 100 for Thursday, but I'm flexible?", True),
    # "not on the tenth but on the eleventh" heard as "out on the 10th but on the relevant"
    ("Could you send someone to P 200 out on the 10th but on the relevant India afternoon?",
     False),
    ("Could you send someone to P 200 not on the 10th but on the 11th, in the afternoon?", True),
    ("Could you send someone to P 200 on the 10th, but at about 9 please?", True),
    # "then" after "but" opens nothing: the word after it is judged ("Thursday the tenth at
    # about half ten" heard as "Thursday, but then set about half ten")
    ("Can you get an engineer to P 200 on Thursday, but then set about half ten.", False),
    ("Can you get an engineer to P 200 on Thursday, but then we'd need the afternoon.", True),
    ("Can you get an engineer to P 200 on Thursday, but then again the afternoon.", True),
])
def test_a_date_followed_by_but_and_no_value_or_clause_is_checked(text, clear):
    judged_as(text, clear, "a word after the date introduces no value")


@pytest.mark.parametrize(("text", "clear"), [
    # "early afternoon, Friday the 18th" heard as "early afternoon. Friday morning"
    ("It's Priya from Acme, could you service P 100 sometime early afternoon. Friday morning, "
     "if possible?", False),
    # alternatives the caller offers are no contradiction
    ("Could you service P 100 on Friday, morning or afternoon?", True),
    ("Could you service P 100 on Friday, either morning or afternoon?", True),
])
def test_two_values_of_a_field_with_nothing_saying_which_is_meant_are_checked(text, clear):
    judged_as(text, clear, "two values of one field and nothing says which is meant")


@pytest.mark.parametrize(("text", "clear"), [
    ("It's the one in Utrecht, Wednesday, but I'm early afternoon please.", False),
    ("It's P 200, Wednesday but I'm in the afternoon, yeah?", False),
    ("It's P 200, Wednesday, but I'm flexible about the time.", True),
    ("It's P 200, Wednesday, but I'm only free in the afternoon.", True),
    # a clause that ends at "I'm" ("Wednesday the ninth instead", held-out set 1)
    ("Can we do Wednesday but I'm instead?", False),
    ("P 200 on Wednesday, but I'm.", False),
    ("Can we do Wednesday instead? I'm free all day.", True),
])
def test_but_i_am_going_straight_to_a_value_after_a_date_is_checked(text, clear):
    judged_as(text, clear, "a word after the date introduces no value")


@pytest.mark.parametrize(("text", "clear"), [
    # "The afternoons are getting busy" heard as "The afternoon is on getting really"
    ("The afternoon is on getting really at our end, so for P 200 on the 22nd, can you do "
     "tennis?", False),
    ("Thursday is when the lads are in, so P 200 then.", False),
    ("The afternoon is fine for P 200 on the 22nd.", True),
    ("P 200, Thursday's good for us.", True),
    ("P 200 on the 22nd, the morning's all booked up, so the afternoon.", True),
    ("P 200, the 9th is a Wednesday, isn't it?", True),
])
def test_what_is_said_of_a_day_or_window_that_holds_no_judgement_is_checked(text, clear):
    judged_as(text, clear, "what was said of a day or window was not read")


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "Mornings are all booked up for us" heard as "Morning's a long work tap for us"
    ("Could someone check over P 100 on Friday? Morning's a long work tap for us.",
     {"work": 0.34}, False),
    ("P 200 on the 22nd, the afternoon is fine for us.", {"fine": 0.3}, False),
    ("P 200, Thursday's good for us.", {"good": 0.45}, False),
    # heard well, the same words judge
    ("Could someone check over P 100 on Friday? Morning's a long work tap for us.", {}, True),
    ("P 200 on the 22nd, the afternoon is fine for us.", {"fine": 0.55}, True),
    ("P 200, Thursday's good for us.", {"for": 0.2, "us": 0.2}, True),
])
def test_a_judgement_of_a_day_heard_faintly_judges_nothing(text, faint, clear):
    """said_of_it_unread: the word that would say how the day or part of the day suits must
    be heard at least as well as a cue word; below, it is as likely misheard as the rest."""
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=CALLER)
    proposal = RuleProposer(NOW).propose(Utterance(text), context)
    verdict = trust.judge(heard(text, 0.9, faint), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots, proposal.withdrawn)
    if not clear:
        assert verdict.reason == "what was said of a day or window was not read"


@pytest.mark.parametrize(("text", "clear"), [
    # "in the morning, or rather the afternoon" heard as "..., or remember they have to noon"
    ("P 100 on the 12th of January in the morning, or remember they have to noon.", False),
    ("P 100 on Friday in the morning, not the afternoon.", True),  # withdrawn, so read
    ("Good morning, could you do P 100 on Friday afternoon?", True),  # a greeting, as read
    ("P 100 on Friday, the morning or the afternoon.", True),  # both read, as candidates
    ("P 100 on Friday, they have to noon.", True),  # no window or time read: nothing to doubt
])
def test_another_part_of_the_day_than_the_one_read_is_checked(text, clear):
    judged_as(text, clear, "a part of the day was said that no value was read from")


TWO_SITES = CallerProfile(
    tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
    assets=(Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
            Asset("P-200", "C1", "EU", "4 Canal Street, Utrecht", kind="pump")))


@pytest.mark.parametrize(("text", "clear"), [
    # "..., scratch that, it's the Utrecht one" heard as "crash at it's Utrecht 1-2 doing"
    ("Book the Rotterdam pump for Friday afternoon crash at it's Utrecht 1-2 doing.", False),
    ("Book P 100 for Friday, we're over near Canal Street.", False),
    ("Book the Rotterdam pump for Friday afternoon.", True),
    ("Not the Rotterdam pump, the one in Utrecht, on Friday.", True),  # ruled out
    ("Book the Rotterdam pump, the one on Harbour Road, for Friday.", True),  # the same asset
])
def test_the_site_of_another_asset_than_the_one_read_is_checked(text, clear):
    context = ProposalContext(now=NOW, ledger=Ledger("q-trust").current, caller=TWO_SITES)
    proposal = RuleProposer(NOW).propose(Utterance(text), context)
    verdict = trust.judge(heard(text, 0.9), proposal.slots, trust.expected(context),
                          withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots, proposal.withdrawn)
    if not clear:
        assert verdict.reason == "the site of another asset was said"


def test_or_actually_takes_back_what_came_before():
    text = "The pump we have in Utrecht, on the 10th or actually did it when after lunch."
    verdict = trust.judge(heard(text, 0.9), read_slots(text), EXPECT)
    assert verdict.reason == "a value is taken back and none of its kind follows"


@pytest.mark.parametrize(("text", "clear"), [
    # "eleven thirty on the fourteenth" heard as "11.14"
    ("Could we do P 100 at 11.14? Forget the 14th, the 15th, same time.", False),
    ("Could we do P 100 on the 15th at 11.15?", True),
    ("Could we do P 100 on the 15th at 10 to 4?", True),
])
def test_a_time_whose_minutes_are_no_multiple_of_five_is_checked(text, clear):
    judged_as(text, clear, "a time whose minutes are no multiple of five")


def test_a_month_said_by_its_short_name_with_a_date_read_outside_it_is_checked():
    # "January the fifth, hold on, the sixth" heard as "Jan knew him in the fifth, ... the sixth"
    text = "Can we get P 200 looked at on Jan knew him in the 5th, hold on, the 6th?"
    verdict = trust.judge(heard(text, 0.9), read_slots(text), EXPECT)
    assert verdict.reason == "a month was said that the date read is not in"


def test_a_value_the_turn_ruled_out_and_read_is_checked():
    slots = (SlotValue(ASSET, "P-200", "p 200"), SlotValue(VISIT_DATE, "2026-12-04", "the 4th"))
    text = "P 200 on the 4th, that's the Friday morning's are no good, early afternoon."
    verdict = trust.judge(heard(text, 0.9), slots, EXPECT,
                          withdrawn=((VISIT_DATE, "2026-12-04"),))
    assert verdict.reason == "a value read is one the turn ruled out"
    assert trust.judge(heard(text, 0.9), slots, EXPECT,
                       withdrawn=((VISIT_WINDOW, "morning"),)).clear


@pytest.mark.parametrize(("text", "clear"), [
    # "say 3 pm? Mornings are all booked up" heard with the booked-up lost
    ("In a couple of days, could someone check over P 100, say 3 pm. Morning's are all hooked "
     "up for us.", False),
    ("P 100 on Thursday at 3 pm, in the afternoon.", True),
])
def test_a_window_read_against_the_time_the_turn_says_is_checked(text, clear):
    proposal = RuleProposer(NOW).propose(Utterance(text), ProposalContext(
        now=NOW, ledger=Ledger("q-trust").current, caller=CALLER))
    verdict = trust.judge(heard(text, 0.9), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.clear is clear, (verdict, proposal.slots, proposal.withdrawn)
    if not clear:
        assert verdict.reason == "the window read is not the time's"


def test_a_time_corrected_to_the_other_window_is_no_window_against_the_time():
    # the correcting word says the window replaces the time set aside
    text = "P 100 on Thursday at 10, no, make it the afternoon."
    proposal = RuleProposer(NOW).propose(Utterance(text), ProposalContext(
        now=NOW, ledger=Ledger("q-trust").current, caller=CALLER))
    assert (VISIT_TIME, "10:00") in proposal.withdrawn
    verdict = trust.judge(heard(text, 0.9), proposal.slots, EXPECT,
                          withdrawn=proposal.withdrawn)
    assert verdict.reason != "the window read is not the time's"


def test_the_window_before_instead_that_is_not_the_window_read_is_checked():
    # "in the afternoon instead of the morning" heard as "instead on the morning"
    text = "Could we get an engineer to P 100 on Tuesday next week in the afternoon instead on " \
        "the morning like last time?"
    slots = read_slots(text)
    assert trust.judge(heard(text, 0.9), slots, EXPECT).reason \
        == "the day said before 'instead' is not the date read"


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # "3 pm" is 15:00 with or without its "pm": a faint "pm" carries nothing
    ("P 100 on Thursday at 3 pm.", "pm.", True),
    ("P 100 on Thursday at 9 am.", "am.", True),
    # "8 pm" is not "8" (08:00): its "pm" carries the value
    ("P 100 on Thursday at 8 pm.", "pm.", False),
    # the hour itself heard faintly is checked
    ("P 100 on Thursday at 3 pm.", "3", False),
])
def test_a_faint_am_or_pm_that_changes_nothing_carries_nothing(text, faint, clear):
    verdict = trust.judge(heard(text, 0.9, {faint: 0.1}), read_slots(text), EXPECT)
    assert verdict.clear is clear, (verdict, read_slots(text))


@pytest.mark.anyio
async def test_a_yes_to_a_check_settles_its_values_when_the_rest_of_the_answer_is_doubted():
    # A blind audio script: "Did you mean morning, P-100?" answered "Yes, that's right,
    # Wednesday the ninth in the morning", heard "Yes, that's light, Wednesday that I'm in the
    # morning": the yes settles the window and the pump; only the new date is asked about
    text = "We need a service visit pump P 100, in the morning."
    async with call() as c:
        said = await _turn(c, heard(text, 0.8, {"100,": 0.2}))
        assert "didn't catch that clearly" in said, said
        assert not c.field(ASSET).usable
        said = await _turn(c, heard("Yes, that's light, Wednesday that I'm in the morning.",
                                    0.68))
        assert c.field(ASSET).usable and c.field(ASSET).value == "P-100", said
        assert c.field(VISIT_WINDOW).usable and c.field(VISIT_WINDOW).value == "morning"
        assert not c.field(VISIT_DATE).usable, said  # "Wednesday that I'm": checked
        assert "Wednesday" in said and "P-100" not in said, said
    async with call() as c:  # a yes heard faintly settles nothing
        await _turn(c, heard(text, 0.8, {"100,": 0.2}))
        said = await _turn(c, heard("Yes, that's light, Wednesday that I'm in the morning.",
                                    0.68, {"Yes,": 0.2}))
        assert not c.field(ASSET).usable, said


@pytest.mark.parametrize(("text", "faint", "clear"), [
    # blind audio script: the answer heard word for word, "Thursday" at 0.11, was checked
    ("I mean the Thursday of next week, so that's the 10th of December.", "Thursday", True),
    ("I mean the Thursday of next week, so that's the 10th of December.", "10th", True),
    # a faint word in each mention: neither is heard clearly
    ("I mean the Thursday of next week, so that's the 10th of December.", "week,", False),
])
def test_a_date_named_twice_alike_is_heard_by_its_clearer_mention(text, faint, clear):
    slots = read_slots(text)
    [date_slot] = [s for s in slots if s.field == VISIT_DATE]
    assert (date_slot.value, "/" in date_slot.text) == ("2026-12-10", True)
    probabilities = {faint: 0.1}
    if not clear:
        probabilities.update({"Thursday": 0.1, "10th": 0.1})
    verdict = trust.judge(heard(text, 0.9, probabilities), slots, EXPECT)
    assert verdict.clear is clear, verdict


def test_two_mentions_that_name_different_days_are_each_heard():
    # "the 16th, no, the 18th": a correction, not the same day twice
    text = "the 16th no the 18th"
    slots = (SlotValue(VISIT_DATE, "2026-12-18", "the 16th / the 18th"),)
    verdict = trust.judge(heard(text, 0.9, {"16th": 0.1}), slots, EXPECT)
    assert not verdict.clear and verdict.reason == "a value word was heard faintly"


@pytest.mark.parametrize(("text", "clear"), [
    # "December the seventeenth, ten to eleven" heard as three dates, read as the 11th
    ("Can you move the P 200 visit for December 17th 10th 11th", False),
    ("Could we move P 200 for December 15th 16th 17th in the morning?", False),
    # a day said again, a day ruled out by "not", a correction said in words: no check
    ("Book P 200 for Friday, Friday morning.", True),
    ("Book P 200, not Wednesday Thursday, in the morning.", True),
    ("Book P 200 for the 16th, sorry, the 18th, in the morning.", True),
])
def test_two_days_back_to_back_with_no_word_between_are_checked(text, clear):
    judged_as(text, clear, "two days or times back to back with no word between them")


def test_a_value_word_at_the_faint_line_is_checked_and_one_above_it_is_not():
    """FAINT_WORD is 0.33 since words are scored under the likelier of two priors."""
    for probability, clear in ((0.32, False), (0.34, True)):
        words = tuple((w, probability if w == "Thursday" else 0.95) for w in SAID.split())
        verdict = trust.judge(Utterance(SAID, 0.9, words=words, no_speech=0.01), BOOK, EXPECT)
        assert verdict.clear is clear, verdict


@pytest.mark.parametrize(("text", "clear"), [
    # held-out set 25: "Correction, it's the Rotterdam one, same day and time" heard as
    # "collection is the lot of them one same day and time": the Utrecht pump was read
    ("Hello, I'm working a service for the Utrecht pump on Tuesday, but well from January at "
     "her first time, collection is the lot of them one same day and time.", False),
    ("P 200 on Tuesday the 12th of January at 9:30. Correction, it's P 100, same day and time.",
     True),
    ("P 100 on Friday at 10, the same time as last year.", True),
    ("P 100 on Friday at 10, and look at the seal at the same time.", True),
])
def test_the_same_day_said_with_no_correction_read_is_checked(text, clear):
    judged_as(text, clear, "'the same' was said and no correction was read")


def test_a_mistake_owned_with_nothing_after_it_takes_the_value_back():
    """Held-out set 25: "in the morning, oh, my mistake, afternoon would be better" heard as
    "in the morning, so I mistake after it would be better": the morning was read."""
    judged_as("Hello, I'd like the Utrecht pump service on Monday the 11th January in the "
              "morning, so I mistake after it would be better.", False,
              "a value is taken back and none of its kind follows")


@pytest.mark.parametrize(("text", "clear"), [
    # "February second" heard as "family second" (held-out set 17): the month is a guess
    ("We're looking at family second for pump P 100 11 o'clock in the morning.", False),
    ("Could P 200 come round blazing 3rd in the afternoon?", False),
    # a word that leads to the day, a weekday, a month said before or after it
    ("We're looking at February 2nd for pump P 100, 11 o'clock in the morning.", True),
    ("We're looking at Friday 4th for pump P 100, 11 o'clock in the morning.", True),
    ("We're looking at the 2nd for pump P 100, 11 o'clock in the morning.", True),
    ("The Rotterdam pump, 15th of December, quarter to 10 in the morning.", True),
    ("P 200 on the 17th, correction 24th in the morning.", True),
])
def test_a_day_of_the_month_after_a_word_that_leads_to_no_day_is_checked(text, clear):
    judged_as(text, clear, "the day's ordinal follows a word that leads to no day")


def test_two_faint_words_right_before_a_value_are_checked():
    """"From the 9th to the 11th, in the morning" heard as "from the high install 11 in the
    morning" (held-out set 8): "high" at 0.10 and "install" at 0.14 led to the hour 11, read
    as 11:00 with "morning" vouching for it. What led to the value is lost: checked. One
    faint word, or two faint words away from the value, is not this rule's."""
    time = (SlotValue(ASSET, "P-200", "p 200"), SlotValue(VISIT_TIME, "11:00", "11 in the morning"))
    text = "can we shift the P 200 visit from the high install 11 in the morning"
    both = trust.judge(heard(text, 0.8, {"high": 0.1, "install": 0.14, "11": 0.45}), time, EXPECT)
    assert not both.clear and both.reason == "two faint words lead into a value", both
    one = trust.judge(heard(text, 0.8, {"install": 0.14, "11": 0.45}), time, EXPECT)
    assert one.clear, one
    away = trust.judge(heard(text, 0.8, {"from": 0.1, "the": 0.14, "11": 0.45}), time, EXPECT)
    assert away.clear, away
