"""Assets in a conversation: the agent names them by the caller's kinds, and an id that is not
on the account is a question, never a refusal (docs/understanding.md, "Fields and values")."""

from __future__ import annotations

import pytest

from agent.core.caller import Asset, CallerProfile
from tests.controller_support import call

pytestmark = pytest.mark.anyio

TEMPE = "800 Mill Avenue, Tempe"
GLOBEX = CallerProfile("globex", "ops-5", ("technician",), "GLOBEX-042", (
    Asset("G-7", "C3", "US", TEMPE, kind="gearbox"),
    Asset("C-7", "C2", "US", TEMPE, kind="compressor")), region="US")
TWO_COMPRESSORS = CallerProfile("globex", "ops-5", ("technician",), "GLOBEX-042", (
    Asset("C-7", "C2", "US", TEMPE, kind="compressor"),
    Asset("C-9", "C2", "US", TEMPE, kind="compressor")), region="US")


def _no_refusal(c) -> None:
    assert not [e for e in c.events("field_rejected")
                if str(e.get("reason")).startswith("authority")]
    assert "outside your account" not in c.sink.said and not c.events("handoff")


async def test_which_compressor_never_which_pump():
    async with call(caller=TWO_COMPRESSORS) as c:
        reply = await c.say("Book a service visit on Thursday morning.")
        assert "Which compressor" in reply and "C-7 or C-9" in reply
        assert "pump" not in reply.lower()
        reply = await c.say("C-9")
        assert "compressor C-9" in reply and "pump" not in reply.lower()
        await c.say("yes")
        await c.settle()
        [booking] = c.bookings()
        assert (booking["asset"], booking["date"], booking["window"]) == (
            "C-9", "2026-12-03", "morning")
        assert "Compressor C-9, Thursday 3 December" in c.sink.last
        assert "pump" not in c.sink.said.lower().replace("northwind pumps", "")


async def test_mixed_kinds_are_offered_with_their_kinds_and_one_is_named_by_kind():
    async with call(caller=GLOBEX) as c:
        reply = await c.say("I need a service visit on Friday afternoon.")
        assert "Which one is it? The gearbox G-7 or the compressor C-7?" in reply
        assert "pump" not in reply.lower()
        assert c.events("clarification_requested")[-1].get("fields") == ("asset",)
        reply = await c.say("the compressor")
        assert c.field("asset").value == "C-7"
        assert "A service visit for compressor C-7" in reply
        await c.say("yes, book it")
        await c.settle()
        assert [b["asset"] for b in c.bookings()] == ["C-7"]


async def test_a_one_digit_id_said_with_spoken_letters_is_booked():
    async with call(caller=GLOBEX) as c:
        reply = await c.say("Could somebody come and service see seven for us on Monday morning?")
        assert "compressor C-7" in reply and "Shall I book it" in reply
        await c.say("Yes, please book it.")
        await c.settle()
        assert [(b["asset"], b["date"]) for b in c.bookings()] == [("C-7", "2026-12-07")]


async def test_a_confusable_id_is_asked_about_and_yes_books_the_owned_one():
    async with call() as c:
        reply = await c.say("I need a service visit for V-200 on Thursday afternoon, please.")
        assert "I don't see V-200 on your account." in reply
        assert "Did you mean P-200?" in reply
        assert c.events("clarification_requested")[-1].get("fields") == ("asset",)
        assert c.field("asset").value is None and c.field("asset").candidates == ("P-200",)
        _no_refusal(c)
        reply = await c.say("Yes, that's the one.")
        assert c.field("asset").value == "P-200"
        assert "pump P-200" in reply and "Shall I book it" in reply
        await c.say("Yes, book it.")
        await c.settle()
        [booking] = c.bookings()
        assert (booking["asset"], booking["date"], booking["window"]) == (
            "P-200", "2026-12-03", "afternoon")
        _no_refusal(c)


async def test_an_id_confusable_with_none_asks_which_of_the_callers_assets():
    async with call() as c:
        reply = await c.say("Book Z-999 for Friday morning.")
        assert "I don't see Z-999 on your account." in reply
        assert "Which pump is it: P-100 or P-200?" in reply
        _no_refusal(c)
        reply = await c.say("P-100")
        assert "pump P-100" in reply
        await c.say("yes")
        await c.settle()
        assert [b["asset"] for b in c.bookings()] == ["P-100"]


async def test_a_confusable_id_after_a_value_is_held_asks_before_anything_is_booked():
    async with call() as c:
        await c.say("Book a service visit for P-100 on Wednesday afternoon.")
        reply = await c.say("Sorry, I meant B-200.")
        assert "I don't see B-200 on your account." in reply and "P-200?" in reply
        assert not c.field("asset").usable
        draft = [a for a in c.controller.actions if str(a.status) == "proposed"]
        assert not draft  # the read-back for P-100 no longer stands
        await c.say("yes")
        assert c.field("asset").value == "P-200"
        _no_refusal(c)


async def test_another_companys_asset_named_as_theirs_is_still_refused():
    async with call() as c:
        reply = await c.say("Book Globex's pump P-900 for Friday.")
        assert c.events("field_rejected")[-1].get("reason").startswith("authority")
        assert "colleague" in reply and not c.bookings()
