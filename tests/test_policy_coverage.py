"""Every row of every decision table in agent/service/policy.py is reached by a controller scenario.

The scenarios drive the real controller (the real proposer, desks, dispatcher and reconciler)
in the world tests/controller_support.py builds, and read the ``decision`` events of their
traces: a row no scenario reaches is a row nobody has seen run. Most scenarios are seed 001's
cases as tests/test_controller_matrix.py plays them; the others reach one row each, with the
booking system's fault hooks (holds released on purpose, never sleeps) or a scripted network
between the agent and the booking system (:class:`Network`) for what the booking system alone
cannot produce on cue: a request lost on the way, a lookup that gets no answer.
"""

from __future__ import annotations

import asyncio
import traceback
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from agent.core.actions import ActionStatus
from agent.core.ops import Visit
from agent.core.ports import BookingOutcome, BookingOutcomeKind, RequestState
from agent.service.dialogue import ControllerOptions
from agent.service.policy import TABLES
from tests.controller_support import Call, call

pytestmark = pytest.mark.slow
HOLD = 60_000  # a delay that only a cancellation or an explicit release ends
QUICK = ControllerOptions(reconcile_budget_s=0.5)  # stop waiting on a PENDING request soon
ROWS = {row.id: row for table in TABLES for row in table.rows}
CONCURRENCY = 4  # worlds at once; every wait in a scenario is on an event, never on time


class Network:
    """The booking system's client, except where a scenario scripts the network in between.

    ``creates``: per create request, in order, ``"lost"`` (it never reaches the booking system;
    the agent sees no answer) or ``"in_flight"`` (the agent is told a request with its key is
    in flight); later ones are sent. With ``cut``, such a request stays in flight until the
    event is set. ``lookups``: per lookup by key, in order, ``"ask"`` (the booking system
    answers), ``"no_answer"`` or a :class:`RequestState`; the last one repeats.
    """

    def __init__(self, real, *, creates: tuple[str, ...] = (),
                 lookups: tuple[str | RequestState, ...] = (),
                 cut: asyncio.Event | None = None):
        self.real = real
        self.creates = list(creates)
        self.lookups = list(lookups)
        self.cut = cut

    def __getattr__(self, name: str):
        return getattr(self.real, name)

    async def create(self, key: str, revision: int, booking: Visit) -> BookingOutcome:
        fate = self.creates.pop(0) if self.creates else "send"
        if fate == "send":
            return await self.real.create(key, revision, booking)
        if self.cut is not None:
            await self.cut.wait()
        if fate == "in_flight":
            return BookingOutcome(BookingOutcomeKind.CONFLICT, None,
                                  "request_in_flight (scripted)", RequestState.PENDING)
        return BookingOutcome(BookingOutcomeKind.UNKNOWN, None, "lost on the way (scripted)")

    async def lookup(self, key: str) -> BookingOutcome:
        answer = (self.lookups.pop(0) if len(self.lookups) > 1 else self.lookups[0]) \
            if self.lookups else "ask"
        if answer == "ask":
            return await self.real.lookup(key)
        if answer == "no_answer":
            raise ConnectionError("the lookup got no answer (scripted)")
        assert isinstance(answer, RequestState), answer  # the strings are handled above
        kind = BookingOutcomeKind.CONFLICT if answer is RequestState.PENDING \
            else BookingOutcomeKind.FAILED
        return BookingOutcome(kind, None, "scripted", answer)


def _between(c: Call, network: Network) -> None:
    """Put ``network`` between the agent and the booking system for the rest of the call."""
    c.controller.port = c.controller.bookings.dispatcher.port = network


async def _book_wednesday(c: Call) -> None:
    await c.say("I'd like a service visit for pump P-100 on Wednesday afternoon.")
    await c.say("Yes, please go ahead.")


async def _to_thursday(c: Call) -> None:
    await c.say("Sorry, Thursday morning, not Wednesday.")


def _dated(c: Call) -> list[tuple[str, str | None]]:
    return [(b["date"], b["window"]) for b in c.bookings()]


# ------------------------------------------------------------------ the scenarios
@dataclass(frozen=True)
class Played:
    decisions: tuple[dict, ...]  # the decision events of its trace
    error: str | None  # why it failed, with its trace


@dataclass(frozen=True)
class Scenario:
    name: str
    rows: tuple[str, ...]  # the rows it is written to reach
    run: Callable[[], Awaitable[Played]]


SCENARIOS: list[Scenario] = []


def scenario(name: str, *rows: str, **world):
    """Register the decorated body as a scenario reaching ``rows``, played in a fresh world
    built with ``world`` (the keyword arguments of controller_support.call)."""
    def register(body: Callable[[Call], Awaitable[None]]):
        SCENARIOS.append(Scenario(name, rows, lambda: _play(body, world)))
        return body
    return register


