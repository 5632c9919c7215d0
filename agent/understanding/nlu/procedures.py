"""Matching spoken words to the registry's procedures (part of the rule proposer).

Titles, aliases and ids of ``context.procedures``. Exact phrase first; then a fuzzy match that
is only trusted when it is safe: a word window scoring >= 80 (rapidfuzz ratio) that shares a
whole word with the phrase, and no other procedure within 3 points. "male gasket" finds "valve
gasket"; two equally plausible procedures come back as candidates. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from agent.core.ports import ProcedureInfo

_FUZZY_MIN = 80.0
_FUZZY_MARGIN = 3.0


@dataclass(frozen=True, slots=True)
class ProcedureMatch:
    text: str
    info: ProcedureInfo | None  # None when ambiguous
    score: float
    candidates: tuple[ProcedureInfo, ...] = ()


def procedure_phrases(info: ProcedureInfo) -> tuple[str, ...]:
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
        best = max((_score(p, text, words) for p in procedure_phrases(info)), default=(0.0, ""))
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
