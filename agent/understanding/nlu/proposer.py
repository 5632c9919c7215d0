"""RuleProposer: the deterministic default :class:`agent.understanding.proposals.Proposer`.

One turn in, one :class:`Proposal` out; no state is kept between turns (the ledger in the
context is the memory). Steps: normalise; split off negated stretches ("not Thursday") and read
them as withdrawals; read the rest as slot values; look for the correction signals, authority
boundaries and uncertain recognition; pick the intent and the correction kind by a fixed
precedence. A past date is proposed as itself and named in ``reason`` (the controller refuses
it). Side effects: none, apart from warming and filling dateparser's and our own memo caches.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime

from agent.core.names import (
    ASSET,
    BOOKING_REF,
    ITEM_CATEGORY,
    OPENED,
    PROCEDURE,
    SITE,
    UNITS,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.core.speech import Utterance
from agent.understanding import trust
from agent.understanding.nlu import corrections, dates, intents, lexicon, times
from agent.understanding.nlu.normalise import normalise
from agent.understanding.nlu.reading import Mention, Reading, read
from agent.understanding.nlu.slots import known_site_named
from agent.understanding.proposals import (
    CorrectionKind,
    Intent,
    Proposal,
    ProposalContext,
    SlotRole,
    SlotValue,
)

LOW_CONFIDENCE = trust.CONFIDENCE_FLOOR  # below it, the proposer doubts what it read
_NUMBER = re.compile(r"\b(\d{1,3})\b")
# Fields whose disagreement between recognition alternatives changes what the agent does.
DECISION_FIELDS = (ASSET, VISIT_DATE, VISIT_TIME, VISIT_WINDOW, "units", BOOKING_REF,
                   ITEM_CATEGORY, OPENED, PROCEDURE, "language", "site")
# Fields that change together count once when deciding whether a correction is MULTI.
_GROUP = {VISIT_WINDOW: VISIT_TIME, "family": PROCEDURE}
_BOOKING_VALUES = (ASSET, VISIT_DATE, VISIT_TIME, VISIT_WINDOW, "units", "site")


class RuleProposer:
    """Deterministic understanding. Construct once per process: construction warms dateparser."""

    def __init__(self, warm_at: datetime | None = None) -> None:
        dates.warm_up(warm_at or datetime.now().astimezone())
        normalise("warm up at two pm on the third")

    def propose(self, utterance: Utterance, context: ProposalContext) -> Proposal:
        """Read one final turn (pure with respect to ``context``; nothing is accepted here)."""
        text = normalise(utterance.text or "")
        if not text:
            return Proposal(Intent.UNKNOWN, confidence=utterance.confidence, reason="empty turn")
        reading, withdrawn = _read_turn(text, context)
        boundary = corrections.authority_boundary(text, context, reading.foreign_assets)
        if boundary is not None:
            return _authority(text, boundary, utterance, context)
        cleared = corrections.cleared_fields(text)
        referent = corrections.find_referent(text, context)
        slots = list(reading.slots)
        if referent is not None:
            slots = [s for s in slots if s.field != referent.field]
            if referent.value is not None or referent.candidates:
                slots.append(SlotValue(referent.field, referent.value, referent.text,
                                       candidates=referent.candidates))
        if cleared:
            slots = [s for s in slots if s.field not in cleared]
        slots = _answer_to_expected(text, slots, context)
        uncertain, slots = _uncertainty(utterance, context, slots)
        intent, corrective = _intent(text, slots, withdrawn, cleared, referent, context)
        kind = _kind(intent, corrective, slots, withdrawn, cleared, referent, uncertain, context)
        reasons = [f"intent {intent.value}", f"correction {kind.value}"]
        if reading.past_dates:
            reasons.append("past date " + ", ".join(reading.past_dates))
        go_ahead = intent is not Intent.NO and (intents.says_go_ahead(text) or (
            intents.starts_with_yes(text) and intent is Intent.CORRECTION))
        slots = _with_roles(slots, intent, context)
        return Proposal(
            intent=intent,
            slots=tuple(slots),
            correction=kind,
            withdrawn=withdrawn,
            cleared=cleared,
            ambiguous_fields=(context.active_date_fields
                              if kind is CorrectionKind.AMBIGUOUS_TARGET else ()),
            referent=referent.value if referent else None,
            go_ahead=go_ahead,
            confidence=min(utterance.confidence, 1.0),
            reason="; ".join(reasons),
        )


def _with_roles(slots: list[SlotValue], intent: Intent,
                context: ProposalContext) -> list[SlotValue]:
    """``to`` for the values a correction or a move gives, ``new`` for everything else.

    Values that only identify the visit being moved or called off stay ``new``: a booking
    reference, the booked asset named again, every value of a cancellation.
    """
    if intent not in (Intent.CORRECTION, Intent.RESCHEDULE):
        return slots
    out = []
    for slot in slots:
        identifies = slot.field == BOOKING_REF or (
            intent is Intent.RESCHEDULE and slot.field == ASSET
            and slot.value == context.ledger.value(ASSET))
        out.append(slot if identifies else replace(slot, role=SlotRole.TO))
    return out


def _read_turn(text: str, context: ProposalContext) -> tuple[Reading, tuple[tuple[str, str], ...]]:
    """Slots from the affirmed words; withdrawals from the negated stretches that name values."""
    positive = text
    withdrawn: list[tuple[str, str]] = []
    for stretch in corrections.negated_stretches(text):
        stretch, negated = _first_value_only(text, stretch, context)
        # "not V-200" (an id that is none of the caller's) withdraws nothing the caller holds.
        said = [s for s in negated.slots if s.field in DECISION_FIELDS and s.field != OPENED
                and not (s.field == ASSET and s.value is None and negated.foreign_assets)]
        times = {s.text for s in said if s.field == VISIT_TIME}
        # "not at 2" withdraws the time, not the afternoon it implies (3 pm may still do).
        said = [s for s in said if not (s.field == VISIT_WINDOW and s.text in times)]
        values = [_withdrawn_value(s, context) for s in said]
        values = [v for v in values if v is not None]
        if not any(s.field == SITE for s in said):
            named = known_site_named(stretch.text, context.caller.assets)
            values += [(SITE, named)] if named else []  # "not Harbour Road": the site we hold
        if not values:
            continue  # "I did not open it", "I'm not sure": not a withdrawal
        withdrawn.extend(values)
        positive = positive[:stretch.start] + " " * (stretch.end - stretch.start) \
            + positive[stretch.end:]
    positive = " ".join(positive.split())
    reading = read(positive, context)
    reading, replaced = _sequences(positive, reading)
    return reading, tuple(dict.fromkeys([*withdrawn, *replaced]))


def _first_value_only(text: str, stretch: corrections.Stretch, context: ProposalContext
                      ) -> tuple[corrections.Stretch, Reading]:
    """A negation governs the first value of a field after it, not the replacement that
    follows without a comma ("instead of the 7th we'll take the 8th", "not the afternoon the
    morning", "dont come wednesday friday works"). Returns the stretch and its reading."""
    reading = read(stretch.text, context)
    offset = text.find(stretch.text, stretch.start)
    if offset <= stretch.start or not stretch.text:
        return stretch, reading  # the value comes before its negation ("Wednesday is out")
    mentions = reading.mentions
    for index, first in enumerate(mentions):
        later = [m for m in mentions[index + 1:] if m.field == first.field
                 and (m.value, m.candidates) != (first.value, first.candidates)]
        if later:
            cut = first.end
            shorter = corrections.Stretch(stretch.text[:cut].strip(), stretch.start,
                                          offset + cut)
            return shorter, read(shorter.text, context)
    return stretch, reading


_ALTERNATIVE = re.compile(r"\b(?:or|either|maybe|perhaps|possibly)\b")
# The words that say the later of two values replaces the earlier: said between them ("from
# X to Y", "swap X for Y", "X? no, Y", "I said X but meant Y", "X is out, Y works") or before
# the first ("from X...", "I said X...", "swap X..."). Without one, two values stay two
# candidates: a misheard "not" must never turn a correction round.
_REPLACES_BETWEEN = re.compile(
    r"\b(?:to|into|till|until|for|with|meant|mean|no|nope|nah|actually|sorry|rather|but"
    r"|instead|make it|should be|i mean|wrong|change|better|works?|suits?|fine|good|ok|okay"
    r"|prefer|would be|is better)\b")
_REPLACES_BEFORE = re.compile(
    r"\b(?:from|swap|switch|change|changing|move|moving|shift|push|bring|i said|you have"
    r"|you've got|you put|told you|it says|instead of|rather than)\b")
_FILLER = re.compile(r"^(?:[\s,]|\bthe\b|\bon\b|\bof\b|\bat\b)*$")
_SEQUENCED = (ASSET, VISIT_DATE, VISIT_TIME, VISIT_WINDOW)


def _sequences(text: str, reading: Reading) -> tuple[Reading, list[tuple[str, str]]]:
    """Two values of one field in one turn: the last one said is meant, the earlier replaced.

    "from the 2nd to the 4th", "I said Wednesday, I meant Thursday", "swap the morning for the
    afternoon", "Thursday? no, Friday": the order says which value is old. Values joined by
    "or" stay alternatives (one ambiguous slot), and two words for one value ("Thursday the
    10th") stay one mention. Explicit negation ("not X", "instead of X") was read before this.
    """
    slots = {s.field: s for s in reading.slots}
    replaced: list[tuple[str, str]] = []
    for name in _SEQUENCED:
        said = [m for m in reading.mentions if m.field == name]
        slot = slots.get(name)
        if len(said) < 2 or slot is None or said[-1].value is None \
                or len({m.value for m in said}) < 2:
            continue
        between = text[said[0].end:said[-1].start]
        if _ALTERNATIVE.search(between) or (_FILLER.match(between) and _one_value_in_two_words(
                text, said[0], said[-1])):
            continue
        if not (_REPLACES_BETWEEN.search(between) or _REPLACES_BEFORE.search(
                text[:said[0].start])):
            continue  # no word says which is old ("P-200 that P-100"): keep both, and ask
        last = said[-1].value
        slots[name] = SlotValue(name, last, slot.text, slot.confidence)
        replaced.extend((name, m.value) for m in said[:-1] if m.value and m.value != last)
    _when_in_order(reading, slots, replaced)
    return replace(reading, slots=tuple(slots.values())), replaced


def _one_value_in_two_words(text: str, first: Mention, last: Mention) -> bool:
    """ "Thursday the 10th", "the 10th, a Thursday": a weekday and a date side by side."""
    def names_weekday(m: Mention) -> bool:
        return any(w in lexicon.WEEKDAYS for w in text[m.start:m.end].split())
    return first.field == VISIT_DATE and names_weekday(first) != names_weekday(last)


def _when_in_order(reading: Reading, slots: dict[str, SlotValue],
                   replaced: list[tuple[str, str]]) -> None:
    """A window and a time that disagree ("swap the morning for 3 pm"): the later one is meant."""
    window, hour = slots.get(VISIT_WINDOW), slots.get(VISIT_TIME)
    if window is None or hour is None or window.value is None or hour.value is None:
        return
    implied = times.window_of(hour.value)
    if implied is None or implied == window.value:
        return
    said_window = [m for m in reading.mentions if m.field == VISIT_WINDOW]
    said_time = [m for m in reading.mentions if m.field == VISIT_TIME]
    if not said_window or not said_time:
        return
    if said_window[-1].start < said_time[-1].start:
        replaced.append((VISIT_WINDOW, window.value))
        slots[VISIT_WINDOW] = SlotValue(VISIT_WINDOW, implied, hour.text, hour.confidence)
    else:
        replaced.append((VISIT_TIME, hour.value))
        del slots[VISIT_TIME]


def _withdrawn_value(slot: SlotValue, context: ProposalContext) -> tuple[str, str] | None:
    """The value the caller said "not" to; the ledger's own value when the words fit it."""
    current = context.ledger.value(slot.field)
    if slot.field == VISIT_DATE and current and _same_weekday(slot.text, current):
        return (slot.field, current)  # "not Thursday" means the Thursday we hold
    if slot.value is not None:
        return (slot.field, slot.value)
    if current is not None and current in slot.candidates:
        return (slot.field, current)
    return (slot.field, slot.candidates[0]) if slot.candidates else None


def _same_weekday(words: str, iso: str) -> bool:
    named = {lexicon.WEEKDAYS[w] for w in words.split() if w in lexicon.WEEKDAYS}
    try:
        return named == {date.fromisoformat(iso).weekday()}
    except ValueError:
        return False


def _answer_to_expected(text: str, slots: list[SlotValue],
                        context: ProposalContext) -> list[SlotValue]:
    """A bare yes/no answers "was it opened?"; a bare number answers "how many units?"."""
    if context.expecting == UNITS and not any(s.field == UNITS for s in slots):
        numbers = _NUMBER.findall(text)
        if len(numbers) == 1 and 0 < int(numbers[0]):
            # "ten" after "did you mean 2 or 10 units?" is the count, not ten o'clock.
            return [*(s for s in slots if s.text.strip() != numbers[0]),
                    SlotValue(UNITS, numbers[0], numbers[0])]
    held = context.ledger.get(context.expecting) if context.expecting else None
    if held is not None and not held.usable and len(held.candidates) == 1 \
            and not any(s.field == context.expecting for s in slots) \
            and intents.answer_intent(text) is Intent.YES:
        # "Did you mean P-100?" "Yes": the one candidate held back is now the caller's word,
        # and so is every other value held back from the same unclear turn, because the check
        # read them back together ("Thursday 3 December, in the morning?").
        given = {s.field for s in slots}
        together = [(name, record.candidates[0]) for name, record in context.ledger.fields
                    if name not in given and not record.usable and len(record.candidates) == 1
                    and record.updated_at == held.updated_at]
        return [*slots, *(SlotValue(name, value, text) for name, value in together)]
    if context.expecting == OPENED and not any(s.field == OPENED for s in slots):
        answer = intents.answer_intent(text)
        if answer is Intent.YES:
            return [*slots, SlotValue(OPENED, "yes", text)]
        if answer is Intent.NO:
            return [*slots, SlotValue(OPENED, "no", text)]
    return slots


def _uncertainty(utterance: Utterance, context: ProposalContext,
                 slots: list[SlotValue]) -> tuple[bool, list[SlotValue]]:
    """Not heard clearly (agent/understanding/trust.py: the value words, the no-speech
    probability, what the call expects, else the confidence), or alternatives that disagree on
    a decision field: keep every candidate."""
    uncertain = not trust.heard_clearly(utterance, slots, trust.expected(context),
                                        floor=LOW_CONFIDENCE)
    if uncertain:
        slots = [_with_confidence(s, utterance.confidence) for s in slots]
    primary = intents.answer_intent(normalise(utterance.text or ""))
    for alternative in utterance.alternatives:
        alt_text = normalise(alternative)
        other, _ = _read_turn(alt_text, context)
        alt_answer = intents.answer_intent(alt_text)
        if primary and alt_answer and primary is not alt_answer:
            uncertain = True
        for index, slot in enumerate(slots):
            if slot.field not in DECISION_FIELDS:
                continue
            theirs = other.value(slot.field)
            if theirs is None or theirs.value == slot.value:
                continue
            mine = (slot.value,) if slot.value is not None else slot.candidates
            heard = (theirs.value,) if theirs.value is not None else theirs.candidates
            if set(heard) <= set(mine):
                continue
            uncertain = True
            candidates = tuple(dict.fromkeys((*mine, *heard)))
            slots[index] = SlotValue(slot.field, None, slot.text,
                                     min(slot.confidence, utterance.confidence), candidates)
    return uncertain, slots


def _with_confidence(slot: SlotValue, confidence: float) -> SlotValue:
    return SlotValue(slot.field, slot.value, slot.text, min(slot.confidence, confidence),
                     slot.candidates)


def _intent(text: str, slots: list[SlotValue], withdrawn: tuple[tuple[str, str], ...],
            cleared: tuple[str, ...], referent: corrections.Referent | None,
            context: ProposalContext) -> tuple[Intent, bool]:
    """The intent, and whether the turn corrects something already in the ledger."""
    changes = [s for s in slots if _held(s.field, context) is not None
               and s.value != _held(s.field, context)]
    marker = corrections.has_replace_marker(text)
    # A "not X" revises the call only when the call holds something X could be; in a first
    # request ("service P-100, but don't come on Wednesday, Thursday suits") it is part of it.
    held_withdrawn = [f for f, _ in withdrawn if _held(f, context) is not None]
    first_request = not held_withdrawn and withdrawn and intents.topic_intent(
        text, False, False) is Intent.BOOK and not _under_way(context)
    corrective = bool((withdrawn and not first_request) or cleared or referent
                      or (marker and changes))
    explicit = intents.explicit_intent(text)
    booking_values = any(s.field in _BOOKING_VALUES for s in slots)
    if explicit is Intent.GOODBYE and slots:
        explicit = None  # "see you on Thursday" gives a date, it does not hang up
    if explicit is Intent.CANCEL and booking_values and marker and changes:
        explicit = None  # "cancel that, make it Thursday" replaces a value
    if explicit is Intent.RESCHEDULE and changes and not _booked(context):
        explicit = None  # "move it to Friday" before anything is booked corrects the request
        corrective = True
    elif explicit is Intent.RESCHEDULE and any(s.field in _BOOKING_VALUES for s in changes):
        corrective = True  # a move of a booked visit revises the values it names
    if explicit is None and not corrective and intents.asks_another(text):
        return Intent.BOOK, False  # new values for a new visit, not a change of the last one
    if explicit is None and not marker and _booked(context) and intents.adds_another(text) \
            and _asks_for_a_visit(slots, context, booked_ok=True):
        return Intent.BOOK, False  # "and P-200 needs a visit too": a visit more, not a move
    if explicit is Intent.RESCHEDULE and context.pending_confirmation and not corrective \
            and intents.answer_intent(text) is not None and not _news(slots, context):
        # "Yes, move it" / "no, don't move it" answers "shall I go ahead?" about the very move
        # on the table; it restates the request rather than making a new one.
        return intents.answer_intent(text), False
    if explicit is not None:
        return explicit, corrective
    if corrective:
        return Intent.CORRECTION, True
    has_procedure = any(s.field == PROCEDURE for s in slots)
    has_item = any(s.field == ITEM_CATEGORY for s in slots)
    topic = intents.topic_intent(text, has_procedure, has_item)
    answer = intents.answer_intent(text)
    expected = context.expecting is not None and any(s.field == context.expecting for s in slots)
    if answer is not None and not slots and (context.pending_confirmation or topic is None):
        return answer, False  # "book it" / "no, don't book it" answer "shall I go ahead?"
    if changes and not expected and topic in (None, Intent.BOOK):
        # A new value for a field that already has one, unasked: an implicit "make that X".
        return Intent.CORRECTION, True
    if topic is not None and not expected:
        return topic, False
    if topic is None and _asks_for_a_visit(slots, context):
        return Intent.BOOK, False
    if slots:
        return Intent.INFORM, False
    return topic or Intent.UNKNOWN, False


def _under_way(context: ProposalContext) -> bool:
    """Whether the call already holds a request or a booking (or just asked for a value)."""
    return context.expecting is not None or bool(context.bookings) or any(
        context.ledger.value(name) is not None for name in (*_BOOKING_VALUES, BOOKING_REF))


def _booked(context: ProposalContext) -> bool:
    return bool(context.bookings) or context.ledger.value(BOOKING_REF) is not None


def _asks_for_a_visit(slots: list[SlotValue], context: ProposalContext,
                      booked_ok: bool = False) -> bool:
    """An asset and a day, window or time, while no booking is under way, is a request for a
    visit whatever the verb ("P-100, Friday morning", "K9 on the 9th, mornings preferably").
    ``booked_ok``: a booking already made does not count as under way (a visit more)."""
    fields = {s.field for s in slots}
    under_way = _under_way(context) and not (booked_ok and context.expecting is None)
    return not under_way and ASSET in fields and bool(
        fields & {VISIT_DATE, VISIT_WINDOW, VISIT_TIME})


def _held(field: str, context: ProposalContext) -> str | None:
    """The value the call already holds: the ledger's, or the site of the asset it names.

    A booking's site defaults to its asset's site (docs/call-scripts.md), so "the visit is at 7 Dock
    Street" changes a value the caller never had to say.
    """
    held = context.ledger.value(field)
    if held is None and field == SITE:
        asset = context.caller.asset(context.ledger.value(ASSET) or "")
        held = asset.site if asset is not None else None
    return held


def _news(slots: list[SlotValue], context: ProposalContext) -> bool:
    """Whether a slot says something the ledger does not already hold."""
    return any(s.value is None or s.value != context.ledger.value(s.field) for s in slots)


def _kind(intent: Intent, corrective: bool, slots: list[SlotValue],
          withdrawn: tuple[tuple[str, str], ...], cleared: tuple[str, ...],
          referent: corrections.Referent | None, uncertain: bool,
          context: ProposalContext) -> CorrectionKind:
    """The correction kind, by fixed precedence (the most cautious reading wins)."""
    if uncertain:
        return CorrectionKind.UNCERTAIN
    touches_date = any(s.field == VISIT_DATE for s in slots) or any(
        f == VISIT_DATE for f, _ in withdrawn)
    if corrective and touches_date and len(context.active_date_fields) > 1:
        return CorrectionKind.AMBIGUOUS_TARGET
    if corrective and any(s.value is None and len(s.candidates) > 1 for s in slots):
        return CorrectionKind.AMBIGUOUS_VALUE  # outside a correction, candidates revise nothing
    if referent is not None:
        return CorrectionKind.REFERENT
    if cleared:
        return CorrectionKind.CLEAR_CONSTRAINT
    given = {_GROUP.get(s.field, s.field) for s in slots}
    if withdrawn and not {_GROUP.get(f, f) for f, _ in withdrawn} & given:
        return CorrectionKind.NEGATION
    if not corrective:
        return CorrectionKind.NONE
    return CorrectionKind.MULTI if len(given) > 1 else CorrectionKind.REPLACE


def _authority(text: str, boundary: str, utterance: Utterance,
               context: ProposalContext) -> Proposal:
    """A turn that crosses a boundary proposes no values at all: nothing of it may be applied.
    Its intent is what its words ask for; with a request under way, a change of it."""
    intent = intents.explicit_intent(text) or intents.topic_intent(text, False, False)
    under_way = any(context.ledger.value(name) is not None for name in _BOOKING_VALUES)
    if intent in (None, Intent.BOOK) and under_way and not intents.asks_another(text):
        intent = Intent.CORRECTION
    return Proposal(
        intent=intent or Intent.CORRECTION,
        correction=CorrectionKind.AUTHORITY,
        authority=boundary,
        confidence=min(utterance.confidence, 1.0),
        reason=f"authority boundary: {boundary}",
    )
