"""Conversational repair (issue 13, item 5): the agent never asks the identical question twice
in a row. An answer that does not resolve a question narrows it: a closed choice, a yes/no on
the most likely value, then an offer of a person that says why; a "no" buys one more try.

The ladder itself (agent/service/repair.py) is pure and tested without a world; the scenarios run
the real controller on the fakes (tests/fakes), one per kind of question, and check the `repair`
events, that no question repeats its predecessor, and that an answer at any step settles the field
and the booking is verified as before.
"""

from __future__ import annotations

from datetime import date

import pytest

from agent.core.caller import Asset, CallerProfile
from agent.core.names import BOOKING_REF
from agent.core.speech import SpeechKind
from agent.service.repair import (
    CONFIRMATION,
    LADDER,
    REQUEST,
    Asked,
    Question,
    Setting,
    Step,
    field_question,
    options_of,
    plan,
    repeats,
)
from agent.service.repair_answers import read_answer, settled_by_restating, settled_by_yes
from agent.understanding.proposals import Intent, Proposal, SlotValue
from tests.controller_support import ONE_PUMP, Call, call

pytestmark = pytest.mark.anyio

THURSDAY = "2026-12-03T09:00:00+01:00"  # "Thursday" on a Thursday: today or the 10th?
TWO_PUMPS = CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (
    Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
    Asset("P-200", "C1", "EU", "4 Dock Street, Rotterdam", kind="pump")))
SETTING = Setting(TWO_PUMPS, date(2026, 12, 1))


def _visit(ref: str, asset: str, day: str, window: str) -> dict:
    pump = TWO_PUMPS.asset(asset)
    assert pump is not None, asset  # only the caller's pumps are booked here
    site = pump.site
    return {"ref": ref, "asset": asset, "date": day, "window": window, "units": 1,
            "site": site, "contact": "tech-17", "status": "confirmed"}


TWO_VISITS = [_visit("BK-1001", "P-100", "2026-12-08", "morning"),
              _visit("BK-2002", "P-100", "2026-12-09", "afternoon")]


def steps(c: Call, field: str | None = None) -> list[str]:
    return [e.get("step") for e in c.events("repair")
            if field is None or e.get("field") == field]


def assert_no_question_repeats(c: Call) -> None:
    """No question the agent asked shares a question sentence with the one before it."""
    asked = [p.sentences for p in c.sink.plans if p.kind is SpeechKind.QUESTION]
    for before, after in zip(asked, asked[1:], strict=False):
        assert not repeats(after, before), (before, after)


# -- the ladder, pure ------------------------------------------------------------------------

def _walk(question: Question, answers: int, setting: Setting = SETTING) -> list[Asked]:
    """Ask ``question`` once, then again after each of ``answers`` turns that did not help."""
    asked: list[Asked] = []
    last = None
    for turn in range(answers + 1):
        last = plan(question, last, turn, setting)
        asked.append(last)
    return asked


def test_the_ladder_climbs_one_step_per_failed_answer_and_never_repeats():
    walked = _walk(field_question("visit_date", TWO_PUMPS, ("2026-12-04", "2026-12-02")), 5)
    assert [a.step for a in walked] == list(LADDER)
    said = [" ".join(a.sentences) for a in walked]
    assert said[0] == "Sorry, which one? Did you mean Friday 4 December or Wednesday 2 December?"
    assert said[1] == "Is it Friday the 4th, or tomorrow, Wednesday the 2nd?"  # spelled out
    assert said[2] == "Shall I put Friday the 4th?"  # the first candidate: said first
    assert said[3] == ("I'm having trouble getting the date right. "
                       "Would you like me to put you through to a colleague?")
    assert said[4].startswith("Okay, let's try once more.")
    assert said[5] == "Sorry, I'm still having trouble getting the date right."
    assert walked[2].proposes == (("visit_date", "2026-12-04"),)
    for before, after in zip(walked, walked[1:], strict=False):
        assert not repeats(after.sentences, before.sentences)


def test_an_open_question_narrows_to_a_choice_of_the_next_weekdays():
    walked = _walk(field_question("visit_date", TWO_PUMPS), 2)
    assert walked[0].sentences == ("Which day would suit you?",)
    assert walked[1].sentences == (
        "Would tomorrow, Wednesday the 2nd, or Thursday the 3rd suit you?",)
    assert walked[1].options == ("2026-12-02", "2026-12-03")
    assert walked[2].sentences == ("Shall I put tomorrow, Wednesday the 2nd?",)


def test_the_next_weekdays_skip_the_weekend():
    friday = Setting(TWO_PUMPS, date(2026, 12, 4))
    assert _walk(field_question("visit_date", TWO_PUMPS), 1, friday)[1].options == (
        "2026-12-07", "2026-12-08")


