"""What the caller wants, from the words alone (before corrections are considered).

Explicit requests win over everything (a person, goodbye, cancel, reschedule); then a return
policy; then a booking unless question words are present; then maintenance. Yes and no are
read only at the start of the turn ("no, Thursday" is a correction, decided by the proposer).
Pure.
"""

from __future__ import annotations

import re

from agent.understanding.nlu import intent_words
from agent.understanding.proposals import Intent

_HUMAN = re.compile(rf"\b(?:{intent_words.HUMAN})\b")
_GOODBYE = re.compile(rf"\b(?:{intent_words.GOODBYE})\b")
_CANCEL = re.compile(rf"\b(?:{intent_words.CANCEL})\b")
# A cancel the caller declines: "don't cancel it", "rather than scrapping it", "instead of
# calling it off"
_DONT_CANCEL = re.compile(r"\b(?:don'?t|do not|no need to|not|rather than|instead of"
                          r"|rather not|won'?t)"
                          r" (?:cancel|scrap|call(?:ing)? (?:it|that|\w+) off|drop|ditch"
                          r"|bin)")
# A conditional clause runs from its conjunction to the next comma, "then", or the turn's end.
_CONDITIONAL = re.compile(rf"\b(?:{intent_words.CONDITIONAL})\b[^,]*?(?=,|\bthen\b|$)")
_RESCHEDULE = re.compile(rf"\b(?:{intent_words.RESCHEDULE})\b")
_TERMS = re.compile(rf"\b(?:{intent_words.TERMS})\b[^,]*")
_HELD_VISIT = re.compile(rf"\b(?:{intent_words.HELD_VISIT})\b")
_STATUS = re.compile(rf"\b(?:{intent_words.STATUS})\b")
_POLICY = re.compile(rf"\b(?:{intent_words.POLICY})\b")
_MAINTENANCE = re.compile(rf"\b(?:{intent_words.MAINTENANCE})\b")
_BOOK = re.compile(rf"\b(?:{intent_words.BOOK})\b")
_QUESTION = re.compile(rf"\b(?:{intent_words.QUESTION})\b")
# A hesitation before the answer is not part of it: "mm, no", "um, yes", "oh yeah, fine".
# What opens an answer before it: a hesitation, or words of changing one's mind ("Hmm, on
# second thoughts, no", "Actually, yes")
_FILLER = rf"(?:(?:{intent_words.HESITATION}|{intent_words.CHANGE_OF_MIND})(?:, | ))*"
_YES = re.compile(rf"^{_FILLER}(?:{intent_words.YES})\b")
_NO = re.compile(rf"^{_FILLER}(?:{intent_words.NO})\b")
_ORDER = re.compile(r"\b(?:order|ordering|buy|buying|purchase|purchasing|a quote for"
                    r"|price (?:of|for)|in stock|stock)\b")
_TAKEN_BACK = re.compile(
    r"\b(?:not (?:right|correct|quite)|wrong|incorrect|isn'?t right)\b"
    rf"|^{_FILLER}(?:yes|yeah|yep),? no\b(?! problem| worries| bother| doubt)")
_GO_AHEAD = re.compile(rf"\b(?:{intent_words.GO_AHEAD})\b")
# The one read back is not the one meant (points_elsewhere).
_ELSEWHERE = re.compile(
    r"\bnot (?:that|this|the (?:right|correct|same)) (?:one|1|booking|visit|appointment)\b"
    r"|\b(?:isn'?t|is not|'s not|wasn'?t|was not) (?:the|that|this|my) (?:one|1|right one"
    r"|booking|visit|appointment)\b"
    r"|\b(?:a|the|some) (?:different|other|wrong) (?:one|1|booking|visit|appointment)\b"
    r"|\banother (?:one|1|booking|visit|appointment)\b|\bsomething else\b")
_THE_ONE_MEANT = re.compile(r"\bthe (?:one|1) (?:to|that|which|i|we|you)\b"
                            r"|\b(?:is|'s) the (?:one|1)\b")
