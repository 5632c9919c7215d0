"""The words that say what the caller wants: yes, no, book, move, cancel, ask, a person, goodbye.
 Data only: no logic lives here.

Regular-expression fragments matched against *normalised* text (see
:mod:`agent.understanding.nlu.normalise`): lower case, numbers as digits, punctuation reduced to
commas. The words of values (days, letters, assets, places) are in
:mod:`agent.understanding.nlu.lexicon`.
"""

from __future__ import annotations

# A word a caller fills a pause with ("Um, yes", "Morning. Er, could you..."): it stands
# between the parts of a turn without being one of them.
HESITATION = r"(?:mm+|hmm+|um+|uh+|er+|erm+|ah+|oh|well)"
CHANGE_OF_MIND = (r"(?:on (?:second|2nd|reflection|further) thoughts?|actually|come to think of it"
                  r"|thinking about it|having thought about it|now that i think about it)")
YES = (
    r"yes|yeah|yep|yup|ya|yah|sure|correct|right|that'?s right|that is right|ok|okay|alright"
    r"|all right|sounds good|perfect|please do|absolutely|of course|affirmative|confirm(?:ed)?"
    r"|that'?s correct|exactly|fine|great|go ahead|do it|book it|yes please|aye|uh[- ]?huh"
    r"|mm[- ]?hm+|mhm+|indeed|certainly|definitely|go for it|grand|lovely|brilliant|spot on"
    # "Go on then, yes.", "crack on": carry on with what was read back
    r"|go on(?! to\b)|crack on"
    r"|that(?:'?s| is) (?:it|the (?:one|1)|grand|great|fine|perfect|lovely)|you got it"
    r"|works for me"
    # "that works", "this suits us", "that'll do", "happy with that": the offer is fine
    r"|(?:that|this)(?: (?:one|day|time|slot))? (?:works|suits|would work|would suit|will do"
    r"|does it|is fine|'?ll (?:do|work))|that'?ll (?:do|work)|suits (?:me|us)"
    r"|works for us|happy with that|let'?s do (?:it|that)"
    # a retry offered after the booking system refused: "can you try again?", "give it another
    # go" (at the turn's start only, so "let me try again" is no yes)
    r"|(?:(?:can|could|would|will) you |please |just )?(?:try (?:it |that )?(?:again|once more"
    r"|one more time)|have (?:another|one more) go|give it (?:another|one more) (?:go|try|shot))"
)
GO_AHEAD = (
    r"go ahead|go for it|go on(?! to\b)|crack on|proceed|book it|do it|please do"
    r"|confirm(?:ed)?|that'?s fine|"
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
    # "if someone can come", "whenever an engineer could come out"
    r"|(?:someone|somebody|a technician|an engineer|your engineer|the engineer) (?:can|could)"
    r" come"
    r"|service call|visit|serviced|looked at|seen to|checked over"
    # "put me down for Thursday", "pencil us in", "slot P-100 in", "get someone out"
    r"|(?:put|pencil|slot|fit|squeeze) (?:me|us|it|that|them|(?:the )?[a-z]{1,3}-?\d+)"
    r"(?: one)? (?:down|in)\b|sign (?:me|us) up"
    r"|get (?:me|us|someone|somebody|a technician|an engineer|an? \w+) (?:out|in|booked|over)"
    # "when's the earliest you can get someone to P-200?", "get an engineer round to Utrecht"
    r"|get (?:someone|somebody|a technician|an engineer|a tech|anyone|anybody) (?:round |down "
    r"|along |over |out )?to (?:the |our |my |your )?(?:[a-z]{1,3}-?\d+|pump|site|[a-z]+ (?:pump"
    r"|site|one))\b"
    # someone to come and do the work: "we'd like somebody to come and service one of our pumps",
    # "could an engineer come to look at P-200", "can you service the Utrecht one"
    r"|(?:someone|somebody|an engineer|a technician|a tech|anyone|anybody) to come"
    r"|get (?:someone|somebody|an engineer|a technician|a tech|anyone|anybody) (?:there|here"
    r"|round|over|along|down|up)\b"
    # "the pump at Canal Street is due its service", "P-100's overdue for a check"
    r"|(?:is|are|'s|'re) (?:due|overdue) (?:for )?(?:its|their|a|an|the)? ?(?:service|check"
    r"|inspection|visit|maintenance)"
    r"|come (?:and|to) (?:service|look|check|fix|see|inspect|repair|have a look|take a look)"
    r"|(?:to|and|you|someone|somebody|please) service(?! (?:line|desk|number|team|history"
    r"|record|manual|contract|plan|terms|policy|charge|fee)\b)"
)
# Moving a visit is a verb of moving followed, within a few words, by where it goes ("push my
# booking to Friday", "bring it forward", "shift it from the 2nd to the 4th"), or a verb that
# means moving on its own ("reschedule", "postpone", "rebook").
_VISIT = (
    r"(?:visit|booking|appointment|service|call[- ]out|job|slot|engineer|technician|it|that|this"
    r"|them)"
)
# The verbs a visit wanted done to it in the passive follows: "be moved", "get it pushed back",
# "need my visit moved", "want the visit changed".
_HAVE_IT = r"be|get|getting|got|have|having|need|needs|want|wants|like"
MOVE_ALONE = r"reschedul\w*|postpon\w*|re-?book\w*|re-?arrang\w*|put (?:it|that|the \w+) off"
MOVE_VERBS = (r"move|moving|shift|shifting|push|pushing|bring|bringing|change|changing|switch|swap"
              r"|bump|bumping|slide|sliding|nudge|nudging")