@pytest.mark.parametrize(("field", "choice", "yes_no"), [
    ("asset", "Is it P-100, or P-200?", "Is it P-100?"),
    ("visit_window", "Is it the morning, between 8 and 12, or the afternoon, between 1 and 5?",
     "Shall I put you down for the morning?"),
    ("opened", "Has it been opened, yes or no?", None),
    ("procedure", None, None),
])
def test_every_field_question_has_a_ladder(field, choice, yes_no):
    walked = _walk(field_question(field, TWO_PUMPS), 3)
    assert [a.step for a in walked][3] is Step.OFFER_HANDOFF
    if choice is None:
        assert walked[1].step is Step.REPHRASE  # nothing to name: the question in other words
    else:
        assert (walked[1].step, " ".join(walked[1].sentences)) == (Step.CLOSED_CHOICE, choice)
    if yes_no is None:
        assert walked[2].step is Step.REPHRASE
    else:
        assert (walked[2].step, " ".join(walked[2].sentences)) == (Step.YES_NO, yes_no)
    said = [a.sentences for a in walked]
    assert all(not repeats(b, a) for a, b in zip(said, said[1:], strict=False))


def test_values_held_together_are_offered_and_settled_together():
    together = (("visit_date", "2026-12-03"), ("visit_window", "morning"))
    walked = _walk(Question("visit_date", ("Sorry, I didn't catch that clearly.",
                                           "Did you mean Thursday 3 December, in the morning?"),
                            fields=("visit_date", "visit_window"), together=together), 2)
    assert walked[1].sentences == (
        "Is it Thursday 3 December, in the morning, or something else?",)
    assert walked[2].sentences == ("Shall I put Thursday 3 December, in the morning?",)
    read = read_answer(walked[2], Proposal(Intent.YES), "yes")
    assert {(s.field, s.value) for s in read.slots} == set(together)
    assert walked[2].expecting == "visit_date"


def test_a_yes_that_opens_a_turn_of_its_own_settles_what_was_read_back_together():
    together = (("visit_date", "2026-12-03"), ("visit_window", "morning"))
    asked = _walk(Question("visit_date", ("Sorry, I didn't catch that clearly.",
                                          "Did you mean Thursday 3 December, in the morning?"),
                           fields=("visit_date", "visit_window"), together=together), 0)[0]
    # "Yes, P-100, in the morning": the date comes from the yes, the window is said again
    own = Proposal(Intent.INFORM, (SlotValue("asset", "P-100", "p 100"),
                                   SlotValue("visit_window", "morning", "in the morning")))
    read = read_answer(asked, own, "Yes, P 100, in the morning.")
    assert read.slot("visit_date").value == "2026-12-03"
    assert settled_by_yes(asked, read, "Yes, P 100, in the morning.") == {
        "visit_date", "visit_window"}
    # "Yes, but the afternoon": the window is the turn's own, the date the yes's
    but = Proposal(Intent.CORRECTION, (SlotValue("visit_window", "afternoon", "the afternoon"),))
    read = read_answer(asked, but, "Yes, but the afternoon.")
    assert settled_by_yes(asked, read, "Yes, but the afternoon.") == {"visit_date"}
    # a turn that does not open with a yes settles nothing
    no = Proposal(Intent.INFORM, (SlotValue("visit_window", "afternoon", "the afternoon"),))
    assert read_answer(asked, no, "The afternoon.") is no
    assert settled_by_yes(asked, no, "The afternoon.") == frozenset()


def test_an_answer_that_says_the_checked_values_again_settles_them():
    together = (("visit_date", "2026-12-03"), ("visit_time", "14:30"),
                ("visit_window", "afternoon"), ("asset", "P-200"))
    asked = _walk(Question("visit_date", ("Sorry, I didn't catch that clearly.",
                                          "Did you mean Thursday 3 December, at 14:30, P-200?"),
                           fields=tuple(f for f, _ in together), together=together), 0)[0]

    def inform(*values: tuple[str, str], intent: Intent = Intent.INFORM, **kw) -> Proposal:
        return Proposal(intent, tuple(SlotValue(f, v, v) for f, v in values), **kw)
    # all of it, or a part of it, said again: what is said again is settled
    assert settled_by_restating(asked, inform(*together)) == {f for f, _ in together}
    assert settled_by_restating(asked, inform(("asset", "P-200"))) == {"asset"}
    # another value, a value taken back, a correction or a no: nothing
    assert settled_by_restating(asked, inform(("asset", "P-200"),
                                              ("visit_date", "2026-12-04"))) == frozenset()
    assert settled_by_restating(asked, inform(("asset", "P-200"),
                                              withdrawn=(("asset", "P-100"),))) == frozenset()
    assert settled_by_restating(asked, inform(("asset", "P-200"),
                                              intent=Intent.CORRECTION)) == frozenset()
    assert settled_by_restating(asked, inform(intent=Intent.NO)) == frozenset()
    # a confirmation is never settled by words said again: it needs its yes
    confirm = _walk(Question(CONFIRMATION, ("Shall I book it?",), together=together), 0)[0]
    assert settled_by_restating(confirm, inform(*together)) == frozenset()


