"""The registry's errors. Each message is one line that names the input and what to do.

``RegistryError`` (an ``agent.core.errors.InvalidInput``)
 ├── ``RejectedFile``   an import file broke the contract; carries every problem (CLI exit 1)
 ├── ``BadDatabase``    the database path is unwritable, corrupt, missing or newer (exit 2)
 └── ``BadQuery``       a resolve argument is malformed, e.g. a bad instant (exit 2)

Resolution outcomes are never exceptions: ``resolve`` returns a ``RegistryOutcome``.
"""

from __future__ import annotations

from agent.core.errors import InvalidInput


class RegistryError(InvalidInput):
    """Base class of every registry error raised on purpose."""

    exit_code = 2


class RejectedFile(RegistryError):
    """An import file was rejected; nothing was written. ``problems`` lists every cause."""

    exit_code = 1

    def __init__(self, problems: list[str] | tuple[str, ...]):
        self.problems = tuple(problems)
        first = self.problems[0] if self.problems else "rejected"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(first + more)


class BadDatabase(RegistryError):
    """The registry database cannot be used as it is; it was left untouched."""


class BadQuery(RegistryError):
    """A resolution argument is malformed (not a missing scope, which is an outcome)."""
