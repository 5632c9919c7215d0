"""The agent asks about an hour it must not guess, and abbreviated corrections reach the booking.

"At 7" is 07:00 or 19:00, and neither is inside the visit windows: the agent says so, offers
the windows, keeps the rest of the turn (the day, the asset), and the caller's answer settles
it. "Fri 9am" after Thursday at 2 pm changes both the day and the time, all the way to the
booking system of record (docs/understanding.md, "Hours" and rule 5).
"""

from __future__ import annotations

import pytest

from tests.controller_support import call

pytestmark = pytest.mark.anyio


async def _book_at_seven(c) -> str:
    reply = await c.say("Book a service visit for P-100 on Thursday at 7.")
    assert c.field("asset").value == "P-100"  # the rest of the turn is kept
    assert c.field("visit_date").value == "2026-12-03"
    held = c.field("visit_time")
    assert held.value is None and not held.usable
    assert held.candidates == ("07:00", "19:00")
    assert c.events("clarification_requested")[-1].get("fields") == ("visit_time",)
    return reply


async def test_an_hour_that_fits_neither_window_is_asked_about_with_the_windows():
    async with call() as c:
        reply = await _book_at_seven(c)
        assert "7 in the morning and 7 in the evening" in reply
        assert "from 8 to 12 and from 1 to 5" in reply
        assert reply.rstrip().endswith("What time would suit you?")
        assert "07:00" not in reply and "19:00" not in reply
        assert not c.events("confirmation_requested")


@pytest.mark.parametrize(("answer", "window", "time"), [
    ("8 in the morning", "morning", "08:00"),
    ("make it 9", "morning", "09:00"),
    ("9", "morning", "09:00"),
    ("half past two", "afternoon", "14:30"),
    ("the afternoon", "afternoon", None),
    ("morning please", "morning", None),
])
async def test_the_answer_settles_the_hour_and_the_visit_is_booked(answer, window, time):
    async with call() as c:
        await _book_at_seven(c)
        reply = await c.say(answer)
        assert "Shall I book it?" in reply
        assert "Thursday 3 December" in reply
        await c.say("yes")
        await c.settle()
        (booking,) = c.bookings()
        assert (booking["asset"], booking["date"], booking["window"]) == (
            "P-100", "2026-12-03", window)
        assert (booking.get("time") or None) == time


async def test_an_answer_that_is_still_open_asks_again_in_other_words():
    async with call() as c:
        first = await _book_at_seven(c)
        again = await c.say("7")
        assert again != first
        assert not c.events("confirmation_requested")
        await c.say("10 am")
        assert c.field("visit_time").value == "10:00"


async def test_a_time_outside_the_windows_is_refused_but_the_day_is_kept():
    async with call() as c:
        reply = await c.say("Book a service visit for P-100 on Thursday at 7 in the evening.")
        assert c.events("field_rejected")[-1].get("reason") == "outside_hours"
        assert "from 8 to 12 and from 1 to 5" in reply
        assert c.field("visit_date").value == "2026-12-03"
        assert c.field("asset").value == "P-100"
        await c.say("11 am")
        await c.say("yes")
        await c.settle()
        (booking,) = c.bookings()
        assert (booking["date"], booking["time"]) == ("2026-12-03", "11:00")


@pytest.mark.parametrize("correction", ["Fri 9am", "Fri. 9 a.m.", "fri nine am",
                                        "Sorry, Fri, 9 am."])
async def test_an_abbreviated_correction_changes_day_and_time_in_the_booking(correction):
    async with call() as c:
        await c.say("Book a service visit for P-100 on Thursday at 2 pm.")
        await c.say(correction)
        assert c.field("visit_date").value == "2026-12-04"
        assert c.field("visit_time").value == "09:00"
        assert c.field("visit_window").value == "morning"
        await c.say("yes")
        await c.settle()
        (booking,) = c.bookings()
        assert (booking["date"], booking["window"], booking["time"]) == (
            "2026-12-04", "morning", "09:00")
        assert "Friday 4 December" in c.sink.said.rpartition("It's booked.")[2]


async def test_an_abbreviated_correction_after_booking_moves_both_fields():
    async with call() as c:
        await c.say("Book a service visit for P-100 on Thursday at 2 pm.")
        await c.say("yes")
        await c.settle()
        reply = await c.say("Fri 9am")
        assert "Friday 4 December" in reply
        await c.say("yes")
        await c.settle()
        (booking,) = c.bookings()
        assert (booking["date"], booking["time"]) == ("2026-12-04", "09:00")


@pytest.mark.parametrize(("said", "when"), [
    ("Can you send someone to look at P-100 on Thursday evening?", "in the evening"),
    ("Book P-100 for Thursday night, please.", "at night"),
])
async def test_a_part_of_the_day_outside_the_visits_is_refused_and_the_day_kept(said, when):
    async with call() as c:
        reply = await c.say(said)
        assert f"Sorry, we can't come {when}." in reply
        assert "from 8 to 12 and from 1 to 5" in reply
        assert c.field("visit_date").value == "2026-12-03"  # the day is kept
        assert c.field("visit_window") is None or c.field("visit_window").value is None
        assert c.events("clarification_requested")[-1].get("fields") == ("visit_window",)
        reply = await c.say("The afternoon then.")
        assert "Thursday 3 December, in the afternoon" in reply
        await c.say("yes")
        await c.settle()
        (booking,) = c.bookings()
        assert (booking["date"], booking["window"]) == ("2026-12-03", "afternoon")
