"""A number heard that no value was read from: the words around it may have been misheard.

Part of :mod:`agent.understanding.trust`. In a turn that names a visit, a number is nearly always
part of a value: the asset's, the day's or the time's. When the reading used none of a number
the recogniser wrote, the words beside it were misheard, and a value read next to it may be
another than the one said:

* "Can we do the 17th artillery at 1.15": the 17th was read as no date, and "11.15" as 13:15;
* "the 4th on 10, ... in the morning" (said "the fourth of February"): the month was lost;
* "January 11, 15 for pump B 200" (said "the 28th of January at 11:15"): the day was lost;
* "Use the 11 15th" (said "Tuesday, eleven fifteen"): a time became a day;
* "for FEM3rd. My mad, the 5th" (said "for Feb 3rd, my bad, the 5th"): the month was lost in a
  word the number is glued to, and the 5th was read in December.

These numbers are no value lost, and are left out:

* the numbers of every value read and of every value the turn withdrew ("not P 200", "not
  half ten"). The digits of one of the caller's assets that no value was read from count ("I
  meant the 100 or RAP 200", said "P-100, or rather P-200": the asset corrected to was lost);
* a number before a word that takes back what came before it ("I said the 8, I meant the
  15th": the caller took it back);
* the tens of a day heard as two words ("20 second" is the 22nd);
* "1" (recognisers write "one", "someone else", "the other one" so), "2" and "4" ("to" and
  "for", which a recogniser can write as digits: "seen to" heard as "scene 2"), and "1st" and
  "2nd" except after "the" ("first thing", "just a second").

Pure: reads the turn's text and the values read from it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from agent.core.names import ASSET, VISIT_DATE, VISIT_TIME
from agent.understanding.nlu import asset_ids, correction_words, lexicon, times
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import SlotValue

_NUMBER = re.compile(r"\b(\d+)(st|nd|rd|th|am|pm)?\b")
_GLUED = re.compile(r"\b[a-z]+(\d+)(?:st|nd|rd|th)?[a-z]*\b")
_TAKES_BACK = re.compile(correction_words.TAKES_BACK)
# What a number taken back is replaced by: a number (not one that may be a word, "one", "to",
# "for"; "4th" is none), a day or a month. A take-back followed by none of these replaced
# something else ("on Wednesday that 23rd in the morning? Oh, hang about, the delivery's coming
# that morning, so the afternoon": the 23rd left unread still counts).
_DAY_AFTER = re.compile(
    rf"\b(?:{'|'.join(lexicon.WEEKDAYS)}|{lexicon.MONTHS}|tomorrow|today|tonight|noon|midday"
    r"|weekend)\b")
# ... but one the words of the clock stand around is a number ("make that quarter past 4",
# "I meant half 1"; not "let's do one dot in the afternoon", nor "the Rotterdam one")
_OF_THE_CLOCK_BEFORE = re.compile(r"\b(?:past|to|half|quarter|at|around|about|by|till|until"
                                  r"|from|before|after) $")
_OF_THE_CLOCK_AFTER = re.compile(r" ?(?:am|pm|oclock|[0-5]\d)\b")
_WORDS_TOO = frozenset(("1", "2", "4"))  # "one", "to"/"too", "for"
_ORDINAL_WORDS = frozenset(("1st", "2nd"))  # "first thing", "just a second": a day after "the"
_TENS = frozenset(("20", "30"))  # "20 second": the tens of a day said in two words
# "o'clock" (or "a clock"), or "half" or "quarter" after a word that leads to a time and
# before no hour ("say half line", said "say half nine")
_CLOCK_SAID = re.compile(r"\b(?:oclock|a clock)\b"
                         r"|\b(?:at|say|about|around) (?:a )?half\b(?! (?:past|to)\b)"
                         r"|\bquarter\b(?! (?:past|to|of an hour)\b)")
_TY_MINUTES = frozenset(("40", "50"))  # minutes a recogniser writes for "fourteen", "fifteen"
# "quarter" as a recogniser writes it in voices it hears less well, right before the hour, its
# "to" or "past" lost ("quarter to ten" heard as "Water 10"). Before "to" or "past" the reading
# takes "water" for "quarter" (nlu/normalise.py); "work order 10" is an order's number
_QUARTER_HEARD = re.compile(r"(?<!\bwork )(?<!\bjob )\b(?:water|order|porter|corridor) \d")


def number_left_unread(text: str, values: Sequence[SlotValue],
                       withdrawn: Collection[tuple[str, str]] = ()) -> bool:
    """Whether ``text`` holds a number that none of ``values`` was read from (see the module).
    ``withdrawn``: the (field, value) pairs the turn withdrew. A turn with no value read has
    nothing to check."""
    if not values:
        return False
    said = normalise(text)
    known = {n for s in values for part in s.text.split("/") for n in _numbers(part)}
    known |= {n for field, value in withdrawn for n in _numbers_of_value(field, value)}
    taken_back = _taken_back_at(said)
    found = list(_NUMBER.finditer(said))
    for index, number in enumerate(found):
        digits, word = number.group(1), number.group(0)
        if digits in known or number.end() <= taken_back:
            continue
        if word in _WORDS_TOO or (word in _ORDINAL_WORDS
                                  and not said[:number.start()].endswith("the ")):
            continue
        after = found[index + 1] if index + 1 < len(found) else None
        if digits in _TENS and after is not None and after.start() == number.end() + 1 \
                and len(after.group(1)) == 1 \
                and str(int(digits) + int(after.group(1))) in known:
            continue
        return True
    # "Feb 3rd" heard as "FEM3rd", "m3rd": a number glued to the letters of a misheard word
    return any(glued.group(1) not in known and glued.group(1) not in _WORDS_TOO
               and glued.end() > taken_back
               for glued in _GLUED.finditer(said))


def _taken_back_at(said: str) -> int:
    """Where the last word that takes something back stands (-1: none): a number before it was
    taken back, if a day, a month or a number follows it to take its place."""
    taken_back = max((m.start() for m in _TAKES_BACK.finditer(said)), default=-1)
    replaced = _DAY_AFTER.search(said, taken_back + 1) or any(
        n.group(0) not in _WORDS_TOO or _OF_THE_CLOCK_BEFORE.search(said, 0, n.start())
        or _OF_THE_CLOCK_AFTER.match(said, n.end())
        for n in _NUMBER.finditer(said, taken_back + 1))
    return taken_back if replaced else -1


def clock_left_unread(text: str, values: Sequence[SlotValue],
                      withdrawn: Collection[tuple[str, str]] = ()) -> bool:
    """The turn says "o'clock" (or "a clock", as a recogniser writes a hurried one), "half"
    after "at", "say", "about" or "around", or "quarter" anywhere ("make that quarter first
    4th", misheard from "quarter past four"), and no time was read or withdrawn:
    the hour said with it was misheard ("about two o'clock" heard as "An out to a clock?",
    "say half nine" as "say half line"), and so may the words around it be. "Around the
    clock" is no time. A turn with no value read has nothing to check."""
    if not values or any(s.field == VISIT_TIME for s in values) \
            or any(field == VISIT_TIME for field, _ in withdrawn):
        return False
    return bool(_CLOCK_SAID.search(normalise(text)))


def quarter_misheard(text: str, values: Sequence[SlotValue]) -> bool:
    """A time was read from a turn that says a word a recogniser writes for "quarter" right
    before a number (:data:`_QUARTER_HEARD`): the time's minutes were lost with its "to" or
    "past" ("quarter to ten in the morning" heard as "Water 10 in the morning", read as
    10:00)."""
    return any(s.field == VISIT_TIME for s in values) \
        and bool(_QUARTER_HEARD.search(normalise(text)))


def minutes_teen_or_ty(values: Sequence[SlotValue]) -> bool:
    """A time was read with minutes the recogniser wrote as 40 or 50 ("9.50am", "at 10 40"):
    "fourteen" and "fifteen" are heard as "forty" and "fifty" ("nine fifteen" heard as
    "9.50am"), and a quarter past is far likelier than ten to. Minutes said another way ("10
    to 4" is 15:50) carry no such doubt."""
    return any(s.field == VISIT_TIME and _TY_MINUTES & _numbers(part)
               for s in values for part in s.text.split("/")[-1:])


def minutes_off_the_clock_face(values: Sequence[SlotValue]) -> bool:
    """A time was read whose minutes are no multiple of five ("11.14", misheard from "eleven
    thirty on the fourteenth"): callers book visits at five-minute steps, and a recogniser that
    runs two numbers together makes such a time."""
    return any(s.field == VISIT_TIME and s.value is not None
               and re.fullmatch(r"\d{1,2}:\d{2}", s.value) and int(s.value[-2:]) % 5
               for s in values)


def _numbers(text: str) -> set[str]:
    return {m.group(1) for m in _NUMBER.finditer(normalise(text))}


def _numbers_of_value(field: str, value: str) -> set[str]:
    """The numbers a caller may have said for ``value``: an asset's, a date's day, a time's hour
    (on either clock), minutes and both run together ("1430", "230")."""
    if field == ASSET:
        return {asset_ids.id_digits(value)}
    if field == VISIT_DATE:
        day = value.rsplit("-", 1)[-1]
        return {str(int(day))} if day.isdigit() else set()
    if field == VISIT_TIME and re.fullmatch(r"\d{1,2}:\d{2}", value):
        hour, minute = (int(part) for part in value.split(":"))
        hours = {str(hour), str(hour % 12 or 12)}
        if not minute:
            return hours
        return hours | {str(minute)} | {f"{h}{minute:02d}" for h in hours}
    return set()


# "after 3", "before 10:30": a bound on the clock said in the turn (not "after 2 weeks", and
# not "not before 3", which allows what "after 3" does and the hour itself)
_BOUND = re.compile(r"(?<!\bnot )\b(after|before) (\d{1,2})(?:[:.]([0-5]\d))?(?: ?(am|pm))?\b"
                    r"(?! ?(?:days?|weeks?|months?|hours?|minutes?|units?))")


def time_against_its_bound(text: str, values: Sequence[SlotValue]) -> bool:
    """The time read falls outside a bound on the clock the turn says ("a quarter after two?
    Make that a quarter after three" heard as "quarter after 2. Make water after 3": 14:15 read,
    and "after 3" rules it out): a word that made the later one the time meant was misheard.
    A time of the words "quarter after two" keeps to its own "after 2"."""
    read = [s.value for s in values if s.field == VISIT_TIME and s.value]
    if not read:
        return False
    for m in _BOUND.finditer(normalise(text)):
        bound, _ = times.resolve_hour(int(m.group(2)), int(m.group(3) or 0), m.group(4))
        if bound is None:
            continue
        if any((value < bound) if m.group(1) == "after" else (value > bound) for value in read):
            return True
    return False


# Words that lead into a time ("at 10", "a half past one", as a recogniser writes a hurried "at")
_TIME_CUES = frozenset(("a", "at", "by", "around", "about"))
_TIME_STARTS = re.compile(r"\d.*|half|quarter|noon|midday")
# Words a time's cue may follow however faintly it was heard: closed-class words, days, months
_BEFORE_A_CUE = lexicon.ORDINAL_DATE_FOLLOWERS | frozenset(
    (*lexicon.WEEKDAYS, *lexicon.MONTH_NAMES, "tomorrow", "today"))


def faint_cue_after_unread(words: Sequence[tuple[str, float]], values: Sequence[SlotValue],
                           faint: float) -> bool:
    """A time was read, and the word that leads into a time ("at", "a", "around") is heard
    below ``faint`` right after a content word that is no day, month or number: what stood
    there was misheard ("it should be Friday at half past one" heard as "it should be quite a
    half past one": the Thursday said before kept), so the day read may not be the one meant."""
    if not any(s.field == VISIT_TIME and s.value for s in values):
        return False
    said = [("".join(re.findall(r"[a-z0-9']", normalise(w))), p) for w, p in words]
    for (before, _), (cue, heard), (after, _) in zip(said, said[1:], said[2:], strict=False):
        if cue in _TIME_CUES and heard < faint and _TIME_STARTS.fullmatch(after) \
                and before and before not in _BEFORE_A_CUE and not before[0].isdigit():
            return True
    return False
