"""The query snapshot: what retrieval is asked, built only from accepted fields.

A :class:`QuerySnapshot` is immutable and deterministic: the same accepted fields (and the same
caller question) always give the same snapshot and the same :attr:`QuerySnapshot.key`. The
human-readable ``text`` (what BM25 ranks with) is kept apart from ``filters`` (accepted fields
that section ``when`` conditions must equal). Only fields in :data:`QUERY_FIELDS` ever enter a
snapshot; names, account ids, phone numbers, e-mail addresses, site addresses and asset ids are
scrubbed from the text, because query text reaches logs, traces and cache keys.

A proposed rewrite (say, from a language model) is an inspectable proposal, not a new source of
truth: :func:`validate_rewrite` rejects one that contradicts an accepted field, asserts a value
that was never accepted, drops or changes a trusted filter, adds an untrusted one, or carries
identifying data.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from agent.core.caller import CallerProfile
from agent.core.fields import FieldStatus
from agent.core.gate import Stamp
from agent.core.ledger import LedgerSnapshot
from agent.core.names import FAMILY, ITEM_CATEGORY, OPENED, PROCEDURE
from agent.core.ports import RetrievalRequest, ScopeToken
from retrieval.terms import terms

TOPIC_FIELDS = (FAMILY, PROCEDURE, ITEM_CATEGORY)  # their values become query words
FILTER_FIELDS = (OPENED,)  # their values become hard filters (and words)
QUERY_FIELDS = TOPIC_FIELDS + FILTER_FIELDS  # nothing else ever reaches a query

# How each filter value is said, and how a text asserts it. Negated forms are read first, so
# "did not open" asserts opened=no even though it contains "open".
FILTER_WORDS = {(OPENED, "yes"): "opened", (OPENED, "no"): "unopened"}
_ASSERTIONS: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    OPENED: (
        ("no", re.compile(r"\b(?:not|never|n't|didn't|haven't|hasn't)\s+(?:been\s+|yet\s+)?"
                          r"(?:open(?:ed)?|used)\b|\b(?:unopened|unused|sealed|still in "
                          r"(?:the )?box)\b", re.I)),
        ("yes", re.compile(r"\b(?:opened|open|used|unsealed)\b", re.I)),
    ),
}

_SCRUB = (
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),  # e-mail
    re.compile(r"\+?\d[\d\s().-]{5,}\d"),  # phone numbers and long digit runs
    re.compile(r"\b\d{1,5}\s+(?:[A-Za-zÄÖÜäöüß]+\s+){1,3}(?:street|st|road|rd|avenue|ave|"
               r"lane|ln|way|drive|dr|boulevard|blvd|close|court|ct|strasse|straße|weg|"
               r"platz|gasse)\b\.?", re.I),  # site addresses
    re.compile(r"\b(?=[\w-]*[A-Za-z])(?=(?:[\w-]*\d){3})[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*\b"),
    re.compile(r"\b(?:account|acct|customer|order|ref(?:erence)?)\s*(?:no\.?|number|#|id)?"
               r"\s*[:#]?\s*\w*\d\w*", re.I),  # "account 77A", "ref #12"
)


@dataclass(frozen=True, slots=True)
class QuerySnapshot:
    """An immutable retrieval question. Build it with :func:`build_query`."""

    text: str
    filters: tuple[tuple[str, str], ...]
    expansions: tuple[str, ...] = ()

    @property
    def search_text(self) -> str:
        return " ".join((self.text, *self.expansions)).strip()

    @property
    def key(self) -> str:
        return query_key(self.search_text, self.filters)

    def terms(self, language: str = "en") -> tuple[str, ...]:
        return tuple(terms(self.search_text, language))

    def expanded(self, words: Iterable[str], *, private: Iterable[str] = ()) -> QuerySnapshot:
        """A new snapshot that also searches ``words`` (e.g. procedure aliases), scrubbed."""
        extra = tuple(w for w in (scrub(str(x), private) for x in words) if w)
        return replace(self, expansions=tuple(dict.fromkeys(self.expansions + extra)))

    def request(self, stamp: Stamp, token: ScopeToken, limit: int = 3) -> RetrievalRequest:
        """The port request carrying this snapshot; the stamp should carry the token's key."""
        return RetrievalRequest(stamp, token, self.search_text, self.filters, limit)


