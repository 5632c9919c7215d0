"""The "Scripted call" tab: run one of the shipped call scripts and show its verdict.

The scripts are the acceptance pack, shipped as package data in ``audio/calls/examples/``
(``tests/calls`` links there), so an installed demo lists them without a source checkout.

The call runs in a child process through the public CLI (``amend call SCRIPT --report FILE``),
so a script gets the isolation docs/call-scripts.md promises (fresh sandbox, registry and clock) and
a broken script can never disturb the live sessions. Side effects: a temporary report file
and artifacts folder, deleted afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import site
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from ui.panels import esc

TIMEOUT_S = 180.0


def examples_dir() -> Path:
    """The shipped call scripts (package data of ``audio.calls``), as a real folder."""
    folder = resources.files("audio.calls") / "examples"
    # `amend call` reads script paths: fine for any install except a zipped one.
    return Path(str(folder))


def _child_env() -> dict[str, str]:
    """The child process must import this very ``ui``. An installed package is found by the
    interpreter anyway; a source checkout run without an install goes on PYTHONPATH."""
    env = dict(os.environ)
    root = Path(__file__).resolve().parent.parent
    installed = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if root not in installed:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    return env


def _evidence(folder: Path | None) -> str:
    """What the caller heard and the call's trace, from an ``--artifacts`` folder (escaped)."""
    if folder is None or not folder.is_dir():
        return ""
    parts = []
    heard = folder / "heard.txt"
    if heard.is_file():
        parts.append(f"<h4>What the caller heard</h4><blockquote>"
                     f"{esc(heard.read_text(errors='replace').strip())}</blockquote>")
    trace = folder / "trace.jsonl"
    if trace.is_file():
        rows = []
        for line in trace.read_text(errors="replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            rows.append(f"<tr><td>{esc(e.get('t'))}</td><td>{esc(e.get('event'))}</td>"
                        f"<td>{esc(e.get('revision'))}</td><td>{esc(e.get('generation'))}</td>"
                        f"<td>{esc(e.get('op') or e.get('reason') or '')}</td></tr>")
        parts.append('<details><summary>Trace of the call</summary><table class="amend-table">'
                     "<thead><tr><th>t (s)</th><th>event</th><th>rev</th><th>gen</th>"
                     f"<th>op / reason</th></tr></thead><tbody>{''.join(rows)}</tbody>"
                     "</table></details>")
    return "".join(parts)


def render_report(report: dict[str, Any], artifacts: Path | None = None) -> str:
    """Verdict, violations and the seven measures of every call in a ``--report`` JSON, plus
    what the caller heard and the trace when an artifacts folder is given."""
    blocks = []
    for call in report.get("calls", []):
        verdict = str(call.get("verdict", "INVALID"))
        violations = "".join(f"<li>{esc(v)}</li>" for v in call.get("violations", []))
        measures = "".join(f"<tr><td>{esc(k)}</td><td class=\"amend-measure-{esc(v)}\">"
                           f"{esc(v)}</td></tr>" for k, v in call.get("measures", {}).items())
        blocks.append(
            f'<section class="amend-verdict amend-verdict-{esc(verdict.lower())}">'
            f"<h3>{esc(call.get('id', '?'))}: <span>{esc(verdict)}</span></h3>"
            + (f"<ul>{violations}</ul>" if violations else "<p>No violations.</p>")
            + (f'<table class="amend-table"><caption>seed 001 measures</caption>{measures}'
               "</table>" if measures else "")
            + _evidence(artifacts / str(call.get("id")) if artifacts else None) + "</section>")
    return "".join(blocks) or '<p class="amend-empty">The report holds no calls.</p>'


class ScriptRunner:
    """Lists the scripts in ``directory`` and runs one at a time through ``amend call``."""

    def __init__(self, directory: Path | None = None, mode: str = "text"):
        self.directory = Path(directory) if directory is not None else examples_dir()
        self.mode = mode

    def scripts(self) -> list[str]:
        return sorted(p.name for p in self.directory.glob("*.yaml"))

    async def run(self, name: str) -> str:
        """Run script ``name``; returns the verdict HTML (or a one-line reason it could not)."""
        if name not in self.scripts():
            return f'<p class="amend-error">Unknown script {esc(name)}: pick one from the list.</p>'
        with tempfile.TemporaryDirectory(prefix="amend-call-") as tmp:
            report, artifacts = Path(tmp) / "report.json", Path(tmp) / "artifacts"
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ui.cli", "call", str(self.directory / name),
                "--mode", self.mode, "--report", str(report), "--artifacts", str(artifacts),
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                cwd=tmp, env=_child_env())
            try:
                out, _ = await asyncio.wait_for(proc.communicate(), TIMEOUT_S)
            except TimeoutError:
                proc.kill()
                await proc.wait()
                return (f'<p class="amend-error">{esc(name)} did not finish in '
                        f"{TIMEOUT_S:.0f} s.</p>")
            if not report.exists():
                tail = out.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
                return (f'<p class="amend-error">{esc(name)}: the runner wrote no report '
                        f"(exit {proc.returncode}): {esc(tail[0])}</p>")
            return render_report(json.loads(report.read_text()), artifacts)

    def build(self, gr: Any) -> None:
        """Add the tab's components to the enclosing Blocks."""
        names = self.scripts()
        gr.Markdown(f"Plays a call script in `--mode {self.mode}` in an isolated world and "
                    "shows the verdict (PASS, FAIL or INVALID) and the seed 001 measures.")
        with gr.Row():
            choice = gr.Dropdown(names, value=names[0] if names else None,
                                 label="Script (the acceptance pack)", elem_id="amend-script")
            go = gr.Button("Run scripted call", variant="primary", elem_id="amend-run-script")
        verdict = gr.HTML(js_on_load=None, elem_id="amend-verdict")
        go.click(self.run, [choice], [verdict])
