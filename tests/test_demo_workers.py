"""``amend demo --workers 2 --db postgresql://...``: two demo processes behind one port.

The real command runs in a subprocess, on a fresh database of the session's throwaway
PostgreSQL cluster. Two browsers (two Chromium contexts, so two cookie jars) book through
the page: each is kept on a process of its own, each tab is a tenant of its own in the one
shared sandbox, and each page shows only its own booking. Then one process is SIGKILLed: the
parent starts it again, and a browser that was on it is served meanwhile.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import psutil
import pytest
from browser_support import CHROMIUM, chromium_flags, free_port

from tools_sandbox.admin_client import SandboxAdmin

pytestmark = pytest.mark.slow

START = ("import sys; from ui.cli import main; sys.argv = ['amend', 'demo', '--workers', '2', "
         "'--no-warm', '--port', '{port}', '--db', '{db}', "
         "'--clock', '2026-12-01T09:00:00+01:00']; main()")


class Demo:
    """The running command, its shared sandbox and its processes."""

    def __init__(self, db: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "COLUMNS": "250"}  # one line per message
        self.proc = subprocess.Popen([sys.executable, "-c", START.format(port=self.port, db=db)],
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.lines: list[str] = []
        self._seen = 0  # lines wait_for has looked at
        self._more = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()  # the pipe never fills
        sandbox = self.wait_for(r"shared sandbox: (\S+)").group(1)
        self.admin = SandboxAdmin(sandbox)
        ports = self.wait_for(r"loopback ports 0: (\d+), 1: (\d+)")
        self.ports = [int(ports.group(1)), int(ports.group(2))]
        self.wait_for(r"Amend demo: ")

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._more:
                self.lines.append(line)
                self._more.notify_all()
        with self._more:
            self.lines.append("")  # the end
            self._more.notify_all()

    def wait_for(self, pattern: str, timeout: float = 600) -> re.Match:
        """The next line of the command's output matching ``pattern``."""
        with self._more:
            while True:
                if not self._more.wait_for(lambda: len(self.lines) > self._seen, timeout):
                    raise AssertionError(f"no {pattern!r} in {timeout} s:\n"
                                         + "".join(self.lines))
                line = self.lines[self._seen]
                self._seen += 1
                if line == "":
                    raise AssertionError(f"the demo ended before {pattern!r}:\n"
                                         + "".join(self.lines))
                found = re.search(pattern, line)
                if found:
                    return found

    def process_on(self, port: int) -> psutil.Process:
        """The demo process listening on ``port``."""
        for child in psutil.Process(self.proc.pid).children(recursive=True):
            for conn in child.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port:
                    return child
        raise AssertionError(f"no demo process listens on {port}")

    def stop(self) -> tuple[int, list[psutil.Process]]:
        """SIGINT, as Ctrl-C; returns the exit code and the processes it started."""
        children = psutil.Process(self.proc.pid).children(recursive=True)
        self.admin.close()
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return code, children


@pytest.fixture(scope="module")
def demo(pg_cluster) -> Iterator[Demo]:
    running = Demo(pg_cluster.new_database("demo"))
    try:
        yield running
    finally:
        if running.proc.poll() is None:
            running.proc.kill()


def _book(page, words: str, says: str) -> None:
    transcript = page.locator("#amend-transcript")
    for text, reply in ((words, says), ("Yes, please go ahead.", "It's booked.")):
        box = page.locator("#amend-typed textarea, #amend-typed input").first
        box.focus()
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        transcript.get_by_text(reply).wait_for(timeout=30000)


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(),
                    reason="BROWSER TESTS SKIPPED: /usr/bin/chromium is missing; install "
                           "Debian's chromium package (.ci/run does) to run them")
def test_two_browsers_book_through_two_processes_into_one_shared_sandbox(demo):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=chromium_flags(None))
        pages = []
        for _ in range(2):
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.goto(demo.url)
            # The voice websocket, relayed by the proxy to the page's own process.
            page.wait_for_function("window.amendVoice && window.amendVoice.open()",
                                   timeout=60000)
            pages.append(page)
        workers = [{c["name"]: c["value"] for c in page.context.cookies()}["amend_worker"]
                   for page in pages]
        assert sorted(workers) == ["0", "1"]  # one browser on each process

        first, second = pages
        # A fault armed from the first page is that tab's alone (a tenant of its own).
        first.locator("#amend-controls").get_by_text("Demo controls").click()
        first.get_by_label("Delay (ms)").fill("1500")
        first.get_by_role("button", name="Inject fault on the next call").click()
        first.get_by_text("next create_booking: delay_ms=1500").wait_for()
        _book(first, "I'd like a service visit for pump P-100 on Wednesday afternoon.",
              "Wednesday 2 December, in the afternoon. Shall I book it?")
        _book(second, "Book a visit for pump P-100 on Thursday morning.",
              "Thursday 3 December, in the morning. Shall I book it?")

        booked = [b for b in demo.admin.bookings() if b["status"] == "confirmed"]
        assert sorted((b["date"], b["window"]) for b in booked) == [
            ("2026-12-02", "afternoon"), ("2026-12-03", "morning")]
        tenants = {b["tenant"] for b in booked}
        assert len(tenants) == 2 and all(t.startswith("acme~") for t in tenants)
        for page, (date, other) in zip(pages, (("2026-12-02", "2026-12-03"),
                                               ("2026-12-03", "2026-12-02")), strict=True):
            page.get_by_role("tab", name="Sandbox").click()
            panel = page.locator("#amend-bookings")
            panel.get_by_text(date).wait_for()
            assert other not in panel.inner_text()  # no tab sees another tab's booking
        faults = demo.admin.faults()
        assert [f["tenant"] for f in faults if f["op"] == "create_booking"] == [
            next(b["tenant"] for b in booked if b["date"] == "2026-12-02")]
        browser.close()


def test_a_killed_process_is_started_again_and_its_browser_served_meanwhile(demo):
    with httpx.Client(base_url=demo.url, timeout=60) as browser:
        first = browser.get("/")
        assert first.status_code == 200
        worker = int(first.cookies["amend_worker"])
        demo.process_on(demo.ports[worker]).kill()
        demo.wait_for(rf"demo process {worker} stopped \(signal 9\)")
        moved = browser.get("/")  # on the other process, until its own is back
        assert moved.status_code == 200
        assert moved.headers["x-amend-worker"] == str(1 - worker)
        back = demo.wait_for(rf"demo process {worker} is back, on port (\d+)")
        demo.process_on(int(back.group(1)))  # listening again

    code, children = demo.stop()
    assert code == 0, "".join(demo.lines)
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, f"processes left running after Ctrl-C: {alive}"
