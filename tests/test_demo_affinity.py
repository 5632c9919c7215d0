"""The affinity proxy of ``amend demo --workers N`` (``ui.affinity``) over real sockets.

Two small upstream apps stand in for demo processes; each says which one it is. The proxy and
the upstreams run under uvicorn on 127.0.0.1, each on a socket that listens before its server
starts, so no test waits for a server to come up. Ordering is forced with events, never sleeps.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import StreamingResponse
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ui.affinity import COOKIE, WORKER_HEADER, AffinityProxy, Upstreams

WAIT = 30  # seconds an event may take on a loaded machine before the test gives up


class Upstream:
    """A stand-in demo process: ``/who``, ``/echo``, a held ``/stream`` and a ``/ws`` echo."""

    def __init__(self, index: int):
        self.index = index
        self.release = threading.Event()  # lets /stream send its second chunk
        self.stream_closed = threading.Event()  # /stream's generator was closed
        self.socket_closed = threading.Event()
        self.close_codes: list[int] = []
        app = FastAPI()

        @app.get("/who")
        async def who(request: Request):
            return {"worker": index, "cookie": request.headers.get("cookie"),
                    "forwarded": request.headers.get("x-forwarded-for")}

        @app.post("/echo")
        async def echo(request: Request):
            body = await request.body()
            return {"worker": index, "length": len(body),
                    "sha": hashlib.sha256(body).hexdigest()}

        @app.get("/stream")
        async def stream():
            async def chunks():
                try:
                    yield b"one\n"
                    await asyncio.to_thread(self.release.wait, WAIT)
                    yield b"two\n"
                finally:
                    self.stream_closed.set()
            return StreamingResponse(chunks(), media_type="text/event-stream")

        @app.websocket("/ws")
        async def ws(websocket: WebSocket):
            await websocket.accept()
            try:
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        self.close_codes.append(message.get("code", 1000))
                        return
                    if message.get("text", "").startswith("close:"):
                        await websocket.close(code=int(message["text"][6:]))
                        return
                    if message.get("bytes") is not None:
                        await websocket.send_bytes(message["bytes"][::-1])
                    else:
                        await websocket.send_text(f"{index}:{message['text']}")
            finally:
                self.socket_closed.set()

        self.app = app


class Served:
    """``app`` under uvicorn in a thread, on a loopback socket that already listens."""

    def __init__(self, app):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                                    timeout_graceful_shutdown=2))
        self.thread = threading.Thread(target=self.server.run,
                                       kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Shut the server down and wait until it has (its socket refuses from then on)."""
        self.server.should_exit = True
        self.thread.join(WAIT)
        self.sock.close()


@contextmanager
def served(app) -> Iterator[Served]:
    handle = Served(app)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def stack():
    """Two upstreams behind one proxy: (proxy URL, upstreams, the table, their servers)."""
    upstreams = [Upstream(0), Upstream(1)]
    table = Upstreams(2)
    with served(upstreams[0].app) as s0, served(upstreams[1].app) as s1, \
            served(AffinityProxy(table)) as proxy:
        table.set_port(0, s0.port)
        table.set_port(1, s1.port)
        yield proxy.url, upstreams, table, [s0, s1]


def test_a_browser_is_given_a_process_and_stays_on_it(stack):
    url, _, _, _ = stack
    with httpx.Client(base_url=url) as first, httpx.Client(base_url=url) as second:
        a = first.get("/who")
        b = second.get("/who")
        assert COOKIE in a.cookies and COOKIE in b.cookies
        # Two browsers without a cookie, nothing in flight: one on each process.
        assert {a.json()["worker"], b.json()["worker"]} == {0, 1}
        for _ in range(5):
            again = first.get("/who")
            assert again.json()["worker"] == a.json()["worker"]
            assert again.headers[WORKER_HEADER] == str(a.json()["worker"])
            assert COOKIE not in again.cookies  # set once, not on every response
        # The cookie still reaches the process (Gradio may read its own cookies).
        assert f"{COOKIE}=" in again.json()["cookie"]
        assert again.json()["forwarded"] == "127.0.0.1"


def test_request_bodies_arrive_whole(stack):
    url, _, _, _ = stack
    body = bytes(range(256)) * 4096  # 1 MiB
    with httpx.Client(base_url=url) as client:
        reply = client.post("/echo", content=body).json()
    assert reply["length"] == len(body)
    assert reply["sha"] == hashlib.sha256(body).hexdigest()


