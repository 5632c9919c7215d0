"""``amend call``: run scripted test calls (docs/call-scripts.md) against isolated worlds.

This is the composition side of the runner: :func:`world_factory` adapts
``ui.bootstrap.open_world`` (fresh sandbox, fresh registry, fixed clock, a new controller)
to the runner's :class:`~audio.calls.world.CallWorld`. Side effects: one sandbox and one
registry database per call (deleted afterwards), ``--report`` and ``--artifacts`` files.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import click

from ui.llm_proposer import ProposerSettings, proposer_options


class BootstrapWorld:
    """A ``ui.bootstrap.World`` and its controller, seen as the runner's CallWorld.

    The sandbox's refs of seeded bookings are shown under the script's ``ref`` handles, so
    expectations can name them. Admin reads run in a thread: the client is synchronous.
    """

    def __init__(self, world, conversation):
        self.world = world
        self._conversation = conversation
        self._handles = {ref: handle for handle, ref in world.refs.items()}

    @property
    def conversation(self):
        return self._conversation

    def _named(self, record: dict[str, Any], key: str) -> dict[str, Any]:
        if record.get(key) in self._handles:
            record = dict(record, **{key: self._handles[record[key]]})
        return record

    def _own(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """This call's rows. In a sandbox shared by many calls the call is a tenant of its
        own; its rows are shown under the caller's real tenant, as a private sandbox would."""
        tenant = getattr(self.world.sandbox, "tenant", None)
        if tenant is None:
            return rows
        return [dict(r, tenant=self.world.caller.tenant) for r in rows
                if r.get("tenant") == tenant]

    async def bookings(self) -> list[dict[str, Any]]:
        import asyncio

        rows = await asyncio.to_thread(self.world.sandbox.admin.bookings)
        return [self._named(r, "ref") for r in self._own(rows)]

    async def notifications(self) -> list[dict[str, Any]]:
        import asyncio

        rows = await asyncio.to_thread(self.world.sandbox.admin.notifications)
        return [self._named(r, "booking_ref") for r in self._own(rows)]

    async def staff_edit(self, ref: str, changes: dict[str, Any]) -> None:
        import asyncio

        await asyncio.to_thread(self.world.staff_edit, ref, _typed(changes))

    def meta(self) -> dict[str, Any]:
        return {"tool_schema_version": _schema_version(self.world.sandbox.base_url)}


def _typed(record: dict[str, Any]) -> dict[str, Any]:
    """Script values are ISO text; the sandbox wants whole numbers for these keys."""
    return {k: int(v) if k in ("units", "version") and v is not None else v
            for k, v in record.items()}


def _schema_version(base_url: str) -> str:
    """The running booking API's published version (its OpenAPI ``info.version``)."""
    import httpx

    try:
        info = httpx.get(f"{base_url}/openapi.json", timeout=5.0).json()["info"]
    except (httpx.HTTPError, KeyError, ValueError):
        return "unknown"
    return f"{info.get('title', 'sandbox')} {info.get('version', '?')}"


def world_factory(spec, sink, trace, proposer=None, shared=None):
    """The runner's world factory over ``ui.bootstrap.open_world`` (one per call).
    ``proposer`` reads the call's turns (default: the process's rule proposer); ``shared``
    (``ui.bootstrap.SharedSystems``): the sandbox and registry many agent processes share."""

    @contextlib.asynccontextmanager
    async def build():
        from ui.bootstrap import open_world

        bookings = [_typed(b) for b in spec.booking_dicts()]
        async with open_world(caller=spec.caller, clock=spec.clock, registry=spec.registry,
                              sandbox_faults=spec.fault_dicts(), bookings=bookings,
                              proposer=proposer, shared=shared) as world:
            controller = world.controller(sink, trace, faults=spec.agent_faults)
            yield BootstrapWorld(world, controller)

    return build()


def _provide_bench_world() -> None:
    """``amend bench --only audio`` times voice-to-voice in the world ``amend call`` builds;
    ``audio`` may not import ``ui``, so the composition root hands it over (side effect)."""
    from audio import bench_v2v

    bench_v2v.provide_world(world_factory)


_provide_bench_world()


def mode_factory(mode: str, verify_heard: bool = False):
    """The CallMode factory for ``--mode``. Audio mode comes from ``audio.audio_mode``."""
    if mode == "text":
        from audio.calls.mode import TextMode

        return TextMode
    try:
        from audio import audio_mode
    except ImportError:
        raise click.UsageError("audio mode is not available in this build yet; "
                               "run with --mode text") from None
    return audio_mode.mode_factory(verify_heard=verify_heard)


def expand(paths: tuple[str, ...]) -> list[str]:
    """Files as given; a directory stands for its ``*.yaml`` scripts in name order."""
    out: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out += [str(p) for p in sorted(path.glob("*.yaml"))]
        else:
            out.append(raw)
    return out


