"""Known-answer controls: switches that turn one safeguard off, to prove the oracle can fail.

They exist only in test runs. :func:`agent_faults` refuses to build a non-empty set unless
``AMEND_ALLOW_AGENT_FAULTS=1`` is in the environment (the test suite sets it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

from agent.errors import InvalidInput

ALLOW_ENV = "AMEND_ALLOW_AGENT_FAULTS"


@dataclass(frozen=True, slots=True)
class AgentFaults:
    gate_off: bool = False  # the admission gate admits everything
    no_recheck_before_dispatch: bool = False  # skip may_commit right before the side effect
    confirm_from_plan: bool = False  # render confirmations from the plan, not the record
    no_audio_flush: bool = False  # invalidation does not flush queued audio
    retry_with_new_key: bool = False  # retry an unknown outcome with a fresh idempotency key

    @property
    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


NAMES = tuple(f.name for f in fields(AgentFaults))


def agent_faults(names: list[str] | tuple[str, ...] | None) -> AgentFaults:
    """Build the switches from a script's ``agent_faults`` list. Raises InvalidInput."""
    names = list(names or [])
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise InvalidInput(f"agent_faults: unknown switch(es) {unknown}; known: {list(NAMES)}")
    if names and os.environ.get(ALLOW_ENV) != "1":
        raise InvalidInput("agent_faults: these switches exist only in test runs "
                           f"(set {ALLOW_ENV}=1 in a test harness, never in production)")
    return AgentFaults(**{n: True for n in names})
