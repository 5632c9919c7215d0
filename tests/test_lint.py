"""`make lint` inside the test suite, so CI runs it: ruff on the whole repository, and mypy on
the whole project (every package, the tests, the tools), strict on ``agent/`` (the
configuration is ``[tool.mypy]`` in pyproject.toml).
Types are part of what Amend teaches: an op is an ``Op`` with a spec, a request a ``Visit``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing():
    done = run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing_and_is_strict_on_agent():
    done = run("mypy")
    assert done.returncode == 0 and "Success: no issues found" in done.stdout, \
        done.stdout + done.stderr
    config = (ROOT / "pyproject.toml").read_text()
    assert 'module = ["agent.*"]' in config and "disallow_untyped_defs = true" in config
    assert 'files = ["agent", "audio", "retrieval", "registry", "tools_sandbox", "ui", "tests", ' \
        '"tools"]' in config  # the whole project
