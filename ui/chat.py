"""``amend chat``: the same controller in a terminal, typed turns instead of speech.

An embedded sandbox (127.0.0.1) and registry are started for the session. Ledger changes, action
transitions and invalidated generations are printed inline, so you can watch a correction become
a revision and a stale action die. Slash commands inspect and poke the world (``/help``).

When standard input is not a terminal, each line is one turn (or command); the session ends at
the end of input, once the agent is idle, so a session can be scripted and recorded.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from ui.llm_proposer import ProposerSettings, proposer_options

HELP = """\
/ledger                  the accepted fields (value, status, version, revision, source)
/actions                 every action (op, status, based_on_revision, idempotency key)
/trace [N]               the last N trace events (default 15)
/bookings                the caller's bookings in the sandbox (the system of record)
/faults op=OP k=v ...    inject a sandbox fault, e.g. /faults op=create_booking delay_ms=1500
/faults clear            remove every fault
/staff REF field=value   edit a booking as staff would (bumps its version)
/wait                    wait until no action or retrieval is in flight
/help                    this text
/quit                    end the session"""


@click.command("chat")
@click.option("--caller", "caller_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Caller YAML (a call script's caller: block). Default: the demo caller.")
@click.option("--registry", default="default", show_default=True,
              help="'default' (the demo registry) or a registry YAML file.")
@click.option("--clock", help="Fix the agent's now, RFC 3339 with offset "
              "(e.g. 2026-12-01T09:00:00+01:00). Default: the system clock.")
@click.option("--debug", is_flag=True, help="Show field values in /trace (else hashed).")
@proposer_options
def chat(caller_file: Path | None, registry: str, clock: str | None, debug: bool,
         proposer_settings: ProposerSettings) -> None:
    """Talk to the agent in a terminal, with an embedded sandbox and registry."""
    from agent.core.errors import InvalidInput
    from ui.bootstrap import DEFAULT_CALLER, fixed_clock, load_caller

    try:
        caller = load_caller(caller_file) if caller_file else DEFAULT_CALLER
        the_clock = fixed_clock(clock) if clock else None
        asyncio.run(_session(caller, registry, the_clock, debug, sys.stdin.isatty(),
                             proposer_settings))
    except InvalidInput as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("\nbye")


async def _session(caller, registry: str, clock, debug: bool, interactive: bool,
                   settings: ProposerSettings | None = None) -> None:
    from rich.console import Console
    from rich.markup import escape

    from agent.core.clock import SystemClock
    from agent.core.trace import Trace
    from ui.bootstrap import open_world, rule_proposer
    from ui.chat_view import ChatView
    from ui.llm_proposer import open_proposer

    console = Console(highlight=False)
    settings = settings or ProposerSettings()
    clock = clock or SystemClock()
    async with open_proposer(settings, rule_proposer(clock.now())) as proposer, \
            open_world(caller=caller, clock=clock, registry=registry,
                       proposer=proposer) as world:
        trace = Trace(debug=debug)
        view = ChatView(console, trace)
        controller = world.controller(view, trace)
        view.attach(controller)
        console.print(f"[dim]amend chat: caller {caller.subject} ({caller.tenant}, account "
                      f"{caller.account}); sandbox {world.sandbox.base_url}; "
                      f"{escape(settings.describe())}; /help for commands[/dim]")
        await controller.start()
        try:
            while True:
                line = await _read(interactive)
                if line is None:
                    break
                line = line.strip()
                if not line:
                    continue
                if not interactive:
                    console.print(f"[bold]you>[/bold] {escape(line)}")
                if line.startswith("/"):
                    if not await _command(line, view, controller, world):
                        break
                    continue
                from agent.core.speech import Utterance

                await controller.user_turn(Utterance(line))
            await asyncio.wait_for(controller.wait_idle(), 60)
        finally:
            await controller.close()


async def _read(interactive: bool) -> str | None:
    if interactive:
        try:
            return await asyncio.to_thread(input, "you> ")
        except EOFError:
            return None
    line = await asyncio.to_thread(sys.stdin.readline)
    return line if line else None


async def _command(line: str, view, controller, world) -> bool:
    """Run one slash command. Returns False to end the session."""
    name, _, rest = line.partition(" ")
    args = rest.split()
    if name in ("/quit", "/exit"):
        return False
    if name == "/help":
        view.console.print(HELP)
    elif name == "/ledger":
        view.print_ledger()
    elif name == "/actions":
        view.print_actions()
    elif name == "/trace":
        view.print_trace(int(args[0]) if args and args[0].isdigit() else 15)
    elif name == "/bookings":
        view.print_bookings(await asyncio.to_thread(world.sandbox.admin.bookings))
    elif name == "/wait":
        await controller.wait_idle()
        view.console.print("[dim](idle)[/dim]")
    elif name == "/faults":
        _faults(args, view, world)
    elif name == "/staff":
        await _staff(args, view, world)
    else:
        view.console.print(f"[red]unknown command {name}; /help lists them[/red]")
    return True


def _pairs(args: list[str]) -> dict[str, object] | str:
    out: dict[str, object] = {}
    for item in args:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            return f"{item!r}: write key=value"
        out[key] = int(value) if value.isdigit() else (
            value.lower() == "true" if value.lower() in ("true", "false") else value)
    return out


def _faults(args: list[str], view, world) -> None:
    from agent.core.errors import InvalidInput

    if args == ["clear"]:
        world.set_faults([])
        view.console.print("[dim](faults cleared)[/dim]")
        return
    rule = _pairs(args)
    if isinstance(rule, str) or "op" not in rule:
        view.console.print(f"[red]/faults: {rule if isinstance(rule, str) else 'op= is required'}"
                           "; e.g. /faults op=create_booking delay_ms=1500[/red]")
        return
    try:
        world.sandbox.faults.add(rule)
    except (InvalidInput, ValueError, TypeError) as exc:
        view.console.print(f"[red]/faults: {exc}[/red]")
        return
    view.console.print(f"[dim](fault added: {rule})[/dim]")


async def _staff(args: list[str], view, world) -> None:
    changes = _pairs(args[1:]) if args else "give a booking ref"
    if not args or isinstance(changes, str) or not changes:
        view.console.print("[red]/staff: write /staff REF field=value, e.g. /staff B-1 "
                           "window=morning[/red]")
        return
    try:
        record = await asyncio.to_thread(world.staff_edit, args[0], changes)
    except Exception as exc:  # noqa: BLE001 - one line for the user, the session goes on
        view.console.print(f"[red]/staff {args[0]}: {exc}[/red]")
        return
    view.console.print(f"[magenta]staff edited {args[0]}: now version "
                       f"{record.get('version')}[/magenta]")
