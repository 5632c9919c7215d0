"""Booking scenarios, text in (seed 001 cases 1, 5, 6, 9), on the in-memory booking system;
the happy path and case 1 also against the real sandbox on loopback."""

from __future__ import annotations

import json

import pytest

from agent.core.actions import ActionStatus
from tests.controller_support import ONE_PUMP, both_backends, call

pytestmark = pytest.mark.anyio


@both_backends
async def test_booking_happy_path_confirms_from_the_verified_record(backend):
    async with call(backend=backend) as c:
        reply = await c.say("I'd like a service visit for pump P-100 on Wednesday afternoon.")
        assert "Shall I book it" in reply
        confirm = c.events("confirmation_requested")
        assert len(confirm) == 1 and set(confirm[0].get("fields")) >= {"asset", "visit_date"}
        await c.say("Yes, please go ahead.")
        await c.settle()
        [booking] = c.bookings()
        assert (booking["asset"], booking["date"], booking["window"]) == (
            "P-100", "2026-12-02", "afternoon")
        spoken = c.events("confirmation_spoken")
        assert [(e.get("ref"), e.get("version")) for e in spoken] == [
            (booking["ref"], booking["version"])]
        assert "It's booked" in c.sink.last and booking["ref"] in c.sink.last
        [action] = c.controller.actions
        assert action.status is ActionStatus.COMMITTED
        assert c.names().index("confirmation_requested") < c.names().index("action_dispatched")
        view = json.loads(json.dumps(c.controller.describe()))
        assert view["fields"]["visit_date"]["version"] == 1
        assert view["actions"][0]["status"] == "committed"


@both_backends
async def test_case_1_date_corrected_before_any_tool_call_creates_only_the_new_request(
        backend):
    async with call(backend=backend) as c:
        await c.say("Book a service visit for P-100 on Wednesday afternoon.")
        await c.say("Sorry, Thursday morning, not Wednesday.")
        assert c.field("visit_date").value == "2026-12-03"
        assert c.field("visit_date").version == 2
        assert c.field("visit_date").source.startswith("utterance:")
        first, second = c.controller.actions
        assert first.status is ActionStatus.CANCELLED
        assert second.status is ActionStatus.PROPOSED and second.arg("date") == "2026-12-03"
        assert len(c.events("confirmation_requested")) == 2  # one per proposed create
        accepted = c.events("field_accepted")[-1]
        assert set(accepted.get("fields")) == {"visit_date", "visit_window"}
        await c.say("Yes.")
        await c.settle()
        assert [(b["date"], b["window"]) for b in c.bookings()] == [("2026-12-03", "morning")]
        assert [e.get("action") for e in c.events("action_dispatched")] == [second.id]


async def test_slots_are_asked_one_at_a_time_and_defaults_are_never_asked():
    async with call() as c:
        reply = await c.say("I need a service visit.")
        assert c.events("clarification_requested")[-1].get("fields") == ("asset",)
        assert "P-100" in reply and "P-200" in reply
        await c.say("P-200")
        assert c.events("clarification_requested")[-1].get("fields") == ("visit_date",)
        await c.say("Friday")
        assert c.events("clarification_requested")[-1].get("fields") == ("visit_window",)
        await c.say("in the morning")
        assert len(c.events("clarification_requested")) == 3
        [draft] = c.controller.actions
        assert draft.arg("units") == "1" and draft.arg("contact") == "tech-17"
        assert draft.arg("site") == "4 Dock Street, Rotterdam"


async def test_single_asset_is_implied_and_never_asked():
    async with call(caller=ONE_PUMP) as c:
        await c.say("Can you book a visit on Thursday at 2 pm?")
        assert c.field("asset").value == "P-100" and c.field("asset").source == "asset:P-100"
        assert not c.events("clarification_requested")
        assert c.field("visit_window").value == "afternoon"


async def test_case_5_ambiguous_thursday_is_asked_and_the_tool_is_never_called():
    async with call() as c:
        await c.say("Book P-100 next Thursday morning.")
        # Both Thursdays are kept in the ledger as unresolved candidates; neither is picked.
        record = c.field("visit_date")
        assert record.value is None and str(record.status) == "unresolved"
        assert set(record.candidates) == {"2026-12-03", "2026-12-10"}
        assert set(c.controller.ctx.candidates["visit_date"]) == {"2026-12-03", "2026-12-10"}
        assert "3 December or Thursday 10 December" in c.sink.last
        assert c.events("clarification_requested")[-1].get("fields") == ("visit_date",)
        assert not c.controller.actions
        await c.say("The 10th.")
        assert c.field("visit_date").value == "2026-12-10"
        assert not c.events("action_dispatched")


async def test_case_6_not_tuesday_withdraws_the_value_and_asks_for_a_replacement():
    async with call() as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        await c.say("not Wednesday")
        record = c.field("visit_date")
        assert record.status == "unresolved" and record.value is None
        assert c.controller.actions[0].status is ActionStatus.CANCELLED
        assert c.events("clarification_requested")[-1].get("fields") == ("visit_date",)
        assert c.field("visit_window").value == "afternoon"  # unrelated field preserved


async def test_case_9_intervening_turns_do_not_undo_an_earlier_correction():
    async with call() as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        await c.say("Actually Thursday.")
        await c.say("What was the weather like?")
        await c.say("in the afternoon")
        assert c.field("visit_date").value == "2026-12-03"
        await c.say("yes")
        await c.settle()
        assert [b["date"] for b in c.bookings()] == ["2026-12-03"]


async def test_past_date_is_refused_and_the_ledger_is_unchanged():
    async with call() as c:
        await c.say("Book P-100 on Thursday morning.")
        revision = c.controller.snapshot.revision
        reply = await c.say("make that November 20th")
        assert "already passed" in reply
        assert c.events("field_rejected")[-1].get("reason") == "past_date"
        assert c.controller.snapshot.revision == revision
        assert c.field("visit_date").value == "2026-12-03"


async def test_exact_redelivery_of_a_correction_makes_no_new_version():
    async with call() as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        await c.say("Sorry, Thursday morning, not Wednesday.")
        revision, accepted = c.controller.snapshot.revision, len(c.events("field_accepted"))
        proposed = len(c.events("action_proposed"))
        await c.say("Sorry, Thursday morning, not Wednesday.")
        assert c.controller.snapshot.revision == revision
        assert len(c.events("field_accepted")) == accepted
        assert len(c.events("action_proposed")) == proposed
        assert c.field("visit_date").version == 2


async def test_a_second_booking_request_after_a_settled_one_is_a_new_question():
    async with call() as c:
        await c.say("Book P-100 on Wednesday afternoon.")
        await c.say("yes")
        await c.settle()
        first_question = c.controller.snapshot.question
        await c.say("book another service visit")
        assert c.controller.snapshot.question != first_question
        assert c.events("question_started")
        assert c.field("visit_date") is None  # nothing copied from the first booking
        assert c.events("clarification_requested")[-1].get("fields") == ("asset",)
        await c.say("P-200")
        await c.say("Friday")
        await c.say("morning")
        await c.say("yes")
        await c.settle()
        assert sorted((b["asset"], b["date"]) for b in c.bookings()) == [
            ("P-100", "2026-12-02"), ("P-200", "2026-12-04")]
        assert c.field("visit_date").version == 1
