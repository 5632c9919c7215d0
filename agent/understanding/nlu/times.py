"""Times of day and visit windows, from normalised text (numbers already digits).

A time is read in two steps, so every way of saying the clock works with every way of fixing
the half of the day:

1. **the clock words**: "9", "9 30" ("nine thirty"), "9:30", "9.30", "9 oclock", "half past 9",
   "quarter past 3", "quarter to 10", "20 past 2", "10 to 4", "half 2" ("half past two", as
   said in Britain), "noon", "midday", "1400 hours", "14:30";
2. **the half of the day**, said right after it ("am", "pm", "in the morning", "in the
   afternoon", "in the evening", "at night", "tonight"), or, for an hour that would otherwise
   be asked about, a part of the day said elsewhere in the same stretch ("Thursday morning at 7").

A 24-hour form ("14:30", "09:30", "1400 hours") is read as said, and so is a time with its
half of the day. An hour alone reads as a daytime visit when exactly one of its two readings
falls in the working day, 08:00 to 17:00 (docs/understanding.md, "Hours"): "at 2" is 14:00,
"quarter to ten" 09:45, "at 12" 12:00. When neither reading does ("at 7": 07:00 or 19:00;
"half past 5": 05:30 or 17:30) the hour is never guessed: the reading has no ``value`` and
both readings as ``candidates``, and the agent asks.

A time implies its window (docs/call-scripts.md, "Domain rules": morning 08:00-12:00,
afternoon 13:00-17:00); outside both, none. Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.understanding.nlu import intent_words, lexicon

WORKING_DAY = (8 * 60, 17 * 60)  # 08:00 to 17:00, both ends included
# The visit windows in minutes of the day, start included, end not (docs/call-scripts.md,
# "Domain rules": morning 08:00-12:00, afternoon 13:00-17:00).
VISIT_WINDOWS = (("morning", 8 * 60, 12 * 60), ("afternoon", 13 * 60, 17 * 60))

# What may follow a number that is a clock hour: not a count ("3 pumps"), an ordinal, a span.
NOT_AFTER_NUMBER = (rf"(?! ?(?:{lexicon.UNIT_NOUNS}|st|nd|rd|th|days?|weeks?|months?|hours?"
                     r"|hrs|minutes?|mins?|years?|percent|%|people|men|techs?|technicians?"
                     r"|engineers?|of (?:them|us|those|these|our|the|my|your|their|its|his"
                     r"|her))\b)")
_CLOSED = "|".join(sorted(map(re.escape, lexicon.ORDINAL_DATE_FOLLOWERS), key=len, reverse=True))
_H = r"(?P<h>1[0-2]|0?[1-9])(?!\d)"  # a clock hour, 1 to 12
_M = r"(?P<m>[0-5]\d)"
# The half of the day said right after the clock words.
_HALF = (r"(?:,? ?(?P<half>am|pm|in the (?:morning|afternoon|evening|am|pm)|at night"
         r"|(?:this|that) (?:morning|afternoon|evening|night)|tonight))?")
_MORNING_WORDS = ("am", "morning")
# "at 7 or 8 pm": the half of the day said after the alternative holds for both.
_OR_HALF = (r"(?=(?: or (?:at )?\d{1,2}(?:[:. ][0-5]\d)?(?!\d)"
            r"(?P<orhalf>,? ?(?:am|pm|in the (?:morning|afternoon|evening))))?)")
# A part of the day said anywhere in the stretch, for an hour that fits neither half alone.
_DAYPART = re.compile(
    r"\b(?P<am>mornings?|am|before noon|before lunch)\b(?<!\bi am)"
    r"|\b(?P<pm>afternoons?|evenings?|tonight|pm|after lunch)\b"
)
_MINUTES = {"quarter": 15, "half": 30}
# "move it to 3", "change the time to noon": the words after which "to" gives a time
_TO_AFTER = r"(?<=it )to|(?<=that )to|(?<=time )to|(?<=visit )to|(?<=booking )to"
_TIME_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # 1400 hours, at 1400, 14 hundred: a 24-hour time, read as said
    ("military", re.compile(
        r"\b(?:(?P<pre>at|from|by|around|about) )?(?P<h24>[01]\d|2[0-3])(?P<m24>[0-5]\d)"
        r"(?P<suffix> ?(?:hours|hrs|h)\b)?(?!\d)(?! ?(?:am|pm)\b)")),
    # 330 pm, 1030am: a recogniser's "3:30 pm" with its colon left out (the half said makes the
    # digits a clock; "330" alone is a count)
    ("meridiem", re.compile(r"\b(?P<h>1[0-2]|0?[1-9])(?P<m>[0-5]\d) ?(?P<half>am|pm)\b")),
    ("midnight", re.compile(r"\b(?:at )?(?:12 )?midnight\b")),
    # half past 2, quarter past 3, quarter to 10, 20 past 2, 10 to 4, 25 minutes past 9
    ("past", re.compile(
        rf"\b(?P<mins>quarter|half|[1-9]|1\d|2\d)(?: minutes?)? past (?:{_H}|(?P<noon>noon|midday))"
        r"(?: oclock)?"
        rf"{NOT_AFTER_NUMBER}{_HALF}")),
    ("to", re.compile(
        rf"(?<!from )(?<!between )\b(?P<mins>quarter|5|10|20|25|[1-9](?= minutes)"
        rf"|1\d(?= minutes)|2\d(?= minutes))(?: minutes?)? to (?:{_H}|(?P<noon>noon|midday))"
        r"(?: oclock)?"
        rf"{NOT_AFTER_NUMBER}{_HALF}")),
    # noon, at midday, move it to noon, from 10 to noon; not "to noon" after any other word
    # ("have to noon"), as "to 3" is no time after one: "up to noon" is a bound (nlu/spans.py);
    # nor "a noon", "next noon" or "on noon", a recogniser's "afternoon" ("one thirty in the
    # afternoon" heard as "1 30 and lift a noon", "one so the next noon", "and left on noon")
    ("noon", re.compile(r"(?<!before )(?<!after )\b(?:(?:at|around|about|" + _TO_AFTER + r") "
                        r"|(?<=\d )to |(?<!\bto ))(?:12 )?"
                        r"(?:(?<!\ba )(?<!\bnext )(?<!\bon )noon|midday)\b")),
    # half 2 (British for half past two)
    ("half", re.compile(rf"\bhalf {_H}{NOT_AFTER_NUMBER}{_HALF}")),
    # 14:30, 9:30, 9.30, 09:30 (a leading zero or an hour over 12 is a 24-hour time)
    ("clock", re.compile(
        r"\b(?P<hc>[01]?\d|2[0-3])[:.](?P<mc>[0-5]\d)(?!\d|\.\d)(?: ?oclock)?"
        rf"{NOT_AFTER_NUMBER}{_HALF}")),
    # 9 am, 9am, 9 30 pm, 9 oclock in the morning, 2 in the afternoon
    ("meridiem", re.compile(
        rf"\b{_H}(?: {_M}| (?:oh|o) (?P<m1>[1-9]))?(?: ?oclock)?{NOT_AFTER_NUMBER}"
        r"(?:,? ?(?P<half>am|pm|in the (?:morning|afternoon|evening|am|pm)|at night"
        r"|(?:this|that) (?:morning|afternoon|evening|night)|tonight))")),
    # 9 oclock
    ("oclock", re.compile(rf"\b{_H} ?oclock\b(?:[ -]?ish\b)?")),
    # at 7, around 10 30, round 10 (not "in round 2"), say 11, make it 9
    ("at", re.compile(
        r"\b(?:at|around|(?<!the )(?<!a )(?<!in )(?<!for )(?<!next )(?<!this )round|roughly"
        r"|approximately|about|by|say|from|make (?:it|that)"
        r"|how about|what about"
        r"|" + _TO_AFTER + r"|(?<=\d )to|(?<=am )to|(?<=pm )to"
        r"|(?<=we )do|(?<=you )do|(?<=let's )do)"
        rf" {_H}(?: {_M}| (?:oh|o) (?P<m1>[1-9]))?(?:[ -]?ish\b|\b(?![ -]ish\b)){NOT_AFTER_NUMBER}"
        rf"(?![:.-]\d)(?! or \d{{1,3}} (?:{lexicon.UNIT_NOUNS})\b){_OR_HALF}")),
    # "at 2 or 3", "2 or 3 pm": the alternative after "or" (the "or" stays between the two)
    ("or", re.compile(
        rf"(?:(?<=\d or )|(?<=am or )|(?<=pm or )|(?<=oclock or )){_H}(?: {_M})?"
        rf"(?:[ -]?ish\b|\b(?![ -]ish\b)){NOT_AFTER_NUMBER}(?![:.-]\d){_HALF}")),
    ("before_or", re.compile(
        rf"\b{_H}(?: {_M})?(?= or (?:at )?\d{{1,2}}(?:[:. ][0-5]\d)?(?!\d)"
        r"(?P<orhalf>,? ?(?:am|pm|in the (?:morning|afternoon|evening))))")),
    # "tenish", "Thursday, 10ish", "3-ish": an hour made approximate is a time said alone too
    # (followed by nothing, a comma or a closed-class word: "2ish filters" is a count)
    ("ish", re.compile(rf"(?<![\d:.-])\b{_H}(?: {_M})?[ -]?ish\b(?=$|,| (?:{_CLOSED})\b)")),
    # two thirty -> 2 30, nine forty five -> 9 45, 13 30 (a 24-hour time said as words)
    ("spoken", re.compile(
        rf"(?<!\d )\b(?P<hs>1[0-9]|2[0-3]|0?[1-9]) (?:(?P<ms>[0-5]\d)|(?:oh|o) (?P<mo>[1-9]))\b"
        rf"{NOT_AFTER_NUMBER}(?! ?[:\d])")),
)
_WINDOW = re.compile(
    r"\b(?:" + "|".join(sorted(lexicon.WINDOWS, key=len, reverse=True)) + r")\b"
    # "the night shift noticed it", "evening staff": a part of the day naming people or a
    # shift, not when to come
    r"(?! (?:shift|shifts|crew|team|staff|guard|guards|operator|operators|watch|security|"
    r"manager|supervisor|engineer|people|class|classes|news|meal|meeting)\b)"
)
# "Good morning", "what a morning", "since yesterday morning": a greeting, an exclamation or a
# time past, not a window or the half of the day of a visit.
_THAT = r"\bthat (?:same |very )?"  # "that morning": a part of the day already named
_POINTS_BACK = re.compile(_THAT + "$")
POINTS_BACK_TO_PART = re.compile(_THAT + r"(?:morning|afternoon)s?\b")
_GREETING = re.compile(r"\b(?:good|what an?|lovely|busy|long|yesterday|last|since|all|every"
                       r"|since this|from this) $")
# "Morning, could somebody come out tomorrow?", "Afternoon all, it's Sam": a part of the day that
# opens the turn on its own, parted by a comma from a clause of its own (a pronoun, a modal, a
# greeting word after it, a name introduced; a hesitation may come between: "Morning. Um, I'd
# like..."), is the greeting with its "good" left out. Only when no question is on the table
# (the proposer decides): "Morning, I think" answers "morning or afternoon?".
_SALUTATION = re.compile(
    r"^(?:(?:hi|hiya|hello|hey)(?: there)?,? )?(?:good )?(?P<window>morning|afternoon|evening)"
    r"(?: (?:all|there|everyone|everybody|folks|guys|mate|again|team))?, "
    rf"(?:{intent_words.HESITATION},? )*"
    r"(?=(?:i|im|i'm|id|i'd|ive|i've|ill|i'll|we|we're|we'd|we've|we'll|this|it|it's|its|my|our"
    r"|could|can|would|will|is|are|do|does|did|have|has|hi|hello|hey|just|any|who|what|how"
    r"|when|where|you|sorry|hope|quick|calling|ringing|got"
    # a word that opens talk rather than answers: "Morning. Er, before I forget, ...",
    # "Morning, so, the pump...", "Morning, listen, ..."
    r"|before|so|right|ok|okay|well|listen|look|about|regarding|question|thanks|cheers|need"
    r"|want|wondering|was|there|there's|theres|let|let's|lets"
    # the visit or the asset the call is about: "Morning, the engineer coming to Harbour
    # Road...", "Afternoon, our pump P-100..."
    r"|(?:the|that|this|your|our|my) (?:engineer|technician|tech|chap|guy|visit|booking"
    r"|appointment|service|pump|compressor|gearbox|unit|machine))\b"
    r"|[a-z]+ (?:here|speaking|from)\b)")  # "Morning, Sam here", "Afternoon, Jo from Acme"
# "The first thing is the pump": "first thing" after an article is a noun, not the day's start.
_ARTICLE = re.compile(r"\b(?:the|a|one|my|our|your) $")
# "Mon pm", "Wed, am please": the half of the day said on its own is the window. "I am" is a
# verb, not a window, and so is "I really am", "I nearly am" (_VERB_AM, said before it).
_BARE_HALF = re.compile(r"(?<![\d:])(?<!\d )(?<!\bi )\b(?P<half>am|pm)\b(?! i\b| not\b)")
_VERB_AM = re.compile(r"\bi (?:[a-z]+ly|still|just|also|even|always|never|sure) $")
# ... and said on its own it follows a day ("Thursday am", "the 9th, pm", "tomorrow am") or
# opens the turn ("am please", "yes, pm"): after any other word it is no window ("the Utrecht
# pump, am out to the clock", misheard from "about two o'clock")
_HALF_AFTER = re.compile(
    rf"(?:^[\s,]*|\b(?:{'|'.join(lexicon.WEEKDAYS)}|{lexicon.MONTHS}|tomorrow"
    r"|today|the|or|and|\d{1,2}(?:st|nd|rd|th)|yes|yeah|ok|okay|so|um|er|erm|uh),? )$")
# An answer to "What time would suit you?": a bare hour is the time ("9", "7 30").
_BARE_HOUR = re.compile(rf"(?<![\d:.-])\b{_H}(?: {_M})?\b{NOT_AFTER_NUMBER}(?![:.-]\d)")


@dataclass(frozen=True, slots=True)
class TimeReading:
    """One time found in the text. ``value`` is None when the hour fits neither half of the
    working day; then ``candidates`` holds both readings, morning first."""

    text: str
    start: int
    end: int
    value: str | None  # "HH:MM"
    window: str | None  # the window the time falls in, if any
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WindowReading:
    text: str
    start: int
    end: int
    value: str  # "morning" | "afternoon"


def window_of(hhmm: str) -> str | None:
    """The visit window a time falls in, or None (lunch, evening, night)."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    minutes = hour * 60 + minute
    return next((name for name, low, high in VISIT_WINDOWS if low <= minutes < high), None)


