"""Moving and cancelling a visit already booked, said the way callers say it: the visit named by
its day, its part of the day, its site, its reference or its place in a list, and the change
said with any verb of moving (blind text round 12, 2026-12-05), or by its week (round 17,
2026-12-06). Text in, on the fakes."""

from __future__ import annotations

import pytest

from tests.controller_support import ONE_PUMP, call
from tests.fakes.booking import FakeBookingPort, FakeUnavailable

pytestmark = pytest.mark.anyio

VISIT = {"asset": "P-100", "window": "morning", "units": 1, "site": "12 Harbour Road, Rotterdam",
         "contact": "tech-17", "status": "confirmed"}
WEDNESDAY = {**VISIT, "ref": "BK-5501", "date": "2026-12-02"}
FRIDAY = {**VISIT, "ref": "BK-5502", "date": "2026-12-04", "asset": "P-200",
          "site": "4 Dock Street, Rotterdam", "window": "afternoon"}
THURSDAY_PM = {**VISIT, "ref": "BK-5503", "date": "2026-12-03", "window": "afternoon"}


@pytest.mark.parametrize("said", [
    "Hi there, it's about the Wednesday one. Can it go to Friday instead?",
    "Could you slide the Wednesday visit to Friday?",
    "Can you nudge Wednesday's booking over to Friday?"])
async def test_a_visit_named_by_its_day_is_moved_whatever_the_verb(said):
    async with call(bookings=[WEDNESDAY, FRIDAY, THURSDAY_PM]) as c:
        await c.moved(said, "BK-5501", "2026-12-04", "morning")


async def test_a_visit_named_by_its_part_of_the_day_keeps_its_day_when_only_that_moves():
    async with call(bookings=[WEDNESDAY, FRIDAY]) as c:
        await c.moved("You know the morning visit we've got with you? Could you bump it to "
                      "the afternoon, same day.", "BK-5501", "2026-12-02", "afternoon")


async def test_a_visit_named_by_its_street_is_moved_by_an_amount():
    async with call(bookings=[WEDNESDAY, FRIDAY]) as c:
        await c.moved("The visit over at Dock Street, could you slide it back a week?",
                     "BK-5502", "2026-12-11", "afternoon")


async def test_a_booking_reference_with_a_new_day_is_a_move():
    async with call(bookings=[WEDNESDAY, FRIDAY]) as c:
        await c.moved("Hi, it's about booking BK-5502. Can you make it the 14th instead?",
                     "BK-5502", "2026-12-14", "afternoon")


async def test_the_later_one_picks_the_later_booking_named():
    both = [WEDNESDAY, {**THURSDAY_PM, "window": "morning"}, FRIDAY]
    async with call(bookings=both) as c:
        reply = await c.say("I need to push our P-100 visit to Monday.")
        assert "BK-5501" in reply and "BK-5503" in reply, reply
        await c.moved("The later one.", "BK-5503", "2026-12-07", "morning")


async def test_a_visit_no_longer_needed_named_by_its_asset_is_cancelled():
    async with call(bookings=[WEDNESDAY, FRIDAY]) as c:
        await c.say("We won't need the P-200 one after all.")
        await c.until("confirmation_requested", op="cancel_booking")
        assert "Cancel booking BK-5502" in c.sink.last, c.sink.last


NEXT_WEEK = {**VISIT, "ref": "BK-5504", "date": "2026-12-09", "asset": "P-200",
             "site": "4 Dock Street, Rotterdam"}


@pytest.mark.parametrize("said", [
    "The visit you've got us down for next week, could you bump it to the afternoon? Same day "
    "is fine.",
    "Can next week's visit go to the afternoon instead?"])
async def test_a_visit_named_by_its_week_is_the_one_moved(said):
    """Round 17: "next week" said no day, so it named no booking, and the agent asked which."""
    async with call(bookings=[{**FRIDAY, "asset": "P-100"}, NEXT_WEEK]) as c:
        await c.moved(said, "BK-5504", "2026-12-09", "afternoon")


async def test_a_move_to_a_week_names_where_it_goes_not_the_visit():
    async with call(bookings=[FRIDAY, NEXT_WEEK]) as c:
        reply = await c.say("Could you push the visit to next week?")
        assert "Which booking do you mean?" in reply, reply


