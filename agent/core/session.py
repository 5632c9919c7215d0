"""The conversation contract between the controller and every front end.

The audio pipeline, the text-mode call runner, ``amend chat`` and the browser demo all drive a
:class:`Conversation`. Speech leaves through the :class:`~agent.core.speech.SpeechSink` given to the
controller; everything that happened is on ``trace``.
"""

from __future__ import annotations

from typing import Protocol

from agent.core.ledger import Ledger
from agent.core.speech import Utterance
from agent.core.trace import Trace


class Conversation(Protocol):
    trace: Trace

    @property
    def ledger(self) -> Ledger:
        """The current question's ledger (a new question gets a new ledger)."""

    async def start(self) -> None:
        """Greet the caller (a first generation)."""

    async def user_turn(self, utterance: Utterance) -> None:
        """Handle one final user turn: understand, revise, invalidate, decide, plan speech.

        Returns once the response is planned. Work it started (a dispatched action, a
        retrieval) continues in the background and may speak later.
        """

    def barge_in(self) -> None:
        """The caller started a real turn over agent speech: invalidate the current generation."""

    @property
    def busy(self) -> bool:
        """True while an action is pending or a retrieval is in flight."""

    async def wait_idle(self) -> None:
        """Return when no action is pending and no retrieval is in flight."""

    async def close(self) -> None:
        """End the call: close the ledger, cancel background work."""
