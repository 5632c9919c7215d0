"""Words the rule-based proposer recognises. Data only: no logic lives here.

Kept in one place so a reviewer can see (and extend) every phrase that moves a decision.
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

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")  # in calendar order
MONTHS = "|".join(MONTH_NAMES) + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"

# Relative day words dateparser reads correctly against RELATIVE_BASE.
RELATIVE_DAYS = r"today|tomorrow|day after tomorrow|yesterday|day before yesterday|in \d+ days?"

WINDOWS: dict[str, str] = {
    "morning": "morning", "mornings": "morning", "before noon": "morning",
    "before lunch": "morning", "in the am": "morning",
    "afternoon": "afternoon", "afternoons": "afternoon", "after lunch": "afternoon",
    "in the pm": "afternoon",
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

# ----------------------------------------------------------------------------- intents
YES = (
    r"yes|yeah|yep|yup|ya|yah|sure|correct|right|that'?s right|that is right|ok|okay|alright"
    r"|all right|sounds good|perfect|please do|absolutely|of course|affirmative|confirm(?:ed)?"
    r"|that'?s correct|exactly|fine|great|go ahead|do it|book it|yes please|aye|uh-?huh"
    r"|mm-?hm+|indeed|certainly|definitely|go for it|grand|lovely|brilliant|spot on"
    r"|that'?s (?:it|the one|grand|great|fine|perfect|lovely)|you got it|works for me"
)
GO_AHEAD = (
    r"go ahead|go for it|proceed|book it|do it|please do|confirm(?:ed)?|that'?s fine|"
    r"yes,? (?:and|but|please)|sounds good|lock it in"
)
NO = (
    r"no|nope|nah|no thanks|no thank you|negative|don'?t|do not|wrong|incorrect|not yet"
    r"|that(?:'s| is) (?:not (?:right|correct|it)|wrong|incorrect)|hold on|wait|stop"
)
BOOK = (
    r"book|booking|schedule|arrange|set up|need (?:a|an|someone)|send (?:a|an|someone)"
    r"|(?:service|maintenance|repair|engineer|technician) visit|appointment|come (?:out|by|over)"
    r"|(?:can|could|would|will) (?:you|someone|somebody|a technician|an engineer) come"
    r"|service call|visit"
)
# Moving a visit is a verb of moving followed, within a few words, by where it goes ("push my
# booking to Friday", "bring it forward", "shift it from the 2nd to the 4th"), or a verb that
# means moving on its own ("reschedule", "postpone", "rebook").
_VISIT = (
    r"(?:visit|booking|appointment|service|call[- ]out|job|slot|engineer|technician|it|that|this"
    r"|them)"
)
MOVE_ALONE = r"reschedul\w*|postpon\w*|re-?book\w*|re-?arrang\w*|put (?:it|that|the \w+) off"
MOVE_VERBS = r"move|moving|shift|shifting|push|pushing|bring|bringing|change|changing|switch|swap"
MOVE_WHERE = r"to|till|until|into|back|forward|forwards|earlier|later|along"
RESCHEDULE = (
    rf"{MOVE_ALONE}"
    rf"|(?:{MOVE_VERBS}) (?:(?!down\b|me\b|us\b)[\w'-]+ ){{0,4}}?(?:{MOVE_WHERE})\b"
    rf"|(?:move|shift) (?:my |our |the |that |this )?{_VISIT}\b"
    r"|put (?:it|that|this|the \w+|my \w+|our \w+) (?:back|forward|off)\b"
    r"|different day|another day"
)
# Calling a visit off, with or without the word "cancel": a verb of removing with the visit
# (or "it", "the whole thing") as its object, or not needing the visit or the person any more.
_GONE = (
    r"(?:the |my |our |that |this |a |any |the whole )?(?:visit|booking|appointment|request|job"
    r"|engineer|technician|thing|call[- ]out|service call)s?"
)
_PERSON = (
    r"(?:anyone|anybody|someone|somebody|a technician|the technician|an engineer|the engineer"
    r"|a visit|the visit|a service visit|the booking|the appointment|them|you|it)"
)
CANCEL = (
    r"cancel\w*|call (?:it|that|the \w+|everything|the whole thing) off|call off"
    rf"|(?:scrap|drop|forget|withdraw|ditch|bin|kill|abandon|cancel) (?:about )?(?:it|that"
    rf"|everything|{_GONE})\b"
    rf"|(?:knock|knocked) (?:it|that|{_GONE}) on the head"
    r"|take (?:us|me|it|that) off (?:the|your) (?:schedule|list|books|calendar|diary)"
    rf"|(?:won'?t|will not|don'?t|do not|doesn'?t|does not|no longer|not going to"
    rf"|won'?t be) (?:really )?(?:need|want|require|be needing|need to have) {_PERSON}"
    r"|no (?:visit|engineer|technician|one|booking|appointment)s? (?:is |are )?(?:needed"
    r"|required|necessary)"
    r"|no (?:need|point) (?:for|in) (?:a |the |any )?(?:visit|engineer|technician|booking"
    r"|appointment|anyone|someone)"
    r"|no need (?:for anyone |for someone )?to (?:come|send|visit)"
    r"|(?:don'?t|do not) bother (?:sending|coming|with the visit|with the booking)"
    r"|(?:can|could) do without (?:it|that|the visit|the booking|the engineer|the technician"
    r"|a visit)"
    r"|not needed any ?more"
)
# Words that make a turn a question even when it also names a visit.
QUESTION = (
    r"how (?:do|does|should|can|tight|much|many|often|long)|what(?:'s| is| are| does)|which"
    r"|tell me|torque|spec\w*|instructions?|manual"
)
MAINTENANCE = (
    r"how (?:do|should|can|tight|much|many|often|long)|what(?:'s| is) the|torque|procedure"
    r"|manual|instructions?|spec\w*|maintenance|service interval|replace|tighten|install"
)
POLICY = (
    r"return\w*|refund\w*|send (?:it|this|them) back|exchange|restocking|warranty"
    r"|money back"
)
# A person: a verb of talking with a person noun nearby, or asking to be put through.
_PEOPLE = (r"person|human|humans|someone|somebody|anyone|anybody|agent|representative|rep"
           r"|operator|colleague|manager|supervisor|people|staff|real person|actual person")
HUMAN = (
    rf"(?:speak|talk|chat|have a word|word)(?: \w+){{0,3}}? (?:to"
    rf"|with) (?:\w+ ){{0,2}}?(?:{_PEOPLE})\b"
    rf"|(?:speak|talk|chat|have a word)(?: \w+){{0,2}}? (?:{_PEOPLE})\b"
    r"|(?:real|live|actual) (?:person|human|agent|people)|transfer me|human please|agent please"
    r"|representative|operator|put me through|connect me"
    r"|(?:get|give|find) me (?:a |an |the |some |your )?(?:person|human|manager|supervisor|agent"
    r"|operator|colleague)"
    r"|is there (?:a|an|any) (?:human|person|real person)"
)
GOODBYE = (
    r"bye|goodbye|good bye|bye bye|see you|nothing else"
    r"|that'?s all(?=$|,| thanks| thank you| for now| i need| from me| bye)|that is all(?=$|,)"
    r"|have a (?:good|nice) (?:day|one)|hang up|i'?m done|we'?re done|thanks,? bye"
)

# ------------------------------------------------------------------------- corrections
REPLACE_MARKERS = (
    r"actually|make (?:that|it)|change (?:that|it) to|i meant|i mean|meant to say|i said"
    r"|instead|sorry|rather|correction|scratch that|cancel that|let'?s (?:say|do|make it)|oops"
    r"|my mistake|switch (?:it|that) to|no wait|wait"
)
# A negation reaches to the end of its clause: "not X", "instead of X", and a negated verb of
# doing or coming ("please don't come on Monday", "don't book Friday", "we can't have anyone
# on the 3rd"). "Don't mind", "don't worry" and "don't care" are not negations of a value.
NEGATION_SPLIT = (
    r"\bnot\b|\binstead of\b|\brather than\b|\bno longer\b|\bscratch\b(?! that\b| this\b| it\b"
    r"| what\b)"
    r"|\b(?:don'?t|do not|can'?t|cannot|won'?t|will not|couldn'?t|could not)"
    r"(?! mind\b| worry\b| care\b| matter\b| know\b| think\b| mean\b| forget\b| hesitate\b)"
    r"(?= \w)"
)
# "Wednesday doesn't work", "the morning's no good": the negation follows the value.
_BAD = (r"no good|not good|not any good|bad|out|off|impossible|not possible|no use|a no"
        r"|not going to (?:happen|work)|a bad day|tricky|difficult|not ideal|taken|full|a problem"
        r"|out of the question|not an option|no go|a no-go|not convenient|inconvenient")
NEGATION_AFTER = (
    r"(?:doesn'?t|does not|won'?t|will not|wouldn'?t|would not|isn'?t|is not|aren'?t|are not"
    r"|can'?t|cannot) (?:\w+ )?(?:work|suit|do|happen|possible|good|ok|okay|ideal|great"
    r"|convenient|fine)"
    rf"|(?:is|are|was|looks|seems) (?:{_BAD})"
)
NEGATION_AFTER_CLITIC = rf"(?:'s|'re) (?:{_BAD}|not (?:\w+ )?(?:work|suit|possible|good|ok|okay))"
# A constraint dropped: any day, whichever window, not fussed about the time.
_RELAXED = (r"(?:not fussed|not bothered|don'?t mind|do not mind|don'?t care|do not care"
            r"|don'?t worry|do not worry|easy|flexible|relaxed|happy|open)"
            r" (?:about |on |with |which |what |as to )?(?:the |which |what )?")
_FINE = r"(?:is |are |'s )?(?:fine|ok|okay|good|great|works?|will do|suits?|is good)"
CLEAR_PATTERNS: dict[str, str] = {
    "visit_date": (
        r"(?:any|whatever|whichever) (?:day|date|weekday)s?(?: (?:at all|this week|next week))?"
        r"|whenever(?! you| i\b)|(?:the )?(?:day|date)s? (?:doesn'?t|does not|don'?t) matter"
        rf"|{_RELAXED}(?:day|date)s?\b|(?:day|date) is flexible|any time this week"
    ),
    "visit_window": (
        r"any (?:time|slot|window|hour)s?(?! this week)|(?:the )?(?:time|window"
        r"|slot) (?:doesn'?t|does not) matter"
        r"|morning or afternoon|afternoon or morning|(?:either|any) (?:window|time of day|half)"
        rf"|{_RELAXED}(?:time|window|slot|hour)s?\b|(?:time|window) is flexible|whatever time"
        rf"|(?:any|whatever|whichever) (?:time|slot|window)s? {_FINE}"
    ),
}
REFERENT_ASSET = r"(?:the |my |our )?other (?:one|1|pump|unit|machine|asset|device|compressor)"
REFERENT_BOOKING = r"(?:the |my |our )?other (?:booking|appointment|visit|reservation)"

# --------------------------------------------------------------------------- authority
AUTHORITY: dict[str, str] = {
    # An account is named by a number or id ("account 77", "account GLOBEX-042"), never by
    # an idiom: "on account of the weather", "take it into account", "account for".
    "other account": (
        r"(?:for|on|to|under|with|from|onto|against) (?:the |their |another |a different )?"
        r"account (?:number |no |#)?(?P<account>[a-z]*[ -]?\d[\w-]*)"
        r"|account (?:number |no |to |is |id )?(?P<account2>[a-z]+[ -]?\d+|\d{2,})"
        r"|(?:another|a different|someone else'?s|somebody else'?s|their"
        r"|other) (?:customer'?s? )?account"
        r"|(?:on|to|under|against|onto) (?P<owner>[a-z][a-z0-9-]+)'s account"
    ),
    "other tenant": (
        r"(?:calling|phoning|ringing|speaking|acting) (?:for|on behalf of) (?P<org>[a-z][a-z0-9-]*)"
        r"|on behalf of (?P<org2>[a-z][a-z0-9-]*)"
        r"|other (?:tenants?|customers?|companies|clients)'?"
        r"|another (?:tenant|customer|company|client)'?s?"
    ),
    "other person": (
        r"(?:my |a |the )?(?:colleague|coworker|co-worker|boss|manager|wife|husband|partner"
        r"|friend|neighbou?r|brother|sister|someone else|somebody else)'?s?"
        r" (?:booking|appointment|visit|account|pump|order)"
        r"|(?:for|on behalf of) (?:my |a )?(?:colleague|coworker|co-worker|boss|wife|husband"
        r"|partner|friend|neighbou?r|brother|sister|someone else|somebody else)\b"
    ),
    "filter override": (
        r"search everything|ignore (?:the |all |your )?(?:filters?|rules|restrictions|scope"
        r"|permissions?)|all (?:tenants|customers|manuals|documents)|without (?:the )?filters?"
        r"|bypass|override (?:the )?(?:filters?|scope|permissions?)|admin mode"
        r"|as (?:an |the )?(?:admin|administrator|supervisor|root)"
    ),
    "identity claim": (
        r"(?:set |change |switch |make )?(?:my |the )?(?:role|roles|tenant|permissions?)"
        r" (?:is|are|to|as)\b|i(?:'m| am) (?:an? |the )?(?:admin|administrator|supervisor"
        r"|superuser|root)\b|use tenant\b"
    ),
}

# Billing someone: an act of billing or moving the cost, then the party it goes to.
BILLING_ACT = (
    r"(?:bill|billed|billing|charge|charged|charging|invoice|invoiced|invoicing)"
    r"|put (?:it|this|that|the \w+|them) on"
    r"|send (?:the |an? )?(?:bill|invoice)s?"
)
# Words that name the caller's own side: billing them is no boundary at all.
SELF_PARTY = frozenset(
    "us me our my ours mine we usual same normal it this that them the visit booking one "
    "account company firm".split()
)

# Words after "calling for" that are not an organisation ("calling for a service visit").
NOT_AN_ORG = frozenset(
    "a an the my our me myself us you your help service services information info about "
    "booking visit some someone somebody him her them this that it advice support quote "
    "update repair repairs maintenance assistance question questions pump pumps unit units "
    "appointment appointments engineer technician home work site office return returns "
    "refund again now today tomorrow".split()
)