@pytest.mark.parametrize("again", [
    "Thursday, laten at half past 2 for pump P 200",  # blind 39, heard so
    "P-200, Thursday, half past two.",
    "It's for P-200 on Thursday at half past two.",
])
async def test_a_check_answered_by_its_values_said_again_goes_on_to_the_read_back(again):
    async with call(caller=TWO_PUMPS) as c:
        reply = await c.say("Could I book an engineer for pump P-200 on Thursday at half past "
                            "two?", confidence=0.45)
        assert reply == ("Sorry, I didn't catch that clearly. "
                         "Did you mean Thursday 3 December, at 14:30, P-200?")
        reply = await c.say(again, confidence=0.45)
        assert reply == ("Let me check I have this right. A service visit for pump P-200 on "
                         "Thursday 3 December, at 14:30. Shall I book it?")
        assert not c.events("action_dispatched")


@pytest.mark.parametrize("answer", ["Friday at half past two, P-200.", "P-100, Thursday."])
async def test_a_check_answered_with_another_value_is_not_settled_by_it(answer):
    async with call(caller=TWO_PUMPS) as c:
        await c.say("Could I book an engineer for pump P-200 on Thursday at half past two?",
                    confidence=0.45)
        reply = await c.say(answer, confidence=0.45)
        assert not reply.startswith("Let me check I have this right."), reply


def test_the_guard_moves_on_when_another_question_would_sound_the_same():
    first = Question(CONFIRMATION, ("Shall I go ahead with that?",), key="a1", event="")
    again = Question(CONFIRMATION, ("Shall I go ahead with that?",), key="a2", event="",
                     confirm="Shall I book the visit for P-100 on Thursday 3 December?")
    asked = plan(first, None, 1, SETTING)
    # Another action, so no failed answer - but the same words: the next step instead.
    later = plan(again, asked, 5, SETTING)
    assert later.step is not Step.ASK and not repeats(later.sentences, asked.sentences)


def test_a_question_after_an_unrelated_turn_starts_the_ladder_again():
    question = field_question("visit_date", TWO_PUMPS)
    asked = plan(question, None, 1, SETTING)
    other = plan(field_question("visit_window", TWO_PUMPS), asked, 2, SETTING)
    assert plan(question, other, 3, SETTING).step is Step.ASK


def test_a_plain_yes_to_a_yes_no_step_gives_its_value():
    walked = _walk(field_question("visit_date", TWO_PUMPS, ("2026-12-04", "2026-12-02")), 2)
    yes = Proposal(Intent.YES)
    read = read_answer(walked[2], yes, "yes")
    assert read.intent is Intent.INFORM and read.slot("visit_date").value == "2026-12-04"
    assert read_answer(walked[1], yes, "yes") is yes  # "yes" to "Friday or Wednesday?"
    given = Proposal(Intent.INFORM, (SlotValue("visit_date", "2026-12-02", "the 2nd"),))
    assert read_answer(walked[2], given, "the 2nd") is given  # a value said wins


def test_an_ordinal_picks_an_option_of_a_closed_choice():
    walked = _walk(field_question("asset", TWO_PUMPS), 1)
    read = read_answer(walked[1], Proposal(Intent.UNKNOWN), "The second one.")
    assert read.slot("asset").value == "P-200"


@pytest.mark.parametrize(("said", "picked"), [
    ("The second one.", "P-200"),
    ("Um, the latter, please.", "P-200"),
    ("Oh, the first one you mentioned.", "P-100"),
    ("The second one you mentioned, the second.", "P-200"),
    ("The first one, no, the second one.", None),  # picks that disagree choose nothing
    ("The second one is broken.", None),  # more than a pick: read as said
])
def test_a_turn_of_picks_chooses_an_option_when_they_agree(said, picked):
    walked = _walk(field_question("asset", TWO_PUMPS), 1)
    read = read_answer(walked[1], Proposal(Intent.UNKNOWN), said)
    assert (read.slot("asset").value if read.slot("asset") else None) == picked, said


@pytest.mark.parametrize(("said", "picked"), [
    ("The later one.", "BK-2"),
    ("The second one you mentioned, the later one.", "BK-2"),  # blind round 22's f10
    ("That earlier booking, please.", "BK-1"),
    ("The first one, the later one.", None),  # BK-1 is the earlier: they disagree
])
def test_asked_which_booking_picks_by_place_and_by_time_agree(said, picked):
    asked = plan(field_question(BOOKING_REF, TWO_PUMPS, ("BK-1", "BK-2")), None, 0, SETTING)
    bookings = (("BK-1", "P-100", "2026-12-08"), ("BK-2", "P-100", "2026-12-10"))
    read = read_answer(asked, Proposal(Intent.UNKNOWN), said, bookings)
    assert (read.slot(BOOKING_REF).value if read.slot(BOOKING_REF) else None) == picked, said


def test_yes_to_is_it_about_a_booking_is_a_booking_request():
    walked = _walk(Question(REQUEST, ("How can I help?",), event=""), 2)
    assert walked[2].sentences == ("Is it about booking a service visit?",)
    assert read_answer(walked[2], Proposal(Intent.YES), "yes").intent is Intent.BOOK


