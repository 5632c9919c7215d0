"""The words that cross an authority boundary: another account, tenant or person, a filter
override, an identity claim, billing someone else.
 Data only: no logic lives here.

Regular-expression fragments matched against *normalised* text (see
:mod:`agent.understanding.nlu.normalise`): lower case, numbers as digits, punctuation reduced to
commas. The words of values (days, letters, assets, places) are in
:mod:`agent.understanding.nlu.lexicon`.
"""

from __future__ import annotations

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
        # "for a colleague", but not "no need for a colleague" or "ask for a colleague": the
        # agent's colleague, offered to take the call
        r"|(?<!need )(?<!ask )(?<!asking )(?<!wait )(?<!waiting )"
        r"(?:for|on behalf of) (?:my |a )?(?:colleague|coworker|co-worker|boss|wife|husband"
        r"|partner|friend|neighbou?r|brother|sister|someone else|somebody else)\b"
        # a person by title and name: "calling on behalf of Mr Jansen", "ringing for Ms de Vries"
        r"|(?:for|on behalf of) (?P<titled>(?:mr|mrs|ms|miss|dr|doctor)\.? [a-z][\w'-]*)"
    ),
    "filter override": (
        r"search everything|ignore (?:the |all |your )?(?:filters?|rules|restrictions|scope"
        r"|permissions?)|all (?:tenants|customers|manuals|documents)|without (?:the )?filters?"
        r"|bypass|override (?:the )?(?:filters?|scope|permissions?)|admin mode"
        r"|as (?:an |the )?(?:admin|administrator|supervisor|root)"
        # instructions aimed at whatever reads the turn (a model proposer): a caller who says
        # them is trying to get round the rules, whoever reads the words
        r"|(?:ignore|disregard|forget|override) (?:all |any |the |your |my )?"
        r"(?:previous |prior |earlier |above |preceding |system |original )?"
        r"(?:instructions?|prompts?|directions|guidelines)"
        r"|new instructions|system prompt|you are now (?:an? |the )?"
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

# Words after an act of billing that name no party: "will I be charged if I cancel", "do you
# charge extra for mornings", "is there a charge to move it" ask what something costs.
NOT_BILLED = frozenset(
    "if when whether because so and but or than then extra anything something nothing more less "
    "much anymore at all by per in with from of about any every each you i we they cancel move "
    "change reschedule rebook come visit book send call cancelling canceling moving changing "
    "rescheduling rebooking coming visiting booking sending calling".split()
)

# Words after "calling for" that are not an organisation ("calling for a service visit").
NOT_AN_ORG = frozenset(
    "a an the my our me myself us you your help service services information info about "
    "booking visit some someone somebody him her them this that it advice support quote "
    "update repair repairs maintenance assistance question questions pump pumps unit units "
    "appointment appointments engineer technician home work site office return returns "
    "refund again now today tomorrow mr mrs ms miss dr doctor".split()
)
