"""The demo's memory allocator: the C library's malloc, or another one preloaded by choice.

A demo soaked by four browsers grows by about 100 to 140 MiB an hour for as long as it runs,
though no object outlives its call (README, issue 19). A fragmentation-proof allocator was the
first suspect, so ``AMEND_MALLOC`` lets the demo run under another: ``mimalloc`` (bundled, from
the ``cmeel-mimalloc`` package on Linux x86-64) or the path of any malloc shared library (for
example Debian's ``/usr/lib/x86_64-linux-gnu/libjemalloc.so.2``). ``amend demo`` then starts
itself again, once, with the library in ``LD_PRELOAD`` (:func:`start_under`), before it builds
anything; every process it starts (``--workers``) inherits it. Measured over 30 minutes,
mimalloc grew the same (127 MiB/h against glibc's 143), so the default stays the C library's
malloc with at most two arenas (``ui.demo_build.limit_malloc_arenas``); the growth is native
memory that no allocator gives back, and the soak bench names the allocator it ran under.
"""

from __future__ import annotations

import os
import sys
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