# -- scenarios, one per kind of question ---------------------------------------------------

async def test_which_thursday_narrows_then_offers_a_person_and_yes_hands_off():
    async with call(caller=ONE_PUMP, clock=THURSDAY) as c:
        await c.say("Can you book a service visit for P-100 on Thursday morning?")
        assert c.events("clarification_requested")[-1].get("fields") == ("visit_date",)
        reply = await c.say("yes")
        assert reply == "Is it today, Thursday the 3rd, or Thursday the 10th?"
        reply = await c.say("hmm")
        assert reply == "Shall I put today, Thursday the 3rd?"
        reply = await c.say("no idea")
        assert reply == ("I'm having trouble getting the date right. "
                         "Would you like me to put you through to a colleague?")
        assert steps(c) == ["closed_choice", "yes_no", "offer_handoff"]
        assert {e.get("field") for e in c.events("repair")} == {"visit_date"}
        await c.say("yes")
        [handoff] = c.events("handoff")
        assert handoff.get("reason") == "repair_failed"
        assert c.controller.ctx.handed_off
        assert_no_question_repeats(c)
        await c.settle()
        assert c.bookings() == []
        assert not c.events("action_dispatched")


@pytest.mark.parametrize(("failed", "answer", "day"), [
    (0, "The 10th.", "2026-12-10"),
    (1, "Next week's, the 10th.", "2026-12-10"),
    (1, "the second one", "2026-12-10"),
    (2, "yes", "2026-12-03"),  # "Shall I put today, Thursday the 3rd?"
    (2, "No, Thursday the 10th.", "2026-12-10"),
    (3, "Oh, Thursday the 10th please.", "2026-12-10"),  # answered instead of the offer
])
async def test_an_answer_at_any_step_settles_the_date_and_the_booking_goes_on(failed, answer,
                                                                              day):
    async with call(caller=ONE_PUMP, clock=THURSDAY) as c:
        await c.say("Can you book a service visit for P-100 on Thursday morning?")
        for text in ("yes", "hmm", "no idea")[:failed]:
            await c.say(text)
        await c.say(answer)
        assert c.field("visit_date").value == day
        assert c.events("confirmation_requested", op="create_booking")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        [booking] = c.bookings()
        assert (booking["date"], booking["window"]) == (day, "morning")
        assert not c.events("handoff")
        assert_no_question_repeats(c)


async def test_no_to_the_offer_gives_one_more_try_that_can_succeed():
    async with call(caller=ONE_PUMP, clock=THURSDAY) as c:
        await c.say("Can you book a service visit for P-100 on Thursday morning?")
        for text in ("yes", "hmm", "no idea"):
            await c.say(text)
        reply = await c.say("no thanks")
        assert reply.startswith("Okay, let's try once more.") and "Thursday 10" in reply
        assert steps(c) == ["closed_choice", "yes_no", "offer_handoff", "retry"]
        await c.say("the 10th")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert [b["date"] for b in c.bookings()] == ["2026-12-10"]
        assert not c.events("handoff")


async def test_a_failed_try_after_declining_hands_off_and_says_why():
    async with call(caller=ONE_PUMP, clock=THURSDAY) as c:
        await c.say("Can you book a service visit for P-100 on Thursday morning?")
        for text in ("yes", "hmm", "no idea", "no"):
            await c.say(text)
        reply = await c.say("hmm")
        assert reply.startswith("Sorry, I'm still having trouble getting the date right.")
        assert "passing you to a colleague" in reply
        assert steps(c) == ["closed_choice", "yes_no", "offer_handoff", "retry", "handoff"]
        [handoff] = c.events("handoff")
        assert handoff.get("reason") == "repair_exhausted"
        assert_no_question_repeats(c)


async def test_which_pump_narrows_to_a_choice_and_an_ordinal_answers_it():
    async with call(caller=TWO_PUMPS) as c:
        await c.say("I need a service visit please.")
        assert c.events("clarification_requested")[-1].get("fields") == ("asset",)
        reply = await c.say("hmm")
        assert reply == "Is it P-100, or P-200?"
        reply = await c.say("the second one")
        assert c.field("asset").value == "P-200"
        assert reply.startswith("Which day")
        assert steps(c, "asset") == ["closed_choice"]
        assert_no_question_repeats(c)


async def test_which_pump_checks_the_first_when_the_choice_fails_too():
    async with call(caller=TWO_PUMPS) as c:
        await c.say("I need a service visit please.")
        await c.say("hmm")
        reply = await c.say("the big one")
        assert reply == "Is it P-100?"
        assert steps(c, "asset") == ["closed_choice", "yes_no"]
        await c.say("yes")
        assert c.field("asset").value == "P-100"
        assert_no_question_repeats(c)