async def _play(body: Callable[[Call], Awaitable[None]], world: dict) -> Played:
    async with call(**world) as c:
        try:
            await body(c)
            await c.settle()
            error = None
        except Exception:  # noqa: BLE001 - reported by the scenario's own test, with its trace
            events = "\n".join(f"  {e.name} {dict(e.data)}" for e in c.trace.events)
            error = f"{traceback.format_exc()}\ntrace:\n{events}\nsaid: {c.sink.said}"
        decisions = tuple(e.to_dict() for e in c.events("decision"))
    return Played(decisions, error)


@scenario("case 1: corrected twice before the caller's yes", "before_dispatch/not_given",
          "on_correction/proposed", "on_correction/cancelled", "before_dispatch/yes",
          "after_dispatch/committed")
async def corrected_twice_before_yes(c: Call) -> None:
    await c.say("Book P-100 on Wednesday afternoon.")
    await _to_thursday(c)
    await c.say("Sorry, Friday morning, not Thursday.")
    await c.say("yes")
    await c.settle()
    assert _dated(c) == [("2026-12-04", "morning")]


@scenario("the caller says no to the read-back", "before_dispatch/no")
async def caller_declines(c: Call) -> None:
    await c.say("Book P-100 on Wednesday afternoon.")
    await c.say("no")
    assert c.controller.actions[0].status is ActionStatus.CANCELLED
    assert c.events("action_cancelled")[0].get("reason") == "caller_declined"


@scenario("case 3: corrected while the create is held pending", "on_correction/committing",
          "after_lookup/cancelled",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}])
async def corrected_while_pending(c: Call) -> None:
    await _book_wednesday(c)
    await c.until("action_dispatched")
    await c.held()
    await _to_thursday(c)
    await c.until("confirmation_requested", count=2)
    await c.say("Yes.")
    await c.settle()
    assert _dated(c) == [("2026-12-03", "morning")]


@scenario("case 4: corrected after the commit", "on_correction/committed")
async def corrected_after_commit(c: Call) -> None:
    await _book_wednesday(c)
    await c.settle()
    await c.say("Actually make it Thursday morning.")
    await c.say("yes")
    await c.settle()
    [booking] = c.bookings()
    assert (booking["date"], booking["version"]) == ("2026-12-03", 2)


@scenario("a correction that says go ahead", "before_dispatch/go_ahead")
async def correction_says_go_ahead(c: Call) -> None:
    await _book_wednesday(c)
    await c.settle()
    await c.say("actually make it Thursday, go ahead")
    await c.settle()
    assert len(c.events("confirmation_requested")) == 1
    assert [b["date"] for b in c.bookings()] == ["2026-12-03"]


@scenario("case 13: a staff edit (412), then a correction", "after_dispatch/rejected_stale",
          "on_correction/failed", "on_correction/committed")
async def staff_edit_then_correction(c: Call) -> None:
    await _book_wednesday(c)
    await c.settle()
    ref = c.bookings()[0]["ref"]
    await c.say("Actually make it Thursday morning.")
    c.world.staff_edit(ref, {"window": "morning"})
    await c.say("yes")
    await c.until("confirmation_requested", reason="staff_changed")
    await c.say("Sorry, Friday morning, not Thursday.")
    await c.say("yes")
    await c.settle()
    [booking] = c.bookings()
    assert (booking["date"], booking["version"]) == ("2026-12-04", 3)


@scenario("the target fails before it commits", "after_dispatch/failed",
          faults=[{"op": "create_booking", "fail_before_commit": True, "nth": 1}])
async def target_fails(c: Call) -> None:
    await _book_wednesday(c)
    await c.settle()
    assert c.bookings() == [] and "Nothing was changed." in c.sink.said


@scenario("case 10: the answer is lost, the lookup finds it done", "after_dispatch/unknown",
          "after_timeout/succeeded",
          faults=[{"op": "create_booking", "drop_response": True, "nth": 1}], client_timeout=1.0)
async def answer_lost(c: Call) -> None:
    await _book_wednesday(c)
    await c.settle()
    assert len(c.bookings()) == 1 and "It's booked" in c.sink.last


@scenario("409: the target says the key is in flight", "after_dispatch/conflict",
          "after_timeout/not_found")
async def key_in_flight(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("in_flight",)))
    await _book_wednesday(c)
    await c.settle()
    assert len(c.bookings()) == 1
    assert len({e.request for e in c.events("action_dispatched")}) == 1


@scenario("case 10: still pending when the wait runs out, then a correction",
          "after_timeout/pending", "on_correction/unknown",
          faults=[{"op": "create_booking", "hang": True, "nth": 1}], client_timeout=1.0,
          options=QUICK)
