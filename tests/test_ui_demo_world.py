"""The real world behind a demo tab: panels read the controller and the sandbox it books into."""

from __future__ import annotations

import asyncio

import pytest

from agent.core.errors import InvalidInput
from ui.bootstrap import fixed_clock
from ui.demo_world import world_builder
from ui.personas import load_personas
from ui.session_hub import SessionHub
from ui.session_view import render_all


@pytest.fixture
async def session():
    hub = SessionHub(world_builder(fixed_clock("2026-12-01T09:00:00+01:00")), load_personas())
    yield await hub.open("tab")
    await hub.close_all()


@pytest.mark.anyio
async def test_maintenance_answer_shows_its_citation_revision_interval_and_snapshot(session):
    await session.typed_turn("What torque should I use for the pump seal on P-100?")
    await session.conversation.wait_idle()
    (row,) = session.world.evidence()
    assert row["outcome"] == "RESOLVED" and row["revision"]
    assert row["interval"].startswith("[") and isinstance(row["snapshot"], int)
    html = (await render_all(session)).evidence
    assert row["revision"] in html and "RESOLVED" in html


@pytest.mark.anyio
async def test_injected_delay_holds_only_the_next_create_and_staff_edit_bumps_the_version(
        session):
    await session.world.set_fault("create_booking", {"delay_ms": 60000})
    plan = session.world.world.sandbox.faults
    (rule,) = plan.rules
    assert (rule.op, rule.delay_ms, rule.nth) == ("create_booking", 60000, 1)
    await session.typed_turn("Book a visit for P-100 on Thursday morning.")
    await session.typed_turn("Yes.")
    assert await asyncio.to_thread(plan.wait_held, 1, 10.0)  # the sandbox holds the create
    assert [str(a.status) for a in session.world.actions()] == ["committing"]
    plan.release()  # end the delay now, deterministically
    await session.conversation.wait_idle()
    (booking,) = await session.world.bookings()
    assert (booking.date, booking.window, booking.version) == ("2026-12-03", "morning", 1)
    (note,) = await session.world.notifications()
    assert note["kind"] == "confirmation" and note["booking_ref"] == booking.ref
    await session.world.staff_edit(booking.ref, {"window": "afternoon"})
    (booking,) = await session.world.bookings()
    assert (booking.window, booking.version) == ("afternoon", 2)


@pytest.mark.anyio
async def test_staff_edit_of_an_unknown_booking_is_one_line(session):
    with pytest.raises(InvalidInput) as caught:
        await session.world.staff_edit("BK-NOPE", {"window": "morning"})
    assert "BK-NOPE" in str(caught.value) and "\n" not in str(caught.value)
