"""Matching spoken words to the caller's own assets and to the registry's procedures.

Assets: the vocabulary is the caller's account, not a fixed shape. Every id the caller owns
(``context.caller.assets``: "P-200", "C-7", "AB-12", "K9"...) is compiled into a pattern that
accepts the ways people and recognisers say it: with or without a dash or space ("c 7", "ab12"),
letters spoken ("see seven", "ay bee twelve", "papa two hundred"), digits as words or one by
one ("p 2 0 0", "two oh oh"; :mod:`agent.understanding.nlu.normalise` has already turned words
into digits).
A one-digit id is only ever matched with its letters said, so "at 7", "the 7th" or "7 Dock
Street" never name C-7. A kind noun followed by digits ("pump 200", "the compressor 7") names
the asset of that kind with those digits.

An id-like token that is none of the caller's ("V-200", "Z-999") is *heard*, not refused: its
candidates are the owned ids it is confusable with (same digits, letters a recogniser mixes
up, :data:`lexicon.CONFUSABLE_LETTERS`), or every owned id when none is. The agent asks ("I
don't see V-200 on your account. Did you mean P-200?"). Only the caller's assets are ever
searched: nothing of another tenant is matched or named.

With no id said, the asset's kind names it ("the compressor", "the gearbox"), and a generic
noun ("the unit", "the machine") names any of the caller's assets: one match is that asset,
several are candidates.

Procedures: titles, aliases and ids of ``context.procedures``. Exact phrase first; then a fuzzy
match that is only trusted when it is safe: a word window scoring >= 80 (rapidfuzz ratio) that
shares a whole word with the phrase, and no other procedure within 3 points. "male gasket"
finds "valve gasket"; two equally plausible procedures come back as candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from agent.core.caller import Asset
from agent.core.ports import ProcedureInfo
from agent.understanding.nlu import lexicon

_RUNS = re.compile(r"[a-z]+|\d+")
# Between the letters and the digits of an id: nothing, a space, a dash, or "dash" said.
_SEP = r"(?:\s*(?:-|\bdash\b|\bhyphen\b)\s*|\s?)"
# A digit inside an id the caller owns, as a recogniser may write it ("p one oh oh", "kay nein").
_DIGIT_SAID = {"0": r"(?:0|oh|o)", "1": r"(?:1|won)", "2": r"(?:2|to|too)", "4": r"(?:4|for)",
               "8": r"(?:8|ate)", "9": r"(?:9|nein)"}
# Digits that are a time or a count, not the end of an id: "c 7 pm", "g 7:30", "see 25 units".
_NOT_TIME = (r"(?!\s*(?:am|pm|oclock|hours?)\b)(?![:.]\d)"
             rf"(?! (?:{lexicon.UNIT_NOUNS}|days?|weeks?|months?|minutes?)\b)")
# An id-like token in normalised text: letters, then digits ("v-200", "v200", "v 200", "ab-12").
_ID_LIKE = re.compile(
    r"(?<![\w'])(?P<letters>[a-z]{1,3})(?P<sep>\s?-\s?|\s|)(?P<digits>\d{1,5})(?![\w])"
    + _NOT_TIME)
_WORD_BEFORE = re.compile(r"([\w'-]+)\s*$")
_CONFIG_BEFORE = re.compile(rf"\b(?:{lexicon.CONFIGURATION_WORDS}) (?:is )?$")
_CONFIG_AFTER = re.compile(rf" (?:{lexicon.CONFIGURATION_WORDS})\b")
_NOT_ID_LETTERS = (lexicon.NOT_ASSET_PREFIXES | lexicon.BOOKING_REF_PREFIXES
                   | frozenset(lexicon.WEEKDAYS) | frozenset(lexicon.MONTHS.split("|")))
_GENERIC = frozenset(lexicon.GENERIC_ASSET_NOUNS)
# Nouns that may stand before an asset's digits even when the account does not record a kind
# ("for pump number 200").
_NUMBERED_NOUNS = frozenset(("pump", "compressor", "model", *lexicon.GENERIC_ASSET_NOUNS))
_FUZZY_MIN = 80.0
_FUZZY_MARGIN = 3.0


@dataclass(frozen=True, slots=True)
class AssetMention:
    text: str
    start: int
    end: int
    asset_id: str | None  # one of the caller's assets, or None
    foreign: str | None = None  # an id said that is none of the caller's, as heard: "V-200"
    confidence: float = 1.0
    # The caller's ids it may mean when ``asset_id`` is None: the ids a heard id is confusable
    # with (else all of them), or the assets of the kind named ("the pump": both pumps).
    candidates: tuple[str, ...] = ()
    by_kind: bool = False  # named by a noun ("the compressor"), not by its id


def _runs(asset_id: str) -> list[str]:
    return _RUNS.findall(asset_id.lower())


def _digits(asset_id: str) -> str:
    return "".join(r for r in _runs(asset_id) if r.isdigit())


def _letters(asset_id: str) -> str:
    return "".join(r for r in _runs(asset_id) if not r.isdigit())


def _letter(ch: str, first: bool, many_digits: bool) -> str:
    names = [name for name, letter in lexicon.SPOKEN_LETTERS.items() if letter == ch
             and (many_digits or not first or name not in lexicon.COMMON_WORD_LETTERS)]
    options = sorted({re.escape(ch), *(re.escape(n) for n in names)}, key=len, reverse=True)
    return "(?:" + "|".join(options) + ")"


@lru_cache(maxsize=512)
def _owned_pattern(asset_id: str) -> re.Pattern[str] | None:
    """Every way ``asset_id`` is said, as one pattern over normalised text (memoised)."""
    runs = _runs(asset_id)
    if not runs or not any(r.isdigit() for r in runs):
        return None
    many = len(_digits(asset_id)) >= 2
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
    tail = _NOT_TIME if runs[-1].isdigit() else ""
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
    letters, digits = _letters(heard), _digits(heard)
    return tuple(a.id for a in assets if _digits(a.id) == digits and _letters(a.id) != letters
                 and _confusable(_letters(a.id), letters))


def _free(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in spans)


def _nouns(assets: tuple[Asset, ...]) -> dict[str, tuple[str, ...]]:
    """Each noun that names assets of this account, with the ids it names."""
    out: dict[str, list[str]] = {noun: [a.id for a in assets] for noun in _GENERIC}
    for asset in assets:
        kind = asset.noun
        if kind in _GENERIC:
            continue
        for noun in {kind, kind.split()[-1]}:
            out.setdefault(noun, []).append(asset.id)
    return {noun: tuple(dict.fromkeys(ids)) for noun, ids in out.items()}


def _word_before(text: str, start: int) -> str:
    match = _WORD_BEFORE.search(text[:start])
    return match.group(1) if match else ""


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


def _heard(text: str, match: re.Match[str], assets: tuple[Asset, ...]
           ) -> tuple[str, int, tuple[str, ...]] | None:
    """An id-like token that is none of the caller's: (as heard, start, confusable ids)."""
    letters, sep, digits = match.group("letters"), match.group("sep"), match.group("digits")
    if letters in _NOT_ID_LETTERS:
        return None
    if sep == " " and len(digits) == 1:
        return None  # "c 7": a letter and a number, unless the caller owns such an id
    # "av 12" is heard as an id only when it sounds like one of the caller's; "fri 10" never.
    words_and_number = sep == " " and len(letters) > 1
    readings = _heard_letters(text, match)
    if any(r[0] in lexicon.BOOKING_REF_PREFIXES for r in readings):
        return None  # "b k 2077" is a booking reference
    readings = [r for r in readings if r[0] not in _NOT_ID_LETTERS]
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


