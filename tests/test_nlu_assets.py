"""Asset vocabulary comes from the caller's account, not from code (docs/understanding.md).

These tests are built from constructions, not sentences: ids of several shapes are generated,
each is said in every way a person or a recogniser says an id (written, run together, split,
letters spoken, digits as words, digits one by one), inside several carrier sentences, to a
caller who owns it. Kinds, confusable ids, unknown ids and one-digit ids that must never steal
a time, a date or an address are generated the same way.
"""

from __future__ import annotations

import itertools
import re

import pytest
from nlu_support import TUESDAY, context, propose

from agent.core.caller import Asset, CallerProfile
from agent.core.names import ASSET, SITE, UNITS, VISIT_DATE, VISIT_TIME
from agent.understanding.nlu.catalog import find_assets
from agent.understanding.nlu.lexicon import CONFUSABLE_LETTERS
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposals import CorrectionKind, Intent

# Shapes: one letter and one digit, two letters and two digits, no dash, three digits, four.
SHAPES = ("X-1", "XY-12", "Q9", "P-200", "AB-1234", "MR-305", "K-40")

# How a person says a letter: one name each (the recogniser writes these, or the letter).
SAID_LETTER = {
    "a": "ay", "b": "bee", "c": "see", "d": "dee", "e": "ee", "f": "eff", "g": "gee",
    "h": "aitch", "i": "eye", "j": "jay", "k": "kay", "l": "el", "m": "em", "n": "en",
    "o": "oh", "p": "pee", "q": "cue", "r": "are", "s": "ess", "t": "tee", "u": "you",
    "v": "vee", "w": "double you", "x": "ex", "y": "why", "z": "zed",
}
NATO = {"a": "alpha", "b": "bravo", "k": "kilo", "m": "mike", "p": "papa", "q": "quebec",
        "x": "x-ray", "r": "romeo", "y": "yankee"}
