"""Conversational repair: the agent never asks the identical question twice in a row.

Every question the agent asks about a field goes through :meth:`CallContext.ask
<agent.service.dialogue.CallContext.ask>`, which keeps the last question asked as state (an
:class:`Asked`; the trace is only its record). When the next question is about the same thing
and comes right after it, the caller's answer did not resolve it ("yes" to "Friday or
Wednesday?", "hmm", a value for another field, an answer still ambiguous, a refused value), and
the question climbs one step of the ladder (docs/call-scripts.md, "Questions and repair"):

=================  ============================================================================
``ask``            the question as the desk planned it (no repair yet)
``closed_choice``  a choice naming the options: the candidates heard, else the caller's assets,
                   the next two weekdays, morning or afternoon, their bookings, yes or no. When
                   the failed question already named them, they are spelled out ("Is it Friday
                   the 4th, or Wednesday the 2nd?")
``yes_no``         a yes/no question on the most likely value: the first option of the choice
                   (the candidate the caller said first, or the earliest suggested day), or for
                   a confirmation the action in one sentence. A plain "yes" settles that value
``offer_handoff``  after two failed repairs: says why, offers a person. "Yes" hands off
``retry``          the caller declined (or did not answer the offer): the question once more
``handoff``        that try failed too: the agent says so and hands off (no third offer)
=================  ============================================================================

A step that cannot be built (no options to name, no likely value) is ``rephrase`` instead: the
question asked in other words. Whatever the step, a planned question whose question sentence
equals one of the last question asked moves on to the next step (the guard). Each step after
``ask`` is a ``repair`` trace event with ``step`` and ``field``. Pure: no I/O, no clock reads.
The answer to a repair question is read in :mod:`agent.service.repair_answers`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta
from enum import StrEnum

from agent.core.caller import CallerProfile
from agent.core.names import (
    ASSET,
    BOOKING_REF,
    CONFIGURATION,
    OPENED,
    REGION,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.service.render import ask_for
from agent.service.repair_words import (
    field_noun,
    repair_choice,
    repair_give_up,
    repair_offer,
    repair_rephrase,
    repair_retry,
    repair_value,
    repair_yes_no,
)
from agent.service.slots import window_of_time
from agent.service.spoken import heard_line

# Questions that are not about a ledger field. Their names are the `field` of `repair` events.
CONFIRMATION = "confirmation"  # "Shall I book it?": a yes or a no to the action on the table
REQUEST = "request"  # "How can I help?": what the caller wants at all
TARGET = "target"  # "Which one do you want to change?": which field a correction means
PERSON = "person"  # "Shall I put you through?": an offer of a colleague


class Step(StrEnum):
    ASK = "ask"
    CLOSED_CHOICE = "closed_choice"
    YES_NO = "yes_no"
    REPHRASE = "rephrase"  # instead of a step that cannot be built for this question
    OFFER_HANDOFF = "offer_handoff"
    RETRY = "retry"
    HANDOFF = "handoff"


# Step by number of failed answers in a row (the last one repeats: the call is handed off).
LADDER = (Step.ASK, Step.CLOSED_CHOICE, Step.YES_NO, Step.OFFER_HANDOFF, Step.RETRY,
          Step.HANDOFF)


@dataclass(frozen=True, slots=True)
class Question:
    """A question a desk wants to ask, before repair decides how to put it."""

    field: str  # the ledger field, or CONFIRMATION / REQUEST / TARGET / PERSON
    sentences: tuple[str, ...]  # the question as planned (said as is at step `ask`)
    prefix: tuple[str, ...] = ()  # said before the question at every step ("X has passed.")
    candidates: tuple[str, ...] = ()  # competing values heard, in the order heard
    options: tuple[str, ...] = ()  # values a closed choice names when there are no candidates
    closed: bool = False  # the planned sentences already name the options
    event: str = "clarification_requested"  # emitted with the question ("" for none)
    fields: tuple[str, ...] = ()  # the event's `fields` (default: the field)
    reads: tuple[str, ...] = ()  # the ledger fields the spoken question depends on
    key: str = ""  # what it is about beyond the field (the action a confirmation asks about)
    together: tuple[tuple[str, str], ...] = ()  # values read back together: one yes for all
    confirm: str = ""  # a confirmation's action in one yes/no sentence
    proposes: tuple[tuple[str, str], ...] = ()  # values a plain "yes" to it settles
    # how values are said where the raw value is no word ("seal-torque": "the seal torque")
    names: tuple[tuple[str, str], ...] = ()

    def same_as(self, other: Question) -> bool:
        return (self.field, self.key) == (other.field, other.key)


@dataclass(frozen=True, slots=True)
class Asked:
    """The last question asked: state of the call (CallContext.asked), never read from the trace."""

    question: Question
    step: Step
    sentences: tuple[str, ...]  # what was said
    turn: int  # the caller turn it was asked in response to (0: before the first)
    failures: int  # answers in a row that did not resolve it
    closed: bool = False  # it named the options
    options: tuple[str, ...] = ()  # the raw values it named, in order
    proposes: tuple[tuple[str, str], ...] = ()  # values a plain "yes" to it settles

    @property
    def expecting(self) -> str | None:
        """The field the caller's next turn is expected to give (for the proposer)."""
        q = self.question
        if q.event != "clarification_requested" or self.step in (Step.OFFER_HANDOFF,
                                                                  Step.HANDOFF):
            return None
        return (q.fields or (q.field,))[0]


