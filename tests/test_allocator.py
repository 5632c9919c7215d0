"""The demo's allocator (ui/allocator.py, issue 19): the C library's malloc unless AMEND_MALLOC
chooses the bundled mimalloc or a library's path, preloaded by starting the process again, and
named in the demo's start-up line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agent.core.errors import AmendError
from ui import allocator

ROOT = Path(__file__).resolve().parent.parent
LINUX = sys.platform.startswith("linux")


def test_system_keeps_the_c_librarys_malloc():
    assert allocator.chosen_library({}) is None
    assert allocator.chosen_library({"AMEND_MALLOC": ""}) is None
    assert allocator.chosen_library({"AMEND_MALLOC": "system"}) is None
    assert allocator.chosen_library({"AMEND_MALLOC": " System "}) is None


def test_a_path_that_names_no_file_is_refused_with_the_fix(tmp_path):
    missing = tmp_path / "libnothing.so"
    with pytest.raises(AmendError) as raised:
        allocator.chosen_library({"AMEND_MALLOC": str(missing)})
    message = str(raised.value)
    assert str(missing) in message and "AMEND_MALLOC=system" in message


def test_a_path_to_a_library_is_taken_as_given(tmp_path):
    library = tmp_path / "libother.so"
    library.write_bytes(b"\x7fELF")
    assert allocator.chosen_library({"AMEND_MALLOC": str(library)}) == library.resolve()


def test_mimalloc_chooses_the_bundled_one():
    bundled = allocator.bundled_mimalloc()
    if bundled is None:
        pytest.skip("cmeel-mimalloc is not installed on this platform")
    assert bundled.name == "libmimalloc.so" and bundled.is_file()
    assert allocator.chosen_library({"AMEND_MALLOC": "mimalloc"}) == bundled


START_UNDER = """
import sys
from ui import allocator
print("run", flush=True)
allocator.start_under(allocator.chosen_library())
print(allocator.running_under())
"""


def _env_choosing(choice: str | None) -> dict[str, str]:
    """This environment with nothing preloaded and ``AMEND_MALLOC`` set to ``choice`` (unset
    for None); skips the test when ``mimalloc`` is chosen and not installed."""
    if choice == "mimalloc" and allocator.bundled_mimalloc() is None:
        pytest.skip("cmeel-mimalloc is not installed on this platform")
    env = {k: v for k, v in os.environ.items() if k not in ("AMEND_MALLOC", "LD_PRELOAD")}
    if choice:
        env["AMEND_MALLOC"] = choice
    return env


def _start_under_output(choice: str | None) -> list[str]:
    run = subprocess.run([sys.executable, "-c", START_UNDER], capture_output=True, text=True,
                         cwd=ROOT, env=_env_choosing(choice), timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.skipif(not LINUX, reason="LD_PRELOAD is Linux's")
def test_start_under_runs_the_process_again_once_with_the_library_mapped():
    # "run" twice: the code ran, then ran again under the library, and did not loop.
    assert _start_under_output("mimalloc") == ["run", "run", "libmimalloc.so"]


@pytest.mark.skipif(not LINUX, reason="LD_PRELOAD is Linux's")
@pytest.mark.parametrize("choice", ["system", None])
def test_the_default_runs_once_without_a_preloaded_library(choice):
    assert _start_under_output(choice) == ["run", "None"]


def test_the_demo_refuses_an_allocator_that_is_not_there(tmp_path):
    env = {**os.environ, "AMEND_MALLOC": str(tmp_path / "libmissing.so")}
    run = subprocess.run([sys.executable, "-m", "ui.cli", "demo", "--no-warm"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert run.returncode != 0
    assert "AMEND_MALLOC" in run.stderr and "libmissing.so" in run.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(not LINUX, reason="LD_PRELOAD is Linux's")
def test_the_demo_runs_under_the_chosen_allocator_and_says_so():
    env = _env_choosing("mimalloc")
    env.update(HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False", COLUMNS="200")
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli", "demo", "--no-warm", "--port",
                             str(_free_port())], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, cwd=ROOT, env=env)
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:  # the start-up lines, up to the address it serves
            lines.append(line)
            if "Amend demo:" in line:
                break
        assert any("memory allocator: libmimalloc.so" in line for line in lines), lines
        maps = Path(f"/proc/{proc.pid}/maps").read_text()  # the same pid, now under mimalloc
        assert "libmimalloc.so" in maps
    finally:
        proc.terminate()
        proc.wait(timeout=60)


# -- giving free memory back (MemoryTrimmer) ------------------------------------------------

def test_the_trimmer_calls_malloc_trim_and_counts_its_runs():
    calls: list[int] = []
    trimmer = allocator.MemoryTrimmer(lambda pad: calls.append(pad) or 1, every=30.0)
    assert trimmer.available and trimmer.summary() == "memory trims: 0"
    assert trimmer.trim_now() is True
    assert calls == [0] and trimmer.trims == 1 and len(trimmer.trim_secs) == 1
    assert trimmer.summary().startswith("memory trims: 1, median ")


def test_without_a_trim_function_the_trimmer_does_nothing():
    trimmer = allocator.MemoryTrimmer(every=30.0)
    trimmer._trim = None  # a C library without malloc_trim (macOS, musl)
    assert not trimmer.available and trimmer.trim_now() is False and trimmer.trims == 0


def test_a_trimmer_refuses_a_period_that_is_not_positive():
    with pytest.raises(ValueError, match="every"):
        allocator.MemoryTrimmer(lambda pad: 0, every=0)


@pytest.mark.skipif(not LINUX, reason="glibc's malloc_trim")
def test_glibcs_malloc_trim_is_found_and_runs():
    trim = allocator.c_library_trim()
    if trim is None:
        pytest.skip("malloc is not glibc's here, or another allocator is preloaded")
    assert trim(0) in (0, 1)


@pytest.mark.anyio
async def test_the_trimmer_runs_in_a_worker_thread_on_its_cadence_until_cancelled():
    import asyncio
    import threading

    ran = asyncio.Event()
    threads: list[str] = []
    loop = asyncio.get_running_loop()

    def trim(pad: int) -> int:
        threads.append(threading.current_thread().name)
        loop.call_soon_threadsafe(ran.set)
        return 0

    trimmer = allocator.MemoryTrimmer(trim, every=0.01)
    task = asyncio.ensure_future(trimmer.run())
    await ran.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert threads and threads[0] != threading.current_thread().name  # never on the loop


def test_the_demo_app_trims_while_it_runs_and_says_so_at_shutdown(capsys):
    from fastapi.testclient import TestClient

    from ui.app import build_app
    from ui.personas import DEFAULT_PATH, load_personas
    from ui.session_hub import SessionHub

    class Hub(SessionHub):
        async def close_all(self) -> None:
            return None

    hub = Hub(lambda persona, sink=None: None, load_personas(DEFAULT_PATH))
    trimmer = allocator.MemoryTrimmer(lambda pad: 0, every=3600.0)
    with TestClient(build_app(hub, trimmer=trimmer)):
        pass
    assert "memory trims: 0" in capsys.readouterr().err