ONES = "zero one two three four five six seven eight nine".split()
TEENS = ("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen "
         "nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

CARRIERS = ("book {id} for friday", "{id} on thursday morning please",
            "can someone look at {id} tomorrow", "it's {id}", "send a technician to {id}")


def _two(n: int) -> str:
    if n < 10:
        return ONES[n]
    if n < 20:
        return TEENS[n - 10]
    return TENS[n // 10] + ("" if n % 10 == 0 else f" {ONES[n % 10]}")


def number_words(digits: str) -> str:
    """Digits as a person reads a number: "200" two hundred, "1234" twelve thirty four."""
    n = int(digits)
    if len(digits) == 4:
        return f"{_two(n // 100)} {_two(n % 100)}" if n % 100 else f"{_two(n // 100)} hundred"
    if len(digits) == 3:
        rest = n % 100
        return f"{ONES[n // 100]} hundred" + (f" and {_two(rest)}" if rest else "")
    return _two(n)


def parts(asset_id: str) -> tuple[str, str]:
    match = re.fullmatch(r"([A-Z]+)-?(\d+)", asset_id)
    assert match is not None, asset_id  # every asset id is letters, a dash, digits
    letters, digits = match.groups()
    return letters.lower(), digits


def said_forms(asset_id: str) -> list[str]:
    """Every way the id is said: written, run together, split, spoken letters, digits as words."""
    letters, digits = parts(asset_id)
    spaced = " ".join(letters)
    spoken = " ".join(SAID_LETTER[ch] for ch in letters)
    one_by_one = " ".join(ONES[int(d)] for d in digits)
    forms = [asset_id, asset_id.lower(), f"{letters}{digits}", f"{letters}-{digits}",
             f"{letters} {digits}", f"{spaced} {digits}", f"{letters} {' '.join(digits)}",
             f"{spoken} {number_words(digits)}", f"{spoken} {one_by_one}",
             f"{letters.upper()} {number_words(digits)}", f"{letters} dash {digits}"]
    if letters[0] in NATO and len(letters) == 1:
        forms.append(f"{NATO[letters[0]]} {number_words(digits)}")
    return list(dict.fromkeys(forms))


def owner(*assets: Asset) -> CallerProfile:
    return CallerProfile("t1", "s1", ("technician",), "ACC-1", tuple(assets))


def asset(asset_id: str, kind: str = "unit", site: str = "1 Mill Lane, Leeds") -> Asset:
    return Asset(asset_id, "C1", "EU", site, kind=kind)


# A second asset of another shape, so the id must be told apart, not just "the only one".
DISTRACTOR = {shape: asset(other) for shape, other in zip(
    SHAPES, SHAPES[1:] + SHAPES[:1], strict=True)}


@pytest.mark.parametrize(("asset_id", "form", "carrier"), [
    (shape, form, carrier) for shape in SHAPES for form in said_forms(shape)
    for carrier in CARRIERS])
def test_an_id_the_caller_owns_is_recognised_however_it_is_said(asset_id, form, carrier):
    caller = owner(asset(asset_id), DISTRACTOR[asset_id])
    proposal = propose(carrier.format(id=form), context(caller=caller))
    slot = proposal.slot(ASSET)
    assert slot is not None and slot.value == asset_id, (form, proposal.reason)
    assert proposal.correction is not CorrectionKind.AUTHORITY


@pytest.mark.parametrize("asset_id", SHAPES)
def test_an_id_is_told_apart_from_the_callers_other_ids(asset_id):
    # The caller owns the id with the same letters and other digits, and the same digits with
    # other (non-confusable) letters: only the one said matches.
    letters, digits = parts(asset_id)
    other_digits = str(int(digits) + 1)
    other_letters = "w" * len(letters) if letters[0] not in "wu" else "h" * len(letters)
    caller = owner(asset(asset_id), asset(f"{letters.upper()}-{other_digits}"),
                   asset(f"{other_letters.upper()}-{digits}"))
    for form in said_forms(asset_id):
        assert propose(f"book {form} for friday", context(caller=caller)).slot(ASSET).value \
            == asset_id, form


def _confusable_letter(ch: str) -> str | None:
    for group in CONFUSABLE_LETTERS:
        if ch in group:
            return sorted(group - {ch})[0]
    return None


@pytest.mark.parametrize("asset_id", [s for s in SHAPES if _confusable_letter(parts(s)[0][0])])
@pytest.mark.parametrize("carrier", CARRIERS)
def test_a_confusable_id_is_a_question_about_the_owned_one(asset_id, carrier):
    letters, digits = parts(asset_id)
    heard = (_confusable_letter(letters[0]) + letters[1:]).upper() + f"-{digits}"
    caller = owner(asset(asset_id), DISTRACTOR[asset_id])
    proposal = propose(carrier.format(id=heard), context(caller=caller))
    slot = proposal.slot(ASSET)
    assert (slot.value, slot.candidates) == (None, (asset_id,)), proposal.reason
    assert slot.text == heard  # what the agent says it did not find
    assert proposal.correction is not CorrectionKind.AUTHORITY and proposal.authority is None


@pytest.mark.parametrize("said", ["vee two hundred", "V-200", "b 200", "t200", "E-200",
                                  "zed two hundred", "g 200"])
def test_recogniser_confusions_of_p_200(said):
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    slot = propose(f"send someone to {said} on thursday", context(caller=caller)).slot(ASSET)
    assert (slot.value, slot.candidates) == (None, ("P-200",))


@pytest.mark.parametrize("said", ["Z-999", "book x-4", "the QQ-77 please", "r 512 on monday"])
def test_an_id_confusable_with_none_is_a_question_about_all_of_the_callers(said):
    caller = owner(asset("P-100", "pump"), asset("C-7", "compressor"))
    proposal = propose(said, context(caller=caller))
    slot = proposal.slot(ASSET)
    assert slot.value is None and set(slot.candidates) == {"P-100", "C-7"}, proposal.reason
    assert proposal.correction is not CorrectionKind.AUTHORITY


def test_another_companys_asset_named_as_theirs_is_still_a_boundary():
    caller = owner(asset("P-100", "pump"))
    for said in ("book Globex's P-900 on friday", "send someone to Initech's compressor",
                 "book Z-999 for Acme on thursday"):
        proposal = propose(said, context(caller=caller))
        assert proposal.correction is CorrectionKind.AUTHORITY, said
        assert proposal.slots == ()


# -- one-digit ids never steal a time, a date or an address ----------------------------------

ONE_DIGIT = owner(asset("C-7", "compressor"), asset("G-7", "gearbox"), asset("K9", "compressor"))
# Two pumps at two sites, as the docs' caller `acme` has them
TWO_SITES = owner(asset("P-100", "pump", "12 Harbour Road, Rotterdam"),
                  asset("P-200", "pump", "4 Canal Street, Utrecht"))


@pytest.mark.parametrize("said", [
    "we need the pump at four Canal Street seen to a week tomorrow",
    "could the pump at 4 Canal Street be looked at on Friday",
    "the pump at 4 Canal Street needs a service on Friday",
])
def test_a_noun_with_the_address_of_one_asset_names_it(said):
    """Held-out set 25: "the pump at four Canal Street seen to" was read as the site "4 Canal
    Street, Seen" and the pump as either of two. A word of the clause after an address is no
    town, and the caller's own address, house number and all, names the one asset there."""
    proposal = propose(said, context(caller=TWO_SITES))
    assert proposal.slot(SITE).value == "4 Canal Street, Utrecht"
    assert proposal.slot(ASSET).value == "P-200"


@pytest.mark.parametrize(("said", "site"), [
    # "seen to" as a recogniser wrote it (held-out set 25, four voices)
    ("we need the pump at 4 Canal Street scene to a week tomorrow", "4 Canal Street, Utrecht"),
    ("the pump at 4 Canal Street, Scene 2, or week tomorrow", "4 Canal Street, Utrecht"),
    ("the visit is at 4 Canal Street in Amsterdam", "4 Canal Street, Amsterdam"),
])
def test_the_callers_own_street_is_their_site_unless_another_town_is_said_with_in(said, site):
    assert propose(said, context(caller=TWO_SITES)).slot(SITE).value == site


NOT_IDS = [
    ("book it for the 7th", {VISIT_DATE: "2026-12-07"}),
    ("can you come at 7 pm", {VISIT_TIME: "19:00"}),
    ("thursday at 9 am", {VISIT_TIME: "09:00"}),
    ("the visit is at 7 Dock Street, Rotterdam", {SITE: "7 Dock Street, Rotterdam"}),
    ("see you at 7 pm on monday", {VISIT_TIME: "19:00"}),
    ("we need 7 units done", {UNITS: "7"}),
    ("are 9 units enough", {UNITS: "9"}),
    ("on the 9th at 10", {VISIT_DATE: "2026-12-09"}),
    ("x 7 on friday", {}),
    ("option 7", {}),
]


@pytest.mark.parametrize(("said", "values"), NOT_IDS)
def test_one_digit_ids_do_not_steal_times_dates_or_addresses(said, values):
    proposal = propose(said, context(caller=ONE_DIGIT))
    assert proposal.slot(ASSET) is None, proposal.slots
    for field, value in values.items():
        assert proposal.slot(field).value == value, (field, proposal.slots)


@pytest.mark.parametrize(("said", "asset_id"), [
    ("c 7 at 9 am friday", "C-7"), ("gee seven on the 7th", "G-7"), ("k9 at 7 pm", "K9"),
    ("book see seven for 7 Dock Street", "C-7"), ("g-7, the 9th, at 10 am", "G-7"),
])
def test_a_one_digit_id_with_its_letters_said_is_the_asset_and_the_rest_stays(said, asset_id):
    proposal = propose(said, context(caller=ONE_DIGIT))
    assert proposal.slot(ASSET).value == asset_id
    assert proposal.slot(VISIT_DATE) is not None or proposal.slot(VISIT_TIME) is not None \
        or proposal.slot(SITE) is not None


def test_a_word_that_is_a_letter_name_does_not_make_a_one_digit_id():
    caller = owner(asset("R-2", "pump"), asset("U-4", "pump"))
    for said in ("are 2 units enough", "are 2 enough", "you 4 should come", "thank you 4 that"):
        assert find_assets(normalise(said), caller.assets) == (), said


# -- kinds -----------------------------------------------------------------------------------

KINDS = ("compressor", "gearbox", "chiller", "boiler", "air handler", "pump")


@pytest.mark.parametrize(("kind", "other"), list(itertools.permutations(KINDS[:4], 2)))
@pytest.mark.parametrize("carrier", ["send someone to the {k} on friday", "the {k}, monday",
                                     "book my {k} for thursday", "it's the {k}",
                                     "what's the seal torque for the {k}"])
def test_an_asset_is_named_by_its_kind(kind, other, carrier):
    caller = owner(asset("HX-3", kind), asset("Z-12", other))
    proposal = propose(carrier.format(k=kind), context(caller=caller))
    assert proposal.slot(ASSET).value == "HX-3", proposal.reason


def test_a_kind_of_several_words_is_named_by_its_last_word_too():
    caller = owner(asset("AH-2", "air handler"), asset("B-5", "boiler"))
    for said in ("the air handler on friday", "the handler on friday"):
        assert propose(said, context(caller=caller)).slot(ASSET).value == "AH-2"


@pytest.mark.parametrize("kind", KINDS)
def test_a_kind_several_assets_share_gives_candidates(kind):
    caller = owner(asset("A-10", kind), asset("A-20", kind), asset("G-7", "gearbox"))
    if kind == "gearbox":
        return
    slot = propose(f"send someone to the {kind} on friday", context(caller=caller)).slot(ASSET)
    assert (slot.value, set(slot.candidates)) == (None, {"A-10", "A-20"})


@pytest.mark.parametrize("noun", ["unit", "machine", "asset", "device"])
def test_a_generic_noun_names_the_one_asset_or_gives_candidates(noun):
    one = owner(asset("K-40", "chiller"))
    assert propose(f"book the {noun} for friday", context(caller=one)).slot(ASSET).value \
        == "K-40"
    two = owner(asset("K-40", "chiller"), asset("G-7", "gearbox"))
    slot = propose(f"book the {noun} for friday", context(caller=two)).slot(ASSET)
    assert (slot.value, set(slot.candidates)) == (None, {"K-40", "G-7"})


def test_a_kind_the_caller_has_none_of_names_nothing():
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    assert propose("send someone to the gearbox on friday",
                   context(caller=caller)).slot(ASSET) is None


def test_counts_and_other_assets_are_not_named_by_the_noun():
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    for said in ("both pumps on friday", "2 pumps on friday", "any pump will do",
                 "a single pump", "the pump seal torque"):
        assert propose(said, context(caller=caller)).slot(ASSET) is None, said
    assert propose("book a single unit", context(caller=caller)).slot(UNITS).value == "1"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("determiner", ["the", "my", "our", "that"])
@pytest.mark.parametrize("digits", ["200", "40", "1234"])
def test_an_ids_digits_said_as_a_name_before_its_kind_name_that_asset(kind, determiner, digits):
    """"the two hundred pump": digits as a name before one noun of the caller's kind are that
    asset (a blind held-out turn was read as 200 units); before a plural they still count."""
    caller = owner(asset(f"QX-{digits}", kind), asset("QX-7", kind))
    noun = kind.split()[-1]
    for said in (f"{determiner} {digits} {kind}, tomorrow please",
                 f"{determiner} {number_words(digits)} {noun} on friday"):
        proposal = propose(said, context(caller=caller))
        assert proposal.slot(ASSET).value == f"QX-{digits}", (said, proposal.reason)
        assert proposal.slot(UNITS) is None, said
    counted = propose(f"book {determiner} {digits} {noun}s for friday", context(caller=caller))
    assert counted.slot(ASSET) is None or counted.slot(ASSET).value is None


@pytest.mark.parametrize("determiner", ["the", "our"])
@pytest.mark.parametrize("digits", ["200", "1234"])
def test_three_or_more_digits_alone_after_a_determiner_name_the_one_asset_with_them(
        determiner, digits):
    """"Sorry, I meant the 100": a blind held-out turn's correction of the asset, heard without
    its letter. Digits no asset has, a count, a time and a day of the month name none."""
    caller = owner(asset(f"QX-{digits}", "pump"), asset("QX-7", "pump"))
    for said in (f"book {determiner} {digits} for friday",
                 f"book QX-7 on friday, sorry, I meant {determiner} {digits}"):
        proposal = propose(said, context(caller=caller))
        assert proposal.slot(ASSET).value == f"QX-{digits}", (said, proposal.reason)
    for said in (f"book {determiner} 999 for friday", f"{determiner} {digits} units please",
                 f"at {determiner} {digits} hours"):
        slot = propose(said, context(caller=caller)).slot(ASSET)
        assert slot is None or slot.value is None, said


@pytest.mark.parametrize("asset_id", [s for s in SHAPES if len(s) > 2])
@pytest.mark.parametrize("noun", ["unit", "pump", "compressor", "machine"])
def test_an_id_followed_by_a_singular_noun_is_that_asset(asset_id, noun):
    """"Not the compressor, sorry, the AB-12 unit": a singular noun after an id names the
    asset (a blind script's "AB-12 unit" was read as 12 units); a plural still counts."""
    caller = owner(asset(asset_id, noun), asset("QQ-77", "gearbox"))
    for said in (f"book the {asset_id} {noun} for friday", f"it's the {asset_id} {noun}"):
        proposal = propose(said, context(caller=caller))
        assert proposal.slot(ASSET).value == asset_id, (said, proposal.reason)
        assert proposal.slot(UNITS) is None, said


def test_digits_before_a_kind_that_no_asset_of_the_caller_has_name_none_of_them():
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    proposal = propose("the 300 pump please", context(caller=caller))
    assert proposal.slot(ASSET) is None
    assert proposal.slot(UNITS) is None  # a singular after a number is a name, not a count


def test_the_kind_said_of_the_asset_the_call_is_about_is_that_asset():
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    held = context(caller=caller, values={"asset": "P-200", "visit_date": "2026-12-03"})
    proposal = propose("what torque for the pump seal on the pump", held)
    assert proposal.slot(ASSET) is None or proposal.slot(ASSET).value == "P-200"
    assert propose("the pump, friday instead", held).slot(ASSET).value == "P-200"


@pytest.mark.parametrize(("said", "asset_id"), [
    ("the Rotterdam pump", "P-100"), ("the one in Utrecht", "P-200"),
    ("the pump at Canal Street", "P-200"), ("the Harbour Road one", "P-100"),
    # "it's the Utrecht one" heard without its "the"
    ("the Rotterdam pump, sorry, it's Utrecht one", "P-200")])
def test_an_asset_is_named_by_its_site(said, asset_id):
    assert propose(f"book {said} for friday", context(caller=TWO_SITES)).slot(ASSET).value \
        == asset_id


@pytest.mark.parametrize(("said", "asset_id"), [
    # a blind held-out turn: the correction names the asset by its site, after an id
    ("pump 200 on monday morning, sorry, I mean the one in Rotterdam", "P-100"),
    ("P-200 for friday, actually the Rotterdam pump", "P-100"),
    # a site said beside an id without a word of correcting is no correction of it
    ("P-200 on monday, the one in Rotterdam is fine too", "P-200"),
    ("book P-100, the Rotterdam pump, for friday", "P-100")])
def test_an_asset_named_by_its_site_after_a_correcting_word_corrects_the_id(said, asset_id):
    assert propose(said, context(caller=TWO_SITES)).slot(ASSET).value == asset_id, said


@pytest.mark.parametrize(("said", "asset_id"), [
    # a blind held-out turn: the place said with a noun of a place, no asset noun
    ("could we have someone at the Rotterdam site", "P-100"),
    ("send someone to the site in Utrecht", "P-200"),
    ("the Harbour Road premises", "P-100"), ("our yard in Utrecht", "P-200"),
    # a noun of a place without a place names nothing: the asset said stands
    ("P-200, the site team will let you in", "P-200")])
def test_an_asset_is_named_by_a_noun_of_its_place(said, asset_id):
    assert propose(f"{said} on friday", context(caller=TWO_SITES)).slot(ASSET).value \
        == asset_id, said


def test_a_noun_of_a_place_alone_names_no_asset():
    slot = propose("the site manager says friday", context(caller=TWO_SITES)).slot(ASSET)
    assert slot is None or slot.value is None


@pytest.mark.parametrize("said", ["we're in Utrecht 1 day a week", "Utrecht 1 pm",
                                  "one in Utrecht"])
def test_one_after_a_place_that_counts_or_tells_the_time_names_no_asset(said):
    slot = propose(f"{said}, friday", context(caller=TWO_SITES)).slot(ASSET)
    assert slot is None or slot.value is None, said


# The place a few words away from the kind, with a word of location before it.
@pytest.mark.parametrize(("said", "asset_id"), [
    ("the pump we have in Utrecht", "P-200"), ("the pump owner in Utrecht", "P-200"),
    ("the pump, the one out at our Rotterdam site", "P-100"),
    ("the pump that sits by Canal Street", "P-200")])
def test_an_asset_is_named_by_a_place_said_further_on(said, asset_id):
    assert propose(f"service {said} on friday", context(caller=TWO_SITES)).slot(ASSET).value \
        == asset_id


@pytest.mark.parametrize("said", [
    "the pump, not in Rotterdam",  # a place ruled out names no asset by itself
    "the pump, one in Rotterdam and one in Utrecht",  # places of both: still both
    "the pump, I'm calling from Rotterdam"])  # where the caller is
def test_a_place_that_does_not_pick_one_asset_leaves_the_choice_open(said):
    slot = propose(f"service {said} on friday", context(caller=TWO_SITES)).slot(ASSET)
    assert slot is None or slot.value is None, (said, slot)


@pytest.mark.parametrize(("said", "asset_id"), [
    ("Could the engineer coming to Canal Street on Friday come at 2 instead?", "P-200"),
    ("the visit you've got us down for on Thursday at Harbour Road, cancel it", "P-100"),
    ("so that Tuesday one on Canal Street, could it go to Friday?", "P-200")])
def test_a_street_of_the_callers_names_the_asset_there_with_no_noun_beside_it(said, asset_id):
    # a street is where an asset stands, not where the caller is (blind round 22)
    assert propose(said, context(caller=TWO_SITES)).slot(ASSET).value == asset_id


@pytest.mark.parametrize("said", [
    "book a visit for Friday, we're in Utrecht",  # a town: maybe where the caller is
    "book a visit for Friday, not at Canal Street"])  # a street ruled out
def test_a_town_or_a_street_ruled_out_names_no_asset_before_one_is_in_question(said):
    slot = propose(said, context(caller=TWO_SITES)).slot(ASSET)
    assert slot is None or slot.value is None, (said, slot)


def test_a_kind_correction_gives_the_asset_as_the_new_value():
    caller = owner(asset("G-7", "gearbox"), asset("C-7", "compressor"))
    held = context(caller=caller, values={"asset": "G-7", "visit_date": "2026-12-04"})
    proposal = propose("sorry, I meant the compressor", held)
    assert proposal.intent is Intent.CORRECTION
    assert proposal.slot(ASSET).value == "C-7"


def test_kind_matching_is_data_not_a_word_list():
    # An invented kind works as soon as an account says it: nothing in the code knows it.
    caller = owner(asset("ZZ-81", "flux capacitor"), asset("ZZ-82", "widget"))
    assert propose("the flux capacitor on friday", context(caller=caller)).slot(
        ASSET).value == "ZZ-81"
    assert propose("the widget on friday", context(caller=caller)).slot(ASSET).value == "ZZ-82"


def test_the_clock_is_not_read_by_asset_matching():
    # The same words give the same asset whatever the day (matching is pure).
    caller = owner(asset("C-7", "compressor"))
    assert TUESDAY.weekday() == 1
    assert find_assets("c 7", caller.assets)[0].asset_id == "C-7"


def test_a_heard_id_said_not_to_withdraws_nothing_of_the_callers():
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    held = context(caller=caller, values={"asset": "P-100", "visit_date": "2026-12-03"})
    for said in ("sorry, P-200, not V-200", "P-200 I said, not B-200"):
        proposal = propose(said, held)
        assert [(s.field, s.value, str(s.role)) for s in proposal.frame()] == [
            ("asset", "P-200", "to")], said


def test_a_confusable_id_of_the_asset_already_held_is_that_asset():
    caller = owner(asset("P-100", "pump"), asset("P-200", "pump"))
    held = context(caller=caller, values={"asset": "P-200", "visit_date": "2026-12-03"})
    slot = propose("B-200, on friday instead", held).slot(ASSET)
    assert slot.value == "P-200"
    other = context(caller=caller, values={"asset": "P-100", "visit_date": "2026-12-03"})
    slot = propose("B-200, on friday instead", other).slot(ASSET)
    assert (slot.value, slot.candidates) == (None, ("P-200",))


# -- an asset named by elimination or by its place alone --------------------------------------

HELD_P200 = {"asset": "P-200", "visit_date": "2026-12-04", "visit_window": "morning"}


@pytest.mark.parametrize("said", [
    # "in Rotterdam" misheard as "bin Rotterdam": the pump left is the one not ruled out
    "Hang on, it's the pump bin Rotterdam that's slating up, not the Utrecht one.",
    "It's the pump that's leaking, not P-200.",
    "Sorry, the pump, not the one in Utrecht."])
def test_the_kind_alone_is_the_one_left_when_the_turn_rules_out_the_one_held(said):
    proposal = propose(said, context(caller=TWO_SITES, values=HELD_P200))
    assert proposal.slot(ASSET).value == "P-100", proposal.slots
    assert (ASSET, "P-200") in proposal.withdrawn


def test_the_kind_alone_with_more_than_one_left_stays_open():
    three = owner(*TWO_SITES.assets, asset("P-300", "pump", "9 Quay Lane, Delft"))
    slot = propose("It's the pump that's leaking, not the Utrecht one.",
                   context(caller=three, values=HELD_P200)).slot(ASSET)
    assert (slot.value, set(slot.candidates)) == (None, {"P-100", "P-300"})


def test_an_id_said_and_ruled_out_stays_as_said():
    # nothing to eliminate: the caller named the id (the trust check asks about it)
    slot = propose("It's P-200, not the Utrecht one.",
                   context(caller=TWO_SITES, values=HELD_P200)).slot(ASSET)
    assert slot.value == "P-200"


@pytest.mark.parametrize(("said", "asset_id"), [
    ("No, Rotterdam.", "P-100"), ("Rotterdam, please.", "P-100"),
    ("It's Harbour Road.", "P-100"), ("Sorry, I meant Utrecht.", "P-200"),
    ("No, it's Canal Street, thanks.", "P-200")])
def test_a_place_said_on_its_own_names_the_asset_there(said, asset_id):
    for values in ({}, HELD_P200):
        assert propose(said, context(caller=TWO_SITES, values=values)).slot(ASSET).value \
            == asset_id, (said, values)


@pytest.mark.parametrize(("said", "asset_id"), [
    ("Yes, that's right, but well in Rotterdam.", "P-100"),  # "the one in Rotterdam"
    ("Could they come at Harbour Road instead?", "P-100"),
    ("I need someone in Utrecht then.", "P-200")])
def test_a_place_after_a_word_of_location_names_the_asset_once_the_call_is_about_one(
        said, asset_id):
    held = {"asset": "P-100" if asset_id == "P-200" else "P-200"}
    assert propose(said, context(caller=TWO_SITES, values=held)).slot(ASSET).value == asset_id
    asked = propose(said, context(caller=TWO_SITES, expecting=ASSET)).slot(ASSET)
    assert asked.value == asset_id


def test_a_place_two_assets_share_names_neither():
    both = owner(asset("P-100", "pump", "12 Harbour Road, Rotterdam"),
                 asset("P-200", "pump", "4 Dock Street, Rotterdam"))
    for values in ({}, {"asset": "P-200"}):
        assert propose("No, Rotterdam.", context(caller=both, values=values)).slot(ASSET) \
            is None, values


@pytest.mark.parametrize(("said", "asset_id"), [
    # blind round 10: "Could we shift the visit in Utrecht to Friday the 11th?"
    ("could we shift the visit in Utrecht to friday", "P-200"),
    ("cancel our Rotterdam booking please", "P-100"),
    ("the appointment at Canal Street, move it to friday", "P-200"),
    ("call off the job on Harbour Road", "P-100"),
    ("the service visit in Rotterdam on friday", "P-100")])
def test_an_asset_is_named_by_a_visit_at_its_place(said, asset_id):
    assert propose(said, context(caller=TWO_SITES)).slot(ASSET).value == asset_id, said


@pytest.mark.parametrize("said", ["move the visit on monday to friday",
                                  "cancel the booking, the one for monday",
                                  "the appointment for friday, we're in Utrecht"])
def test_a_visit_without_a_place_names_no_asset(said):
    slot = propose(said, context(caller=TWO_SITES)).slot(ASSET)
    assert slot is None or slot.value is None, (said, slot)


TWO_TOWNS = CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (
    Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam", kind="pump"),
    Asset("P-200", "C1", "EU", "4 Canal Street, Utrecht", kind="pump")))
BOOKED_P200 = (("BK-1", "P-200", "2026-12-02"),)


@pytest.mark.parametrize(("said", "meant"), [
    ("you're already coming to canal street on wednesday but we need another visit for that "
     "pump on friday", "P-200"),
    ("we've got the utrecht pump booked in, can you book the same pump for friday too", "P-200"),
    ("we've already got someone coming for the harbour road pump can we also get someone for "
     "the other pump on friday", "P-200"),
    ("the utrecht visit is fine, could we also get someone for the other pump on friday",
     "P-100"),
])
def test_a_pump_pointed_back_to_or_away_from_is_the_one_the_turn_named(said, meant):
    """Blind text round 30: "that pump" and "the other pump" after a pump named by its place
    earlier in the same turn asked "which pump?"."""
    p = propose(said, context(TUESDAY, TWO_TOWNS, bookings=BOOKED_P200))
    assert p.intent is Intent.BOOK
    assert {s.field: s.value for s in p.slots}[ASSET] == meant


@pytest.mark.parametrize("person", ["the engineer", "someone", "a technician", "the fitter"])
@pytest.mark.parametrize(("said", "asset_id"), [
    ("the Rotterdam pump", "P-100"), ("the Utrecht one", "P-200"),
    ("our Harbour Road pump", "P-100"), ("the Canal Street pump's", "P-200")])
@pytest.mark.parametrize("link", ["for", "at", "to"])
def test_a_place_that_opens_the_next_noun_phrase_names_that_asset(person, said, asset_id, link):
    """Blind round 37: "we won't be needing the engineer for the Rotterdam pump" was read as an
    engineer for Rotterdam, then "pump" alone (both of the caller's pumps)."""
    for turn in (f"we need {person} {link} {said} on friday",
                 f"we won't be needing {person} {link} {said} after all",
                 f"we don't need {person} {link} {said} on friday any more"):
        assert propose(turn, context(caller=TWO_SITES)).slot(ASSET).value == asset_id, turn


@pytest.mark.parametrize("said", ["the Rotterdam pump pump", "pump pump P-100",
                                  "our Harbour Road pump pump"])
def test_a_kind_said_twice_in_a_row_is_said_once(said):
    """Blind round 37: "the Rotterdam pump" heard "the Rotterdam pump pump"; the second
    "pump" alone named both of the caller's pumps."""
    turn = f"we won't be needing the engineer for {said} after all"
    assert propose(turn, context(caller=TWO_SITES)).slot(ASSET).value == "P-100", turn


@pytest.mark.parametrize(("said", "asset_id"), [
    ("Harbour Road, visit to Monday afternoon, please.", "P-100"),  # blind round 39, heard so
    ("Canal Street, pump needs looking at on Friday.", "P-200"),
    ("Rotterdam, booking on Friday, could it be the afternoon?", "P-100"),
    ("the Utrecht, engineer, can he come on Friday?", "P-200"),
])
def test_a_comma_between_a_place_and_its_noun_is_the_recognisers(said, asset_id):
    """Blind round 39: "Could you move the <pause> Harbour Road visit to Monday afternoon?"
    came back with a comma at the pause, and "Harbour Road, visit" named no asset."""
    assert propose(said, context(caller=TWO_SITES)).slot(ASSET).value == asset_id, said


def test_a_comma_after_a_place_does_not_outweigh_an_asset_named_by_its_id():
    said = "We're near Rotterdam, pump P-200 needs a visit on Friday."
    assert propose(said, context(caller=TWO_SITES)).slot(ASSET).value == "P-200"
