"""The scripted speech corpus: what callers say in the acceptance pack, for WER and latency.

Word error rate compares normalised words: lower case, no punctuation, an asset id spoken
as letter + number ("P 100", "P-100", "p100") is one word, "two pm"-style numbers are left
as recognised (both spellings appear in transcripts; the controller parses either).
"""

from __future__ import annotations

import re

from audio.biasing import PROCEDURE_WORDS  # noqa: F401 - the words measured with it

CORPUS = (
    "I'd like a service visit for pump P 100 on Wednesday afternoon.",
    "Yes, please go ahead.",
    "Sorry, Thursday morning, not Wednesday.",
    "Can you move my booking to Friday?",
    "Cancel the visit for valve V 200.",
    "How often should I replace the valve gasket?",
    "Make it two units instead of one.",
    "No, the other pump, P 200.",
    "What is the torque for the flange bolts?",
    "Tomorrow at two pm works for me.",
    "Book pump P 100 for December third in the morning.",
    "Actually, make that the afternoon.",
)
ASSETS = ("P-100", "P-200", "V-200")

_ASSET = re.compile(r"\b([a-z])[\s-]?(\d{2,4})\b")
_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve").split()
_ORDINAL = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}


def normalise(text: str) -> list[str]:
    """Words to compare: "2pm" == "two pm" == "2 p.m.", "3rd" == "third", "P-100" == "p100"."""
    text = text.lower().replace("-", " ").replace("p.m.", "pm").replace("a.m.", "am")
    text = re.sub(r"\bp m\b", "pm", re.sub(r"\ba m\b", "am", text))
    text = _ASSET.sub(lambda m: m.group(1) + m.group(2), text)
    text = re.sub(r"\b(\d{1,2})(am|pm)\b", r"\1 \2", text)
    words = []
    for w in re.findall(r"[a-z0-9']+", text):
        if w.isdigit() and int(w) < len(_SMALL):
            w = _SMALL[int(w)]
        words.append(_ORDINAL.get(w, w))
    return words


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edit distance in words, reference word count). Pure."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[len(hyp)], len(ref)


def wer(pairs: list[tuple[str, str]]) -> float:
    """Corpus word error rate over (reference, hypothesis) pairs."""
    errors = total = 0
    for ref, hyp in pairs:
        e, n = word_errors(ref, hyp)
        errors, total = errors + e, total + n
    return errors / total if total else 0.0


# Turns that open with different words, for first-word retention (audio/bench_hearing.py): a
# clipped start loses exactly these ("Could you send..." heard as "You send...").
OPENINGS = (
    "Could you send a technician on Thursday morning?",
    "Please book pump P-200 for Thursday afternoon.",
    "Sorry, Thursday morning, not Wednesday.",
    "Thursday at two pm works for me.",
    "Can you move my booking to Friday?",
    "Yes, please go ahead.",
    "No, the other pump.",
    "Book pump P-100 for Monday morning.",
    "Friday afternoon would be better.",
    "Actually, make that the afternoon.",
    "Tomorrow is fine.",
    "What is the torque for the flange bolts?",
)

# Turns that carry values, for calibrated trust (agent/understanding/trust.py,
# audio/bench_hearing.py), said by a caller who owns P-100 and P-200 on Tuesday 1 December 2026.
# EXPECTED: every value is one the call expects (the caller's assets, valid dates, times, windows).
# UNEXPECTED: a value the call does not expect (another company's asset, a number of units, a date
# months away, a
# date in the past): checked, or refused, as before.
VALUE_CLOCK = "2026-12-01T09:00:00+01:00"
EXPECTED_VALUES = (
    "Please book pump P-200 for Thursday afternoon.",
    "Could you send a technician to P-100 on Friday morning?",
    "Book P-100 for tomorrow at two pm.",
    "Sorry, Thursday morning, not Wednesday.",
    "Can you move it to Monday afternoon?",
    "Thursday at ten works for me.",
    "No, pump P-200 please.",
    "Make it the morning.",
    "Friday afternoon would be better.",
    "Book pump P-100 for December the ninth in the morning.",
)
# Answers to a check ("Did you mean Friday 4 December, P-200?"), each with the answer it gives
ANSWERS = (("Yes.", "yes"), ("Yes please.", "yes"), ("Yeah, go ahead.", "yes"), ("Yep.", "yes"),
           ("No.", "no"), ("No, that's wrong.", "no"), ("Nope.", "no"))
UNEXPECTED_VALUES = (
    "Book pump P-300 for Thursday afternoon.",
    "Make it five units.",
    "Book P-100 for the fifteenth of March.",
    "Book P-200 for last Monday.",
)
# Held out: expected values in phrasings written after agent/understanding/trust.py's thresholds
# were set, and never used to set one (said by audio.voices.HELD_OUT_VOICES). Their figures say how
# the calibration carries over to callers it has not met.
HELD_OUT_VALUES = (
    "I'd like someone at P-200 next Tuesday morning.",
    "Can we do Wednesday the ninth instead?",
    "Put me down for Friday at eleven.",
    "The afternoon suits me better.",
    "It's pump P-100, not P-200.",
    "Change it to the seventh of December, in the afternoon.",
    "Could the engineer come on Monday at nine thirty?",
    "Tuesday the eighth, morning please.",
    "Let's say three in the afternoon on Thursday.",
    "Any chance of tomorrow afternoon for P-200?",
)


# A second held-out set: phrasings written by someone who had not read
# agent/understanding/trust.py, after its last rule was set from the first set's misses, said by
# audio.voices.HELD_OUT_BASES_2. Measured once, to judge that rule on callers it has not met.
HELD_OUT_VALUES_2 = (
    "Hi, could someone come out and look at P-100 tomorrow morning?",
    "No, sorry, I meant P-200, not the other one.",
    "Friday the eleventh, if that works for you.",
    "Um, yeah, maybe Thursday the tenth, sometime in the afternoon?",
    "Can we do next Monday at ten?",
    "Actually, half past one would suit me better.",
    "The one playing up is P-200, it's making a horrible grinding noise.",
    "December the fourteenth, please, first thing in the morning.",
    "Oh, er, how about Wednesday the ninth at quarter to three?",
    "No wait, sorry, make that the 3rd instead.",
    "Any chance of getting somebody round on Friday the fourth around two o'clock?",
    "Mornings are better for me, like quarter past nine or so.",
    "Could you book P-100 in for Tuesday the eighth in the afternoon?",
    "Er, I'm free Monday the seventh, you know, say about four o'clock.",
)


# A third held-out set, written from docs/ alone by someone who had read no code, after the
# rule that an own asset is carried by its number (agent/understanding/trust.py), said by
# audio.voices.HELD_OUT_BASES_3. Measured once with and without that rule (README).
HELD_OUT_VALUES_3 = (
    "Hi there, um, could you get an engineer out to pee two hundred on Tuesday the fifteenth, "
    "ideally around quarter past one?",
    "Yeah, it's P-100 that needs looking at, not P-200, sorry about that.",
    "Er, Thursday morning, the third, would suit us best.",
    "Can we do the 17th at 11.15 instead?",
    "Sorry, I said the sixteenth but I meant the eighteenth, the Friday.",
    "Could someone come out on the 7th of January, after lunch, for the P-100 in "
    "Rotterdam?",
    "Um, let's say twenty to four on Friday, if that's not too late for you.",
    "Actually, make it the morning instead, er, nine-ish if you can manage it.",
    "I need pee one hundred serviced next Thursday, say half eleven.",
    "Can you shift the P-200 visit to Tuesday 12 January, 2 pm?",
    "Oh, hang on, not Wednesday, Thursday works better for us.",
    "Tomorrow afternoon, um, say four o'clock, would that be possible?",
    "Could we bring it forward to Monday the seventh, er, at eight thirty in the "
    "morning?",
    "For P-200, the day after tomorrow, at 10:45 if possible.",
)

