"""Matching spoken words to the caller's own assets and to the registry's procedures.

Assets: a recogniser writes "P-200" as "p 200", "p200", "b-200" or "pee two hundred"
(normalised to "p 200"). We compare the letters and the digits separately: the same digits
with the same or an acoustically confusable letter match, and so does "pump 200" when exactly
one of the caller's assets carries those digits. Only ``context.caller.assets`` is ever searched:
an asset id the caller does not own is reported as *foreign* (an authority question for the
controller), never mapped to anything of another tenant.

Procedures: titles, aliases and ids of ``context.procedures``. Exact phrase first; then a fuzzy
match that is only trusted when it is safe: a word window scoring >= 80 (rapidfuzz ratio) that
shares a whole word with the phrase, and no other procedure within 3 points. "male gasket"
finds "valve gasket"; two equally plausible procedures come back as candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from agent.caller import Asset
from agent.nlu import lexicon
from agent.ports import ProcedureInfo

_ID_PARTS = re.compile(r"^([a-z]+)[\s-]?(\d+)$")
_TOKEN = re.compile(r"\b(?P<letters>[a-z]{1,3})(?P<sep>[\s-]?)(?P<digits>\d{2,5})\b")
_NOUN_NUMBER = re.compile(rf"\b(?:{lexicon.ASSET_NOUNS}) (?:number |no |#)?(?P<digits>\d{{2,5}})\b")
_FUZZY_MIN = 80.0
_FUZZY_MARGIN = 3.0


@dataclass(frozen=True, slots=True)
class AssetMention:
    text: str
    start: int
    end: int
    asset_id: str | None  # one of the caller's assets, or None
    foreign: str | None = None  # an id-like token that is not the caller's
    confidence: float = 1.0


def _parts(asset_id: str) -> tuple[str, str] | None:
    match = _ID_PARTS.match(asset_id.lower())
    return (match.group(1), match.group(2)) if match else None


def _confusable(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) != len(b):
        return False
    return all(x == y or any(x in g and y in g for g in lexicon.CONFUSABLE_LETTERS)
               for x, y in zip(a, b, strict=True))


def find_assets(text: str, assets: tuple[Asset, ...]) -> tuple[AssetMention, ...]:
    """Asset mentions in normalised ``text``, matched only against ``assets`` (pure)."""
    owned = [(asset.id, _parts(asset.id)) for asset in assets]
    mentions: list[AssetMention] = []
    for match in _TOKEN.finditer(text):
        letters, digits = match.group("letters"), match.group("digits")
        if letters in lexicon.NOT_ASSET_PREFIXES:
            continue
        exact = [aid for aid, p in owned if p == (letters, digits)]
        near = [aid for aid, p in owned if p and p[1] == digits and _confusable(p[0], letters)]
        if exact:
            mentions.append(AssetMention(match.group(0), match.start(), match.end(), exact[0]))
        elif len(near) == 1:
            mentions.append(AssetMention(match.group(0), match.start(), match.end(), near[0],
                                         confidence=0.8))
        elif len(letters) == 1 or match.group("sep") != " ":
            # Looks like an asset id ("x-900", "p 300") but is none of the caller's.
            foreign = f"{letters.upper()}-{digits}"
            mentions.append(AssetMention(match.group(0), match.start(), match.end(), None,
                                         foreign=foreign))
    for match in _NOUN_NUMBER.finditer(text):
        if any(m.start <= match.start("digits") < m.end for m in mentions):
            continue
        hits = [aid for aid, p in owned if p and p[1] == match.group("digits")]
        if len(hits) == 1:
            mentions.append(AssetMention(match.group(0), match.start(), match.end(), hits[0],
                                         confidence=0.9))
    return tuple(sorted(mentions, key=lambda m: m.start))


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