MOVE_WHERE = r"to|till|until|into|back|forward|forwards|earlier|later|along"
RESCHEDULE = (
    rf"{MOVE_ALONE}"
    rf"|(?:{MOVE_VERBS}) (?:(?!down\b|me\b|us\b)[\w'-]+ ){{0,4}}?(?:{MOVE_WHERE})\b"
    # "move the P-100 booking", "push our pump service visit": a modifier or two before it
    rf"|(?:move|shift|push|bring|bump|slide|nudge) (?:my |our |the |that |this )?"
    rf"(?:[\w-]+ ){{0,3}}?{_VISIT}\b"
    r"|put (?:it|that|this|the \w+|my \w+|our \w+) (?:back|forward|off)\b"
    # the passive: "could Thursday's service be moved", "can we get it pushed back a week",
    # "I need my P-100 visit moved", "have the Utrecht job bumped to Monday"
    rf"|(?:{_HAVE_IT})"
    r"(?: (?:it|that|this|them|(?:the|my|our) (?:[\w'-]+ ){0,3}?[\w'-]+))?"
    r" (?:moved|shifted|pushed|bumped|brought (?:forward|earlier|back)|put back)\b"
    # ... and changed or switched, of the visit itself: "I want the Rotterdam visit changed
    # to Friday" (not "I need the seal changed": a part, not the visit)
    rf"|(?:{_HAVE_IT})"
    rf" (?:the |my |our |that |this )?(?:[\w'-]+ ){{0,3}}?{_VISIT}s? (?:changed|switched)\b"
    # the visit as the one that goes: "can Thursday's booking go to Friday?", "can it go to
    # Friday instead?", "can next week's visit go to the afternoon?" (before anything is
    # booked, a correction of the request: precedence)
    r"|(?:visit|booking|appointment|call[- ]out|job|it|that|this)s? (?:go|goes|going)"
    r" (?:back|forward|(?:over )?to (?:the |next )?(?:(?:mon|tues|wednes|thurs|fri)day"
    r"|tomorrow|\d|morning|afternoon))\b"
    # ... or as the one that is on another day: "could our Utrecht visit on Thursday be on
    # Friday morning?", "can the booking be the afternoon instead?" (the visit named, never
    # "it": "could it be on Friday?" answers a question about a visit being booked)
    r"|(?:visit|booking|appointment|call[- ]out|job|one|1)s?"
    r"(?: (?:for|at|in|on) (?:[\w'-]+ ){0,2}?[\w'-]+)?"
    r" (?:be|happen|take place) (?:on |at |in |for )?(?:the |next )?"
    r"(?:(?:mon|tues|wednes|thurs|fri)day|tomorrow|\d+(?:st|nd|rd|th)?|morning|afternoon)\b"
    # the visit, or the person who makes it, as the one that comes or happens sooner or later:
    # "could our booking come forward to Friday?", "can it come a day earlier?", "could he
    # come a week later?", "can the Utrecht visit happen a week later?", "could the Utrecht one
    # come a week later?"
    r"|(?:(?:visit|booking|appointment|call[- ]out|job|engineer|technician|fitter|one|1|it|that"
    r"|this)s?"
    r"(?: (?:for|at|in|on|to) (?:[\w'-]+ ){0,2}?[\w'-]+)?"  # "the engineer for Canal Street"
    r"|he|she|they|someone|somebody|anyone|anybody"
    r"|(?:your|the|you) (?:lot|people|guys|team|crew|man|bloke|chap|fellow|fella))"
    r" (?:come|comes|coming|happen|happens|happening|take place|be)"
    r" (?:[\w'-]+ ){0,4}?(?:forward|forwards|earlier|later)\b"
    # ... than it was to: "could someone come out a week later than planned?"
    r"|(?:earlier|later|sooner) than (?:planned|booked|scheduled|arranged|agreed)\b"
    r"|different day|another day"
)
# Calling a visit off, with or without the word "cancel": a verb of removing with the visit
# (or "it", "the whole thing") as its object, or not needing the visit or the person any more.
_GONE_NOUN = (r"(?:visit|booking|appointment|request|job|engineer|technician|fitter|mechanic"
              r"|thing|call[- ]out"
              r"|service call)s?")
