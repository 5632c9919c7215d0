"""Known-answer controls: naive strategies that each turn one safeguard off, to prove the
oracle can fail.

A test asks for switches by name (a call script's ``agent_faults``, docs/call-scripts.md);
the composition root (``ui/bootstrap.py``, :func:`ui.bootstrap.safeguards`) injects the naive
strategy each one names in place of the agent's own (:mod:`agent.service.safeguards`):

* ``gate_off``: the admission gate in shadow mode, so every result is admitted;
* ``confirm_from_plan``: :class:`FromPlan`, the plan claimed as done as soon as it is queued;
* ``no_recheck_before_dispatch``: :class:`TrustTheQueue`, the queue message sent unchecked;
* ``retry_with_new_key``: :class:`RetryWithNewKey`, no answer taken for "not done";
* ``no_audio_flush``: nothing of the agent's; audio mode keeps queued audio of invalidated
  generations (the call runner hands the switches to the mode: ``audio/audio_mode.py``).

They exist only in test runs. :func:`agent_faults` refuses to build a non-empty set unless
``AMEND_ALLOW_AGENT_FAULTS=1`` is in the environment (the test suite sets it). No module of the
core imports this one (``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from agent.core.actions import Action, ActionStatus, CommitDecision
from agent.core.caller import CallerProfile
from agent.core.errors import InvalidInput
from agent.core.ops import spec
from agent.core.ports import BookingRecord
from agent.service.safeguards import Claim, RecheckFn, Unanswered
from agent.service.spoken import spoken_when

ALLOW_ENV = "AMEND_ALLOW_AGENT_FAULTS"


@dataclass(frozen=True, slots=True)
class AgentFaults:
    """The switches a test asked for."""

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


# -- confirm_from_plan -----------------------------------------------------------------------
def from_plan(op: str, args: Mapping[str, str], caller: CallerProfile | None = None
              ) -> tuple[str, ...]:
    """A naive agent's confirmation: claims the PLAN happened. Never use it elsewhere."""
    verb = spec(op).done
    noun = caller.noun_for(args.get("asset")) if caller is not None else "unit"
    return (f"It's {verb}.", f"{noun.capitalize()} {args.get('asset')}, {spoken_when(args)}.")


class FromPlan:
    """``confirm_from_plan``: a naive agent claims the plan as done as soon as it is queued,
    says nothing when the request leaves, and confirms the plan, not the record."""

    __slots__ = ()

    def queued(self, action: Action, caller: CallerProfile) -> Claim | None:
        args = dict(action.args)
        return Claim(from_plan(action.op, args, caller), args)

    def dispatched(self, action: Action) -> tuple[str, ...]:
        return ()

    def verified(self, action: Action, record: BookingRecord, caller: CallerProfile) -> Claim:
        args = dict(action.args)
        return Claim(from_plan(action.op, args, caller), args)


# -- no_recheck_before_dispatch --------------------------------------------------------------
class TrustTheQueue:
    """``no_recheck_before_dispatch``: a worker that trusts its queue message blindly."""

    __slots__ = ()

    def sendable(self, queued: Action, live: Action | None,
                 recheck: RecheckFn) -> tuple[Action | None, CommitDecision]:
        return queued, CommitDecision.ALLOWED


# -- retry_with_new_key ----------------------------------------------------------------------
class RetryWithNewKey:
    """``retry_with_new_key``: the duplicate-risk mistake seed 001 case 11 must catch. It
    treats "no response" as "not completed" and sends the same change again under a new
    idempotency key, without looking the first request up (seed 001: do not do this)."""

    __slots__ = ()

    async def settle(self, dispatcher: Unanswered, action_id: str, retried: bool) -> None:
        action = dispatcher.actions[action_id]
        async with dispatcher.lock:
            dispatcher.set_status(action, ActionStatus.FAILED)
            dispatcher.emit("action_failed", action,
                            detail="assumed not done (retry_with_new_key)")
            fresh = dispatcher.desk.new_action(action.op, dict(action.args),
                                               tuple(b.field for b in action.basis))
            dispatcher.go(fresh, retried=True)
