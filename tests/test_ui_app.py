"""The demo app's wiring without a browser: routes, order, tab scoping, CLI guard rails."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from fastapi import APIRouter, WebSocket
from fastapi.testclient import TestClient
from ui_support import build_fake_world

from ui.app import build_app
from ui.app_cli import demo
from ui.personas import load_personas
from ui.scripted import ScriptRunner, render_report
from ui.session_hub import CURRENT_TAB, SessionHub


def _echo_tab_router() -> APIRouter:
    router = APIRouter()

    @router.websocket("/ws/voice")
    async def voice(ws: WebSocket) -> None:
        await ws.accept()
        await ws.send_json({"tab": CURRENT_TAB.get()})
        await ws.close()

    return router


@pytest.fixture(scope="module")
def client():
    hub = SessionHub(build_fake_world, load_personas())
    with TestClient(build_app(hub, _echo_tab_router())) as c:
        yield c


def test_page_loads_voice_widget_and_styles_from_static(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "/static/voice-widget.js" in page.text  # Gradio re-emits the head's script tag
    for name in ("voice-widget.js", "capture-worklet.js", "player-worklet.js", "amend.css"):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_voice_socket_registered_before_gradio_sees_its_tab(client):
    with client.websocket_connect("/ws/voice?tab=tab-123") as ws:
        assert ws.receive_json() == {"tab": "tab-123"}


def test_demo_refuses_a_non_loopback_host_without_allow_remote():
    result = CliRunner().invoke(demo, ["--host", "0.0.0.0"])
    assert result.exit_code == 2 and "--allow-remote" in result.output


def test_demo_reports_a_bad_personas_file_in_one_line(tmp_path):
    bad = tmp_path / "p.yaml"
    bad.write_text("someone: {tenant: acme}\n")
    result = CliRunner().invoke(demo, ["--personas", str(bad), "--no-warm"])
    assert result.exit_code == 1
    assert "persona 'someone': missing subject" in result.output
    assert "Traceback" not in result.output


def test_demo_workers_refuse_a_database_that_is_not_a_reachable_postgresql_url(tmp_path,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(demo, ["--workers", "2", "--db", "demo.db"])
    assert result.exit_code == 2
    assert "'demo.db' is not a PostgreSQL URL; give postgresql://" in result.output
    result = CliRunner().invoke(demo, ["--workers", "2", "--db",
                                       "postgresql://amend:secret@127.0.0.1:1/amend"])
    assert result.exit_code == 2
    assert "cannot connect to postgresql://amend@127.0.0.1:1/amend" in result.output
    assert "secret" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing written
    result = CliRunner().invoke(demo, ["--workers", "0"])
    assert result.exit_code == 2 and "--workers" in result.output


def test_scripted_call_report_renders_verdict_violations_and_measures_escaped():
    measures = {"correction_capture": "pass", "duplicate_prevention": "fail"}
    report = {"calls": [{"id": "c<1>", "verdict": "FAIL", "violations": ["<b>stale</b>"],
                         "measures": measures}]}
    html = render_report(report)
    assert "amend-verdict-fail" in html and "c&lt;1&gt;" in html
    assert "&lt;b&gt;stale&lt;/b&gt;" in html and "amend-measure-fail" in html


@pytest.mark.anyio
async def test_scripted_call_refuses_a_script_outside_the_directory(tmp_path):
    (tmp_path / "ok.yaml").write_text(json.dumps({"id": "ok"}))
    runner = ScriptRunner(tmp_path)
    assert runner.scripts() == ["ok.yaml"]
    html = await runner.run("../../etc/passwd")
    assert "Unknown script" in html


@pytest.mark.slow
@pytest.mark.anyio
async def test_scripted_call_tab_runs_a_pack_script_and_shows_pass_with_what_was_heard():
    runner = ScriptRunner()
    name = "01-change-date-before-any-tool-call.yaml"
    if name not in runner.scripts():
        pytest.skip(f"tests/calls/{name} is not in this checkout")
    html = await runner.run(name)
    assert "amend-verdict-pass" in html and "PASS" in html
    assert "What the caller heard" in html and "confirmation_spoken" in html


@pytest.mark.anyio
async def test_a_closed_tab_leaves_no_gradio_session_state_behind():
    """Gradio keeps each session's state (a copy of the page's config) for up to 10000
    sessions, closed or not; the page's unload handler forgets a closed tab's at once, and
    the rest is bounded (issue 19)."""
    import gradio as gr
    from fastapi import FastAPI

    from ui.app import GRADIO_SESSIONS_KEPT, build_blocks

    hub = SessionHub(build_fake_world, load_personas())
    blocks = build_blocks(hub)
    gr.mount_gradio_app(FastAPI(), blocks, path="/")
    holder = blocks.state_holder
    assert holder.capacity == GRADIO_SESSIONS_KEPT
    unload = [fn for fn in blocks.fns.values() if any(t[1] == "unload" for t in fn.targets)]
    assert len(unload) == 1
    for tab in ("tab-1", "tab-2"):
        holder[tab]  # what Gradio creates on a tab's first event
    await unload[0].fn(gr.Request(session_hash="tab-1"))
    assert "tab-1" not in holder.session_data and "tab-2" in holder.session_data
    await unload[0].fn(gr.Request(session_hash="tab-1"))  # a second close is harmless


def test_the_panels_have_one_writer_at_a_time_so_an_older_render_never_lands_last():
    """Every handler that writes the panels is in one Gradio queue of one at a time (PANELS):
    a render taken before a booking confirmed can no longer reach the page after the timer's
    newer one (a typed turn's handler once returned its own render; the page then showed the
    pending booking for good, since the timer believed it had already sent "It's booked.")."""
    from ui.app import PANELS, build_blocks

    blocks = build_blocks(SessionHub(build_fake_world, load_personas()))
    transcript = next(b for b in blocks.blocks.values()
                      if getattr(b, "elem_id", None) == "amend-transcript")
    writers = [fn for fn in blocks.fns.values() if transcript in fn.outputs]
    names = {fn.name for fn in writers}
    assert names == {"all_panels", "changed_panels"}, names
    assert len(writers) == 8  # load, persona, reset; typed (Enter, Send); fault; staff; timer
    assert all(fn.concurrency_id == PANELS and fn.concurrency_limit == 1 for fn in writers)


@pytest.mark.anyio
async def test_a_reopened_session_sends_every_panel_then_only_what_changed():
    """After Reset the page still shows the previous session's panels: the refresh after an
    open sends all of them (none skipped as unchanged), and the next refresh only what
    changed."""
    import gradio as gr

    from ui.app import build_blocks

    hub = SessionHub(build_fake_world, load_personas())
    blocks = build_blocks(hub)
    fns = {fn.name: fn.fn for fn in blocks.fns.values()}
    request = gr.Request(session_hash="tab-1")
    await hub.open("tab-1", next(iter(hub.personas)))
    sent = await fns["all_panels"](request)
    assert len(sent) == 9 and all(isinstance(v, str) for v in sent)
    again = await fns["changed_panels"](request)
    assert all(v == gr.skip() for v in again)  # nothing changed since
    await hub.close("tab-1")


class _ClientGoneUnderRender:
    """A world's notifications read that waits until released, then fails as the sandbox's
    closed HTTP client does when its tab's world was torn down under it."""

    def __init__(self) -> None:
        self.reading, self.release = asyncio.Event(), asyncio.Event()

    async def __call__(self) -> tuple[dict[str, object], ...]:
        self.reading.set()
        await self.release.wait()
        raise RuntimeError("Cannot send a request, as the client has been closed.")


