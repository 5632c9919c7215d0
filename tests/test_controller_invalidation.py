"""What a revision invalidates is computed once, by the dependency map, and every reader (the
controller, the booking desk, the answer desk) gets that one value (issue 15)."""

from __future__ import annotations

import pytest

from agent.core.actions import ActionStatus
from agent.core.dependencies import DependencyMap, Dependent, DependentKind, Invalidation
from agent.service.answer_desk import AnswerDesk
from agent.service.answer_scope import QUERY
from agent.service.booking_desk import BookingDesk
from tests.controller_support import call

pytestmark = pytest.mark.anyio


def test_an_invalidation_holds_exactly_the_readers_of_the_changed_fields():
    action = Dependent(DependentKind.ACTION, "a2")
    other = Dependent(DependentKind.ACTION, "a1")
    query = Dependent(DependentKind.RETRIEVAL_QUERY, "question")
    deps = (DependencyMap()
            .with_dependent(action, {"visit_date", "asset"})
            .with_dependent(other, {"visit_date"})
            .with_dependent(query, {"procedure"}))
    inv = deps.invalidation(("visit_date",))
    assert inv.changed == ("visit_date",) and inv.stale == deps.invalidated_by({"visit_date"})
    assert action in inv and other in inv and query not in inv
    assert inv.of_kind(DependentKind.ACTION) == (other, action)  # by id: a1, a2
    assert inv.touches(("site", "visit_date")) and not inv.touches(("procedure",))
    assert bool(inv) and not Invalidation() and not Invalidation().touches(("visit_date",))


class _Spy:
    """Records every invalidation the map computes and what each reader was handed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.computed: list[Invalidation] = []
        self.readers_of: list[frozenset[str]] = []  # every DependencyMap.invalidated_by call
        self.desk: list[Invalidation] = []
        self.answers: list[Invalidation] = []
        computing = DependencyMap.invalidation
        invalidated_by = DependencyMap.invalidated_by
        on_change = BookingDesk.on_change
        stale_after = AnswerDesk.stale_after

        def invalidation(deps, changed):
            self.computed.append(computing(deps, changed))
            return self.computed[-1]

        def readers(deps, changed):
            self.readers_of.append(frozenset(changed))
            return invalidated_by(deps, changed)

        def desk_reads(desk, inv):
            self.desk.append(inv)
            on_change(desk, inv)

        def answers_read(answers, inv):
            self.answers.append(inv)
            return stale_after(answers, inv)

        monkeypatch.setattr(DependencyMap, "invalidation", invalidation)
        monkeypatch.setattr(DependencyMap, "invalidated_by", readers)
        monkeypatch.setattr(BookingDesk, "on_change", desk_reads)
        monkeypatch.setattr(AnswerDesk, "stale_after", answers_read)

    def clear(self) -> None:
        self.computed.clear()
        self.readers_of.clear()
        self.desk.clear()
        self.answers.clear()


async def test_a_correction_of_a_draft_is_computed_once_and_the_desk_gets_that_one(monkeypatch):
    spy = _Spy(monkeypatch)
    async with call() as c:
        await c.say("Book a service visit for P-100 on Wednesday afternoon.")
        [draft] = c.controller.actions
        spy.clear()
        await c.say("Thursday, not Wednesday.")
        [inv] = spy.computed
        assert spy.readers_of == [frozenset(inv.changed)]  # the map asked once, nobody else
        assert "visit_date" in inv.changed
        assert [a.id for a in inv.stale if a.kind is DependentKind.ACTION] == [draft.id]
        assert [d is inv for d in spy.desk] == [True]
        assert c.controller.actions[0].status is ActionStatus.CANCELLED
        assert c.events("generation_invalidated")[-1].get("reason") == "correction"


async def test_a_changed_read_of_the_answer_is_computed_once_and_read_by_the_answer_desk(
        monkeypatch):
    spy = _Spy(monkeypatch)
    async with call() as c:
        await c.say("What torque for the pump seal on P-100?")
        await c.settle()
        spy.clear()
        await c.say("I meant the other pump")
        await c.settle()
        [inv] = spy.computed
        assert spy.readers_of == [frozenset(inv.changed)]
        assert QUERY in inv and "asset" in inv.changed
        assert [d is inv for d in spy.desk] == [True]
        assert [d is inv for d in spy.answers] == [True]
        assert c.events("query_invalidated")[-1].get("fields") == inv.changed
        assert c.field("asset").value == "P-200"
