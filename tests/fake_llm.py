"""A fake OpenAI-compatible model server, for tests of the model proposer (no real model).

A FastAPI app served by uvicorn on 127.0.0.1 (a free port) in a background thread::

    with FakeLLM({"book P-100 for Wednesday": reply("book", ...)}) as base_url:
        ...  # base_url is "http://127.0.0.1:PORT/v1"

It answers ``POST /v1/chat/completions`` from tables of recorded replies: ``replies`` maps the
caller's words of a turn (the ``"turn"`` key of the JSON in the request's last user message,
``agent.understanding.model_proposer.model_messages``) to the reply's text, and ``hostile``
does the same for the ``hostile`` model. The request's ``model`` chooses how it behaves
(:data:`MODELS`). A reply goes back as ``message.content``, or as a ``propose`` tool call when
the request offers tools. Every request body and its ``Authorization`` header are kept in
``requests``, in order, for assertions.

``slow`` never answers on its own: it waits for an event the server sets when it stops, so a
client's timeout is what ends the wait (no sleeps anywhere).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

MODELS = (
    "recorded",  # the table's reply; a turn not in it gets 404 with a JSON error
    "slow",  # no answer until the server stops: the client's timeout fires
    "error",  # HTTP 500
    "truncated",  # the table's reply cut in half
    "not-json",  # prose
    "schema-violating",  # a JSON object with an unknown key and an intent not in the enum
    "no-json-schema",  # 400 to response_format; answers through tool_calls when given tools
    "hostile",  # the ``hostile`` table's reply
)
PROSE = "Sure! The caller would like to book a service visit, I think."
REFUSAL = "response_format json_schema is not supported"


def reply(intent: str, *slots: dict[str, Any], correction: str = "none",
          withdrawn: tuple[dict[str, Any], ...] = (), cleared: tuple[str, ...] = (),
          referent: str | None = None, authority: str | None = None,
          go_ahead: bool = False) -> str:
    """A reply's text in the proposal's JSON form (docs/proposal-json.md), every key present."""
    return json.dumps({"intent": intent, "slots": list(slots), "correction": correction,
                       "withdrawn": list(withdrawn), "cleared": list(cleared),
                       "referent": referent, "authority": authority, "go_ahead": go_ahead})


def slot(field_name: str, value: str | None, text: str, *, role: str = "new",
         candidates: tuple[str, ...] = ()) -> dict[str, Any]:
    """One slot object of a reply; ``text`` quotes the caller's words for it."""
    return {"field": field_name, "value": value, "candidates": list(candidates),
            "role": role, "text": text}


@dataclass(frozen=True)
class Received:
    """One request as the server got it."""

    body: dict[str, Any]
    authorization: str | None

    @property
    def model(self) -> str:
        return str(self.body.get("model"))

    @property
    def facts(self) -> dict[str, Any]:
        """The JSON object of the last user message (what the model is told of the call)."""
        return _facts(self.body)

    @property
    def prompt(self) -> str:
        """Every message's text, joined: what left the agent."""
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))


@dataclass
class FakeLLM:
    """The server (see module). A context manager: ``with FakeLLM(table) as base_url``."""

    replies: dict[str, str] = field(default_factory=dict)
    hostile: dict[str, str] = field(default_factory=dict)
    requests: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self.base_url = ""

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> str:
        """Serve on a free port (the socket listens before this returns); the base URL."""
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)  # connections wait in the backlog until uvicorn accepts them
        port = sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(
            self._app(), log_level="warning", access_log=False, lifespan="on",
            timeout_graceful_shutdown=2))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name=f"fake-llm-{port}", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            self.stop()
            raise RuntimeError(f"the fake model server did not start on 127.0.0.1:{port}")
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self.base_url

    def stop(self) -> None:
        """Release the ``slow`` requests, then stop the server and join its thread."""
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    def bodies(self, model: str | None = None) -> list[dict[str, Any]]:
        """The request bodies received (for ``model`` only, when given)."""
        return [r.body for r in self.requests if model is None or r.model == model]

    # -- the app ---------------------------------------------------------------------------
    def _app(self) -> FastAPI:
        import contextlib

        @contextlib.asynccontextmanager
        async def lifespan(_app: FastAPI):
            self._loop = asyncio.get_running_loop()
            self._stopping = asyncio.Event()
            self._ready.set()
            yield

        app = FastAPI(lifespan=lifespan)

        @app.post("/v1/chat/completions")
        async def completions(request: Request) -> JSONResponse:
            body = await request.json()
            self.requests.append(Received(body, request.headers.get("authorization")))
            return await self._answer(body)

        return app

    async def _answer(self, body: dict[str, Any]) -> JSONResponse:
        model, turn = str(body.get("model")), str(_facts(body).get("turn"))
        if model not in MODELS:
            return _error(404, f"model {model!r} not found; the fake serves {', '.join(MODELS)}")
        if model == "slow":
            assert self._stopping is not None
            await self._stopping.wait()
            return _error(503, "the server is stopping")
        if model == "error":
            return _error(500, "the model crashed")
        if model == "no-json-schema" and "response_format" in body:
            return _error(400, REFUSAL)
        if model == "not-json":
            return JSONResponse(_completion(body, PROSE))
        if model == "schema-violating":
            data = json.loads(self.replies.get(turn) or reply("unknown"))
            return JSONResponse(_completion(body, json.dumps(
                {**data, "intent": "purchase", "mood": "cheerful"})))
        table = self.hostile if model == "hostile" else self.replies
        if turn not in table:
            return _error(404, "no recorded reply for this turn")
        text = table[turn]
        if model == "truncated":
            text = text[:len(text) // 2]
        return JSONResponse(_completion(body, text))


def _facts(body: dict[str, Any]) -> dict[str, Any]:
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    try:
        facts = json.loads(users[-1]["content"]) if users else {}
    except (ValueError, TypeError, KeyError):
        return {}
    return facts if isinstance(facts, dict) else {}


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    """A chat completion carrying ``text``: as a ``propose`` tool call when the request
    offered tools, else as the message's content."""
    if body.get("tools"):
        name = body["tools"][0]["function"]["name"]
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": name, "arguments": text}}]}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": text}, "stop"
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "fake_llm", "code": status}},
                        status_code=status)


__all__ = ["MODELS", "PROSE", "REFUSAL", "FakeLLM", "Received", "reply", "slot"]