@pytest.mark.anyio
async def test_a_tab_closed_while_its_panels_render_shows_no_session_not_a_traceback():
    """A panel refresh in flight when its tab closed read the torn-down world's sandbox client
    and raised (a traceback in the demo's log, seen in a browser test): a render whose session
    is no longer the tab's shows what the tab has now. The same failure on a session that is
    still the tab's is raised."""
    from ui.app import NO_SESSION, render_tab

    hub = SessionHub(build_fake_world, load_personas())
    persona = next(iter(hub.personas))
    for close_it in (True, False):
        session = await hub.open("tab-1", persona)
        gone = _ClientGoneUnderRender()
        session.world.notifications = gone
        render = asyncio.ensure_future(render_tab(hub, "tab-1"))
        await gone.reading.wait()
        if close_it:
            await hub.close("tab-1")
            gone.release.set()
            values = await render
            assert values[0] == NO_SESSION and len(values) == 9
        else:
            gone.release.set()
            with pytest.raises(RuntimeError, match="client has been closed"):
                await render
            await hub.close("tab-1")


# Eight threads, alive together, each allocating: glibc gives each an arena of its own unless
# the process limited them first. malloc_stats() lists the arenas on stderr.
ARENA_PROBE = """
import ctypes, sys, threading
from ui.demo_build import tune_malloc
if sys.argv[1] == "limited" and not tune_malloc():
    sys.exit(3)
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
together = threading.Barrier(8)
def allocate():
    libc.malloc(4096)
    together.wait()
threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc.malloc_stats()
"""