async def test_an_answer_that_names_both_pumps_again_climbs_the_ladder():
    # Blind script b10-08: "the pump owner in Utrecht" (misheard) gave both pumps again, and
    # the agent said "I already have that" of a pump it did not have, then stalled.
    async with call(caller=TWO_PUMPS) as c:
        await c.say("Could you service the pump on Thursday morning?")
        assert c.events("clarification_requested")[-1].get("fields") == ("asset",)
        reply = await c.say("The pump, the one we have.")
        assert "already have" not in reply
        assert reply == "Is it P-100, or P-200?"
        assert steps(c, "asset") == ["closed_choice"]
        assert c.field("visit_date").value == "2026-12-03"
        assert_no_question_repeats(c)


async def test_which_day_suggests_days_and_yes_takes_the_suggestion():
    async with call(caller=ONE_PUMP) as c:  # Tuesday 1 December
        await c.say("Book a service visit for P-100 in the morning.")
        assert "Which day" in c.sink.last
        reply = await c.say("whenever really")
        assert reply == "Would tomorrow, Wednesday the 2nd, or Thursday the 3rd suit you?"
        reply = await c.say("hmm")
        assert reply == "Shall I put tomorrow, Wednesday the 2nd?"
        await c.say("yes")
        assert c.field("visit_date").value == "2026-12-02"
        assert c.events("confirmation_requested", op="create_booking")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert [(b["date"], b["window"]) for b in c.bookings()] == [("2026-12-02", "morning")]
        assert steps(c) == ["closed_choice", "yes_no"]


@pytest.mark.parametrize("ruling_out", ["Oh, hang on, Wednesday's no good for us after all.",
                                        "Not Wednesday, sorry."])
async def test_a_day_the_caller_ruled_out_is_never_suggested(ruling_out):
    # blind audio script: "Wednesday's no good" was answered "Would tomorrow, Wednesday the
    # 2nd, or Thursday the 3rd suit you?", then "Shall I put tomorrow, Wednesday the 2nd?"
    async with call(caller=ONE_PUMP) as c:  # Tuesday 1 December
        await c.say("Could you get someone out to P-100 on Wednesday afternoon?")
        await c.say(ruling_out)
        assert c.field("visit_date").value is None
        reply = await c.say("whenever really")
        assert reply == "Would Thursday the 3rd, or Friday the 4th suit you?"
        reply = await c.say("hmm")
        assert reply == "Shall I put Thursday the 3rd?"
        await c.say("Actually Wednesday is fine after all.")  # named again: allowed again
        assert c.field("visit_date").value == "2026-12-02"


def test_a_value_ruled_out_is_no_option_of_a_choice():
    setting = Setting(TWO_PUMPS, date(2026, 12, 1), ruled_out=frozenset({
        ("asset", "P-200"), ("visit_date", "2026-12-02"), ("visit_date", "2026-12-04")}))
    assert options_of(field_question("asset", TWO_PUMPS), setting) == ("P-100",)
    assert options_of(field_question("visit_date", TWO_PUMPS), setting) == (
        "2026-12-03", "2026-12-07")
    heard = field_question("visit_date", TWO_PUMPS, ("2026-12-02", "2026-12-08"))
    assert options_of(heard, setting) == ("2026-12-08",)


def test_a_window_or_a_booking_ruled_out_is_no_option_of_a_choice():
    """Blind round 37: "could you make that the afternoon instead of the morning?", its
    "afternoon" misheard, was answered "Morning or afternoon?" and then "Shall I put you down
    for the morning?": the one window the caller had ruled out."""
    setting = Setting(TWO_PUMPS, date(2026, 12, 1), ruled_out=frozenset({
        ("visit_window", "morning"), ("booking_ref", "BK-1")}),
        bookings=(("BK-1", "P-100", "2026-12-03"), ("BK-2", "P-200", "2026-12-04")))
    assert options_of(field_question("visit_window", TWO_PUMPS), setting) == ("afternoon",)
    assert options_of(field_question("booking_ref", TWO_PUMPS), setting) == ("BK-2",)


async def test_a_window_ruled_out_in_a_misheard_correction_is_never_offered():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        # "could you make that the afternoon instead of the morning?", misheard
        reply = await c.say("Could you make not have to do instead of the morning?")
        assert c.field("visit_window").value is None
        assert reply == "Is it the afternoon, between 1 and 5, or something else?"
        reply = await c.say("hmm")  # the ladder climbs from there, still never to the morning
        assert reply == "Shall I put you down for the afternoon?"
        await c.say("yes")
        assert c.field("visit_window").value == "afternoon"


async def test_morning_or_afternoon_is_spelled_out_then_checked():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday.")
        assert c.sink.last == "Morning or afternoon?"
        reply = await c.say("dunno")
        assert reply == ("Is it the morning, between 8 and 12, or the afternoon, "
                         "between 1 and 5?")
        reply = await c.say("whatever suits you")
        assert reply == "Shall I put you down for the morning?"
        await c.say("yes")
        assert c.field("visit_window").value == "morning"
        assert steps(c, "visit_window") == ["closed_choice", "yes_no"]


