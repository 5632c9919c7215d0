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
afresh: Piper's first chunk about 1.2 times slower. :class:`ShrinkingSession` shrinks on one
run every ``every_secs`` instead, so a session's memory falls back to what its runs in flight
use at least that often, and the other runs keep the arena's speed.
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
    a run at least every ``every_secs`` (the first run after that long shrinks). Everything
    else is the session's own; ``run`` keeps its signature, so code written for a session
    (piper's voice, pipecat's Smart Turn analyzer) takes this in its place. Thread-safe: one
    session serves every call."""

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
        self._shrink = onnxruntime.RunOptions()
        self._shrink.add_run_config_entry(SHRINK_OPTION, "cpu:0")
        self.shrinks = 0  # runs that gave the arena back (tests, amend bench)

    @property
    def session(self) -> Any:
        """The wrapped session."""
        return self._session

    def _due(self) -> bool:
        with self._lock:
            now = self._clock()
            if now - self._last < self._every:
                return False
            self._last = now
            self.shrinks += 1
            return True

    def run(self, output_names, input_feed, run_options=None):
        """The session's ``run``; with the arena shrunk at its end when one is due (a caller's
        own ``run_options`` are kept, and then nothing is shrunk on that run)."""
        if run_options is None and self._due():
            run_options = self._shrink
        return self._session.run(output_names, input_feed, run_options)

    def __getattr__(self, name: str) -> Any:
        if name == "_session":  # not set yet: no session to delegate to
            raise AttributeError(name)
        return getattr(self._session, name)
