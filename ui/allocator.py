"""The demo's memory allocator: mimalloc, preloaded, so a demo left up for days stays flat.

A demo process allocates from a dozen threads (each call's VAD, Smart Turn and output
threads, the Whisper workers, the executor). glibc's malloc keeps what they free resident, in
pieces too scattered to hand back, so a demo soaked by four browsers grew by 100 to 130 MiB an
hour for as long as it ran, though no object outlived its call (README, issue 19). mimalloc
hands freed pages back to the system after a short delay. ``amend demo`` therefore starts
itself again, once, with the allocator in ``LD_PRELOAD`` (:func:`start_under`), before it
builds anything; every process it starts (``--workers``) inherits it.

The allocator comes from the ``cmeel-mimalloc`` package (a dependency on Linux x86-64), so a
fresh clone needs nothing else. ``AMEND_MALLOC`` chooses another: the path of a malloc shared
library (for example Debian's ``/usr/lib/x86_64-linux-gnu/libjemalloc.so.2``), or ``system``
for the C library's own malloc (then at most two arenas, ``ui.demo_build.limit_malloc_arenas``).
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

from agent.core.errors import AmendError

ENV = "AMEND_MALLOC"
SYSTEM = "system"
PACKAGE = "cmeel-mimalloc"
_LIBRARY = "libmimalloc.so"


def chosen_library(environ: dict[str, str] | None = None) -> Path | None:
    """The allocator library the demo should run under; None for the C library's malloc
    (``AMEND_MALLOC=system``, or no bundled mimalloc on this platform). Raises
    :class:`AmendError` for an ``AMEND_MALLOC`` that names no file."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip()
    if value.lower() == SYSTEM:
        return None
    if not value:
        return bundled_mimalloc()
    path = Path(value).expanduser()
    if not path.is_file():
        raise AmendError(f"{ENV}={value}: no such file. Give the path of a malloc shared "
                         "library (e.g. /usr/lib/x86_64-linux-gnu/libjemalloc.so.2), or "
                         f"{ENV}={SYSTEM} for the C library's own malloc.")
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
    return f"memory allocator: the C library's malloc ({ENV}={SYSTEM} or none bundled)"