def query_key(text: str, filters: Iterable[tuple[str, str]]) -> str:
    """The cache/identity key of a query: its exact text and sorted hard filters."""
    canonical = json.dumps([text, sorted(filters)], separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def accepted_values(fields: LedgerSnapshot | Mapping[str, str]) -> dict[str, str]:
    """The present values of ``fields``; a ledger's unresolved or cleared fields are absent."""
    if isinstance(fields, LedgerSnapshot):
        return {name: record.value for name, record in fields.fields
                if record.value is not None and record.status is not FieldStatus.UNRESOLVED}
    return {str(k): str(v) for k, v in fields.items() if v}


def build_query(fields: LedgerSnapshot | Mapping[str, str], question: str = "", *,
                private: Iterable[str] = ()) -> QuerySnapshot:
    """The snapshot for the accepted ``fields`` and (optionally) the caller's ``question``.

    Pure and deterministic. Only :data:`QUERY_FIELDS` are read. ``private`` lists values to
    strip from the question besides the patterns (see :func:`private_values`).
    """
    values = accepted_values(fields)
    words = [scrub(question, private)] if question else []
    words += [values[f].replace("-", " ") for f in TOPIC_FIELDS if f in values]
    filters = tuple(sorted((f, values[f]) for f in FILTER_FIELDS if f in values))
    words += [FILTER_WORDS[pair] for pair in filters if pair in FILTER_WORDS]
    return QuerySnapshot(" ".join(w for w in words if w), filters)


def private_values(caller: CallerProfile) -> tuple[str, ...]:
    """Values of the authenticated caller that must never appear in query text."""
    values = [caller.name, caller.subject, caller.account, caller.tenant]
    values += caller.name.split()
    for asset in caller.assets:
        values += [asset.id, asset.site]
    return tuple(v for v in values if v and len(v) >= 3)


def scrub(text: str, private: Iterable[str] = ()) -> str:
    """``text`` without identifying data (e-mail and phone patterns, private values, the rest).

    E-mail and phone patterns run first, so a private name inside an address cannot break the
    address apart and leave its domain behind.
    """
    for pattern in _SCRUB[:2]:
        text = pattern.sub(" ", text)
    for value in sorted(set(private), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text, flags=re.I)
    for pattern in _SCRUB[2:]:
        text = pattern.sub(" ", text)
    text = re.sub(r"\s+([,.;:?!])", r"\1", " ".join(text.split()))
    return re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text).strip(" ,;:")


def identifying(text: str, private: Iterable[str] = ()) -> bool:
    """True when ``text`` holds a private value or matches an identifying-data pattern."""
    lowered = text.lower()
    return any(re.search(rf"(?<!\w){re.escape(v.lower())}(?!\w)", lowered) for v in private
               if v) or any(p.search(text) for p in _SCRUB)


def asserted(text: str) -> dict[str, set[str]]:
    """Which filter values ``text`` asserts, e.g. {"opened": {"no"}} for "I did not open it"."""
    found: dict[str, set[str]] = {}
    for name, readings in _ASSERTIONS.items():
        rest = text
        for value, pattern in readings:
            if pattern.search(rest):
                found.setdefault(name, set()).add(value)
                rest = pattern.sub(" ", rest)
    return found


class RewriteVerdict(StrEnum):
    ACCEPTED = "accepted"  # consistent with every accepted field and trusted filter
    CONTRADICTS_FIELD = "contradicts_field"  # asserts a value other than the accepted one
    UNACCEPTED_VALUE = "unaccepted_value"  # asserts a filter value the caller never gave
    DROPS_FILTER = "drops_filter"  # a trusted filter is missing or changed
    ADDS_FILTER = "adds_filter"  # a filter that no accepted field supports
    IDENTIFYING_DATA = "identifying_data"  # names, numbers or addresses in the text


@dataclass(frozen=True, slots=True)
class RewriteCheck:
    verdict: RewriteVerdict
    reason: str
    snapshot: QuerySnapshot | None = None  # the accepted rewrite; None when rejected


def validate_rewrite(base: QuerySnapshot, text: str,
                     filters: Iterable[tuple[str, str]] | None = None, *,
                     private: Iterable[str] = ()) -> RewriteCheck:
    """Check a proposed rewrite of ``base`` against its trusted filters. Pure.

    ``filters=None`` means the proposal keeps the base filters. The accepted rewrite keeps the
    base filters object, so a rewrite can change wording but never eligibility.
    """
    trusted = dict(base.filters)
    if filters is not None:
        proposed = dict(filters)
        for name, value in trusted.items():
            if proposed.get(name) != value:
                return RewriteCheck(RewriteVerdict.DROPS_FILTER,
                                    f"the rewrite drops or changes the trusted filter {name}")
        extra = sorted(set(proposed) - set(trusted))
        if extra:
            return RewriteCheck(RewriteVerdict.ADDS_FILTER,
                                f"the rewrite adds filters no accepted field supports: {extra}")
    for name, values in sorted(asserted(text).items()):
        if name not in trusted:
            return RewriteCheck(RewriteVerdict.UNACCEPTED_VALUE,
                                f"the rewrite asserts {name}, which is not an accepted field")
        if values != {trusted[name]}:
            return RewriteCheck(RewriteVerdict.CONTRADICTS_FIELD,
                                f"the rewrite contradicts the accepted field {name}")
    if identifying(text, private):
        return RewriteCheck(RewriteVerdict.IDENTIFYING_DATA,
                            "the rewrite carries identifying data")
    return RewriteCheck(RewriteVerdict.ACCEPTED, "consistent with the accepted fields",
                        replace(base, text=" ".join(text.split())))
