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
from collections.abc import Sequence
from dataclasses import dataclass

from agent.core.names import ASSET, BOOKING_REF, SITE, UNITS, VISIT_DATE, VISIT_TIME, VISIT_WINDOW
from agent.understanding.nlu import (
    authority_words,
    catalog,
    correction_words,
    intents,
    lexicon,
)
from agent.understanding.proposals import Intent, ProposalContext, SlotValue

_NEGATION = re.compile(correction_words.NEGATION_SPLIT)
# A negated stretch ends at a clause break, a contrast, or the next negation.
_STRETCH_END = re.compile(r",|\bbut\b|\band\b|\bso\b|\bplease\b|\binstead\b|\bnot\b|$")
# ... or where the caller goes on to say what they want instead, punctuation or not: "no, not
# R's Day make it for Friday morning" (a recogniser's garbled "Thursday", no full stop), "rather
# than scrapping it could the engineer come monday instead", "rather than the morning actually
# how about Tuesday the 8th". Only after some words: "we can't
# make it on Wednesday" rules Wednesday out.
_REPLACEMENT_OPENS = re.compile(
    r"(?<=\w) (?=(?:make (?:it|that|this)|let'?s|let us|it should be|it'?ll (?:have to )?be"
    r"|how about|what about|i meant|i mean|actually|go for|put (?:it|that|me|us) down for"
    # a question that asks for it: "rather than scrapping it could the engineer come monday"
    r"|(?:could|can|would|will) (?:you|we|he|she|they|someone|somebody|the \w+))\b)")
_NEGATION_AFTER = re.compile(rf"(?:^|, )(?P<s>[^,]+?)(?: (?:{correction_words.NEGATION_AFTER})"
                             rf"|{correction_words.NEGATION_AFTER_CLITIC})\b")
_REPLACE = re.compile(correction_words.REPLACES)
_LEADING_NO = re.compile(r"^(?:no|nope|nah|wrong)\b,?")
_CLEAR = {field: re.compile(rf"\b(?:{pattern})\b")
          for field, pattern in correction_words.CLEAR_PATTERNS.items()}
_REFERENT_ASSET = re.compile(rf"\b{correction_words.REFERENT_ASSET}\b")
_REFERENT_BOOKING = re.compile(rf"\b{correction_words.REFERENT_BOOKING}\b")
_OTHER_ONE = re.compile(r"\b(?:the |my |our |that )?other (?:one|1)\b")
_AUTHORITY = {kind: re.compile(rf"\b(?:{pattern})")
              for kind, pattern in authority_words.AUTHORITY.items()}


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
        opens = _REPLACEMENT_OPENS.search(text, match.end(), end)
        if opens is not None and text[match.end():opens.start()].strip():
            end = opens.start()
        if end > match.end():
            out.append(Stretch(text[match.end():end].strip(), match.start(), end))
    for match in _NEGATION_AFTER.finditer(text):
        out.append(Stretch(match.group("s"), match.start("s"), match.end()))
    return tuple(out)


# In a turn that calls a visit off, the visit the caller keeps: "scrap the Utrecht one, we
# still want Rotterdam", "cancel Friday's, keep the Monday one", "leave P-100 as it is"
_KEPT = re.compile(r"\b(?:(?:we|i)(?:'d| would| do)? still (?:want|need|like)|keep|leave)\b")
# ... or said of it after its name: "Tuesday's fine", "the P-100 one can stay"
_KEPT_AFTER = re.compile(
    r"(?P<s>\b(?:the |that |our )?[\w'-]+(?: (?:one|1|visit|booking|appointment|job))?)"
    r" (?:is (?:fine|ok|okay|good|alright|all right|staying|still on)|can stay|stays)\b")


def kept_in_a_cancel(text: str) -> tuple[Stretch, ...]:
    """The stretches naming a visit kept in a turn that asks to cancel (pure): their values
    are ruled out as the one called off, like a negation's. Outside a cancel they stand ("we
    still want the morning" gives the morning)."""
    found = list(_KEPT.finditer(text))
    after = list(_KEPT_AFTER.finditer(text))
    if not (found or after) or intents.explicit_intent(text) is not Intent.CANCEL:
        return ()
    out = [Stretch(m.group("s"), m.start("s"), m.end()) for m in after]
    for match in found:
        tail = _STRETCH_END.search(text, match.end())
        end = tail.start() if tail else len(text)
        if end > match.end():
            out.append(Stretch(text[match.end():end].strip(), match.start(), end))
    return tuple(out)


