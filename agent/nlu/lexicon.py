"""Words the rule-based proposer recognises. Data only: no logic lives here.

Kept in one place so a reviewer can see (and extend) every phrase that moves a decision.
Patterns are regular-expression fragments matched against *normalised* text (see
:mod:`agent.nlu.normalise`): lower case, numbers as digits, punctuation reduced to commas.
"""

from __future__ import annotations

WEEKDAYS: dict[str, int] = {
    "monday": 0,
    "tuesday": 1, "tues": 1, "tue": 1, "chewsday": 1,
    "wednesday": 2, "weds": 2, "wensday": 2, "wendsday": 2,
    "thursday": 3, "thurs": 3, "thur": 3, "thirsday": 3,
    "friday": 4, "fri": 4,
    "saturday": 5,
    "sunday": 6,
}

MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)

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
# Letters a recogniser confuses with each other (plosives, nasals): "B-200" for "P-200".
CONFUSABLE_LETTERS: tuple[frozenset[str], ...] = (
    frozenset("pbtdgk"), frozenset("mn"), frozenset("cz"), frozenset("fsx"), frozenset("vb"),
)
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
    r"|that'?s correct|exactly|fine|great|go ahead|do it|book it|yes please"
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
RESCHEDULE = (
    r"reschedul\w*|move (?:my|the|our|it|that)\w*|postpone|push (?:it|the|my) back"
    r"|change (?:my|the|our) (?:booking|appointment|visit|date)|different day|another day"
    r"|bring (?:it|the visit) forward"
)
CANCEL = (
    r"cancel\w*|call (?:it|the visit) off|call off"
    r"|(?:don'?t|do not) (?:need|want) (?:the|a|that|my|this) (?:visit|booking|appointment)"
    r"|no longer need|drop the (?:booking|visit|appointment)|scrap (?:the|my|that)"
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
HUMAN = (
    r"(?:speak|talk|chat) (?:to|with) (?:a |an |the |some |)(?:person|human|someone|somebody"
    r"|agent|representative|operator|colleague|manager|supervisor|real person|people)"
    r"|(?:real|live) (?:person|human|agent)|transfer me|human please|agent please"
    r"|representative|operator|put me through|connect me"
)
GOODBYE = (
    r"bye|goodbye|good bye|bye bye|see you|that'?s all|that is all|nothing else"
    r"|have a (?:good|nice) (?:day|one)|hang up|i'?m done|we'?re done|thanks,? bye"
)

# ------------------------------------------------------------------------- corrections
REPLACE_MARKERS = (
    r"actually|make (?:that|it)|change (?:that|it) to|i meant|i mean|meant to say|i said"
    r"|instead|sorry|rather|correction|scratch that|cancel that|let'?s (?:say|do|make it)|oops"
    r"|my mistake|switch (?:it|that) to|no wait|wait"
)
NEGATION_SPLIT = (
    r"\bnot\b|\binstead of\b|\brather than\b|\bno longer\b|\bcan'?t do\b|\bcannot do\b"
    r"|\bdon'?t want\b|\bdo not want\b"
    r"|\bcan'?t make\b|\bcannot make\b"
)
# "Wednesday doesn't work": the negation follows the value.
NEGATION_AFTER = (
    r"(?:doesn'?t|does not|won'?t|will not|wouldn'?t) (?:work|suit)|is no good|is not good"
    r"|is bad|is out|is impossible"
)
CLEAR_PATTERNS: dict[str, str] = {
    "visit_date": (
        r"any (?:day|date)|whatever day|whichever day|(?:the )?(?:day|date) doesn'?t matter"
        r"|don'?t mind (?:which|what) day|any time this week|whenever (?:works|suits|is)"
        r"|(?:day|date) is flexible|flexible on the (?:day|date)"
    ),
    "visit_window": (
        r"any time(?! this week)|(?:the )?time doesn'?t matter|morning or afternoon"
        r"|(?:either|any) (?:window|time of day)|don'?t mind (?:what|which) time"
        r"|time is flexible|flexible on (?:the )?time"
    ),
}
REFERENT_ASSET = r"(?:the |my |our )?other (?:one|1|pump|unit|machine|asset|device|compressor)"
REFERENT_BOOKING = r"(?:the |my |our )?other (?:booking|appointment|visit|reservation)"

# --------------------------------------------------------------------------- authority
AUTHORITY: dict[str, str] = {
    "other account": (
        r"(?:for|on|to|under|with|from) (?:the )?account (?:number )?(?P<account>[a-z0-9-]+)"
        r"|account (?:number |to |is |id )?(?P<account2>[a-z]+[ -]?\d+|\d{3,})"
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

# Words after "calling for" that are not an organisation ("calling for a service visit").
NOT_AN_ORG = frozenset(
    "a an the my our me myself us you your help service services information info about "
    "booking visit some someone somebody him her them this that it advice support quote "
    "update repair repairs maintenance assistance question questions pump pumps unit units "
    "appointment appointments engineer technician home work site office return returns "
    "refund again now today tomorrow".split()
)
