"""What a revision invalidates, computed once and handed to everyone who reacts to it.

:meth:`agent.core.dependencies.DependencyMap.invalidation` computes the
:class:`~agent.core.dependencies.Invalidation` of a revision (the changed fields and exactly the
dependents that read them); :func:`invalidate_dependents` carries it out: the response being
spoken goes stale, the booking desk meets its actions (:meth:`BookingDesk.on_change`), a pending
query is marked. The turn keeps the same value for its decision, where the answer desk reads it
(:meth:`agent.service.answer_desk.AnswerDesk.stale_after`). Nobody computes it a second time.
"""

from __future__ import annotations

from agent.core.dependencies import Invalidation
from agent.service.answer_scope import QUERY
from agent.service.booking_desk import BookingDesk
from agent.service.dialogue import RESPONSE, CallContext


def invalidate_dependents(ctx: CallContext, bookings: BookingDesk,
                          changed: tuple[str, ...]) -> Invalidation:
    """Exactly the dependents of the changed fields go stale; everything else stays current."""
    if not changed:
        return Invalidation()
    invalidation = ctx.deps.invalidation(changed)
    if RESPONSE in invalidation:
        ctx.invalidate_response("correction")
    bookings.on_change(invalidation)
    if QUERY in invalidation:
        ctx.emit("query_invalidated", fields=list(changed))
    return invalidation
