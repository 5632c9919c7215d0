"""A turn's values and the ones it takes back (part of the rule proposer).

Negated stretches ("not Thursday") are read as withdrawals, and of two values of one field said
in sequence ("from the 2nd to the 4th") the earlier is read as replaced. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from agent.core.names import (
    ASSET,
    BOOKING_REF,
    ITEM_CATEGORY,
    OPENED,
    PROCEDURE,
    SITE,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.understanding.nlu import correction_words, corrections, lexicon, ordinals, times
from agent.understanding.nlu.reading import Mention, Reading, read
from agent.understanding.nlu.slots import known_site_named
from agent.understanding.proposals import ProposalContext, SlotValue

# Fields whose disagreement between recognition alternatives changes what the agent does.
DECISION_FIELDS = (ASSET, VISIT_DATE, VISIT_TIME, VISIT_WINDOW, "units", BOOKING_REF,
                   ITEM_CATEGORY, OPENED, PROCEDURE, "language", "site")


def read_turn(text: str, context: ProposalContext) -> tuple[Reading, tuple[tuple[str, str], ...]]:
    """Slots from the affirmed words; withdrawals from the negated stretches that name values."""
    positive = text
    withdrawn: list[tuple[str, str]] = []
    call_offs: list[tuple[corrections.Stretch, list[tuple[str, str]]]] = []
    for stretch in (*corrections.negated_stretches(text), *corrections.kept_in_a_cancel(text)):
        stretch, negated = _first_value_only(text, stretch, context)
        # "not V-200" (an id that is none of the caller's) withdraws nothing the caller holds.
        said = [s for s in negated.slots if s.field in DECISION_FIELDS and s.field != OPENED
                and not (s.field == ASSET and s.value is None and negated.foreign_assets)]
        times = {s.text for s in said if s.field == VISIT_TIME}
        # "not at 2" withdraws the time, not the afternoon it implies (3 pm may still do).
        said = [s for s in said if not (s.field == VISIT_WINDOW and s.text in times)]
        found = [_withdrawn_value(s, context) for s in said]
        values = [v for v in found if v is not None]
        if not any(s.field == SITE for s in said):
            named = known_site_named(stretch.text, context.caller.assets)
            values += [(SITE, named)] if named else []  # "not Harbour Road": the site we hold
        if not values:
            continue  # "I did not open it", "I'm not sure": not a withdrawal
        if corrections.calls_off(text, stretch):
            call_offs.append((stretch, values))
            continue
        withdrawn.extend(values)
        positive = _blank(positive, stretch)
    for stretch, values in call_offs:
        # "We won't need the engineer for P-200 on the 9th": the negation is the cancel's,
        # and its values are the visit called off, unless the turn gives another value of the
        # same field ("we won't need it on Friday, Thursday is better"): then they are withdrawn.
        without = _blank(positive, stretch)
        rest = read(" ".join(without.split()), context)
        if {field for field, _ in values} & {m.field for m in rest.mentions}:
            withdrawn.extend(values)
            positive = without
    positive = " ".join(positive.split())
    reading = read(positive, context)
    # "No, it's the time that's wrong, the rest is fine": the held time is withdrawn, unless
    # the turn gives a time of its own
    said_wrong = corrections.fields_said_wrong(text)
    reading = replace(reading, slots=tuple(  # "the machine you've put down is wrong"
        s for s in reading.slots if s.field not in said_wrong
        or not corrections.names_a_field(s.text)))
    said_fields = {s.field for s in reading.slots}
    withdrawn.extend((field, value) for field in said_wrong if field not in said_fields
                     and (value := context.ledger.value(field) or context.caller.booking_default(
                         field, context.ledger.value(ASSET))) is not None)
    held = {name: context.ledger.value(name) for name in _SEQUENCED}
    reading, replaced = _sequences(positive, reading, withdrawn, held)
    replaced = _booked_weekdays(positive, reading, replaced, context)
    reading = _kind_not_ruled_out(reading, withdrawn)
    return reading, tuple(dict.fromkeys([*withdrawn, *replaced]))


def _kind_not_ruled_out(reading: Reading, withdrawn: list[tuple[str, str]]) -> Reading:
    """An asset named by its kind alone ("the pump") is the one the call is about, unless the
    turn rules that one out: then it is the one of its kind left, or the ones left as
    candidates ("It's the pump in Rotterdam that's playing up, not the Utrecht one", with "in
    Rotterdam" misheard, is the caller's other pump, not the Utrecht one ruled out)."""
    slot = reading.value(ASSET)
    ruled_out = {value for field, value in withdrawn if field == ASSET}
    said = [m for m in reading.mentions if m.field == ASSET]
    if slot is None or slot.value not in ruled_out or not said or any(m.value for m in said):
        return reading  # (an id said names the asset, whatever else the turn rules out)
    left = tuple(dict.fromkeys(c for m in said for c in m.candidates if c not in ruled_out))
    if not left:
        return reading
    meant = SlotValue(ASSET, left[0], slot.text, slot.confidence) if len(left) == 1 \
        else SlotValue(ASSET, None, slot.text, slot.confidence, left)
    return replace(reading, slots=tuple(meant if s is slot else s for s in reading.slots))


def _blank(text: str, stretch: corrections.Stretch) -> str:
    """``text`` with the stretch's characters blanked (its offsets kept)."""
    return text[:stretch.start] + " " * (stretch.end - stretch.start) + text[stretch.end:]


def _first_value_only(text: str, stretch: corrections.Stretch, context: ProposalContext
                      ) -> tuple[corrections.Stretch, Reading]:
    """A negation governs the first value of a field after it, not the replacement that
    follows without a comma ("instead of the 7th we'll take the 8th", "not the afternoon the
    morning", "dont come wednesday friday works"). Returns the stretch and its reading."""
    reading = read(stretch.text, context, whole_turn=False)
    offset = text.find(stretch.text, stretch.start)
    if offset <= stretch.start or not stretch.text:
        return stretch, reading  # the value comes before its negation ("Wednesday is out")
    mentions = reading.mentions
    words = stretch.text
    for first, then in zip(mentions, mentions[1:], strict=False):
        # "better than Wednesday for the P-200 visit": the asset the visit is for is the
        # booking's, not a value ruled out with the day
        said_for = _FOR_THE_ASSET.search(words, 0, then.start)
        if first.field != ASSET and then.field == ASSET and said_for \
                and said_for.start() >= first.end:
            shorter = corrections.Stretch(words[:said_for.start()].strip(), stretch.start,
                                          offset + said_for.start())
            return _first_value_only(text, shorter, context)
    for index, first in enumerate(mentions):
        # "not Wednesday the 9th": a weekday and its date side by side are one value
        later = [m for m in mentions[index + 1:] if m.field == first.field
                 and (m.value, m.candidates) != (first.value, first.candidates)
                 and not (_FILLER.match(words[first.end:m.start])
                          and _one_value_in_two_words(words, first, m))]
        if later:
            cut = first.end
            shorter = corrections.Stretch(stretch.text[:cut].strip(), stretch.start,
                                          offset + cut)
            return shorter, read(shorter.text, context, whole_turn=False)
    return stretch, reading
_ALTERNATIVE = re.compile(correction_words.ALTERNATIVES)
# The words that say the later of two values replaces the earlier: said between them ("from
# X to Y", "swap X for Y", "X? no, Y", "I said X but meant Y", "X is out, Y works") or before
# the first ("from X...", "I said X...", "swap X..."). Without one, two values stay two
# candidates: a misheard "not" must never turn a correction round.
_REPLACES_BETWEEN = re.compile(
    r"\b(?:to|into|till|until|for|with|meant|mean|no|nope|nah|actually|sorry|rather|but"
    r"|instead|make it|should be|i mean|wrong|change|better|works?|suits?|fine|good|ok|okay"
    r"|how about|what about"
    r"|prefer|would be|is better|make that|i meant|correction|scratch that|oops|my mistake"
    r"|my bad|on 2nd thoughts?|come to think of it|thinking about it|wait|hang on|hold on"
    rf"|{correction_words.TELL_A_LIE}|what am i saying|{correction_words.MISSPOKE})\b")
# Said in the words between two values, a clause that rules the earlier out by pointing back to
# it ("the 4th at 9, oh dear, we're still shut that day, the 5th at 9"; "the 9th? nobody's in
# then, the 10th") or a "so" that gives the later as what follows from the words before it
# ("tomorrow afternoon? ... tomorrow's our stocktake, so Thursday afternoon", "the morning,
# the delivery's coming that morning, so the afternoon").
_RULED_OUT_BACK = re.compile(
    r"\b(?:shut|closed|away|off|busy|out|unavailable|booked up|full|no good|not good|no use"
    r"|impossible|not possible|can'?t|cannot|won'?t|doesn'?t|does not|isn'?t|is not|nobody"
    r"|no one|no-one)\b[\w' ]{0,30}?\b(?:that (?:day|date|morning|afternoon|time|slot|week)"
    r"|then)\b"
    r"|\bso(?: (?:the|on|at|for|in|make it|let'?s (?:say|do|make it)))?[\s,]*$")
_REPLACES_BEFORE = re.compile(
    r"\b(?:swap|switch|change|changing|move|moving|shift|push|bring|i said|you have"
    r"|you've got|you put|told you|it says|instead of|rather than)\b"
    # "from" only right before the first value: "from the 2nd to the 4th", not "it's Priya
    # from Acme, ... the afternoon, Friday morning" (two windows there stay candidates)
    r"|\bfrom(?: (?:the|my|our|a|an|on|at|this|next))?[\s,]*$")
_FOR_THE_ASSET = re.compile(r"\bfor (?:the |our |my )?$")
_TARGET_OPENS = re.compile(r"(?:to|till|until|into)\b")  # "to 11" read as one mention
_FILLER = re.compile(r"^(?:[\s,]|\bthe\b|\bon\b|\bof\b|\bat\b)*$")
# The first value is where the visit goes when a target word comes right before it ("bring it
# forward *to* Monday the 7th", "move it *to* the morning"): the verb before it then names no old
# value, and a later value of the field with no word between the two saying which is meant is
# a second candidate, not the replacement ("... to Monday the 7th? I take 13th": the agent asks).
_TARGET_WORDS = r"\b(?:to|till|until|into)(?:\s+(?:the|on|at|a))?"
_TARGET_BEFORE = re.compile(rf"{_TARGET_WORDS}[\s,]*$")


def said_as_a_target(text: str, words: str) -> bool:
    """``words`` (a value as said) stand right after a target word in ``text``: where the
    visit goes ("move it to Thursday"), not the day or time it has."""
    return bool(re.search(rf"{_TARGET_WORDS} {re.escape(words)}\b", text))
# Said right after the later value, a word of preferring says it is the one meant ("move it to
# Wednesday, Friday works better", "the 9th, the 10th would be better"), and so does "it is"
# ending the clause ("Half past ten it is.", "Friday it'll have to be").
_PREFERRED_AFTER = re.compile(
    r"[\s,]*(?:(?:(?:would|will|'d|is|'s) )?(?:be )?(?:works?|suits?|better|fine|good|instead)\b"
    r"|(?:it is|it'll (?:have to )?be|it will (?:have to )?be|it has to be)(?= *(?:[,.!?]|$)))")
_SEQUENCED = (ASSET, VISIT_DATE, VISIT_TIME, VISIT_WINDOW)


def _sequences(text: str, reading: Reading, negated: list[tuple[str, str]] | None = None,
               held: dict[str, str | None] | None = None,
               ) -> tuple[Reading, list[tuple[str, str]]]:
    """Two values of one field in one turn: the last one said is meant, the earlier replaced.

    "from the 2nd to the 4th", "I said Wednesday, I meant Thursday", "swap the morning for the
    afternoon", "Thursday? no, Friday": the order says which value is old. Values joined by
    "or" stay alternatives (one ambiguous slot), and two words for one value ("Thursday the
    10th") stay one mention. Explicit negation ("not X", "instead of X") was read before this:
    a value it ruled out (``negated``) is no candidate where it was said before ("at one pm?
    ... half three rather than one pm", "on the 14th? Forget the 14th, the 15th"). In a turn
    that takes something back, the value the call holds (``held``) named beside a new one is
    the one taken back, wherever it stands ("Ah, wait, Friday's our stock-take day. Monday the
    14th, then", with Friday read back)."""
    slots = {s.field: s for s in reading.slots}
    replaced: list[tuple[str, str]] = []
    for name in _SEQUENCED:
        said = [m for m in reading.mentions if m.field == name]
        if name == ASSET:
            said = _named_over_kind(text, said)
        slot = slots.get(name)
        ruled_out = {value for field, value in negated or () if field == name}
        kept = [m for m in said if m.value not in ruled_out]
        if slot is not None and kept and len(kept) < len(said):
            if len({(m.value, m.candidates) for m in kept}) == 1 and kept[-1].value:
                slots[name] = SlotValue(name, kept[-1].value, slot.text, slot.confidence)
                continue
            said = kept
        if len(said) < 2 or slot is None or not (said[-1].value or said[-1].candidates) \
                or len({(m.value, m.candidates) for m in said}) < 2:
            continue
        between = text[said[0].end:said[-1].start]
        if _FILLER.match(between) and _one_value_in_two_words(text, said[0], said[-1]):
            continue
        meant = _after_the_last_replacing(text, said, reading.mentions) or _other_than_held(
            text, said, (held or {}).get(name)) or _said_again(text, said) \
            or _the_visit_then_another(text, said, name)
        if meant is None:
            before = text[:said[0].start]
            if _ALTERNATIVE.search(between) or not (
                    _PREFERRED_AFTER.match(text, said[-1].end)
                    or (_REPLACES_BEFORE.search(before) and not _TARGET_BEFORE.search(before))):
                continue  # "P-200 that P-100", "Wednesday or Thursday": keep both, and ask
            meant = said[-1:]
        options = tuple(dict.fromkeys(value for m in meant
                                      for value in ((m.value,) if m.value else m.candidates)))
        if name == VISIT_DATE and meant == said[-1:]:
            in_month = _in_the_month_before(text, said[-2], said[-1])
            options = (in_month,) if in_month else options
        if len(options) > 1:
            # "Friday? no, sorry, make that Monday, Thursday" (or "Monday or Thursday"): the
            # word saying which is old stands before both later values; nothing says which of
            # them is meant (or the one meant is itself ambiguous, "Tuesday" said on a
            # Tuesday): ask
            slots[name] = SlotValue(name, None, slot.text, slot.confidence, options)
            replaced.extend((name, m.value) for m in said if m.value and m.value not in options)
            continue
        last = options[0]
        slots[name] = SlotValue(name, last, slot.text, slot.confidence)
        # (an earlier value left open is replaced in each of its readings: "that Tuesday one,
        # could it slide to Thursday the 10th?" said on a Tuesday moves today's or next week's)
        replaced.extend((name, value) for m in said[:-1]
                        for value in ((m.value,) if m.value else m.candidates) if value != last)
    _when_in_order(text, reading, slots, replaced)
    return replace(reading, slots=tuple(slots.values())), replaced


def _named_over_kind(text: str, said: list[Mention]) -> list[Mention]:
    """The asset mentions that can replace one another. A kind said alone ("the pump", "the
    coffee machine's broken too") beside an asset the turn names ("the Utrecht pump") is that
    asset or none of the caller's, never a second value that leaves the turn asking which: an
    id heard (digits: "V-200") still is one."""
    named = {m.value for m in said if m.value}
    return [m for m in said if m.value or re.search(r"\d", text[m.start:m.end])
            or not set(m.candidates) & named] if named else said


def _after_the_last_replacing(text: str, said: list[Mention], mentions: tuple[Mention, ...] = ()
                              ) -> list[Mention] | None:
    """The mentions after the last place between two of them where a word says the later
    replaces the earlier ("from X to Y": [Y]; "X, no, Y or Z": [Y, Z]), the word that opens a
    mention counted ("from 10 to 11"); the last alone when a word of preferring follows it, or
    follows the values of other fields said with it (``mentions``: "X, no, Y, Z works better",
    "Thursday, Friday afternoon instead", not "Y or Z would be better"); None when no such
    word stands between any two."""
    if _PREFERRED_AFTER.match(text, _said_with(text, said[-1], mentions)) \
            and not _ALTERNATIVE.search(text[said[-2].end:said[-1].start]):
        return said[-1:]
    for index in range(len(said) - 1, 0, -1):
        opening = _TARGET_OPENS.match(text, said[index].start)
        gap = text[said[index - 1].end:opening.end() if opening else said[index].start]
        if _REPLACES_BETWEEN.search(gap) or _RULED_OUT_BACK.search(gap):
            return said[index:]
    return None


# A value that names the visit it belongs to: said right after a visit said with "the" ("our
# Utrecht visit on Thursday", "the booking for the morning") or right before one ("the
# Thursday visit", "Thursday's booking").
_THE_VISIT = r"(?:visit|booking|appointment|call[- ]?out|job|one)s?"
_VISIT_BEFORE = re.compile(
    rf"\b(?:the|our|my|that|this|your)\s+(?:[\w'-]+\s+){{0,3}}?{_THE_VISIT}"
    r"(?:\s+(?:on|for|at|in))?(?:\s+the)?\s*$")
# ("Thursday's booking" is normalised to "thursday is booking")
_VISIT_AFTER = re.compile(rf"(?:'s| is)?\s+{_THE_VISIT}\b")
_THE_BEFORE = re.compile(r"\b(?:the|our|my|that|this|your)\s+$")
# ... and the verb that gives it another value: "... be on Friday", "... be moved to", "...
# happen in the afternoon"
_BE_ANOTHER = re.compile(r"[\s,]*(?:[\w'-]+\s+){0,3}?(?:be|happen|take place|go)\b")


def _the_visit_then_another(text: str, said: list[Mention], name: str) -> list[Mention] | None:
    """The later of two values of the visit's day, time or window, when the earlier names the
    visit ("could our Utrecht visit on Thursday be on Friday morning?", "can the morning
    booking be the afternoon?"): the visit as it is, then what it should be. Else None."""
    if name == ASSET or len(said) != 2:
        return None
    first, last = said
    before = text[:first.start]
    after = _VISIT_AFTER.match(text, first.end)  # "the Thursday visit", "Thursday's booking"
    names_the_visit = _VISIT_BEFORE.search(before) or (after and (
        _THE_BEFORE.search(before) or after.group().startswith(("'s", " is"))))
    if not names_the_visit or _ALTERNATIVE.search(text, first.end, last.start) \
            or not _BE_ANOTHER.match(text, after.end() if after else first.end, last.start):
        return None
    return [last]


_WITH = re.compile(r"(?:[\s,]|\b(?:the|on|of|at|in)\b)*")


def _said_with(text: str, mention: Mention, mentions: tuple[Mention, ...]) -> int:
    """Where ``mention`` ends together with the values of other fields said right after it
    ("Friday afternoon", "Friday at 10", "the 9th in the morning")."""
    end = mention.end
    for other in sorted(mentions, key=lambda m: m.start):
        if other.start >= end and other.field != mention.field \
                and _WITH.fullmatch(text, end, other.start):
            end = other.end
    return end


def _said_again(text: str, said: list[Mention]) -> list[Mention] | None:
    """The later of two values, said again after the earlier was said once, with no "or"
    between any of them: the caller put it right and said it over ("Monday the 14th, er, the
    15th, Tuesday the 15th"; "the pump in Rotterdam, the Utrecht one, the Utrecht one"). Else
    None."""
    values = [(m.value, m.candidates) for m in said]
    first, last = values[0], values[-1]
    # each a value: "the Rotterdam pump, pump, pump" names no other pump by its kind alone
    if not all(m.value for m in said) \
            or len(set(values)) != 2 or values.count(first) != 1 or values.count(last) < 2 \
            or _ALTERNATIVE.search(text, said[0].end, said[-1].start):
        return None
    return said[-1:]


def _other_than_held(text: str, said: list[Mention], held: str | None) -> list[Mention] | None:
    """The mentions of the one value other than ``held`` (the call's), when the turn names
    both, the held one first, names no third and takes something back; else None."""
    others = [m for m in said if m.value != held]
    if held is None or len(others) == len(said) or not others \
            or min(m.start for m in others) < max(m.start for m in said if m.value == held) \
            or len({(m.value, m.candidates) for m in others}) != 1 \
            or not corrections.has_replace_marker(text):
        return None
    return others[-1:]


# A day of the month with no month, a weekday beside it or not: "the 11th", "Tuesday the 12th"
_DAY_ALONE = re.compile(rf"(?:(?P<wd1>{ordinals.WD}),? (?:the )?)?(?:the )?(?P<day>\d{{1,2}})"
                        rf"{ordinals.ORD}(?:,? (?:the )?(?P<wd2>{ordinals.WD}))?")
_MONTH_NAMED = re.compile(rf"\b(?:{lexicon.MONTHS})\b")


def _in_the_month_before(text: str, earlier: Mention, later: Mention) -> str | None:
    """The day of the month that corrects a date said with its month, in that month: "the 8th
    of January, sorry, the 11th" is the 11th of January (read alone, "the 11th" is the next
    11th, in December). None when the later date names more than a day of the month, the
    earlier names no month, or that day is not in it."""
    said_before = text[earlier.start:earlier.end]
    day = _DAY_ALONE.fullmatch(text[later.start:later.end].strip())
    if day is None or earlier.value is None or not _MONTH_NAMED.search(said_before):
        return None
    month = date.fromisoformat(earlier.value)
    try:
        meant = month.replace(day=int(day.group("day")))
    except ValueError:
        return None
    weekday = day.group("wd1") or day.group("wd2")
    if weekday and meant.weekday() != lexicon.WEEKDAYS[weekday]:
        return None  # "Tuesday the 12th" that is no Tuesday in that month
    return meant.isoformat()


def _one_value_in_two_words(text: str, first: Mention, last: Mention) -> bool:
    """ "Thursday the 10th", "the 10th, a Thursday": a weekday and a date side by side."""
    def names_weekday(m: Mention) -> bool:
        return any(w in lexicon.WEEKDAYS for w in text[m.start:m.end].split())
    return first.field == VISIT_DATE and names_weekday(first) != names_weekday(last)


def _when_in_order(text: str, reading: Reading, slots: dict[str, SlotValue],
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
    # a time said again after the window, with nothing saying it is chosen again, repeats the
    # old one ("at 9, please change that to afternoon time, at 9 we have an audit"): the window
    # replaced it where the time was first said
    last_time = said_time[-1]
    if len({m.value for m in said_time}) == 1 and said_window[-1].start < last_time.start \
            and not _REPLACES_BETWEEN.search(text, said_window[-1].end, last_time.start):
        last_time = said_time[0]
    if said_window[-1].start < last_time.start:
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
    if slot.field == VISIT_DATE and (booked := _the_booked_weekday(slot.text, context)):
        return (slot.field, booked)
    if slot.value is not None:
        return (slot.field, slot.value)
    if current is not None and current in slot.candidates:
        return (slot.field, current)
    return (slot.field, slot.candidates[0]) if slot.candidates else None


def _the_booked_weekday(words: str, context: ProposalContext) -> str | None:
    """The day of the caller's one booking on the weekday ``words`` name alone, when the call
    holds no day of its own: a weekday ruled out or replaced names a visit the caller has ("the
    Tuesday visit, we can't do it any more", said on a Tuesday of next week's; "the Thursday
    visit, could he come Friday?" of the Thursday after this week's), not the date the bare
    weekday reads as."""
    if context.ledger.value(VISIT_DATE) is not None or any(c.isdigit() for c in words):
        return None
    booked = {day for _, _, day in context.bookings if _same_weekday(words, day)}
    return booked.pop() if len(booked) == 1 else None


def _booked_weekdays(text: str, reading: Reading, replaced: list[tuple[str, str]],
                     context: ProposalContext) -> list[tuple[str, str]]:
    """``replaced`` with each day said as a bare weekday read as the booking on that weekday
    (``_the_booked_weekday``)."""
    out = []
    for field, value in replaced:
        said = [m for m in reading.mentions if field == VISIT_DATE == m.field
                and value in (m.value, *m.candidates)]
        booked = _the_booked_weekday(text[said[0].start:said[0].end], context) if said else None
        out.append((field, booked or value))
    return out


def _same_weekday(words: str, iso: str) -> bool:
    named = {lexicon.WEEKDAYS[w] for w in words.split() if w in lexicon.WEEKDAYS}
    try:
        return named == {date.fromisoformat(iso).weekday()}
    except ValueError:
        return False
