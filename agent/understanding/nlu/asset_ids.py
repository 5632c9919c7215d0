"""Asset ids as they are said: a pattern for each id the caller owns, and the reading of an
id-like token that is none of the caller's (part of :mod:`agent.understanding.nlu.catalog`).

An owned id is compiled into a pattern that accepts the ways people and recognisers say it:
with or without a dash or space ("c 7", "ab12"), letters spoken ("see seven", "ay bee twelve",
"papa two hundred"), digits as words or one by one ("p 2 0 0", "two oh oh";
:mod:`agent.understanding.nlu.normalise` has already turned words into digits). A one-digit id
is only ever matched with its letters said, so "at 7" or "the 7th" never name C-7.

An id-like token that is none of the caller's ("V-200") is *heard*: its candidates are the owned
ids it is confusable with (same digits, letters a recogniser mixes up,
:data:`lexicon.CONFUSABLE_LETTERS`). Pure, memoised.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agent.core.caller import Asset
from agent.understanding.nlu import lexicon

_RUNS = re.compile(r"[a-z]+|\d+")
# Between the letters and the digits of an id: nothing, a space, a dash, or "dash" said.
_SEP = r"(?:\s*(?:-|\bdash\b|\bhyphen\b)\s*|\s?)"
# A digit inside an id the caller owns, as a recogniser may write it ("p one oh oh", "kay nein").
_DIGIT_SAID = {"0": r"(?:0|oh|o)", "1": r"(?:1|won)", "2": r"(?:2|to|too)", "4": r"(?:4|for)",
               "8": r"(?:8|ate)", "9": r"(?:9|nein)"}
# Digits that are a time or a count, not the end of an id: "c 7 pm", "g 7:30", "see 25 units"
# (a singular noun after them names the asset: "the AB-12 unit", "the P-200 pump").
NOT_TIME = (r"(?!\s*(?:am|pm|oclock|hours?)\b)(?![:.]\d)"
            rf"(?! (?:{lexicon.PLURAL_UNIT_NOUNS}|days?|weeks?|months?|minutes?)\b)")
# An id-like token in normalised text: letters, then digits ("v-200", "v200", "v 200", "ab-12").
ID_LIKE = re.compile(
    r"(?<![\w'])(?P<letters>[a-z]{1,3})(?P<sep>\s?-\s?|\s|)(?P<digits>\d{1,5})(?![\w])"
    + NOT_TIME)
NOT_ID_LETTERS = (lexicon.NOT_ASSET_PREFIXES | lexicon.BOOKING_REF_PREFIXES
                  | frozenset(lexicon.WEEKDAYS) | frozenset(lexicon.MONTHS.split("|")))


def _runs(asset_id: str) -> list[str]:
    return _RUNS.findall(asset_id.lower())


def id_digits(asset_id: str) -> str:
    return "".join(r for r in _runs(asset_id) if r.isdigit())


def _letters(asset_id: str) -> str:
    return "".join(r for r in _runs(asset_id) if not r.isdigit())


def _letter(ch: str, first: bool, many_digits: bool) -> str:
    names = [name for name, letter in lexicon.SPOKEN_LETTERS.items() if letter == ch
             and (many_digits or not first or name not in lexicon.COMMON_WORD_LETTERS)]
    options = sorted({re.escape(ch), *(re.escape(n) for n in names)}, key=len, reverse=True)
    return "(?:" + "|".join(options) + ")"


@lru_cache(maxsize=512)
def owned_pattern(asset_id: str) -> re.Pattern[str] | None:
    """Every way ``asset_id`` is said, as one pattern over normalised text (memoised)."""
    runs = _runs(asset_id)
    if not runs or not any(r.isdigit() for r in runs):
        return None
    many = len(id_digits(asset_id)) >= 2
    parts: list[str] = []
    for index, run in enumerate(runs):
        if run.isdigit():
            parts.append(r"\s?".join(_DIGIT_SAID.get(d, d) for d in run))
            continue
        spoken = r"[\s-]?".join(_letter(ch, index == 0 and i == 0, many)
                                for i, ch in enumerate(run))
        if not many and run in lexicon.NOT_ASSET_PREFIXES:
            spoken = re.escape(run) + r"(?=-|\d)"  # "i-5", never "i 5"
        parts.append(spoken)
    tail = NOT_TIME if runs[-1].isdigit() else ""
    return re.compile(rf"(?<![\w']){_SEP.join(parts)}(?![\w]){tail}")


def _confusable(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) != len(b):
        return False
    return all(x == y or any(x in g and y in g for g in lexicon.CONFUSABLE_LETTERS)
               for x, y in zip(a, b, strict=True))


def confusable_ids(heard: str, assets: tuple[Asset, ...]) -> tuple[str, ...]:
    """The caller's ids a heard id may be a mishearing of: same digits, confusable letters."""
    letters, digits = _letters(heard), id_digits(heard)
    return tuple(a.id for a in assets if id_digits(a.id) == digits and _letters(a.id) != letters
                 and _confusable(_letters(a.id), letters))


def _heard_letters(text: str, match: re.Match[str]) -> list[tuple[str, int, bool]]:
    """Readings of an id-like token's letters, longest first: (letters, start, article).

    Letters said one by one before it belong to it ("a p 12", "ay p 12" are AP-12); a first
    "a" or "i" may also be an article ("a b 12" may be "a B-12"), which ``article`` flags.
    """
    letters, start = match.group("letters"), match.start()
    readings = [(letters, start, False)]
    if len(letters) != 1 or "-" in match.group("sep"):
        return readings
    before = text[:start]
    while len(letters) < 3:
        prior = re.search(r"(?<![\w'])([a-z]+) $", before)
        if prior is None:
            break
        word = prior.group(1)
        if len(word) == 1:
            letter = word
        elif word not in lexicon.COMMON_WORD_LETTERS:
            letter = lexicon.SPOKEN_LETTERS.get(word)
        else:
            letter = None
        if letter is None:
            break
        letters, start, before = letter + letters, prior.start(1), before[:prior.start(1)]
        readings.insert(0, (letters, start, word in ("a", "i")))
    return readings


def heard_id(text: str, match: re.Match[str], assets: tuple[Asset, ...]
             ) -> tuple[str, int, tuple[str, ...]] | None:
    """An id-like token that is none of the caller's: (as heard, start, confusable ids)."""
    letters, sep, digits = match.group("letters"), match.group("sep"), match.group("digits")
    if letters in NOT_ID_LETTERS:
        return None
    if sep == " " and len(digits) == 1:
        return None  # "c 7": a letter and a number, unless the caller owns such an id
    # "av 12" is heard as an id only when it sounds like one of the caller's; "fri 10" never.
    words_and_number = sep == " " and len(letters) > 1
    readings = _heard_letters(text, match)
    if any(r[0] in lexicon.BOOKING_REF_PREFIXES for r in readings):
        return None  # "b k 2077" is a booking reference
    readings = [r for r in readings if r[0] not in NOT_ID_LETTERS]
    if not readings:
        return None
    for reading, begin, _ in readings:
        near = confusable_ids(f"{reading}-{digits}", assets)
        if near:
            return f"{reading.upper()}-{digits}", begin, near
    if words_and_number:
        return None
    # Confusable with none: the longest reading that does not start with an article.
    reading, begin, _ = next((r for r in readings if not r[2]), readings[-1])
    return f"{reading.upper()}-{digits}", begin, ()