def in_working_day(hhmm: str) -> bool:
    """Whether a time falls in the working day, 08:00 to 17:00 (both ends included)."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return WORKING_DAY[0] <= hour * 60 + minute <= WORKING_DAY[1]


def readings_of_hour(hour: int, minute: int) -> tuple[str, str]:
    """The two readings of a 12-hour clock time, morning first: 7:00 -> 07:00, 19:00."""
    base = hour % 12
    return f"{base:02d}:{minute:02d}", f"{base + 12:02d}:{minute:02d}"


def resolve_hour(hour: int, minute: int, half: str | None = None
                 ) -> tuple[str | None, tuple[str, ...]]:
    """One 12-hour clock time as ``(value, candidates)``.

    ``half`` is "am" or "pm" when the caller fixed the half of the day. Otherwise the hour is a
    daytime visit when exactly one reading falls in the working day, and ambiguous (no value,
    both candidates) when neither does.
    """
    morning, evening = readings_of_hour(hour, minute)
    if half == "am":
        return morning, ()
    if half == "pm":
        return evening, ()
    fits = [t for t in (morning, evening) if in_working_day(t)]
    if len(fits) == 1:
        return fits[0], ()
    return None, (morning, evening)


def _half_of(said: str | None) -> str | None:
    if not said:
        return None
    if said == "at night" or said.endswith("night"):
        return "night"
    return "am" if any(word in said for word in _MORNING_WORDS) else "pm"


def _daypart(text: str) -> str | None:
    """The one half of the day a stretch names anywhere ("Thursday morning"), if just one."""
    halves = {"am" if m.group("am") else "pm" for m in _DAYPART.finditer(text)
              if not _GREETING.search(text[:m.start()])}
    return halves.pop() if len(halves) == 1 else None


def _clock(kind: str, match: re.Match[str]) -> tuple[int, int, bool] | None:
    """(hour, minute, is_24_hour) of the clock words, or None when they are no time."""
    groups = match.groupdict()
    if kind == "military":
        if not (groups["pre"] or groups["suffix"]):
            return None  # a bare four-digit number is a count, a year or an id
        return int(groups["h24"]), int(groups["m24"]), True
    if kind == "noon":
        return 12, 0, True
    if kind == "midnight":
        return 0, 0, True
    if kind == "clock":
        hour, minute = int(groups["hc"]), int(groups["mc"])
        twenty_four = hour > 12 or hour == 0 or groups["hc"].startswith("0")
        return hour, minute, twenty_four and not groups.get("half")
    if kind == "spoken":
        hour, minute = int(groups["hs"]), int(groups["ms"] or groups["mo"])
        return hour, minute, hour > 12 or groups["hs"].startswith("0")
    hour = 12 if groups.get("noon") else int(groups["h"])
    if kind in ("past", "half"):
        said = groups.get("mins") or "half"
        minute = _MINUTES.get(said) or int(said)
        return hour, minute, False
    if kind == "to":
        said = groups["mins"]
        minute = 60 - (_MINUTES.get(said) or int(said))
        return (hour - 1) or 12, minute, False
    minute = int(groups.get("m") or groups.get("m1") or 0)
    return hour, minute, False


def _reading(kind: str, match: re.Match[str], daypart: str | None) -> TimeReading | None:
    clock = _clock(kind, match)
    if clock is None:
        return None
    hour, minute, twenty_four = clock
    text = match.group(0)
    value: str | None
    candidates: tuple[str, ...]
    if twenty_four:
        value, candidates = f"{hour:02d}:{minute:02d}", ()
    else:
        said = match.groupdict().get("half") or match.groupdict().get("orhalf")
        half = _half_of(said)
        if half == "night":
            half = "am" if hour == 12 or hour < 5 else "pm"
        value, candidates = resolve_hour(hour, minute, half)
        if value is not None and not _fits_the_part(value, said):
            # "10 in the afternoon" (10 pm is no afternoon): the hour and the part of the day
            # say two things, so neither is guessed; the agent asks
            value, candidates = None, readings_of_hour(hour, minute)
        elif value is None and daypart is not None:
            value, candidates = resolve_hour(hour, minute, daypart)
    return TimeReading(text, match.start(), match.end(), value,
                       window_of(value) if value else None, candidates)


# The hours (24-hour clock, start included, end not) a part of the day said after an hour
# can hold: "2 in the afternoon" is 14:00, "10 in the afternoon" is no time at all.
_PART_HOURS = (("afternoon", 12, 18), ("evening", 16, 24))


def _fits_the_part(value: str, said: str | None) -> bool:
    """Whether the time ``value`` lies in the part of the day ``said`` after its hour."""
    hour = int(value[:2])
    return all(start <= hour < end for part, start, end in _PART_HOURS
               if said and part in said)


# What a number after it is not an hour of: an amount of money ("$2.00", a recogniser's "two
# thirty") or a day's number ("on Fly Day 4 in the afternoon", said "Friday the fourth")
_NO_HOUR_BEFORE = re.compile(r"(?:[$£€]|\bday )$")


# "the Harbour Road one in the morning", written "the harbour road 1 in the morning": a "1"
# after "the" and a word or two, no "at" before it, is the pronoun "one", not 1 am
_ONE_AS_A_PRONOUN = re.compile(r"1(?!\d|:| ?(?:am|pm|oclock)\b)")
_AFTER_THE = re.compile(r"\bthe (?:[a-z][\w'-]* ){1,3}$")


def _first_digit(text: str, match: re.Match[str]) -> int:
    digit = re.search(r"\d", text[match.start():match.end()])
    return match.start() + digit.start() if digit else match.start()


def read_times(text: str, bare_hour: bool = False) -> tuple[TimeReading, ...]:
    """Every time of day in normalised ``text``, left to right, non-overlapping.

    ``bare_hour``: the agent just asked for the time, so a number on its own ("9") is an hour.
    """
    taken: list[tuple[int, int]] = []
    readings: list[TimeReading] = []
    daypart = _daypart(text)
    patterns = _TIME_PATTERNS + ((("bare", _BARE_HOUR),) if bare_hour else ())
    for kind, pattern in patterns:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            reading = _reading(kind, match, daypart)
            digit = _first_digit(text, match)
            if reading is None or _NO_HOUR_BEFORE.search(text, 0, digit) \
                    or _ONE_AS_A_PRONOUN.match(text, digit) and _AFTER_THE.search(text, 0, digit):
                continue
            taken.append((match.start(), match.end()))
            readings.append(reading)
    readings += _hours_put_right(text, readings, taken, daypart)
    return tuple(sorted(readings, key=lambda r: r.start))


# Words that put a time right, all that stands between it and a number on its own: "at ten,
# no, hang on, eleven", "at two in the afternoon no sorry four"
_PUT_RIGHT = re.compile(
    r"^[\s,]*(?:(?:no|nope|sorry|actually|hang on|hold on|wait|i mean|i meant|make (?:it|that)"
    r"|or rather|rather|oops|correction|my mistake|scratch that)[\s,]*)+(?:at |about |around )?$")
_NOT_AN_HOUR_AFTER = re.compile(rf" (?:{lexicon.UNIT_NOUNS}|units?|of|days?|weeks?)\b")


def _hours_put_right(text: str, readings: list[TimeReading], taken: list[tuple[int, int]],
                     daypart: str | None) -> list[TimeReading]:
    """A number on its own right after a time and the words that put it right is the hour
    meant ("at ten, no, hang on, eleven"; "at two in the afternoon, no, sorry, four" is 4 pm):
    an hour, not a count."""
    out: list[TimeReading] = []
    for match in _BARE_HOUR.finditer(text):
        if any(match.start() < end and start < match.end() for start, end in taken) \
                or _NOT_AN_HOUR_AFTER.match(text, match.end()):
            continue
        before = [r for r in (*readings, *out) if r.end <= match.start()]
        if not before or not _PUT_RIGHT.match(text[max(r.end for r in before):match.start()]):
            continue
        reading = _reading("bare", match, daypart)
        if reading is not None:
            out.append(reading)
    return out


def opening_salutation(text: str) -> int:
    """How many characters of normalised ``text`` a greeting by the part of the day opens it
    with ("morning, " of "morning, could somebody come out..."); 0 if it opens otherwise."""
    found = _SALUTATION.match(text)
    return found.end() if found else 0


def read_windows(text: str, days_end: tuple[int, ...] = ()) -> tuple[WindowReading, ...]:
    """Every explicit window word ("morning", "after lunch", a bare "pm") in normalised ``text``.
    ``days_end``: where the days read in ``text`` end, when they have been blanked out of it (a
    bare "pm" right after one is that day's half)."""
    found = [WindowReading(m.group(0), m.start(), m.end(), lexicon.WINDOWS[m.group(0)])
             for m in _WINDOW.finditer(text) if not _GREETING.search(text[:m.start()])
             and not (m.group(0) == "1st thing" and _ARTICLE.search(text[:m.start()]))]
    for m in _BARE_HALF.finditer(text):
        before = text[:m.start()]
        after_a_day = any(end <= m.start() and re.fullmatch(r"[ ,]*", text[end:m.start()])
                          for end in days_end)
        if (m.group("half") == "am" and _VERB_AM.search(before)) \
                or not (after_a_day or _HALF_AFTER.search(before)):
            continue
        if not any(m.start() < w.end and w.start < m.end() for w in found):
            found.append(WindowReading(m.group(0), m.start(), m.end(),
                                       "morning" if m.group("half") == "am" else "afternoon"))
    # "make it the afternoon, we've a shutdown that morning": "that" points back to a part of
    # the day already named, so beside another window it is no value of its own
    pointing = [w for w in found if _POINTS_BACK.search(text[:w.start])]
    if any(w.value != p.value for w in found if w not in pointing for p in pointing):
        found = [w for w in found if w not in pointing]
    return tuple(sorted(found, key=lambda w: w.start))
