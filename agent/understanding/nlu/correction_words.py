"""The words of a correction: replace markers, negations, cleared constraints, referents.
 Data only: no logic lives here.

Regular-expression fragments matched against *normalised* text (see
:mod:`agent.understanding.nlu.normalise`): lower case, numbers as digits, punctuation reduced to
commas. The words of values (days, letters, assets, places) are in
:mod:`agent.understanding.nlu.lexicon`.
"""

from __future__ import annotations

# "I tell a lie", its "a" as weak as a word gets: heard as "the" or "that" too
TELL_A_LIE = r"i tell (?:a|the|that) lie"
# Words that say the speaker misspoke, whatever they then give instead: an exclamation
# ("whoops", "oh dear"), an order to drop what was said ("strike that", "ignore that", not
# "don't forget that"), a verdict on it ("that's wrong", "wrong unit"), an account of the slip
# ("I misspoke", "I've muddled them up", "got them mixed up"), a pause to think again ("hang
# about") or a change of mind ("you know what", "on reflection").
MISSPOKE = (
    r"w?hoops|oopsie|(?:oh|ah|uh) no|oh dear|uh-? ?oh"
    r"|(?<!n't )(?<!not )(?:strike|scrap|ignore|disregard|delete|forget) (?:that|this)"
    r"|(?:that'?s|that is|that was) (?:wrong|not right|incorrect|not correct)"
    r"|wrong (?:one|unit|pump|machine|asset|site|day|date|time|week|month)"
    r"|i misspoke|mis-?spoke|slip of the tongue|what i meant (?:was|is)|let me rephrase"
    r"|let me correct (?:that|myself)|(?:i )?should (?:have|'ve) said|or should i say"
    r"|(?:muddled|mixed)(?: (?:them|it|that|those|these|things|the \w+))? up"
    r"|got (?:them|it|that|those|these|things) (?:mixed|muddled)|hang about|hold up"
    r"|change of plans?"
    # a change of mind: "you know what, let's go with the afternoon", "on reflection, Friday"
    r"|you know what|on reflection|thinking again|having thought about it|let'?s go (?:with|for)"
)
REPLACE_MARKERS = (
    r"actually|make (?:that|it)|change (?:that|it) to|i meant|i mean|meant to say|i said"
    r"|instead|sorry|rather|correction|scratch that|cancel that|let'?s (?:say|do|make it)|oops"
    r"|my mistake|my bad|switch (?:it|that) to|no wait|wait"
    # "on second thoughts" ("second" is written "2nd"), "come to think of it", "did I say X?"
    r"|on 2nd thoughts?|come to think of it|thinking about it|did i say|hang on|hold on"
    rf"|{TELL_A_LIE}|what am i saying|{MISSPOKE}"
)
# A replace marker as a whole word ("instead of" negates what follows it, replaces nothing)
REPLACES = rf"\b(?:{REPLACE_MARKERS})\b(?! of\b)"
# Words that offer two values as alternatives ("Monday or Thursday", "maybe Friday"): two values
# with one of these between them are no correction of one by the other
ALTERNATIVES = r"\b(?:or|either|maybe|perhaps|possibly)\b"
# Words that take back what came before them in the turn (agent/understanding/trust.py); "no",
# "wait", "hang on" and "actually" only where they open a clause or follow "or" ("the 10th or
# actually the 11th"; "P-100 can wait till Friday", "Thursday works actually" take nothing
# back), "actually" only with words after it; "no wait" heard as "not wait" ("Thursday in the
# afternoon, not wait, right it would be better")
TAKES_BACK = (r"(?:^|,|\bor) ?(?:no|(?:not )?wait|hang on|hold on|actually(?=,? \w))\b"
              r"|\b(?:sorry(?! (?:about|for|to)\b)|i meant|i mean|meant to say"
              # "scratch" as a verb, its "that" misheard ("scratch the gate", "scratch mat")
              r"|no wait|(?<!\ba )(?<!\bthe )scratch|correction|oops|(?:my|a|i) mistake|make that"
              r"|or rather"
              rf"|on 2nd thoughts?|come to think of it|{TELL_A_LIE}|what am i saying"
              rf"|{MISSPOKE})\b")
# The start of a day, a window or a date (after "on", "every", "next"...), plural or not.
_WHEN = (r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|mornings?|afternoons?"
         # a day of the month, not "the 200" ("a drip coming off the 200 ... tomorrow")
         r"|tomorrow|today|(?:[12]\d|3[01]|[1-9])(?:st|nd|rd|th)?")