# A negated verb or an absence ("we won't be around on Wednesday", "we're away on the 9th"),
# unlike a value ruled out ("not Wednesday", "instead of Wednesday", "skip Wednesday").
_NEGATED_VERB = re.compile(r"(?:don'?t|do not|can'?t|cannot|won'?t|will not|couldn'?t|could not"
                           r"|no longer|shut|closed|away|unavailable|nobody|no one|no-one)\b")


def calls_off(text: str, stretch: Stretch) -> bool:
    """The stretch's negation may be the cancel's own rather than a value's (pure): it opens
    with a need withdrawn that calls a visit off ("we won't need the engineer for P-200", "we
    no longer need the visit on the 9th"), or it negates a verb or says nobody is there in a
    turn that asks to cancel in other words ("we won't be around on Wednesday for the P-200
    visit, please call it off"), or it drops a visit named by what it is for ("scrap the
    Rotterdam visit"). Its values then name the visit called off."""
    return intents.calls_off_by_need_at(text, stretch.start) \
        or intents.drops_a_named_visit_at(text, stretch.start) or (
        bool(_NEGATED_VERB.match(text, stretch.start))
        and intents.asks_to_cancel_apart_from(text, (stretch.start, stretch.end)))


# A field the caller says is wrong, with no new value for it: "it's the time that's wrong",
# "the day is not right", "you've got the wrong pump"
_FIELD_WORDS = {"time": VISIT_TIME, "hour": VISIT_TIME, "day": VISIT_DATE, "date": VISIT_DATE,
                **dict.fromkeys(("pump", "compressor", "gearbox", *lexicon.GENERIC_ASSET_NOUNS),
                                ASSET),
                "part of the day": VISIT_WINDOW, "window": VISIT_WINDOW,
                **dict.fromkeys(("address", "site", "location"), SITE),
                **dict.fromkeys(("number of units", "unit count", "quantity"), UNITS)}
_FIELD = "|".join(sorted(_FIELD_WORDS, key=len, reverse=True))
_SAID_WRONG = re.compile(
    rf"\b(?:the|that|your) (?P<f>{_FIELD})(?: you(?: ?'ve| have)?"
    r"(?: (?:got|said|put|wrote|written|booked))?(?: down)?)?"
    r"(?:(?:'s| is| that'?s| that is| was)(?: (?:all|just|completely|totally))?"
    r" (?:wrong|not right|incorrect|not correct|a mistake)"
    r"|(?: isn'?t| is not|'s not| wasn'?t| was not) (?:quite )?(?:right|correct"
    r"|the right (?:one|1)))\b"
    rf"|\b(?:got|have|put|wrote|written|booked) (?:down )?the wrong (?P<g>{_FIELD})\b"
    rf"|\b(?:got|have|put|wrote|written|booked) (?:down )?the (?P<h>{_FIELD})"
    r" (?:all )?wrong\b")


def fields_said_wrong(text: str) -> tuple[str, ...]:
    """The fields the turn says are wrong, in the words that name them (pure)."""
    return tuple(dict.fromkeys(_FIELD_WORDS[m.group("f") or m.group("g") or m.group("h")]
                               for m in _SAID_WRONG.finditer(text)))


def names_a_field(said: str) -> bool:
    """Whether a value's words are only the name of its field ("the machine" in "the machine
    you've put down is wrong"): no new value for it."""
    return said.lower().removeprefix("the ") in _FIELD_WORDS


def has_replace_marker(text: str) -> bool:
    return bool(_REPLACE.search(text) or _LEADING_NO.match(text))


def cleared_fields(text: str, said: Sequence[SlotValue] = ()) -> tuple[str, ...]:
    """Constraints the caller removed ("any day is fine", "any time is fine"), unless a value
    of the field read from ``said`` is named after the words that removed it: "any day except
    Monday suits us, so Tuesday the 8th" names the 8th, "any time, say 3 pm" a time. A window
    said with "any time" keeps the window and removes only the exact time: "any time in the
    afternoon is fine", "the afternoon, any time, would do us"."""
    out: list[str] = []
    for field in (VISIT_DATE, VISIT_WINDOW):
        found = _CLEAR[field].search(text)
        if found is None:
            continue
        after = text[found.end():]
        named = {s.field for s in said if s.value is not None and any(
            re.search(rf"\b{re.escape(part.strip())}\b", after)
            for part in s.text.split("/") if part.strip())}
        if field == VISIT_DATE:
            out.extend(() if VISIT_DATE in named else (VISIT_DATE,))
        elif VISIT_TIME not in named:
            # a part of the day said in its own words anywhere in the turn stays: "the
            # afternoon, any time, would do us" (not the window a time implies: "at 10")
            times = {s.text for s in said if s.field == VISIT_TIME}
            window = VISIT_WINDOW in named or any(
                s.field == VISIT_WINDOW and s.value is not None and s.text not in times
                for s in said)
            out.extend((VISIT_TIME,) if window else (VISIT_WINDOW, VISIT_TIME))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Referent:
    field: str  # ASSET or BOOKING_REF
    value: str | None  # None when the words fit several of the caller's own
    candidates: tuple[str, ...]
    text: str