async def pending_then_corrected(c: Call) -> None:
    await _book_wednesday(c)
    await c.until("handoff")
    await _to_thursday(c)
    assert c.controller.actions[0].status is ActionStatus.UNKNOWN


@scenario("no answer, and the target fails the request while the agent waits",
          "after_timeout/failed",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "fail_before_commit": True,
                      "nth": 1}], client_timeout=1.0)
async def failed_while_waiting(c: Call) -> None:
    await _book_wednesday(c)
    await c.until("action_reconciled", state="PENDING")
    c.world.sandbox.faults.release()
    await c.settle()
    assert len(c.bookings()) == 1
    assert len({e.request for e in c.events("action_dispatched")}) == 1


@scenario("no answer, and the request is cancelled at the target while the agent waits",
          "after_timeout/cancelled",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}], client_timeout=1.0)
async def cancelled_while_waiting(c: Call) -> None:
    await _book_wednesday(c)
    waiting = await c.until("action_reconciled", state="PENDING")
    assert waiting.request is not None  # a reconciled action names its request
    await c.controller.port.request_cancel(waiting.request)
    await c.settle()
    assert c.bookings() == []
    assert c.events("action_cancelled")[0].get("reason") == "target_cancelled"


@scenario("no answer, and the lookup gets none either", "after_timeout/no_answer")
async def lookup_unanswered(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost",), lookups=("no_answer",)))
    await _book_wednesday(c)
    await c.settle()
    assert c.events("handoff")[0].get("reason") == "outcome_unknown"


@scenario("lost on the way twice: one retry with the same key, then a person",
          "after_timeout/not_found_retried")
async def lost_twice(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost", "lost")))
    await _book_wednesday(c)
    await c.settle()
    assert c.events("handoff")[0].get("reason") == "outcome_unknown"
    assert len({e.request for e in c.events("action_dispatched")}) == 1


@scenario("the retry's answer is lost, the lookup finds it done",
          "after_timeout/succeeded_retried",
          faults=[{"op": "create_booking", "drop_response": True, "nth": 1}], client_timeout=1.0)
async def retry_answer_lost(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost",)))
    await _book_wednesday(c)
    await c.settle()
    assert len(c.bookings()) == 1 and "It's booked" in c.sink.last


@scenario("the retry is still pending when the wait runs out", "after_timeout/pending_retried",
          faults=[{"op": "create_booking", "hang": True, "nth": 1}], client_timeout=1.0,
          options=QUICK)
async def retry_pending(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost",)))
    await _book_wednesday(c)
    await c.until("handoff")


@scenario("the target fails the retry while the agent waits", "after_timeout/failed_retried",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "fail_before_commit": True,
                      "nth": 1}], client_timeout=1.0)
async def retry_failed(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost",)))
    await _book_wednesday(c)
    await c.until("action_reconciled", state="PENDING")
    c.world.sandbox.faults.release()
    await c.settle()
    assert c.bookings() == [] and c.events("handoff")


@scenario("the retry is cancelled at the target while the agent waits",
          "after_timeout/cancelled_retried",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "nth": 1}], client_timeout=1.0)
async def retry_cancelled(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost",)))
    await _book_wednesday(c)
    waiting = await c.until("action_reconciled", state="PENDING")
    assert waiting.request is not None  # a reconciled action names its request
    await c.controller.port.request_cancel(waiting.request)
    await c.settle()
    assert c.bookings() == []


@scenario("the retry is lost and its lookup gets no answer", "after_timeout/no_answer_retried")
async def retry_unanswered(c: Call) -> None:
    _between(c, Network(c.controller.port, creates=("lost", "lost"),
                        lookups=("ask", "no_answer")))
    await _book_wednesday(c)
    await c.settle()
    assert c.events("handoff")[0].get("reason") == "outcome_unknown"


@scenario("completed anyway, corrected twice while the cancellation waits",
          "on_correction/cancel_requested", "after_lookup/succeeded",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "uncancellable": True, "nth": 1}])
async def completed_anyway(c: Call) -> None:
    await _book_wednesday(c)
    await c.until("action_dispatched")
    await c.held()
    await _to_thursday(c)
    await c.say("Sorry, Friday morning, not Thursday.")
    c.world.sandbox.faults.release()
    await c.until("confirmation_requested", op="reschedule_booking")
    await c.say("yes")
    await c.settle()
    [booking] = c.bookings()
    assert (booking["date"], booking["version"]) == ("2026-12-04", 2)


@scenario("the target fails the request after the cancellation was asked",
          "after_lookup/failed",
          faults=[{"op": "create_booking", "delay_ms": HOLD, "uncancellable": True,
                      "fail_before_commit": True, "nth": 1}])
