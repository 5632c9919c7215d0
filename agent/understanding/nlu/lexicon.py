"""The words of values the rule-based proposer recognises: days, months, windows, letters, asset
nouns, languages, regions, streets. Data only: no logic lives here.

The words of intents, corrections and authority boundaries are in
:mod:`agent.understanding.nlu.intent_words`, :mod:`agent.understanding.nlu.correction_words` and
:mod:`agent.understanding.nlu.authority_words`.
Patterns are regular-expression fragments matched against *normalised* text (see
:mod:`agent.understanding.nlu.normalise`): lower case, numbers as digits, punctuation reduced to
commas.
"""

from __future__ import annotations

# Names, abbreviations and recogniser spellings. "mon", "wed", "sat" and "sun" are also
# everyday words; agent.understanding.nlu.dates reads them as weekdays only where the words around
# allow it.
WEEKDAYS: dict[str, int] = {
    "monday": 0, "mon": 0,
    "tuesday": 1, "tues": 1, "tue": 1, "chewsday": 1,
    "wednesday": 2, "weds": 2, "wed": 2, "wensday": 2, "wendsday": 2,
    "thursday": 3, "thurs": 3, "thur": 3, "thu": 3, "thirsday": 3,
    "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5,
    "sunday": 6, "sun": 6,
}