def find_assets(text: str, assets: tuple[Asset, ...],
                procedures: tuple[ProcedureInfo, ...] = ()) -> tuple[AssetMention, ...]:
    """Asset mentions in normalised ``text``, matched only against ``assets`` (pure)."""
    mentions: list[AssetMention] = []
    taken: list[tuple[int, int]] = []

    def add(mention: AssetMention) -> None:
        mentions.append(mention)
        taken.append((mention.start, mention.end))

    # 1. The caller's own ids, however they were said; the longest reading wins.
    owned = []
    for asset in assets:
        pattern = _owned_pattern(asset.id)
        if pattern is not None:
            owned += [(m.start(), m.end(), asset.id) for m in pattern.finditer(text)]
    for start, end, asset_id in sorted(owned, key=lambda o: (o[0] - o[1], o[0])):
        if _free(taken, start, end):
            add(AssetMention(text[start:end], start, end, asset_id))

    nouns = _nouns(assets)
    numbered = "|".join(sorted(map(re.escape, set(nouns) | _NUMBERED_NOUNS), key=len,
                               reverse=True))
    # 2. A noun and the digits of an id: "pump 200", "the compressor number 7".
    for match in re.finditer(rf"(?<![\w'])(?P<noun>{numbered})s? (?:number |no |#)?"
                             rf"(?P<digits>\d{{1,5}})(?![\w]){_NOT_TIME}", text):
        if not _free(taken, match.start(), match.end()):
            continue
        noun, digits = match.group("noun"), match.group("digits")
        hits = [a for a in assets if _digits(a.id) == digits]
        kinds = [a for a in hits if a.id in nouns.get(noun, ())]
        hits = kinds or ([] if len(digits) == 1 and noun not in nouns else hits)
        if len(hits) == 1:
            add(AssetMention(match.group(0), match.start(), match.end(), hits[0].id,
                             confidence=0.9))
        elif hits:
            add(AssetMention(match.group(0), match.start(), match.end(), None,
                             candidates=tuple(a.id for a in hits)))

    # 3. Ids said that are none of the caller's: a question, never a match. A configuration
    # of the caller's assets ("C2") or a token named as one ("configuration C4") is no id.
    configurations = {re.sub(r"[\s-]", "", a.configuration.lower()) for a in assets}
    for match in _ID_LIKE.finditer(text):
        if not _free(taken, match.start(), match.end()):
            continue
        if re.sub(r"[\s-]", "", match.group(0)) in configurations \
                or _CONFIG_BEFORE.search(text[:match.start()]) \
                or _CONFIG_AFTER.match(text, match.end()):
            continue
        heard = _heard(text, match, assets)
        if heard is None:
            continue
        said, begin, near = heard
        noun = _word_before(text, begin)
        corroborated = [i for i in near if i in nouns.get(noun, ()) and noun not in _GENERIC]
        if len(corroborated) == 1:
            # "pump B-100": the kind said and one sound apart from the caller's only such id.
            add(AssetMention(text[begin:match.end()], begin, match.end(), corroborated[0],
                             confidence=0.8))
            continue
        add(AssetMention(text[begin:match.end()], begin, match.end(), None, foreign=said,
                         candidates=near or tuple(a.id for a in assets)))

    # 4. No id said: the asset's kind or a generic noun names it.
    if not mentions:
        mentions = list(_by_kind(text, assets, nouns, procedures))
    return tuple(sorted(mentions, key=lambda m: m.start))