async def test_which_booking_names_the_callers_bookings():
    async with call(caller=ONE_PUMP, bookings=TWO_VISITS) as c:
        reply = await c.say("I want to move my booking to Friday morning.")
        assert c.events("clarification_requested")[-1].get("fields") == ("booking_ref",)
        assert reply == ("Which booking do you mean? Is it booking BK-1001 for P-100 on Tuesday "
                         "8 December, or booking BK-2002 for P-100 on Wednesday 9 December?")
        reply = await c.say("yes")  # "yes" to an either-or resolves nothing
        assert reply == "Do you mean booking BK-1001 for P-100 on Tuesday 8 December?"
        await c.say("yes")
        assert c.field("booking_ref").value == "BK-1001"
        assert c.events("confirmation_requested", op="reschedule_booking")
        await c.say("yes")
        await c.until("confirmation_spoken", op="reschedule_booking")
        moved = {b["ref"]: b["date"] for b in c.bookings()}
        assert moved == {"BK-1001": "2026-12-04", "BK-2002": "2026-12-09"}
        assert_no_question_repeats(c)


async def test_a_pick_answers_the_yes_no_on_one_of_the_bookings_named():
    # blind round 27: "The later one" said once the ladder asks about the first booking alone
    async with call(caller=ONE_PUMP, bookings=TWO_VISITS) as c:
        await c.say("We need to cancel the Harbour Road visit.")
        reply = await c.say("Hmm, I'm not sure.")
        assert reply == "Do you mean booking BK-1001 for P-100 on Tuesday 8 December?"
        await c.say("The later one, please.")
        assert c.field("booking_ref").value == "BK-2002"
        assert c.events("confirmation_requested", op="cancel_booking")


@pytest.mark.parametrize("said", [
    "No wait, did I have one, but when's made visit is the one to cancel.",  # blind 38, heard
    "No, that's not the one to cancel.",
    "Hang on, the one to cancel is something else.",
])
async def test_a_cancel_read_back_refused_without_naming_another_cancels_nothing(said):
    async with call(caller=TWO_PUMPS, bookings=TWO_VISITS) as c:
        await c.say("We won't be needing the engineer on Tuesday the 8th after all.")
        assert c.events("confirmation_requested", op="cancel_booking")
        reply = await c.say(said)
        assert reply == ("Okay, I won't cancel it. Booking BK-1001 stays as it is. "
                         "Is there anything else I can help with?")
        assert not c.events("action_dispatched")
        reply = await c.say("Yes, cancel the one on the 9th.")
        assert reply.startswith("Just to confirm. Cancel booking BK-2002")
        await c.say("Yes.")
        await c.until("confirmation_spoken", op="cancel_booking")
        assert [b["ref"] for b in c.bookings()] == ["BK-1001"]


async def test_more_bookings_than_a_question_can_name_are_asked_about_openly():
    visits = [dict(TWO_VISITS[0], ref=f"BK-{n}", date=f"2026-12-{n:02d}") for n in range(7, 11)]
    async with call(caller=ONE_PUMP, bookings=visits) as c:
        reply = await c.say("Cancel my P-100 visit, please.")
        assert reply == "Which booking do you mean?"


async def test_a_confirmation_that_gets_neither_yes_nor_no_climbs_the_ladder():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        assert c.events("confirmation_requested", op="create_booking")
        reply = await c.say("maybe")
        assert reply == "Shall I go ahead with that? Just say yes or no."
        reply = await c.say("hmm")
        assert reply == ("Sorry, I still need a yes or a no. "
                         "Shall I book the visit for P-100 on Thursday 3 December, "
                         "in the morning?")
        reply = await c.say("well")
        assert reply.startswith("I'm having trouble getting a clear yes or no.")
        assert steps(c, CONFIRMATION) == ["closed_choice", "yes_no", "offer_handoff"]
        reply = await c.say("no")  # no to a person: the draft stands, one more try
        assert reply.startswith("Okay, let's try once more.")
        assert not c.events("action_cancelled")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert len(c.bookings()) == 1
        assert len(c.events("confirmation_requested")) == 1  # one confirmation per action
        assert_no_question_repeats(c)


async def test_a_correction_while_a_confirmation_is_pending_reads_back_the_new_values():
    # A new action is a new question: its read-back says the corrected values, never only
    # "Shall I go ahead?" (the guard counts a question as repeated only when it tells nothing new).
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday at 2 pm.")
        assert "Thursday 3 December, at 14:00" in c.sink.last
        reply = await c.say("Fri 9am")
        assert "Friday 4 December, at 09:00" in reply and reply.endswith("Shall I book it?")
        assert not steps(c)
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert [(b["date"], b["time"]) for b in c.bookings()] == [("2026-12-04", "09:00")]


# -- a yes not heard clearly consents to nothing (round 31) ---------------------------------