# A fourth held-out set, written from docs/ alone by someone who had read no code, on
# 2026-12-04 after the third set's figures, said by audio.voices.HELD_OUT_BASES_4. The writer's
# "Yes, that's right, go ahead and book it." and "No, that's not what I wanted." are left out:
# the bench reads each turn with no question on the table, where a yes or no carries no value.
# Its text found one reading the proposer lacked ("the two hundred pump" was 200 units).
HELD_OUT_VALUES_4 = (
    "Um, could you get someone out to P-200 on Wednesday the ninth, sometime in the morning?",
    "Actually, not Thursday, make it Friday afternoon instead, if that's alright with you.",
    "Pee one hundred, please, a week on Thursday, around quarter to ten.",
    "Yeah, the two hundred pump, the day after tomorrow, ten past two if you can manage it.",
    "Could we do 14:30 on the 16th of December for P-100?",
    "Erm, half three on Monday the twenty-first would suit us best, I think.",
    "Sorry, I said the eighth, I meant the fifteenth. Same pump, P-100.",
    "How about January twelfth, first thing in the morning, for pump P-200?",
    "No, not P-100, it's P-200 that needs looking at, uh, this Friday.",
    "Uh, 3 p.m. on February the second works for us, if the engineer's free.",
    "Hmm, could the engineer come to pee two hundred on Thursday the tenth, after lunch?",
    "Put P-100 down for Friday next week, at, uh, a quarter past eight in the morning.",
)

# A fifth held-out set, written from docs/ alone by someone who had read no code, on 2026-12-04
# after the fourth set's figures had shaped three rules (a date after "after" or "before" is a
# bound; a weekday followed by a word no day is followed by is checked; a weekday beside its
# date is one reading), said by audio.voices.HELD_OUT_BASES_5. Measured once.
HELD_OUT_VALUES_5 = (
    "Um, could you get someone out to pump two hundred on Wednesday the 9th, say around "
    "twenty past ten?",
    "Right, so for P-100 I was thinking the 16th, erm, the 16th in the afternoon if that's "
    "possible.",
    "Actually, hang on, not the 10th, make that Friday the 11th for P-200.",
    "Could we do the fourth of February, first thing in the morning, for the one hundred pump?",
    "Sorry, I meant half nine, not half ten, on Wednesday the 23rd.",
    "Tomorrow afternoon would suit us best for P 100, around quarter to three.",
    "Let's pencil in Thursday the 28th of January at 11:15 for pump P-200.",
    "How about Monday week, in the morning, for the pump on Harbour Road?",
    "Can you send an engineer to P-200 in a fortnight, say 3 o'clock?",
    "Put me down for the day after tomorrow, P two hundred, two thirty in the afternoon.",
    "Can we do December 18th at 1:45 PM for the P-100?",
    "Right, pump one hundred, the twenty-second, no wait, the twenty-first, in the morning.",
    "We'd want it at ten to four next Monday, for P-200 please.",
    "Er, the 10th of February, sometime after lunch, for P one hundred.",
)


# A sixth held-out set, written from docs/ alone by someone who had read no code, on 2026-12-04
# after the fourth and fifth sets' misses had shaped two more trust rules (a faint word right
# after a weekday; a word in the day's place before a month), said by
# audio.voices.HELD_OUT_BASES_6. Measured once, blind.
HELD_OUT_VALUES_6 = (
    "Hi, er, I'd like to book a service for pee one hundred on Thursday the seventeenth, at "
    "half past two if possible.",
    "Right, so the pump in Utrecht needs looking at, could you do the eighth of January, "
    "quarter to eleven?",
    "Can someone come out to P-100 a week on Friday, after lunch?",
    "Um, Monday week for the Rotterdam pump, first thing in the morning please.",
    "Yeah, hi, I need pump two hundred serviced next Tuesday at 2:45.",
    "Tomorrow afternoon at three o'clock for P-200, if you've got anything.",
    "Sorry, not the fifteenth, I meant Wednesday the sixteenth for P-100, late morning ideally.",
    "So could we book the P-100 pump in for January the twelfth, around ten thirty?",
    "Er, put P-200 down for Monday the fourth of January, say twenty past one.",
    "Hiya, any chance of getting the one in Utrecht seen to on the twenty-second, half three in"
    " the afternoon?",
    "We'd like P one hundred serviced on Thursday, December tenth, at nine fifteen a.m.",
    "Oh, actually, make that Friday the eighteenth, not the eleventh, for pee two hundred, at "
    "noon.",
    "So, um, the day after tomorrow for the pump in Rotterdam, around four in the afternoon "
    "would be great.",
    "Uh, we're looking at February second for pump P-100, eleven o'clock in the morning.",
)

# A seventh held-out set, written from docs/ alone by someone who had read no code, on 2026-12-04
# (evening) after the sixth set's misses had been fixed, with the bounds and ranges of the clock
# ("until noon", "between two and four") just read, said by audio.voices.HELD_OUT_BASES_7.
# Measured once, blind.
HELD_OUT_VALUES_7 = (
    "Hi there, um, could you send someone out to pee two hundred on Thursday at half past "
    "ten?",
    "Hiya, I need the Rotterdam pump looked at tomorrow, er, sometime after lunch if that's "
    "alright.",
    "Hello, er, can we get the one in Utrecht seen to, um, a week on Wednesday, first thing "
    "please?",
    "Book an engineer for P-100 on the ninth, no sorry, not the ninth, the tenth, between "
    "two and four.",
    "Hi, I'd like to schedule service on pump two hundred for December fourteenth, at "
    "quarter to three.",
    "Um, can you pencil pee one hundred in for next week Tuesday, eleven fifteen?",
    "Hey, uh, we need somebody at the Utrecht pump on Friday the eighteenth, 9am works for "
    "us.",
    "Could I book a visit for the pump we have in Rotterdam at the end of the week, half "
    "two ideally? Cheers.",
    "Right, so, P 200 please, on the 16th, at twenty past one if you can.",
    "I'd like someone to look at pump one hundred on Monday, er, towards the end of the "
    "day.",
    "Could you move the P-200 visit to the day after tomorrow at ten o'clock, please?",
    "Er, it's P-100 that needs servicing, sorry, I mean P-200, on the seventeenth of "
    "December before lunch.",
    "Put pee one hundred down for Friday the eleventh at eleven, actually no, make it 3:30 "
    "pm.",
    "Hiya, could somebody get to P100 on Tuesday the fifteenth? We're only on site until "
    "noon, ta.",
)

# An eighth held-out set, written from docs/ alone by someone who had read no code, on 2026-12-04
# (night), said by audio.voices.HELD_OUT_BASES_8 (the eighth set of voices). Measured once, blind,
# after the reading fixes that the seventh set's and the earlier sets' misses led to.
HELD_OUT_VALUES_8 = (
    "Hi, um, could you book a service visit for pee one hundred on Tuesday the 8th, first "
    "thing?",
    "I need someone out to the Utrecht pump on Wednesday, no, sorry, Thursday afternoon.",
    "Can we get P-200 looked at a week on Tuesday, say around half past two?",
    "Er, the Rotterdam pump, the fifteenth of December, quarter to ten in the morning if "
    "possible.",
    "Could you pencil us in for P-100 on Monday, January 11th, at 10:30 am, please?",
    "Hello there, I'd like the two hundred pump serviced on Monday, after lunch ideally.",
    "Please move my P-100 booking to the 16th, um, around 14:30 if that works.",
    "Could you push the Utrecht visit back to Thursday the seventeenth, before lunch?",
    "Sorry, can we shift the pee two hundred visit from the 9th to the 11th, in the "
    "morning?",
    "We'd like a service on P-100 on the fourteenth of January, at ten o'clock, please.",
    "Book the pump we have in Rotterdam for next week Tuesday, quarter past one, no, half "
    "past one.",
    "Could somebody come out to P-200 on December 22nd at 3 pm? Thanks.",
    "Right, er, can you reschedule P-100 to Wednesday the sixth of January, nine fifteen in"
    " the morning?",
    "Is there any chance of getting pee one hundred seen to on the 12th of January, half "
    "two?",
)