def _places(asset: Asset) -> tuple[str, ...]:
    """The words of an asset's site a caller names it by: "harbour road", "rotterdam"."""
    out = []
    for part in asset.site.lower().split(","):
        words = re.findall(r"[a-z][\w'-]*", part)
        if words:
            out.append(" ".join(words))
    return tuple(out)


def _by_kind(text: str, assets: tuple[Asset, ...], nouns: dict[str, tuple[str, ...]],
             procedures: tuple[ProcedureInfo, ...]) -> list[AssetMention]:
    """ "the compressor", "the unit", "the Rotterdam pump", "the one in Utrecht": the one
    asset of that kind (at that site), or candidates."""
    if not nouns:
        return []
    phrases = [p for info in procedures
               for p in (*_phrases(info), info.family_title.lower(), info.family.replace("-", " "))]
    places = {place: tuple(a.id for a in assets if place in _places(a))
              for asset in assets for place in _places(asset)}
    place = "|".join(sorted(map(re.escape, places), key=len, reverse=True)) or "(?!)"
    noun = "|".join(sorted(map(re.escape, nouns), key=len, reverse=True))
    out = []
    for match in re.finditer(
            rf"(?<![\w'-])(?:(?P<pre>{place}) )?(?P<noun>{noun}|one|1)(?:'s)?(?![\w'-])"
            rf"(?: (?:in|at|on|from|near|over in|down at|up in|by) (?:the )?(?P<post>{place})\b)?",
            text):
        before = _word_before(text, match.start())
        said = match.group("noun")
        where = match.group("pre") or match.group("post")
        if before in lexicon.NOT_ONE_ASSET or before.isdigit():
            continue
        if said in ("one", "1") and (where is None or before not in ("the", "that", "this")):
            continue  # "the one in Utrecht" names an asset; "one" alone does not
        if any(text.startswith(p, match.start("noun")) and len(p) > len(said) for p in phrases):
            continue  # "the pump seal": a procedure's name, not the pump
        ids = nouns.get(said, tuple(a.id for a in assets))
        if where is not None:
            ids = tuple(i for i in ids if i in places[where]) or ids
        if len(ids) == 1:
            out.append(AssetMention(match.group(0), match.start(), match.end(), ids[0],
                                    by_kind=True))
        elif ids:
            out.append(AssetMention(match.group(0), match.start(), match.end(), None,
                                    candidates=ids, by_kind=True))
    return out


