"""The intent and the correction kind of a turn, by fixed precedence (part of the rule proposer).

Also the proposal for a turn that crosses an authority boundary. Pure.
"""

from __future__ import annotations

from agent.core.names import (
    ASSET,
    BOOKING_REF,
    ITEM_CATEGORY,
    PROCEDURE,
    SITE,
    VISIT_DATE,
    VISIT_TIME,
    VISIT_WINDOW,
)
from agent.core.speech import Utterance
from agent.understanding.nlu import corrections, intents
from agent.understanding.proposals import (
    CorrectionKind,
    Intent,
    Proposal,
    ProposalContext,
    SlotValue,
)

# Fields that change together count once when deciding whether a correction is MULTI.
_GROUP = {VISIT_WINDOW: VISIT_TIME, "family": PROCEDURE}
BOOKING_VALUES = (ASSET, VISIT_DATE, VISIT_TIME, VISIT_WINDOW, "units", "site")


def _replaced(text: str, withdrawn: tuple[tuple[str, str], ...],
              context: ProposalContext) -> tuple[tuple[str, str], ...]:
    """The withdrawn values other than a visit the caller keeps in a cancel ("..., the Utrecht
    one can stay"): that one is ruled out as the visit called off, and replaces nothing."""
    from agent.understanding.nlu.reading import read

    kept = {(s.field, s.value) for stretch in corrections.kept_in_a_cancel(text)
            for s in read(stretch.text, context, whole_turn=False).slots}
    return tuple(pair for pair in withdrawn if pair not in kept)


def choose_intent(text: str, slots: list[SlotValue], withdrawn: tuple[tuple[str, str], ...],
            cleared: tuple[str, ...], referent: corrections.Referent | None,
            context: ProposalContext) -> tuple[Intent, bool]:
    """The intent, and whether the turn corrects something already in the ledger."""
    changes = [s for s in slots if _held(s.field, context) is not None
               and s.value != _held(s.field, context)]
    marker = corrections.has_replace_marker(text)
    # A "not X" revises the call only when the call holds something X could be; in a first
    # request ("service P-100, but don't come on Wednesday, Thursday suits") it is part of it.
    # So does "any day but Monday": with nothing held, a constraint cleared revises nothing.
    held_withdrawn = [f for f, _ in withdrawn if _held(f, context) is not None]
    first_request = not held_withdrawn and bool(withdrawn or cleared) and not _under_way(context)
    held_cleared = [f for f in cleared if _held(f, context) is not None]
    corrective = bool((withdrawn and not first_request) or held_cleared or referent
                      or (marker and changes))
    explicit = intents.explicit_intent(text)
    booking_values = any(s.field in BOOKING_VALUES for s in slots)
    if explicit is Intent.GOODBYE and (slots or intents.topic_intent(text, False, False) in (
            Intent.POLICY_QUESTION, Intent.MAINTENANCE_QUESTION)):
        # "see you on Thursday" gives a date, it does not hang up; "is there a restocking
        # fee? Thanks, bye." asks first, and is answered
        explicit = None
    if explicit is Intent.CANCEL and booking_values and marker and changes \
            and not intents.cancels_what_it_names(text, [s.text for s in changes]):
        explicit = None  # "cancel that, make it Thursday" replaces a value
    if explicit is Intent.CANCEL and intents.cancels_only_by_need(text) \
            and {field for field, _ in _replaced(text, withdrawn, context)} \
            & {s.field for s in slots}:
        explicit, corrective = None, True  # "won't need it on Friday, Thursday is better"
    if explicit is Intent.RESCHEDULE and not _booked(context) and (
            changes or _under_way(context) and booking_values):
        # "move it to Friday" before anything is booked corrects the request, even to the
        # value it holds ("could we change it to the ninth?" with the 9th read back)
        explicit = None
        corrective = True
    elif explicit is Intent.RESCHEDULE and any(s.field in BOOKING_VALUES for s in changes):
        corrective = True  # a move of a booked visit revises the values it names
    # what the turn takes back of what the call holds (not of its own words: "another visit
    # on the 10th, no sorry, the 9th" puts its own request right)
    revises_held = bool(held_withdrawn or held_cleared or (marker and changes))
    if explicit is None and not revises_held and intents.asks_another(text):
        return Intent.BOOK, False  # new values for a new visit, not a change of the last one
    if explicit is None and not revises_held and _booked(context) \
            and intents.adds_another(text) and _asks_for_a_visit(slots, context, booked_ok=True):
        return Intent.BOOK, False  # "and P-200 needs a visit too": a visit more, not a move
    if explicit is Intent.RESCHEDULE and context.pending_confirmation and not corrective \
            and (answer := intents.answer_intent(text)) is not None \
            and not _news(slots, context):
        # "Yes, move it" / "no, don't move it" answers "shall I go ahead?" about the very move
        # on the table; it restates the request rather than making a new one.
        return answer, False
    if explicit in (Intent.CANCEL, Intent.RESCHEDULE) and context.pending_confirmation \
            and not slots and referent is None and intents.points_elsewhere(text):
        # "No, that's not the one to cancel", "no wait, the Wednesday one is the one to
        # cancel" with the day misheard, "hang on, that's not the one I want moved": a
        # refusal of what was read back that names no other booking is a no to it, never its
        # yes (a cancel asked for again is the read-back's yes: "yes, cancel it"). Naming the
        # other one re-targets ("no, the one on the 9th").
        return Intent.NO, False
    if explicit is None and booking_values and context.ledger.value(BOOKING_REF) is None \
            and any(s.field == BOOKING_REF and s.value in {ref for ref, _, _ in context.bookings}
                    for s in slots):
        return Intent.RESCHEDULE, corrective  # "booking BK-5501, can you make it the 14th?"
    if explicit is None and _moves_a_held_booking(text, slots, withdrawn, marker, context):
        return Intent.RESCHEDULE, False
    if explicit is None and context.ledger.value(BOOKING_REF) is not None \
            and intents.declines_cancel(text) and any(s.field in BOOKING_VALUES for s in changes):
        # a cancel on the table declined with new values for its visit: "rather than scrapping
        # it, could he come on Monday instead?" moves the booking
        return Intent.RESCHEDULE, True
    if explicit is not None:
        return explicit, corrective
    if corrective:
        return Intent.CORRECTION, True
    has_procedure = any(s.field == PROCEDURE for s in slots)
    has_item = any(s.field == ITEM_CATEGORY for s in slots)
    topic = intents.topic_intent(text, has_procedure, has_item)
    answer = intents.answer_intent(text)
    expected = context.expecting is not None and any(s.field == context.expecting for s in slots)
    if answer is not None and not slots and (context.pending_confirmation or topic is None):
        return answer, False  # "book it" / "no, don't book it" answer "shall I go ahead?"
    if changes and not expected and topic in (None, Intent.BOOK):
        # A new value for a field that already has one, unasked: an implicit "make that X".
        return Intent.CORRECTION, True
    if topic is not None and not expected:
        return topic, False
    if topic is Intent.BOOK and expected and context.expecting not in BOOKING_VALUES \
            and any(s.field in (VISIT_DATE, VISIT_WINDOW, VISIT_TIME) for s in slots):
        # Asked which procedure, "... can you book someone to do that on Wednesday?": the
        # answer comes with a request for a visit, which the desk of questions cannot take.
        return Intent.BOOK, False
    if topic is None and _asks_for_a_visit(slots, context):
        return Intent.BOOK, False
    if slots:
        return Intent.INFORM, False
    return topic or Intent.UNKNOWN, False


