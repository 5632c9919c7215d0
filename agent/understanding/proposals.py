"""Understanding is separate from accepting.

A :class:`Proposer` turns a final user turn into a :class:`Proposal`: what the caller seems to
want and which field values they seem to give, withdraw or clear. The controller validates every
proposal against the ledger, the caller's authority and the call's rules before anything is
accepted. The rule-based proposer in ``agent/understanding/nlu`` is the default; a language model
would plug in as another proposer, and the ledger would stay the source of truth. The field names a
proposal uses are the constants of :mod:`agent.core.names`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

from agent.core.caller import CallerProfile
from agent.core.ledger import LedgerSnapshot
from agent.core.ports import ProcedureInfo
from agent.core.speech import Utterance


class Intent(StrEnum):
    BOOK = "book"
    RESCHEDULE = "reschedule"
    CANCEL = "cancel"
    MAINTENANCE_QUESTION = "maintenance_question"
    POLICY_QUESTION = "policy_question"
    TERMS_QUESTION = "terms_question"  # fees, notice, duration, what happens if it is cancelled
    STATUS_QUESTION = "status_question"  # when a visit the caller has is, whether it stands
    YES = "yes"
    NO = "no"
    CORRECTION = "correction"
    INFORM = "inform"  # gives values without a new intent (answer to a clarification)
    HUMAN = "human"
    GOODBYE = "goodbye"
    UNKNOWN = "unknown"


class CorrectionKind(StrEnum):
    NONE = "none"
    REPLACE = "replace"  # "X, not Y", "actually X", "make that X", "I meant X", "X instead"
    MULTI = "multi"  # several fields at once
    NEGATION = "negation"  # "not Thursday": withdraw, ask for a replacement
    CLEAR_CONSTRAINT = "clear_constraint"  # "any day this week is fine"
    REFERENT = "referent"  # "I meant the other pump" / "my other booking"
    AMBIGUOUS_TARGET = "ambiguous_target"  # two date fields active: which one?
    AMBIGUOUS_VALUE = "ambiguous_value"  # which Thursday?
    UNCERTAIN = "uncertain"  # low confidence / disagreeing alternatives
    AUTHORITY = "authority"  # crosses an account, tenant or person boundary


class SlotRole(StrEnum):
    """What a value does in its turn (docs/understanding.md, "Roles")."""

    NEW = "new"  # given for the first time, or restated, in a turn that revises nothing
    TO = "to"  # replaces another value of the same field
    FROM = "from"  # the value being replaced, said in the same turn as its replacement
    NEGATED = "negated"  # withdrawn, with no replacement for that field in the turn


@dataclass(frozen=True, slots=True)
class SlotValue:
    """A proposed value for one field. ``candidates`` > 1 means the value is ambiguous."""

    field: str
    value: str | None
    text: str = ""  # the words it came from
    confidence: float = 1.0
    candidates: tuple[str, ...] = ()
    role: SlotRole = SlotRole.NEW


@dataclass(frozen=True, slots=True)
class Proposal:
    intent: Intent
    slots: tuple[SlotValue, ...] = ()
    correction: CorrectionKind = CorrectionKind.NONE
    withdrawn: tuple[tuple[str, str], ...] = ()  # (field, value) the caller said "not" to
    cleared: tuple[str, ...] = ()  # constraints the caller removed
    ambiguous_fields: tuple[str, ...] = ()  # AMBIGUOUS_TARGET: the fields it could mean
    referent: str | None = None  # REFERENT: the asset id or booking ref now meant
    authority: str | None = None  # AUTHORITY: what boundary the caller tried to cross
    go_ahead: bool = False  # the turn also says to proceed ("..., go ahead")
    confidence: float = 1.0
    reason: str = ""  # a short human-readable explanation, for the trace in debug mode
    source: str = "rules"  # who read the turn: "rules" or "model" (a validated model reading)
    # Why a model's reading of this turn was not used (each a trace event proposal_rejected);
    # this proposal is then the rules' reading.
    rejected: tuple[str, ...] = ()

    def slot(self, name: str) -> SlotValue | None:
        for slot in self.slots:
            if slot.field == name:
                return slot
        return None

    def frame(self) -> tuple[SlotValue, ...]:
        """Every value of the turn with its role: the affirmed slots (``new`` or ``to``), then
        the withdrawn values, ``from`` when the turn replaces them and ``negated`` when not.

        Only ``slots`` are ever applied; the withdrawn values say what the caller moved away
        from.
        """
        replaced = {s.field for s in self.slots}
        return self.slots + tuple(
            SlotValue(name, value, role=SlotRole.FROM if name in replaced else SlotRole.NEGATED)
            for name, value in self.withdrawn)


@dataclass(frozen=True, slots=True)
class ProposalContext:
    now: datetime  # the call's clock
    ledger: LedgerSnapshot
    caller: CallerProfile
    procedures: tuple[ProcedureInfo, ...] = ()
    expecting: str | None = None  # the field the agent just asked for, if any
    pending_confirmation: bool = False  # the agent just asked "shall I go ahead?"
    active_date_fields: tuple[str, ...] = ()  # >1 makes a bare date correction ambiguous
    bookings: tuple[tuple[str, str, str], ...] = ()  # caller's bookings: (ref, asset, date)
    offered: tuple[str, ...] = ()  # values the question on the table named (see trust.py)
    # the agent's last reply asked something a yes or a no answers: a question, or an offer
    # (a colleague, an answer in another language) that stands for this turn
    asked: bool = False


class Proposer(Protocol):
    def propose(self, utterance: Utterance, context: ProposalContext) -> Proposal: ...


@runtime_checkable
class AsyncProposer(Proposer, Protocol):
    """A proposer that waits for something (a model server). The controller awaits
    ``propose_async`` when a proposer has it; ``propose`` is its answer without waiting."""

    async def propose_async(self, utterance: Utterance,
                            context: ProposalContext) -> Proposal: ...


async def propose(proposer: Proposer, utterance: Utterance,
                  context: ProposalContext) -> Proposal:
    """Ask ``proposer`` for its reading, awaiting it when it is an :class:`AsyncProposer`."""
    if isinstance(proposer, AsyncProposer):
        return await proposer.propose_async(utterance, context)
    return proposer.propose(utterance, context)