# "book another visit", "a second booking", "I also need a visit": a new task, not an edit.
_ANOTHER = re.compile(r"\b(?:another|a new|a (?:second|2nd)|a separate|(?:one|1) more|an extra"
                      r"|an additional) (?:\w+ )?(?:visit|booking|appointment|service call)\b"
                      r"|\balso (?:need|want|book|like) (?:a|an|to book)\b")
# Words that add a visit to the ones already made ("P-200 needs a visit too", "also book P-100
# again", "and one more for the 10th"): with a booking request, a new visit, not an edit.
_ADDITIVE = re.compile(r"\b(?:too|as well|also|again|additionally|on top of that"
                       r"|(?:one|1) more|(?:next|last|another|final) (?:one|1)|and then)\b")


# A person asked for, then not after all, later in the same turn: "is there an actual person
# I could talk to? Actually no, forget it, it's simple enough. Yes, go ahead."
_TAKING_BACK = (r"never ?mind|forget (?:it|that|about it|i asked)|don'?t bother|no need"
                r"|scratch that|(?:actually|on second thoughts?|thinking about it),? no")
_HUMAN_TAKEN_BACK = re.compile(rf"\b(?:{_TAKING_BACK})(?:,? (?:{_TAKING_BACK}))*\b")


def explicit_intent(text: str) -> Intent | None:
    """A request that overrides any slot reading: person, goodbye, cancel, reschedule; or a
    question about the terms of cancelling or moving, whose words are not a request, or about
    the visits the caller has."""
    asked_for = list(_HUMAN.finditer(text))
    if asked_for:
        taken_back = _HUMAN_TAKEN_BACK.search(text, asked_for[-1].end())
        if taken_back is None:
            return Intent.HUMAN
        # the rest of the turn is read without the request and its taking back: "forget it"
        # drops the person, not the visit read back
        text = " " * taken_back.end() + text[taken_back.end():]
    # "Is there a restocking fee?" asks about returns (a policy question), not a visit's terms.
    terms = [] if _POLICY.search(text) else [m.span() for m in _TERMS.finditer(text)]
    if _asks_to_cancel(text, terms) and not _DONT_CANCEL.search(text):
        return Intent.CANCEL
    if _said_outside(_RESCHEDULE, text, terms + _repairs_of_the_request(text)):
        return Intent.RESCHEDULE
    # "Book P-100, do you charge extra?" is still a booking; "we've got a visit booked for
    # Thursday, do you charge if we cancel?" describes the visit the question is about
    held = [m.span() for m in _HELD_VISIT.finditer(text)]
    if terms and not _said_outside(_BOOK, text, terms + held):
        return Intent.TERMS_QUESTION
    status = [m.span() for m in _STATUS.finditer(text)]
    if status and not _said_outside(_BOOK, text, status + held):
        return Intent.STATUS_QUESTION  # "when's the engineer coming?"
    if _GOODBYE.search(text):
        return Intent.GOODBYE
    return None


def _asks_to_cancel(text: str, terms: list[tuple[int, int]]) -> bool:
    """A cancel phrasing outside any conditional clause and any question about the terms:
    "we don't need the visit" asks to cancel; "can I send it back if we don't need it?" and "in
    case we don't need anyone" only suppose it, and "is there a cancellation fee?" asks about
    it. "If the engineer can't come, cancel it": the main clause asks. Nor does an order to
    drop the words just said, between two values ("could it be the morning instead? No, hang
    on, forget that, the afternoon like I said")."""
    return _said_outside(_CANCEL, text, [m.span() for m in _CONDITIONAL.finditer(text)] + terms
                         + _words_dropped(text))


# An order to drop the words just said ("forget that", "scratch that"), not a visit ("cancel
# it" may be either, and stays a cancel)
_DROP_THAT = re.compile(r"\b(?:forget|scrap|scratch|ignore|strike|never mind) (?:about )?that\b")
_WHEN_SAID = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day|\btomorrow\b|\btoday\b"
                        r"|\bmorning\b|\bafternoon\b|\bnoon\b|\d")


def _words_dropped(text: str) -> list[tuple[int, int]]:
    """The spans of the orders to drop the words just said, a day, a part of the day or a number
    said both before and after them."""
    return [m.span() for m in _DROP_THAT.finditer(text)
            if _WHEN_SAID.search(text, 0, m.start()) and _WHEN_SAID.search(text, m.end())]