async def test_a_move_of_a_window_keeps_its_day_once_the_booking_is_named_later():
    """Round 17: the window came first, the booking after "Which booking do you mean?", and
    the agent then asked which day though the move named only the part of the day."""
    async with call(bookings=[WEDNESDAY, NEXT_WEEK]) as c:
        reply = await c.say("Could you bump our visit to the afternoon?")
        assert "Which booking do you mean?" in reply, reply
        await c.moved("The one on the 9th, at Dock Street.", "BK-5504", "2026-12-09",
                      "afternoon")


async def test_asked_which_booking_a_week_picks_the_one_in_it():
    async with call(bookings=[FRIDAY, NEXT_WEEK]) as c:
        await c.say("I need to cancel one of our visits.")
        await c.settled("The one next week.", "cancel_booking")
        assert [b["ref"] for b in c.bookings()] == ["BK-5502"]


async def test_a_weekday_that_may_be_today_or_next_week_is_the_booked_one():
    """Round 17: "the Tuesday one" said on a Tuesday was today or the 8th, and the agent asked
    "Did you mean ..." about a typed turn; one booking is on one of the two."""
    tuesday = {**VISIT, "ref": "BK-9001", "date": "2026-12-08"}
    async with call(bookings=[tuesday, {**FRIDAY, "date": "2026-12-17"}]) as c:
        await c.settled("Right, the Tuesday one, we won't be needing that any more, can you "
                        "call it off?", "cancel_booking")
        assert not c.events("clarification_requested")
        assert [b["ref"] for b in c.bookings()] == ["BK-5502"]


@pytest.mark.parametrize("said", ["When's the engineer coming?",
                                  "Is the engineer still coming on the 8th?",
                                  "Can you remind me when our visits are?",
                                  "Can you remind me what we've got booked at the moment?"])
async def test_a_question_about_the_callers_visits_is_answered_from_the_booking_system(said):
    """Blind round 14's writer could not ask "when's the engineer coming?": it was "How can I
    help?". The answer is the booking system's, soonest first; nothing is booked or changed."""
    first = {**VISIT, "ref": "BK-1", "date": "2026-12-08"}
    later = {**VISIT, "ref": "BK-LATER", "asset": "P-200", "date": "2026-12-10",
             "window": "afternoon", "site": "4 Dock Street, Rotterdam"}
    async with call(bookings=[later, first]) as c:
        reply = await c.say(said)
        await c.settle()
        assert c.events("proposal")[-1].get("intent") == "status_question"
        assert reply.startswith("You have 2 visits booked: booking BK-1 for pump P-100 on "
                                "Tuesday 8 December, in the morning, and booking BK-LATER"), reply
        assert not c.events("confirmation_requested")
        assert sorted((b["ref"], b["version"]) for b in c.bookings()) == [("BK-1", 1),
                                                                         ("BK-LATER", 1)]
        assert c.field("visit_date") is None  # nothing the question said is held


async def test_a_question_about_visits_asked_back_puts_the_question_again():
    # blind round 27's n14: asked which day, the caller asked what they had booked; the agent
    # answered and left the question unasked
    async with call(bookings=[{**VISIT, "ref": "BK-1", "date": "2026-12-08"}]) as c:
        await c.say("I'd like to book a service for P-200.")
        assert c.sink.last == "Which day would suit you?"
        reply = await c.say("Hang on, what have we already got booked with you?")
        assert reply == ("You have one visit booked: booking BK-1 for pump P-100 on Tuesday "
                         "8 December, in the morning. Which day would suit you?"), reply
        assert not c.events("repair")  # put afresh, no step of the repair ladder
        await c.say("Right, then Wednesday the 9th in the afternoon.")
        await c.until("confirmation_requested", op="create_booking")


@pytest.mark.parametrize("declining", [
    "Hmm, on second thoughts, don't cancel it after all, leave it where it is.",
    "Actually, no.",
    "I'd rather not cancel it, to be honest.",
])
async def test_a_cancel_declined_keeps_the_booking_and_says_so(declining):
    # blind round 27's n11: "don't cancel it after all" was no answer ("Shall I go ahead with
    # that?"), and a no was followed by "What would you like to change?"
    async with call(bookings=[THURSDAY_PM]) as c:
        await c.say("Cancel the P-100 visit on Thursday afternoon.")
        assert "Cancel booking BK-5503" in c.sink.last
        reply = await c.say(declining)
        assert reply == ("Okay, I won't cancel it. Booking BK-5503 stays as it is. Is there "
                         "anything else I can help with?"), reply
        await c.say("No, that's all, thanks.")
        await c.settle()
        assert [(b["ref"], b["status"]) for b in c.bookings()] == [("BK-5503", "confirmed")]
        assert not c.notifications()


