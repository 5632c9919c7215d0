"""Builders for the understanding tests: a fixed clock, a caller, procedures, a ledger view."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TypedDict, Unpack

from agent.core.caller import Asset, CallerProfile
from agent.core.fields import FieldRecord
from agent.core.ledger import LedgerSnapshot
from agent.core.ports import ProcedureInfo
from agent.core.speech import Utterance
from agent.understanding.nlu.proposer import RuleProposer
from agent.understanding.proposals import Proposal, ProposalContext

CET = timezone(timedelta(hours=1))
TUESDAY = datetime(2026, 12, 1, 9, 0, tzinfo=CET)  # the contract's example clock
THURSDAY = datetime(2026, 12, 3, 9, 0, tzinfo=CET)
FRIDAY = datetime(2026, 12, 4, 9, 0, tzinfo=CET)

P100 = Asset("P-100", "C2", "EU", "12 Harbour Road, Rotterdam")
P200 = Asset("P-200", "C3", "EU", "4 Dock Street, Antwerp")
ONE_PUMP = CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (P100,))
TWO_PUMPS = CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (P100, P200))
ONLY_P200 = CallerProfile("acme", "tech-17", ("technician",), "ACME-001", (P200,))

PROCEDURES = (
    ProcedureInfo("pump-seal", "pump seal", "seal-torque", "seal torque",
                  ("pump seal torque", "seal bolt torque", "how tight is the seal")),
    ProcedureInfo("pump-seal", "pump seal", "valve-gasket", "valve gasket",
                  ("gasket replacement",)),
    ProcedureInfo("returns", "returns", "filter-kit", "filter kit", ("filters",)),
    ProcedureInfo("returns", "returns", "impeller", "impeller", ("spare impeller",)),
)

PROPOSER = RuleProposer(warm_at=TUESDAY)


def ledger(**values: str) -> LedgerSnapshot:
    fields = tuple((name, FieldRecord(value, "utterance:t0")) for name, value in values.items())
    return LedgerSnapshot("q1", 1, fields)


class ContextOptions(TypedDict, total=False):
    """The ``ProposalContext`` fields ``context`` passes on as given."""

    expecting: str | None
    pending_confirmation: bool
    active_date_fields: tuple[str, ...]
    bookings: tuple[tuple[str, str, str], ...]
    offered: tuple[str, ...]


def context(now: datetime = TUESDAY, caller: CallerProfile = TWO_PUMPS, *,
            values: dict[str, str] | None = None,
            **kwargs: Unpack[ContextOptions]) -> ProposalContext:
    values = values or {}
    return ProposalContext(now=now, ledger=ledger(**values), caller=caller,
                           procedures=PROCEDURES, **kwargs)


def propose(text: str, ctx: ProposalContext | None = None, *, confidence: float = 1.0,
            alternatives: tuple[str, ...] = ()) -> Proposal:
    return PROPOSER.propose(Utterance(text, confidence, alternatives), ctx or context())


def slot_values(proposal: Proposal) -> dict[str, str | None]:
    return {slot.field: slot.value for slot in proposal.slots}