def test_a_demo_process_keeps_its_threads_to_two_malloc_arenas():
    """Issue 19: freed memory stayed resident in arenas other threads did not use; a demo
    process (build_demo) allocates from at most MALLOC_ARENAS of them."""
    from ui.demo_build import MALLOC_ARENAS

    def arenas(mode: str) -> int:
        run = subprocess.run([sys.executable, "-c", ARENA_PROBE, mode], capture_output=True,
                             text=True, timeout=60)
        if run.returncode == 3:
            pytest.skip("not glibc: no M_ARENA_MAX")
        assert run.returncode == 0, run.stderr
        return sum(line.startswith("Arena ") for line in run.stderr.splitlines())

    assert arenas("limited") <= MALLOC_ARENAS < arenas("default")


# A 16 MiB block mapped and freed; then a 4 MiB block: mapped on its own (glibc counts mapped
# blocks in mallinfo2's hblks) or carved out of the arena between other blocks.
MMAP_PROBE = """
import ctypes, os, sys
from ui.demo_build import tune_malloc
if sys.argv[1] != "glibc" and not tune_malloc():
    sys.exit(3)
libc = ctypes.CDLL(None)
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                "usmblks", "fsmblks", "uordblks", "fordblks",
                                                "keepcost")]
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.free(libc.malloc(16 << 20))
before = libc.mallinfo2().hblks
block = libc.malloc(4 << 20)
print(libc.mallinfo2().hblks - before)
libc.free(block)
"""


def test_a_demo_process_maps_every_large_block_on_its_own_when_told_to():
    """Issue 19: by default glibc raises its mmap threshold to the largest mapped block freed,
    so after the first calls their large buffers came from the arenas, between small objects
    that outlive them, and the arenas grew. A demo process (build_demo) fixes the threshold:
    such a block is mapped and handed back when freed. With Whisper in the demo's own process
    it keeps glibc's (Whisper's speed), unless AMEND_MMAP_THRESHOLD says otherwise."""
    import os

    def mapped(mode: str, threshold: str | None, whisper_apart: str = "1") -> int:
        env = {k: v for k, v in os.environ.items() if k != "AMEND_MMAP_THRESHOLD"}
        env |= {"AMEND_MMAP_THRESHOLD": threshold} if threshold is not None else {}
        env["AMEND_WHISPER_PROCESS"] = whisper_apart
        run = subprocess.run([sys.executable, "-c", MMAP_PROBE, mode], capture_output=True,
                             text=True, timeout=60, env=env)
        if run.returncode == 3:
            pytest.skip("not glibc: no M_MMAP_THRESHOLD")
        assert run.returncode == 0, run.stderr
        return int(run.stdout.split()[-1])

    assert mapped("glibc", None) == 0  # the threshold rose past 4 MiB: from the arena
    assert mapped("tuned", None) == 1  # the default: Whisper apart, the threshold fixed
    assert mapped("tuned", None, whisper_apart="0") == 0  # glibc's: Whisper's speed here
    assert mapped("tuned", "131072", whisper_apart="0") == 1
    assert mapped("tuned", "0") == 0  # glibc's own, when asked


def test_the_mmap_threshold_can_be_set_and_a_bad_one_is_named():
    from agent.core.errors import AmendError
    from ui.demo_build import MMAP_THRESHOLD, mmap_threshold_setting

    assert mmap_threshold_setting({}) == MMAP_THRESHOLD == 131072  # Whisper apart: fixed
    assert mmap_threshold_setting({"AMEND_WHISPER_PROCESS": "0"}) == 0  # glibc's own
    assert mmap_threshold_setting({"AMEND_MMAP_THRESHOLD": "0"}) == 0  # glibc's own
    assert mmap_threshold_setting({"AMEND_MMAP_THRESHOLD": " 1048576 "}) == 1 << 20
    for bad in ("abc", "-1", "64M", str(64 << 20)):
        with pytest.raises(AmendError, match=f"AMEND_MMAP_THRESHOLD={re.escape(bad)}: give"):
            mmap_threshold_setting({"AMEND_MMAP_THRESHOLD": bad})
