"""The booking system refuses a request and writes nothing (``AFTER_DISPATCH`` ``propose_new``):
the caller hears so and is offered the way on, never left at "Nothing was changed." (blind text
round 41 asked what comes after it). Text in, on the fakes."""

from __future__ import annotations

import pytest

from agent.service.vocabulary import HandoffReason
from tests.controller_support import call

pytestmark = pytest.mark.anyio

BOOK = "Book a service visit for P-100 on Wednesday afternoon."
ONCE = {"op": "create_booking", "fail_before_commit": True, "nth": 1}
ALWAYS = {"op": "create_booking", "fail_before_commit": True}
OTHER = {"account": "ACME-777", "asset": "X-1", "date": "2026-12-02", "window": "afternoon",
         "site": "1 Elsewhere Lane", "contact": "someone", "status": "confirmed"}
WEDNESDAY = {"ref": "BK-5501", "asset": "P-100", "date": "2026-12-02", "window": "morning",
             "units": 1, "site": "12 Harbour Road, Rotterdam", "contact": "tech-17",
             "status": "confirmed"}


async def _refused_once(c) -> str:
    """Book, say yes, and return what the agent said once the refusal was told."""
    await c.say(BOOK)
    await c.until("confirmation_requested")
    before = len(c.sink.plans)
    await c.say("Yes.")
    await c.until("action_failed")
    await c.until("confirmation_requested", count=2)
    return " ".join(p.text for p in c.sink.plans[before:])


@pytest.mark.parametrize("retry", ["Yes.", "Can you try again?", "Please give it another go.",
                                   "Yeah, try that again."])
async def test_a_refused_booking_is_read_back_again_and_a_yes_retries_it(retry):
    async with call(faults=[ONCE]) as c:
        said = await _refused_once(c)
        assert "The booking system couldn't do that. Nothing was changed." in said, said
        assert "I can try again." in c.sink.last and "Wednesday 2 December" in c.sink.last, \
            c.sink.last
        await c.say(retry)
        await c.until("confirmation_spoken", op="create_booking")
        [booking] = c.bookings()
        assert (booking["date"], booking["window"]) == ("2026-12-02", "afternoon")
        # the retry is a new request (the refused one wrote nothing), never the same key again
        keys = [e.request for e in c.events("action_dispatched")]
        assert len(keys) == 2 and keys[0] != keys[1], keys


async def test_a_no_to_the_retry_books_nothing_and_goes_to_no_person():
    async with call(faults=[ONCE]) as c:
        await _refused_once(c)
        await c.say("No, leave it for now.")
        await c.settle()
        assert c.bookings() == [] and not c.events("handoff")
        assert len(c.events("action_dispatched")) == 1


async def test_a_second_refusal_in_a_row_goes_to_a_person():
    async with call(faults=[ALWAYS]) as c:
        await _refused_once(c)
        await c.say("Yes, please try again.")
        handoff = await c.until("handoff")
        assert handoff.get("reason") == HandoffReason.BOOKING_REFUSED
        assert c.bookings() == [] and len(c.events("action_failed")) == 2
        assert "I'm passing you to a colleague." in c.sink.last, c.sink.last


async def test_a_correction_at_the_retry_read_back_books_the_corrected_visit():
    async with call(faults=[ONCE]) as c:
        await _refused_once(c)
        await c.say("Actually make it Thursday morning instead.")
        await c.until("confirmation_requested", count=3)
        assert "Thursday 3 December" in c.sink.last, c.sink.last
        await c.say("Yes.")
        await c.until("confirmation_spoken", op="create_booking")
        [booking] = c.bookings()
        assert (booking["date"], booking["window"]) == ("2026-12-03", "morning")


async def test_a_full_slot_asks_for_another_day_and_the_answer_is_booked():
    async with call(bookings=[OTHER] * 4) as c:
        await c.say(BOOK)
        await c.until("confirmation_requested")
        await c.say("Yes.")
        await c.until("action_failed")
        await c.until("clarification_requested")
        assert c.sink.last.startswith("The afternoon of Wednesday 2 December is fully booked. "
                                      "Nothing was changed."), c.sink.last
        assert "Which day" in c.sink.last, c.sink.last
        await c.settled("Thursday morning then.", "create_booking")
        [booking] = c.bookings()
        assert (booking["date"], booking["window"]) == ("2026-12-03", "morning")


async def test_a_refused_cancel_is_read_back_again_and_a_yes_cancels():
    refuse = {"op": "cancel_booking", "fail_before_commit": True, "nth": 1}
    async with call(faults=[refuse], bookings=[WEDNESDAY]) as c:
        await c.say("Please cancel booking BK-5501.")
        await c.until("confirmation_requested", op="cancel_booking")
        await c.say("Yes.")
        await c.until("action_failed")
        await c.until("confirmation_requested", op="cancel_booking", count=2)
        assert "I can try again." in c.sink.last and "BK-5501" in c.sink.last, c.sink.last
        await c.say("Yes.")
        await c.until("confirmation_spoken", op="cancel_booking")
        assert c.bookings() == []


@pytest.mark.parametrize("retry", ["Can you try again, but on Thursday morning instead?",
                                   "Yes, but Thursday morning rather than Wednesday."])
async def test_a_retry_that_changes_a_value_and_says_go_ahead_names_what_it_sends(retry):
    """Blind round 44: "Can you try again, but at three o'clock rather than half two?" is a go-ahead
    with a change, after a yes given once in the task: it is sent without another read-back
    (docs/understanding.md), and the caller hears the changed values before "I've requested
    the booking", not a bare "Okay."."""
    async with call(faults=[ONCE]) as c:
        await _refused_once(c)
        before = len(c.sink.plans)
        await c.say(retry)
        await c.until("confirmation_spoken", op="create_booking")
        said = [p.text for p in c.sink.plans[before:]]
        sent = next(i for i, text in enumerate(said) if "I've requested the booking" in text)
        assert any("Thursday 3 December" in text and "morning" in text
                   for text in said[:sent]), said
        assert len(c.events("confirmation_requested")) == 2  # none for Thursday: it went
        [booking] = c.bookings()
        assert (booking["date"], booking["window"]) == ("2026-12-03", "morning")