def ordinal(n: int) -> str:
    """``n`` with its ordinal suffix ("1st", "22nd", "13th"), as the reading writes a day."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")  # in calendar order
MONTHS = "|".join(MONTH_NAMES) + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"

# Words that may follow an ordinal used as a day of the month ("the 2nd at 10", "the 4th, please",
# "Tuesday the 2nd works", "the 21st if you can"): closed-class words (prepositions, conjunctions,
# pronouns, auxiliaries, adverbs), verbs of suiting, and the words of a time or window. Any other
# word after an ordinal is the noun it modifies ("second thoughts", "a second opinion", "the first
# time", "second visit"): the ordinal is then a rank, not a date. "of" counts only before a month
# or "next/this month" (those are read as dates by their own patterns).
ORDINAL_DATE_FOLLOWERS = frozenset(
    "at in on or and but if then so for to till until from around round about by between before "
    "after say "
    "instead rather either please preferably ideally maybe perhaps possibly too also as again "
    "now only though actually really ok okay yes yeah no not nope sorry thanks thank cheers "
    "would could should will shall can might may must is was are be being been do does did "
    "would've could've it it's its that that's this those these there here we i you they he she "
    "me us them our my your works work working suits suit suiting sounds sound fits fit looks "
    "look seems seem isn't wasn't won't wouldn't can't cannot don't doesn't we're "
    "we'd i'd you'd we'll i'll you'll they'd they're fine good great better best ideal perfect "
    "free open available clear booked any anytime sometime some when where what which whichever "
    "who how with without via like morning mornings afternoon afternoons evening evenings night "
    "noon midday lunch lunchtime am pm early earlier late later nor yet still even just "
    "whatever way the same latest earliest onwards onward otherwise tho anymore anyway anyhow "
    "altogether "
    # the rest of the closed class: prepositions and conjunctions, and the fillers a recogniser
    # writes down ("Monday, er, towards the end of the day")
    "towards toward through throughout during within past near over up upon onto into off out "
    "across along beyond plus per unless while whilst since because although whether "
    "um umm uh uhh er erm ah ahh hmm mm well right "
    # a pronoun with its verb starts the next clause ("the one on Friday the 11th I'm calling
    # off")
    "i'm i've we've you've they've you're he's she's there's here's he'd she'd he'll she'll "
    "they'll it'll that'll".split()
)

# Relative day words dateparser reads correctly against RELATIVE_BASE.
RELATIVE_DAYS = r"today|tomorrow|day after tomorrow|yesterday|day before yesterday|in \d+ days?"

WINDOWS: dict[str, str] = {
    "morning": "morning", "mornings": "morning", "before noon": "morning",
    "before lunch": "morning", "in the am": "morning",
    # "first thing Friday", "end of the day Thursday": the start and the close of the working day
    # (normalised text writes "first" as "1st")
    "1st thing": "morning", "early in the day": "morning",
    "afternoon": "afternoon", "afternoons": "afternoon", "after lunch": "afternoon",
    "in the pm": "afternoon", "end of the day": "afternoon", "end of day": "afternoon",
    "late in the day": "afternoon", "later in the day": "afternoon",
    # Parts of the day outside the visiting hours: read, so the agent can say it cannot come
    # then (validation refuses them as outside_hours), never dropped as if unsaid.
    "evening": "evening", "evenings": "evening", "tonight": "evening",
    "after hours": "evening", "out of hours": "evening", "after work": "evening",
    "at night": "night", "night": "night", "nights": "night", "overnight": "night",
    "in the middle of the night": "night",
}

# Spoken letter names that speech recognisers write out ("pee two hundred" -> "p 200").
# Only names that are not also everyday words before a number ("are 2 units" stays).
LETTER_NAMES: dict[str, str] = {
    "pee": "p", "pea": "p", "bee": "b", "see": "c", "cee": "c", "dee": "d", "eff": "f", "gee": "g",
    "jay": "j", "kay": "k", "key": "k", "ess": "s", "tee": "t", "vee": "v", "zed": "z", "zee": "z",
}
# Letters a recogniser confuses with each other: plosives and nasals, and letter names that
# rhyme ("bee", "pee", "vee", "ee", "zee"; "ay", "kay"; "ef", "ess", "ex"): "V-200" for "P-200".
CONFUSABLE_LETTERS: tuple[frozenset[str], ...] = (
    frozenset("pbtdgk"), frozenset("mn"), frozenset("cz"), frozenset("fsx"), frozenset("vb"),
    frozenset("bcdegptvz"), frozenset("ahjk"), frozenset("flmnsx"), frozenset("iy"),
    frozenset("qu"),
)
# Every way a letter of an asset id is said, matched only inside an id the caller owns
# ("ay bee twelve" for AB-12, "papa two hundred" for P-200). Names that are everyday words
# (COMMON_WORD_LETTERS) count only before two or more digits or after another letter, so
# "are 2 units" never names R-2.
SPOKEN_LETTERS: dict[str, str] = {
    **LETTER_NAMES,
    "ay": "a", "eh": "a", "be": "b", "sea": "c", "si": "c", "ee": "e", "ef": "f", "aitch": "h",
    "haitch": "h", "eye": "i", "jey": "j", "kaye": "k", "el": "l", "ell": "l", "em": "m",
    "en": "n", "oh": "o", "cue": "q", "queue": "q", "are": "r", "ar": "r", "es": "s", "tea": "t",
    "you": "u", "yu": "u", "double you": "w", "double u": "w", "ex": "x", "why": "y", "wye": "y",
    "alpha": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e", "foxtrot": "f",
    "golf": "g", "hotel": "h", "india": "i", "juliet": "j", "kilo": "k", "lima": "l", "mike": "m",
    "november": "n", "oscar": "o", "papa": "p", "quebec": "q", "romeo": "r", "sierra": "s",
    "tango": "t", "uniform": "u", "victor": "v", "whiskey": "w", "whisky": "w", "x-ray": "x",
    "xray": "x", "yankee": "y", "zulu": "z",
}
COMMON_WORD_LETTERS = frozenset(
    "a i be see you are why oh eye key".split())
# Nouns that name any of the caller's assets, whatever its kind ("the unit", "the machine").
# An asset's own kind ("pump", "compressor", "gearbox") comes from the caller's data.
GENERIC_ASSET_NOUNS = ("unit", "machine", "asset", "device", "equipment")
# Words before an asset noun that point away from one asset ("the other pump", "both
# units", "any machine"): no asset is named by the noun then.
NOT_ONE_ASSET = frozenset(
    "other another both all each every any no which what per whichever second single".split())
# Words around a configuration ("configuration C2", "the C2 variant"): that is no asset id.
CONFIGURATION_WORDS = r"configuration|config|variant|build"
# Words before "'s" that are no owner of an asset ("it's P-100", "what's the pump...").
NOT_AN_OWNER = frozenset(
    "it that what there here he she who let one where how why when everyone nobody today "
    "tomorrow yesterday this which mine name".split())
# Words after "for" that name no party ("book Z-9 for next week", "for later").
NOT_A_PARTY = frozenset(
    "next this later now asap soon tonight morning afternoon evening noon midday lunch week "
    "weekend month day days it them us me him her both all everyone everybody one two".split())
# Letters that start a booking reference, not an asset id ("bk 1042").
BOOKING_REF_PREFIXES = frozenset({"bk"})
# Short words that look like an asset prefix before a number ("at 10") but never are one.
NOT_ASSET_PREFIXES = frozenset(
    "a i at on in by to is it or of me my am pm th st nd rd no so be we do go as an if up "
    "us eu uk the for and".split()
)
ASSET_NOUNS = r"pumps?|units?|machines?|assets?|models?|compressors?|devices?"

UNIT_NOUNS = r"units?|pumps?|machines?|devices?|compressors?|assets?"
# The plurals alone: a number before one counts ("25 units"); before a singular it is a name
# ("the AB-12 unit", "the P-200 pump").
PLURAL_UNIT_NOUNS = r"units|pumps|machines|devices|compressors|assets"

LANGUAGES: dict[str, str] = {
    "english": "en", "french": "fr", "francais": "fr", "français": "fr", "german": "de",
    "deutsch": "de", "spanish": "es", "espanol": "es", "español": "es", "dutch": "nl",
    "nederlands": "nl", "italian": "it", "italiano": "it", "portuguese": "pt", "polish": "pl",
    "swedish": "sv", "danish": "da",
}

REGIONS: dict[str, str] = {
    "eu": "EU", "e u": "EU", "europe": "EU", "european union": "EU", "us": "US", "u s": "US",
    "usa": "US", "united states": "US", "america": "US", "uk": "UK", "u k": "UK",
    "united kingdom": "UK", "britain": "UK", "apac": "APAC", "asia": "APAC",
}

STREET_WORDS = (
    r"road|rd|street|st|avenue|ave|lane|ln|way|drive|dr|boulevard|blvd|square|sq|place|pl"
    r"|quay|kade|straat|weg|laan|plein|gracht|strasse|straße|court|ct|park|terrace|close"
)