@click.command("call")
@click.argument("scripts", nargs=-1, required=True)
@click.option("--mode", type=click.Choice(["text", "audio"]), default="audio",
              show_default=True, help="Final transcripts (text) or real speech (audio).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help="Write the JSON report here.")
@click.option("--artifacts", "artifacts_dir", type=click.Path(file_okay=False),
              help="Write one folder of evidence per call here: transcripts.txt (what the "
                   "agent heard), heard.txt (what it said, and where it was cut), trace.jsonl, "
                   "fields.json, bookings.json, notifications.json, output.wav, timeline.png "
                   "(docs/call-scripts.md).")
@click.option("--concurrency", "-j", default=1, show_default=True, type=click.IntRange(1, 16),
              help="Calls run at the same time (each in its own world).")
@click.option("--verify-heard", is_flag=True, help="Audio mode: also transcribe output.wav.")
@click.option("--agents", type=click.IntRange(1, 16), default=None,
              help="Run the calls in this many agent processes that share one sandbox and "
                   "registry on --db (docs/postgresql.md).")
@click.option("--db", default=None, metavar="postgresql://...",
              help="With --agents: the PostgreSQL database the agents' sandbox and registry "
                   "share.")
@proposer_options
def call(scripts: tuple[str, ...], mode: str, report_path: str | None,
         artifacts_dir: str | None, concurrency: int, verify_heard: bool,
         agents: int | None, db: str | None, proposer_settings: ProposerSettings) -> None:
    """Run scripted calls and judge them on the system of record.

    Exit status: 0 every call passed, 1 any call failed, 2 none failed but some were invalid.
    """
    import asyncio
    import json
    import os
    from datetime import UTC, datetime

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from audio.calls.report import build_report, exit_code, print_summary

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    paths = expand(scripts)
    if not paths:
        raise click.UsageError("no scripts found in " + ", ".join(scripts))
    if (agents is None) != (db is None):
        raise click.UsageError("--agents and --db go together: N agent processes share the "
                               "sandbox and registry on one PostgreSQL database")
    if db is not None and not db.startswith(("postgresql://", "postgres://")):
        raise click.BadParameter(f"{db!r} is not a PostgreSQL URL; give "
                                 "postgresql://user@host:port/database", param_hint="--db")
    base = mode_factory(mode, verify_heard)
    modes: list[Any] = []

    def factory(trace):  # keeps the modes built, so the report can state their STT and TTS
        built = base(trace)
        modes.append(built)
        return built

    console = Console(stderr=True)
    started = datetime.now(UTC)
    with Progress(TextColumn("[bold]calls"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True) as progress:
        bar = progress.add_task("calls", total=len(paths))
        artifacts = Path(artifacts_dir) if artifacts_dir else None
        if agents is not None and db is not None:
            from ui.agents import run_on_agents

            results, skipped, described = run_on_agents(
                paths, mode, agents=agents, concurrency=concurrency, db=db,
                artifacts=artifacts, settings=proposer_settings, verify_heard=verify_heard,
                on_done=lambda: progress.advance(bar), agent_main=agent_main)
            modes.extend(_Described(described) for _ in [0] if described)
        else:
            results, skipped = asyncio.run(_run_calls(
                proposer_settings, paths, mode, factory, artifacts=artifacts,
                concurrency=concurrency, on_done=lambda _result: progress.advance(bar)))
    print_summary(results, Console(), skipped)
    if report_path:
        meta = {"build": _build(), "proposer": proposer_settings.describe()}
        meta.update(next((r.evidence.world_meta for r in results
                          if r.evidence is not None and r.evidence.world_meta), {}))
        meta.update(modes[0].meta() if modes else {"stt": "n/a (no call ran)",
                                                   "tts": "n/a (no call ran)"})
        report = build_report(results, mode, meta, started, skipped)
        Path(report_path).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    raise SystemExit(exit_code(results))


async def _run_calls(settings: ProposerSettings, paths: list[str], mode: str, mode_factory,
                     shared=None, **options):
    """``audio.calls.runner.run_calls`` with every call's turns read by the proposer the
    settings choose (one for the whole run; its model client is closed at the end), in
    worlds of their own or in ``shared`` systems (``ui.bootstrap.SharedSystems``)."""
    import functools

    from audio.calls.runner import run_calls
    from ui.bootstrap import rule_proposer
    from ui.llm_proposer import open_proposer

    async with open_proposer(settings, rule_proposer()) as proposer:
        worlds = functools.partial(world_factory, proposer=proposer, shared=shared)
        return await run_calls(paths, mode, worlds, mode_factory, **options)


def agent_main(n: int, paths: list[str], mode: str, concurrency: int, shared,
               artifacts: Path | None, settings: ProposerSettings, verify_heard: bool,
               events) -> None:
    """Agent process ``n`` of ``amend call --agents`` (``ui.agents``): run its scripts in the
    shared systems; report each finished call on ``events``, then its results."""
    import asyncio
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if mode == "audio":  # load the models first: a call's first turn must not pay for it
        from audio import services

        services.warm()
    base = mode_factory(mode, verify_heard)
    modes: list[Any] = []

    def factory(trace):
        built = base(trace)
        modes.append(built)
        return built

    results, skipped = asyncio.run(_run_calls(
        settings, paths, mode, factory, artifacts=artifacts, concurrency=concurrency,
        on_done=lambda _result: events.put(("call", n, None)), shared=shared))
    events.put(("results", n, (results, skipped, modes[0].meta() if modes else None)))


class _Described:
    """The speech models an agent process described, for the report's meta."""

    def __init__(self, described: dict):
        self._described = described

    def meta(self) -> dict:
        return self._described


def _build() -> str:
    import subprocess

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5, cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev.stdout.strip() or "unknown"
