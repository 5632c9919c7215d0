"""Dates and times against the call's clock: the domain rules of docs/call-scripts.md, pinned.

The clock is the contract's example, Tuesday 2026-12-01 09:00+01:00, unless a row says
otherwise. dateparser alone reads "Wednesday" as last Wednesday and "the 3rd" as a month; these
rows are the rules we hold it to.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from nlu_support import FRIDAY, THURSDAY, TUESDAY, context, propose

from agent.nlu import is_past
from agent.nlu.dates import read_dates
from agent.nlu.normalise import normalise
from agent.nlu.times import read_times, window_of
from agent.proposals import VISIT_DATE, VISIT_TIME, VISIT_WINDOW, CorrectionKind

SUNDAY_LATE = datetime(2026, 12, 6, 23, 30, tzinfo=timezone(timedelta(hours=1)))


@pytest.mark.parametrize(
    ("now", "said", "value"),
    [
        (TUESDAY, "Thursday", "2026-12-03"),
        (TUESDAY, "on wednesday", "2026-12-02"),
        (TUESDAY, "Monday", "2026-12-07"),
        (TUESDAY, "this Thursday", "2026-12-03"),
        (TUESDAY, "thursday next week", "2026-12-10"),
        (TUESDAY, "next Monday", "2026-12-07"),  # this week's Monday is past: the coming one
        (FRIDAY, "next Thursday", "2026-12-10"),  # this week's Thursday is past
        (THURSDAY, "next Thursday", "2026-12-10"),  # today is not "still ahead"
        (TUESDAY, "tomorrow", "2026-12-02"),
        (TUESDAY, "the day after tomorrow", "2026-12-03"),
        (TUESDAY, "in two days", "2026-12-03"),
        (TUESDAY, "the 3rd", "2026-12-03"),
        (TUESDAY, "on the third", "2026-12-03"),
        (TUESDAY, "the 1st", "2026-12-01"),  # at or after today: today counts
        (FRIDAY, "the 3rd", "2027-01-03"),  # this month's 3rd is past: the next 3rd
        (TUESDAY, "December 3rd", "2026-12-03"),
        (TUESDAY, "the third of December", "2026-12-03"),
        (TUESDAY, "dec 24", "2026-12-24"),
        (TUESDAY, "January 5th", "2027-01-05"),  # said in December: next year's
        (TUESDAY, "2026-12-18", "2026-12-18"),
        (SUNDAY_LATE, "tomorrow", "2026-12-07"),  # the call's own offset decides the day
        (TUESDAY, "thirsday", "2026-12-03"),  # recogniser spelling
    ],
)
def test_date_phrase_resolves_against_the_call_clock(now, said, value):
    (reading,) = read_dates(normalise(said), now)
    assert (reading.value, reading.candidates, reading.past) == (value, (), False)


@pytest.mark.parametrize(
    ("now", "said", "candidates"),
    [
        (TUESDAY, "Tuesday", ("2026-12-01", "2026-12-08")),  # on that same weekday
        (THURSDAY, "Thursday", ("2026-12-03", "2026-12-10")),
        (TUESDAY, "next Thursday", ("2026-12-03", "2026-12-10")),  # this week's still ahead
        (TUESDAY, "next sunday", ("2026-12-06", "2026-12-13")),
        (TUESDAY, "next Wednesday", ("2026-12-02", "2026-12-09")),
    ],
)
def test_ambiguous_weekday_comes_back_with_two_candidates_and_no_value(now, said, candidates):
    (reading,) = read_dates(normalise(said), now)
    assert reading.value is None
    assert reading.candidates == candidates


@pytest.mark.parametrize(
    ("said", "value"),
    [("yesterday", "2026-11-30"), ("November 20th", "2026-11-20"),
     ("last Friday", "2026-11-27"), ("December 3rd 2025", "2025-12-03")],
)
def test_past_date_is_kept_as_said_and_flagged(said, value):
    (reading,) = read_dates(normalise(said), TUESDAY)
    assert (reading.value, reading.past) == (value, True)
    assert is_past(value, TUESDAY)
    proposal = propose(f"can you come {said}")
    assert proposal.slot(VISIT_DATE).value == value
    assert f"past date {value}" in proposal.reason


def test_thursday_said_on_a_thursday_is_an_ambiguous_value_proposal():
    # A booking whose day fits two Thursdays revises nothing: its slot carries both candidates
    # (the agent asks) and the correction kind stays none (docs/understanding.md).
    proposal = propose("book P-100 on Thursday", context(now=THURSDAY))
    slot = proposal.slot(VISIT_DATE)
    assert slot.value is None and slot.candidates == ("2026-12-03", "2026-12-10")
    assert proposal.correction is CorrectionKind.NONE


def test_a_correction_to_a_thursday_said_on_a_thursday_is_an_ambiguous_value():
    held = context(now=THURSDAY, values={"asset": "P-100", "visit_date": "2026-12-04"})
    proposal = propose("sorry, Thursday", held)
    assert proposal.slot(VISIT_DATE).candidates == ("2026-12-03", "2026-12-10")
    assert proposal.correction is CorrectionKind.AMBIGUOUS_VALUE


@pytest.mark.parametrize(
    ("said", "time", "window"),
    [
        ("at 2 pm", "14:00", "afternoon"),
        ("2pm", "14:00", "afternoon"),
        ("at two p.m.", "14:00", "afternoon"),
        ("ten thirty", "10:30", "morning"),
        ("at 10", "10:00", "morning"),
        ("at ten", "10:00", "morning"),
        ("at 2", "14:00", "afternoon"),  # an hour with no am/pm is a daytime hour
        ("10:30", "10:30", "morning"),
        ("half past two", "14:30", "afternoon"),
        ("quarter to eleven", "10:45", "morning"),
        ("two o'clock", "14:00", "afternoon"),
        ("at for pm", "16:00", "afternoon"),  # homophone
        ("8 am", "08:00", "morning"),
        ("at noon", "12:00", None),  # between the windows
        ("at 6 pm", "18:00", None),
        ("2 in the afternoon", "14:00", "afternoon"),
        ("10 in the morning", "10:00", "morning"),
    ],
)
def test_time_of_day_and_the_window_it_implies(said, time, window):
    (reading,) = read_times(normalise(said))
    assert (reading.value, reading.window) == (time, window)
    proposal = propose(said, context(expecting=VISIT_TIME))
    assert proposal.slot(VISIT_TIME).value == time
    implied = proposal.slot(VISIT_WINDOW)
    assert (implied.value if implied else None) == window


@pytest.mark.parametrize("said", ["3 pumps", "the 3rd", "in 2 days", "2 units at the site"])
def test_numbers_that_are_not_times_are_not_read_as_times(said):
    assert read_times(normalise(said)) == ()


def test_window_boundaries_follow_the_contract():
    assert [window_of(t) for t in ("07:59", "08:00", "11:59", "12:00", "13:00", "16:59",
                                   "17:00")] == [None, "morning", "morning", None,
                                                 "afternoon", "afternoon", None]


@pytest.mark.parametrize(
    ("said", "window"),
    [("in the morning", "morning"), ("morning please", "morning"), ("after lunch", "afternoon"),
     ("the afternoon", "afternoon"), ("before noon", "morning"), ("afternoons work", "afternoon")],
)
def test_window_words(said, window):
    proposal = propose(said, context(expecting=VISIT_WINDOW))
    assert proposal.slot(VISIT_WINDOW).value == window


@pytest.mark.parametrize(
    ("said", "value", "candidates"),
    [("Thursday the 10th", "2026-12-10", ()), ("thursday the 3rd", "2026-12-03", ()),
     ("Friday, December 4th", "2026-12-04", ()),
     ("Thursday the 11th", None, ("2026-12-03", "2026-12-11"))],  # they disagree: ask
)
def test_weekday_with_a_date_is_pinned_by_the_date_when_they_agree(said, value, candidates):
    slot = propose(said, context(expecting=VISIT_DATE)).slot(VISIT_DATE)
    assert (slot.value, slot.candidates) == (value, candidates)