# A ninth held-out set, written from docs/ alone by someone who had read no code, on 2026-12-05,
# said by audio.voices.HELD_OUT_BASES_9. Measured once, blind, after the eighth set's misses were
# fixed (a correction whose value was not heard, 'water' for 'quarter', a clipped 'am').
HELD_OUT_VALUES_9 = (
    "Hi, um, could you book a service visit for pee one hundred on Thursday the 10th, "
    "sometime in the morning?",
    "I'd like someone out to the Utrecht pump a week on Friday, after lunch if possible.",
    "Can we get P-200 looked at Wednesday next week, er, at half past two?",
    "Please book the two hundred for the 8th of January, sorry, the 11th, at a quarter past"
    " ten.",
    "Morning! Could somebody come out to the Rotterdam pump tomorrow, first thing?",
    "Yeah, we need P one hundred serviced on Monday the 14th, around 3 pm, if that works.",
    "Could you move the P-200 visit to December the seventeenth, ten to eleven?",
    "Er, put me down for pump 100 on Friday the 18th, no wait, Thursday the 17th, at 13:45.",
    "Hello, I'm ringing to book the pump in Utrecht for the day after tomorrow, around "
    "eleven in the morning.",
    "Hi there, I'd like to schedule maintenance for P-100 on January 6th at nine thirty "
    "a.m.",
    "Can we shift the P-200 booking to Tuesday the fifteenth, in the afternoon please?",
    "Could an engineer pop round to the one in Rotterdam on Friday, say quarter past nine?",
    "Um, I need the two hundred pump seen to on the 22nd of December, half two ideally.",
    "We'd like P-100 booked in for Thursday the seventh of January, er, let's say 8:30 in "
    "the morning.",
)

# A tenth held-out set, written from docs/ alone by someone who had read no code, on 2026-12-05,
# said by audio.voices.HELD_OUT_BASES_10. Measured once, blind, after the ninth set's misses and
# the greeting, "that"-for-"the" and week-beside-the-weekday rules.
HELD_OUT_VALUES_10 = (
    "Hi there, um, could you get someone out to P-100 tomorrow morning, please?",
    "Hello, I'd like to book a service visit for the Utrecht pump on Thursday the tenth, at "
    "half past two if possible.",
    "Can we get pee two hundred looked at on Friday, er, no, sorry, make that Monday, first "
    "thing?",
    "Morning. The two hundred pump needs seeing to a week on Wednesday, and sometime after "
    "lunch would be ideal.",
    "I need the Rotterdam pump serviced on the fifteenth of December at quarter to eleven, "
    "sorry, I mean quarter past eleven.",
    "Could you pencil in P-100 for January the twelfth, in the afternoon?",
    "Right, so the pump we have in Utrecht, could somebody come out next Tuesday at 10:30 "
    "am?",
    "Book P-200 for the day after tomorrow in the morning, actually no, the afternoon would "
    "be better.",
    "Hiya, I was wondering if an engineer could look at pee one hundred on Wednesday the "
    "sixth of January, around 9 a.m.?",
    "Please send someone to the Rotterdam pump on Thursday, I mean Friday the eighteenth, "
    "end of the day if you can manage it.",
    "Hey, I'd like to schedule service on P-100 for February 3rd at 2 pm.",
    "Er, could we have P-200 seen to in a couple of days, at ten o'clock in the morning?",
    "We need the P-100 pump done on the twenty-second, sorry, the twenty-first, at twenty "
    "past nine.",
    "Morning! Can I book the Utrecht pump, no wait, the Rotterdam pump, for the fourteenth "
    "of January at 14:30?",
)

# An eleventh held-out set, written from docs/ alone by someone who had read no code, on
# 2026-12-05, said by audio.voices.HELD_OUT_BASES_11. Measured once, blind, after the tenth set's
# misses and the rules that a replaced value's words and a window's own name carry the value.
HELD_OUT_VALUES_11 = (
    "Hi there, I'd like someone to come and look at pee two hundred the day after tomorrow, "
    "first thing if you can manage it.",
    "Good afternoon. Could you pencil in a service for the Rotterdam pump on Tuesday the "
    "eighth, or rather Wednesday the ninth, around tennish?",
    "Yeah hi, this is Dave. We gotta get P-100 serviced December 15th, in the morning if at "
    "all possible.",
    "Hello, could I book the Utrecht pump for Monday the 14th at half past eleven, sorry, I "
    "tell a lie, quarter to eleven.",
    "Um, I need to move the P-200 visit to the Friday after next, sometime after lunch "
    "would be grand.",
    "We'd like an engineer at the pump down in Rotterdam on January the 7th, scratch that, "
    "the 8th, at 14:30 please.",
    "Hey, how's it going? Can you guys send a tech out to pump one hundred next week "
    "Thursday, like 1:30 in the afternoon?",
    "Hi, I was hoping to get the two hundred pump looked at next Monday in the afternoon, "
    "actually no, make it the morning.",
    "Right, so we've already got P-100 booked in, and we need to shift it to the 22nd, end "
    "of the day if you can.",
    "Could somebody come and service the unit in Utrecht on the 19th of January at nine, "
    "or, come to think of it, half nine would be safer?",
    "Hiya, can you get someone round to pee one hundred at the end of the week, say twenty "
    "past one?",
    "I'd like to book P-200 for Wednesday the 17th of February, hmm, correction, the 24th, "
    "in the morning.",
    "Hey there, is it possible to get the Rotterdam pump serviced tomorrow, maybe "
    "three-ish?",
    "Afternoon. We'll need a visit to the pump over in Utrecht on the 11th of January, no "
    "hang on, Tuesday the 12th, let's say midday.",
)

# A twelfth held-out set, written on 2026-12-05 from ``docs/`` alone by someone who had read no
# code, after every rule the eleven sets before it shaped; said by
# audio.voices.HELD_OUT_BASES_12. Its typed readings were all as its writer expected.
HELD_OUT_VALUES_12 = (
    "Hi there, I'd like to book a service visit for P-100, or rather P-200, the day after "
    "tomorrow in the afternoon please.",
    "Morning, it's Jen from Acme. Could you get someone out to the Utrecht pump a week on "
    "Monday, at about half three?",
    "Yeah, hello, we need pee one hundred looked at on the 9th, my mistake, the 10th, sometime "
    "in the morning if that's alright.",
    "Hello, can somebody come and service the Rotterdam pump next Monday at ten past two? That "
    "would suit us nicely.",
    "Hiya, um, could you book the two hundred pump for Friday week at eleven, scratch that, "
    "quarter past eleven, in the morning.",
    "Good morning! I'm after a visit to the pump we have in Rotterdam, Tuesday next week, first "
    "thing if possible.",
    "Could we get P-200 serviced on Thursday in the morning? Actually, come to think of it, "
    "after lunch would work better for the lads.",
    "Hello, it's Priya. I'd like to pencil in the one in Utrecht for December the fifteenth, at "
    "fourteen hundred hours please.",
    "Send an engineer to the Utrecht pump tomorrow afternoon, please. Oh, on second thoughts, "
    "make that the Rotterdam pump instead.",
    "Um, hi, I need P-100 done at the end of the week, in the afternoon rather than the morning,"
    " ideally at about four o'clock.",
    "Hiya, can you book pump two hundred for Wednesday the 9th, hang on, no, Wednesday the 16th,"
    " at around ten in the morning?",
    "Hello, I'd like a technician out at P-100 a week tomorrow at half two, I mean half four, in"
    " the afternoon.",
    "Could I book the Rotterdam pump for Thursday the 3rd at ten? Did I say Thursday? I meant "
    "Friday the 4th, still at ten.",
    "Hey there, this is Mike over at Acme. Can I get somebody out to pump P-200 in a couple of "
    "days, at two thirty p.m.?",
    "Right then, a booking for the start of next week please, morning slot, for pee two hundred,"
    " correction, pee one hundred.",
    "We'd like the pump on Canal Street seen to on the 18th, end of the day, oh wait, the 17th "
    "would suit better.",
)