_GONE = rf"(?:the |my |our |that |this |a |any |the whole )?{_GONE_NOUN}"
# The visit or person a caller no longer needs; an asset id or the kind of visit may stand
# before the noun ("the P-200 visit", "our pump booking", "the service appointment").
_PERSON = (
    r"(?:anyone|anybody|someone|somebody|them|you|it|him|her|(?:a|an|the|our|my|that|this)"
    r" (?:(?:[a-z]{1,3}[- ]?\d{1,4}|pump|compressor|service|maintenance|repair) ){0,2}"
    r"(?:technician|engineer|fitter|mechanic|visit|booking|appointment|call-out)"
    # the person with the article dropped, as a recogniser may: "won't be needing engineer"
    r"|(?:technician|engineer|fitter|mechanic)s?)"
)
# The person or the visit itself, as "any more" may follow it (see CANCEL)
_NO_LONGER = (r"(?:technician|engineer|fitter|mechanic|visit|booking|appointment|call-?out"
              r"|job)s?")
# A call-off said as a need withdrawn ("we won't need the engineer for P-200 after all"): the
# negation is the cancel's own, and the values after it are the visit called off, not values
# withdrawn (agent/understanding/nlu/corrections.py, negated_stretches).
CANCEL_BY_NEED = (
    r"(?:won'?t|will not|don'?t|do not|doesn'?t|does not|no longer|not going to|won'?t be)"
    r" (?:really |actually |even )?(?:need|want|require|be (?:needing|wanting|requiring)"
    rf"|need to have) {_PERSON}"
    # a visit named by what it is for, said no longer needed: "we won't need the Rotterdam
    # one after all", "we won't be needing the Rotterdam visit any more" (not "don't want the
    # morning one", which may choose between options) ...
    r"|(?:won'?t|will not|no longer|not going to) (?:really |actually )?(?:need|require"
    r"|be needing|be requiring) (?:the|our|that|this|my) [\w-]+(?: [\w-]+)?"
    r" (?:one|1|visit|booking|appointment|job|call-out)\b"
    # ... and "don't" with "any more" or "after all": "we don't need the Utrecht visit anymore"
    r"|(?:don'?t|do not) (?:really |actually )?(?:need|want|require) (?:the|our|that|this|my)"
    r" (?:[\w'-]+ ){0,2}?(?:one|1|visit|booking|appointment|job|call-out|engineer|technician"
    r"|fitter|mechanic)"
    r" (?:any ?more|after all)\b"
)
# What "call ... off" calls off: the visit, whatever is said of it on the way ("call the
# Monday visit off", "call the visit for P-100 on the 8th off", "call the engineer off")
_CALLED_OFF = (
    rf"(?:it|that|the \w+|everything|the whole thing|{_PERSON}"
    r"|(?:the|that|this|our|my) (?:[\w'-]+ ){0,2}(?:visit|booking|appointment|job|call-out)"
    r"(?: (?:on|for|at|in) (?:the )?[\w-]+){0,2})"
)
# A visit named by what it is for, dropped: "can you scrap the Rotterdam visit?", "drop the
# Thursday P-100 booking" ("forget the morning visit" may drop only the words just said). The
# words naming it name the visit called off, not values ruled out.
DROP_A_NAMED_VISIT = (rf"(?:scrap|drop|withdraw|ditch|bin|kill|abandon) (?:the|my|our|that|this) "
                      rf"(?:[\w'-]+ ){{1,2}}{_GONE_NOUN}\b")