async def test_a_yes_heard_unclearly_books_nothing_until_a_clear_one():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        assert c.events("confirmation_requested", op="create_booking")
        reply = await c.say("yes", confidence=0.3)
        assert reply == "Sorry, I didn't catch that clearly. Was that a yes or a no?"
        assert steps(c, CONFIRMATION) == ["closed_choice"]
        assert not c.events("action_dispatched")
        reply = await c.say("yeah", confidence=0.35)  # doubtful again: the ladder climbs
        assert reply == ("Sorry, I still need a yes or a no. "
                         "Shall I book the visit for P-100 on Thursday 3 December, "
                         "in the morning?")
        assert not c.events("action_dispatched")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert len(c.bookings()) == 1
        assert_no_question_repeats(c)


@pytest.mark.parametrize(("word", "answer", "booked"), [
    (0.3, 0.98, True),  # a faint word, told surely apart from "no": heard
    (0.3, 0.2, False),  # told apart from "no" no better than chance: asked again
    (0.2, None, False),  # no share against the other answer, the word faint: asked again
])
async def test_a_spoken_yes_at_a_read_back_is_heard_as_surely_as_it_was_told_from_no(
        word, answer, booked):
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        reply = await c.say("Yes.", confidence=word, words=(("Yes.", word),), answer=answer)
        assert ("yes or a no" in reply) is not booked, reply
        await c.settle()
        assert len(c.bookings()) == booked


async def _offered_a_colleague(c: Call) -> None:
    await c.say("Can you book a service visit for P-100 on Thursday morning?")
    for text in ("yes", "hmm", "no idea"):
        await c.say(text)
    assert steps(c) == ["closed_choice", "yes_no", "offer_handoff"]


async def test_a_yes_to_the_offer_of_a_person_heard_unclearly_puts_the_offer_again():
    async with call(caller=ONE_PUMP, clock=THURSDAY) as c:
        await _offered_a_colleague(c)
        reply = await c.say("yes", confidence=0.3)
        assert reply == ("Sorry, I didn't catch that clearly. "
                         "Would you like me to put you through to a colleague?")
        assert not c.events("handoff")
        assert steps(c) == ["closed_choice", "yes_no", "offer_handoff", "offer_handoff"]
        reply = await c.say("no thanks")  # the same step of the ladder: one more try
        assert reply.startswith("Okay, let's try once more.")
        await c.say("the 10th")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert [b["date"] for b in c.bookings()] == ["2026-12-10"]
        assert not c.events("handoff")
        assert_no_question_repeats(c)


@pytest.mark.parametrize("second", [("yeah", 0.35), ("yes please", 1.0)])
async def test_a_second_yes_to_the_offer_put_again_hands_over(second):
    async with call(caller=ONE_PUMP, clock=THURSDAY) as c:
        await _offered_a_colleague(c)
        await c.say("yes", confidence=0.3)
        text, confidence = second
        await c.say(text, confidence=confidence)
        [handoff] = c.events("handoff")
        assert handoff.get("reason") == "repair_failed"


async def test_a_yes_to_a_colleague_after_a_refusal_heard_unclearly_is_asked_again():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        reply = await c.say("I'm calling for Globex, book it on their account")
        assert reply.endswith("Shall I put you through?")
        reply = await c.say("yes", confidence=0.3)
        assert reply == "Sorry, I didn't catch that clearly. Shall I put you through?"
        assert not c.events("handoff")
        [put_again] = c.events("repair")
        assert (put_again.get("step"), put_again.get("field")) == ("offer_handoff", "person")
        await c.say("Yes.", confidence=0.3, words=(("Yes.", 0.3),), answer=0.99)
        assert c.events("handoff")[-1].get("reason") == "caller_accepted_person"


async def test_yes_or_no_heard_both_ways_twice_is_not_asked_the_same_way_twice():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        first = await c.say("yes", confidence=0.9, alternatives=("no",))
        assert "yes or a no" in first
        second = await c.say("no", confidence=0.9, alternatives=("yes",))
        assert second != first and "Shall I book the visit for P-100" in second
        assert steps(c, CONFIRMATION) == ["closed_choice", "yes_no"]
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert len(c.bookings()) == 1


async def test_how_can_i_help_narrows_to_a_booking():
    async with call(caller=ONE_PUMP) as c:
        assert (await c.say("hmm")).startswith("How can I help?")
        reply = await c.say("hmm")
        assert "book, move or cancel a service visit" in reply
        reply = await c.say("erm")
        assert reply == "Is it about booking a service visit?"
        await c.say("yes")
        assert c.controller.focus == "booking"
        assert steps(c, REQUEST) == ["closed_choice", "yes_no"]
        await c.say("Thursday morning")
        await c.say("yes")
        await c.until("confirmation_spoken", op="create_booking")
        assert len(c.bookings()) == 1
        assert_no_question_repeats(c)


async def test_a_refused_value_counts_as_a_failed_answer():
    async with call(caller=ONE_PUMP) as c:  # Tuesday 1 December
        await c.say("Book a service visit for P-100 in the morning.")
        reply = await c.say("Last Monday.")
        assert "has already passed" in reply and "Would tomorrow" in reply
        assert steps(c, "visit_date") == ["closed_choice"]
        await c.say("Thursday")
        assert c.field("visit_date").value == "2026-12-03"


