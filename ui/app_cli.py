"""``amend demo``: the browser demo in one process (page, voice socket, sandbox, registry).

Binds 127.0.0.1 by default: the microphone needs a secure context, which only loopback gives
over plain HTTP, and the demo has no authentication. Another address needs ``--allow-remote``.
Heavy imports stay inside the command so ``amend --help`` stays fast.
"""

from __future__ import annotations

import asyncio
import ipaddress

import click

from ui.llm_proposer import ProposerSettings, proposer_options

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _quiet_pipeline_logs() -> None:
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


def _voice_router(hub, console):
    """The voice websocket from ``audio.browser``, or None (typed turns only) with a reason."""
    _quiet_pipeline_logs()
    try:
        from audio.browser import make_voice_router
    except ImportError as exc:
        console.print(f"[yellow]voice: unavailable ({exc}); typed turns still work[/]")
        return None
    with console.status("starting the voice link ..."):
        return make_voice_router(hub.voice_session, on_close=hub.voice_closed)


def _warm(console) -> None:
    """Load Whisper and Piper once, visibly, so the first turn pays no load time."""
    try:
        from audio import services
    except ImportError:
        return
    with console.status("warming speech models (Whisper, Piper) ..."):
        report = services.warm()
    console.print(f"models ready: Whisper {report.whisper_secs:.1f} s, "
                  f"Piper {report.piper_secs:.1f} s")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=7860, show_default=True, type=click.IntRange(1, 65535))
@click.option("--allow-remote", is_flag=True,
              help="Allow a non-loopback --host (no authentication; the mic needs HTTPS there).")
@click.option("--personas", "personas_file", type=click.Path(dir_okay=False),
              help="Caller personas YAML (default: ui/personas.yaml).")
@click.option("--clock", "clock_text", metavar="RFC3339",
              help='Fix the agent\'s "now", e.g. 2026-12-01T09:00:00+01:00 (default: real time).')
@click.option("--no-warm", is_flag=True, help="Skip loading the speech models at start.")
@proposer_options
def demo(host: str, port: int, allow_remote: bool, personas_file: str | None,
         clock_text: str | None, no_warm: bool, proposer_settings: ProposerSettings) -> None:
    """Start the browser demo: talk or type to the agent and watch every revision."""
    from rich.console import Console

    from agent.core.errors import AmendError

    console = Console(stderr=True)
    if not _is_loopback(host):
        if not allow_remote:
            raise click.UsageError(f"--host {host} is not loopback; the demo has no "
                                   "authentication. Add --allow-remote if you mean it.")
        console.print(f"[bold red]warning:[/] serving on {host}: anyone who can reach it can "
                      "use this demo, and browsers allow the microphone only over HTTPS there.")
    try:
        _serve(console, host, port, personas_file, clock_text, no_warm, proposer_settings)
    except AmendError as exc:
        raise click.ClickException(str(exc)) from None


def _serve(console, host: str, port: int, personas_file: str | None, clock_text: str | None,
           no_warm: bool, settings: ProposerSettings | None = None) -> None:
    import logging

    import uvicorn
    from rich.markup import escape

    from ui.app import build_app
    from ui.bootstrap import fixed_clock, rule_proposer
    from ui.demo_world import world_builder
    from ui.llm_proposer import make_proposer
    from ui.personas import DEFAULT_PATH, load_personas
    from ui.scripted import ScriptRunner
    from ui.session_hub import SessionHub

    personas = load_personas(personas_file or DEFAULT_PATH)
    clock = fixed_clock(clock_text) if clock_text else None
    settings = settings or ProposerSettings()
    # One proposer for every tab; a model's HTTP client lives as long as the process.
    proposer = make_proposer(settings, rule_proposer(clock.now() if clock else None))
    hub = SessionHub(world_builder(clock, proposer=proposer), personas)
    if not no_warm:
        _warm(console)
    app = build_app(hub, _voice_router(hub, console), ScriptRunner())
    shown = f"[{host}]" if ":" in host else host
    console.print(f"[bold green]Amend demo:[/] http://{shown}:{port}/  (Ctrl-C stops it; "
                  f"{escape(settings.describe())})")
    # An open browser keeps its voice socket and Gradio stream: give connections 3 s, then
    # cancel them (quietly: a cancelled stream at shutdown is expected, not an error).
    logging.getLogger("uvicorn.error").addFilter(_quiet_cancelled_at_shutdown)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)
    # The app's shutdown closed every tab's world (sandbox threads, temporary databases).
    console.print(f"stopped; {len(hub)} sessions left open.")

