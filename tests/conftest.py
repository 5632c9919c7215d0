"""Suite-wide settings: offline, test-only switches allowed, asyncio for anyio tests."""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["AMEND_ALLOW_AGENT_FAULTS"] = "1"

import pytest  # noqa: E402


@pytest.fixture
def anyio_backend():
    return "asyncio"


HOG_LIMIT_S = 45 * 60  # a hog outlives no test run: it stops itself after this long


@pytest.fixture(scope="module")
def cpu_hog():
    """One core kept busy by another process for the module's tests: the speech pipeline
    must stay correct when the machine is not idle (issue 14). The busy loop ends itself
    after HOG_LIMIT_S even if this process dies; teardown kills it at once."""
    import subprocess
    import sys

    loop = (f"import time\nend = time.monotonic() + {HOG_LIMIT_S}\n"
            "while time.monotonic() < end:\n    pass\n")
    proc = subprocess.Popen([sys.executable, "-c", loop])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL cluster on 127.0.0.1 for the whole run (issue 17).

    Without Debian's `postgresql` server the PostgreSQL half of the backend tests is skipped,
    and tools/run_tests.py prints a banner saying so."""
    from tools_sandbox.pg_local import ClusterUnavailable, LocalCluster

    try:
        cluster = LocalCluster.start()
    except ClusterUnavailable as exc:
        pytest.skip(f"POSTGRESQL TESTS SKIPPED: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_dsn(pg_cluster):
    """A fresh, empty database of the session's cluster."""
    return pg_cluster.new_database()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def sandbox_db(request):
    """The database a module's sandbox runs on: None (a temporary SQLite file, the default)
    or a fresh PostgreSQL database of the session's cluster. The sandbox suite runs once on
    each backend (issue 17)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_cluster").new_database("sandbox")