def asks_to_cancel_apart_from(text: str, span: tuple[int, int]) -> bool:
    """The turn asks to cancel in words outside ``span`` ("we won't be around on Wednesday,
    please call it off": the request is outside the negated stretch)."""
    if _DONT_CANCEL.search(text) or _POLICY.search(text):
        return False
    terms = [m.span() for m in _TERMS.finditer(text)]
    return _asks_to_cancel(text, [*terms, span])


def cancels_what_it_names(text: str, said: list[str]) -> bool:
    """A value said as the object of the cancel ("actually, cancel the P-100 one", "cancel the
    first one, the P-100 one"): the visit for that value is called off; "cancel that, make it
    Thursday" replaces a value instead."""
    # a comma only before "the": an apposition ("the first one, the P-100 one") names the same
    return any(re.search(rf"\bcancel\w* (?:[\w'-]+(?:,(?= the))? ){{0,4}}?{re.escape(words)}\b",
                         text)
               for words in said if words)


_CANCEL_BY_NEED = re.compile(rf"\b(?:{intent_words.CANCEL_BY_NEED})\b")


def calls_off_by_need_at(text: str, start: int) -> bool:
    """A need withdrawn that calls a visit off opens at ``start`` ("we won't need the engineer
    for P-200", "we no longer need the visit on the 9th")."""
    return bool(_CANCEL_BY_NEED.match(text, start))


_DROP_A_NAMED_VISIT = re.compile(rf"\b(?:{intent_words.DROP_A_NAMED_VISIT})")


def drops_a_named_visit_at(text: str, start: int) -> bool:
    """A visit named by what it is for is dropped at ``start`` ("scrap the Rotterdam visit")."""
    return bool(_DROP_A_NAMED_VISIT.match(text, start))


def cancels_only_by_need(text: str) -> bool:
    """Every cancel phrasing of the turn is a need withdrawn of a day or a time it names ("we
    won't need it on Friday"): with a replacement value beside it ("..., Thursday is better")
    the turn moves the visit. A need withdrawn that names none calls the visit off, whatever
    day the turn corrected before it ("the one on Friday, oh no, sorry, the one on Monday, we
    won't need him any more")."""
    found = list(_CANCEL.finditer(text))
    return bool(found) and all(
        calls_off_by_need_at(text, m.start()) and _WHEN_SAID.search(text, m.end(), _clause_end(
            text, m.end())) for m in found)


# A move of "that" or "it" to a value: of a booking, or of a value the turn has just said
_MOVE_THAT_TO = re.compile(rf"\b(?:{intent_words.MOVE_VERBS}|make) (?:that|it|this)"
                           r"(?: (?:on|back|forward|over|along|out))? (?:to|till|until|into)\b")


# A visit named as one the caller has ("my booking", "the visit", "tomorrow's visit"), not asked
# for ("a visit")
_VISIT_NOUN = re.compile(r"(?:\w+ )?(?:booking|visit|appointment|service call)")
# A possessive as a recogniser writes it, with no apostrophe: "mondays appointment", "todays
# visit", "next weeks booking"
_UNMARKED_POSSESSIVE = re.compile(r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|todays"
                                  r"|tomorrows|weeks) $")
_THE_VISIT_HELD = re.compile(r"(?:\b(?:my|our|the|that|this|your|their)(?: [\w'-]+){0,2}"
                             # a possessive: "tomorrow morning's visit", "Thursday's booking"
                             r"|(?<!\blet)(?<!\bit)(?<!\bthat)(?<!\bthere)(?<!\bwhat)"
                             r"(?<!\bhere)'s|s'"
                             # the same as the reading writes it: "tomorrow morning is visit"
                             r"|(?:day|tomorrow|today|morning|afternoon|week|fortnight) is) $")