# A thirteenth held-out set, written on 2026-12-05 from ``docs/`` alone by someone who had read
# no code, after the rules the twelfth set shaped; said by audio.voices.HELD_OUT_BASES_13.
HELD_OUT_VALUES_13 = (
    "Hiya, good morning. Could you get somebody out to pee two hundred on Thursday, at about "
    "twenty to three?",
    "Ah howya, I'm ringing to get the Rotterdam pump booked in for Friday, no wait, sure I'm "
    "after getting that wrong, Monday, first thing.",
    "Hello sir, I want to do servicing of pump P-100 on 10th December, kindly schedule the "
    "engineer at eleven a.m. only.",
    "G'day mate, need a tech out to the Utrecht pump on the ninth, in the arvo, ah actually no, "
    "the morning suits us better.",
    "Hi there, yeah, I'd like to schedule a service call for the two hundred pump this Friday, "
    "at a quarter after two, if that works?",
    "Hello, Dave here. Can I book P-100 for Wednesday the ninth, in the afternoon? No, I tell a "
    "lie, Thursday the tenth.",
    "Could you pencil us in for pump two hundred on the 16th at half ten, sorry, I mean half "
    "eleven?",
    "Yeah hi, this is Maria over at Acme, I need P two hundred looked at on Dec 15th, sometime "
    "after lunch would be great, thanks.",
    "Right, so for the Rotterdam one, we'd said Thursday, but could you push that to Friday "
    "morning instead, around ten o'clock?",
    "Hiya, any chance of someone seeing to the pump we have in Utrecht a week tomorrow, just "
    "before lunch ideally?",
    "Er, yeah, book P-100 for Monday the 14th, oh hold on, that's no good, we're shut Mondays, "
    "Tuesday the 15th at thirteen hundred hours.",
    "Okay so I'd like to get P-100 on the books for Feb 3rd, ugh, my bad, the 5th, sometime in "
    "the morning.",
    "Hi, it's the Rotterdam pump we're calling about, wait, what am I saying, it's the Utrecht "
    "one, tomorrow afternoon please, if you can.",
    "Please book P-100 for the day after tomorrow at 3 pm, no no, sorry, make it four o'clock "
    "itself, madam.",
    "Yeah g'day, P-100 is due a service, could youse come out Tuesday next week, say half past "
    "one?",
    "Hiya love, could we get the Harbour Road pump serviced Friday week, end of the day if poss?",
)

# A fourteenth held-out set, written on 2026-12-05 from ``docs/`` alone by someone who had read
# no code, after the rules the thirteenth set shaped; said by audio.voices.HELD_OUT_BASES_14.
HELD_OUT_VALUES_14 = (
    "Hi, I'd like to get someone out to pump 100 on Thursday, no no, Friday, Friday morning time"
    " if at all possible.",
    "Right, so it's the Rotterdam pump, erm, no, let me start again. It's the one in Utrecht "
    "that needs servicing, Wednesday the 9th, early afternoon please.",
    "Can you book a visit for P-200 on the 14th at twenty-five to four? Actually I got that "
    "wrong, it's the 15th I need, same time.",
    "Could you send an engineer to the two hundred pump on Wednesday, not Wednesday, sorry, "
    "Thursday, some time in the AM?",
    "The pump we have in Utrecht, could somebody come and have a look at it on the 10th... or "
    "actually the 11th, after lunch?",
    "Put me down for P-100 the day after tomorrow at ten, strike that, quarter past eleven would"
    " suit us better.",
    "Friday week, in the afternoon, for the Rotterdam pump. Hang on, did I say Rotterdam? I "
    "meant the Utrecht one. Can we get that booked?",
    "We need pee one hundred seen to on Wednes... on Thursday the 3rd, at quarter past two if "
    "that's okay.",
    "Could I have someone at P-200 tomorrow, two o'clock? Sorry, I keep saying two o'clock, I "
    "mean three o'clock sharp.",
    "This coming Monday at five past nine, hmm, no, make it nine-thirty, for the pump in "
    "Rotterdam please.",
    "Thursday of next week, 2:45, pump 200, that's the Utrecht one. Can you book that in for us?",
    "Good morning, it's Priya from Acme, I was hoping you could squeeze in a service on P-100 "
    "sometime early afternoon, Friday the 18th if possible, we've had a bit of a leak.",
    "Tuesday the 5th of January, first thing, would that be doable for the pump we've got in "
    "Utrecht?",
    "I'd like to move the Rotterdam pump visit, could we make it a week tomorrow, in the morning"
    " if that's alright with you?",
    "Book P-100 for the 22nd, I tell a lie, the 21st, that's the Monday, sometime in the "
    "morning.",
    "So the inspector was round and he reckons the Utrecht pump wants a proper service, so, um, "
    "the 4th, that's the Friday, mornings are no good for us, maybe early afternoon, about half "
    "one?",
)

# A fifteenth held-out set, written on 2026-12-05 from ``docs/`` alone by someone who had read
# no code, after the rules the fourteenth set shaped; said by audio.voices.HELD_OUT_BASES_15.
HELD_OUT_VALUES_15 = (
    "Hi there, quick question: can you get an engineer out to the Utrecht pump on December the "
    "ninth, at about quarter to twelve?",
    "The Rotterdam pump's been knocking since last night and it's driving us mad. Can someone "
    "come Wednesday, my mistake, Thursday, sometime before lunch?",
    "Morning, this is Priya Nair, site engineer at Acme. Ten a.m. on the dot, Thursday the "
    "tenth, pump P-200. Could you book that in?",
    "Can you pencil P-100 in for the start of next week, afternoon please? Ooh, let's swap the "
    "afternoon for the morning, the yard's quieter then.",
    "Is Friday the eighteenth free for pump 200 at one pm? Hmm, let's say half three rather than"
    " one pm, if you can.",
    "We need the two hundred pump seen to, but Monday's no good for us, so Tuesday next week, "
    "any time after one.",
    "Hello, your engineer's job sheet says P-100 needs a follow-up. Could we do eleven thirty on"
    " the fourteenth? Forget the fourteenth, the fifteenth, same time.",
    "For pump P-200, the Thursday after next at quarter past one. Mind you, Thursday doesn't "
    "work for the crew, could we do Friday week instead?",
    "Could somebody look at our Rotterdam one the day after tomorrow, around ten? Never mind the"
    " ten o'clock, twenty past nine is better.",
    "Hiya, pee one hundred is due its service. I was thinking the 9th, Wednesday. Nobody's in on"
    " the 9th though, so the 10th, later in the day?",
    "Can we get our pump in Utrecht looked at on January the fifth, hold on, the sixth? Any time"
    " after two would be grand.",
    "Hello, it's Tom Berg from Acme maintenance. P-100, Friday at eight thirty, but I'm away "
    "Friday, so Monday instead please.",
    "Is there a slot at 3 o'clock on Thursday week for the pump we have in Utrecht? It's making "
    "a horrible grinding noise.",
    "We've had a pressure alarm on P-100 twice this week. End of next week, ten after three, if "
    "your engineer's free.",
    "Quarter past two on Thursday the 17th for P-100, please. I tell a lie, it's P-200 that's "
    "overdue, same slot.",
    "Any chance of a technician for pee two hundred on the twenty-second, sometime before "
    "eleven? Our yard gate's locked after that.",
)