# A negation reaches to the end of its clause: "not X", "instead of X", "skip X", a negated verb of
# doing or coming ("please don't come on Monday", "don't book Friday", "we can't have anyone
# on the 3rd"). "Don't mind", "don't worry" and "don't care" are not negations of a value.
NEGATION_SPLIT = (
    # "not before 2", "not later than noon": a bound on the clock (nlu/spans.py), no negation
    r"\bnot\b(?! (?:before|after|earlier than|later than) (?:\d|noon|midday))"
    # "not quite, it's the tenth": a verdict on what was read back, not a value ruled out
    r"(?! (?:quite|exactly|right|correct|really)\b)"
    r"|\binstead of\b|\brather than\b"
    # "Friday is better than Wednesday", "... easier for us than ...", "... better all round
    # than ...": a comparison rules out what follows its "than" (the words between, all of
    # them blanked with it, name who it suits, never a value)
    r"|\b(?:better|easier|preferable|handier|more convenient)"
    r"(?: (?:for|to) (?:us|me|them|him|her|everyone|everybody|all of us|all"
    r"|(?:the|our) (?:whole )?(?:team|crew|site|lads|office)))?"
    r"(?: (?:all round|on the whole|overall|really))? than\b"
    r"|\bno longer\b|\bscratch\b(?! that\b| this\b| it\b| what\b)"
    # "any day but Monday", "anything but 3 o'clock", "except Friday", "other than mornings":
    # the exception is negated
    r"|\b(?:except(?: for| on)?|other than|apart from)\b"
    r"(?! (?:that|this|it|we|i|you|they|he|she|there|make|when|if)\b)|(?<=any day )but\b"
    r"|(?<=any day next week )but\b|(?<=any day this week )but\b|(?<=any time )but\b"
    r"|(?<=anything )but\b|(?<=everything )but\b|(?<=anytime )but\b|(?<=any slot )but\b"
    r"|(?<=whenever )but\b"
    # a verb of dropping a value: "skip Friday", "forget the morning", "never mind Monday"
    # (an order: "I forget, it must be two o'clock" tells, it drops nothing)
    r"|(?<!n't )(?<!not )(?<!\bi )(?<!\bwe )\b(?:skip|scrap|ditch|forget(?: about)?|never mind"
    r"|drop)\b"
    r"(?! by\b| in\b| off\b| round\b| over\b| it\b| that\b| this\b)"
    # nobody is there then: "we're shut on Fridays", "the site is closed all Monday", "I'm away
    # next Tuesday", "nobody's in on the 9th"; only before a day, a window or a date ("the
    # valve was closed on P-200" negates nothing)
    r"|\b(?:shut|closed|away|(?<!call )(?<!calls )(?<!called )(?<!calling )off|unavailable"
    r"|on (?:holiday|leave)|out of (?:the )?office"
    r"|(?:nobody|no one|no-one)(?:'s| is| will be) (?:in|around|there|here|on site|about))"
    rf"(?= (?:(?:on|every|all|this|next|that|for|over|in|the|at|before|till|until) )*"
    rf"(?:{_WHEN})\b)"
    r"|\b(?:don'?t|do not|can'?t|cannot|won'?t|will not|couldn'?t|could not)"
    r"(?! mind\b| worry\b| care\b| matter\b| know\b| think\b| mean\b| forget\b| hesitate\b| skip\b)"
    r"(?= \w)"
)
# "Wednesday doesn't work", "the morning's no good": the negation follows the value.
_BAD = (r"no good|not good|not any good|bad|out|off|impossible|not possible|no use|a no"
        r"|not going to (?:happen|work)|a bad day|tricky|difficult|not ideal|taken|full|a problem"
        r"|out of the question|not an option|no go|a no-go|not convenient|inconvenient"
        # "the afternoon's filling up", "Friday is getting busy", "mornings are booked up"
        r"|(?:filling|getting|looking) (?:up|full|busy|booked up|packed|tight)|booked up"
        r"|fully booked|busy|packed|chock-a-block|rammed|hectic|tight"
        # "mornings are hopeless for us", "Wednesday's a write-off", "Fridays are a nightmare"
        r"|hopeless|useless|awkward|rubbish|terrible|a nightmare|a pain|a write-off|a washout"
        r"|not great|no-go")
_DEGREE = r"(?:all|completely|totally|fully|pretty|really|quite|very|a bit|a little|rather)"
NEGATION_AFTER = (
    r"(?:doesn'?t|does not|won'?t|will not|wouldn'?t|would not|isn'?t|is not|aren'?t|are not"
    r"|can'?t|cannot) (?:\w+ )?(?:work|suit|do|happen|possible|good|ok|okay|ideal|great"
    r"|convenient|fine)"
    # "mornings are all booked up", "Friday is pretty full": an adverb may stand between
    rf"|(?:is|are|was|looks|seems)(?: {_DEGREE})? (?:{_BAD})"
)
NEGATION_AFTER_CLITIC = (rf"(?:'s|'re)(?: {_DEGREE})? (?:{_BAD}"
                         r"|not (?:\w+ )?(?:work|suit|possible|good|ok|okay))")
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
        # not "any time after 2", "any time before noon": a span of the clock, maybe a window
        r"any ?(?:time|slot|window|hour)s?(?! this week| (?:after|before|until|till|til|up to"
        r"|between|from|no later|no earlier|not before|not after)\b)|(?:the )?(?:time|window"
        r"|slot) (?:doesn'?t|does not) matter"
        r"|morning or afternoon|afternoon or morning|(?:either|any) (?:window|time of day|half)"
        rf"|{_RELAXED}(?:time|window|slot|hour)s?\b|(?:time|window) is flexible|whatever time"
        rf"|(?:any|whatever|whichever) (?:time|slot|window)s? {_FINE}"
    ),
}
REFERENT_ASSET = r"(?:the |my |our )?other (?:one|1|pump|unit|machine|asset|device|compressor)"
REFERENT_BOOKING = r"(?:the |my |our )?other (?:booking|appointment|visit|reservation)"