async def test_a_question_about_visits_with_none_booked_says_so():
    async with call() as c:
        reply = await c.say("Have we got anything booked?")
        assert "I don't see a visit booked on your account." in reply, reply
        await c.say("OK, then could you book P-100 for Friday morning?")
        await c.until("confirmation_requested", op="create_booking")


# Blind round 22: a booking named by its street alone, moved or called off without a verb the
# rules had listed, and a day moved from that is open between two readings.
TUESDAY_NEXT = {**VISIT, "ref": "BK-5401", "date": "2026-12-08"}
DOCK_THURSDAY = {**FRIDAY, "ref": "BK-5402", "date": "2026-12-03"}


@pytest.mark.parametrize("said", [
    "Hiya, the visit you've got us down for on Thursday at Dock Street, could your chap come "
    "at half two instead?",
    "Right, the engineer coming out to Dock Street, can they make it half two rather?",
])
async def test_a_booking_named_by_its_street_alone_is_the_one_moved(said):
    async with call(bookings=[THURSDAY_PM, DOCK_THURSDAY]) as c:  # both on Thursday
        await c.moved(said, "BK-5402", "2026-12-03", "afternoon", read_back=("at 14:30",))


async def test_a_street_alone_names_the_visit_called_off():
    async with call(bookings=[THURSDAY_PM, DOCK_THURSDAY]) as c:
        await c.say("Hi, it's about the engineer coming to Dock Street on Thursday, we'd like "
                    "to call it off, please.")
        await c.until("confirmation_requested", op="cancel_booking")
        assert "Cancel booking BK-5402" in c.sink.last, c.sink.last


@pytest.mark.parametrize("said", [
    "Morning, er, could our Harbour Road booking come forward to Friday?",
    "Could that visit come a couple of days later, to Friday?",
])
async def test_a_booking_that_comes_forward_or_later_is_moved(said):
    async with call(bookings=[TUESDAY_NEXT]) as c:
        await c.moved(said, "BK-5401", "2026-12-04", "morning")


@pytest.mark.parametrize("said", [
    "So that Tuesday one at Harbour Road, could it slide to Thursday the 10th?",
    "Could the Tuesday visit slide to Wednesday the 9th? Hmm, no, we've got stocktake that "
    "day, Thursday the 10th instead.",
])
async def test_a_day_moved_from_said_on_that_weekday_names_the_booking_by_either_reading(said):
    # said on Tuesday 1 December: "Tuesday" is today or the 8th; the booking is on the 8th
    async with call(bookings=[TUESDAY_NEXT, {**FRIDAY, "date": "2026-12-17"}]) as c:
        await c.moved(said, "BK-5401", "2026-12-10", "morning")


@pytest.mark.parametrize("declining", [
    "Actually, rather than scrapping it, could he come on Monday the 7th instead, in the morning?",
    "Hmm, don't cancel it after all, Monday the 7th in the morning would be better.",
    "Instead of calling it off, can you move it to Monday the 7th?",
])
async def test_a_cancel_declined_with_a_new_day_moves_the_booking_and_can_be_cancelled_again(
        declining):
    async with call(bookings=[THURSDAY_PM, DOCK_THURSDAY]) as c:
        await c.say("It's about the engineer coming to Dock Street on Thursday, we'd like to "
                    "call it off, please.")
        assert "Cancel booking BK-5402" in c.sink.last
        reply = await c.say(declining)
        assert "Move booking BK-5402" in reply and "Monday 7 December" in reply, reply
        reply = await c.say("Ugh, no, forget Monday, just cancel the whole thing.")
        assert "Cancel booking BK-5402" in reply, reply
        await c.say("Yes.")
        await c.until("confirmation_spoken", op="cancel_booking")
        assert [(b["ref"], b["date"], b["version"]) for b in c.bookings()] == [
            ("BK-5503", "2026-12-03", 1)]  # BK-5402 cancelled, never moved
        assert [n["kind"] for n in c.notifications()] == ["cancellation"]


