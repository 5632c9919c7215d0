"""The signals that make a turn a correction, each found on its own.

- negated stretches ("not Thursday at 2", "instead of Wednesday") whose values are withdrawn;
- replace markers ("actually", "make that", "I meant", "sorry", "X instead", a leading "no");
- cleared constraints ("any day this week is fine");
- referents ("the other pump", "my other booking"), resolved against the caller's own assets
  and bookings only;
- authority boundaries (another account, tenant or person, or a request to widen the search),
  which must never become slots.

Pure functions over normalised text and the proposal context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.nlu import lexicon
from agent.proposals import (
    ASSET,
    BOOKING_REF,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
    ProposalContext,
)

_NEGATION = re.compile(lexicon.NEGATION_SPLIT)
# A negated stretch ends at a clause break, a contrast, or the next negation.
_STRETCH_END = re.compile(r",|\bbut\b|\band\b|\bso\b|\bplease\b|\binstead\b|\bnot\b|$")
_NEGATION_AFTER = re.compile(rf"(?:^|, )(?P<s>[^,]+?) (?:{lexicon.NEGATION_AFTER})\b")
_REPLACE = re.compile(rf"\b(?:{lexicon.REPLACE_MARKERS})\b(?! of\b)")
_LEADING_NO = re.compile(r"^(?:no|nope|nah|wrong)\b,?")
_CLEAR = {field: re.compile(rf"\b(?:{pattern})\b")
          for field, pattern in lexicon.CLEAR_PATTERNS.items()}
_REFERENT_ASSET = re.compile(rf"\b{lexicon.REFERENT_ASSET}\b")
_REFERENT_BOOKING = re.compile(rf"\b{lexicon.REFERENT_BOOKING}\b")
_AUTHORITY = {kind: re.compile(rf"\b(?:{pattern})") for kind, pattern in lexicon.AUTHORITY.items()}


@dataclass(frozen=True, slots=True)
class Stretch:
    text: str
    start: int
    end: int  # includes the negation word itself from ``start``


def negated_stretches(text: str) -> tuple[Stretch, ...]:
    """Negated stretches: after "not", "instead of", "can't do"; before "doesn't work" (pure)."""
    out = []
    for match in _NEGATION.finditer(text):
        tail = _STRETCH_END.search(text, match.end())
        end = tail.start() if tail else len(text)
        if end > match.end():
            out.append(Stretch(text[match.end():end].strip(), match.start(), end))
    for match in _NEGATION_AFTER.finditer(text):
        out.append(Stretch(match.group("s"), match.start("s"), match.end()))
    return tuple(out)


def has_replace_marker(text: str) -> bool:
    return bool(_REPLACE.search(text) or _LEADING_NO.match(text))


def cleared_fields(text: str) -> tuple[str, ...]:
    """Constraints the caller removed ("any day is fine", "any time is fine")."""
    out: list[str] = []
    if _CLEAR[VISIT_DATE].search(text):
        out.append(VISIT_DATE)
    if _CLEAR[VISIT_WINDOW].search(text):
        out.extend((VISIT_WINDOW, VISIT_TIME))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Referent:
    field: str  # ASSET or BOOKING_REF
    value: str | None  # None when the words fit several of the caller's own
    candidates: tuple[str, ...]
    text: str


def find_referent(text: str, context: ProposalContext) -> Referent | None:
    """ "the other pump" / "my other booking": the caller's one other asset or booking."""
    match = _REFERENT_BOOKING.search(text)
    if match:
        current = context.ledger.value(BOOKING_REF)
        others = tuple(ref for ref, _, _ in context.bookings if ref != current)
        return _referent(BOOKING_REF, others, match.group(0))
    match = _REFERENT_ASSET.search(text)
    if match:
        current = context.ledger.value(ASSET)
        others = tuple(a.id for a in context.caller.assets if a.id != current)
        return _referent(ASSET, others, match.group(0))
    return None


def _referent(field: str, others: tuple[str, ...], text: str) -> Referent:
    if len(others) == 1:
        return Referent(field, others[0], (), text)
    # None other (nothing to point at) or several: the controller asks which one.
    return Referent(field, None, others if len(others) > 1 else (), text)


def _same(a: str, b: str) -> bool:
    return re.sub(r"[\s-]", "", a.lower()) == re.sub(r"[\s-]", "", b.lower())


def authority_boundary(text: str, context: ProposalContext,
                       foreign_assets: tuple[str, ...]) -> str | None:
    """What boundary the turn tries to cross, or None. Never consulted for slot values."""
    caller = context.caller
    match = _AUTHORITY["other account"].search(text)
    if match:
        account = match.group("account") or match.group("account2")
        if account and not _same(account, caller.account) and account not in lexicon.NOT_AN_ORG:
            return f"account {account.upper().replace(' ', '-')}"
    match = _AUTHORITY["other tenant"].search(text)
    if match:
        org = match.group("org") or match.group("org2")
        if org is None:
            return "other tenant"
        if org not in lexicon.NOT_AN_ORG and not _same(org, caller.tenant) and \
                not _same(org, caller.subject) and org not in caller.name.lower().split():
            return f"tenant {org}"
    match = _AUTHORITY["other person"].search(text)
    if match:
        return f"another person's {match.group(0).split()[-1]}"
    match = _AUTHORITY["filter override"].search(text)
    if match:
        return f"scope override ({match.group(0)})"
    match = _AUTHORITY["identity claim"].search(text)
    if match:
        return f"identity claim ({match.group(0)})"
    if foreign_assets:
        return f"asset {foreign_assets[0]} is not on this account"
    return None