@dataclass(frozen=True, slots=True)
class Setting:
    """What the ladder may name besides the question's own candidates (all trusted or hints)."""

    caller: CallerProfile
    today: date
    bookings: tuple[tuple[str, str, str], ...] = ()  # the caller's (ref, asset, date)
    # (field, value) the caller ruled out in this question: never an option of a choice
    ruled_out: frozenset[tuple[str, str]] = frozenset()


def field_question(field: str, caller: CallerProfile, candidates: tuple[str, ...] = (), *,
                   prefix: tuple[str, ...] = (), reads: tuple[str, ...] | None = None,
                   heard: str | None = None, names: tuple[tuple[str, str], ...] = (),
                   options: tuple[str, ...] = ()) -> Question:
    """The plain question for one field (render.ask_for), marked closed when it names options.

    ``heard``: an asset id said that is not on the account; the question says so first.
    ``names``: how candidates and options are said, where the raw value is no word (a
    procedure's id). ``options``: what a closed choice may name when nothing was heard.
    """
    closed = len(candidates) > 1 or (not candidates and field in (
        ASSET, CONFIGURATION, REGION, VISIT_WINDOW) and (field == VISIT_WINDOW
                                                        or len(caller.assets) > 1))
    said = dict(names)
    sentences = ask_for(field, caller, tuple(said.get(c, c) for c in candidates), heard=heard)
    if field == VISIT_TIME and candidates and not any(window_of_time(c) for c in candidates):
        # "At 7": neither reading can be booked, so no step of the ladder offers them; the
        # question offers the visit windows instead (render.ask_time).
        candidates, closed = (), False
    return Question(field, sentences, prefix=prefix, candidates=candidates, closed=closed,
                    reads=(field,) if reads is None else reads, names=names, options=options)


def plan(question: Question, last: Asked | None, turn: int, setting: Setting) -> Asked:
    """How to put ``question`` now, after ``last`` (asked at the caller's turn ``last.turn``)."""
    follows = last is not None and question.same_as(last.question) and last.turn == turn - 1
    index = min(last.failures + 1, len(LADDER) - 1) if follows and last else 0
    while True:
        asked = _build(LADDER[index], index, question, last, turn, setting)
        if asked.step is Step.HANDOFF or last is None \
                or not repeats(asked.sentences, last.sentences):
            return asked
        index = min(index + 1, len(LADDER) - 1)  # the guard: never the same question again


def repeats(planned: tuple[str, ...], last: tuple[str, ...]) -> bool:
    """The planned question asks a question sentence of the last one again and tells nothing
    new before it (or is identical). "Friday 4 December at 09:00. Shall I book it?" after
    "Thursday 3 December at 14:00. Shall I book it?" reads back new values: no repeat."""
    def split(sentences: tuple[str, ...]) -> tuple[set[str], set[str]]:
        said = [s.strip().lower() for s in sentences]
        return {s for s in said if s.endswith("?")}, {s for s in said if not s.endswith("?")}

    if tuple(planned) == tuple(last):
        return True
    asks, told = split(planned)
    last_asks, last_told = split(last)
    return bool(asks & last_asks) and told <= last_told