# A sixteenth held-out set, written on 2026-12-05 from ``docs/`` alone by someone who had read
# no code, after the rules the fifteenth set shaped; said by audio.voices.HELD_OUT_BASES_16.
HELD_OUT_VALUES_16 = (
    "Hi, a service for P-100 next Monday, before lunch please.",
    "Can you pencil in the Rotterdam pump for the ninth, first thing? Ooh, swap the ninth for "
    "the tenth, if that's alright.",
    "Right, we need pump two hundred looked at, end of the week, ten o'clock, no, I tell a lie, "
    "quarter to eleven.",
    "Monday the fourteenth is no good for us any more, so could you get someone out to P-100 on "
    "Tuesday the fifteenth, after lunch if possible?",
    "Our yard's shut on Friday, so would Thursday work for the Utrecht pump, about two o'clock?",
    "Book P-200 for the seventeenth at nine, correction, nine forty-five.",
    "Morning, I'm after a service visit for the Utrecht pump, oh, my mistake, it's the one in "
    "Rotterdam, December the sixteenth at ten a.m.",
    "Could we get an engineer to P-100 on Tuesday of next week, in the afternoon instead of the "
    "morning like last time?",
    "I'd like pee two hundred serviced on the twenty-ninth, erm, skip the twenty-ninth, the "
    "thirtieth at half one.",
    "Please don't send the engineer on Monday, Wednesday suits us better, it's for the pump we "
    "have in Rotterdam, ten o'clock.",
    "In a couple of days, could someone check over P one hundred, say three p.m.? Mornings are "
    "all booked up for us.",
    "Can we do P two hundred on the fourth of January, any time before eleven?",
    "Hello, this is Marta, one of the technicians with Acme, and I was hoping to get our Utrecht"
    " one booked in for its service at the end of next week, sometime later in the day would be "
    "ideal.",
    "There's a drip coming off P-200, can somebody come tomorrow, no, Friday, no, no, tomorrow's"
    " better, early in the day.",
    "Need P 200 done in a week, twenty to three.",
    "Good morning, I'd like to arrange a service visit for pump one hundred on December the "
    "twenty-second, somewhere between nine and eleven, if the engineer can manage that.",
)

HELD_OUT_VALUES_17 = (
    "Hello, er, could I get someone out to the Utrecht pump next Tuesday, at twenty past two?",
    "Hiya, it's Priya at Acme. Can we book P-100 for Monday the fourteenth, two-ish?",
    "Um, yeah, the pump over in Rotterdam is due a service. Would the seventh of January "
    "work, around half nine?",
    "Could you pop round to pee two hundred the day after tomorrow, some time in the "
    "afternoon?",
    "Morning, we'd like P one hundred serviced a week on Thursday, first thing.",
    "Can I book the two hundred pump for this Friday, ten to four?",
    "Book P-200 for Wednesday the ninth at eleven, actually, make that half eleven.",
    "Could you send someone to the Utrecht pump not on the tenth but on the eleventh, in the "
    "afternoon?",
    "Put the Rotterdam pump down for tomorrow morning, I mean the Utrecht one, sorry.",
    "For P-100, Monday afternoon's no good after all, Wednesday morning would suit us better.",
    "Can I get P-200 booked for the fifteenth in the morning? Sorry, I meant P-100, and the "
    "seventeenth, same morning slot.",
    "Pencil in the Utrecht pump for Monday the twenty-first in the afternoon. Hmm, wait, the "
    "morning's easier for us.",
    "For P one hundred, Wednesday the sixteenth at ten a.m., oh no, not the sixteenth, the "
    "twenty-third.",
    "P-100's site is shut on Thursday the seventeenth, so could we go for Friday the "
    "eighteenth at eleven instead?",
    "The afternoons are getting busy at our end, so for pee two hundred on the twenty-second,"
    " could you do tenish?",
    "Book P-100 for tomorrow afternoon, oh, never mind the afternoon, the morning, and not "
    "tomorrow either, Thursday.",
)

HELD_OUT_VALUES_18 = (
    "Hi, um, could you send someone out to the Utrecht pump the day after tomorrow, in the "
    "afternoon?",
    "Er, I'd like P one hundred serviced on Thursday the 10th, quarter past nine if possible.",
    "Could we book pee two hundred for next week Tuesday, half two?",
    "Hello, Priya from Acme here, I need the pump we've got in Rotterdam looked at on the 7th"
    " of January, first thing.",
    "Can somebody service the pump on Canal Street in Utrecht on Monday at 1 pm, please?",
    "I reckon the Rotterdam pump is due a service, maybe Wednesday the 16th of December, er, "
    "two o'clock?",
    "P one hundred on Wednesday at eleven, no, make that quarter to ten.",
    "Um, the Utrecht pump on the 14th in the morning, actually the 15th would suit us better.",
    "Book the Rotterdam pump for Friday afternoon, scratch that, it's the Utrecht one that "
    "needs doing.",
    "Could you do P one hundred on Thursday at ten? Sorry, I got that wrong, it should be "
    "Friday at half past one.",
    "It's not the Rotterdam pump, it's the one in Utrecht, could someone come out on the 18th"
    " at eleven?",
    "For the Rotterdam pump, the 10th is no good, can we do the 22nd at nine instead?",
    "Pump two hundred, Thursday the 17th, at two, or rather half past three.",
    "We're shut on Thursdays at our Rotterdam yard, so could the engineer see to P one "
    "hundred on the Friday after next, say half nine?",
    "For pee two hundred, our afternoons are all booked up, so could we say ten o'clock on "
    "the 9th?",
    "Pump one hundred on Monday the 14th, anything but the morning, the afternoon suits us "
    "best.",
)

HELD_OUT_VALUES_19 = (
    "Hiya, the seal's gone again on our Rotterdam pump and it's dripping everywhere. Could "
    "someone come out the day after tomorrow, after lunch ideally?",
    "Service visit for P two hundred, Friday week, quarter to eleven please.",
    "Reading off the work order here: asset pump one hundred, Harbour Road, Rotterdam, visit "
    "date Thursday the seventeenth, fourteen hundred hours.",
    "Um, hi, yeah, we'd need somebody to, er, have a look at the pump in Utrecht, um, "
    "tomorrow, first thing if that's at all possible?",
    "Could we get the two hundred booked in for the 4th of January, eleven o'clock? It's been"
    " making a horrible grinding noise lately.",
    "Can you pencil in P one hundred for next week Wednesday, half ten? The pressure keeps "
    "dropping off and we'd like it checked.",
    "Book the Canal Street pump for tomorrow at two, no, I tell a lie, twenty past three, "
    "that's when the site manager's back.",
    "Could somebody service the pump we've got in Rotterdam on the 15th, hang on, make it the"
    " 16th, in the morning? The gland's weeping again.",
    "Can you send an engineer to the Utrecht pump on Friday afternoon, sorry, I meant the one"
    " in Rotterdam, it's leaking oil all over the floor.",
    "Service visit for pump two hundred, Wednesday at quarter to eleven, no wait, not "
    "Wednesday, Thursday, at 3 pm.",
    "We'll want the one hundred serviced on the twelfth of January in the morning, or rather "
    "the afternoon, if that's all the same to you.",
    "Okay, from the job sheet: pump P one hundred, correction, P two hundred, site Canal "
    "Street, visit Monday the 7th, first thing.",
    "Um, our Rotterdam one, Monday the 14th at half nine, did I say half nine? I meant half "
    "one, just after lunch.",
    "Any chance of getting someone to the pump on Harbour Road? We're closed on Thursday, so "
    "Friday first thing would be ideal.",
    "P two hundred is due its quarterly service, a week on Friday if you can, but mornings "
    "are no good for us, so after lunch please.",
    "Honestly any day except Monday suits us, so let's say Tuesday the 8th, quarter past two,"
    " for the Utrecht pump, the motor's rattling.",
)