@dataclass(frozen=True, slots=True)
class ProcedureMatch:
    text: str
    info: ProcedureInfo | None  # None when ambiguous
    score: float
    candidates: tuple[ProcedureInfo, ...] = ()


def _phrases(info: ProcedureInfo) -> tuple[str, ...]:
    words = (info.title, info.procedure.replace("-", " "), *info.aliases)
    return tuple(dict.fromkeys(w.lower().strip() for w in words if w.strip()))


def _fuzzy(phrase: str, words: list[str]) -> tuple[float, str]:
    size = len(phrase.split())
    phrase_words = set(phrase.split())
    best, best_text = 0.0, ""
    for width in {max(1, size - 1), size, size + 1}:
        for i in range(0, max(1, len(words) - width + 1)):
            window = words[i : i + width]
            if size > 1 and not phrase_words.intersection(w for w in window if len(w) >= 3):
                continue
            score = fuzz.ratio(" ".join(window), phrase)
            if score > best:
                best, best_text = score, " ".join(window)
    return best, best_text


def _score(phrase: str, text: str, words: list[str]) -> tuple[float, str]:
    if re.search(rf"\b{re.escape(phrase)}\b", text):
        return 100.0, phrase
    phrase_words = phrase.split()
    if len(phrase_words) > 1 and all(w in words for w in phrase_words):
        return 95.0, phrase  # every word said, in another order ("torque for the seal")
    if len(phrase) < 6:
        return 0.0, ""
    score, matched = _fuzzy(phrase, words)
    needed = _FUZZY_MIN if " " in phrase else 88.0
    return (score, matched) if score >= needed else (0.0, "")


def match_procedure(text: str, procedures: tuple[ProcedureInfo, ...]) -> ProcedureMatch | None:
    """The procedure named in normalised ``text``, if one is named safely (pure)."""
    words = re.findall(r"[a-z0-9']+", text)
    scored: list[tuple[float, str, ProcedureInfo]] = []
    for info in procedures:
        best = max((_score(p, text, words) for p in _phrases(info)), default=(0.0, ""))
        if best[0] > 0:
            scored.append((best[0], best[1], info))
    if not scored:
        return None
    scored.sort(key=lambda item: -item[0])
    top_score, top_text, top = scored[0]
    rivals = tuple(info for score, _, info in scored[1:]
                   if top_score - score < _FUZZY_MARGIN and info.procedure != top.procedure)
    if rivals:
        return ProcedureMatch(top_text, None, top_score, (top, *rivals))
    return ProcedureMatch(top_text, top, top_score)