def _moves_a_held_booking(text: str, slots: list[SlotValue],
                          withdrawn: tuple[tuple[str, str], ...], marker: bool,
                          context: ProposalContext) -> bool:
    """A turn that asks for no visit and changes one the caller has, other than the call's
    own, is a move of it, whatever the verb: it replaces a day a booking is on ("the Thursday
    afternoon one, could your engineer do that one on Friday instead?"), or it names one
    booking by its asset, and its day if said, and gives a window or time in place of its own
    ("the Rotterdam visit on the 16th, could your engineer come after lunch that day
    instead?", "the engineer coming out to Dock Street, can they make it half two rather?").
    Not while a request is under way and unbooked: then the turn revises the request."""
    if not context.bookings or intents.asks_for_a_visit(text) or intents.adds_another(text):
        return False  # (a visit "as well", "too", "also": one more, not a move)
    own = context.ledger.value(BOOKING_REF)
    if own is None and any(context.ledger.value(name) is not None
                           for name in BOOKING_VALUES if name != ASSET):
        return False
    days = {day for _, _, day in context.bookings}
    said = {s.field: s.value for s in slots if s.value}
    # (with an asset said, a booking of that asset: "P-200 on Thursday, no, Friday", with
    # P-100 booked for Thursday, asks for a P-200 visit on Friday)
    replaced_days = {day for _, asset, day in context.bookings
                     if said.get(ASSET) in (None, asset)}
    if said.get(VISIT_DATE) not in (None, *days) and any(
            field == VISIT_DATE and value in replaced_days
            and (own is None or value != context.ledger.value(VISIT_DATE))
            for field, value in withdrawn):
        return True
    # a day open between two readings ("Monday's appointment", said on a Monday) may be either
    dates = next(((s.value,) if s.value else s.candidates for s in slots
                  if s.field == VISIT_DATE), ())
    named = [ref for ref, asset, day in context.bookings
             if asset == said.get(ASSET) and (not dates or day in dates)]
    return len(named) == 1 and named[0] != own and marker \
        and bool({VISIT_WINDOW, VISIT_TIME} & set(said))