HELD_OUT_VALUES_20 = (
    "Hi there, could you get someone out to look at the Rotterdam pump on Thursday morning? "
    "It's been rattling a bit.",
    "Pump two hundred needs servicing. Friday, half past two please, if you can manage it.",
    "Work order reads: pump P one hundred, 12 Harbour Road, service visit on the 10th of "
    "December, afternoon slot.",
    "Um, we'd like somebody to, er, see to the Utrecht pump, maybe the day after tomorrow, "
    "first thing?",
    "Can you book a technician for pump one hundred next week Tuesday at quarter to ten?",
    "Could somebody come out to our Utrecht one a week on Friday, after lunch ideally?",
    "Put P one hundred down for Thursday at nine, sorry, I meant half past ten.",
    "Book the pump we have in Rotterdam for Wednesday, actually, scratch that, Friday would "
    "suit better, afternoon please.",
    "Send someone to pump two hundred on Monday morning, sorry, I mean the one in Rotterdam.",
    "We need P two hundred looked at on the 3rd at 2 pm, my mistake, the 4th at 10 am.",
    "Friday morning for the Utrecht pump, hmm, actually, the afternoon suits us better.",
    "Book pump one hundred for tomorrow, I tell a lie, it's the two hundred pump, and "
    "Thursday instead.",
    "Thursday at 3 pm for the Rotterdam unit? Hang on, make that half past eight.",
    "We're shut on Wednesday, so could someone service the Utrecht pump on Thursday, end of "
    "the day?",
    "Monday for the Rotterdam pump please, not the morning though, the afternoon works better"
    " for our crew.",
    "Pump two hundred, Friday at eleven? Forget eleven, quarter past three would suit us.",
)

HELD_OUT_VALUES_21 = (
    "Hiya, could you get an engineer out to the Utrecht pump on Wednesday next week, ideally "
    "about half past one?",
    "Right, work order for pump one hundred: routine service, Thursday the tenth of December, "
    "quarter to ten in the morning, please.",
    "Hello there, we'd like somebody to have a look at P-200 the day after tomorrow, sometime "
    "after lunch if that's doable.",
    "Yeah, hi, can I book a service on the pump down at Harbour Road for Friday week, first "
    "thing ideally?",
    "I need the two hundred unit serviced on the sixteenth of December, let's say ten thirty "
    "a.m. if you've got it.",
    "Could your technician swing by P 100 tomorrow at two forty-five? It's the Rotterdam one, "
    "by the way.",
    "Any chance of getting someone to our pump over in Utrecht at the start of next week, in "
    "the afternoon?",
    "Hi, I'd like to schedule maintenance on pump 100 for December 15th at 2 p.m., if that "
    "works for you guys.",
    "Could we get P-100 serviced on the eighth, oops, not the eighth, I mean the fourteenth, "
    "at around eleven?",
    "Put the Canal Street pump down for Thursday the 17th in the morning; thinking about it, "
    "the afternoon would suit the site team better.",
    "Can you send an engineer to pump two hundred on the 4th, first thing, no wait, I've got "
    "that backwards, it's the Rotterdam one that's playing up.",
    "We need a service on P-100 the day after tomorrow at two, um, no, let's push it to a week "
    "tomorrow instead, same time.",
    "Yeah, I wanna schedule P-200 for December 3rd at 1:30, oh, I misspoke, three fifteen "
    "works better for us.",
    "Could we have someone at the Rotterdam site on January the fifth, after lunch, hmm, no, "
    "the sixth would be better.",
    "Book pump one hundred for Tuesday next week in the afternoon, actually no, half ten in "
    "the morning suits us better.",
    "It's P-100, hang about, wrong one, it's P-200, could someone come out on the eighteenth "
    "at ten?",
)

HELD_OUT_VALUES_22 = (
    "Hiya, could you get an engineer over to our Utrecht pump on Thursday the tenth at about "
    "half ten?",
    "Morning. Um, I'd like pump one hundred looked at the day after tomorrow, ideally in the "
    "afternoon.",
    "Yeah hi, we need the Rotterdam pump serviced a week on Monday, first thing if you can.",
    "Hi there, I'd like to schedule service for P two hundred on December eighteenth at a "
    "quarter after two.",
    "Could somebody come and look at the pump we've got in Rotterdam this Friday, round about "
    "three o'clock?",
    "Hello, it's Dana at Acme. Could you pencil in P-100 for Monday the fourth of January, "
    "after lunch?",
    "Hi, I need the Utrecht unit seen to tomorrow at nine fifteen a.m., is that doable?",
    "Uh, can we book a service on our pump in Utrecht for the sixteenth, sometime before lunch "
    "please?",
    "I'd like P-100 done Thursday morning, er, no, hang on, make that the afternoon.",
    "Can a technician visit P-200 on Wednesday the ninth, sorry, I mean Friday the eleventh, at "
    "ten a.m.?",
    "We need P-200 looked at on the seventh at eleven, actually no, it's the Rotterdam one, not "
    "the Utrecht one.",
    "Book the pump on Canal Street for Monday the fourteenth at half past one, or rather a "
    "quarter to four.",
    "Let's do pump one hundred on December twenty-second at ten thirty, scratch that, one "
    "thirty in the afternoon.",
    "Put the Rotterdam pump down for tomorrow afternoon, oh hold on, we're shut tomorrow, so "
    "Thursday afternoon instead.",
    "Pump two hundred on Tuesday next week at nine in the morning, my mistake, three in the "
    "afternoon.",
    "Can we get the two hundred pump serviced on the fifth of January, sorry, the sixth, late "
    "morning, around eleven?",
)

# A twenty-third held-out set, written blind from docs/ like the twenty-second (2026-12-05, late
# evening): more of the ways to say an asset (its street, "the two hundred pump"), a time
# with "say" or "about", "I tell a lie", "correction" and "hang on" correcting in the turn.
HELD_OUT_VALUES_23 = (
    "Hiya, it's Dana at Acme. Could you get an engineer out to pump one hundred on "
    "Wednesday the ninth, say quarter to eleven?",
    "Right, so the Utrecht one is due its service. Could somebody come by on the 15th at "
    "half two?",
    "Good afternoon. We'd like the pump on Harbour Road seen to the day after tomorrow, "
    "first thing if you can.",
    "Hello there, P two hundred needs a check. Can you do a week on Friday, ten past nine "
    "in the morning?",
    "Yeah hi, could we book the Canal Street pump in for January the sixth, after lunch?",
    "Morning. I need someone at our Rotterdam pump on Monday the fourteenth at 13:45.",
    "Um, hi, it's about P one hundred. Uh, could you send a technician on Thursday the "
    "seventeenth of December, about eleven thirty?",
    "Can I get the two hundred pump booked for Tuesday the twelfth of January at two in the"
    " afternoon?",
    "Could we have someone look at pump two hundred on Thursday in the afternoon? No wait, "
    "Friday would be better.",
    "P one hundred please, Tuesday the eighth at ten o'clock. I tell a lie, Wednesday the "
    "sixteenth.",
    "Hi, can you book the Rotterdam pump for tomorrow at half nine? Make that twenty to "
    "ten.",
    "We need the pump in Utrecht serviced on the twenty-second, in the morning, correction,"
    " the afternoon.",
    "Book P two hundred for Thursday the tenth, first thing. Sorry, I meant P one hundred, "
    "the Harbour Road one.",
    "It's the Rotterdam pump that needs a visit, or actually, the Utrecht one, on Monday "
    "the seventh at five to four.",
    "Could someone come out to pump one hundred on the eighteenth, about three in the "
    "afternoon? No no, my mistake, quarter past one.",
    "We'd like P-200 looked at on the fifth of January, hang on, the seventh, at half eight"
    " in the morning.",
)