async def test_the_other_one_with_a_cancel_on_the_table_is_the_other_booking():
    # blind round 22's f03: one pump, two visits; "the other one" was read as another pump
    one_pump_thursday = {**THURSDAY_PM, "ref": "BK-4301", "window": "morning"}
    friday = {**VISIT, "ref": "BK-4302", "date": "2026-12-04", "window": "afternoon"}
    async with call(caller=ONE_PUMP, bookings=[one_pump_thursday, friday]) as c:
        await c.say("Hi, er, could you cancel the Thursday visit at Harbour Road, please?")
        assert "Cancel booking BK-4301" in c.sink.last
        reply = await c.say("Nope, the other one, sorry, that's the one to cancel.")
        assert "Cancel booking BK-4302" in reply, reply


async def test_the_other_pump_of_a_booked_visit_is_other_than_the_bookings_own():
    # blind round 12's b09: "the other pump" was left open, then settled by the booking found
    # to its own pump, and the agent said "Booking BK-1 is already for that time"
    async with call(bookings=[{**VISIT, "ref": "BK-1", "date": "2026-12-04"}]) as c:
        reply = await c.say("Could you swap the Friday visit to the other pump?")
        assert reply.startswith("Booking BK-1 for P-100 stays as it is."), reply
        assert "pump P-200 on Friday 4 December, in the morning" in reply, reply


@pytest.mark.parametrize("no_answer", ["Yeah, no, um.", "Hmm."])
async def test_a_cancel_read_back_that_gets_no_answer_is_put_again(no_answer):
    # blind round 22's f08: the agent said "Okay." and left the cancel waiting unasked
    async with call(bookings=[THURSDAY_PM, DOCK_THURSDAY]) as c:
        await c.say("We won't be wanting the engineer at Dock Street on Thursday, could you "
                    "scrub that visit for us?")
        assert "Cancel booking BK-5402" in c.sink.last
        reply = await c.say(no_answer)
        assert reply.startswith("Shall I go ahead with that?"), reply
        assert len(c.events("confirmation_requested", op="cancel_booking")) == 1
        await c.say("Yes, go ahead.")
        await c.until("confirmation_spoken", op="cancel_booking")
        assert [b["ref"] for b in c.bookings()] == ["BK-5503"]


async def test_a_move_read_back_then_said_of_another_pumps_booking_moves_that_booking():
    # blind round 23's g09: "it's the Canal Street one I want moving, not Harbour Road" asked
    # for an address, then booked a second visit beside the one meant
    harbour = {**THURSDAY_PM, "ref": "BK-7301", "window": "morning"}
    dock = {**FRIDAY, "ref": "BK-7302"}  # P-200, Friday afternoon
    async with call(bookings=[harbour, dock]) as c:
        await c.say("Morning, the engineer coming to Harbour Road on Thursday, could we shift "
                    "that to Weds the 9th?")
        assert "Move booking BK-7301" in c.sink.last
        await c.moved("Oh heck, it's the Dock Street one I want moving, not Harbour Road.",
                      "BK-7302", "2026-12-09", "afternoon")  # its own window, not BK-7301's


async def test_a_street_said_at_a_read_back_changes_the_pump_not_a_yes():
    # blind round 23's g01: "Right, sorry ... over on Dock Street, that wants doing" was taken
    # as a yes, and the pump ruled out was booked
    async with call() as c:
        await c.say("Could you book P-100 for Thursday afternoon?")
        reply = await c.say("Right, sorry about that, it's the one at our other depot, over on "
                            "Dock Street, that wants doing.")
        assert "pump P-200 on Thursday 3 December, in the afternoon" in reply, reply
        assert not c.bookings()


async def test_a_move_verb_before_anything_is_booked_to_the_value_held_is_no_move():
    # blind round 23's g05: "Could we change it to the ninth?" asked "Which booking do you
    # mean?" of a caller with no bookings
    async with call() as c:
        await c.say("Book P-200 for the 9th at 10.")
        reply = await c.say("Could we change it to the ninth?")
        assert reply.startswith("I already have that."), reply
        reply = await c.say("Oh blimey, what I'm after is the eleventh, same time.")
        assert "Friday 11 December, at 10:00. Shall I book it?" in reply, reply


