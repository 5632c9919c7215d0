"""``amend demo``: the browser demo in one process (page, voice socket, sandbox, registry).

Binds 127.0.0.1 by default: the microphone needs a secure context, which only loopback gives
over plain HTTP, and the demo has no authentication. Another address needs ``--allow-remote``.
Heavy imports stay inside the command so ``amend --help`` stays fast.
"""

from __future__ import annotations

import ipaddress

import click

from ui.demo_build import WS_MAX_SIZE, DemoOptions, build_demo, quiet_shutdown_logs, url_of
from ui.llm_proposer import ProposerSettings, proposer_options

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
@click.option("--workers", default=None, type=click.IntRange(1, 32),
              help="Agent processes behind the one port, sharing one sandbox and registry; "
                   "each browser stays on one of them (docs/postgresql.md, 'Many agents'). "
                   "Without it: one process, every tab with systems of its own.")
@click.option("--db", metavar="postgresql://...", help="The PostgreSQL database whose sandbox "
              "and registry every process shares (default with --workers: SQLite files in a "
              "temporary folder).")
@click.option("--max-sessions", default=8, show_default=True, type=click.IntRange(1, 1000),
              help="Simultaneous voice calls (per process with --workers); past it a new "
                   "tab is told the demo is busy and no pipeline is built.")
@proposer_options
def demo(host: str, port: int, allow_remote: bool, personas_file: str | None,
         clock_text: str | None, no_warm: bool, workers: int | None, db: str | None,
         max_sessions: int, proposer_settings: ProposerSettings) -> None:
    """Start the browser demo: talk or type to the agent and watch every revision."""
    from rich.console import Console

    from agent.core.errors import AmendError
    from audio.models import SettingError
    from audio.whisper_host import whisper_process_setting
    from ui.allocator import chosen_library, describe, start_under
    from ui.demo_build import mmap_threshold_setting

    try:  # first of all: start again under the allocator AMEND_MALLOC chooses (ui/allocator.py)
        start_under(chosen_library())
        mmap_threshold_setting()  # a bad AMEND_MMAP_THRESHOLD is said now (ui/demo_build.py)
        whisper_process_setting()  # and a bad AMEND_WHISPER_PROCESS (audio/whisper_host.py)
    except (AmendError, SettingError) as exc:
        raise click.ClickException(str(exc)) from None
    console = Console(stderr=True)
    if not _is_loopback(host):
        if not allow_remote:
            raise click.UsageError(f"--host {host} is not loopback; the demo has no "
                                   "authentication. Add --allow-remote if you mean it.")
        console.print(f"[bold red]warning:[/] serving on {host}: anyone who can reach it can "
                      "use this demo, and browsers allow the microphone only over HTTPS there.")
    if db is not None:
        from ui.agents import check_database

        check_database(db)
    options = DemoOptions(personas_file, clock_text, no_warm, proposer_settings, max_sessions)
    console.print(f"[dim]{describe()}[/]")
    try:
        if workers is not None or db:
            from ui.demo_workers import serve_workers

            serve_workers(console, host, port, workers or 1, db, options)
        else:
            _serve(console, host, port, options)
    except AmendError as exc:
        raise click.ClickException(str(exc)) from None


def _serve(console, host: str, port: int, options: DemoOptions) -> None:
    import uvicorn
    from rich.markup import escape

    app, hub = build_demo(console, options)
    console.print(f"[bold green]Amend demo:[/] {url_of(host, port)}  (Ctrl-C stops it; "
                  f"{escape(options.settings.describe())})")
    quiet_shutdown_logs()
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3,
                ws_max_size=WS_MAX_SIZE, ws_per_message_deflate=False)
    # The app's shutdown closed every tab's world (sandbox threads, temporary databases).
    console.print(f"stopped; {len(hub)} sessions left open.")


