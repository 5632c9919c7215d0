"""Read one stretch of normalised text into proposed slot values.

The extractors run in a fixed order and each masks what it consumed, so one phrase feeds one
field: the site first ("at 12 Harbour Road" is not a time), then assets ("p 200" is not a
number of units), configuration, dates, times, windows, units, language, region, opened, and
the procedure or returnable item. Pure; the ledger is read only to know which asset "the
pump" means when two fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime

from agent.core.caller import Asset
from agent.core.names import (
    ASSET,
    FAMILY,
    ITEM_CATEGORY,
    PROCEDURE,
    SITE,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.understanding.nlu import catalog, dates, intents, procedures, slots, spans, times
from agent.understanding.proposals import ProposalContext, SlotValue

RETURNS_FAMILY = "returns"


@dataclass(frozen=True, slots=True)
class Mention:
    """One place in the text that names a value of a field, in reading order."""

    field: str
    value: str | None
    candidates: tuple[str, ...]
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Reading:
    slots: tuple[SlotValue, ...] = ()
    foreign_assets: tuple[str, ...] = ()  # id-like tokens that are not the caller's
    past_dates: tuple[str, ...] = ()
    # Where each asset, date, time and window was said: a turn that names two values of one
    # field says which is old by its structure ("from X to Y"), which the proposer reads.
    mentions: tuple[Mention, ...] = ()

    def value(self, field: str) -> SlotValue | None:
        return next((s for s in self.slots if s.field == field), None)


# Between a weekday and a date that name one day: "Thursday the 11th", "the 8th, the Friday".
_BESIDE = re.compile(r"\s*,?\s*(?:(?:the|a|on|of)\s+)?")
# A word that makes the date after it a bound, not the visit's day.
_BOUND = re.compile(r"\b(?:after|before)\s+$")


# A day said of the caller's own situation, in the clause that holds it: what happened to the
# equipment ("it stopped working today", "the alarm went off on Monday") or where the caller is
# now ("I'm stood at the Canal Street pump today", "we're on site today"). Not availability
# ("we're free today", "I'll be there on Thursday"): that is when a visit can be.
_CLAUSE_START = re.compile(r"(?:[,.;:?!]|\b(?:and|but|so|because|cause|cos|then|if|when)\b)"
                           r"(?!.*(?:[,.;:?!]|\b(?:and|but|so|because|cause|cos|then|if|when)\b))")
_SITUATION = re.compile(
    r"\b(?:stopped|started|broke|broken|failed|began|tripped|died|packed up|cut out|conked out"
    r"|went (?:down|off|out)|noticed|spotted|happened|leaked|seized|jammed|flooded"
    r"|(?:been|was|were) (?:leaking|running|making|acting|playing|tripping|dripping|noisy"
    r"|rattling|down|off))\b"
    r"|\b(?:i'?m|i am|we'?re|we are)(?: (?:just|currently|now|still|here|there|out|over|down"
    r"|up|all))? (?:stood|standing|sat|sitting|working at|working on|at|on site|onsite|by|in"
    r" front of)\b")


def _situation(text: str, start: int) -> bool:
    """Whether the date at ``start`` is said in a clause of the caller's own situation
    (:data:`_SITUATION`), not of the visit."""
    before = text[:start]
    clause = _CLAUSE_START.search(before)
    return bool(_SITUATION.search(before[clause.end() if clause else 0:]))


def _of_the_visit_days(readings: tuple[dates.DateReading, ...], text: str, original: str,
                       context: ProposalContext) -> tuple[dates.DateReading, ...]:
    """The days that can be the visit's: not a day gone by beside one to come. A day said of
    the caller's situation (:func:`_situation`) is not, when the turn names another day ("It
    stopped working today, can someone come on Friday?": Friday), nor when the turn asks for
    no visit and the call holds none and asks for no day ("Not Harbour Road, I'm stood at the
    Canal Street pump today, it's that one." of a question about the pump: the pump, and no
    visit today)."""
    coming = tuple(r for r in readings if not r.past)
    if coming and len(coming) < len(readings):
        # a day gone by beside one to come is when something happened ("Thursday the 10th?
        # The night shift heard a funny noise last Monday."), never a choice to offer
        readings = coming
    situated = [r for r in readings if _situation(text, r.start)]
    if not situated:
        return readings
    others = tuple(r for r in readings if r not in situated)
    if others:
        return others
    held = any(context.ledger.value(name) for name in (VISIT_DATE, VISIT_WINDOW, VISIT_TIME))
    if held or context.expecting in (VISIT_DATE, VISIT_WINDOW, VISIT_TIME) \
            or intents.asks_for_a_visit(original):
        return readings
    return ()


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _one_or_candidates(field: str, found: list[tuple[str, str, float]]) -> SlotValue | None:
    """One value, or (when the stretch names several different ones) an ambiguous slot."""
    if not found:
        return None
    values = tuple(dict.fromkeys(v for v, _, _ in found))
    text = " / ".join(dict.fromkeys(t for _, t, _ in found))
    confidence = min(c for _, _, c in found)
    if len(values) == 1:
        return SlotValue(field, values[0], text, confidence)
    return SlotValue(field, None, text, confidence, values)


def _placed_at(mentions: tuple[catalog.AssetMention, ...], site: str,
               assets: tuple[Asset, ...]) -> tuple[catalog.AssetMention, ...]:
    """A noun that leaves the caller's assets open, said with the address of one of them
    ("the pump at 4 Canal Street seen to": the address is read as the site first), names
    the one there."""
    there = [a.id for a in assets if a.site == site]
    if len(there) != 1:
        return mentions
    return tuple(replace(m, asset_id=there[0], candidates=())
                 if m.asset_id is None and not m.foreign and there[0] in m.candidates else m
                 for m in mentions)


def read(text: str, context: ProposalContext, *, whole_turn: bool = True) -> Reading:
    """Slot values proposed by normalised ``text`` (pure). ``whole_turn``: ``text`` is all the
    caller said, not a stretch of it (a negated one)."""
    assets = context.caller.assets
    original = text
    out: list[SlotValue] = []
    found_site = slots.find_site(text, assets)
    if found_site:
        out.append(SlotValue(SITE, found_site.value, found_site.text))
        text = _mask(text, found_site.start, found_site.end)
    elif context.expecting == SITE and (known := slots.known_site_named(text, assets)):
        out.append(SlotValue(SITE, known, text))  # "Which address?" "The Dock Street one."
    found_ref = slots.find_booking_ref(text, context.bookings)
    if found_ref:
        out.append(SlotValue(found_ref.field, found_ref.value, found_ref.text))
        text = _mask(text, found_ref.start, found_ref.end)

    said: list[Mention] = []
    mentions = catalog.find_assets(
        text, assets, context.procedures,
        asset_in_question=context.ledger.value(ASSET) is not None or context.expecting == ASSET,
        whole_turn=whole_turn)
    if found_site:
        mentions = _placed_at(mentions, found_site.value, assets)
    for mention in mentions:
        text = _mask(text, mention.start, mention.end)
        if mention.asset_id or mention.candidates:
            said.append(Mention(ASSET, mention.asset_id, mention.candidates, mention.start,
                                mention.end))
    asset = _asset_slot(mentions, context.ledger.value(ASSET))
    foreign = tuple(m.foreign for m in mentions if m.foreign)

    found_config = slots.find_configuration(text, assets)
    if found_config:
        text = _mask(text, found_config.start, found_config.end)

    all_dates = dates.read_dates(text, context.now)
    # "after Friday", "before the 10th" bound the day; they do not name it (the agent asks).
    date_readings = _of_the_visit_days(
        tuple(r for r in _one_day_each(all_dates, text) if not _BOUND.search(text[:r.start])),
        text, original, context)
    for reading in all_dates:
        text = _mask(text, reading.start, reading.end)
    said.extend(Mention(VISIT_DATE, r.value, r.candidates, r.start, r.end)
                for r in date_readings)
    visit_date = _date_slot(date_readings)

    # "until noon", "between 2 and 4": a span of the clock names no time, maybe a window
    span_windows = []
    for start, end, span_window in spans.read_spans(text):
        text = _mask(text, start, end)
        if span_window is not None:
            span_windows.append(span_window)
    time_readings = times.read_times(text, bare_hour=context.expecting == VISIT_TIME)
    for found_time in time_readings:
        text = _mask(text, found_time.start, found_time.end)
        said.append(Mention(VISIT_TIME, found_time.value, getattr(found_time, "candidates", ()),
                            found_time.start, found_time.end))
    visit_time = _time_slot(time_readings)
    window_readings = _of_the_visit(
        tuple(sorted(times.read_windows(text, tuple(r.end for r in all_dates))
                     + tuple(span_windows), key=lambda w: w.start)),
        text, visit_date, context.now)
    said.extend(Mention(VISIT_WINDOW, w.value, (), w.start, w.end) for w in window_readings)
    windows = [(w.value, w.text, 1.0) for w in window_readings]
    if not windows and visit_time is not None and visit_time.value is not None:
        implied = times.window_of(visit_time.value)
        if implied:
            windows = [(implied, visit_time.text, 1.0)]

    for slot in (asset, visit_date, visit_time, _one_or_candidates(VISIT_WINDOW, windows)):
        if slot is not None:
            out.append(slot)
    found_units = slots.find_units(text)
    unit_slot = _one_or_candidates(UNITS, [(f.value, f.text, 1.0) for f in found_units])
    if unit_slot:
        out.append(unit_slot)
    for found in (slots.find_language(text), found_config, slots.find_region(text),
                  slots.find_opened(text)):
        if found is not None:
            out.append(SlotValue(found.field, found.value, found.text))
    out.extend(_procedure_slots(text, context))
    return Reading(tuple(out), foreign, tuple(r.value for r in date_readings
                                              if r.past and r.value),
                   tuple(sorted(said, key=lambda m: m.start)))


def _time_slot(readings: tuple[times.TimeReading, ...]) -> SlotValue | None:
    """One time, or candidates: an hour that fits neither half ("at 7"), or "at 2 or 3"."""
    if not readings:
        return None
    candidates = tuple(dict.fromkeys(
        c for r in readings for c in ((r.value,) if r.value else r.candidates)))
    text = " / ".join(dict.fromkeys(r.text for r in readings))
    if len(candidates) == 1:
        return SlotValue(VISIT_TIME, candidates[0], text)
    return SlotValue(VISIT_TIME, None, text, 1.0, candidates)


def _asset_slot(mentions: tuple[catalog.AssetMention, ...], held: str | None) -> SlotValue | None:
    """The asset named. An id of the caller's outweighs a heard id or a kind in the same words.

    A heard id that is none of the caller's ("V-200") has no value: its candidates are the ids
    it may mean, and its text is the id as heard, so the agent can say what it did not find.
    "The pump" said of two pumps while the call is about one of them (``held``) is that one,
    and so is "B-200" when the one id it may mean is the one the call already holds.
    """
    owned = [(m.asset_id, m.text, m.confidence) for m in mentions if m.asset_id]
    if owned:
        return _one_or_candidates(ASSET, owned)
    open_ = [m for m in mentions if m.candidates]
    if not open_:
        return None
    if held is not None and all(m.by_kind and held in m.candidates for m in open_):
        return SlotValue(ASSET, held, " / ".join(m.text for m in open_))
    if held is not None and all(m.candidates == (held,) for m in open_):
        return SlotValue(ASSET, held, " / ".join(m.text for m in open_), 0.8)
    candidates = tuple(dict.fromkeys(c for m in open_ for c in m.candidates))
    text = " / ".join(dict.fromkeys(m.foreign or m.text for m in open_))
    return SlotValue(ASSET, None, text, min(m.confidence for m in open_), candidates)


# "this morning", "tonight": a part of today
_TODAY_BEFORE = re.compile(r"\b(?:this|earlier this|later this) $")


def _of_the_visit(windows: tuple[times.WindowReading, ...], text: str,
                  visit_date: SlotValue | None, now: datetime) -> tuple[times.WindowReading, ...]:
    """The windows that can be the visit's: not a part of today ("this morning", "tonight")
    in a turn that names another day for the visit ("It started leaking this morning. Can
    someone come on Friday?": the morning is when it started)."""
    if visit_date is None or visit_date.value is None \
            or visit_date.value == now.date().isoformat():
        return windows
    return tuple(w for w in windows if not (_TODAY_BEFORE.search(text[:w.start])
                                            or w.text == "tonight"))


def _one_day_each(readings: tuple[dates.DateReading, ...],
                  text: str) -> tuple[dates.DateReading, ...]:
    """The readings, each naming one day. A weekday said right beside a date is one reading
    with it: that date when it falls on the weekday ("Thursday the 10th", "the 18th, the
    Friday"), else both days as candidates ("Thursday the 11th", "I meant the 8th, the
    Friday": the agent asks which). A weekday that a date said elsewhere in the turn falls on
    is left out."""
    out: list[dates.DateReading] = []
    for reading in readings:
        last = out[-1] if out else None
        if last is None or (last.weekday is None) == (reading.weekday is None) \
                or not _BESIDE.fullmatch(text[last.end:reading.start]):
            out.append(reading)
            continue
        weekday, day = (last, reading) if last.weekday is not None else (reading, last)
        agree = day.value is not None and date.fromisoformat(day.value).weekday() == \
            weekday.weekday
        said = tuple(dict.fromkeys(d for r in (last, reading) for d in (r.candidates or (r.value,))
                                   if d))
        # The date's own words stay its text (what carries the value; the weekday only
        # agrees), but the reading spans both ("after Thursday the 10th" is a bound).
        out[-1] = dates.DateReading(
            day.text if agree else text[last.start:reading.end], last.start, reading.end,
            day.value if agree else None, day.candidates if agree else said,
            day.past if agree else last.past and reading.past)
    days = [r.value for r in out if r.weekday is None and r.value is not None]
    return tuple(r for r in out if r.weekday is None or not any(
        date.fromisoformat(day).weekday() == r.weekday for day in days))


def _date_slot(readings: tuple[dates.DateReading, ...]) -> SlotValue | None:
    if not readings:
        return None
    if len(readings) == 1 and readings[0].value is not None:
        r = readings[0]
        return SlotValue(VISIT_DATE, r.value, r.text)
    candidates = tuple(dict.fromkeys(
        c for r in readings for c in ((r.value,) if r.value else r.candidates)))
    text = " / ".join(r.text for r in readings)
    if len(candidates) == 1:
        return SlotValue(VISIT_DATE, candidates[0], text)
    return SlotValue(VISIT_DATE, None, text, 1.0, candidates)


def _procedure_slots(text: str, context: ProposalContext) -> list[SlotValue]:
    known = frozenset(word for asset in context.caller.assets
                      for word in re.findall(r"[a-z]+", f"{asset.site} {asset.kind}".lower()))
    match = procedures.match_procedure(text, context.procedures, known)
    if match is None:
        return []
    confidence = round(match.score / 100, 2)
    if match.info is None:
        families = {c.family for c in match.candidates}
        field = ITEM_CATEGORY if families == {RETURNS_FAMILY} else PROCEDURE
        ids = tuple(dict.fromkeys(c.procedure for c in match.candidates))
        return [SlotValue(field, None, match.text, confidence, ids)]
    info = match.info
    if info.family == RETURNS_FAMILY:
        return [SlotValue(ITEM_CATEGORY, info.procedure, match.text, confidence)]
    return [SlotValue(PROCEDURE, info.procedure, match.text, confidence),
            SlotValue(FAMILY, info.family, match.text, confidence)]

