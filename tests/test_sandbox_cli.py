"""``amend sandbox serve``: bad options get one clear line, never a traceback."""

from __future__ import annotations

from click.testing import CliRunner

from ui.cli import main


def run(*args: str):
    return CliRunner().invoke(main, ["sandbox", "serve", *args])


def test_fault_that_is_not_json_is_a_one_line_error():
    result = run("--test-mode", "--fault", "{op: create")
    assert result.exit_code == 2 and "not JSON" in result.output
    assert "Traceback" not in result.output


def test_fault_with_an_unknown_op_names_the_known_ops():
    result = run("--test-mode", "--fault", '{"op": "book", "hang": true}')
    assert result.exit_code == 2 and "create_booking" in result.output


def test_faults_and_tokens_need_test_mode():
    result = run("--caller", "acme/tech-17/ACME-001")
    assert result.exit_code == 2 and "--test-mode" in result.output


def test_malformed_caller_is_refused():
    result = run("--test-mode", "--caller", "acme-only")
    assert result.exit_code == 2 and "TENANT/SUBJECT/ACCOUNT" in result.output
