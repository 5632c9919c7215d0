"""Whether an ordinal or a bare number in a turn is a day of the month (part of
:mod:`agent.understanding.nlu.dates`).

"The 2nd", "on the 2nd,", "Tuesday the 2nd at 10", "the 21st if you can" are days; "on 2nd
thoughts", "a 2nd opinion", "the 1st time", "my 3rd call" are ranks. Each test takes the
normalised turn and the ``ordinal`` match of :data:`agent.understanding.nlu.dates._PATTERNS`
(groups ``day`` and ``bare``). Pure.
"""

from __future__ import annotations

import re

from agent.understanding.nlu import lexicon

WD = "|".join(sorted(lexicon.WEEKDAYS, key=len, reverse=True))
ORD = r"(?:st|nd|rd|th)"
# "Wednesday the 16th", "Wednesday 16th": an ordinal right after a weekday is a day, whatever
# follows it ("Wednesday 16th of the 100th" was heard for "... for P-100")
_WEEKDAY_THE = re.compile(rf"\b(?:{WD}),? (?:the )?\d{{1,2}}{ORD}$")
# A bare ordinal ("11th") reads as a date only when no word before it makes it a rank.
_RANK_BEFORE = re.compile(r"\b(?:my|your|our|his|her|their|its|a|an|every|each|this|that"
                          r"|at|in|of|1|the)\s*$")


def bare_ordinal_is_a_day(text: str, match: re.Match[str]) -> bool:
    """"Fri 11th", "from 2nd to 4th", "11th please": a day. "my 3rd call", "a 2nd", "us
    first" (normalised "us 1st"): a rank. "1st" alone is a day only after a weekday."""
    before = text[:match.start()]
    if re.search(rf"\b(?:{WD})s?,? $", before):
        return True
    if match.group("day") == "1" and before.strip(" ,"):
        return False
    return not _RANK_BEFORE.search(before)


_NEXT_WORD = re.compile(r"\s*(?P<w>[a-z0-9'’:]+)")
# A part of the day said right after the day ("the 18th end of the day", "the 4th 1st thing")
_WINDOW_AFTER = re.compile(r"\s*(?:" + "|".join(
    re.escape(w) for w in sorted(lexicon.WINDOWS, key=len, reverse=True)) + r")\b")
_CLOCK_AFTER = re.compile(r"^\s*(?::|am\b|pm\b|o'clock\b|\d|ish\b"
                          r"|(?:in the )?(?:morning|afternoon|evening)\b)")


_ADJECTIVES = frozenset("available free open clear good fine great better best ideal perfect "
                        "early earlier late later same latest earliest".split())


def after_a_weekday(text: str, match: re.Match[str]) -> bool:
    """A bare number is a day of the month right after "<weekday> the" ("Thursday the 10"),
    read as "Thursday the 10th" is: a day that is not that weekday is asked about."""
    return re.search(rf"\b(?:{WD}),? the $", text[:match.start("bare")]) is not None


def _is_a_noun(word: str) -> bool:
    return not (word[0].isdigit() or word in lexicon.ORDINAL_DATE_FOLLOWERS
                or word in lexicon.WEEKDAYS or re.fullmatch(lexicon.MONTHS, word))


# A visit named by its day of the month: "the 17th one", "the 9th visit". Below the 4th the
# ordinal may rank the caller's visits ("the 2nd one", "the 1st visit").
_NAMES_A_VISIT = frozenset(("1", "one", "visit", "booking", "appointment", "job"))
FIRST_DAY_NAMING_A_VISIT = 4


def ordinal_heads_a_noun(text: str, match: re.Match[str]) -> bool:
    """True when the ordinal modifies the word after it, so it is a rank, not a day of the month.

    The construction: an ordinal used as a date ends its noun phrase ("the 2nd", "on the 2nd,",
    "Tuesday the 2nd at 10", "the 21st if you can"); an ordinal followed by a noun is an
    adjective ("on 2nd thoughts", "a 2nd opinion", "the 1st time", "2nd visit", "1st thing").
    Words that may follow a day are :data:`lexicon.ORDINAL_DATE_FOLLOWERS`, a weekday, a time
    ("the 4th 10am") and "of" before a month or a month phrase; any other word is the noun the
    ordinal modifies. "1" after an ordinal is the pronoun "one" ("the 2nd 1"), not a time.
    From the 4th on, "one" or a visit's noun after it names the visit on that day ("the 17th
    one at Harbour Road").
    """
    rest = text[match.end():]
    if not rest.strip() or re.match(r"\s*[,.;:!?)-]", rest):
        return False
    nxt = _NEXT_WORD.match(rest)
    if nxt is None or _WINDOW_AFTER.match(rest):
        return False  # "Friday the 18th end of the day": a window follows the day
    word = nxt.group("w")
    after = rest[nxt.end():]
    if word in _NAMES_A_VISIT and int(match.group("day") or 0) >= FIRST_DAY_NAMING_A_VISIT:
        return False  # "the 17th one at Harbour Road", "the 9th visit": the visit on that day
    if word[0].isdigit():
        return word == "1" and not _CLOCK_AFTER.match(after)
    if word in _ADJECTIVES:  # "the 1st available slot": adjective + noun; "the 4th free?": a day
        later = _NEXT_WORD.match(after)
        return later is not None and not re.match(r"\s*[,.;:!?)-]", after) \
            and _is_a_noun(later.group("w"))
    if word in lexicon.ORDINAL_DATE_FOLLOWERS or word in lexicon.WEEKDAYS:
        return False
    if word == "of":
        return not re.match(rf"\s+(?:the )?(?:{lexicon.MONTHS}|(?:next|this|following|coming"
                            r"|the) month)\b", after) and not _WEEKDAY_THE.search(
                                text[:match.start()] + match.group(0))
    return not re.fullmatch(lexicon.MONTHS, word)
