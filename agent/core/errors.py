"""The exception tree of the domain core, in one place.

``AmendError``
 ├── ``InvalidInput``        a value a caller or file supplied is malformed (names the input)
 ├── ``IllegalTransition``   an action was moved along an edge the transition table forbids
 └── ``QuestionClosed``      work was requested on a question that has been closed

Decisions are never exceptions: the ledger, the gate and ``may_commit`` return enums.
"""


class AmendError(Exception):
    """Base class of every error Amend raises on purpose."""


class InvalidInput(AmendError, ValueError):
    """A value supplied from outside is malformed. The message names it and says what to do."""


class IllegalTransition(AmendError):
    """An action status change that the transition table does not allow."""

    def __init__(self, action_id: str, current: str, requested: str):
        super().__init__(
            f"action {action_id}: cannot move from {current!r} to {requested!r}"
        )
        self.action_id = action_id
        self.current = current
        self.requested = requested


class QuestionClosed(AmendError, RuntimeError):
    """The question was finalised and closed; open a new ledger for a new question."""
