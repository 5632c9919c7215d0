"""What a question for the answer desk reads and the scope it resolves in. Pure.

The topic (maintenance or return policy), the ledger fields each topic reads, configuration and
region taken from the trusted asset record (never from the utterance), the resolution query
(trusted session values plus accepted fields, nothing else) and the field still missing. Used
by :class:`agent.service.answer_desk.AnswerDesk`.
"""

from __future__ import annotations

from enum import StrEnum

from agent.core.caller import CallerProfile
from agent.core.dependencies import Dependent, DependentKind
from agent.core.ledger import FieldOp, LedgerSnapshot
from agent.core.names import (
    ASSET,
    CONFIGURATION,
    FAMILY,
    ITEM_CATEGORY,
    LANGUAGE,
    OPENED,
    PROCEDURE,
    REGION,
)
from agent.core.ports import ResolutionQuery

QUERY = Dependent(DependentKind.RETRIEVAL_QUERY, "question")
OUTPUT_LANGUAGE = Dependent(DependentKind.OUTPUT_LANGUAGE, "language")
MAINTENANCE_READS = (ASSET, CONFIGURATION, REGION, FAMILY, PROCEDURE, LANGUAGE)
POLICY_READS = (FAMILY, ITEM_CATEGORY, OPENED, REGION, LANGUAGE)
RETURNS = "returns"
MISSING_TO_FIELD = {"configuration": ASSET, "region": ASSET, "family": PROCEDURE,
                     "procedure": PROCEDURE}


class Topic(StrEnum):
    """What the answer desk is answering: nothing yet, a maintenance or a policy question."""

    NONE = "none"
    MAINTENANCE = "maintenance"
    POLICY = "policy"


def reads_of(topic: Topic) -> tuple[str, ...]:
    """The ledger fields a question of ``topic`` reads."""
    return POLICY_READS if topic is Topic.POLICY else MAINTENANCE_READS


def scope_ops(topic: Topic, caller: CallerProfile, snap: LedgerSnapshot) -> list[FieldOp]:
    """Configuration and region from the trusted asset record of the asset now meant.

    Never from the utterance; a referent change ("the other pump") brings the other
    asset's record along and copies nothing from the first.
    """
    asset = caller.asset(snap.value(ASSET) or "")
    if asset is None:
        return []
    ops = []
    for name, value in ((CONFIGURATION, asset.configuration), (REGION, asset.region)):
        if snap.value(name) != value:
            ops.append(FieldOp.set(name, value, f"asset:{asset.id}"))
    if topic is Topic.MAINTENANCE and snap.value(FAMILY) is None and asset.family:
        ops.append(FieldOp.set(FAMILY, asset.family, f"asset:{asset.id}"))
    return ops


def resolution_query(topic: Topic, caller: CallerProfile, snap: LedgerSnapshot
                     ) -> ResolutionQuery:
    """The resolution query: trusted session values plus accepted fields, nothing else."""
    policy = topic is Topic.POLICY
    regions = {a.region for a in caller.assets}
    # A purchase region: the session's, else the one region all the caller's assets share.
    fallback = caller.region or (regions.pop() if len(regions) == 1 else None)
    # A return policy is scoped by where the item was bought: the session's purchase region
    # wins over the region of an asset the call happens to hold (the pump's site).
    region = (caller.region or snap.value(REGION) or fallback) if policy else snap.value(REGION)
    opened = snap.value(OPENED)
    fields = ((OPENED, opened),) if policy and opened else ()
    return ResolutionQuery(
        tenant=caller.tenant, roles=tuple(caller.roles),
        family=RETURNS if policy else snap.value(FAMILY),
        procedure=snap.value(ITEM_CATEGORY if policy else PROCEDURE),
        configuration="*" if policy else snap.value(CONFIGURATION),
        region=region, language=snap.value(LANGUAGE) or "en",
        auth_epoch=caller.auth_epoch, fields=fields)


def missing_field(topic: Topic, snap: LedgerSnapshot) -> str | None:
    """The field a question of ``topic`` still needs before it can be resolved, if any."""
    if topic is Topic.POLICY:
        for name in (ITEM_CATEGORY, OPENED):
            if snap.value(name) is None:
                return name
        return None
    if snap.value(PROCEDURE) is None:
        return PROCEDURE
    if snap.value(ASSET) is None:
        return ASSET
    return None
