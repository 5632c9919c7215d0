"""The ``amend`` command line.

Each package contributes its own click command or group; this module only assembles them, so
``amend --help`` lists exactly the commands whose modules exist and import.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import click

# Offline by construction: nothing may reach for a model hub or phone home.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

# (module, attribute): a click command or group each. Missing modules are simply not listed.
COMMANDS = (
    ("registry.cli", "registry"),
    ("ui.retrieve_cli", "retrieve"),
    ("tools_sandbox.cli", "sandbox"),
    ("ui.chat", "chat"),
    ("ui.call_cli", "call"),
    ("ui.app_cli", "demo"),
    ("ui.llm_proposer", "proposer"),
    ("ui.nlu_eval", "eval_nlu"),
)

# Modules whose import registers benchmark figures with agent.bench.
BENCH_MODULES = (
    "ui.bench_core",
    "ui.bench_nlu",
    "registry.bench",
    "retrieval.bench",
    "tools_sandbox.bench",
    "audio.bench",
    "audio.bench_memory",
    "ui.bench_controller",
    "ui.bench_agents",
    "ui.bench_proxy",
    "ui.bench_soak",
)


def _optional_import(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


class _Amend(click.Group):
    """Every command: a missing speech model or a bad speech setting is a one-line error
    naming what to fix (exit 1), never a traceback."""

    def invoke(self, ctx: click.Context):
        from audio.models import SETUP_ERRORS

        try:
            return super().invoke(ctx)
        except SETUP_ERRORS as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Amend, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="amend")
def main() -> None:
    """Amend: a voice agent that gets corrections right. Runs fully offline."""


@main.command()
@click.option("--quick", is_flag=True, help="Smaller sizes and fewer repetitions.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--only", multiple=True, help="Run only these benchmark groups (repeatable).")
@click.option("--db", default=None, metavar="postgresql://...",
              help="Run the sandbox, registry, retrieval and agents groups on this PostgreSQL "
                   "database (default: their embedded SQLite; agents: a throwaway cluster).")
@click.option("--minutes", type=click.FloatRange(0.1, 24 * 60), default=None,
              help="How long the soak group runs (default 3; --quick 1).")
@click.option("--sessions", type=click.IntRange(1, 64), default=None,
              help="How many browsers the soak group plays (default 4; --quick 2).")
@click.option("--evidence", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIRECTORY",
              help="Write the turns behind the figures here, one JSON line a turn "
                   "(the trust group: trust-<set>.jsonl, each turn's transcript, verdict and "
                   "the values accepted without a check).")
@click.option("--replay", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, metavar="DIRECTORY",
              help="The trust group judges again the turns an --evidence run wrote here, with "
                   "the rules as they are now, without recognising them again (seconds, not "
                   "an hour).")
def bench(quick: bool, as_json: bool, only: tuple[str, ...], db: str | None,
          minutes: float | None, sessions: int | None, evidence: Path | None,
          replay: Path | None) -> None:
    """Run every registered benchmark and print one table of figures."""
    from rich.console import Console
    from rich.table import Table

    from agent.bench import BenchInputError, BenchRow, registered, set_option

    if db is not None:
        from ui.agents import check_database

        check_database(db)
    set_option("db", db)
    set_option("soak_minutes", None if minutes is None else str(minutes))
    set_option("soak_sessions", None if sessions is None else str(sessions))
    if evidence is not None:
        try:
            evidence.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.BadParameter(
                f"cannot create the folder {evidence}: {exc.strerror}; name a folder you can "
                "write to", param_hint="--evidence") from None
    set_option("evidence", None if evidence is None else str(evidence))
    set_option("replay", None if replay is None else str(replay))

    for name in BENCH_MODULES:
        _optional_import(name)
    groups = registered()
    unknown = set(only) - set(groups)
    if unknown:
        raise click.UsageError(
            f"unknown benchmark group(s): {', '.join(sorted(unknown))}; "
            f"choose from {', '.join(sorted(groups))}")
    console = Console(stderr=True)
    rows: list[tuple[str, BenchRow]] = []  # (group, row)
    for name, fn in groups.items():
        if only and name not in only:
            continue
        with console.status(f"running {name} ..."):
            try:
                rows.extend((name, row) for row in fn(quick))
            except BenchInputError as exc:
                raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps([{"group": g, "figure": r.figure, "value": r.value,
                                "unit": r.unit, "target": r.target, "command": r.command}
                               for g, r in rows], indent=1))
        return
    table = Table(title="amend bench" + (" --quick" if quick else ""))
    for column in ("group", "figure", "value", "unit", "target", "command"):
        table.add_column(column, overflow="fold")
    for group, row in rows:
        value = f"{row.value:.3g}" if isinstance(row.value, float) else str(row.value)
        table.add_row(group, row.figure, value, row.unit, row.target, row.command)
    Console().print(table)


for _module, _attr in COMMANDS:
    _mod = _optional_import(_module)
    if _mod is not None:
        main.add_command(getattr(_mod, _attr))


if __name__ == "__main__":
    main()