# The twenty-fourth, written from docs/ alone on 2026-12-05 (night), after the words were
# scored under the likelier of two priors; measured blind before any fix.
HELD_OUT_VALUES_24 = (
    "Hi there, um, could you send someone out to pump one hundred on Thursday the tenth? "
    "Quarter past ten, if possible.",
    "Good morning. The pump in Utrecht has been making a grinding noise, so could somebody "
    "have a look at it the day after tomorrow, after lunch?",
    "Hello, it's Priya from Acme. I'd like to book P two hundred for Monday the fourteenth in "
    "the morning. No wait, sorry, make that the afternoon.",
    "Er, yeah, we need the Rotterdam pump serviced a week on Friday, at about half ten.",
    "Morning, could I get an engineer out to the one in Utrecht on Friday the eleventh at "
    "ten? Actually, scratch that, the eighteenth would be better.",
    "Hiya, pee one hundred is leaking again. Could someone come out first thing on the "
    "fifteenth?",
    "Hello, I'd like a service visit for our Rotterdam one on January the sixth, at quarter "
    "to three. Sorry, I meant quarter past three.",
    "Hi, um, can we have someone look at the two hundred pump next week Tuesday, later in the "
    "day?",
    "Good afternoon. Could you pencil in pump two hundred for the twenty-first? Say, er, "
    "elevenish?",
    "I need the pump in Rotterdam seen to on Monday, half two. No, hang on, I mean the one in "
    "Utrecht.",
    "Right, so P one hundred is due its yearly service. Could you do a week tomorrow, um, "
    "before lunch?",
    "Hello, could someone come to the pump we have in Rotterdam on the eighth of January at "
    "nine-thirty? Or rather the eleventh, if that's easier.",
    "Hi, could you get a technician out to pee two hundred at the end of the week? About two "
    "o'clock would suit us.",
    "Hi there, I'm calling about pump two hundred, sorry, I mean the one in Rotterdam. Can "
    "someone come on Wednesday the sixteenth, towards the end of the day?",
    "Could you send someone to the Rotterdam site on Thursday the seventeenth at 13:45, "
    "please? Cheers.",
    "Um, hello, could you send someone round to our yard in Utrecht on Monday the fourth of "
    "January, early in the day?",
)

# The twenty-fifth, written from docs/ alone on 2026-12-06, after the turn's first word was
# counted at the likelier prior in its mean confidence (audio/whisper.py,
# UNBIASED_FIRST_WORD); measured blind before any fix.
HELD_OUT_VALUES_25 = (
    "Hi there, um, I'd like to book a service for pee two hundred on the tenth, around half "
    "ten if that's possible.",
    "Good afternoon, could you get someone out to the Rotterdam pump a week on Friday, first "
    "thing please?",
    "Hello, I need pump one hundred looked at on Monday the fourteenth, no, sorry, Tuesday "
    "the fifteenth, after lunch.",
    "Er, hiya, can we book the Utrecht one for the day after tomorrow at quarter to three?",
    "Hi, it's about P one hundred, actually scratch that, it's the pump on Canal Street that "
    "needs a service, Wednesday the sixth of January in the morning.",
    "Morning, we'd like an engineer at our Harbour Road pump on the seventh of January, "
    "roughly two o'clock.",
    "Could you pencil in pump two hundred for Friday the eighteenth at nine? I tell a lie, "
    "ten o'clock would be better.",
    "Hello, um, I'd like to book a visit for pee two hundred next Tuesday, some time in the "
    "afternoon please.",
    "Right, so the Rotterdam pump needs a service, um, Thursday the seventeenth, hang on, no, "
    "Wednesday the sixteenth, at thirteen thirty.",
    "Hiya, could somebody come and service P two hundred on the twenty-second of December, "
    "end of the day if possible?",
    "Hello, I'd like the Utrecht pump serviced on Monday the eleventh of January, in the "
    "morning, oh, my mistake, afternoon would be better.",
    "Hi, I'm ringing to book pump one hundred for Friday the fourth, or rather Monday the "
    "seventh, at about eleven.",
    "Um, can I get someone to P one hundred on Wednesday the thirteenth of January at twenty "
    "past one, actually, make that quarter past four.",
    "Hello there, we need the pump at four Canal Street seen to, a week tomorrow, before "
    "lunch if you can manage it.",
    "Hello, I'm booking a service for the Utrecht pump on Tuesday the twelfth of January at "
    "half past nine. Correction, it's the Rotterdam one, same day and time.",
    "Er, hi, can you book pee two hundred for Monday the twenty-first, I mean Wednesday the "
    "twenty-third, at three o'clock please?",
)

# The twenty-sixth, written from docs/ alone on 2026-12-06 (morning), after the caller's own
# address was read as their site whatever word follows it; measured blind before any fix.
HELD_OUT_VALUES_26 = (
    "Hiya, um, could you get an engineer out to pee two hundred on Thursday the tenth, er, "
    "sometime in the morning?",
    "Yeah, hi, I need to schedule service on pump one hundred for, uh, Friday the eleventh, "
    "at twenty after one.",
    "Hello, er, could we have somebody look at the Harbour Road pump tomorrow afternoon? Ah, "
    "no, that's wrong, tomorrow's our stocktake, so Thursday afternoon.",
    "Hi there, I wanna book a service call for P-100 on Friday the eighteenth at nine thirty,"
    " uh, let me change that to ten forty-five, same day.",
    "Good afternoon. I'd like to arrange a service for pump two hundred on Thursday the "
    "seventeenth, in the morning, er, forgive me, I've muddled them up, it's the one at "
    "Harbour Road that needs it, not the Utrecht unit.",
    "Aye, hello, can I get the pump on Canal Street booked in for Monday the twenty-first in "
    "the afternoon, och, no, the lads knock off early that day, give us the morning instead.",
    "Yeah, hi, um, I gotta get P-200 serviced a week from tomorrow, in the afternoon if you "
    "can.",
    "Hello, yes, I want a technician to come and check pump one hundred on Tuesday the "
    "fifteenth, er, I misspoke, it should be Wednesday the sixteenth, at eleven in the "
    "morning.",
    "Hiya, I'm ringing about our pump in Utrecht, could you send somebody on Thursday the "
    "seventeenth at half past three, please?",
    "Could I book P-200 for Friday the fourth at ten to nine, er, strike that, ten past nine,"
    " I've got the school run first.",
    "Hey, so I'd like to set up a maintenance visit for pee one hundred on Monday the seventh"
    " in the morning, uh, you know what, let's do one thirty in the afternoon instead.",
    "Hello there, er, I need the pump on Harbour Road looking at on Tuesday the eighth, at "
    "about quarter to two.",
    "Yes, hello, I'd like a service visit booked for P-200 on the fourth of January at nine, "
    "um, oh dear, we're still shut that day, the fifth of January at nine, then.",
    "Hi, uh, this is Dana over at Acme, I need to book a tech for P-100 on Tuesday the "
    "twenty-second at two o'clock, whoops, wrong unit, it's the one on Canal Street I'm "
    "after.",
    "Hello, um, I'd like somebody out to pump P-100 on Monday week, that's the fourteenth, at"
    " eight o'clock in the morning.",
    "Right, er, can we have the Utrecht pump serviced on Wednesday the twenty-third in the "
    "morning, oh, hang about, the delivery's coming that morning, so the afternoon, please.",
)