def _request(text: str) -> re.Match[str] | None:
    """The first words that ask for a visit, not those that name one the caller has: "could the
    visit be at eleven sharp?" changes the visit on the table, "we need a visit" asks for one,
    and "we've got an engineer booked to come out to our Canal Street site" describes one, to
    the end of its clause."""
    held = [(m.start(), _clause_end(text, m.end())) for m in _HELD_VISIT.finditer(text)]
    return next((m for m in _BOOK.finditer(text)
                 if (not _VISIT_NOUN.fullmatch(m.group())
                     or not (_THE_VISIT_HELD.search(text, 0, m.start())
                             or _UNMARKED_POSSESSIVE.search(
                                 text, 0, m.start() + m.group().rfind(" ") + 1)))
                 and not any(start <= m.start() < end for start, end in held)), None)


def _clause_end(text: str, start: int) -> int:
    comma = text.find(",", start)
    return comma if comma >= 0 else len(text)


def _repairs_of_the_request(text: str) -> list[tuple[int, int]]:
    """The spans of the moves that repair the turn's own request: "could I book P-100 for
    Friday at 9:30, uh, let me change that to 10:45" asks for a visit and changes its own
    time, it moves no booking. Only a move of "that" or "it" after a request for a visit in
    the same turn ("I need P-200 seen to, and move my Tuesday visit to Wednesday" asks both)."""
    asked = _request(text)
    if asked is None:
        return []
    return [m.span() for m in _MOVE_THAT_TO.finditer(text, asked.end())]


def _said_outside(pattern: re.Pattern[str], text: str, spans: list[tuple[int, int]]) -> bool:
    """Some match of ``pattern`` starts outside every one of ``spans``."""
    return any(not any(start <= m.start() < end for start, end in spans)
               for m in pattern.finditer(text))


def topic_intent(text: str, has_procedure: bool, has_item: bool) -> Intent | None:
    """A question or a booking request. An item to buy ("order us a replacement impeller") is
    no returns question: the agent sells nothing, and says what it can do instead."""
    if (has_item and not _ORDER.search(text)) or _POLICY.search(text):
        return Intent.POLICY_QUESTION
    asked = _request(text) is not None
    if asked and not _QUESTION.search(text):
        return Intent.BOOK  # "book a visit to replace the valve gasket"
    if has_procedure:
        return Intent.MAINTENANCE_QUESTION
    if asked:
        return Intent.BOOK
    if _MAINTENANCE.search(text):
        return Intent.MAINTENANCE_QUESTION
    return None


def answer_intent(text: str) -> Intent | None:
    """Yes or no, read only at the start of the turn. A yes that takes itself back ("yes, not
    right", "yeah, no", "yes, that's wrong", often a mishearing) is no answer: it is asked
    again. A turn that declines to cancel is a no wherever it says so ("Let's not cancel it
    after all", "I'd rather not cancel, leave it where it is")."""
    if _NO.match(text) or _DONT_CANCEL.search(text):
        return Intent.NO
    if _YES.match(text):
        return None if _TAKEN_BACK.search(text) else Intent.YES
    return None


def points_elsewhere(text: str) -> bool:
    """The turn says the thing read back is not the one meant: "that's not the one to cancel",
    "not that one", "a different booking", "something else", or, opening with a no, which one
    is meant ("no wait, the Wednesday one is the one to cancel", the day misheard). A yes that
    names it ("yes, that's the one") is not."""
    return bool(_ELSEWHERE.search(text)) or bool(_NO.match(text) and _THE_ONE_MEANT.search(text))


def says_go_ahead(text: str) -> bool:
    return bool(_GO_AHEAD.search(text))


def starts_with_yes(text: str) -> bool:
    return bool(_YES.match(text))


def declines_cancel(text: str) -> bool:
    """Whether the turn declines to cancel ("rather than scrapping it, could he come on
    Monday instead?")."""
    return bool(_DONT_CANCEL.search(text))


def asks_for_a_visit(text: str) -> bool:
    """Words that ask for a visit ("book", "we need someone out"), not ones that name a visit
    the caller has ("the Rotterdam visit")."""
    return _request(text) is not None


def asks_another(text: str) -> bool:
    """The caller asks for an additional visit rather than changing the one on the table."""
    return bool(_ANOTHER.search(text))


def adds_another(text: str) -> bool:
    """The turn adds to what was done ("too", "also", "again", "one more")."""
    return bool(_ADDITIVE.search(text))