async def failed_after_cancel(c: Call) -> None:
    await _book_wednesday(c)
    await c.until("action_dispatched")
    await c.held()
    await _to_thursday(c)
    c.world.sandbox.faults.release()
    await c.until("confirmation_requested", count=2)
    await c.say("yes")
    await c.settle()
    assert _dated(c) == [("2026-12-03", "morning")]


@scenario("the request never arrived; corrected while it seemed in flight",
          "after_lookup/not_found")
async def never_arrived(c: Call) -> None:
    cut = asyncio.Event()
    _between(c, Network(c.controller.port, creates=("lost",), cut=cut))
    await _book_wednesday(c)
    await c.until("action_dispatched")
    await _to_thursday(c)
    cut.set()
    await c.until("confirmation_requested", count=2)
    await c.say("yes")
    await c.settle()
    assert _dated(c) == [("2026-12-03", "morning")]


@scenario("after the cancellation, the lookup says still pending", "after_lookup/pending")
async def pending_after_cancel(c: Call) -> None:
    cut = asyncio.Event()
    _between(c, Network(c.controller.port, creates=("lost",), lookups=(RequestState.PENDING,),
                        cut=cut))
    await _book_wednesday(c)
    await c.until("action_dispatched")
    await _to_thursday(c)
    cut.set()
    handoff = await c.until("handoff")
    assert handoff.get("reason") == "cancellation_unconfirmed"


@scenario("after the cancellation, the lookup gets no answer", "after_lookup/no_answer")
async def unanswered_after_cancel(c: Call) -> None:
    cut = asyncio.Event()
    _between(c, Network(c.controller.port, creates=("lost",), lookups=("no_answer",),
                        cut=cut))
    await _book_wednesday(c)
    await c.until("action_dispatched")
    await _to_thursday(c)
    cut.set()
    handoff = await c.until("handoff")
    assert handoff.get("reason") == "cancellation_unconfirmed"


# ------------------------------------------------------------------ running them
@pytest.fixture(scope="module")
def played() -> dict[str, Played]:
    async def all_of_them() -> dict[str, Played]:
        slots = asyncio.Semaphore(CONCURRENCY)

        async def one(s: Scenario) -> Played:
            async with slots:
                try:
                    return await s.run()
                except Exception:  # noqa: BLE001 - the world itself failed; reported likewise
                    return Played((), traceback.format_exc())

        results = await asyncio.gather(*(one(s) for s in SCENARIOS))
        return {s.name: r for s, r in zip(SCENARIOS, results, strict=True)}

    return asyncio.run(all_of_them())


def _reached(played: dict[str, Played]) -> dict[str, list[str]]:
    """Row id -> the scenarios whose traces show it taken."""
    by_row: dict[str, list[str]] = defaultdict(list)
    for name, result in played.items():
        for row in dict.fromkeys(e["row"] for e in result.decisions):
            by_row[row].append(name)
    return by_row


def _some(names: list[str]) -> str:
    if not names:
        return "NO SCENARIO"
    shown = "; ".join(repr(n) for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def test_the_scenarios_have_distinct_names_and_name_real_rows():
    assert len({s.name for s in SCENARIOS}) == len(SCENARIOS)
    unknown = {s.name: r for s in SCENARIOS for r in s.rows if r not in ROWS}
    assert not unknown, f"scenarios name rows agent/service/policy.py does not have: {unknown}"


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_scenario_reaches_the_rows_it_is_written_for(played, name):
    result = played[name]
    assert result.error is None, f"scenario {name!r} failed:\n{result.error}"
    taken = {e["row"] for e in result.decisions}
    (wanted,) = [s.rows for s in SCENARIOS if s.name == name]
    missed = [r for r in wanted if r not in taken]
    assert not missed, f"scenario {name!r} did not reach {missed}; it took {sorted(taken)}"


def test_every_decision_event_is_a_row_of_the_tables(played):
    """The event says what the table says: its table, its row id, its step."""
    wrong = [(name, e) for name, result in played.items() for e in result.decisions
             if e["row"] not in ROWS or e["table"] != ROWS[e["row"]].table
             or e["step"] != str(ROWS[e["row"]].step)]
    assert not wrong, wrong
    assert all(e.get("action") and e.get("request") for r in played.values()
               for e in r.decisions)


def test_every_row_of_every_table_is_reached_by_a_scenario(played):
    by_row = _reached(played)
    missed = [row for row in ROWS if row not in by_row]
    reached = "\n".join(f"  {row}: {_some(by_row.get(row, []))}" for row in ROWS)
    failed = [name for name, r in played.items() if r.error is not None]
    assert not missed, (f"rows no scenario reaches: {missed}. Add a focused scenario here "
                        f"(scenarios that failed: {failed or 'none'}).\nWhich scenario "
                        f"reaches which row:\n{reached}")
