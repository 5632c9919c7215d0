"""``amend bench --only proxy``: what the one port of ``amend demo --workers N`` costs.

A stand-in demo process (a page of the Gradio page's size, and a websocket that echoes) runs
in a process of its own, and the affinity proxy (:mod:`ui.affinity`) in another, as under
``amend demo --workers``. The bench process then times round trips straight to the demo
process and through the proxy, interleaved so that both see the same machine: a page load
(80 KiB) and one 20 ms voice frame (640 bytes) echoed over the websocket. Medians, and the
extra the proxy adds.
"""

from __future__ import annotations

import multiprocessing
import random
import socket
import statistics
import time
from typing import Any

from fastapi import FastAPI, WebSocket  # module level: FastAPI resolves annotations here
from fastapi.responses import Response

from agent.bench import BenchRow, register

COMMAND = "amend bench --only proxy"
PAGE = b"x" * 80 * 1024  # about the size of the demo's page
# 20 ms of 16 kHz PCM16, what the browser sends 50 times a second: noise-like, as speech is
# to a compressor (the browser's socket is not compressed either).
FRAME = random.Random(0).randbytes(640)


def _stand_in():
    app = FastAPI()

    @app.get("/")
    async def page():
        return Response(PAGE, media_type="text/html")

    @app.websocket("/ws/voice")
    async def voice(ws: WebSocket):
        await ws.accept()
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            await ws.send_bytes(message["bytes"])

    return app


def _serve(kind: str, upstream_port: int, ready: Any) -> None:
    """A process of the bench: the stand-in (``kind="demo"``) or the proxy in front of it."""
    import uvicorn

    from ui.affinity import AffinityProxy, Upstreams

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    if kind == "demo":
        app: Any = _stand_in()
    else:
        table = Upstreams(1)
        table.set_port(0, upstream_port)
        app = AffinityProxy(table)
    ready.put(sock.getsockname()[1])
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])


def _times(rounds: int, direct: int, proxied: int) -> dict[str, list[float]]:
    import httpx
    from websockets.sync.client import connect

    out: dict[str, list[float]] = {k: [] for k in ("page", "page_proxy", "frame",
                                                   "frame_proxy")}
    with httpx.Client(trust_env=False) as http, \
            connect(f"ws://127.0.0.1:{direct}/ws/voice", compression=None) as ws_direct, \
            connect(f"ws://127.0.0.1:{proxied}/ws/voice", compression=None) as ws_proxied:
        for port in (direct, proxied):  # warm the connections
            http.get(f"http://127.0.0.1:{port}/")
        for _ in range(rounds):
            for key, port in (("page", direct), ("page_proxy", proxied)):
                start = time.perf_counter()
                http.get(f"http://127.0.0.1:{port}/").raise_for_status()
                out[key].append((time.perf_counter() - start) * 1000)
            for key, ws in (("frame", ws_direct), ("frame_proxy", ws_proxied)):
                start = time.perf_counter()
                ws.send(FRAME)
                ws.recv(timeout=10)
                out[key].append((time.perf_counter() - start) * 1000)
    return out


@register("proxy")
def proxy_bench(quick: bool) -> list[BenchRow]:
    ctx = multiprocessing.get_context("spawn")
    ready: Any = ctx.Queue()
    demo = ctx.Process(target=_serve, args=("demo", 0, ready), daemon=True)
    demo.start()
    direct = ready.get(timeout=120)
    proxy = ctx.Process(target=_serve, args=("proxy", direct, ready), daemon=True)
    proxy.start()
    try:
        proxied = ready.get(timeout=120)
        t = _times(100 if quick else 500, direct, proxied)
    finally:
        for proc in (proxy, demo):
            proc.terminate()
            proc.join(10)
    rows = []
    for key, what in (("page", "page load (80 KiB)"), ("frame", "voice frame echo (640 B)")):
        plain, via = statistics.median(t[key]), statistics.median(t[f"{key}_proxy"])
        rows += [BenchRow(f"{what}, straight to the process, median", plain, "ms", "",
                          COMMAND),
                 BenchRow(f"{what}, through the proxy, median", via, "ms", "", COMMAND),
                 BenchRow(f"{what}, added by the proxy", via - plain, "ms",
                          "≤ 5 ms", COMMAND)]
    return rows
