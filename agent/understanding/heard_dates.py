"""The shape of a heard date: words around a date that say part of what was said was lost.

Part of :mod:`agent.understanding.trust`: a recogniser can hear a weekday clearly and lose the
words that made it a particular day ("Wednesday the ninth" heard as "Wednesday the night",
"Wednesday behind", "the 15th at March"). Each test reads the turn's text and the date values
read from it, and says whether the date read may be only part of what was said. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import date, timedelta

from agent.core.names import VISIT_DATE, VISIT_TIME, VISIT_WINDOW
from agent.understanding.nlu import correction_words, lexicon, times
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import SlotValue

_WINDOWS = ("morning", "afternoon")
_BESIDE_A_DAY = (VISIT_TIME, VISIT_WINDOW)  # values a misheard day of the month can turn into
_TOKEN = re.compile(r"[a-z0-9]+")
# A word that can carry a day, a time or a window ("9th", "10", "2pm", "morning", "noon",
# "Friday": "the 18th, the Friday" names the day again).
_VALUE_WORD = re.compile(r"\d+(?:st|nd|rd|th|am|pm)?|quarter|half|" + "|".join(
    (*_WINDOWS, "noon", "midday", *lexicon.MONTH_NAMES, *lexicon.WEEKDAYS)))
_MONTH_BETWEEN = re.compile(rf"(?<![\d:.])\b(\d{{1,2}}) (?:{lexicon.MONTHS}) (\d{{1,2}})\b"
                            r"(?![:.]?\d| \d| ?(?:am|pm|oclock)\b)")
# Parts of the day a caller names (see day_part_left_unread)
_DAY_PARTS = frozenset(("morning", "afternoon", "noon", "midday"))
# Words that say how a day or a part of the day suits: good or bad, free or busy (see
# said_of_it_unread; nlu/correction_words.py reads the bad ones as a value ruled out)
_JUDGES = frozenset("""fine ok okay good great better best perfect ideal works work suits suit
    free open available clear easier easiest easy possible convenient handy preferred no not
    bad worse out off busy full booked taken tricky difficult impossible packed tight rammed
    hectic problem quiet quieter shut closed filling""".split())
# Words after a date that introduce a value ("that": a hurried "the", as recognisers write it)
_INTRODUCES = ("the", "at", "that")
# Words that lead into a part of the day ("early afternoon", "in the morning")
_DAY_PART_LEADS = frozenset(("early", "late", "in", "first", "after", "before", "end"))
# Words between such a word and its value that hedge it ("at about ten", "at a quarter past")
_HEDGES = frozenset("a an about around roughly approximately say maybe perhaps like "
                    "um umm uh er erm".split())
# Words between "but" and the day or time it brings ("but on the 11th", "but at about 10")
_LEADS_TO_A_DAY = frozenset(("on", "at", "the", "for")) | _HEDGES
# What "that" after a date is followed by when it stands for the day ("Wednesday, that works",
# "Friday that's fine", "the 9th, that would be great")
_SAYS_IT_SUITS = frozenset("works work would will is s was should could might may can suits suit "
                           "sounds sound fits fit seems seem looks look be d ll day date one "
                           "time week morning afternoon".split())
# "a week on Friday" heard as "taking to wake on Wednesday": "wake" and "weak" beside a weekday
# may be the week (the reading makes them "week" only after "a": nlu/normalise.py)
_WEEK_WORDS = frozenset(("week", "weeks", "fortnight", "fortnights", "wake", "weak"))
# ... and "we come" or "we can" right before the weekday may be "week on" ("a week on Friday"
# heard as "when we come Friday" and "and we come Friday" in three voices, "a week on Thursday"
# as "and we can Thursday")
_WEEK_ON_HEARD = frozenset((("we", "come"), ("we", "can")))
# "after tomorrow", or "have to tomorrow" as a recogniser writes "the day after tomorrow" in
# voices it hears less well ("they have to tomorrow", "that I have to tomorrow": eight turns of
# three held-out sets, each said "the day after tomorrow"); "have to" before a day leads to none
# ... and "next tomorrow", which no one says ("the day after tomorrow" heard as "the next
# tomorrow"), and "day of tomorrow" or "end of tomorrow" ("per day of the tomorrow", "the
# very end of tomorrow": two voices of two held-out sets, each said "the day after tomorrow";
# "the morning of tomorrow", "any chance of tomorrow" are tomorrow)
_AFTER_TOMORROW = re.compile(r"\b(?:after|have to|next) tomorrow\b"
                             r"|\b(?:day|end) of (?:the )?tomorrow\b")
# Words a weekday may follow however faintly heard: closed-class words and words of which week
_BEFORE_A_DAY = lexicon.ORDINAL_DATE_FOLLOWERS | frozenset(
    ("next", "last", "coming", "every", "following", *_WEEK_WORDS))
_CORRECTING = re.compile(
    rf"\b(?:{correction_words.REPLACE_MARKERS})\b|{correction_words.TAKES_BACK}")
_INSTEAD_REACH = 3  # how many words before "instead" the day it marks can stand ("Friday morning")
_ORDINAL_DAY = re.compile(r"\d{1,2}(?:st|nd|rd|th)")
_WEEK_REACH = 3  # how many words either side of a weekday a word about its week can stand
_MONTH_NUMBER = {name: number for number, name in enumerate(lexicon.MONTH_NAMES, start=1)
                 if name != "may"}
# "Jan", "Sept": a month's short name says it too ("mar" and "may" are mostly other words)
_MONTH_NUMBER |= {name[:3]: number for name, number in _MONTH_NUMBER.items() if name != "march"}
_MONTH_NUMBER["sept"] = 9


def month_left_out(text: str, values: Sequence[SlotValue]) -> bool:
    """A month is named in the turn, and no date read from it falls in any named month: the
    reading left out a word that says when ("Walk P 100 for 15th at March", misheard from
    "the fifteenth of March", read as 15 December). "May" is left aside: it is mostly a verb.
    With a month named, a date value that is not an ISO date counts as left out too."""
    named = {_MONTH_NUMBER[t] for t in _tokens(text) if t in _MONTH_NUMBER}
    days = [s.value for s in values if s.field == VISIT_DATE and s.value is not None]
    if not named:
        return False
    if not days:
        # "for January but 12 in the afternoon", misheard from "January the twelfth": the
        # month's day was not read, and a number beside it may have become another value
        return any(s.field in _BESIDE_A_DAY for s in values)
    try:
        return not {date.fromisoformat(day).month for day in days} & named
    except ValueError:
        return True


def value_lost_after_date(text: str, values: Sequence[SlotValue]) -> bool:
    """A date is followed by a word that introduces a value ("the", "at", or "that", which a
    recogniser writes for a hurried "the"), and no value comes after it: the day of the month
    or the time that word introduced was not heard ("Wednesday the ninth" heard as "Wednesday
    the night" or "Wednesday that I've been", "Wednesday at ten" as "Wednesday at home"), so
    the date read may be only part of what was said. Words that hedge a value ("at *about*
    ten", "at *a* quarter past", and "the" after "at": "at the quarter after two") are passed
    over to the word they lead to. So does "to the" ("from the 9th to the 11th" heard as
    "from the ninth to the limit": where the visit goes was lost, and the date read is the one
    it leaves). "But" counts too ("Thursday the tenth" heard as "Thursday
    but end", "4 January but well") when the word after it starts neither a value nor a clause
    ("but I'm", "but after lunch", "but not"), or when words that lead to a value follow it
    and no value does ("but on the relevant")."""
    tokens = _tokens(text)
    for slot in values:
        if slot.field != VISIT_DATE:
            continue
        last = _tokens(slot.text.split("/")[-1])[-1:]
        for i, token in enumerate(tokens[:-1]):
            if last and token == last[0] and tokens[i + 1] == "but":
                # "Thursday the tenth" heard as "Thursday but end": "but" then a word that
                # neither a clause ("but I'm", "but not") nor a value starts
                # (an adverb after "but" opens nothing itself: "but then set about half ten",
                # misheard from "the tenth at about half ten", is judged by "set")
                at = i + 3 if tokens[i + 2:i + 3] == ["then"] and i + 3 < len(tokens) else i + 2
                then = tokens[at] if at < len(tokens) else ""
                if then and then not in lexicon.ORDINAL_DATE_FOLLOWERS \
                        and not _VALUE_WORD.fullmatch(then):
                    return True
                # "not on the tenth but on the eleventh" heard as "on the 10th but on the
                # relevant": "but" and words that lead to a value, then none
                leads = tokens[i + 2:]
                while leads and leads[0] in _LEADS_TO_A_DAY:
                    leads = leads[1:]
                if len(leads) < len(tokens) - i - 2 and leads \
                        and not _VALUE_WORD.fullmatch(leads[0]):
                    return True
                # "Wednesday but I'm early afternoon": a clause that goes from "but I'm"
                # straight to a value says nothing; its words were the day's ("the 9th"); nor
                # does one that ends there ("Can we do Wednesday but I'm instead?")
                rest = [t for t in tokens[i + 4:i + 6] if t not in _HEDGES]
                if tokens[i + 2:i + 4] == ["i", "m"] and (
                        not rest or rest[0] == "instead" or _VALUE_WORD.fullmatch(rest[0])
                        or rest[0] in _DAY_PART_LEADS):
                    return True
                continue
            # "to the" introduces where the visit goes: "from the 9th to the 11th" heard as
            # "from the ninth to the limit" lost it, and the date read is the one it leaves
            if not (last and token == last[0] and (tokens[i + 1] in _INTRODUCES
                                                   or tokens[i + 1:i + 3] == ["to", "the"])):
                continue
            following = tokens[i + 2:]
            # (after "at", "the" is a hurried "a": "at the quarter after two"; after "to", the
            # article of where it goes)
            while following and (following[0] in _HEDGES
                                 or (tokens[i + 1] in ("at", "to") and following[0] == "the")):
                following = following[1:]
            then = following[0] if following else ""
            if tokens[i + 1] == "that" and then in _SAYS_IT_SUITS:
                continue  # "Wednesday, that works for me": "that" is the day, nothing lost
            if not _VALUE_WORD.fullmatch(then):
                return True
    return False


def said_of_it_unread(text: str, values: Sequence[SlotValue],
                      words: Sequence[tuple[str, float]] = (), faint: float = 0.0) -> bool:
    """A day or a part of the day read is the subject of "is", "are" or "'s", and the words
    after it in its clause hold no word that judges it (good or bad, free or busy, a value):
    what the caller said of it was misheard, and it may have been ruled out ("The afternoons
    are getting busy" heard as "The afternoon is on getting really", read as the afternoon
    wanted). "Thursday is fine", "mornings are all booked up", "the 9th is a Wednesday" are
    read; a possessive ("Monday's visit") is checked too, rarely said of a day by a caller.

    A judging word the recogniser heard below ``faint`` (``words``: its words with their
    probabilities) judges nothing: it is as likely a mishearing as the rest ("Mornings are all
    booked up" heard as "Morning's a long work tap", "work" at 0.34, read as the morning
    wanted)."""
    said = normalise(text)
    heard_as: dict[str, float] = {}  # each token at the best it was heard anywhere
    for word, probability in words:
        for token in _tokens(word):
            heard_as[token] = max(probability, heard_as.get(token, 0.0))
    for slot in values:
        if slot.field not in (VISIT_DATE, VISIT_WINDOW):
            continue
        for part in slot.text.split("/"):
            own = _tokens(part)[-1:]
            if not own:
                continue
            for found in re.finditer(rf"\b{re.escape(own[0])}s?\b(?:'s| is| are| was)"
                                     r"(?P<rest>[^,.?!]*)", said):
                rest = _tokens(found.group("rest"))
                if rest and not any((t in _JUDGES or _VALUE_WORD.fullmatch(t))
                                    and heard_as.get(t, 1.0) >= faint for t in rest):
                    return True
    return False


def day_part_left_unread(text: str, values: Sequence[SlotValue],
                         withdrawn: Collection[tuple[str, str]] = ()) -> bool:
    """A window or a time was read, and the turn names another part of the day ("morning",
    "afternoons", "noon", "midday") that no value was read from and none withdrawn: the words
    around it were misheard ("in the morning, or rather the afternoon" heard as "in the
    morning, or remember they have to noon", read as the morning). A greeting that opens the
    turn ("Good morning, ...") names none, nor does one "that" points back to ("we've a
    shutdown that morning": times.read_windows). ``values``: every slot read, candidates too."""
    if not any(s.field in _BESIDE_A_DAY and s.value is not None for s in values):
        return False
    read = {_singular(t) for s in values for part in s.text.split("/") for t in _tokens(part)}
    read |= {_singular(t) for _, value in withdrawn for t in _tokens(value)}
    said = normalise(text)
    said = times.POINTS_BACK_TO_PART.sub(" ", said[times.opening_salutation(said):])
    return any(_singular(t) in _DAY_PARTS and _singular(t) not in read for t in _tokens(said))


def _singular(token: str) -> str:
    return token[:-1] if token.endswith("s") and token[:-1] in _DAY_PARTS else token


def week_left_out(text: str, values: Sequence[SlotValue]) -> bool:
    """A date read from a weekday has a word about the week right beside it ("week",
    "fortnight", within :data:`_WEEK_REACH` words) that the date was not read from: which week
    was misheard ("a week on Friday" heard as "bumper week on Friday", read as this Friday), so
    the date read may be the wrong week's. A date read with its week ("a week on Friday",
    "Friday next week") is not this. "we come" or "we can" right before the weekday counts as
    such a word (:data:`_WEEK_ON_HEARD`)."""
    tokens = _tokens(text)
    for slot in values:
        own = _tokens(slot.text)
        if slot.field != VISIT_DATE or _WEEK_WORDS & set(own):
            continue
        days = {t for t in own if t in lexicon.WEEKDAYS}
        if any(token in days and (_WEEK_WORDS & set(tokens[max(0, i - _WEEK_REACH):
                                                             i + _WEEK_REACH + 1])
                                  or tuple(tokens[max(0, i - 2):i]) in _WEEK_ON_HEARD)
               for i, token in enumerate(tokens)):
            return True
        # "a week tomorrow" heard as "that wake tomorrow": a week word right before "tomorrow"
        # ("this week, tomorrow" and "next week tomorrow" name this or that week's day)
        if "tomorrow" in own and any(
                token == "tomorrow" and i > 0 and tokens[i - 1] in _WEEK_WORDS
                and (i < 2 or tokens[i - 2] not in ("this", "next"))
                for i, token in enumerate(tokens)):
            return True
    return False


def day_after_tomorrow_lost(text: str, values: Sequence[SlotValue], today: date | None,
                            withdrawn: Collection[tuple[str, str]] = ()) -> bool:
    """The turn says "after tomorrow" (or "have to tomorrow", "day of the tomorrow":
    :data:`_AFTER_TOMORROW`), and
    no date was read from those words, nor withdrawn ("Monday, the day after tomorrow is no
    good"): "the day after tomorrow" was misheard before them ("Monday after tomorrow", "may
    after tomorrow", "they have to tomorrow"), so a date read from the turn ("Monday",
    "tomorrow") is another day."""
    if today is None or not any(s.field == VISIT_DATE for s in values):
        return False
    said = " ".join(_tokens(text))
    read = any("after tomorrow" in " ".join(_tokens(part)) for s in values
               if s.field == VISIT_DATE for part in s.text.split("/"))
    after = (today + timedelta(days=2)).isoformat()
    return bool(_AFTER_TOMORROW.search(said)) and not read \
        and (VISIT_DATE, after) not in set(withdrawn)


# Words that may stand before "from tomorrow" and leave the day tomorrow ("any time from
# tomorrow", "starting from today"); any other word there may be a count misheard ("a week
# from tomorrow" heard as "to read from tomorrow", "tank from tomorrow")
_FROM_A_DAY_ALONE = frozenset("starting start started time anytime free available open on "
                              "onwards away apart and then".split())
_FROM_A_DAY = re.compile(r"\b([a-z']+) from (?:tomorrow|today)\b")


def count_before_from_lost(text: str, values: Sequence[SlotValue]) -> bool:
    """The turn says "<word> from tomorrow" (or today), the date read does not count from it,
    and the word is none that leaves the day as it is: a count of days or weeks was misheard
    ("a week from tomorrow" heard as "service to read from tomorrow"), so the date read
    ("tomorrow") is another day."""
    said = " ".join(_tokens(text))
    dates = [s for s in values if s.field == VISIT_DATE]
    if not dates or any("from" in s.text for s in dates):
        return False
    return any(m.group(1) not in _FROM_A_DAY_ALONE for m in _FROM_A_DAY.finditer(said))


_ORDINAL_WORD = re.compile(r"\d{1,2}(?:st|nd|rd|th)|[a-z]*(?:first|second|third|fourth|fifth"
                           r"|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|teenth|tieth)")
_ORDINAL_REACH = 4  # how many words after a weekday an unread ordinal may stand


def ordinal_after_weekday_unread(text: str, values: Sequence[SlotValue]) -> bool:
    """A date read from a weekday alone, and a word of an ordinal a few words after it that no
    date was read from: the day of the month was misheard around it ("Monday the
    twenty-first" heard as "Monday, but when, at first"), so the weekday's next date may be
    another day. Not "first thing" (the start of the day) nor "first of all"."""
    if not any(slot.field == VISIT_DATE and all(
            not words or words[-1] in lexicon.WEEKDAYS
            for words in map(_tokens, slot.text.split("/"))) for slot in values):
        return False
    tokens = _tokens(text)
    for i, token in enumerate(tokens):
        if token not in lexicon.WEEKDAYS:
            continue
        for j in range(i + 1, min(len(tokens), i + 1 + _ORDINAL_REACH)):
            later = tokens[j + 1] if j + 1 < len(tokens) else ""
            if _ORDINAL_WORD.fullmatch(tokens[j]) and later not in ("thing", "of"):
                return True
    return False


# Words a recogniser writes for the tens of an ordinal day ("twenty-second" heard as "when the
# second", "twenty-first" as "but when, at first")
_TENS_HEARD_AS = frozenset(("when", "plenty", "twin", "thirsty"))
_TENS_REACH = 3  # how many words before the ordinal such a word may stand ("when, at first")


def tens_of_the_day_lost(text: str, values: Sequence[SlotValue]) -> bool:
    """A date read from a day of the month under the 10th ("the 2nd"), with a word a
    recogniser writes for "twenty" or "thirty" just before it: the tens were misheard ("on
    December 22nd" heard as "on the same but when the second"), so the day read is another."""
    days = {words[-1] for s in values if s.field == VISIT_DATE
            for words in map(_tokens, s.text.split("/"))
            if words and re.fullmatch(r"[1-9](?:st|nd|rd|th)", words[-1])}
    tokens = _tokens(text)
    return any(token in days and _TENS_HEARD_AS & set(tokens[max(0, i - _TENS_REACH):i])
               for i, token in enumerate(tokens))


# What is left of an ordinal the reading could not make a day of ("the fourteenth" heard as
# "beforeteenth", "twenty-first" as "whenfirst"): a word ending as an ordinal's tens or teens
_ORDINAL_LEFT = re.compile(r"[a-z]+(?:teenth|tieth)")


def ordinal_left_unread(text: str, values: Sequence[SlotValue]) -> bool:
    """A date was read, and a word of the turn ends like an ordinal of the teens or tens but
    is none ("Oops, I've misread the calendar, the fourteenth" heard as "... the calendar
    beforeteenth"): a day said there was misheard, and the date read may be the one it
    replaced."""
    return any(s.field == VISIT_DATE for s in values) and any(
        _ORDINAL_LEFT.fullmatch(token) for token in _tokens(text))


_RELATIVE_DAYS = frozenset(("today", "tomorrow"))
_COUNT_REACH = 2  # how many words before "today" a misheard count may stand ("far-tight")


def faint_before_relative_day(words: Sequence[tuple[str, float]], values: Sequence[SlotValue],
                              faint: float) -> bool:
    """A date read from "today" or "tomorrow", with a word heard below ``faint`` among the two
    before it that is no closed-class word and no value: a count of days or weeks said there
    was misheard ("a fortnight today" heard as "a far-tight today"), so the date read is
    another day."""
    mentions = [_tokens(s.text.split("/")[-1]) for s in values
                if s.field == VISIT_DATE and "after" not in _tokens(s.text)]
    if not any(len(said) <= 2 and said[-1:] and said[-1] in _RELATIVE_DAYS
               for said in mentions):
        return False  # (a date read with its count, "a week tomorrow", has nothing lost)
    tokens = _word_tokens(words)
    for k, (token, i) in enumerate(tokens):
        if token not in _RELATIVE_DAYS:
            continue
        if any(j != i and _faint_content(word, words[j][1], faint)
               for word, j in tokens[max(0, k - _COUNT_REACH):k]):
            return True
    return False


def instead_not_read(text: str, values: Sequence[SlotValue]) -> bool:
    """A day or a part of the day said just before "instead" ("push it to Friday morning
    instead", "the afternoon instead"; not "instead of") is the one meant, and the value read
    is another: the words that made it the meant one were misheard ("push that to Friday"
    heard as "push not to Friday", read as a day ruled out, or "push after Friday", read as a
    bound; "the afternoon instead of the morning" heard as "instead on the morning"), so the
    value read is the old one."""
    read_days = {t for s in values if s.field == VISIT_DATE
                 for t in _tokens(s.text.split("/")[-1])}
    read_windows = {s.value for s in values if s.field == VISIT_WINDOW}
    tokens = _tokens(text)
    for i, token in enumerate(tokens):
        if token != "instead" or tokens[i + 1:i + 2] == ["of"]:
            continue
        before = tokens[max(0, i - _INSTEAD_REACH):i]
        days = [t for t in before if t in lexicon.WEEKDAYS or _ORDINAL_DAY.fullmatch(t)]
        if read_days and days and days[-1] not in read_days:
            return True
        windows = [t for t in before if t in _WINDOWS]
        if read_windows and windows and windows[-1] not in read_windows:
            return True
    return False


def window_against_time(text: str, values: Sequence[SlotValue],
                        withdrawn: Collection[tuple[str, str]] = ()) -> bool:
    """The window read is not the window of a time the turn says: of the time read, or of one
    it set aside with no word of correcting anywhere in the turn ("say 3 pm, mornings are all
    booked up" heard as "say 3 pm. Morning's are all hooked up": the morning read, 15:00 set
    aside). One of the two was misheard. "At 10, no, make it the afternoon" is a correction."""
    windows = {s.value for s in values if s.field == VISIT_WINDOW and s.value in _WINDOWS}
    if not windows:
        return False
    said = [s.value for s in values if s.field == VISIT_TIME and s.value]
    if not _CORRECTING.search(normalise(text)):
        said += [value for field, value in withdrawn if field == VISIT_TIME]
    implied = {times.window_of(value) for value in said if re.fullmatch(r"\d{2}:\d{2}", value)}
    return bool(implied - windows - {None})


def definite_weekday_alone(text: str, values: Sequence[SlotValue],
                           offered: Collection[str] = ()) -> bool:
    """A date read from a weekday alone, said after "the" or "a": the words that made it one
    day were not read ("the Friday after next" heard as "the Friday afternoon", "a Friday in
    January"), so the date read may be another week's. A date the agent just offered is what
    "the Friday" points at."""
    tokens = _tokens(text)
    for slot in values:
        own = _tokens(slot.text.split("/")[-1])  # the mention the value was read from
        if slot.field != VISIT_DATE or slot.value in offered or len(own) != 1 \
                or own[0] not in lexicon.WEEKDAYS:
            continue
        if any(token == own[0] and i > 0 and tokens[i - 1] in ("the", "a")
               for i, token in enumerate(tokens)):
            return True
    return False


def no_day_is_followed_by(text: str, values: Sequence[SlotValue]) -> bool:
    """A date read from a weekday is followed by a word that does not follow a day (not a
    closed-class word, a verb of suiting or a value: :data:`lexicon.ORDINAL_DATE_FOLLOWERS`):
    what came after the weekday was misheard ("Wednesday the ninth" heard as "Wednesday
    behind"), so the day may be only part of what was said. A number right after the weekday
    that no value was read from counts too ("Friday the 11th" heard as "Friday 11")."""
    tokens = _tokens(text)
    read = {t for s in values for t in _tokens(s.text)}
    days = _weekdays_read(values)
    return any(token in days and _no_day_before(tokens[i + 1], read)
               for i, token in enumerate(tokens[:-1]))


def faint_after_weekday(words: Sequence[tuple[str, float]], values: Sequence[SlotValue],
                        faint: float) -> bool:
    """A date read from a weekday is followed at once by a word that is no value and was
    heard below ``faint``: the recogniser was unsure just where the day of the month would
    be said ("Wednesday the ninth" heard as "Wednesday, but I'm", "Wednesday and I'd say",
    "but" and "and" faint), so the day may be only part of what was said. A weekday with its
    "'s" counts ("Monday's no good" heard as "Monday's low good", "low" faint). ``words``: the
    recogniser's words with their probabilities."""
    days = _weekdays_read(values)
    for (word, _), (after, heard) in zip(words[:-1], words[1:], strict=True):
        said, next_said = _tokens(word), _tokens(after)
        if days & set(said[:1] + said[-1:]) and next_said and heard < faint \
                and not _VALUE_WORD.fullmatch(next_said[0]):
            return True
    return False


def afternoon_heard_for_a_time(words: Sequence[tuple[str, float]],
                                values: Sequence[SlotValue], faint: float) -> bool:
    """The afternoon was read from an "afternoon" heard below ``faint`` right after a weekday
    a date was read from. tiny.en hears a weekday's "at ten", "at eleven" and "after next" so
    ("next Monday at ten" as "next Monday afternoon", "Thursday at ten" as "Thursday
    afternoon", "the Friday after next" as "the Friday afternoon"): the window may be a time,
    or the date the wrong week's. ``words``: the recogniser's words with their probabilities."""
    if not any(s.field == VISIT_WINDOW and s.value == "afternoon" for s in values):
        return False
    days = _weekdays_read(values)
    for (word, _), (after, heard) in zip(words[:-1], words[1:], strict=True):
        said, next_said = _tokens(word), _tokens(after)
        if days & set(said[-1:]) and next_said[:1] == ["afternoon"] and heard < faint:
            return True
    return False


def faint_before_weekday(words: Sequence[tuple[str, float]], values: Sequence[SlotValue],
                         faint: float) -> bool:
    """A date read from a weekday follows at once a word heard below ``faint`` that is no
    closed-class word, no value and no word of which week: the words that said which week
    were misheard ("a week on Wednesday" heard as "to be gone Wednesday", "the recon
    Wednesday", "that we come Monday"), so the date read may be the wrong week's. A faint
    "on", "to" or "sorry" before the day is no such word."""
    days = _weekdays_read(values)
    for (before, heard), (word, _) in zip(words[:-1], words[1:], strict=True):
        said, last = _tokens(word), _tokens(before)[-1:]
        if said and said[0] in days and last and _faint_content(last[0], heard, faint):
            return True
    return False


def faint_beside_day_of_month(words: Sequence[tuple[str, float]], values: Sequence[SlotValue],
                              faint: float) -> bool:
    """A date read with no month in its words, while a day of the month said in the turn
    ("3rd", "the 5th": the one read or one it replaced) has right before or after it a word
    heard below ``faint`` that is no closed-class word and no value: a month said there was
    misheard ("for Feb 3rd, ugh, my bad, the 5th" heard as "on the most 4th and 3rd, but my
    man, the 5th", "most" faint; "the third of February" as "the third area", "area" faint),
    so the date read, which takes the coming month, may be another month's. Not "first thing"
    (the start of the day)."""
    dates = [s for s in values if s.field == VISIT_DATE]
    if not dates or any(t in _MONTH_NUMBER for s in dates for t in _tokens(s.text)):
        return False
    tokens = _word_tokens(words)
    for k, (token, i) in enumerate(tokens):
        later = tokens[k + 1][0] if k + 1 < len(tokens) else ""
        if not _ORDINAL_DAY.fullmatch(token) or (token == "1st" and later == "thing"):
            continue
        beside = [tokens[k - 1]] if k > 0 else []
        if k + 1 < len(tokens):  # "the third of February" heard as "the third area"
            beside.append(tokens[k + 1])
        if any(j != i and word not in ("a", "an") and _faint_content(word, words[j][1], faint)
               for word, j in beside):
            return True
    return False


def day_of_month_lost(text: str, values: Sequence[SlotValue]) -> bool:
    """A month is said in the frame "the ... of <month>" (or "on"), with a word in the day's
    place that is no value: the day of the month was misheard ("the fourth of February" heard
    as "the fall on February", "the force of February"), so a date read from the turn is not
    the day that was said. "the end of March" and "the week of the 4th" are checked too: they
    name no one day."""
    if not any(s.field == VISIT_DATE for s in values):
        return False
    tokens = _tokens(text)
    return any(token in _MONTH_NUMBER and i >= 3 and tokens[i - 1] in ("of", "on")
               and tokens[i - 3] == "the" and not _VALUE_WORD.fullmatch(tokens[i - 2])
               for i, token in enumerate(tokens))


def month_between_numbers(text: str, values: Sequence[SlotValue]) -> bool:
    """A month stands between two bare numbers that could each be its day ("4 January 12",
    misheard from "for January the twelfth"): which one is the day was not heard, so a date
    read from the turn may be the other. A number after the month that a clock word, a
    colon or minutes follow is a time ("4 January 12 pm"), and a comma parts the two."""
    return any(s.field == VISIT_DATE for s in values) and any(
        1 <= int(m.group(1)) <= 31 and 1 <= int(m.group(2)) <= 31
        for m in _MONTH_BETWEEN.finditer(normalise(text)))


def ordinal_after_a_stray_word(text: str, values: Sequence[SlotValue]) -> bool:
    """The day read is an ordinal ("2nd") right after a content word that leads to no day: no
    closed-class word ("the", "on", "or", "by"...), weekday, month or number. A recogniser
    writes such a word for a month or weekday it misheard ("February second" heard as "family
    second"), so the month or week the date was read in is a guess. "Friday 2nd", "on the 2nd",
    "December 2nd", "2nd or 3rd", a turn that opens with it ("2nd please") are not."""
    read = {t for s in values if s.field == VISIT_DATE for t in _tokens(s.text)}
    tokens = _tokens(text)
    return any(_ORDINAL_DAY.fullmatch(token) and token in read and i > 0
               and _stray(tokens[i - 1]) and not _month_follows(tokens, i)
               for i, token in enumerate(tokens))


def _stray(word: str) -> bool:
    """A content word (:func:`_content`) that names no month by its short name ("dec") and
    corrects nothing ("correction 24th")."""
    return _content(word) and word not in _MONTH_NUMBER and not _CORRECTING.fullmatch(word)


def _month_follows(tokens: Sequence[str], i: int) -> bool:
    """The month is said after the day ("the pump, 15th of December"): it was heard."""
    after = [t for t in tokens[i + 1:i + 3] if t != "of"]
    return bool(after) and after[0] in _MONTH_NUMBER


# Days of the month a recogniser writes for a word that sounds the same: "for" and "to"/"too"
_SOUNDS_LIKE_A_WORD = frozenset(("2", "4"))
# ... unless a word that leads to a day stands before it ("on the fourth of January" is written
# "on 4 January", "Monday the fourth of January" as "Monday 4 January")
_LEADS_TO_A_DAY_NUMBER = frozenset(("on", "the", "of", "by", "from", "until", "till", "before",
                                    "after", "since", *lexicon.WEEKDAYS))


def day_heard_for_a_word(text: str, values: Sequence[SlotValue]) -> bool:
    """A date read from a bare "2" or "4" right before its month ("4 January") where no word
    that leads to a day comes before it: a recogniser writes "for" and "to" so before a month
    ("book the pump in for January the twelfth" heard as "pump in 4 January but well"), so
    the day read may be no day said. "On 4 January", "Monday 4 January" are days."""
    read = {t for s in values if s.field == VISIT_DATE for t in _tokens(s.text)}
    tokens = _tokens(text)
    return any(token in _SOUNDS_LIKE_A_WORD and token in read and tokens[i + 1] in _MONTH_NUMBER
               and (i == 0 or tokens[i - 1] not in _LEADS_TO_A_DAY_NUMBER)
               for i, token in enumerate(tokens[:-1]))


# "same day and time", not "at the same time" (meanwhile) nor "the same time as last year"
_SAME_AS_BEFORE = re.compile(r"(?<!\bat the )\bsame (?:day|date|time|day and time"
                             r"|time and day|place)\b(?! as\b)")


def correction_lost(text: str, withdrawn: Collection[tuple[str, str]]) -> bool:
    """The turn keeps values "the same" ("same day and time"), which is said of what a
    correction left as it was, and no value was read as replaced: the correction's words were
    misheard ("Correction, it's the Rotterdam one, same day and time" heard as "collection is
    the lot of them one same day and time")."""
    return not withdrawn and bool(_SAME_AS_BEFORE.search(normalise(text)))


def _word_tokens(words: Sequence[tuple[str, float]]) -> list[tuple[str, int]]:
    """Each token of the recogniser's ``words`` with the index of the word it is in ("P-200"
    gives ("p", i) and ("200", i))."""
    return [(t, i) for i, (word, _) in enumerate(words) for t in _tokens(word)]


def _content(token: str) -> bool:
    """No closed-class word, no word of which week and no value word."""
    return token not in _BEFORE_A_DAY and not _VALUE_WORD.fullmatch(token)


def _faint_content(token: str, heard: float, faint: float) -> bool:
    """A content token heard below ``faint``: a word in the place of one that said something,
    misheard."""
    return heard < faint and _content(token)


def _weekdays_read(values: Sequence[SlotValue]) -> set[str]:
    """The weekdays that dates of ``values`` were read from (the last word of a date's text,
    or of its last part: "the 2nd / friday")."""
    return {last for s in values if s.field == VISIT_DATE
            for last in _tokens(s.text.split("/")[-1])[-1:] if last in lexicon.WEEKDAYS}


def _no_day_before(word: str, read: set[str]) -> bool:
    """Whether ``word`` cannot follow a day: not a follower or a value word, or a number that
    no value of the turn was read from."""
    if word.isdigit():
        return word not in read
    return word not in lexicon.ORDINAL_DATE_FOLLOWERS and not _VALUE_WORD.fullmatch(word) \
        and word != "next"


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalise(text))
