"""One port in front of N demo processes, each browser kept on one of them (``amend demo
--workers N``, issue 17).

A demo tab's session lives in the process that opened it: its ledger, its pipeline, its
Gradio state. So every request of a browser must reach the same process. The proxy gives a
browser without the ``amend_worker`` cookie (or whose process is gone) the live process with
the fewest open streams, and sets the cookie on the response. A cookie belongs to a browser,
not to a tab: all tabs of one browser share a process, and each still has its own session
there. A browser whose process stopped is moved to another one on its next request; the page
then says its session is gone and a reload opens a new one.

Requests are forwarded one by one, not connection by connection, so a keep-alive connection
opened before the cookie was set cannot pin a browser to the wrong process:

* HTTP (the page, Gradio's API and its event stream) goes through ``httpx``, streamed both
  ways, so a server-sent event reaches the browser as soon as the process sends it;
* the voice websocket is relayed message by message.

Nothing is kept per connection beyond the forwarding itself: when either side closes or
drops, the other side is closed and both pumps end.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookies
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx

COOKIE = "amend_worker"
WORKER_HEADER = "x-amend-worker"  # which process answered: for people and tests, not routing
# Hop-by-hop headers (RFC 9110 7.6.1) end at the proxy; the rest is forwarded as it is.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # retried on another process if refused
DOWN_SECS = 5.0  # a process that refused a connection is skipped this long (unless all are)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class Upstreams:
    """Where each demo process listens, which are up, and how busy each is.

    ``ports[i]`` is process i's port on 127.0.0.1, or None while it is (re)starting. Called
    from the proxy's event loop and from the supervisor's thread: every read and write of the
    table is a single assignment or a snapshot, and :meth:`pick` tolerates a port changing
    under it (a refused connection marks the process down and the request goes elsewhere).
    """

    def __init__(self, count: int, clock: Callable[[], float] | None = None):
        if count < 1:
            raise ValueError("at least one demo process")
        self.ports: list[int | None] = [None] * count
        self.streams = [0] * count  # requests and sockets in flight, per process
        self._down_until = [0.0] * count
        self._turn = itertools.count()
        self._clock = clock or time.monotonic

    def __len__(self) -> int:
        return len(self.ports)

    def set_port(self, index: int, port: int | None) -> None:
        """Process ``index`` listens on ``port`` now (None: it stopped)."""
        self.ports[index] = port
        self._down_until[index] = 0.0

    def mark_down(self, index: int) -> None:
        """Process ``index`` refused a connection: send nobody new there for a while."""
        self._down_until[index] = self._clock() + DOWN_SECS

    def usable(self, index: int) -> bool:
        return self.ports[index] is not None and self._down_until[index] <= self._clock()

    def from_cookie(self, header: str | None) -> int | None:
        """The process a request's ``Cookie`` header names, if it is a valid, usable one."""
        if not header:
            return None
        jar = http.cookies.SimpleCookie()
        try:
            jar.load(header)
        except http.cookies.CookieError:
            return None
        morsel = jar.get(COOKIE)
        if morsel is None or not morsel.value.isdigit():
            return None
        index = int(morsel.value)
        return index if index < len(self.ports) and self.usable(index) else None

    def pick(self, exclude: frozenset[int] = frozenset()) -> int | None:
        """The usable process with the fewest streams (ties in turn); None if none is up."""
        candidates = [i for i in range(len(self.ports)) if i not in exclude and self.usable(i)]
        if not candidates:  # every process recently refused: try the ones that have a port
            candidates = [i for i in range(len(self.ports))
                          if i not in exclude and self.ports[i] is not None]
        if not candidates:
            return None
        start = next(self._turn) % len(self.ports)
        return min(candidates, key=lambda i: (self.streams[i], (i - start) % len(self.ports)))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _has_body(scope: Scope) -> bool:
    """Whether the request says it has a body (GET and friends usually do not)."""
    length = _header(scope, b"content-length")
    return (length is not None and length.strip() != "0") \
        or _header(scope, b"transfer-encoding") is not None


