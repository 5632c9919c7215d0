"""Every script of the acceptance pack (``tests/calls/*.yaml``) passes in text mode.

The scripts run through the same path as ``amend call --mode text``: one isolated world per
call (fresh sandbox, fresh demo registry, fixed clock, the real controller). Speech plays at
the contract's 15 characters per second, so calls run a few at a time to keep wall time low.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audio.calls.evidence import Verdict
from audio.calls.mode import TextMode
from audio.calls.runner import run_calls
from ui.call_cli import world_factory

PACK = sorted((Path(__file__).parent / "calls").glob("*.yaml"))


@pytest.fixture
def anyio_backend():
    return "asyncio"


def test_pack_covers_seed_001_and_the_seed_000_races():
    assert [p.name[:2] for p in PACK] == [f"{i:02d}" for i in range(1, 20)]


@pytest.mark.slow
@pytest.mark.anyio
async def test_every_pack_script_passes_in_text_mode():
    results, skipped = await run_calls([str(p) for p in PACK], "text", world_factory,
                                       TextMode, concurrency=7)
    assert not skipped
    failures = {r.id: (r.verdict.value, r.violations) for r in results
                if r.verdict is not Verdict.PASS}
    assert not failures, failures