def test_a_stream_is_relayed_as_it_is_sent_and_closed_when_the_browser_leaves(stack):
    url, upstreams, table, _ = stack
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        with client.stream("GET", "/stream") as response:
            worker = upstreams[int(response.headers[WORKER_HEADER])]
            lines = response.iter_lines()
            assert next(lines) == "one"  # arrived while the second is still held upstream
            assert not worker.release.is_set()
            assert table.streams[worker.index] == 1
        # The browser went away mid-stream: the process's stream ends too, nothing lingers.
        assert worker.stream_closed.wait(WAIT)
    worker.release.set()
    assert _settles(lambda: table.streams == [0, 0])


def test_a_finished_stream_is_delivered_whole(stack):
    url, upstreams, _, _ = stack
    for upstream in upstreams:
        upstream.release.set()
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        assert client.get("/stream").text == "one\ntwo\n"


def test_websocket_messages_and_close_codes_pass_both_ways(stack):
    url, upstreams, table, _ = stack
    ws_url = url.replace("http://", "ws://") + "/ws?tab=abc"
    with httpx.Client(base_url=url) as client:
        cookie = client.get("/who").headers["set-cookie"].split(";")[0]
    worker = int(cookie.split("=")[1])
    with connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
        ws.send("hello")
        assert ws.recv(timeout=WAIT) == f"{worker}:hello"  # the browser's own process
        ws.send(b"\x01\x02\x03")
        assert ws.recv(timeout=WAIT) == b"\x03\x02\x01"
        assert table.streams[worker] == 1
        ws.close(code=4000)
    assert upstreams[worker].socket_closed.wait(WAIT)
    assert upstreams[worker].close_codes == [4000]
    with connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
        ws.send("close:4001")  # the process closes: the browser sees its code
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=WAIT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    assert _settles(lambda: table.streams == [0, 0])


def test_a_browser_whose_process_stopped_moves_to_a_live_one(stack):
    url, _, table, servers = stack
    with httpx.Client(base_url=url) as client:
        first = client.get("/who").json()["worker"]
        servers[first].stop()
        moved = client.get("/who")  # safe method: retried on the other process
        assert moved.json()["worker"] == 1 - first
        assert moved.cookies[COOKIE] == str(1 - first)
        assert client.get("/who").json()["worker"] == 1 - first
        # A body that may have been taken is not sent twice: the browser is told to reload.
        table.set_port(first, table.ports[first])  # forget the mark: try the dead one again
        client.cookies.set(COOKIE, str(first))
        refused = client.post("/echo", content=b"x" * 10)
        assert refused.status_code == 502
        assert "reload the page" in refused.text
        assert refused.cookies[COOKIE] == str(1 - first)


def test_with_no_process_up_the_answer_says_so():
    table = Upstreams(2)
    with served(AffinityProxy(table)) as proxy, httpx.Client() as client:
        reply = client.get(proxy.url + "/")
        assert reply.status_code == 503
        assert "No demo process is up" in reply.text
        with pytest.raises(Exception) as refused:
            connect(proxy.url.replace("http://", "ws://") + "/ws")
        assert "403" in str(refused.value) or "1013" in str(refused.value)


def test_cookies_that_name_no_usable_process_are_ignored():
    table = Upstreams(3)
    table.set_port(0, 1000)
    table.set_port(2, 1002)
    for header in (None, "", "amend_worker=9", "amend_worker=x", "amend_worker=1",
                   "a=b; amend_worker=-1", '"broken'):
        assert table.from_cookie(header) is None, header
    assert table.from_cookie("theme=dark; amend_worker=2") == 2
    table.mark_down(2)
    assert table.from_cookie("amend_worker=2") is None
    assert table.pick() == 0  # the only usable one
    table.set_port(0, None)
    assert table.pick() == 2  # every process refused lately: the one with a port is tried


def test_the_least_busy_process_is_picked():
    table = Upstreams(3)
    for i in range(3):
        table.set_port(i, 1000 + i)
    table.streams[:] = [2, 0, 1]
    assert table.pick() == 1
    table.streams[:] = [1, 1, 1]
    assert {table.pick() for _ in range(6)} == {0, 1, 2}  # ties are taken in turn


def _settles(check, timeout: float = WAIT) -> bool:
    """Whether ``check()`` becomes true: the proxy lowers its counters after the response
    has been sent, a moment after the client has read it."""
    done = threading.Event()
    deadline = threading.Timer(timeout, done.set)
    deadline.start()
    try:
        while not done.is_set():
            if check():
                return True
            done.wait(0.01)
        return check()
    finally:
        deadline.cancel()
