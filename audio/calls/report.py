"""The report of a run: JSON in the contract's shape, a rich summary table, the exit code.

``build_report`` is pure; ``print_summary`` writes to the given console (side effect).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from audio.calls.evidence import MEASURES, CallResult, Verdict

TOOL_SCHEMA_VERSION = "sandbox-v1"  # the booking API contract the scripts' records follow


SHORT = {"correction_capture": "capture", "state_adoption": "adopt",
         "stale_action_suppression": "suppress", "external_reconciliation": "reconcile",
         "duplicate_prevention": "no dup", "confirmation_fidelity": "confirm",
         "safe_uncertainty": "uncertain"}


def exit_code(results: list[CallResult]) -> int:
    """0 when every call passed, 1 when any failed, 2 when none failed but some were invalid."""
    verdicts = {r.verdict for r in results}
    if Verdict.FAIL in verdicts:
        return 1
    if Verdict.INVALID in verdicts:
        return 2
    return 0


def build_report(results: list[CallResult], mode: str, meta: dict[str, Any],
                 started: datetime | None = None,
                 skipped: list[str] | None = None) -> dict[str, Any]:
    """The ``--report`` document. ``verdict`` appears only on call objects."""
    from importlib import metadata

    try:
        version = metadata.version("amend")
    except metadata.PackageNotFoundError:
        version = "unknown"
    head = {"version": version, "mode": mode, "stt": meta.get("stt", "unknown"),
            "tts": meta.get("tts", "unknown"),
            "started": (started or datetime.now(UTC)).isoformat(timespec="seconds"),
            "build": meta.get("build", version),
            "tool_schema_version": meta.get("tool_schema_version", TOOL_SCHEMA_VERSION)}
    head.update({k: v for k, v in meta.items() if k not in head})
    head["skipped"] = list(skipped or [])
    head["totals"] = {v.value.lower(): sum(r.verdict is v for r in results) for v in Verdict}
    head["measure_totals"] = {m: {k: sum(r.measures.get(m) == k for r in results)
                                  for k in ("pass", "fail", "n/a")} for m in MEASURES}
    return {"meta": head, "calls": [r.to_json() for r in results]}


def print_summary(results: list[CallResult], console, skipped: list[str] | None = None) -> None:
    from rich.table import Table

    wide = console.width >= 150  # one column per measure; else one letter per measure
    table = Table(title="amend call", show_lines=False)
    table.add_column("call", no_wrap=True, overflow="ellipsis", min_width=12, max_width=38)
    table.add_column("verdict", no_wrap=True, min_width=7)
    if wide:
        for name in MEASURES:
            table.add_column(SHORT[name], justify="center")
    else:
        table.add_column("measures", no_wrap=True)
    table.add_column("s", justify="right", no_wrap=True, min_width=5)
    style = {Verdict.PASS: "green", Verdict.FAIL: "bold red", Verdict.INVALID: "yellow"}
    marks = {"pass": "[green]pass[/]", "fail": "[red]FAIL[/]", "n/a": "[dim]n/a[/]"}
    letters = {"pass": "[green]P[/]", "fail": "[bold red]F[/]", "n/a": "[dim]-[/]"}
    for r in results:
        cells = [marks.get(r.measures.get(m, "n/a"), "?") for m in MEASURES] if wide else \
            [" ".join(letters.get(r.measures.get(m, "n/a"), "?") for m in MEASURES)]
        table.add_row(r.id, f"[{style[r.verdict]}]{r.verdict.value}[/]", *cells,
                      f"{r.duration_s:.1f}")
    console.print(table)
    if not wide:
        console.print("[dim]measures, in order: " + ", ".join(SHORT[m] for m in MEASURES)
                      + " (P pass, F fail, - n/a)[/]", highlight=False)
    for r in results:
        for violation in r.violations:
            console.print(f"[{style[r.verdict]}]{r.id}[/]: {violation}", highlight=False)
        for note in r.notes:
            console.print(f"[dim]{r.id}: {note}[/]", highlight=False)
    for note in skipped or []:
        console.print(f"[dim]skipped {note}[/]", highlight=False)
    totals = {v: sum(r.verdict is v for r in results) for v in Verdict}
    console.print(" ".join(f"{v.value} {n}" for v, n in totals.items()))