def _cookie_header(index: int) -> tuple[bytes, bytes]:
    # No Max-Age: a session cookie, gone with the browser, as the demo's sessions are.
    return (b"set-cookie", f"{COOKIE}={index}; Path=/; HttpOnly; SameSite=Lax".encode())


def _forward_headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    """The request's headers minus hop-by-hop ones, plus who asked (``X-Forwarded-*``)."""
    kept = [(k, v) for k, v in scope["headers"] if k.lower().decode() not in HOP_BY_HOP]
    client = scope.get("client")
    if client:
        kept.append((b"x-forwarded-for", str(client[0]).encode()))
    kept.append((b"x-forwarded-proto", scope.get("scheme", "http").encode()))
    return kept


def _target(scope: Scope, port: int, scheme: str) -> str:
    path = scope.get("raw_path") or scope["path"].encode()
    query = scope.get("query_string", b"")
    url = f"{scheme}://127.0.0.1:{port}{path.decode('latin-1')}"
    return f"{url}?{query.decode('latin-1')}" if query else url


class AffinityProxy:
    """The ASGI app of the one public port. ``upstreams`` is shared with the supervisor."""

    def __init__(self, upstreams: Upstreams, *, connect_timeout: float = 5.0):
        self.upstreams = upstreams
        self._timeout = httpx.Timeout(connect=connect_timeout, read=None, write=30.0,
                                      pool=connect_timeout)
        self._client: httpx.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # trust_env=False: never a proxy from the environment; the target is loopback.
                self._client = httpx.AsyncClient(timeout=self._timeout, trust_env=False,
                                                 limits=httpx.Limits(max_connections=None))
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _route(self, scope: Scope) -> tuple[int | None, bool]:
        """(process, whether the browser needs a new cookie)."""
        index = self.upstreams.from_cookie(_header(scope, b"cookie"))
        if index is not None:
            return index, False
        return self.upstreams.pick(), True

    # HTTP -----------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self._client is not None, "the proxy's lifespan did not run"
        index, fresh = self._route(scope)
        body = _RequestBody(receive)
        tried: set[int] = set()
        while True:
            if index is None:
                await _plain(send, 503, "No demo process is up yet; reload in a few seconds.")
                return
            port = self.upstreams.ports[index]
            request = self._client.build_request(
                scope["method"], _target(scope, port or 0, "http"),
                headers=_forward_headers(scope),
                content=body.stream() if _has_body(scope) else None)
            try:
                if port is None:
                    raise httpx.ConnectError("process stopped")
                response = await self._client.send(request, stream=True)
            except httpx.ConnectError:
                self.upstreams.mark_down(index)
                tried.add(index)
                if scope["method"] not in SAFE_METHODS or body.started:
                    other = self.upstreams.pick(frozenset(tried))
                    await _plain(send, 502, "The demo process of this browser stopped; "
                                            "reload the page to start a new session.",
                                 [] if other is None else [_cookie_header(other)])
                    return
                index, fresh = self.upstreams.pick(frozenset(tried)), True
                continue
            break
        self.upstreams.streams[index] += 1
        try:
            await self._relay_response(response, index, fresh, body, send)
        finally:
            self.upstreams.streams[index] -= 1
            await response.aclose()

    async def _relay_response(self, response: httpx.Response, index: int, fresh: bool,
                              body: _RequestBody, send: Send) -> None:
        headers = [(k, v) for k, v in response.headers.raw
                   if k.lower().decode() not in HOP_BY_HOP]
        headers.append((WORKER_HEADER.encode(), str(index).encode()))
        if fresh:
            headers.append(_cookie_header(index))
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": headers})

        async def pump() -> None:
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        # An event stream may stay quiet for minutes: without watching for the browser's
        # disconnect, a closed tab would keep its upstream stream (and this task) forever.
        pumping = asyncio.ensure_future(pump())
        gone = asyncio.ensure_future(body.disconnected())
        try:
            await asyncio.wait({pumping, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (pumping, gone):
                task.cancel()
            results = await asyncio.gather(pumping, gone, return_exceptions=True)
        error = results[0]
        if isinstance(error, BaseException) and not isinstance(
                error, (asyncio.CancelledError, httpx.HTTPError, OSError)):
            raise error

    # Websocket ------------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        if (await receive())["type"] != "websocket.connect":
            return
        index, fresh = self._route(scope)
        tried: set[int] = set()
        upstream = None
        while index is not None and upstream is None:
            port = self.upstreams.ports[index]
            try:
                if port is None:
                    raise OSError("process stopped")
                headers = [(k.decode("latin-1"), v.decode("latin-1"))
                           for k, v in _forward_headers(scope)
                           if k.lower() not in (b"host", b"sec-websocket-key",
                                                b"sec-websocket-version",
                                                b"sec-websocket-extensions",
                                                b"sec-websocket-protocol")]
                upstream = await connect(
                    _target(scope, port, "ws"), additional_headers=headers,
                    subprotocols=scope.get("subprotocols") or None, open_timeout=10,
                    ping_interval=None, compression=None, max_size=None)
            except (OSError, InvalidHandshake, TimeoutError):
                self.upstreams.mark_down(index)
                tried.add(index)
                index, fresh = self.upstreams.pick(frozenset(tried)), True
        if upstream is None or index is None:
            await send({"type": "websocket.close", "code": 1013,
                        "reason": "no demo process is up; try again shortly"})
            return
        accept: dict[str, Any] = {"type": "websocket.accept",
                                  "subprotocol": upstream.subprotocol}
        if fresh:
            accept["headers"] = [_cookie_header(index)]
        self.upstreams.streams[index] += 1
        try:
            await send(accept)
            await _relay_socket(upstream, receive, send, ConnectionClosed)
        finally:
            self.upstreams.streams[index] -= 1
            await upstream.close()


async def _relay_socket(upstream: Any, receive: Receive, send: Send,
                        closed: type[Exception]) -> None:
    """Pump messages both ways until one side closes; then close the other with its code."""

    async def browser_to_process() -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                await upstream.close(code=_relayable(message.get("code", 1000)))
                return
            if message.get("bytes") is not None:
                await upstream.send(message["bytes"])
            elif message.get("text") is not None:
                await upstream.send(message["text"])

    async def process_to_browser() -> None:
        with contextlib.suppress(closed):
            async for data in upstream:
                if isinstance(data, bytes):
                    await send({"type": "websocket.send", "bytes": data})
                else:
                    await send({"type": "websocket.send", "text": data})
        await send({"type": "websocket.close", "code": _relayable(upstream.close_code),
                    "reason": upstream.close_reason or ""})

    tasks = {asyncio.ensure_future(browser_to_process()),
             asyncio.ensure_future(process_to_browser())}
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _relayable(code: int | None) -> int:
    """A close code one may send: 1005 (no code) becomes 1000; 1006 and 1015 (a dropped
    connection, a failed TLS handshake) are only ever observed, and become 1011."""
    if code is None or code == 1005:
        return 1000
    return 1011 if code in (1006, 1015) else code


class _RequestBody:
    """The request body as ``httpx`` content, read from ASGI ``receive`` once; afterwards
    :meth:`disconnected` waits for the browser to go away."""

    def __init__(self, receive: Receive):
        self._receive = receive
        self.started = False  # some body was handed on: the request cannot be retried
        self._done = False
        self._gone = False

    async def stream(self) -> AsyncIterator[bytes]:
        while not self._done:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                self._done = self._gone = True
                return
            self._done = not message.get("more_body", False)
            chunk = message.get("body", b"")
            if chunk:
                self.started = True
                yield chunk

    async def disconnected(self) -> None:
        if not self._done:  # the upstream answered before reading the whole body
            async for _ in self.stream():
                pass
        while not self._gone:
            if (await self._receive())["type"] == "http.disconnect":
                self._gone = True


async def _plain(send: Send, status: int, text: str,
                 extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