def find_referent(text: str, context: ProposalContext) -> Referent | None:
    """ "the other pump" / "my other booking": the caller's one other asset or booking ("the
    other one" is the other booking while the call is about one). "P-200,
    not the other one" moves away from the other one: a negated referent points at nothing."""
    match = _affirmed(_REFERENT_BOOKING, text)
    if match is None and context.ledger.value(BOOKING_REF) is not None:
        # "the other one" with a booking on the table is the other booking ("Nope, the other
        # one, the Friday visit is the one to cancel"); an asset needs its noun then
        match = _affirmed(_OTHER_ONE, text)
    if match:
        current = context.ledger.value(BOOKING_REF)
        others = tuple(ref for ref, _, _ in context.bookings if ref != current)
        return _referent(BOOKING_REF, others, match.group(0))
    match = _affirmed(_REFERENT_ASSET, text)
    if match:
        # other than the asset the call is about, or than the one the turn named before ("we've
        # got someone coming for the Harbour Road pump, can we also get someone for the other
        # pump?")
        current = context.ledger.value(ASSET) or _named_before(text, match.start(), context)
        others = tuple(a.id for a in context.caller.assets if a.id != current)
        return _referent(ASSET, others, match.group(0))
    return None


def _named_before(text: str, end: int, context: ProposalContext) -> str | None:
    """The one asset of the caller's the turn names before ``end``, if it names one."""
    named = {m.asset_id for m in catalog.find_assets(text[:end], context.caller.assets)
             if m.asset_id is not None}
    return named.pop() if len(named) == 1 else None


def points_elsewhere(said: str) -> bool:
    """Whether a slot's words are a referent ("the other pump"): they name the one that is
    not the one in question, whichever that turns out to be."""
    return bool(_REFERENT_ASSET.fullmatch(said.lower()) or _REFERENT_BOOKING.fullmatch(
        said.lower()))


_NEGATED = re.compile(r"\b(?:not|rather than|instead of)\s*$")


