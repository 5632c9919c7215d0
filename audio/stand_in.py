"""A stand-in for the agent in the speech benchmarks (:mod:`audio.bench`,
:mod:`audio.bench_turns`): a Conversation that answers at once, so a figure measures the
pipeline's hearing, pause and flush, not the controller.
"""

from __future__ import annotations


class Responder:
    """A Conversation that answers at once: short answers, or long ones to barge into."""

    def __init__(self, sink, trace):
        from agent.core.ledger import Ledger
        from agent.core.speech import Generations

        self.sink, self.trace = sink, trace
        self.generations = Generations()
        self.long = False
        self._ledger = Ledger("q-bench")

    @property
    def ledger(self):
        return self._ledger

    @property
    def busy(self) -> bool:
        return False

    def _say(self, *sentences: str) -> None:
        from agent.core.speech import SpeechPlan

        self.sink.speak(SpeechPlan(self.generations.next(), "q-bench", 0, sentences))

    async def start(self) -> None:
        self._say("Hello.")

    async def user_turn(self, utterance) -> None:
        if self.long:
            self._say("Okay.", "Let me read the whole booking back to you now.",
                      "Pump P 100, at 12 Harbour Road, Wednesday afternoon, one unit.",
                      "The technician will call thirty minutes before arriving.")
        else:
            self._say("Okay.", "Noted.")

    def barge_in(self) -> None:
        self.sink.invalidate(self.generations.invalidate(), "barge_in")

    async def wait_idle(self) -> None:
        return None

    async def close(self) -> None:
        return None
