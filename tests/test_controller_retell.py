"""A verified confirmation the caller cut into is said again (agent/service/turn_steps.py
``retell``): the caller must hear in full what the system of record verified, and a turn that
asks nothing new is not answered with "Nothing needs to change."

The barge-in is the controller's own (``Controller.barge_in``), as the audio pipeline and the
text-mode player call it when a real turn starts over agent speech.
"""

from __future__ import annotations

import pytest

from tests.controller_support import call

pytestmark = pytest.mark.anyio

REQUEST = "Book a service visit for P-100 on Wednesday afternoon."


async def _booked(c) -> int:
    """A confirmed booking whose confirmation is the agent's live response; its generation."""
    await c.say(REQUEST)
    await c.say("yes")
    await c.settle()
    spoken = c.events("confirmation_spoken")
    assert len(spoken) == 1 and c.sink.last.startswith("It's booked.")
    return spoken[0].get("spoken_generation")


def _retold(c, reply: str, generation: int) -> None:
    first, again = c.events("confirmation_spoken")
    assert (again.get("ref"), again.get("version")) == (first.get("ref"), first.get("version"))
    assert again.get("spoken_generation") > generation
    assert again.get("date") == "2026-12-02" and again.get("window") == "afternoon"
    assert reply.startswith("It's booked.") and first.get("ref") in reply


# Turns that ask nothing new: the second half of a split "Yes, please go ahead", a no, a
# "sorry?", a thank-you.
@pytest.mark.parametrize("cut_in", ["Please go ahead.", "No.", "Sorry?", "Thanks.",
                                    "yes that's fine"])
async def test_a_confirmation_cut_by_a_turn_that_asks_nothing_new_is_said_again(cut_in):
    async with call() as c:
        generation = await _booked(c)
        c.controller.barge_in()
        assert c.sink.invalidated[-1] == (generation, "barge_in")
        reply = await c.say(cut_in)
        _retold(c, reply, generation)
        assert "Nothing needs to change" not in reply
        assert len(c.bookings()) == 1


async def test_a_goodbye_over_the_confirmation_hears_it_first():
    async with call() as c:
        generation = await _booked(c)
        c.controller.barge_in()
        reply = await c.say("Thanks, bye.")
        _retold(c, reply, generation)
        assert reply.endswith("Goodbye.")


async def test_a_correction_over_the_confirmation_gets_the_desks_answer_not_a_retelling():
    async with call() as c:
        generation = await _booked(c)
        c.controller.barge_in()
        reply = await c.say("Actually make that Thursday.")
        assert len(c.events("confirmation_spoken")) == 1, reply
        assert not reply.startswith("It's booked.")
        assert c.events("confirmation_requested")[-1].get("op") == "reschedule_booking"
        assert generation < c.sink.plans[-1].generation


async def test_a_confirmation_heard_before_the_caller_spoke_is_not_said_again():
    async with call() as c:
        await _booked(c)
        await c.say("Please go ahead.")  # after it, not over it
        c.controller.barge_in()  # over the reply to that turn
        reply = await c.say("Please go ahead.")
        assert len(c.events("confirmation_spoken")) == 1, reply