def _affirmed(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of ``pattern`` that no "not" / "rather than" / "instead of" negates."""
    return next((m for m in pattern.finditer(text) if not _NEGATED.search(text[:m.start()])),
                None)


def _referent(field: str, others: tuple[str, ...], text: str) -> Referent:
    if len(others) == 1:
        return Referent(field, others[0], (), text)
    # None other (nothing to point at) or several: the controller asks which one.
    return Referent(field, None, others if len(others) > 1 else (), text)


def _same(a: str, b: str) -> bool:
    return re.sub(r"[\s-]", "", a.lower()) == re.sub(r"[\s-]", "", b.lower())


_BILLING = re.compile(
    # the longer object first: "bill this one to Globex" bills Globex, not "one" (said "1")
    rf"\b(?:{authority_words.BILLING_ACT})\b(?: (?:(?:this|that|the|our|my) (?:one|1|visit"
    r"|booking|job|cost|work|call[- ]out)|it|this|that|them))?(?: (?:to|on|for|onto|under))?"
    r" (?P<party>(?:[a-z][\w'-]*)(?: [a-z][\w'-]*){0,2})")


def billing_party(text: str, tenant: str, account: str) -> str | None:
    """Who a turn bills, when that is not the caller's own side ("bill it to Globex",
    "charge it to another company", "invoice Initech for it"), or None (pure)."""
    for match in _BILLING.finditer(text):
        words = match.group("party").split()
        while words and words[0] in ("the", "a", "an", "to", "on", "for"):
            words = words[1:]
        if not words or words[0] in authority_words.SELF_PARTY or _same(words[0], tenant) \
                or _same(words[0].removesuffix("'s"), tenant) or _same(words[0], account):
            continue
        if words[0] in ("another", "other", "a", "different", "someone", "somebody"):
            return " ".join(words[:2])
        if words[0] in authority_words.NOT_AN_ORG or words[0] in lexicon.WEEKDAYS \
                or words[0] in authority_words.NOT_BILLED:
            continue  # "charged if I cancel", "charge for cancelling": no party billed
        return words[0].removesuffix("'s")
    return None


def authority_boundary(text: str, context: ProposalContext,
                       foreign_assets: tuple[str, ...]) -> str | None:
    """What boundary the turn tries to cross, or None. Never consulted for slot values."""
    caller = context.caller
    party = billing_party(text, caller.tenant, caller.account)
    if party is not None:
        return f"billing {party}"
    match = _AUTHORITY["other account"].search(text)
    if match:
        account = match.group("account") or match.group("account2")
        owner = match.group("owner")
        if owner is not None:
            if owner not in authority_words.SELF_PARTY and owner not in authority_words.NOT_AN_ORG \
                    and not _same(owner, caller.tenant) and not _same(owner, caller.subject):
                return f"account of {owner}"
        elif account is None:
            return "another account"
        elif not _same(account, caller.account) and account not in authority_words.NOT_AN_ORG:
            return f"account {account.upper().replace(' ', '-')}"
    match = _AUTHORITY["other tenant"].search(text)
    if match:
        org = match.group("org") or match.group("org2")
        if org is None:
            return "other tenant"
        if org not in authority_words.NOT_AN_ORG and not _same(org, caller.tenant) and \
                not _same(org, caller.subject) and org not in caller.name.lower().split():
            return f"tenant {org}"
    match = _AUTHORITY["other person"].search(text)
    if match and match.group("titled"):
        return f"another person ({match.group('titled')})"  # "on behalf of Mr Jansen"
    if match:
        return f"another person's {match.group(0).split()[-1]}"
    match = _AUTHORITY["filter override"].search(text)
    if match:
        return f"scope override ({match.group(0)})"
    match = _AUTHORITY["identity claim"].search(text)
    if match:
        return f"identity claim ({match.group(0)})"
    owner = _other_owner(text, context, foreign_assets)
    if owner is not None:
        return f"tenant {owner}"
    for match in _THEIRS.finditer(text):
        said = match.group("id").upper().replace(" ", "-")
        if said in foreign_assets:  # "book their gearbox G-7": someone else's, by its owner
            return f"another party's {said}"
    # An asset id that is not on the account (``foreign_assets``) is no boundary on its own:
    # it is a question ("I don't see V-200 on your account. Did you mean P-200?").
    return None


# A lookahead, so every possessive is tried: in "it's Globex's G-7" the contraction "it's
# globex" must not hide "globex's g-7".
_POSSESSIVE = re.compile(r"\b(?=(?P<owner>[a-z][\w-]*)'s (?:[a-z]+ )?(?P<id>[a-z]{1,3}[ -]?\d+)\b"
                         r"|(?P<owner2>[a-z][\w-]*)'s (?P<what>[a-z]+)\b)")
# A third party's asset by its possessive: "their gearbox G-7", "his Z-9". Only an id not on the
# account is one ("their P-100", of the caller's own site team, is the caller's).
_THEIRS = re.compile(r"\b(?:their|his|her) (?:[a-z]+ )?(?P<id>[a-z]{1,3}[ -]?\d+)\b")
_FOR_PARTY = re.compile(r"\bfor (?P<owner>[a-z]{2,}(?:-[a-z]+)*)\b(?![\w'-])")


def _other_owner(text: str, context: ProposalContext,
                 foreign_assets: tuple[str, ...]) -> str | None:
    """Another party named as the owner of an asset: "Globex's G-7", "Globex's gearbox G-7",
    "Initech's compressor", or an id that is not the caller's booked "for Acme"."""
    caller = context.caller
    own = {caller.tenant.lower(), caller.subject.lower(), *caller.name.lower().split(),
           *(w for a in caller.assets for w in re.findall(r"[a-z]+", a.site.lower()))}
    nouns = {*lexicon.GENERIC_ASSET_NOUNS, "pump", "compressor",
             *(a.kind.lower().split()[-1] for a in caller.assets if a.kind)}

    def other(word: str) -> bool:
        return not (word in own or word in authority_words.NOT_AN_ORG
                    or word in lexicon.NOT_AN_OWNER or word in lexicon.WEEKDAYS
                    or word in lexicon.MONTHS.split("|")
                    or word in nouns or word in lexicon.NOT_A_PARTY)

    for match in _POSSESSIVE.finditer(text):
        owner = match.group("owner") or match.group("owner2")
        if other(owner) and (match.group("id") or match.group("what") in nouns):
            return owner
    if foreign_assets:
        for match in _FOR_PARTY.finditer(text):
            if other(match.group("owner")):
                return match.group("owner")
    return None
