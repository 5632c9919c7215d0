"""The ``amend`` command line: help lists working commands, bench prints its rows."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ui.cli import COMMANDS, main


def test_help_lists_bench_and_only_importable_commands():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "bench" in result.output
    listed = set(main.commands)
    for _module, attr in COMMANDS:
        if attr in listed:
            # Every listed command must at least show its own help without error.
            sub = CliRunner().invoke(main, [attr, "--help"])
            assert sub.exit_code == 0, sub.output


def test_bench_json_has_the_core_rows():
    result = CliRunner().invoke(main, ["bench", "--quick", "--json", "--only", "core"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    figures = {row["figure"] for row in rows}
    assert any("gate admission" in f for f in figures)
    assert all(set(row) == {"group", "figure", "value", "unit", "target", "command"}
               for row in rows)
    assert all(row["value"] > 0 for row in rows)


def test_bench_rejects_an_unknown_group():
    result = CliRunner().invoke(main, ["bench", "--only", "nope"])
    assert result.exit_code == 2
    assert "unknown benchmark group" in result.output


@pytest.mark.audio
@pytest.mark.parametrize("env, names", [
    ({"AMEND_WHISPER_WINDOW_SECS": "5"}, "AMEND_WHISPER_WINDOW_SECS='5'"),
    ({"AMEND_WHISPER_MODEL": "/nonexistent/whisper"}, "AMEND_WHISPER_MODEL=/nonexistent"),
])
def test_a_bad_speech_setting_is_one_line_naming_the_variable(tmp_path, env, names):
    """A speech model that is not there, or a setting out of range, stops the command with
    one error line that names the variable and what to give it: no traceback."""
    script = Path(__file__).parent / "calls" / "42-silence-after-a-question-asked-again.yaml"
    amend = Path(sys.executable).parent / "amend"
    done = subprocess.run([str(amend), "call", str(script), "--mode", "audio"],
                          env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    assert len(error) == 1 and names in error[0], done.stderr[-2000:]


def test_bench_refuses_a_database_it_cannot_reach_in_one_line():
    result = CliRunner().invoke(main, ["bench", "--only", "sandbox", "--db",
                                       "postgresql://amend:secret@127.0.0.1:1/none"])
    assert result.exit_code == 2
    assert "cannot connect to postgresql://amend@127.0.0.1:1/none" in result.output
    assert "secret" not in result.output and "Traceback" not in result.output
