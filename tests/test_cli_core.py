"""The ``amend`` command line: help lists working commands, bench prints its rows."""

import json

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
