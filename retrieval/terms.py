"""One tokeniser for both sides of the index.

The FTS5 table indexes the *output* of :func:`terms` (lower-cased, stop words removed, stemmed
with the Snowball stemmer of the passage's language) with the plain ``unicode61`` tokenizer,
and queries are built with the same function. So the words FTS5 matches are exactly the words
the Python BM25 counts: no second tokenizer whose stemming could disagree with the scores.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache, lru_cache

import snowballstemmer

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

# Function words that would make an OR-combined query match nearly every passage.
STOP_WORDS = frozenset("""
a an and are as at be been but by can could did do does for from had has have how i if in into
is it its me my of on or our please should so than that the their them then there these they
this to was we were what when where which who will with would you your yes hi hello okay ok
about tell know need want get got just also any some
der die das und ist ein eine einen für mit von zu den dem des im ich wie was
""".split())

_ALGORITHMS = {"en": "english", "de": "german", "fr": "french", "es": "spanish",
               "it": "italian", "nl": "dutch", "pt": "portuguese", "sv": "swedish"}


@cache
def _stemmer(language: str):
    name = _ALGORITHMS.get(language.split("-")[0].lower())
    return snowballstemmer.stemmer(name) if name else None


def terms(text: str, language: str = "en") -> list[str]:
    """The index terms of ``text`` in order (repeats kept: they are the term frequency).

    "returned", "returns" and "return" meet; "unopened" and "opened" stay apart, which does
    not matter because opened/unopened is decided by a ``when`` filter, never by words.
    """
    lang = language.split("-")[0].lower()
    return [_stem(lang, w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


@lru_cache(maxsize=200_000)
def _stem(language: str, word: str) -> str:
    # The Snowball stemmers are pure Python; a vocabulary is small, so memoise per word.
    stemmer = _stemmer(language)
    return stemmer.stemWord(word) if stemmer else word


def frequencies(text: str, language: str = "en") -> Counter[str]:
    return Counter(terms(text, language))


def match_expression(query_terms: list[str] | tuple[str, ...]) -> str | None:
    """An FTS5 MATCH string that ORs the quoted terms; None when there is nothing to match.

    Every term is wrapped in double quotes (inner quotes doubled), so caller words such as
    ``NOT``, ``NEAR`` or ``col:`` are plain strings, never FTS5 syntax. OR, not FTS5's implicit
    AND: a caller's phrasing rarely contains every word of the passage.
    """
    unique = sorted(set(query_terms))
    if not unique:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)