async def test_the_question_on_the_table_is_state_not_read_from_the_trace():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Book a service visit for P-100 on Thursday morning.")
        await c.say("Actually make it Friday.", confidence=0.4)  # held: "Did you mean ...?"
        assert c.field("visit_date").value == "2026-12-03" or not c.field("visit_date").usable
        c.trace.events.clear()  # the audit log is gone; the dialogue state is not
        await c.say("yes")
        assert c.field("visit_date").value == "2026-12-04"


async def test_a_choice_never_offers_a_window_that_cannot_be_booked():
    # blind audio script: "Wednesday the ninth in the morning" heard as "Wednesday the night in
    # the morning" was asked "Did you mean night or morning?", then "Shall I put you down for
    # night?"
    async with call(caller=ONE_PUMP) as c:
        reply = await c.say("Could someone come and service P-100 on Wednesday the night in "
                            "the morning?")
        assert "night" not in reply.lower(), reply
        [unresolved] = [e for e in c.events("field_unresolved")
                        if tuple(e.get("fields")) == ("visit_window",)]
        assert tuple(unresolved.get("candidates")) == ("morning",)
        reply = await c.say("hmm")
        assert "night" not in reply.lower(), reply


BOOKED = [{"ref": "BK-3101", "asset": "P-100", "date": "2026-12-08", "window": "morning",
           "units": 1, "site": "12 Harbour Road, Rotterdam", "contact": "tech-17",
           "status": "confirmed"},
          {"ref": "BK-3102", "asset": "P-200", "date": "2026-12-10", "window": "afternoon",
           "units": 1, "site": "4 Canal Street, Utrecht", "contact": "tech-17",
           "status": "confirmed"}]


async def test_which_booking_names_the_one_the_values_heard_fit_and_a_yes_settles_it():
    # blind audio script: "cancel ... P 100 on the 8th" heard unclearly was asked an open
    # "Which booking do you mean?", though only one booking fits
    async with call(caller=TWO_PUMPS, bookings=BOOKED) as c:
        reply = await c.say("Hi, I'm ringing to cancel the service visit for pump P 100 on "
                            "the 8th.", confidence=0.5)
        assert reply == ("Sorry, I didn't catch that clearly. Did you mean booking BK-3101 "
                         "for P-100 on Tuesday 8 December?")
        await c.say("Yes.")
        assert c.field("booking_ref").value == "BK-3101"
        assert c.events("confirmation_requested", op="cancel_booking")


async def test_which_booking_stays_open_when_nothing_heard_narrows_it():
    async with call(caller=TWO_PUMPS, bookings=BOOKED) as c:
        assert await c.say("I need to cancel a visit.") == "Which booking do you mean?"


async def test_which_booking_for_a_move_narrows_by_the_asset_not_the_day():
    # a move's day is where it goes: "Friday" names no booking
    async with call(caller=TWO_PUMPS, bookings=BOOKED) as c:
        reply = await c.say("Could you move the P 200 visit to Friday?", confidence=0.5)
        assert "booking BK-3102 for P-200 on Thursday 10 December" in reply
        assert "BK-3101" not in reply


@pytest.mark.parametrize(("answer", "settled"), [
    ("Thursday afternoon, yes.", True),  # a blind audio round: the pump was asked again
    ("Thursday in the afternoon, yes please", True),
    ("Thursday morning, yes.", False),  # a value the check did not read back: no yes to all
])
async def test_a_check_answered_with_its_values_then_yes_settles_every_value_read_back(
        answer, settled):
    async with call(caller=TWO_PUMPS) as c:
        reply = await c.say("Can I book a service visit for pump the 100 on Tuesday, sorry "
                            "Thursday afternoon.", confidence=0.5)
        assert reply.startswith("Sorry, I didn't catch that clearly. Did you mean Thursday 3 "
                                "December, in the afternoon, P-100?"), reply
        reply = await c.say(answer)
        assert ("Shall I book it?" in reply and "P-100" in reply) is settled, reply
        if not settled:
            assert c.field("asset").value is None


@pytest.mark.parametrize("answer", ["afternoon, yes.", "The afternoon.", "Yes, the afternoon."])
async def test_a_check_of_one_value_is_settled_by_saying_it_again_however_faintly(answer):
    """Blind round 45 (audio): a correction heard unclearly got "Did you mean afternoon?", and
    "afternoon, yes." heard at 0.34 climbed to "Is it the afternoon, ... or something else?".
    A check that names one value proposes it, as one that names several does: saying it again
    settles it (two hearings agree), and the visit is read back in full before anything."""
    async with call() as c:
        await c.say("I need an engineer at the Dock Street pump on Thursday morning.")
        await c.until("confirmation_requested")
        said = await c.say("Hmm, the afternoon with the test matter.", confidence=0.33)
        assert "Did you mean afternoon?" in said, said
        said = await c.say(answer, confidence=0.34)
        assert "in the afternoon. Shall I book it?" in said, said
        assert not c.events("repair") and c.field("visit_window").value == "afternoon"
