"""onnxruntime sessions that give their arena back (issue 19: a demo that runs for days).

onnxruntime runs a session's tensors from a memory arena of its own, which grows to fit the
runs in flight and never shrinks. A session that every call shares (Piper's voice, Smart
Turn's model) therefore keeps, for the rest of the process, the memory of the most runs that
ever overlapped: each step up is one more call speaking, or judging a pause, at the same
moment as the others. Measured with the demo's malloc settings (``ui.demo_build.tune_malloc``),
Piper alone grew from 141 to 296 MiB after a few sentences one at a time and to 396 MiB after
four at once; Smart Turn from 97 to 126 MiB and 170 MiB. That is the demo's memory rising in
steps under load and never coming back down (README, issue 19).

onnxruntime can free the arena's unused chunks at the end of a run (the run option
``memory.enable_memory_arena_shrinkage``). Doing that on every run maps each run's memory
afresh: Piper's first chunk about 1.2 times slower. :class:`ShrinkingSession` shrinks only
when runs have overlapped since the last shrink (what grows the arena past one run's needs),
on one run every ``every_secs`` at most: a session's memory falls back to what its runs in
flight use at least that often under load, and one call alone never pays for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

SHRINK_OPTION = "memory.enable_memory_arena_shrinkage"
# At most this long between two runs that give the arena back: the period of the demo's own
# malloc_trim (ui/allocator.py), which then finds the freed chunks already unmapped.
SHRINK_EVERY_S = 30.0


class ShrinkingSession:
    """An ``onnxruntime.InferenceSession`` whose arena's unused chunks are freed at the end of
    a run once runs have overlapped since the last shrink and ``every_secs`` have passed (the
    first run after that shrinks). A shrink that another run overlapped is owed again: that
    run's chunks were busy when it freed the arena, or freed after. Everything else is the
    session's own; ``run`` keeps its signature, so code written for a session (piper's voice,
    pipecat's Smart Turn analyzer) takes this in its place. Thread-safe: one session serves
    every call."""

    def __init__(self, session: Any, every_secs: float = SHRINK_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        import onnxruntime

        if every_secs < 0:
            raise ValueError(f"every_secs must be >= 0, got {every_secs}")
        self._session = session
        self._every = every_secs
        self._clock = clock
        self._last = clock()
        self._lock = threading.Lock()
        self._running = 0  # runs in flight
        self._overlapped = False  # two runs were in flight at once since the last shrink
        # the shrinking runs in flight, each with whether another run shared its time
        self._shrinking: dict[int, bool] = {}
        self._tickets = 0
        self._shrink = onnxruntime.RunOptions()
        self._shrink.add_run_config_entry(SHRINK_OPTION, "cpu:0")
        self.shrinks = 0  # runs that gave the arena back (tests, amend bench)

    @property
    def session(self) -> Any:
        """The wrapped session."""
        return self._session

    def _start(self, own_options: bool) -> int | None:
        """Count a run in; a ticket if it is to shrink the arena at its end, else None."""
        with self._lock:
            self._running += 1
            if self._running > 1:
                self._overlapped = True
                for ticket in self._shrinking:  # their shrink will find this run's chunks busy
                    self._shrinking[ticket] = True
            now = self._clock()
            if own_options or not self._overlapped or now - self._last < self._every:
                return None
            self._last, self._overlapped = now, False
            self.shrinks += 1
            self._tickets += 1
            self._shrinking[self._tickets] = self._running > 1
            return self._tickets

    def _end(self, ticket: int | None) -> None:
        """Count a run out. A shrink that shared its time with another run freed only the
        chunks free at its end, and that run's chunks may have been busy then (or freed after
        it): the shrink is owed again, to the first run due."""
        with self._lock:
            self._running -= 1
            if ticket is not None and self._shrinking.pop(ticket):
                self._overlapped = True

    def run(self, output_names, input_feed, run_options=None):
        """The session's ``run``; with the arena shrunk at its end when one is due (a caller's
        own ``run_options`` are kept, and then nothing is shrunk on that run)."""
        ticket = self._start(run_options is not None)
        try:
            return self._session.run(output_names, input_feed,
                                     run_options if ticket is None else self._shrink)
        finally:
            self._end(ticket)

    def __getattr__(self, name: str) -> Any:
        if name == "_session":  # not set yet: no session to delegate to
            raise AttributeError(name)
        return getattr(self._session, name)
