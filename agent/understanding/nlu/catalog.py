"""Matching spoken words to the caller's own assets: by id, by a kind noun and digits, by kind.

Assets: the vocabulary is the caller's account, not a fixed shape. Every id the caller owns
(``context.caller.assets``: "P-200", "C-7", "AB-12", "K9"...) is matched however it is said
(:mod:`agent.understanding.nlu.asset_ids`). A kind noun followed by digits ("pump 200", "the
compressor 7"), or digits said as a name before one such noun ("the 200 pump", "our 7
compressor"; "2 pumps" is a count), names the asset of that kind with those digits, and so do
three or more digits alone after "the" or "our" when one asset has them ("I meant the 100").

An id-like token that is none of the caller's ("V-200", "Z-999") is *heard*, not refused: its
candidates are the owned ids it is confusable with, or every owned id when none is. The agent
asks ("I don't see V-200 on your account. Did you mean P-200?"). Only the caller's assets are
ever searched: nothing of another tenant is matched or named.

With no id said, the asset's kind names it ("the compressor", "the gearbox"), and a generic
noun ("the unit", "the machine") names any of the caller's assets: one match is that asset,
several are candidates. Procedures are matched in :mod:`agent.understanding.nlu.procedures`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from agent.core.caller import Asset
from agent.core.ports import ProcedureInfo
from agent.understanding.nlu import correction_words, lexicon
from agent.understanding.nlu.asset_ids import (
    ID_LIKE,
    NOT_TIME,
    heard_id,
    id_digits,
    owned_pattern,
)
from agent.understanding.nlu.procedures import procedure_phrases

_WORD_BEFORE = re.compile(r"([\w'-]+)\s*$")
_CONFIG_BEFORE = re.compile(rf"\b(?:{lexicon.CONFIGURATION_WORDS}) (?:is )?$")
_CONFIG_AFTER = re.compile(rf" (?:{lexicon.CONFIGURATION_WORDS})\b")
_GENERIC = frozenset(lexicon.GENERIC_ASSET_NOUNS)
# Nouns that may stand before an asset's digits even when the account does not record a kind
# ("for pump number 200").
_NUMBERED_NOUNS = frozenset(("pump", "compressor", "model", *lexicon.GENERIC_ASSET_NOUNS))
# Words before digits that make them a name, not a count: "the 200 pump" is P-200.
_DETERMINERS = "the|my|our|that|this|your"


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


def find_assets(text: str, assets: tuple[Asset, ...],
                procedures: tuple[ProcedureInfo, ...] = (), *,
                asset_in_question: bool = False, whole_turn: bool = True
                ) -> tuple[AssetMention, ...]:
    """Asset mentions in normalised ``text``, matched only against ``assets`` (pure).
    ``asset_in_question``: the call is already about one of them (held, or asked for), so a
    place said after a word of location names the one there (:func:`_by_place`).
    ``whole_turn``: ``text`` is all the caller said, not a stretch of it, so a place that is
    all of it names the asset there ("No, Rotterdam."; "..., not Harbour Road" corrects an
    address)."""
    mentions: list[AssetMention] = []
    taken: list[tuple[int, int]] = []

    def add(mention: AssetMention) -> None:
        mentions.append(mention)
        taken.append((mention.start, mention.end))

    # 1. The caller's own ids, however they were said; the longest reading wins.
    owned = []
    for asset in assets:
        pattern = owned_pattern(asset.id)
        if pattern is not None:
            owned += [(m.start(), m.end(), asset.id) for m in pattern.finditer(text)]
    for start, end, asset_id in sorted(owned, key=lambda o: (o[0] - o[1], o[0])):
        if _free(taken, start, end):
            add(AssetMention(text[start:end], start, end, asset_id))

    nouns = _nouns(assets)
    numbered = "|".join(sorted(map(re.escape, set(nouns) | _NUMBERED_NOUNS), key=len,
                               reverse=True))
    # 2. A noun and the digits of an id: "pump 200", "the compressor number 7", and the digits
    # as a name before one noun: "the 200 pump", "our 7 compressor" (but "2 pumps" counts).
    for match in itertools.chain(
            re.finditer(rf"(?<![\w'])(?P<name>(?P<noun>{numbered})s? (?:number |no |#)?"
                        rf"(?P<digits>\d{{1,5}}))(?![\w]){NOT_TIME}", text),
            re.finditer(rf"(?<![\w'])(?:{_DETERMINERS}) (?P<name>"
                        rf"(?P<digits>\d{{1,5}}(?: \d{{1,3}})?) (?P<noun>{numbered}))(?![\w'])",
                        text)):
        start, end = match.span("name")
        if not _free(taken, start, end):
            continue
        noun, digits = match.group("noun"), match.group("digits").replace(" ", "")
        hits = [a for a in assets if id_digits(a.id) == digits]
        kinds = [a for a in hits if a.id in nouns.get(noun, ())]
        hits = kinds or ([] if len(digits) == 1 and noun not in nouns else hits)
        if len(hits) == 1:
            add(AssetMention(text[start:end], start, end, hits[0].id, confidence=0.9))
        elif hits:
            add(AssetMention(text[start:end], start, end, None,
                             candidates=tuple(a.id for a in hits)))

    # 2b. The digits alone after a determiner, when they are one asset's and no day, time or
    # count ("the 200 pumps"): "I meant the 100" (P-100, misheard from "P one hundred" or
    # said so). Three digits at least: "the 12" is a day of the month, "the 45" minutes.
    for match in re.finditer(rf"(?<![\w'])(?:{_DETERMINERS}) (?P<digits>\d{{3,5}})(?![\w'])"
                             rf"(?! ?(?:st|nd|rd|th)\b)(?! (?:{numbered})s\b){NOT_TIME}", text):
        start, end = match.span("digits")
        hits = [a for a in assets if id_digits(a.id) == match.group("digits")]
        if len(hits) == 1 and _free(taken, start, end):
            add(AssetMention(text[start:end], start, end, hits[0].id, confidence=0.8))

    # 3. Ids said that are none of the caller's: a question, never a match. A configuration
    # of the caller's assets ("C2") or a token named as one ("configuration C4") is no id.
    configurations = {re.sub(r"[\s-]", "", a.configuration.lower()) for a in assets}
    for match in ID_LIKE.finditer(text):
        if not _free(taken, match.start(), match.end()):
            continue
        if re.sub(r"[\s-]", "", match.group(0)) in configurations \
                or _CONFIG_BEFORE.search(text[:match.start()]) \
                or _CONFIG_AFTER.match(text, match.end()):
            continue
        heard = heard_id(text, match, assets)
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

    # 4. No id said: the asset's kind or a generic noun names it. With an id said, one asset
    # named by its site after a word that replaces it still counts ("pump 200 on Monday,
    # sorry, I mean the one in Rotterdam"): the correction names the asset meant.
    if not mentions:
        mentions = [_anaphor_resolved(text, m, assets)
                    for m in _by_kind(text, assets, nouns, procedures)] \
            or _by_place(text, assets, located=asset_in_question, alone=whole_turn)
    else:
        last = max(m.end for m in mentions)
        mentions += [m for m in _by_kind(text, assets, nouns, procedures)
                     if m.asset_id is not None and m.start >= last and _free(taken, m.start, m.end)
                     and _REPLACES_BEFORE.search(text[last:m.start])]
    if mentions:
        # a place said bare after a word that replaces the asset named before it: "er the
        # Harbour Road one, no, sorry, Canal Street"
        last = max(m.end for m in mentions)
        mentions += [m for m in _places_said(text, assets)
                     if m.start >= last and _REPLACES_BEFORE.search(text[last:m.start])
                     and not any(m.start < n.end and n.start < m.end for n in mentions)][:1]
    if not whole_turn:
        mentions += [m for m in _opening_town(text, assets) if _free(taken, m.start, m.end)]
    return tuple(sorted(mentions, key=lambda m: m.start))


def _opening_town(text: str, assets: tuple[Asset, ...]) -> list[AssetMention]:
    """A stretch ruled out that opens with a town one of the caller's assets is in names that
    asset: "not Rotterdam, the Utrecht one" (a street ruled out corrects an address: the site,
    not the asset)."""
    return [m for m in _places_said(text, assets)
            if text[:m.start] in ("", "the ") and not _STREET.search(m.text)][:1]


def _places_said(text: str, assets: tuple[Asset, ...]) -> list[AssetMention]:
    """Every place one of the caller's assets is at and no other, said bare: after a word that
    replaces an asset named before it, it names the asset there ("er the harbour road one, no,
    sorry, Canal Street")."""
    return [AssetMention(m.group(0), m.start(), m.end(), ids[0], by_kind=True)
            for place, ids in _assets_by_place(assets).items() if len(ids) == 1
            for m in re.finditer(rf"\b{re.escape(place)}\b", text)]


# "that pump", "the same one", "this compressor": the asset the turn named before
_ANAPHOR = re.compile(r"\b(?:that|this|the same|same)\s+$")


def _anaphor_resolved(text: str, mention: AssetMention, assets: tuple[Asset, ...]
                      ) -> AssetMention:
    """A kind said with a word pointing back ("you're already coming to Canal Street on
    Wednesday, but we need another visit for that pump", "we've got Canal Street booked in,
    ... same pump") is the one asset the turn named by its place before it, when it named
    one."""
    if mention.asset_id is not None or not _ANAPHOR.search(text, 0, mention.start):
        return mention
    before = {m.asset_id for m in _places_said(text[:mention.start], assets)}
    named = [i for i in before if i in mention.candidates]
    if len(before) != 1 or len(named) != 1:
        return mention
    return AssetMention(mention.text, mention.start, mention.end, named[0], by_kind=True)


def places_of(asset: Asset) -> tuple[str, ...]:
    """The words of ``asset``'s site a caller names it by: "harbour road", "rotterdam"."""
    out = []
    for part in asset.site.lower().split(","):
        words = re.findall(r"[a-z][\w'-]*", part)
        if words:
            out.append(" ".join(words))
    return tuple(out)


# A place said with a word of location before it, anywhere in the turn: "the pump we have in
# Utrecht", "the pump, the one out at the Utrecht site" (not "not in Rotterdam", nor "I'm
# calling from Rotterdam": where the caller is says nothing of which pump).
_AT_PLACE = r"(?<!not )\b(?:in|at|near|by)(?: (?:the|our|your|their))?"
# A street is where the caller's asset stands, not where the caller is: said with a word of
# place or of going there it names the asset at once ("the engineer coming to Canal Street",
# "that Tuesday one at Harbour Road"), where a town needs the call to be about an asset already.
_AT_STREET = r"(?<!not )\b(?:in|at|on|near|by|to)(?: (?:the|our|your|their))?"
_STREET = re.compile(rf"\b(?:{lexicon.STREET_WORDS})$")


def _placed_elsewhere(text: str, ids: tuple[str, ...],
                      places: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The one of ``ids`` the places said in the turn all point to, else ()."""
    named = {place for place in places
             if re.search(rf"{_AT_PLACE} {re.escape(place)}\b", text)}
    hits = {i for place in named for i in places[place] if i in ids}
    return tuple(hits) if len(hits) == 1 else ()


# The words a place may stand among and still be all the turn says: "No, Rotterdam.", "It's
# Harbour Road, please."
_BESIDE_A_PLACE = (r"(?:(?:yes|yeah|yep|no|nope|sorry|its|it's|it is|that's|thats|i said|i mean"
                   r"|i meant|the one|in|at|um+|uh+|er+|erm+|please|thanks|thank you)\b[, ]*)*")


def _by_place(text: str, assets: tuple[Asset, ...], *, located: bool,
              alone: bool) -> list[AssetMention]:
    """A place said without a noun of an asset, where one of the caller's assets is and no
    other: as all the turn says (``alone``: "No, Rotterdam."), or, once the call is about one
    of the caller's assets (``located``), after a word of location ("Yes, that's right, but
    well in Rotterdam", misheard from "the one in Rotterdam"). Before that, "we're in Utrecht"
    may say where the caller is, but a street names the asset there ("the engineer coming to
    Canal Street"); "I'm calling from Rotterdam" never names an asset."""
    out: list[AssetMention] = []
    for place, ids in _assets_by_place(assets).items():
        if len(ids) != 1:
            continue  # a place two assets share names neither
        words = re.escape(place)
        at = _AT_STREET if _STREET.search(place) else _AT_PLACE if located else None
        found = list(re.finditer(rf"{at} (?P<place>{words})\b", text)) if at else []
        whole = re.fullmatch(rf"[, ]*{_BESIDE_A_PLACE}(?P<place>{words})[, ]*"
                             rf"{_BESIDE_A_PLACE}", text) if alone else None
        for match in [*found, *([whole] if whole else [])]:
            start, end = match.span("place")
            if not any(m.start == start for m in out):
                out.append(AssetMention(text[start:end], start, end, ids[0], by_kind=True))
    return out


def _assets_by_place(assets: tuple[Asset, ...]) -> dict[str, tuple[str, ...]]:
    """Each word of a site the caller names assets by ("rotterdam"), with the ids there."""
    return {place: tuple(a.id for a in assets if place in places_of(a))
            for asset in assets for place in places_of(asset)}


# A word that replaces what came before it, between an id and an asset named by its site
_REPLACES_BEFORE = re.compile(correction_words.REPLACES)
# What follows a "one" that counts or tells the time ("Utrecht 1 day a week", "1 pm")
_COUNTED = re.compile(r" (?:\d|am\b|pm\b|oclock\b|of\b|(?:day|week|month|hour|minute|time)s?\b)")
# The words before "one in <place>" that make it one asset ("the one in Utrecht")
_ONE_OF_A_PLACE = ("the", "that", "this", "a", "our", "my")
# Nouns that name the caller's asset with a place and nothing alone: of a place ("the Rotterdam
# site", "the premises in Utrecht"; "the site team") and of a visit, made where the asset is
# ("the visit in Utrecht", "our Rotterdam booking"), or of the person who makes it ("the Canal
# Street engineer", "the engineer for Utrecht")
_NEED_A_PLACE = frozenset(("site", "location", "premises", "depot", "yard", "visit", "booking",
                           "appointment", "service", "call-out", "callout", "job", "engineer",
                           "technician", "fitter"))


def _by_kind(text: str, assets: tuple[Asset, ...], nouns: dict[str, tuple[str, ...]],
             procedures: tuple[ProcedureInfo, ...]) -> list[AssetMention]:
    """ "the compressor", "the Rotterdam pump", "the one in Utrecht", "the visit over at Canal
    Street": the one asset of that kind (at that site), or candidates."""
    if not nouns:
        return []
    phrases = [p for info in procedures
               for p in (*procedure_phrases(info), info.family_title.lower(),
                         info.family.replace("-", " "))]
    places = _assets_by_place(assets)
    place = "|".join(sorted(map(re.escape, places), key=len, reverse=True)) or "(?!)"
    noun = "|".join(sorted(map(re.escape, {*nouns, *_NEED_A_PLACE}), key=len, reverse=True))
    out = []
    for match in re.finditer(
            # (a comma between a place and its noun is the recogniser's, heard at a pause:
            # "Harbour Road, visit to Monday afternoon, please.")
            rf"(?<![\w'-])(?:(?P<pre>{place}),? )?(?P<noun>{noun}|one|1)(?:'s)?(?![\w'-])"
            rf"(?: (?:in|at|on|from|for|near|(?:over|down|up|out) (?:in|at)|by) (?:the )?"
            # a place that opens the next noun phrase is that one's: "the engineer for the
            # Rotterdam pump" names the pump in Rotterdam, not an engineer for Rotterdam
            rf"(?P<post>{place})\b(?! (?:{noun}|one|1)(?:'s)?(?![\w'-])))?",
            text):
        before = _word_before(text, match.start())
        said = match.group("noun")
        where = match.group("pre") or match.group("post")
        if before in lexicon.NOT_ONE_ASSET or before.isdigit():
            continue
        if where is None and before == said:
            continue  # "the Rotterdam pump pump": a word said twice (or heard twice) is one
        if said in _NEED_A_PLACE and where is None:
            continue  # "the site team", "the visit on Monday"
        if said in ("one", "1") and not (
                where is not None and before in _ONE_OF_A_PLACE
                or match.group("pre") and not _COUNTED.match(text, match.end())):
            # "the one in Utrecht", "a Utrecht one", "it's Utrecht one" name an asset; "one"
            # alone does not, nor "Utrecht 1 day a week"
            continue
        if any(text.startswith(p, match.start("noun")) and len(p) > len(said) for p in phrases):
            continue  # "the pump seal": a procedure's name, not the pump
        ids = nouns.get(said, tuple(a.id for a in assets))
        if where is not None:
            ids = tuple(i for i in ids if i in places[where]) or ids
        elif len(ids) > 1:
            ids = _placed_elsewhere(text, ids, places) or ids
        if len(ids) == 1:
            out.append(AssetMention(match.group(0), match.start(), match.end(), ids[0],
                                    by_kind=True))
        elif ids:
            out.append(AssetMention(match.group(0), match.start(), match.end(), None,
                                    candidates=ids, by_kind=True))
    return out