# --------------------------------------------------------------------------- a slow booking system
# A read of the caller's bookings that the booking system does not answer in time (a machine
# too busy for the client's timeout, or an outage) must not change what a turn means: the list
# last read in this call stands in, for understanding only, and the failed read is traced.
class _Unanswered:
    """Makes the port's bookings read fail from now on, counting the reads refused."""

    def __init__(self, monkeypatch, target):
        self.refused = 0

        async def refuse(*_args):
            self.refused += 1
            raise FakeUnavailable("GET /v1/bookings: timed out")

        monkeypatch.setattr(target, "bookings", refuse)


async def test_a_move_is_understood_when_the_turns_own_read_of_the_bookings_fails(monkeypatch):
    async with call(bookings=[WEDNESDAY, FRIDAY]) as c:
        await c.settle()  # the greeting's read of the bookings has answered
        slow = _Unanswered(monkeypatch, c.controller.port)
        await c.say("Could you push the Wednesday visit back a day?")
        assert slow.refused >= 1
        [unread, *_] = c.events("bookings_unread")
        assert unread.get("known") == 2 and "timed out" in unread.get("detail")
        await c.until("confirmation_requested", op="reschedule_booking")
        assert "BK-5501" in c.sink.last and "Thursday 3 December" in c.sink.last
        # Nothing is confirmed from the list: the move is sent, and verified, as ever.
        await c.say("Yes please.")
        await c.until("confirmation_spoken", op="reschedule_booking")
        moved = {b["ref"]: (b["date"], b["version"]) for b in c.bookings()}
        assert moved == {"BK-5501": ("2026-12-03", 2), "BK-5502": ("2026-12-04", 1)}


async def test_with_no_list_ever_read_nothing_is_guessed_and_visits_are_not_told(monkeypatch):
    slow = _Unanswered(monkeypatch, FakeBookingPort)  # from the greeting on
    async with call(bookings=[WEDNESDAY, FRIDAY]) as c:
        await c.settle()
        said = await c.say("Could you push the Wednesday visit back a day?")
        assert [e.get("known") for e in c.events("bookings_unread")][:2] == [None, None]
        assert not c.events("confirmation_requested")  # no booking was made up to move
        assert "BK-5501" not in said
        # What the caller is told about their visits is never the remembered list.
        said = await c.say("What visits have we got booked with you?")
        assert "can't reach the booking system" in said
        assert slow.refused >= 3


# --------------------------------------------------------------------------- blind round 34
WEDNESDAY_PM = {**VISIT, "ref": "BK-5504", "date": "2026-12-02", "window": "afternoon"}


async def test_a_window_said_with_the_day_a_move_by_an_amount_counts_from_picks_the_visit():
    # Two visits on the Wednesday: the part of the day said beside it names the one moved,
    # which keeps that part of the day (b14, in other words)
    async with call(bookings=[WEDNESDAY, WEDNESDAY_PM, FRIDAY]) as c:
        await c.moved("It's the Wednesday morning one, could your lot come two days later?",
                      "BK-5501", "2026-12-04", "morning", read_back=("Friday 4 December",))


async def test_the_other_visit_meant_moves_with_its_own_part_of_the_day():
    # The move of the first visit borrowed its morning; "the other one" moves the other visit
    # with its afternoon, the day the caller named kept (b04, in other words)
    async with call(bookings=[WEDNESDAY, THURSDAY_PM]) as c:
        await c.say("Could you move the Wednesday booking to Monday?")
        await c.until("confirmation_requested", op="reschedule_booking")
        assert "BK-5501" in c.sink.last and "morning" in c.sink.last
        await c.moved("No, sorry, I meant the other one.", "BK-5503", "2026-12-07",
                      "afternoon", read_back=("Monday 7 December, in the afternoon",))


@pytest.mark.parametrize("again", ["Move it.", "US, move it.", "just shift it please",
                                   "OK, so move it over then"])