def _under_way(context: ProposalContext) -> bool:
    """Whether the call already holds a request or a booking (or just asked for a value of
    one). An asset alone is what the call is about, not a request: a question about P-100
    leaves it in the ledger, and "then put me down for Thursday" afterwards asks for a visit.
    Nor is a question about a procedure: asked "Which procedure is it about?", "could you book
    P-100 for tomorrow afternoon, sorry, Thursday afternoon?" is a first request."""
    return context.expecting in (*BOOKING_VALUES, BOOKING_REF) or bool(context.bookings) or any(
        context.ledger.value(name) is not None for name in BOOKING_VALUES + (BOOKING_REF,)
        if name != ASSET)


def _booked(context: ProposalContext) -> bool:
    return bool(context.bookings) or context.ledger.value(BOOKING_REF) is not None


def _asks_for_a_visit(slots: list[SlotValue], context: ProposalContext,
                      booked_ok: bool = False) -> bool:
    """An asset and a day, window or time, while no booking is under way, is a request for a
    visit whatever the verb ("P-100, Friday morning", "K9 on the 9th, mornings preferably"); so
    is a day with nothing under way at all, the asset not heard ("...for the 100 on Monday
    afternoon": the agent asks which one). ``booked_ok``: a booking already made does not
    count as under way (a visit more)."""
    fields = {s.field for s in slots}
    busy = _under_way(context)
    if busy and not (booked_ok and context.expecting is None):
        return False
    if ASSET in fields:
        return bool(fields & {VISIT_DATE, VISIT_WINDOW, VISIT_TIME})
    return VISIT_DATE in fields and not busy


def _held(field: str, context: ProposalContext) -> str | None:
    """The value the call already holds: the ledger's, or the site of the asset it names.

    A booking's site defaults to its asset's site (docs/call-scripts.md), so "the visit is at 7 Dock
    Street" changes a value the caller never had to say.
    """
    held = context.ledger.value(field)
    if held is None and field == SITE:
        asset = context.caller.asset(context.ledger.value(ASSET) or "")
        held = asset.site if asset is not None else None
    return held


def _news(slots: list[SlotValue], context: ProposalContext) -> bool:
    """Whether a slot says something the ledger does not already hold."""
    return any(s.value is None or s.value != context.ledger.value(s.field) for s in slots)


def choose_kind(intent: Intent, corrective: bool, slots: list[SlotValue],
          withdrawn: tuple[tuple[str, str], ...], cleared: tuple[str, ...],
          referent: corrections.Referent | None, uncertain: bool,
          context: ProposalContext) -> CorrectionKind:
    """The correction kind, by fixed precedence (the most cautious reading wins)."""
    if uncertain:
        return CorrectionKind.UNCERTAIN
    touches_date = any(s.field == VISIT_DATE for s in slots) or any(
        f == VISIT_DATE for f, _ in withdrawn)
    if corrective and touches_date and len(context.active_date_fields) > 1:
        return CorrectionKind.AMBIGUOUS_TARGET
    if corrective and any(s.value is None and len(s.candidates) > 1 for s in slots):
        return CorrectionKind.AMBIGUOUS_VALUE  # outside a correction, candidates revise nothing
    if referent is not None:
        return CorrectionKind.REFERENT
    if cleared and corrective:
        return CorrectionKind.CLEAR_CONSTRAINT
    given = {_GROUP.get(s.field, s.field) for s in slots}
    if withdrawn and not {_GROUP.get(f, f) for f, _ in withdrawn} & given:
        return CorrectionKind.NEGATION
    if not corrective:
        return CorrectionKind.NONE
    return CorrectionKind.MULTI if len(given) > 1 else CorrectionKind.REPLACE


def authority_proposal(text: str, boundary: str, utterance: Utterance,
               context: ProposalContext) -> Proposal:
    """A turn that crosses a boundary proposes no values at all: nothing of it may be applied.
    Its intent is what its words ask for; with a request under way, a change of it."""
    intent = intents.explicit_intent(text) or intents.topic_intent(text, False, False)
    under_way = any(context.ledger.value(name) is not None for name in BOOKING_VALUES)
    if intent in (None, Intent.BOOK) and under_way and not intents.asks_another(text):
        intent = Intent.CORRECTION
    return Proposal(
        intent=intent or Intent.CORRECTION,
        correction=CorrectionKind.AUTHORITY,
        authority=boundary,
        confidence=min(utterance.confidence, 1.0),
        reason=f"authority boundary: {boundary}",
    )
