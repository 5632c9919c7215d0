"""The small extractors: units, site address, language, configuration, region, opened.

Each reads normalised text and returns what it found with its span, so the caller can mask
spans already consumed (an address's "at 12" is not a time). Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.core.caller import Asset
from agent.core.names import BOOKING_REF, CONFIGURATION, LANGUAGE, OPENED, REGION, SITE, UNITS
from agent.understanding.nlu import lexicon


@dataclass(frozen=True, slots=True)
class Found:
    field: str
    value: str
    text: str
    start: int
    end: int


# A booking reference as the sandbox writes it (BK- and hex digits), however it was spoken:
# "BK-1042", "bk 1042", "b k 1 0 4 2" (normalised digits), "booking reference 1042".
_BOOKING_REF = re.compile(
    r"\b(?:(?:b|bee|be) ?(?:k|kay)|booking (?:ref(?:erence)?|number|no)|reference|ref)"
    r"[ -]?(?:number |no )?"
    r"(?P<code>(?:[0-9a-f]*\d[0-9a-f]*|oh)(?:[ -](?:\d+|oh))*)\b")


def find_booking_ref(text: str, bookings: tuple[tuple[str, str, str], ...]) -> Found | None:
    """A booking reference, written the sandbox's way ("BK-1042"), however it was spoken:
    "BK-1042", "bk 1042", "bee kay one oh four two", "booking reference 1042". One the caller
    holds is preferred when the words fit it; a well-formed one they do not hold is still
    proposed (the booking desk looks it up and the system of record decides)."""
    for match in _BOOKING_REF.finditer(text):
        code = re.sub(r"[ -]", "", match.group("code").replace("oh", "0")).upper()
        if not 3 <= len(code) <= 8:
            continue
        ref = next((r for r, _, _ in bookings if r.upper().endswith(code)), f"BK-{code}")
        return Found(BOOKING_REF, ref, match.group(0), match.start(), match.end())
    return None


# A count: a number before a plural ("3 units"), or 1 before a singular; "the 300 pump" is no
# count (a name: the kind's assets are asked about).
_UNITS = re.compile(rf"\b(?P<n>\d{{1,3}}) (?:{lexicon.PLURAL_UNIT_NOUNS}"
                    rf"|(?<=\b1 )(?:{lexicon.UNIT_NOUNS}))\b")
_UNITS_WORD = re.compile(
    rf"\b(?:(?P<one>a single|just 1|only 1)|(?P<both>both)) (?:{lexicon.UNIT_NOUNS})\b"
)
# Words that end a time or a count, so "at 2 pm on Main Street" is no address.
_NOT_STREET_NAME = rf"(?:pm|am|oclock|on|at|in|for|and|{lexicon.UNIT_NOUNS})\b"
# Words that follow an address but are no town: "7 Dock Street, not Harbour Road", "the pump
# at 4 Canal Street seen to" (a verb of the clause: what is to be done there, or when).
_NOT_CITY = ("at|on|in|for|and|please|not|but|or|instead|then|so|sorry|the|this|that|is|was"
             "|seen|looked|done|serviced|checked|fixed|sorted|repaired|inspected|visited"
             "|needs|need|has|have|had|will|would|can|could|should|today|tomorrow|asap"
             "|again|too|as|if|when|because|before|after|by|with|from|to|a|an|be|get|got")
_SITE = re.compile(
    rf"\b(?P<addr>\d{{1,5}}[a-z]? (?:(?!{_NOT_STREET_NAME})[a-z][\w'-]* ){{1,3}}"
    rf"(?:{lexicon.STREET_WORDS})"
    rf"(?:,? (?:in )?(?P<city>(?!(?:{_NOT_CITY})\b)[a-z][\w-]+))?)\b"
    rf"|\b(?P<dock>(?:dock|pier|unit|building|hangar|gate) \d{{1,4}},? [a-z][\w-]+)\b"
)
_WORDS = re.compile(r"[\w']+")
_LANG_WORDS = "|".join(sorted(lexicon.LANGUAGES, key=len, reverse=True))
_LANGUAGE = re.compile(
    rf"\b(?:in|auf|en|into|speak|speaks|read) (?P<a>{_LANG_WORDS})\b"
    rf"|\b(?P<b>{_LANG_WORDS}) (?:version|edition|manual|translation|please|copy|text)\b"
)
_CONFIG = re.compile(
    r"\b(?:configuration|config|variant|build) (?:is )?(?P<a>[a-z] ?-?\d{1,3})\b"
    r"|\b(?P<b>[a-z] ?-?\d{1,3}) (?:configuration|config|variant|build)\b"
)
_REGION_WORDS = "|".join(sorted(lexicon.REGIONS, key=len, reverse=True))
_REGION = re.compile(
    rf"\b(?:region|in the|from the|bought in|purchased in|bought it in|in) (?P<r>{_REGION_WORDS})\b"
)
# Not opened: a negation, then up to three words of tense or emphasis ("never been", "hasn't
# even been", "not actually"), then a word of opening or using; or a word that says sealed.
_NOT = r"(?:not|never|(?:has|have|had|did|does|do|is|was|were|are)n'?t|no one (?:has|ever)" \
       r"|nobody (?:has|ever))"
_UNOPENED = re.compile(
    rf"\b{_NOT}(?: (?:yet|ever|even|actually|really|been|once|properly|at all|it|them)){{0,3}}"
    r" (?:opened|open|used|unsealed|unpacked|touched|taken (?:it |them )?out"
    r"|took (?:it |them )?out)"
    r"|\b(?:unopened|still sealed|sealed|unused|still in (?:the|its) (?:box|packaging|wrapper"
    r"|shrink ?wrap)|in the original (?:box|packaging)|new in box|brand new)\b"
)
_OPENED = re.compile(
    r"\b(?:opened|(?:i|we|he|she|they|someone|somebody) (?:did |have |has |had )?"
    r"(?:actually )?open(?:ed)? (?:it|them)|did (?:actually )?open (?:it|them)|it'?s open"
    r"|it is open|unsealed|unpacked|used it|we used|i used|installed it|took it out"
    r"|broke the seal|been opened|tried it)\b"
)


def find_units(text: str) -> tuple[Found, ...]:
    # "the one asset we've got" names the asset; it does not count units.
    out = [Found(UNITS, m.group("n"), m.group(0), m.start(), m.end())
           for m in _UNITS.finditer(text) if int(m.group("n")) > 0
           and not (m.group("n") == "1" and text[:m.start()].endswith("the "))]
    for m in _UNITS_WORD.finditer(text):
        out.append(Found(UNITS, "2" if m.group("both") else "1", m.group(0), m.start(), m.end()))
    return tuple(out)


# "the other one, the Harbour Road one" written "the other 1 the harbour road 1": a "1" after
# "the" and a word or two is the pronoun "one", no house number
_ONE_AS_A_PRONOUN = re.compile(r"\bthe (?:[a-z][\w'-]* ){0,3}$")


def find_site(text: str, assets: tuple[Asset, ...]) -> Found | None:
    """An address. When it matches one of the caller's sites, the site's own spelling wins."""
    match = next((m for m in _SITE.finditer(text) if not _ONE_AS_A_PRONOUN.search(text, 0,
                  m.start()) or not m.group(0).startswith("1 ")), None)
    if match is None:
        return None
    said = match.group(0)
    for asset in assets:
        known = re.sub(r"[^\w ]", "", asset.site.lower())
        heard = re.sub(r"[^\w ]", "", said)
        if heard and (known.startswith(heard) or heard.startswith(known)):
            return Found(SITE, asset.site, said, match.start(), match.end())
    # One spelling however it was said: "7 dock street rotterdam", "7 Dock Street in
    # Rotterdam" and "7 Dock Street, Rotterdam" are all "7 Dock Street, Rotterdam".
    city = match.group("city")
    street = said[:match.start("city") - match.start()] if city else said
    placed = city is not None and street.rstrip(", ").endswith(" in")  # "... in Amsterdam"
    street = re.sub(r"[, ]+(?:in)?[, ]*$", "", street)
    for asset in assets if not placed else ():
        # The caller's own house number and street: their site, whatever word the recogniser
        # wrote after it ("4 Canal Street scene to", misheard from "seen to"); only a town
        # said with "in" makes it another place.
        if re.sub(r"[^\w ]", "", asset.site.lower().split(",")[0]).strip() == street.strip():
            return Found(SITE, asset.site, street, match.start(), match.start() + len(street))
    value = " ".join(w if w.isdigit() else w.capitalize() for w in street.split())
    value += f", {city.capitalize()}" if city else ""
    return Found(SITE, value, said, match.start(), match.end())


def known_site_named(text: str, assets: tuple[Asset, ...]) -> str | None:
    """One of the caller's own sites named by its street alone ("not Harbour Road").

    Only the caller's known sites are matched, so a bare street name never invents an address.
    """
    heard = f" {' '.join(_WORDS.findall(text.lower()))} "
    for asset in assets:
        street = " ".join(w for w in _WORDS.findall(asset.site.lower().split(",")[0])
                          if not w.isdigit())
        if street and f" {street} " in heard:
            return asset.site
    return None


def find_language(text: str) -> Found | None:
    match = _LANGUAGE.search(text)
    if match is None:
        return None
    word = match.group("a") or match.group("b")
    return Found(LANGUAGE, lexicon.LANGUAGES[word], match.group(0), match.start(), match.end())


def find_configuration(text: str, assets: tuple[Asset, ...]) -> Found | None:
    match = _CONFIG.search(text)
    if match is not None:
        value = re.sub(r"[\s-]", "", match.group("a") or match.group("b")).upper()
        return Found(CONFIGURATION, value, match.group(0), match.start(), match.end())
    for config in {asset.configuration for asset in assets if asset.configuration}:
        hit = re.search(rf"\b{re.escape(config.lower())}\b", text)
        if hit:
            return Found(CONFIGURATION, config, hit.group(0), hit.start(), hit.end())
    return None


def find_region(text: str) -> Found | None:
    match = _REGION.search(text)
    if match is None:
        return None
    return Found(REGION, lexicon.REGIONS[match.group("r")], match.group(0), match.start(),
                 match.end())


def find_opened(text: str) -> Found | None:
    """Opened or not, negation first: "I did not open it" is "no", "I opened it" is "yes"."""
    match = _UNOPENED.search(text)
    if match is not None:
        return Found(OPENED, "no", match.group(0), match.start(), match.end())
    match = _OPENED.search(text)
    if match is not None:
        return Found(OPENED, "yes", match.group(0), match.start(), match.end())
    return None