async def test_a_move_read_back_and_asked_for_again_is_its_yes(again):
    # blind round 40: "Yes, move it." heard as "US, move it." was asked "Shall I go ahead
    # with that? Just say yes or no.", and "Yes." heard as "US." again: a move asked for again
    # at its read-back, naming nothing new, is its yes, as a cancel's is
    async with call(bookings=[WEDNESDAY]) as c:
        await c.say("Can we shift the P-100 visit on Wednesday over to Thursday afternoon?")
        assert "Move booking BK-5501" in c.sink.last, c.sink.last
        await c.say(again)
        await c.until("confirmation_spoken", op="reschedule_booking")
        [moved] = c.bookings()
        assert (moved["date"], moved["window"], moved["version"]) == (
            "2026-12-03", "afternoon", 2), moved
        assert len(c.events("confirmation_requested")) == 1


async def test_a_move_asked_again_to_another_time_at_its_read_back_is_read_back_afresh():
    async with call(bookings=[WEDNESDAY]) as c:
        await c.say("Can we shift the P-100 visit on Wednesday over to Thursday afternoon?")
        reply = await c.say("Move it to Friday instead.")
        assert "Move booking BK-5501" in reply and "Friday 4 December" in reply, reply
        [kept] = c.bookings()
        assert (kept["date"], kept["version"]) == ("2026-12-02", 1), kept
        assert not c.events("action_dispatched")


async def _booked_then_pump_corrected(c) -> str:
    """Book P-100 for Friday morning in this call, then correct the pump: the reply."""
    await c.settled("Could you book P-100 for Friday morning?", "create_booking")
    [first] = c.bookings()
    assert first["asset"] == "P-100", first
    return await c.say("Oh no, wrong pump, I meant P-200, not P-100.")


async def test_a_booking_made_in_the_call_for_a_pump_then_corrected_is_cancelled_then_rebooked():
    # blind round 40's 03 (invariant 2): the P-100 booking, made before the caller's "wrong
    # pump, I meant P-200" was heard, was kept ("stays as it is") beside a new P-200 booking,
    # a visit for a pump the caller had ruled out. Its cancel is read back first; after it,
    # the P-200 visit is read back and booked
    async with call() as c:
        reply = await _booked_then_pump_corrected(c)
        first = c.events("confirmation_spoken", op="create_booking")[0].get("ref")
        assert reply.startswith(f"Booking {first} for P-100 was made before your correction."), \
            reply
        assert f"Cancel booking {first} for pump P-100" in reply, reply
        await c.say("Yes.")
        await c.until("confirmation_spoken", op="cancel_booking")
        await c.until("confirmation_requested", op="create_booking", count=2)
        assert "pump P-200 on Friday 4 December, in the morning" in c.sink.last, c.sink.last
        await c.say("Yes, book it.")
        await c.until("confirmation_spoken", op="create_booking", count=2)
        [kept] = c.bookings()
        assert (kept["asset"], kept["date"], kept["window"]) == ("P-200", "2026-12-04",
                                                                 "morning"), kept


async def test_the_cancel_of_a_booking_made_before_the_pump_was_corrected_can_be_declined():
    async with call() as c:
        await _booked_then_pump_corrected(c)
        reply = await c.say("No, keep that one.")
        assert "Okay, I won't cancel it." in reply and "stays as it is" in reply, reply
        assert "pump P-200 on Friday 4 December, in the morning" in reply, reply
        await c.say("Yes.")
        await c.until("confirmation_spoken", op="create_booking", count=2)
        assert sorted(b["asset"] for b in c.bookings()) == ["P-100", "P-200"]
        assert not c.events("action_dispatched", op="cancel_booking")


async def test_a_booking_made_before_the_call_and_moved_in_it_is_never_cancelled_for_the_pump():
    # only a booking this call created is cancelled when its pump is corrected: one the
    # caller had before the call, moved in it, stays (cancelling it would undo more than the
    # call did)
    async with call(bookings=[WEDNESDAY]) as c:
        await c.moved("Can we shift the P-100 visit on Wednesday over to Thursday afternoon?",
                      "BK-5501", "2026-12-03", "afternoon")
        reply = await c.say("Oh no, wrong pump, I meant P-200, not P-100.")
        assert reply.startswith("Booking BK-5501 for P-100 stays as it is."), reply
        assert not c.events("action_proposed", op="cancel_booking")


# ------------------------------------------------------------------ a move with nothing to move
NOTHING_TO_MOVE = "I don't see a booking on your account to move. I can book a new visit instead."


