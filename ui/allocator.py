"""The demo's memory allocator: the C library's malloc, or another one preloaded by choice.

A demo soaked by four browsers grows by about 100 to 140 MiB an hour for as long as it runs,
though no object outlives its call (README, issue 19). A fragmentation-proof allocator was the
first suspect, so ``AMEND_MALLOC`` lets the demo run under another: ``mimalloc`` (bundled, from
the ``cmeel-mimalloc`` package on Linux x86-64) or the path of any malloc shared library (for
example Debian's ``/usr/lib/x86_64-linux-gnu/libjemalloc.so.2``). ``amend demo`` then starts
itself again, once, with the library in ``LD_PRELOAD`` (:func:`start_under`), before it builds
anything; every process it starts (``--workers``) inherits it. Measured over 30 minutes,
mimalloc grew the same (127 MiB/h against glibc's 143), so the default stays the C library's
malloc with at most two arenas (``ui.demo_build.tune_malloc``); the growth is native
memory that no allocator gives back, and the soak bench names the allocator it ran under.

Under the C library's malloc, a demo process also gives the memory its arenas hold free back to
the system every 30 s (:class:`MemoryTrimmer`): what ended calls freed is returned, so a demo
that browsers have left goes back down instead of keeping its busiest hour resident.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from agent.core.errors import AmendError

ENV = "AMEND_MALLOC"
SYSTEM = "system"
MIMALLOC = "mimalloc"
PACKAGE = "cmeel-mimalloc"
_LIBRARY = "libmimalloc.so"


def chosen_library(environ: dict[str, str] | None = None) -> Path | None:
    """The allocator library the demo should run under: None for the C library's malloc (the
    default, or ``AMEND_MALLOC=system``), the bundled mimalloc for ``AMEND_MALLOC=mimalloc``,
    else the file ``AMEND_MALLOC`` names. Raises :class:`AmendError` when that is not there."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip()
    if not value or value.lower() == SYSTEM:
        return None
    if value.lower() == MIMALLOC:
        bundled = bundled_mimalloc()
        if bundled is None:
            raise AmendError(f"{ENV}={value}: the {PACKAGE} package is not installed (it is "
                             "bundled on Linux x86-64 only). Install it, give the path of a "
                             f"malloc shared library instead, or unset {ENV}.")
        return bundled
    path = Path(value).expanduser()
    if not path.is_file():
        raise AmendError(f"{ENV}={value}: no such file. Give the path of a malloc shared "
                         "library (e.g. /usr/lib/x86_64-linux-gnu/libjemalloc.so.2), "
                         f"{ENV}={MIMALLOC} for the bundled mimalloc, or {ENV}={SYSTEM} "
                         "(the default) for the C library's own malloc.")
    return path.resolve()


def bundled_mimalloc() -> Path | None:
    """``libmimalloc.so`` from the installed ``cmeel-mimalloc`` package; None without it."""
    try:
        files = metadata.distribution(PACKAGE).files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == _LIBRARY:
            path = Path(str(file.locate())).resolve()
            return path if path.is_file() else None
    return None


def start_under(library: Path | None) -> None:
    """Replace this process (same pid, same arguments, same environment) by one that runs
    under ``library`` (side effect: ``os.execve``; it does not return then). Does nothing for
    None, off Linux, or when ``library`` is already in ``LD_PRELOAD``: a library the loader
    could not preload is not tried twice. Call it before any thread starts."""
    if library is None or not sys.platform.startswith("linux"):
        return
    preload = os.environ.get("LD_PRELOAD", "")
    if str(library) in preload.split():
        return
    env = {**os.environ, "LD_PRELOAD": f"{library} {preload}".strip()}
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, sys.orig_argv, env)


def running_under() -> str | None:
    """The preloaded allocator library mapped into this process, by file name (None when
    malloc is the C library's own)."""
    preload = os.environ.get("LD_PRELOAD", "").split()
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    return next((Path(p).name for p in preload if p and p in maps), None)


def describe() -> str:
    """One line for the demo's start-up message."""
    name = running_under()
    if name:
        return f"memory allocator: {name}"
    return f"memory allocator: the C library's malloc ({ENV} chooses another)"


# How often a demo process gives the C library's free memory back to the system (MemoryTrimmer).
TRIM_EVERY_S = 30.0


def c_library_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where malloc is not glibc's (macOS, musl) or another
    allocator is preloaded (it keeps its own free memory, and glibc's has little)."""
    if running_under() is not None:
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


class MemoryTrimmer:
    """Gives the memory glibc's malloc holds free back to the system, every ``every`` seconds.

    A demo's calls allocate and free audio frames, transcripts and model buffers from a dozen
    threads over two malloc arenas. What they free stays resident in the arenas' free lists
    (malloc returns only the top of an arena by itself), so a demo the browsers have left kept
    its busiest hour resident: after six minutes of four soaking browsers, ``malloc_trim(0)``
    took one demo process from 947 to 745 MiB (README, issue 19). It walks each arena under
    that arena's lock, so it runs in a worker thread, never on the event loop. Measured over
    30 minutes of four soaking browsers, every 30 s: 60 trims, 32 ms at the median and 127 ms
    at the longest; the last minute's voice-to-voice p95 stayed within 6 % of the first's.
    ``trims`` and ``trim_secs`` say how often it ran and for how
    long (``amend bench --only soak`` reads them from the demo's exit message)."""

    def __init__(self, trim: Callable[[int], int] | None = None, every: float = TRIM_EVERY_S):
        if every <= 0:
            raise ValueError(f"every must be > 0 seconds, not {every}")
        self._trim = trim if trim is not None else c_library_trim()
        self.every = every
        self.trims = 0
        self.trim_secs: list[float] = []

    @property
    def available(self) -> bool:
        return self._trim is not None

    def trim_now(self) -> bool:
        """One ``malloc_trim(0)`` (blocking); True if it gave memory back."""
        if self._trim is None:
            return False
        started = time.perf_counter()
        released = bool(self._trim(0))
        self.trim_secs.append(time.perf_counter() - started)
        self.trims += 1
        return released

    async def run(self) -> None:
        """Trim every ``every`` seconds until cancelled (a cadence, not a wait for an event)."""
        import asyncio

        while self._trim is not None:
            await asyncio.sleep(self.every)
            await asyncio.to_thread(self.trim_now)

    def summary(self) -> str:
        """One line for the demo's exit message."""
        if not self.trim_secs:
            return "memory trims: 0"
        ordered = sorted(self.trim_secs)
        return (f"memory trims: {self.trims}, median {1000 * ordered[len(ordered) // 2]:.1f} ms, "
                f"longest {1000 * ordered[-1]:.1f} ms")