# The twenty-seventh, written from docs/ alone on 2026-12-06 (morning), after the twenty-sixth
# set's fixes (words that say the caller misspoke, clauses that rule a value out); blind.
HELD_OUT_VALUES_27 = (
    "Hello, yes, um, I'd like to book a service visit for pee one hundred, that's the Harbour"
    " Road pump, on Wednesday the twenty-third, at quarter past ten in the morning, please.",
    "Ah hello, it's about our pump over in Utrecht, could ye send someone out on Friday the "
    "fourth, ah would you listen to me, it's Monday the seventh I'm after, in the afternoon.",
    "Hi there, I need somebody to come look at pump two hundred on Tuesday the twenty-ninth, "
    "at one thirty, uh, strike that, two thirty in the afternoon.",
    "Good morning, this is Ramesh calling from Acme, I want to book servicing for pee two "
    "hundred on Tuesday the eighth, nine thirty in the morning, oh, I misspoke, it is the "
    "Rotterdam pump, pee one hundred, rest all same.",
    "G'day, could I get one of your techs out to the Harbour Road pump the day after "
    "tomorrow, in the arvo, hmm, the boys knock off early that day for a site induction, so "
    "first thing in the morning would suit us.",
    "Aye, hello there, I'm wanting the Canal Street pump serviced on Wednesday the ninth, say"
    " eleven in the morning, och, the whole plant's shut for stocktaking that week, so can we"
    " push it on to Wednesday fortnight, the sixteenth, same time.",
    "Yeah, hi, uh, I gotta get somebody out to pump one hundred, um, Friday the eleventh, a "
    "quarter after two in the afternoon, if that works for you guys.",
    "Good morning, I'd like to arrange a service visit for the Rotterdam pump on Monday the "
    "fourteenth, er, the fifteenth, Tuesday the fifteenth, at ten o'clock in the morning.",
    "Right then, it's for the Utrecht pump, P-200, could somebody come Thursday the "
    "seventeenth at three in the afternoon, did I say three? Four, it should be, four "
    "o'clock.",
    "Hello madam, calling from Acme side, we need the pump at twelve Harbour Road serviced on"
    " Friday the eighteenth at nine, please kindly change that to afternoon time, at nine we "
    "are having one safety audit.",
    "Hey, can you book a service on pee one hundred for tomorrow at eleven a.m.? Ugh, wrong "
    "pump, it's the one in Utrecht that needs it, still tomorrow at eleven.",
    "Hiya, I'm looking to book a service for the pump down in Utrecht, a week on Thursday, "
    "some time in the morning if that's any good to you.",
    "Morning, mate, could you send someone round to the two hundred pump Monday the twenty-"
    "first at nine a.m.? Oops, got my days muddled, Tuesday the twenty-second, still nine "
    "a.m.",
    "Hi, um, I'd like to get pump one hundred serviced a week tomorrow, around ten thirty in "
    "the morning, you know what, let's go with one thirty in the afternoon.",
    "Good day, I need a technician for the pump in Rotterdam, the Utrecht one, the Utrecht "
    "one, it's the Canal Street pump that's leaking, on Friday the fourth in the afternoon.",
    "Hiya, can I get P-100 booked in for Monday the seventh, in the afternoon, ignore that, "
    "put us down for half eight in the morning.",
)

# The twenty-eighth, written from docs/ alone after the rules of 2026-12-06 (late morning) that the
# twenty-seven sets' recordings on a second machine led to: thirteen self-corrections, no
# correcting words twice, a reason between old and new values, a greeting beside a time.
HELD_OUT_VALUES_28 = (
    "Hello, I'd like a service visit on pee two hundred, Thursday morning if possible. Oh, "
    "the fire inspectors are in on Thursday, so Friday morning, please.",
    "Hi, this is Dave with Acme. Can I get somebody out to pump one hundred on Wednesday "
    "the ninth at a quarter after two? Make that a quarter after three.",
    "Howya, I'm after needing someone out to the Rotterdam pump the day after tomorrow, in "
    "the afternoon. Hang on, it's the one in Utrecht that's playing up.",
    "Good afternoon. Kindly book a service visit for P two hundred on Friday the eighteenth"
    " at ten thirty. One correction, it is P one hundred, same date and time only.",
    "G'day, could you get someone out to the Canal Street pump on Monday the fourteenth, "
    "first thing? Well, Tuesday the fifteenth suits us better, mate.",
    "Hiya, I'm wanting the pump at Harbour Road serviced a week on Friday at nine. Ach, "
    "nobody's in at nine that day, the lads start late. Half past ten it is.",
    "Morning, it's Priya from Acme. Could you put pump two hundred down for a fortnight "
    "today, in the afternoon?",
    "Hey, I'd like to schedule a service call for P-100 next Monday at eight thirty a.m., "
    "if you've got it.",
    "Hello, could we book the Utrecht pump for the twelfth of January, in the morning? "
    "Oops, I've misread the calendar, the fourteenth.",
    "Hi there, we'd like P-200 seen to on the third of February, at two in the afternoon, "
    "if that's okay.",
    "Would ye send someone out to P one hundred tomorrow afternoon? Ah, what am I saying, "
    "tomorrow morning, that'd be grand.",
    "Could you book the two hundred pump for Wednesday at half past one, please? Come to "
    "think of it, Thursday, same time.",
    "Good day, I need a technician for our Rotterdam one on Tuesday the twenty-second, in "
    "the afternoon. On reflection, Wednesday the twenty-third, still in the afternoon.",
    "Could I book P-100 for Monday the eighth of February, sorry, Tuesday the ninth, not "
    "the eighth, at quarter past nine?",
    "Can you send a tech out to the pump at four Canal Street on Thursday the seventeenth "
    "at ten? Look, ignore me, ten's a bad time for us, three o'clock.",
    "Hello, please book the Utrecht pump, er, the Rotterdam pump, the Rotterdam one only, "
    "for Thursday the tenth at four o'clock.",
)

# Every held-out set in the order written: set n is ``HELD_OUT_SETS[n - 1]``.
HELD_OUT_SETS = (HELD_OUT_VALUES, HELD_OUT_VALUES_2, HELD_OUT_VALUES_3, HELD_OUT_VALUES_4,
                 HELD_OUT_VALUES_5, HELD_OUT_VALUES_6, HELD_OUT_VALUES_7,
                 HELD_OUT_VALUES_8, HELD_OUT_VALUES_9, HELD_OUT_VALUES_10,
                 HELD_OUT_VALUES_11, HELD_OUT_VALUES_12,
                 HELD_OUT_VALUES_13, HELD_OUT_VALUES_14,
                 HELD_OUT_VALUES_15, HELD_OUT_VALUES_16,
                 HELD_OUT_VALUES_17, HELD_OUT_VALUES_18, HELD_OUT_VALUES_19,
                 HELD_OUT_VALUES_20, HELD_OUT_VALUES_21,
                 HELD_OUT_VALUES_22, HELD_OUT_VALUES_23,
                 HELD_OUT_VALUES_24, HELD_OUT_VALUES_25,
                 HELD_OUT_VALUES_26, HELD_OUT_VALUES_27,
                 HELD_OUT_VALUES_28)


def first_word_fate(reference: str, hypothesis: str) -> str:
    """What became of the reference's first word: ``kept`` (heard as said), ``garbled``
    (something else was heard in its place) or ``dropped`` (nothing was: a clipped start).
    Read off a minimum word alignment of the normalised words, preferring a match, then
    skipping a word heard before it ("Um, please..."), then a substitution, to a deletion.
    Pure."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    if not ref:
        return "kept"
    if not hyp:
        return "dropped"
    # cost[i][j]: edit distance of ref[i:] and hyp[j:]
    cost = [[0] * (len(hyp) + 1) for _ in range(len(ref) + 1)]
    for i in range(len(ref), -1, -1):
        for j in range(len(hyp), -1, -1):
            if i == len(ref) or j == len(hyp):
                cost[i][j] = (len(ref) - i) + (len(hyp) - j)
            else:
                cost[i][j] = min(cost[i + 1][j + 1] + (ref[i] != hyp[j]), cost[i + 1][j] + 1,
                                 cost[i][j + 1] + 1)
    j = 0  # walk an optimal alignment from the start: words inserted before it are skipped
    while j < len(hyp):
        if ref[0] == hyp[j] and cost[0][j] == cost[1][j + 1]:
            return "kept"
        if cost[0][j] == cost[0][j + 1] + 1:
            j += 1
            continue
        if cost[0][j] == cost[1][j + 1] + 1:
            return "garbled"
        break
    return "dropped"