async def _booked_instead(c, said: str, read_back: str, day: str, window: str) -> None:
    """``said`` asks to move a visit the account does not have: the caller hears so, the visit
    is read back as a new booking (``read_back``), and a yes books it on ``day``, ``window``."""
    reply = await c.say(said)
    assert reply.startswith(NOTHING_TO_MOVE), reply
    assert f"{read_back}. Shall I book it?" in reply, reply
    await c.say("Yes.")
    await c.until("confirmation_spoken", op="create_booking")
    [booking] = c.bookings()
    assert (booking["date"], booking["window"]) == (day, window)


@pytest.mark.parametrize("said", ["Could you move my visit to Wednesday afternoon?",
                                  "Can we push our appointment to Wednesday afternoon?"])
async def test_a_move_asked_of_an_account_with_no_booking_offers_a_new_one(said):
    """Blind audio round 42: "Which booking do you mean?" asked of a caller with none led
    nowhere. The visit the move names is offered as a new booking, with its own read-back."""
    async with call(caller=ONE_PUMP) as c:
        await c.settle()  # the greeting's read of the bookings has answered: there are none
        await _booked_instead(c, said, "Wednesday 2 December, in the afternoon",
                              "2026-12-02", "afternoon")


async def test_a_move_with_no_booking_and_a_no_books_nothing():
    async with call(caller=ONE_PUMP) as c:
        await c.settle()
        await c.say("Please move my booking to Friday morning.")
        reply = await c.say("No thanks.")
        await c.settle()
        assert c.bookings() == [] and "Shall I book it?" not in reply, reply


async def test_a_move_after_a_cancel_that_found_nothing_says_there_is_none_to_move():
    """Blind text round 43: the cancel's asset and day stayed in the ledger, so the move after
    it read as a correction of a request, and went straight to a read-back without telling
    the caller there was nothing to move."""
    async with call(caller=ONE_PUMP) as c:
        await c.settle()
        reply = await c.say("We won't be needing the engineer on Thursday after all.")
        assert reply.startswith("I don't see a booking on your account to cancel."), reply
        await _booked_instead(c, "Could you move our visit to Friday afternoon then?",
                              "Friday 4 December, in the afternoon", "2026-12-04", "afternoon")


async def test_a_day_given_after_a_question_without_a_move_is_still_a_plain_booking():
    async with call(caller=ONE_PUMP) as c:
        await c.settle()
        await c.say("We won't be needing the engineer on Thursday after all.")
        reply = await c.say("Then put me down for Friday afternoon instead.")
        assert NOTHING_TO_MOVE not in reply, reply
        assert "Friday 4 December, in the afternoon. Shall I book it?" in reply, reply


@pytest.mark.parametrize("said", [
    "Hiya, we won't be needing the Rotterdam one on Friday after all, the Utrecht one can stay.",
    "We won't need the Rotterdam one on Friday, keep the Utrecht one.",
])
async def test_a_need_withdrawn_with_its_day_and_the_other_visit_kept_cancels_that_visit(said):
    """Blind round 46: two Friday visits; the day beside the need withdrawn and the other
    visit kept ("the Utrecht one can stay") read as a move of a new request ("Morning or
    afternoon?"): the kept visit is ruled out as the one called off, it replaces nothing."""
    from agent.core.caller import Asset, CallerProfile

    caller = CallerProfile(
        tenant="acme", subject="tech-17", roles=("technician",), account="ACME-001",
        assets=(Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
                Asset("P-200", "C1", "EU", "4 Canal Street, Utrecht", kind="pump")))
    rotterdam = {**VISIT, "ref": "R1", "date": "2026-12-04"}
    utrecht = {**VISIT, "ref": "U1", "date": "2026-12-04", "asset": "P-200",
               "site": "4 Canal Street, Utrecht", "window": "afternoon"}
    async with call(caller=caller, bookings=[rotterdam, utrecht]) as c:
        await c.say(said)
        await c.until("confirmation_requested", op="cancel_booking")
        assert "R1" in c.sink.last and "U1" not in c.sink.last, c.sink.last
        await c.say("Yes, please.")
        await c.until("confirmation_spoken", op="cancel_booking")
        assert [b["ref"] for b in c.bookings()] == ["U1"]  # the standing bookings
        assert c.events("confirmation_spoken")[-1].get("ref") == "R1"
