"""``amend sandbox``: run the booking API alone, for curl and other clients."""

from __future__ import annotations

import json

import click


@click.group()
def sandbox() -> None:
    """The sandbox booking API (FastAPI + SQLite) the agent books visits in."""


@sandbox.command()
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port on 127.0.0.1 (0 = any free port).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite file (created if missing) or postgresql://user@host:port/database. "
                   "Default: a temporary SQLite file.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="uvicorn worker processes sharing the database (more than 1 needs "
                   "--db postgresql://...).")
@click.option("--test-mode", is_flag=True,
              help="Enable /admin (token minting, seeding, reset) and fault injection.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for refs and faults.")
@click.option("--fault", "faults", multiple=True, metavar="JSON",
              help='A fault rule, e.g. \'{"op": "create_booking", "delay_ms": 1500}\' '
                   "(repeatable; needs --test-mode).")
@click.option("--caller", metavar="TENANT/SUBJECT/ACCOUNT", default=None,
              help="Mint and print a caller token for this subject (needs --test-mode).")
@click.option("--capacity", type=click.IntRange(0), default=4, show_default=True,
              help="Places per (date, window) unless /admin/slots sets another.")
def serve(port: int, db_path: str | None, workers: int, test_mode: bool, seed: int,
          faults: tuple[str, ...], caller: str | None, capacity: int) -> None:
    """Serve the API on 127.0.0.1 until Ctrl-C. OpenAPI at /openapi.json, docs at /docs."""
    from agent.core.errors import InvalidInput
    from tools_sandbox.server import serve_in_background
    from tools_sandbox.service import SandboxConfig
    from tools_sandbox.store import is_postgres

    if (faults or caller) and not test_mode:
        raise click.UsageError("--fault and --caller need --test-mode")
    try:
        rules = [json.loads(f) for f in faults]
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--fault") from None
    parts = caller.split("/") if caller else None
    if parts is not None and (len(parts) != 3 or not all(parts)):
        raise click.BadParameter("use TENANT/SUBJECT/ACCOUNT, e.g. acme/tech-17/ACME-001",
                                 param_hint="--caller")
    config = SandboxConfig(testing=test_mode, default_capacity=capacity, seed=seed)
    if workers > 1:
        if not is_postgres(db_path):
            raise click.UsageError("--workers above 1 needs --db postgresql://...: a SQLite "
                                   "file is written by one process (see docs/postgresql.md)")
        _serve_workers(db_path or "", workers, config, rules, port,
                       tuple(parts) if parts else None)  # type: ignore[arg-type]
        return
    try:
        handle = serve_in_background(db_path, rules, seed, config, port=port)
    except InvalidInput as exc:
        hint = "--db" if is_postgres(db_path) and "PostgreSQL" in str(exc) else "--fault"
        raise click.BadParameter(str(exc), param_hint=hint) from None
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; "
                                   "pick another --port") from None
    click.echo(f"sandbox listening on {handle.base_url}  (OpenAPI: {handle.base_url}"
               "/openapi.json)")
    if parts:
        click.echo(f"caller token for {caller}: {handle.admin.mint(*parts)}")
    try:
        handle._thread.join()
    except KeyboardInterrupt:
        click.echo("stopping")
    finally:
        handle.stop()


def _serve_workers(db: str, workers: int, config, rules: list, port: int,
                   caller: tuple[str, str, str] | None) -> None:
    from agent.core.errors import InvalidInput
    from tools_sandbox.workers import serve_workers

    try:
        serve_workers(db, workers, config, rules, port, caller, click.echo)
    except InvalidInput as exc:
        hint = "--db" if "PostgreSQL" in str(exc) else "--fault"
        raise click.BadParameter(str(exc), param_hint=hint) from None
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; "
                                   "pick another --port") from None