CANCEL = (
    rf"cancel\w*|call(?:s|ing|ed)? {_CALLED_OFF} off|call(?:s|ing|ed)? off"
    rf"|(?:scrap|drop|forget|withdraw|ditch|bin|kill|abandon|cancel) (?:about )?(?:it|that"
    rf"|everything|{_GONE})\b"
    rf"|{DROP_A_NAMED_VISIT}"
    # one of the visits, named by which: "could you scrap the earlier one?"
    r"|(?:scrap|drop|ditch|bin|kill) (?:the (?:[\w'-]+ ){0,2}(?:one|1)|one of (?:them|those"
    r"|the (?:visits|bookings|appointments)))\b"
    rf"|(?:knock|knocked) (?:it|that|{_GONE}) on the head"
    r"|take (?:us|me|it|that) off (?:the|your) (?:schedule|list|books|calendar|diary)"
    rf"|{CANCEL_BY_NEED}"
    r"|no (?:visit|engineer|technician|one|booking|appointment)s? (?:is |are )?(?:needed"
    r"|required|necessary)"
    r"|no (?:need|point) (?:for|in) (?:a |the |any )?(?:visit|engineer|technician|booking"
    r"|appointment|anyone|someone)"
    r"|no need (?:for anyone |for someone )?to (?:come|send|visit)"
    r"|(?:don'?t|do not) bother (?:sending|coming|with the visit|with the booking)"
    r"|(?:can|could) do without (?:it|that|the visit|the booking|the engineer|the technician"
    r"|a visit|one of (?:them|those|the (?:visits|bookings|appointments)))"
    r"|not needed any ?more"
    # "any more" needs a negation: right after the person or the visit, or after the words
    # that say where and when it is, it says the visit is no longer wanted even when the
    # negation itself was misheard ("We won't be needing the engineer at Canal Street on
    # Friday anymore" heard as "We went the leading engineer at Canal Street on Friday
    # anymore", blind round 40). Only places and days between them (a verb between says
    # something else: "the engineer said it doesn't work any more"), and said by the caller
    # of their own visit ("we", "I" in the clause): "do you send engineers on Sundays any
    # more" asks (normalised text has no question marks)
    rf"|\b(?:we|i)\b[^,]{{0,40}}?\b{_NO_LONGER}(?:,? (?:at|on|for|in|from|this|next)"
    r" (?:the )?[\w'-]+(?: [\w'-]+)?){0,3},? any ?more\b"
    # the fault the visit was for, put right by the caller: "we managed to sort the problem
    # out ourselves", "we fixed it ourselves in the end" (blind round 36, where the recogniser
    # heard "we won't be needing the engineer after all" as "... leaving the engineer ...")
    r"|(?:sort|sorted|fix|fixed|solve|solved|repair|repaired|mend|mended) (?:it|that|the"
    r" (?:problem|issue|fault|leak|trouble))(?: out)? (?:ourselves|myself|ourself)\b"
    # (not when the sentence goes on "but ...": "we fixed it ourselves but could someone
    # still check P-100?" asks for a visit)
    r"(?![^.?!]*\b(?:but|still|though|however)\b)"
)
# A conditional clause: what follows it up to the clause's end is a supposition, not a request
# ("can I send it back if it turns out we don't need it?", "in case we don't need the visit").
CONDITIONAL = (
    r"if|in case|unless|should|whether|supposing|suppose|provided|providing|assuming|what if"
    r"|even if|just in case|in the event (?:that )?"
)
# A question about the terms of a visit: what cancelling, moving or the visit itself costs,
# needs or takes, or what happens then ("what's your cancellation policy?", "is there a fee if
# we cancel?", "how much notice do you need to reschedule?", "what happens if we cancel the
# visit?"). The question runs to the end of its clause, and the words of cancelling or moving
# inside it are its topic, not a request.
_ACT = r"(?:cancel\w*|reschedul\w*|rebook\w*|postpon\w*|mov(?:e|ing)|chang\w*|miss\w*)"
_MONEY = r"(?:fees?|charg\w*|costs?|pay|paying|penalt(?:y|ies)|price|prices)"
TERMS = (
    rf"(?:cancel\w*|reschedul\w*|call[- ]outs?|visits?|bookings?|no[- ]shows?) (?:{_MONEY}"
    r"|policy|policies|terms|rules)"
    rf"|(?:{_MONEY}|notice) (?:[\w']+ ){{0,6}}?{_ACT}"
    rf"|what (?:happens|would happen|will happen|do (?:i|we) (?:pay|owe)) (?:if|when) "
    rf"(?:[\w']+ ){{0,5}}?(?:{_ACT}|late|(?:not|n't|nobody|no one)(?: \w+)? (?:there|in|home"
    r"|on site|around|available))"
    rf"|how (?:much|many (?:hours|days)|long) (?:[\w']+ ){{0,4}}?"
    rf"(?:notice|in advance|beforehand|{_MONEY})"
    rf"|how (?:far ahead|far in advance|late|soon) (?:[\w']+ ){{0,4}}?{_ACT}"
    rf"|(?:do|does|will|would|is|are|can) (?:i|we|you|it|there|that) (?:[\w']+ ){{0,3}}?{_MONEY}"
    # how long a visit takes: "how long does a service visit take", "how long will they be here"
    r"|how long (?:does|do|will|would|should) (?:[\w']+ ){0,4}?(?:take|last|be (?:here|there"
    r"|on site))"
)
# A visit the caller already has, described or named rather than asked for ("we've got a visit
# booked for Thursday", "there's an engineer coming on Friday", "we're booked in for the 9th",
# "you have us down for Monday", "about the visit on the 9th"): its words of booking say which
# visit the rest of the turn is about. "Could I have a visit on Thursday?" and "I'd like to
# have one" ask for one.
_HELD_NOUN = r"(?:visit|booking|appointment|service|job|call[- ]out|engineer|technician)s?"
_HELD_HOW = r"(?:booked|scheduled|arranged|set up|lined up|planned|confirmed|coming|due)"
HELD_VISIT = (
    r"(?<!could )(?<!can )(?<!would )(?<!may )(?<!might )(?<!to )"
    rf"(?:we|i)(?:'ve| have)(?: got)? (?:[\w'-]+ ){{0,4}}?{_HELD_NOUN}"
    rf" (?:already )?(?:{_HELD_HOW}|for|on)"
    rf"|there(?:'s| is) (?:[\w'-]+ ){{0,4}}?{_HELD_NOUN} (?:already )?{_HELD_HOW}"
    r"|(?:we're|we are|i'm|i am) (?:already )?(?:booked|scheduled|down) (?:in )?for"
    # "about the visit on the 9th", "our booking for Thursday": a visit named as one we know
    r"|(?:the|our|my|your|that|this) (?:[\w'-]+ ){0,2}?(?:visit|booking|appointment"
    r"|call[- ]out|service call|job)s?\b"
    r"|(?:you've|you have) (?:got )?(?:us|me|it|[a-z]{1,3}-?\d+) (?:already )?"
    r"(?:(?:booked|down|pencilled|penciled|scheduled) )?(?:in )?for"
)
# A question about the visits the caller has: when one is, whether it still stands ("when's
# the engineer coming?", "what time is my visit on Tuesday?", "is the engineer still coming on
# Thursday?", "have we got anything booked?", "remind me when our visit is"). It asks for
# nothing: the agent reads the caller's bookings from the booking system.
_COMING = (r"(?:the |my |our |your )?(?:engineer|technician|tech|visit|booking|appointment"
           r"|service visit|service|someone|somebody|anyone|anybody)")
