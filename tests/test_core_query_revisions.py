"""Seed 000's ``query_revisions.py``, every assertion ported to the real API."""

import asyncio
from dataclasses import FrozenInstanceError

import pytest

from agent.core.errors import InvalidInput, QuestionClosed
from agent.core.fields import validate_values
from agent.core.gate import AdmissionGate, Disposition, Stamp
from agent.core.ledger import Ledger, UpdateOutcome

ALL = ("item", "opened")


async def retrieve(gate, stamp, fetch):
    """The seed's reference retrieve: fetch, then admit after the await."""
    evidence = await fetch(stamp)
    disposition = gate.admit(stamp)
    return disposition, evidence if disposition is Disposition.CURRENT else None


def test_request_snapshot_does_not_alias_the_callers_dict():
    ledger = Ledger()
    source = {"item": "book", "opened": "no"}
    assert ledger.update(0, source).outcome is UpdateOutcome.ACCEPTED
    old = ledger.issue()
    source["opened"] = "yes"
    assert old.value("opened") == "no"
    assert ledger.current.value("opened") == "no"


def test_snapshots_and_stamps_are_frozen():
    ledger = Ledger()
    ledger.update(0, {"item": "book", "opened": "no"})
    old = ledger.issue()
    with pytest.raises(FrozenInstanceError):
        old.fields = ()
    with pytest.raises(TypeError):
        old.fields[0] = ("item", "changed")
    with pytest.raises(AttributeError):
        ledger.current = old
    stamp = Stamp.of(old, ALL)
    with pytest.raises(FrozenInstanceError):
        stamp.reads = ()
    values = old.values()
    values["opened"] = "yes"
    assert old.value("opened") == "no"


@pytest.mark.anyio
async def test_late_result_after_correction_is_stale():
    ledger = Ledger()
    gate = AdmissionGate(ledger)
    source = {"item": "book", "opened": "no"}
    ledger.update(0, source)
    old = Stamp.of(ledger.issue(), ALL)
    started, release = asyncio.Event(), asyncio.Event()

    async def delayed(stamp):
        started.set()
        await release.wait()
        return ("synthetic source", stamp.reads)

    pending = asyncio.create_task(retrieve(gate, old, delayed))
    await started.wait()
    source["opened"] = "yes"
    assert ledger.update(1, source).outcome is UpdateOutcome.ACCEPTED
    assert gate.admit(old) is Disposition.STALE
    current = Stamp.of(ledger.issue(), ALL)
    assert gate.admit(current) is Disposition.CURRENT
    release.set()
    assert await pending == (Disposition.STALE, None)
    # Discarding the stale result left the newer request current.
    assert gate.admit(current) is Disposition.CURRENT


def test_duplicate_conflict_stale_and_final():
    ledger = Ledger()
    source = {"item": "book", "opened": "yes"}
    ledger.update(0, {"item": "book", "opened": "no"})
    assert ledger.update(1, source) == "accepted"
    assert ledger.update(1, source) == "duplicate"
    assert ledger.update(1, {"opened": "no"}) == "conflict"
    assert ledger.update(2, source, final=True) == "accepted"
    assert ledger.update(0, {"opened": "old"}) == "stale"
    assert ledger.update(2, source, final=True) == "duplicate"
    assert ledger.update(3, source) == "conflict"
    assert ledger.current.value("opened") == "yes"
    assert ledger.revision == 2


def test_finalize_then_close_admits_nothing():
    ledger = Ledger()
    gate = AdmissionGate(ledger)
    source = {"item": "book", "opened": "yes"}
    ledger.update(0, source)
    ledger.update(2, source, final=True)
    terminal = Stamp.of(ledger.issue(), ALL)
    ledger.close()
    assert gate.admit(terminal) is Disposition.CLOSED
    assert ledger.update(2, source, final=True) == "closed"
    assert ledger.set("opened", "no", "utterance:u9") == "closed"
    with pytest.raises(QuestionClosed):
        ledger.issue()


def test_no_active_question_cannot_be_issued():
    with pytest.raises(QuestionClosed):
        Ledger().issue()


@pytest.mark.parametrize("bad", [{}, {"opened": []}, {"": "x"}, {1: "x"}, {"a": ""}, None,
                                 [("a", "b")]])
def test_invalid_values_are_rejected(bad):
    with pytest.raises(ValueError):
        validate_values(bad)
    with pytest.raises(InvalidInput):
        Ledger().update(0, bad)


@pytest.mark.parametrize("revision", [-1, 1.5, "2", None, True])
def test_invalid_revisions_are_rejected(revision):
    with pytest.raises(InvalidInput, match="revision"):
        Ledger().update(revision, {"a": "b"})


def test_invalid_final_flag_is_rejected():
    with pytest.raises(InvalidInput, match="final"):
        Ledger().update(0, {"a": "b"}, final="yes")


def test_question_id_is_new_for_every_ledger():
    assert Ledger().question != Ledger().question


def test_result_of_a_previous_question_is_stale():
    before_restart = Ledger()
    before_restart.update(0, {"item": "book"})
    stamp = Stamp.of(before_restart.current, ["item"])
    after_restart = Ledger()
    after_restart.update(0, {"item": "book"})
    assert AdmissionGate(after_restart).admit(stamp) is Disposition.STALE
