"""Text-mode playback: a SpeechSink that "plays" plans at 15 characters per second.

Plans play one after another from the moment they are emitted, so a barge-in or an
invalidation cuts them as it would cut audio. The player records exactly what the caller heard
per generation and emits ``agent_speech_started`` / ``agent_speech_stopped`` on the call's
trace (side effect). Heard text grows a word at a time, so ``heard`` triggers fire as a
listener's would.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from agent.core.speech import SpeechKind, SpeechPlan
from agent.core.trace import Trace

CHARS_PER_SECOND = 15.0
_WORD = re.compile(r"\S+\s*")


@dataclass(frozen=True, slots=True)
class Heard:
    """One generation as the caller experienced it."""

    generation: int
    kind: str
    text: str  # the whole plan
    heard_chars: int  # how much of it reached the caller
    started: float | None  # trace time; None if it never started (dropped while queued)
    stopped: float | None
    reason: str  # "completed", "barge_in", "invalidated", "dropped", "closed"
    record: tuple[str, int] | None = None
    citations: tuple[str, ...] = ()
    outcome: str | None = None
    question: str = ""
    revision: int = 0
    sentences: tuple[str, ...] = ()

    @property
    def heard(self) -> str:
        return self.text[:self.heard_chars]

    @property
    def completed(self) -> bool:
        return self.heard_chars >= len(self.text)

    def heard_through(self, sentence_count: int) -> bool:
        """True if the first ``sentence_count`` sentences were heard in full."""
        needed = len(" ".join(self.sentences[:sentence_count]))
        return self.heard_chars >= needed


class TextPlayer:
    """A SpeechSink with a sequential playback queue. Create it inside the running loop."""

    def __init__(self, trace: Trace, chars_per_second: float = CHARS_PER_SECOND):
        self.trace = trace
        self.cps = chars_per_second
        self.records: list[Heard] = []
        self.invalidations: list[tuple[float, int, str]] = []
        self.stream: list[str] = []  # heard text, in order, a word (or a cut part) at a time
        self.listeners: list[Callable[[], None]] = []
        self._queue: deque[SpeechPlan] = deque()
        self._floor = 0  # generations at or below this were invalidated
        self._wake = asyncio.Event()
        self._cut = asyncio.Event()
        self._cut_reason = ""
        self._cut_clock = 0.0  # trace time of the last cut
        self._cut_loop = 0.0  # loop time of the last cut
        self._playing: SpeechPlan | None = None
        self._closed = False
        self._silent = asyncio.Event()
        self._silent.set()
        self._task = asyncio.get_running_loop().create_task(self._run())

    # -- SpeechSink -----------------------------------------------------------------------------
    def speak(self, plan: SpeechPlan) -> None:
        """Queue ``plan``; a plan of an invalidated generation is recorded as dropped."""
        if plan.generation <= self._floor or self._closed:
            self._record(plan, 0, None, None, "dropped")
            return
        self._queue.append(plan)
        self._silent.clear()
        self._wake.set()

    def invalidate(self, generation: int, reason: str) -> None:
        """Drop queued plans of ``generation`` and older and cut the playing one at once."""
        self.invalidations.append((self.trace.clock(), generation, reason))
        self._floor = max(self._floor, generation)
        for plan in [p for p in self._queue if p.generation <= generation]:
            self._queue.remove(plan)
            self._record(plan, 0, None, None, "dropped")
        if self._playing is not None and self._playing.generation <= generation \
                and not self._cut.is_set():  # a barge-in that already cut it keeps its reason
            self._cut_now("invalidated")
        self._update_silence()

    # -- caller side ----------------------------------------------------------------------------
    def barge_in(self) -> None:
        """The caller talks over the agent: playback stops now, queued speech is dropped."""
        if self._playing is None and not self._queue:
            return
        for plan in list(self._queue):
            self._queue.remove(plan)
            self._record(plan, 0, None, None, "dropped")
        if self._playing is not None:
            self._cut_now("barge_in")
        self._update_silence()

    @property
    def speaking(self) -> bool:
        return self._playing is not None or bool(self._queue)

    async def wait_silent(self) -> None:
        await self._silent.wait()

    def heard_mark(self) -> int:
        return len(self.stream)

    def heard_since(self, mark: int) -> str:
        return "".join(self.stream[mark:])

    async def close(self) -> None:
        """Stop playback; whatever is playing is cut and recorded as closed."""
        self._cut_now("closed")
        for plan in list(self._queue):
            self._record(plan, 0, None, None, "dropped")
        self._queue.clear()
        # A flag, not Task.cancel(): on 3.11 wait_for can swallow a cancel that races the cut.
        self._closed = True
        self._wake.set()
        await self._task

    def _cut_now(self, reason: str) -> None:
        """Cut the playing plan at this instant. The playback task records the cut as of now,
        not as of when it next runs: on a busy machine it may run a while later, and the
        caller stopped hearing the plan when it was cut (the player is the harness's speaker:
        its own lateness is no stale audio of the agent's)."""
        self._cut_reason = reason
        self._cut_clock = self.trace.clock()
        self._cut_loop = asyncio.get_running_loop().time()
        self._cut.set()

    # -- playback -------------------------------------------------------------------------------
    async def _run(self) -> None:
        while not self._closed:
            if not self._queue:
                self._update_silence()
                self._wake.clear()
                await self._wake.wait()
                continue
            plan = self._queue.popleft()
            self._playing = plan
            try:
                await self._play(plan)
            finally:
                self._playing = None

    async def _play(self, plan: SpeechPlan) -> None:
        loop = asyncio.get_running_loop()
        self._cut.clear()
        text = plan.text
        started = self.trace.clock()
        begin = loop.time()
        self._emit("agent_speech_started", plan, chars=len(text))
        position = 0
        reason = "completed"
        for match in _WORD.finditer(text):
            due = begin + match.end() / self.cps
            try:
                await asyncio.wait_for(self._cut.wait(), timeout=max(0.0, due - loop.time()))
            except TimeoutError:
                self._hear(text[position:match.end()])
                position = match.end()
                continue
            reason = self._cut_reason or "invalidated"
            cut_at = max(position, min(len(text), int((self._cut_loop - begin) * self.cps)))
            self._hear(text[position:cut_at])
            position = cut_at
            break
        stopped = self._cut_clock if reason != "completed" else self.trace.clock()
        self._record(plan, position, started, stopped, reason)
        self._emit("agent_speech_stopped", plan, completed=reason == "completed",
                   cut_at=position, chars=len(text), reason=reason)

    def _hear(self, chunk: str) -> None:
        if not chunk:
            return
        self.stream.append(chunk)
        for listener in tuple(self.listeners):
            listener()

    def _record(self, plan: SpeechPlan, chars: int, started, stopped, reason: str) -> None:
        kind = plan.kind.value if isinstance(plan.kind, SpeechKind) else str(plan.kind)
        self.records.append(Heard(plan.generation, kind, plan.text, chars, started, stopped,
                                  reason, plan.record, tuple(plan.citations), plan.outcome,
                                  plan.question, plan.revision, tuple(plan.sentences)))

    def _emit(self, name: str, plan: SpeechPlan, **data) -> None:
        self.trace.emit(name, question=plan.question, revision=plan.revision,
                        generation=plan.generation, kind=str(plan.kind), **data)

    def _update_silence(self) -> None:
        if self._playing is None and not self._queue:
            self._silent.set()


def merge_heard(records: list[Heard]) -> list[Heard]:
    """Records ordered by when they started (dropped ones last), one per plan."""
    return sorted(records, key=lambda h: (h.started is None, h.started or 0.0, h.generation))

