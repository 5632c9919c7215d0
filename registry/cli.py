"""``amend registry import|validate|resolve|explain`` (docs/registry-format.md, "CLI").

Exit status: 0 when the command ran (whatever the resolution outcome), 1 for a rejected import
file or a validation error, 2 for bad arguments or a bad database. Errors are one line each on
stderr, never a traceback. Heavy imports stay inside the commands so ``amend --help`` is fast.
``--db`` takes a SQLite file path or a ``postgresql://`` URL (:mod:`registry.backend`).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import click


def default_db() -> Path:
    """``$AMEND_DATA_DIR/registry.db``, else ``~/.local/share/amend/registry.db``."""
    base = os.environ.get("AMEND_DATA_DIR")
    root = Path(base) if base else Path.home() / ".local" / "share" / "amend"
    return root / "registry.db"


class DatabaseTarget(click.ParamType):
    """``--db``: a ``postgresql://`` URL as given, else a file path checked as before."""

    name = "PATH|URL"
    _path = click.Path(dir_okay=False, path_type=Path)

    def convert(self, value, param, ctx):
        from registry.backend import is_url

        return value if is_url(value) else self._path.convert(value, param, ctx)


def _db_option(fn):
    return click.option("--db", "db", type=DatabaseTarget(), default=None,
                        help="Registry database: a file path or a postgresql:// URL "
                             "(default: app data dir).")(fn)


def _guarded(fn):
    """Turn registry and database errors into one line on stderr and the documented exit."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        from registry.backend import is_database_error, label_of, one_line
        from registry.errors import RegistryError, RejectedFile

        try:
            return fn(*args, **kwargs)
        except RejectedFile as exc:
            for problem in exc.problems:
                click.echo(f"error: {problem}", err=True)
            sys.exit(1)
        except RegistryError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except Exception as exc:
            if not is_database_error(exc):
                raise
            db = label_of(kwargs.get("db") or default_db())
            click.echo(f"error: {db}: the registry database cannot be read ({one_line(exc)}); "
                       f"restore it from a backup or pass another --db", err=True)
            sys.exit(2)

    return run


@click.group()
def registry() -> None:
    """The applicability registry: which document revision applies (docs/registry-format.md)."""


@registry.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@_db_option
@click.option("--json", "as_json", is_flag=True, help='Print {"snapshot": N, "revisions": K}.')
@_guarded
def import_(file: Path, db: str | Path | None, as_json: bool) -> None:
    """Import a registry YAML FILE atomically (a re-import of the same file is a no-op)."""
    from registry.store import import_path

    if db is None:
        db = default_db()
        db.parent.mkdir(parents=True, exist_ok=True)
    result = import_path(db, file)
    if as_json:
        click.echo(json.dumps(result.as_json()))
    elif result.changed:
        click.echo(f"imported {file}: snapshot {result.snapshot} ({result.new} new, "
                   f"{result.corrected} corrected, {result.revisions} in the file)")
    else:
        click.echo(f"{file}: nothing changed; snapshot stays {result.snapshot}")


@registry.command()
@_db_option
@click.option("--json", "as_json", is_flag=True, help="Print the findings as a JSON list.")
@_guarded
def validate(db: str | Path | None, as_json: bool) -> None:
    """Check the stored registry; list unresolved overlaps and gaps as findings."""
    from registry.findings import validate as run_validate
    from registry.resolver import Registry

    reg = Registry.open(db or default_db())
    try:
        findings = run_validate(reg)
    finally:
        reg.close()
    if as_json:
        click.echo(json.dumps([f.as_json() for f in findings], ensure_ascii=False))
    else:
        for f in findings:
            click.echo(f"{f.severity}: {f.kind}: {f.message}")
        if not findings:
            click.echo("no findings")
    if any(f.severity == "error" for f in findings):
        sys.exit(1)


def _query_options(fn):
    options = [
        click.option("--family", help="Document family, e.g. pump-seal."),
        click.option("--procedure", help="Procedure, e.g. seal-torque."),
        click.option("--configuration", help="Asset configuration (missing: MISSING_SCOPE)."),
        click.option("--region", help="Region (missing: MISSING_SCOPE)."),
        click.option("--at", help="Historical instant: a tick or an RFC 3339 instant."),
        click.option("--current", is_flag=True, help="Current mode (the default without --at)."),
        click.option("--now", help="Current mode: the instant taken as now (tick or RFC 3339)."),
        click.option("--language", default="en", show_default=True,
                     help="Requested language."),
        click.option("--known-at", type=int, help="Registry snapshot (default: latest)."),
        click.option("--tenant", default="*", show_default=True,
                     help='Caller tenant ("*": only revisions for every tenant).'),
        click.option("--roles", default="", help="Subject roles, comma-separated."),
        click.option("--auth-epoch", type=int, default=0, show_default=True,
                     help="The session's authorisation epoch (goes into the scope token)."),
        click.option("--field", "fields", multiple=True,
                     help="Accepted field for section conditions, NAME=VALUE (repeatable)."),
        _db_option,
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _build(kw: dict):
    from agent.core.ports import ResolutionQuery

    if kw["at"] is not None and (kw["current"] or kw["now"] is not None):
        raise click.UsageError("--at is historical; it cannot be combined with --current/--now")
    fields = []
    for item in kw["fields"]:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise click.UsageError(f"--field {item!r}: write NAME=VALUE, e.g. opened=yes")
        fields.append((name.strip(), value.strip()))
    historical = kw["at"] is not None
    return ResolutionQuery(
        tenant=kw["tenant"], roles=tuple(r.strip() for r in kw["roles"].split(",") if r.strip()),
        family=kw["family"], procedure=kw["procedure"], configuration=kw["configuration"],
        region=kw["region"], mode="historical" if historical else "current",
        at=kw["at"] if historical else kw["now"], language=kw["language"],
        known_at=kw["known_at"], auth_epoch=kw["auth_epoch"], fields=tuple(fields))


def _open(kw: dict):
    from registry.resolver import Registry

    return Registry.open(kw["db"] or default_db())


@registry.command()
@_query_options
@_guarded
def resolve(**kw) -> None:
    """Resolve the one applicable revision and edition (never names an unusable one)."""
    from registry.render import resolution_json, resolution_line

    query = _build(kw)
    reg = _open(kw)
    try:
        resolution = reg.resolve(query)
        sections = None
        if resolution.edition and query.fields:
            sections = reg.sections_for(resolution.edition, query.fields)
    finally:
        reg.close()
    if kw["as_json"]:
        click.echo(json.dumps(resolution_json(resolution, sections), ensure_ascii=False))
    else:
        click.echo(resolution_line(resolution, sections))


@registry.command()
@_query_options
@_guarded
def explain(**kw) -> None:
    """Operator tool: every candidate revision and why it was kept or dropped."""
    from registry.explain import explain as run_explain
    from registry.render import resolution_json, resolution_line

    query = _build(kw)
    reg = _open(kw)
    try:
        result = run_explain(reg, query)
    finally:
        reg.close()
    if kw["as_json"]:
        click.echo(json.dumps({"resolution": resolution_json(result.resolution),
                               "revisions": [{"revision": r.revision, "kind": r.kind,
                                              "status": r.status, "verdict": r.verdict.value,
                                              "step": r.step, "reason": r.reason}
                                             for r in result.rows]}, ensure_ascii=False))
        return
    click.echo(resolution_line(result.resolution))
    if not result.rows:
        click.echo("  (nothing was queried: the scope is incomplete)")
    for r in result.rows:
        click.echo(f"  {r.verdict.value:<8} {r.revision:<24} {r.step:<13} {r.reason}")
