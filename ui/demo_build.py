"""What one demo process is built from, shared by ``amend demo`` and ``--workers``.

:func:`build_demo` makes one process's app: the session hub (a world per tab, or a tenant of
its own in shared systems), the voice websocket and Gradio. Heavy imports stay inside the
functions so ``amend --help`` stays fast.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
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


def _recognise_apart() -> None:
    """Whisper in a process of its own unless AMEND_WHISPER_PROCESS=0 (audio/whisper_host.py:
    its buffers then never fragment this process's heap)."""
    try:
        from audio import services
        from audio.whisper_host import whisper_process_setting
    except ImportError:
        return
    if whisper_process_setting():
        services.use_whisper_process(True)


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


# glibc's malloc in a demo process (tune_malloc): two arenas; and every block of
# MMAP_THRESHOLD bytes or more mapped on its own and handed back to the system when freed,
# where glibc would raise its threshold as large blocks are freed and then carve them out of
# the arenas, between small objects that outlive them. AMEND_MMAP_THRESHOLD sets another
# size, or 0 for glibc's own. The fixed threshold costs nothing measurable once Whisper runs
# in a process of its own (audio/whisper_host.py, the default); in the demo's own process
# (AMEND_WHISPER_PROCESS=0) it would make every Whisper run 2.4 times slower, so there the
# default is glibc's own (README, issue 19).
MALLOC_ARENAS = 2
MMAP_THRESHOLD = 128 << 10
MMAP_THRESHOLD_WHISPER_HERE = 0  # the default when Whisper runs in the demo's process
MMAP_THRESHOLD_ENV = "AMEND_MMAP_THRESHOLD"
_M_ARENA_MAX = -8  # mallopt's parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3


def mmap_threshold_setting(environ: dict[str, str] | None = None) -> int:
    """The mmap threshold a demo process sets: AMEND_MMAP_THRESHOLD (bytes; 0: glibc's own),
    else MMAP_THRESHOLD, or MMAP_THRESHOLD_WHISPER_HERE when Whisper runs in the demo's
    process (AMEND_WHISPER_PROCESS=0). Raises :class:`AmendError` for a value that is no
    size, and :class:`~audio.models.SettingError` for a bad AMEND_WHISPER_PROCESS."""
    from agent.core.errors import AmendError
    from audio.whisper_host import whisper_process_setting

    env = dict(os.environ) if environ is None else environ
    value = env.get(MMAP_THRESHOLD_ENV, "").strip()
    if not value:
        return MMAP_THRESHOLD if whisper_process_setting(env) else MMAP_THRESHOLD_WHISPER_HERE
    if not value.isdigit() or int(value) > 32 << 20:
        raise AmendError(f"{MMAP_THRESHOLD_ENV}={value}: give a size in bytes from 0 (glibc's "
                         f"own threshold) to {32 << 20} (32 MiB), for example 131072, or "
                         "unset it.")
    return int(value)


def tune_malloc(arenas: int = MALLOC_ARENAS, mmap_threshold: int | None = None) -> bool:
    """Set glibc's malloc up for a process that serves calls for hours (side effect:
    ``mallopt``); False where the C library has no such settings (macOS, musl).

    * At most ``arenas`` arenas. glibc gives each thread that allocates an arena of its own,
      up to eight per core, and memory freed in one arena serves only the threads on it; a
      demo process allocates from a dozen threads (each call's VAD, Smart Turn and output
      threads, Whisper's workers, the executor).
    * ``mmap_threshold`` (default: :func:`mmap_threshold_setting`; 0 leaves glibc's own). By
      default glibc raises its threshold to the size of any mapped block freed (up to 32 MiB),
      so after the first calls the calls' large buffers (Whisper's, a few hundred KiB to a
      few MiB each, when it runs here; Piper's; the turns' audio) come from the arenas,
      between small objects that outlive them: the arenas grow and keep the holes resident.
      A fixed threshold maps them on their own and hands them back when freed, at the price
      of mapping them afresh each time (which only Whisper feels: 2.4 times slower)."""
    threshold = mmap_threshold_setting() if mmap_threshold is None else mmap_threshold
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None or mallopt(_M_ARENA_MAX, arenas) != 1:
        return False
    return threshold == 0 or mallopt(_M_MMAP_THRESHOLD, threshold) == 1


def build_demo(console, options: DemoOptions, shared=None, label: str = ""):
    """One demo process's app and its session hub (side effect: glibc's malloc tuned for a
    long-running process, :func:`tune_malloc`). ``shared``: a
    :class:`ui.bootstrap.SharedSystems` every tab is a tenant of (``--workers``, ``--db``)."""
    from ui.allocator import MemoryTrimmer
    from ui.app import build_app
    from ui.bootstrap import fixed_clock, rule_proposer
    from ui.demo_world import world_builder
    from ui.llm_proposer import make_proposer
    from ui.personas import DEFAULT_PATH, load_personas
    from ui.scripted import ScriptRunner
    from ui.session_hub import SessionHub

    tune_malloc()  # before the speech models and the calls' threads allocate
    personas = load_personas(options.personas_file or DEFAULT_PATH)
    clock = fixed_clock(options.clock_text) if options.clock_text else None
    # One proposer for every tab; a model's HTTP client lives as long as the process.
    proposer = make_proposer(options.settings, rule_proposer(clock.now() if clock else None))
    hub = SessionHub(world_builder(clock, proposer=proposer, shared=shared), personas)
    _recognise_apart()
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
