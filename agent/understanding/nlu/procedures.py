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
# Words that name no thing: a question's words, verbs, pronouns, articles, hedges, fillers.
# An alias made of them alone ("how tight") names no part; it names its procedure only in a
# clause that names nothing else: "how tight should they be on P-100?" asks about the seal
# bolts of a registry whose only torque is theirs, "how tight are the flange bolts?" does not.
_NAMES_NOTHING = frozenset("""
    a an the this that these those it its it's they them their there there's here one ones
    i i'm i've i'd me my we we're we've we'd us our you you're your he him his she her
    how what what's which who when where why whether if so then also and or but to of in on
    at for from by with about into onto up down out off over again still just really exactly
    roughly about around actually now currently today days these anyway quick question please
    thanks cheers um uh er erm hmm oh ok okay right well yeah yes no not
    is are was were be been being am do does did doing done have has had having
    can could would will shall should must may might need needs needed want wants wanted
    supposed meant going gonna got get gets go goes set tell remind know knows recall
    say says said check again tight tighter tightly tighten tightened tightening torque
    torqued much many spec specs value setting settings figure number newton newtons metres
    meters nm
""".split())


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


def _names_nothing(phrase: str) -> bool:
    return all(word in _NAMES_NOTHING for word in phrase.split())


def _names_another_thing(phrase: str, text: str, own: set[str], known: frozenset[str]) -> bool:
    """Whether a clause that says ``phrase`` (an alias naming no part) names a thing that is
    none of its procedure's words (``own``) nor a word the call knows (``known``: the caller's
    sites and kinds of asset): "flange" in "how tight are the flange bolts on P-100?"."""
    for clause in re.split(r"[,.;:!?]| and | but ", text):
        if not re.search(rf"\b{re.escape(phrase)}\b", clause):
            continue
        for word in re.findall(r"[a-z][a-z']+", clause):
            if word not in _NAMES_NOTHING and word.rstrip("s") not in own and word not in own \
                    and word not in known:
                return True
    return False


def match_procedure(text: str, procedures: tuple[ProcedureInfo, ...],
                    known: frozenset[str] = frozenset()) -> ProcedureMatch | None:
    """The procedure named in normalised ``text``, if one is named safely (pure). ``known``:
    words the call knows that name no procedure (the caller's sites, kinds of asset)."""
    words = re.findall(r"[a-z0-9']+", text)
    scored: list[tuple[float, str, ProcedureInfo]] = []
    for info in procedures:
        phrases = procedure_phrases(info)
        own = {w.rstrip("s") for p in (*phrases, info.family_title) for w in p.split()}
        phrases = tuple(p for p in phrases if not _names_nothing(p)
                        or not _names_another_thing(p, text, own, known))
        best = max((_score(p, text, words) for p in phrases), default=(0.0, ""))
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