def options_of(question: Question, setting: Setting) -> tuple[str, ...]:
    """The values a closed choice names, in order: the candidates heard, else the domain's;
    never one the caller ruled out ("Wednesday's no good" is not answered "Would Wednesday or
    Thursday suit you?")."""
    if question.together:
        return (question.together[0][1],)
    field = question.field
    ruled_out = {value for name, value in setting.ruled_out if name == field}

    def allowed(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(v for v in values if v not in ruled_out)

    if question.candidates:
        return allowed(question.candidates)
    if question.options:
        return allowed(question.options)
    if field in (ASSET, CONFIGURATION, REGION):
        return allowed(tuple(a.id for a in setting.caller.assets))[:4]
    if field == VISIT_DATE:
        return next_weekdays(setting.today, 2, skip=frozenset(ruled_out))
    if field == VISIT_WINDOW:
        return allowed(("morning", "afternoon"))
    if field == BOOKING_REF:
        return allowed(tuple(ref for ref, _, _ in setting.bookings))[:3]
    if field in (OPENED, CONFIRMATION, PERSON):
        return ("yes", "no")
    if field == REQUEST:
        return ("book",)
    return ()


def next_weekdays(today: date, count: int, *, skip: frozenset[str] = frozenset()
                  ) -> tuple[str, ...]:
    """The next ``count`` weekdays after today (the days a visit can be suggested for),
    passing over the ISO dates in ``skip``."""
    days: list[str] = []
    day = today
    while len(days) < count:
        day += timedelta(days=1)
        if day.weekday() < 5 and day.isoformat() not in skip:
            days.append(day.isoformat())
    return tuple(days)


def _build(step: Step, failures: int, q: Question, last: Asked | None, turn: int,
           setting: Setting) -> Asked:
    noun = field_noun(q.field, setting.caller)

    def asked(sentences: tuple[str, ...], s: Step = step, *, closed: bool = False,
              options: tuple[str, ...] = (), proposes: tuple[tuple[str, str], ...] = ()
              ) -> Asked:
        return Asked(q, s, tuple(sentences), turn, failures, closed, options, proposes)

    if step is Step.ASK:
        left = options_of(q, setting) if q.closed and not q.together else ()
        if len(left) == 1 and len(options_of(q, replace(setting, ruled_out=frozenset()))) > 1:
            # the caller ruled out all the planned choice names but one ("instead of the
            # morning", the rest misheard): that one is asked about, not "Morning or afternoon?"
            return asked(q.prefix + repair_choice(q.field, _spoken(q, left, setting),
                                                  suggested=False),
                         closed=True, options=left, proposes=((q.field, left[0]),))
        return asked(q.prefix + q.sentences, closed=q.closed, proposes=q.proposes)
    if step is Step.OFFER_HANDOFF:
        return asked(repair_offer(q.field, noun))
    if step is Step.RETRY:
        return asked(repair_retry(q.prefix + q.sentences), closed=q.closed,
                     proposes=q.proposes)
    if step is Step.HANDOFF:
        return asked(repair_give_up(q.field, noun))
    options = options_of(q, setting)
    if step is Step.CLOSED_CHOICE:
        spoken = _spoken(q, options, setting)
        if q.together:  # several values from one unclear turn: all of them, or not
            sentences: tuple[str, ...] = (f"Is it {heard_line(q.together)}, or something else?",)
        elif last is not None and last.closed and options:
            sentences = repair_choice(q.field, spoken, suggested=False)
        elif q.closed:
            sentences = q.sentences
        elif options:
            suggested = not q.candidates and not q.together and not q.options \
                and q.field == VISIT_DATE
            sentences = repair_choice(q.field, spoken, suggested=suggested)
        else:
            return asked(q.prefix + repair_rephrase(q.field, noun, 1), Step.REPHRASE)
        if q.field in (CONFIRMATION, PERSON):
            proposes = q.proposes
        elif q.together:
            proposes = q.together
        elif len(options) == 1 and q.field not in (OPENED, REQUEST, TARGET):
            proposes = ((q.field, options[0]),)
        else:
            proposes = ()
        return asked(q.prefix + sentences, closed=True, options=options, proposes=proposes)
    # Step.YES_NO: the most likely value is the first option (see the module docstring).
    if q.field == CONFIRMATION and q.confirm:
        return asked(q.prefix + ("Sorry, I still need a yes or a no.", q.confirm),
                     proposes=q.proposes)
    if q.together:
        return asked(q.prefix + (f"Shall I put {heard_line(q.together)}?",),
                     options=options, proposes=q.together)
    yes_no = repair_yes_no(q.field, _spoken(q, options[:1], setting)[0]) if options \
        else None
    if yes_no is None:
        return asked(q.prefix + repair_rephrase(q.field, noun, 2), Step.REPHRASE)
    return asked(q.prefix + yes_no, options=options[:1],
                 proposes=((q.field, options[0]),))


def _spoken(q: Question, options: tuple[str, ...], setting: Setting) -> tuple[str, ...]:
    months = {value[:7] for value in options} if q.field == VISIT_DATE else set()
    bookings = {ref: (asset, day) for ref, asset, day in setting.bookings}
    said = dict(q.names)
    return tuple(said.get(value) or repair_value(q.field, value, today=setting.today,
                                                 month=len(months) > 1, bookings=bookings)
                 for value in options)


__all__ = ["CONFIRMATION", "LADDER", "PERSON", "REQUEST", "TARGET", "Asked", "Question",
           "Setting", "Step", "field_question", "next_weekdays", "options_of", "plan", "repeats"]
