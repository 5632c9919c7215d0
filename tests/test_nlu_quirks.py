"""Understanding-level checks for the quirks the scripted-call pack found (pure, no world)."""

from __future__ import annotations

import pytest

from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import CorrectionKind, Intent
from tests.nlu_support import ONE_PUMP, context, propose, slot_values

BOOKED = {"asset": "P-100", "visit_date": "2026-12-03", "visit_window": "morning"}


@pytest.mark.parametrize("said", ["Yes, move it.", "yes, go ahead and move it",
                                  "yes please reschedule it", "no, don't move it"])
def test_yes_or_no_that_restates_the_pending_move_is_an_answer(said):
    proposal = propose(said, context(caller=ONE_PUMP, values=BOOKED, pending_confirmation=True))
    assert proposal.intent is (Intent.NO if said.startswith("no") else Intent.YES)


def test_restated_move_without_a_pending_confirmation_is_still_a_reschedule():
    assert propose("Yes, move it.", context(caller=ONE_PUMP, values=BOOKED)).intent \
        is Intent.RESCHEDULE


@pytest.mark.parametrize("said,site", [
    ("Sorry, the visit is at 7 Dock Street, Rotterdam, not Harbour Road.",
     "7 Dock Street, Rotterdam"),
    ("the visit is at 7 dock street rotterdam not harbour road", "7 Dock Street, Rotterdam"),
    ("it's at 7 Dock Street in Rotterdam", "7 Dock Street, Rotterdam"),
    ("Sorry, the address should be 7 Dock Street, not 12 Harbour Road.", "7 Dock Street"),
])
def test_another_address_for_the_booked_asset_is_a_site_correction(said, site):
    proposal = propose(said, context(caller=ONE_PUMP, values=BOOKED))
    assert (proposal.intent, proposal.correction) == (Intent.CORRECTION,
                                                      CorrectionKind.REPLACE)
    assert slot_values(proposal)["site"] == site


@pytest.mark.parametrize("said", ["Book another visit for P-200 on Friday",
                                  "I need a second booking for P-200 on Friday",
                                  "I'd also like a visit for P-200 on Friday"])
def test_a_request_for_another_visit_is_a_booking_not_a_correction(said):
    proposal = propose(said, context(values=BOOKED))
    assert (proposal.intent, proposal.correction) == (Intent.BOOK, CorrectionKind.NONE)
    assert slot_values(proposal)["asset"] == "P-200"


def test_friday_not_thursday_after_a_booking_is_still_a_correction():
    proposal = propose("sorry, Friday not Thursday", context(values=BOOKED))
    assert proposal.intent is Intent.CORRECTION
    assert slot_values(proposal)["visit_date"] == "2026-12-04"


def test_bare_number_answers_the_units_question():
    proposal = propose("ten", context(caller=ONE_PUMP, values=BOOKED, expecting="units"))
    assert slot_values(proposal) == {"units": "10"}


def test_units_alternatives_disagree_keep_both_candidates():
    proposal = propose("book P-100 on Thursday morning for two units", context(caller=ONE_PUMP),
                       confidence=0.9,
                       alternatives=("book P-100 on Thursday morning for ten units",))
    assert proposal.correction is CorrectionKind.UNCERTAIN
    [units] = [s for s in proposal.slots if s.field == "units"]
    assert (units.value, set(units.candidates)) == (None, {"2", "10"})


@pytest.mark.parametrize(("said", "written"), [
    ("the p two hundred one", "the p 200 1"),  # the P-200 one
    ("no sorry the two hundred one please", "no sorry the 200 1 please"),
    ("p two hundred one please", "p 201 please"),  # no "the": a number
    ("pump two hundred and one", "pump 201"),
])
def test_the_one_after_a_round_hundred_is_the_pronoun_after_the(said, written):
    assert normalise(said) == written


def test_i_forget_tells_and_drops_nothing():
    """Blind text round 32: "sorry i forget must be exact time two o'clock" at a read-back ruled
    two o'clock out ("forget" taken for an order to drop what follows)."""
    p = propose("sorry i forget must be exact time two o'clock", context())
    assert slot_values(p).get("visit_time") == "14:00" and not p.withdrawn


def test_send_back_with_its_object_said_before_asks_about_returns():
    """Blind text round 32, a caller with simple grammar."""
    p = propose("one more question filter kit we buy we not open it we can send back", context())
    assert p.intent is Intent.POLICY_QUESTION


@pytest.mark.parametrize("said", ["third and last please book a new visit for p two hundred on "
                                  "friday the eighteenth", "2nd and final, a new visit for P-200 "
                                  "on Friday the 18th"])
def test_a_caller_counting_their_items_names_no_day(said):
    """Blind text round 32: "third and last" was read as the 3rd, replaced by the 18th, and the
    new visit became a correction of the move just made."""
    p = propose(said, context())
    assert slot_values(p).get("visit_date") == "2026-12-18" and not p.withdrawn
