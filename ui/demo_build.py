"""What one demo process is built from, shared by ``amend demo`` and ``--workers``.

:func:`build_demo` makes one process's app: the session hub (a world per tab, or a tenant of
its own in shared systems), the voice websocket and Gradio. Heavy imports stay inside the
functions so ``amend --help`` stays fast.
"""

from __future__ import annotations

import asyncio
import ctypes
from dataclasses import dataclass, field

from ui.llm_proposer import ProposerSettings


def quiet_pipeline_logs() -> None:
    """pipecat logs every frame at DEBUG through loguru; the demo's console shows warnings."""
    import sys

    try:
        from loguru import logger
    except ImportError:
        return
    logger.remove()
    logger.add(sys.stderr, level="WARNING")


def _quiet_cancelled_at_shutdown(record) -> bool:
    """Drop uvicorn's report of streams it cancelled on purpose after Ctrl-C."""
    exc = record.exc_info[1] if record.exc_info else None
    if isinstance(exc, asyncio.CancelledError):
        return False
    return "timeout graceful shutdown exceeded" not in record.getMessage()


def _voice_router(hub, console, max_sessions: int = 8):
    """The voice websocket from ``audio.browser``, or None (typed turns only) with a reason."""
    quiet_pipeline_logs()
    try:
        from audio.browser import make_voice_router
    except ImportError as exc:
        console.print(f"[yellow]voice: unavailable ({exc}); typed turns still work[/]")
        return None
    with console.status("starting the voice link ..."):
        return make_voice_router(hub.voice_session, on_close=hub.voice_closed,
                                 max_sessions=max_sessions)


def _warm(console, label: str = "") -> None:
    """Load Whisper and Piper once, visibly, so the first turn pays no load time."""
    try:
        from audio import services
    except ImportError:
        return
    with console.status("warming speech models (Whisper, Piper) ..."):
        report = services.warm()
    console.print(f"{label}models ready: Whisper {report.whisper_secs:.1f} s, "
                  f"Piper {report.piper_secs:.1f} s")


@dataclass(frozen=True)
class DemoOptions:
    """What every demo process is built from (picklable: ``--workers`` sends it to each)."""

    personas_file: str | None = None
    clock_text: str | None = None
    no_warm: bool = False
    settings: ProposerSettings = field(default_factory=ProposerSettings)
    max_sessions: int = 8  # simultaneous voice links per process (audio.browser)


# glibc's malloc arenas in a demo process (limit_malloc_arenas).
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter, from glibc's malloc.h


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """At most ``arenas`` glibc malloc arenas from now on in this process (side effect:
    ``mallopt(M_ARENA_MAX)``); False where the C library has no such setting (macOS, musl).

    glibc gives each thread that allocates an arena of its own, up to eight per core, and
    memory freed in one arena serves only the threads on it. A demo process allocates from a
    dozen threads (each call's VAD, Smart Turn and output threads, Whisper's workers, the
    executor), so freed memory piled up, resident, in arenas other threads did not use:
    ``amend bench --only soak`` (4 browsers, 10 min) ran about 100 MiB lower with two arenas
    (README, issue 19)."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    return mallopt is not None and mallopt(_M_ARENA_MAX, arenas) == 1


def build_demo(console, options: DemoOptions, shared=None, label: str = ""):
    """One demo process's app and its session hub (side effect: at most MALLOC_ARENAS malloc
    arenas in this process). ``shared``: a :class:`ui.bootstrap.SharedSystems` every tab is
    a tenant of (``--workers``, ``--db``)."""
    from ui.allocator import MemoryTrimmer
    from ui.app import build_app
    from ui.bootstrap import fixed_clock, rule_proposer
    from ui.demo_world import world_builder
    from ui.llm_proposer import make_proposer
    from ui.personas import DEFAULT_PATH, load_personas
    from ui.scripted import ScriptRunner
    from ui.session_hub import SessionHub

    limit_malloc_arenas()  # before the speech models and the calls' threads allocate
    personas = load_personas(options.personas_file or DEFAULT_PATH)
    clock = fixed_clock(options.clock_text) if options.clock_text else None
    # One proposer for every tab; a model's HTTP client lives as long as the process.
    proposer = make_proposer(options.settings, rule_proposer(clock.now() if clock else None))
    hub = SessionHub(world_builder(clock, proposer=proposer, shared=shared), personas)
    if not options.no_warm:
        _warm(console, label)
    router = _voice_router(hub, console, options.max_sessions)
    return build_app(hub, router, ScriptRunner(), MemoryTrimmer()), hub


def quiet_shutdown_logs() -> None:
    """An open browser keeps its voice socket and Gradio stream: uvicorn gives connections
    3 s, then cancels them; a cancelled stream at shutdown is expected, not an error."""
    import logging

    logging.getLogger("uvicorn.error").addFilter(_quiet_cancelled_at_shutdown)


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


# The voice link's own bound refuses an audio message over 500 ms (16000 bytes); uvicorn need
# not read more than this before it closes a socket, and PCM audio does not compress: no
# per-message deflate (about 300 KB of zlib state per connection).
WS_MAX_SIZE = 1 << 20  # bytes; pass with ws_per_message_deflate=False
