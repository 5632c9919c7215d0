"""``amend retrieve "question" ...``: resolve the applicable revision, then retrieve from it only.

This is composition-root glue: ``retrieval`` may not import ``registry``, so the command that
needs both lives in ``ui``. The path is the agent's own: resolve (never names a revision the
subject may not use), sync the corpus from the registry's revision texts, build the query
snapshot from the accepted fields, stamp it, retrieve through the admission gate, print.

Exit status: 0 when the command ran, whatever the outcome; 2 on bad arguments or a bad
database (one line on stderr, never a traceback).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from agent.core.ports import RetrievalResult
from registry.cli import DatabaseTarget


@click.command("retrieve")
@click.argument("question")
@click.option("--family", help="Document family, e.g. pump-seal or returns.")
@click.option("--procedure", help="Procedure (for returns: the item category, e.g. filter-kit).")
@click.option("--configuration", help="Asset configuration, e.g. C2 (returns: *).")
@click.option("--region", help="Region, e.g. EU.")
@click.option("--at", help="Historical instant: a tick or an RFC 3339 instant.")
@click.option("--now", help="Current mode: the instant taken as now (tick or RFC 3339).")
@click.option("--language", default="en", show_default=True, help="Requested language.")
@click.option("--tenant", default="*", show_default=True, help="Caller tenant.")
@click.option("--roles", default="", help="Subject roles, comma-separated.")
@click.option("--field", "fields", multiple=True,
              help="Accepted field for section conditions, NAME=VALUE, e.g. opened=yes.")
@click.option("--limit", default=3, show_default=True, type=click.IntRange(1, 50),
              help="Most passages to return.")
@click.option("--db", type=DatabaseTarget(), default=None,
              help="Registry database: a file path or a postgresql:// URL (default: the app "
                   "data dir, as `amend registry`).")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"outcome", "revision", "edition", "passages": [...]}.')
def retrieve(question: str, **kw) -> None:
    """Print the resolution outcome and the admitted passages with their citations."""
    from registry.backend import is_database_error, label_of, one_line
    from registry.cli import default_db
    from registry.errors import RegistryError

    if kw["at"] is not None and kw["now"] is not None:
        raise click.UsageError("--at is historical; it cannot be combined with --now")
    fields = _fields(kw["fields"])
    db = kw["db"] or default_db()
    try:
        resolution, result = run(question, db, kw, fields)
    except RegistryError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(getattr(exc, "exit_code", 2))
    except Exception as exc:
        if not is_database_error(exc):
            raise
        label = label_of(db)
        click.echo(f"error: {label}: the registry database cannot be read ({one_line(exc)}); "
                   f"import a registry with `amend registry import FILE --db {label}` or pass "
                   f"another --db", err=True)
        sys.exit(2)
    report = render_json(resolution, result)
    if kw["as_json"]:
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        click.echo(render_text(resolution, report))


def _fields(items: tuple[str, ...]) -> dict[str, str]:
    fields = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise click.UsageError(f"--field {item!r}: write NAME=VALUE, e.g. opened=yes")
        fields[name.strip()] = value.strip()
    return fields


def run(question: str, db: str | Path, kw: dict, fields: dict[str, str]):
    """Resolve, sync, retrieve. Returns (Resolution, Retrieved | None). Read-only.

    ``db`` is the registry: a SQLite file or a ``postgresql://`` URL. The corpus is built in
    memory from its revision texts for this one question.
    """
    import asyncio

    from agent.core.gate import AdmissionGate, Stamp
    from agent.core.ledger import Ledger
    from agent.core.ports import RegistryOutcome, ResolutionQuery
    from agent.core.trace import Trace
    from registry.resolver import Registry
    from retrieval.corpus import Corpus
    from retrieval.query import build_query
    from retrieval.retriever import ScopedRetriever

    if isinstance(db, Path) and not db.exists():
        raise click.UsageError(f"--db {db}: no registry database there; create one with "
                               f"`amend registry import FILE --db {db}`")
    roles = tuple(r.strip() for r in kw["roles"].split(",") if r.strip())
    query = ResolutionQuery(
        tenant=kw["tenant"], roles=roles, family=kw["family"], procedure=kw["procedure"],
        configuration=kw["configuration"], region=kw["region"],
        mode="historical" if kw["at"] is not None else "current",
        at=kw["at"] if kw["at"] is not None else kw["now"], language=kw["language"],
        fields=tuple(sorted(fields.items())))
    registry = Registry.open(db)
    try:
        resolution = registry.resolve(query)
        if resolution.outcome is not RegistryOutcome.RESOLVED or resolution.token is None:
            return resolution, None
        assert resolution.revision is not None  # a RESOLVED answer names its revision
        corpus = Corpus()
        corpus.sync_from(registry)
        needs = registry.sections_for(resolution.edition or resolution.revision, fields).needs
    finally:
        registry.close()
    accepted = {"family": kw["family"], "procedure": kw["procedure"], **fields}
    if kw["family"] == "returns":
        accepted.setdefault("item_category", kw["procedure"])
    ledger = Ledger("cli")
    ledger.update(0, {k: v for k, v in accepted.items() if v})
    trace = Trace()
    retriever = ScopedRetriever(corpus, AdmissionGate(ledger), trace, roles=roles)
    snapshot = ledger.issue()
    stamp = Stamp.of(snapshot, accepted, scope=resolution.token.cache_key, request="cli-1")
    request = build_query(snapshot, question).request(stamp, resolution.token, kw["limit"])
    try:
        return resolution, Retrieved(asyncio.run(retriever.retrieve(request)), needs)
    finally:
        corpus.close()


@dataclass(frozen=True, slots=True)
class Retrieved:
    result: RetrievalResult
    needs: tuple[str, ...]  # fields that conditional sections name but were not given


def render_json(resolution, result) -> dict:
    """The public JSON shape. An unresolved outcome names no revision and lists no passages."""
    from dataclasses import asdict

    from agent.core.ports import RegistryOutcome

    if resolution.outcome is not RegistryOutcome.RESOLVED:
        return {"outcome": resolution.outcome.value, "passages": []}
    needs = list(result.needs) if result is not None else []
    result = result.result if result is not None else None
    bundle = result.bundle if result is not None else None
    passages = [{"revision": p.revision, "chunk": p.chunk, "text": p.text,
                 "citation": {k: list(v) if isinstance(v, tuple) else v
                              for k, v in asdict(p.citation).items()}}
                for p in (bundle.passages if bundle else ())]
    return {"outcome": resolution.outcome.value, "revision": resolution.revision,
            "edition": resolution.edition, "label": resolution.label,
            "retrieval": result.outcome.value if result is not None else None,
            "needs": needs, "passages": passages}


def render_text(resolution, report: dict) -> str:
    if "revision" not in report:
        missing = f" (missing: {', '.join(resolution.missing)})" if resolution.missing else ""
        return f"{report['outcome']}{missing}: no passages"
    lines = [f"{report['outcome']}: revision {report['revision']}, edition "
             f"{report['edition']} ({report['label']}); retrieval: {report['retrieval']}"]
    for i, p in enumerate(report["passages"], 1):
        c = p["citation"]
        valid = "[" + ", ".join("∞" if v is None else str(v) for v in c["valid"]) + ")"
        lines.append(f"{i}. {p['text']}")
        lines.append(f"   cite: {c['chunk']} · {c['revision']} · {c['language']} · valid "
                     f"{valid} · at {c['instant']} · snapshot {c['registry_snapshot']} · "
                     f"policy {c['policy_version']} · digest {c['digest'][:19]}")
    if not report["passages"]:
        lines.append("no passages")
    for name in report["needs"]:
        lines.append(f"note: some sections apply only when {name} is known; pass --field "
                     f"{name}=VALUE")
    return "\n".join(lines)
