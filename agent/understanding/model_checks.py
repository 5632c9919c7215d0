"""What a model's reading of a turn must pass before it may stand in for the rules' reading.

A language model may propose an interpretation; the application still owns the accepted
values, the tenant boundary, the revision order and the permission checks (seed 000). So a
model's :class:`~agent.understanding.proposal_json.Reading` is refused, whole, when:

* a value is not the caller's to name: an asset that is not one of the caller's own
  (``asset_not_callers``), a booking that is not one of theirs (``booking_not_callers``), a
  procedure the registry does not hold (``unknown_procedure``);
* a date is in the past (``past_date``) (values that do not parse never get this far:
  :mod:`agent.understanding.proposal_json` refuses them);
* it changes a field the turn did not mention: every value it gives that differs from the
  one held, and every value it withdraws, quotes the caller's words, and those words (at
  most MAX_QUOTE_WORDS of them) must be in the turn (``not_in_the_turn``); a constraint
  may be cleared only when the rules read the turn that way too (``clear_not_in_the_turn``);
* it clears what the rules flagged as an attempt to cross an account, tenant or person
  boundary (``authority_cleared``): a model may raise that flag, never lower it;
* it authorises a side effect the rules did not hear authorised: a ``yes`` the rules did not
  read as yes (``yes_not_heard``), a go-ahead they did not read (``go_ahead_not_heard``). A
  yes dispatches the action on the table, so a model that paraphrases "no, wait" as yes
  must not be able to book a visit.

Each reason is ``"<code>: <detail>"``. Pure: no I/O, no clock but the context's.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agent.core.names import ASSET, BOOKING_REF, PROCEDURE, VISIT_DATE
from agent.understanding.nlu.normalise import normalise
from agent.understanding.proposal_json import Reading
from agent.understanding.proposals import CorrectionKind, Intent, Proposal, ProposalContext


def check_reading(reading: Reading, said: str, context: ProposalContext,
                  rules: Proposal) -> tuple[str, ...]:
    """Why ``reading`` (a model's, of the turn ``said``) may not be used; () when it may."""
    proposal = reading.proposal
    reasons: list[str] = []
    owned = {_id(a.id) for a in context.caller.assets}
    bookings = {_id(ref) for ref, _, _ in context.bookings}
    procedures = {p.procedure for p in context.procedures}
    today = context.now.date().isoformat()
    held = context.ledger.values()
    words = _tokens(said)

    def value_ok(field: str, value: str) -> None:
        if field == ASSET and _id(value) not in owned:
            reasons.append(f"asset_not_callers: {value}")
        elif field == BOOKING_REF and _id(value) not in bookings:
            reasons.append(f"booking_not_callers: {value}")
        elif field == PROCEDURE and value not in procedures:
            reasons.append(f"unknown_procedure: {value}")
        elif field == VISIT_DATE and value < today:
            reasons.append(f"past_date: {value}")

    for slot in proposal.slots:
        for value in (slot.value, *slot.candidates):
            if value is not None:
                value_ok(slot.field, value)
        # Candidates with no value change the field too: it is held unresolved, and asked.
        if (slot.value is None or held.get(slot.field) != slot.value) \
                and not _quoted(slot.text, words):
            shown = slot.value if slot.value is not None else "|".join(slot.candidates)
            reasons.append(f"not_in_the_turn: {slot.field}={shown} (quoted {slot.text!r})")
    for i, (field, value) in enumerate(proposal.withdrawn):
        quote = reading.withdrawn_text[i] if i < len(reading.withdrawn_text) else ""
        if not _quoted(quote, words):
            reasons.append(f"not_in_the_turn: withdrawn {field}={value} (quoted {quote!r})")
    for field in proposal.cleared:
        if field not in rules.cleared:
            reasons.append(f"clear_not_in_the_turn: {field}")
    if proposal.referent is not None and _id(proposal.referent) not in owned | bookings:
        reasons.append(f"referent_not_callers: {proposal.referent}")
    if (rules.authority or rules.correction is CorrectionKind.AUTHORITY) and not (
            proposal.authority or proposal.correction is CorrectionKind.AUTHORITY):
        reasons.append(f"authority_cleared: the rules read {rules.authority or 'a boundary'}")
    if proposal.intent is Intent.YES and rules.intent is not Intent.YES:
        reasons.append(f"yes_not_heard: the rules read {rules.intent.value}")
    if proposal.go_ahead and not rules.go_ahead:
        reasons.append("go_ahead_not_heard: the rules read no go-ahead")
    return tuple(dict.fromkeys(reasons))


def as_the_account_spells(proposal: Proposal, context: ProposalContext) -> Proposal:
    """``proposal`` (one that passed :func:`check_reading`) with each asset id, booking
    reference and referent written as the caller's account writes it: the checks compare
    ids as said ("p100" is P-100), validation compares them exactly."""
    spelling = {_id(a.id): a.id for a in context.caller.assets}
    spelling.update({_id(ref): ref for ref, _, _ in context.bookings})

    def spelled(field: str, value: str | None) -> str | None:
        if value is None or field not in (ASSET, BOOKING_REF):
            return value
        return spelling.get(_id(value), value)

    slots = tuple(replace(s, value=spelled(s.field, s.value),
                          candidates=tuple(spelled(s.field, c) or c for c in s.candidates))
                  for s in proposal.slots)
    withdrawn = tuple((f, spelled(f, v) or v) for f, v in proposal.withdrawn)
    referent = None if proposal.referent is None else \
        spelling.get(_id(proposal.referent), proposal.referent)
    return replace(proposal, slots=slots, withdrawn=withdrawn, referent=referent)


def _id(value: str) -> str:
    """An id compared as said: case, hyphens and spaces do not matter ("p 100" = "P-100")."""
    return re.sub(r"[^a-z0-9]", "", value.lower())


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", normalise(text)) if text.strip() else []


MAX_QUOTE_WORDS = 8  # a value is said in a few words; a quote of the whole turn proves nothing


def _quoted(quote: str, words: list[str]) -> bool:
    """True when the quote's words occur, in order and together, in the turn's words, and
    are a few words (at most MAX_QUOTE_WORDS), not the turn at large."""
    wanted = _tokens(quote)
    if not wanted or len(wanted) > MAX_QUOTE_WORDS:
        return False
    n = len(wanted)
    return any(words[i:i + n] == wanted for i in range(len(words) - n + 1))


__all__ = ["as_the_account_spells", "check_reading"]