# "still", "already": a word of time inside a question about what is booked
_SO_FAR = r"(?:(?:still|already|currently|now|actually) )?"
STATUS = (
    rf"when(?:'s| is| will| are)? {_COMING}(?: [\w'-]+){{0,3}}? (?:coming|due|booked|scheduled"
    r"|arriving|happening|be (?:here|there|coming|arriving|round|over|out))"
    r"|when(?:'s| is) (?:my|our|the) (?:[\w'-]+ ){0,2}?(?:visit|booking|appointment)"
    r"|what (?:time|day|date)(?:'s| is) (?:my|our|the) (?:[\w'-]+ ){0,2}?"
    r"(?:visit|booking|appointment|engineer|technician)"
    rf"|(?:is|are) {_COMING}(?: [\w'-]+){{0,3}}? still (?:on|coming|booked|happening"
    r"|going ahead|scheduled)"
    rf"|(?:have|do) (?:i|we) {_SO_FAR}(?:got |have )?(?:a|any|anything|something) "
    r"(?:[\w'-]+ ){0,2}?"
    r"(?:booked|scheduled|lined up|coming up|in the diary)"
    r"|what (?:bookings|visits|appointments) (?:do|have) (?:i|we)"
    # "what have we got booked with you?", "what have we still got booked?", "what have we
    # already got booked?", "what do we have booked", "when is that visit again?"
    rf"|what (?:have|'ve|do) (?:i|we) {_SO_FAR}(?:got |have )?{_SO_FAR}(?:booked|scheduled"
    r"|lined up|in the diary|on the books)"
    r"|when(?:'s| is) (?:that|this) (?:[\w'-]+ ){0,2}?(?:visit|booking|appointment)"
    r"|remind me (?:when|what time|what day)"
    # asked inside another question: "remind me what we've got booked", "what's booked for
    # us?", "could you tell me what visits we have coming up?"
    rf"|what (?:i|we)(?:'ve| have)? {_SO_FAR}(?:got |have )?{_SO_FAR}(?:booked|scheduled"
    r"|lined up|in the diary|on the books|coming up)"
    rf"|what(?:'s| is) {_SO_FAR}(?:booked|scheduled|lined up|in the diary|on the books)"
    r"|what (?:bookings|visits|appointments) (?:(?:i|we)(?:'ve| have)?|(?:are|is) there"
    r"|there (?:are|is))\b"
    # what the agent booked, asked back: "what did you book?", "what was it you've booked for
    # us?", "what have you put us down for?"
    r"|what (?:did|have|'ve|was it|is it)(?: that)? you(?:'ve| have)? (?:just |actually )?"
    r"(?:book|booked|arrange|arranged|schedule|scheduled|put (?:me|us|it) down for)\b"
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
    r"return\w*|refund\w*|exchange|restocking|warranty"
    # "send it back", "can I send a filter kit back", "ship the unused parts back"
    r"|(?:send|sending|ship|shipping|post|posting) (?:it|this|that|them|these|those"
    r"|(?:(?!to\b|for\b|someone\b|somebody\b|an? (?:engineer|technician)\b)[\w-]+ ){1,4}?)"
    r" ?back\b"
    # said with its object before it: "the filter kit, we not open it, we can send back?"
    r"|(?:send|ship|post) back\b"
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
    r"|that'?s all(?=$|,| thanks| thank you| for now| for today| i need| from me| bye)"
    r"|that is all(?=$|,)|that'?s (?:it|everything) for (?:today|now)"
    r"|have a (?:good|nice) (?:day|one)|hang up|i'?m done|we'?re done|thanks,? bye"
)
