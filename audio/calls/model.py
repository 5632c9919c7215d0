"""The call-script model (docs/call-scripts.md): immutable values a validated script becomes.

Built only by :func:`audio.calls.script.load_script`; the runner and the judge read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.core.caller import CallerProfile
from agent.core.errors import InvalidInput
from agent.core.ops import SANDBOX_OPS

MODES = ("text", "audio")
FAULT_OPS = SANDBOX_OPS
FAULT_FLAGS = ("drop_response", "fail_before_commit", "hang", "duplicate_delivery",
               "ignore_precondition")
BOOKING_KEYS = ("ref", "account", "asset", "date", "window", "time", "units", "site",
                "contact", "status", "version")
STAFF_EDIT_KEYS = ("date", "window", "time", "units", "site", "contact", "status")  # staff may set
DEFAULT_TIMEOUT_MS = 20_000


class ScriptInvalid(InvalidInput):
    """A call script failed validation. ``errors`` holds one line per problem."""

    def __init__(self, path: Path, errors: list[str]):
        self.path = path
        self.errors = tuple(errors)
        super().__init__("; ".join(errors))


@dataclass(frozen=True, slots=True)
class Trigger:
    """When something happens: after a trace event (with filters) or after heard speech."""

    event: str | None = None
    op: str | None = None
    field: str | None = None
    heard: str | None = None
    delay_ms: int = 0
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    timeout_given: bool = False

    def describe(self) -> str:
        if self.heard is not None:
            return f"heard /{self.heard}/"
        filters = "".join(f", {k}: {v}" for k, v in (("op", self.op), ("field", self.field))
                          if v is not None)
        return f"{{event: {self.event}{filters}}}"


@dataclass(frozen=True, slots=True)
class Turn:
    index: int  # 1-based, as a person counts turns in the file
    line: int
    say: str
    confidence: float = 1.0
    alternatives: tuple[str, ...] = ()
    audio: Path | None = None  # resolved; checked when the script was read
    after: Trigger | None = None
    barge_in: bool = False
    optional: bool = False
    audio_written: str = ""  # the `audio:` value as the script gives it
    audio_line: int = 0  # the line of the `audio:` key

    @property
    def text_only(self) -> bool:
        return self.confidence != 1.0 or bool(self.alternatives)

    def audio_problem(self, problem: str, fix: str) -> str:
        """An `audio:` problem as validation words it: the file as written and resolved."""
        return audio_problem(self.audio_written or str(self.audio), self.audio, problem, fix)


def audio_problem(written: str, resolved: Path | None, problem: str, fix: str) -> str:
    """``'voices/t1.wav' (/abs/voices/t1.wav): problem; fix``: the message of every unusable
    `audio:` file, when the script is read and when the turn is played."""
    return f"{written!r} ({resolved}): {problem}; {fix}"


class TurnUnplayable(InvalidInput):
    """A turn's caller audio could not be played (its `audio:` file became unusable after the
    script was read). The harness cannot judge such a call: it is INVALID, never a FAIL."""

    def __init__(self, turn: Turn, problem: str, fix: str):
        self.turn = turn
        super().__init__(f"turns[{turn.index - 1}].audio: {turn.audio_problem(problem, fix)}")

    def cite(self, script: Path) -> str:
        """The message at the script's file and line, as validation would give it."""
        line = self.turn.audio_line or self.turn.line
        return (f"{script}:{line}: {self} (found when the turn was to be played; none of it "
                "reached the agent)")


@dataclass(frozen=True, slots=True)
class StaffEdit:
    line: int
    after: Trigger
    booking: str
    changes: tuple[tuple[str, Any], ...]
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Expect:
    bookings: tuple[tuple[tuple[str, Any], ...], ...] | None = None
    absent_bookings: tuple[tuple[tuple[str, Any], ...], ...] = ()
    notifications: tuple[tuple[tuple[str, Any], ...], ...] | None = None
    confirmed: tuple[tuple[tuple[str, Any], ...], ...] = ()
    fields: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    heard_include: tuple[str, ...] = ()
    heard_exclude: tuple[str, ...] = ()
    clarified: tuple[str, ...] = ()
    handoff: bool | None = None
    citations_include: tuple[str, ...] = ()
    citations_exclude: tuple[str, ...] = ()
    outcome: str | None = None
    turns: int | None = None  # how many caller turns the agent took (user_turn_final)


@dataclass(frozen=True, slots=True)
class CallScript:
    path: Path
    id: str
    title: str
    clock: datetime
    caller: CallerProfile
    registry: str  # "default" or an absolute path to a registry file
    modes: tuple[str, ...]
    turns: tuple[Turn, ...]
    bookings: tuple[tuple[tuple[str, Any], ...], ...] = ()
    faults: tuple[tuple[tuple[str, Any], ...], ...] = ()
    staff_edits: tuple[StaffEdit, ...] = ()
    agent_faults: tuple[str, ...] = ()
    expect: Expect = field(default_factory=Expect)

    def runs_in(self, mode: str) -> bool:
        return mode in self.modes
