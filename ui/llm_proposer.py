"""A language model as the proposer: settings, an OpenAI-compatible client, and the CLI part.

``agent/understanding/model_proposer.py`` asks a model through an injected ``ask`` function
and validates whatever comes back; ``agent/`` may import only the standard library, so the
HTTP side lives here:

* :class:`ProposerSettings`: which proposer a process uses (``rules``, ``llm`` or ``hybrid``)
  and where its model server is, from flags and environment variables (flags win);
* :class:`OpenAICompatibleClient`: ``ask(messages) -> str`` over ``POST
  {base_url}/chat/completions`` (llama.cpp's server, vLLM, Ollama, LM Studio, ...), asking for
  the reply in the proposal's JSON Schema, or through a forced tool call when the server does
  not take a schema;
* :func:`make_proposer`: the proposer the settings describe, over the process's rule proposer;
* :func:`proposer_options`: the ``--proposer`` and ``--llm-*`` flags that ``amend chat``,
  ``amend demo`` and ``amend call`` share, and the ``amend proposer`` group.

Side effects: HTTP requests to the configured server only (nothing else is contacted). The API
key is sent as a bearer token and never logged, printed or put in an error message.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import click

if TYPE_CHECKING:
    import httpx

    from agent.understanding.proposals import Proposer

KINDS = ("rules", "llm", "hybrid")
DEFAULT_TIMEOUT_MS = 800
# (setting, flag, environment variable): the names an error tells the user to fix.
NAMES = {
    "kind": ("--proposer", "AMEND_PROPOSER"),
    "base_url": ("--llm-base-url", "AMEND_LLM_BASE_URL"),
    "model": ("--llm-model", "AMEND_LLM_MODEL"),
    "timeout_ms": ("--llm-timeout-ms", "AMEND_LLM_TIMEOUT_MS"),
    "api_key": ("(no flag)", "AMEND_LLM_API_KEY"),
}
TOOL_NAME = "propose"
SCHEMA_NAME = "amend_proposal"
# A server that refuses ``response_format: json_schema`` answers one of these, saying so.
_REFUSAL_STATUSES = (400, 404, 422, 501)
_REFUSAL_WORDS = ("response_format", "json_schema", "not supported")
# (base_url, model) pairs whose server refused a JSON Schema: they get a tool call from then
# on, for the rest of the process, so each turn pays for the refusal at most once.
_NO_JSON_SCHEMA: set[tuple[str, str]] = set()


class ProposerSettingsError(ValueError):
    """A proposer setting that cannot work; the message names the flag and the environment
    variable, and what to give them (the CLI shows it as one line)."""


def _where(setting: str) -> str:
    flag, env = NAMES[setting]
    return f"{flag} / {env}"


@dataclass(frozen=True, slots=True)
class ProposerSettings:
    """Which proposer a process uses. ``rules`` needs nothing else; ``llm`` and ``hybrid``
    need the model server's ``base_url`` (``http://127.0.0.1:8080/v1``) and ``model``.

    Checked on construction, so a bad setting stops a command before any world starts.
    """

    kind: str = "rules"
    base_url: str | None = None
    model: str | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    api_key: str | None = field(default=None, repr=False)  # never shown

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ProposerSettingsError(
                f"{_where('kind')}: {self.kind!r} is not a proposer; use one of "
                f"{', '.join(KINDS)}")
        if not (isinstance(self.timeout_ms, int) and self.timeout_ms > 0):
            raise _bad_timeout(self.timeout_ms)
        if self.kind == "rules":
            return
        if not self.base_url:
            raise ProposerSettingsError(
                f"the {self.kind} proposer needs a model server: give {_where('base_url')}, "
                "e.g. http://127.0.0.1:8080/v1")
        _check_url(self.base_url)
        if not self.model:
            raise ProposerSettingsError(
                f"the {self.kind} proposer needs a model name: give {_where('model')} (the "
                "name the server knows the model by)")

    @classmethod
    def from_env_and_flags(cls, kind: str | None = None, base_url: str | None = None,
                           model: str | None = None, timeout_ms: str | int | None = None,
                           api_key: str | None = None,
                           env: Mapping[str, str] | None = None) -> ProposerSettings:
        """The settings from flags (``None`` when not given) over environment variables
        (``env``, default ``os.environ``). Raises :class:`ProposerSettingsError`."""
        env = os.environ if env is None else env

        def pick(setting: str, flag_value: object) -> str | None:
            value = flag_value if flag_value is not None else env.get(NAMES[setting][1])
            if value is None:
                return None
            text = str(value).strip()
            return text or None

        return cls(
            kind=(pick("kind", kind) or "rules").lower(),
            base_url=_no_trailing_slash(pick("base_url", base_url)),
            model=pick("model", model),
            timeout_ms=_timeout(pick("timeout_ms", timeout_ms)),
            api_key=pick("api_key", api_key))

    def describe(self) -> str:
        """One line for a banner: what reads the turns (never the API key)."""
        if self.kind == "rules":
            return "proposer rules"
        return (f"proposer {self.kind}: model {self.model} at {self.base_url}, "
                f"timeout {self.timeout_ms} ms")


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProposerSettingsError(
            f"{_where('base_url')}: {url!r} is not an http(s) URL; give the server's API "
            "root, e.g. http://127.0.0.1:8080/v1")


def _no_trailing_slash(url: str | None) -> str | None:
    return url.rstrip("/") if url else url


def _timeout(text: str | None) -> int:
    """Milliseconds from a flag or variable; not a whole number is the caller's to fix."""
    if text is None:
        return DEFAULT_TIMEOUT_MS
    if not text.isdigit() or int(text) <= 0:
        raise _bad_timeout(text)
    return int(text)


def _bad_timeout(value: object) -> ProposerSettingsError:
    return ProposerSettingsError(
        f"{_where('timeout_ms')}: {value!r} is not a positive whole number of milliseconds; "
        f"e.g. {DEFAULT_TIMEOUT_MS}")


# -- the client ------------------------------------------------------------------------------
class OpenAICompatibleClient:
    """``ask(messages) -> reply text`` against an OpenAI-compatible chat completions API.

    It asks for the reply in the proposal's JSON Schema (``response_format``, strict). A
    server that refuses that (400/404/422/501 saying so) is asked through a forced tool call
    instead, with the schema as the tool's parameters, and is remembered as such for the rest
    of the process. Every failure (connection, HTTP status, an envelope that is not a chat
    completion) raises ``ModelUnavailable`` with a short message: the proposer then uses the
    rules' reading for the turn.

    One ``httpx.AsyncClient`` is reused across turns, per event loop (a pooled connection
    belongs to the loop that opened it). ``aclose()`` closes it.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 timeout_s: float = 10.0,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self.timeout_s = timeout_s
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAICompatibleClient({self.base_url!r}, {self.model!r})"

    @property
    def uses_tools(self) -> bool:
        """True once this server refused a JSON Schema: it is asked through a tool call."""
        return (self.base_url, self.model) in _NO_JSON_SCHEMA

    async def ask(self, messages: list[dict[str, str]]) -> str:
        """The reply text (a JSON object, unless the model misbehaves) for ``messages``."""
        if not self.uses_tools:
            response = await self._post(self._body(messages, tools=False))
            if not _refuses_json_schema(response):
                return _reply_text(self._checked(response))
            _NO_JSON_SCHEMA.add((self.base_url, self.model))
        return _reply_text(self._checked(await self._post(self._body(messages, tools=True))))

    async def aclose(self) -> None:
        if self._http is not None:
            http, self._http, self._loop = self._http, None, None
            with contextlib.suppress(RuntimeError):  # its loop is gone: nothing left to close
                await http.aclose()

    def _body(self, messages: list[dict[str, str]], *, tools: bool) -> dict[str, Any]:
        from agent.understanding.proposal_json import SCHEMA

        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if tools:
            body["tools"] = [{"type": "function", "function": {
                "name": TOOL_NAME, "parameters": SCHEMA,
                "description": "Give your reading of the caller's turn."}}]
            body["tool_choice"] = {"type": "function", "function": {"name": TOOL_NAME}}
        else:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": SCHEMA_NAME, "strict": True, "schema": SCHEMA}}
        return body

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        import httpx

        from agent.understanding.model_proposer import ModelUnavailable

        try:
            return await self._client().post(f"{self.base_url}/chat/completions", json=body)
        except httpx.HTTPError as exc:
            raise ModelUnavailable(f"no answer from {self.base_url} "
                                   f"({type(exc).__name__})") from None

    def _client(self) -> httpx.AsyncClient:
        """The pooled client of the running loop (a new one if the loop changed)."""
        import httpx

        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            self._http = httpx.AsyncClient(
                headers=headers, transport=self._transport,
                timeout=httpx.Timeout(self.timeout_s, connect=min(self.timeout_s, 2.0)))
            self._loop = loop
        return self._http

    def _checked(self, response: httpx.Response) -> Any:
        """The JSON body of a 2xx response; anything else is ``ModelUnavailable``."""
        from agent.understanding.model_proposer import ModelUnavailable

        if not response.is_success:
            raise ModelUnavailable(f"HTTP {response.status_code} from {self.base_url}: "
                                   f"{self._excerpt(response)}")
        try:
            return response.json()
        except ValueError:
            raise ModelUnavailable(f"the reply from {self.base_url} is not JSON: "
                                   f"{self._excerpt(response)}") from None

    def _excerpt(self, response: httpx.Response) -> str:
        """The first 120 characters of a body, on one line, never with the API key."""
        text = " ".join(response.text.split())
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text[:120]


def _refuses_json_schema(response: httpx.Response) -> bool:
    """The server answered that it does not take ``response_format: json_schema``."""
    if response.status_code not in _REFUSAL_STATUSES:
        return False
    text = response.text.lower()
    return any(word in text for word in _REFUSAL_WORDS)


def _reply_text(envelope: Any) -> str:
    """``choices[0].message``'s tool call arguments, else its content."""
    from agent.understanding.model_proposer import ModelUnavailable

    try:
        message = envelope["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        if calls:
            arguments = calls[0]["function"]["arguments"]
            # Some servers hand the arguments over already parsed.
            return arguments if isinstance(arguments, str) else json.dumps(arguments)
        content = message.get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ModelUnavailable("the reply is not a chat completion (no choices[0].message)") \
            from None
    if not isinstance(content, str):
        refusal = message.get("refusal")
        raise ModelUnavailable(f"the model refused: {str(refusal)[:120]}" if refusal
                               else "the reply has no content and no tool call")
    return content


# -- the proposer ----------------------------------------------------------------------------
def make_proposer(settings: ProposerSettings, rules: Proposer) -> Proposer:
    """The proposer ``settings`` describe: ``rules`` itself, or a model over it (``rules``
    read every turn too: their reading stands whenever the model's cannot)."""
    if settings.kind == "rules":
        return rules
    from agent.understanding.model_proposer import ModelProposer

    assert settings.base_url and settings.model  # checked by ProposerSettings
    timeout_s = settings.timeout_ms / 1000
    # The HTTP timeout outlasts the proposer's: the proposer gives up first, and says so.
    client = OpenAICompatibleClient(settings.base_url, settings.model, api_key=settings.api_key,
                                    timeout_s=timeout_s + 1.0)
    return ModelProposer(client.ask, rules, mode=settings.kind, timeout_s=timeout_s)


async def aclose_proposer(proposer: Proposer) -> None:
    """Close the HTTP client behind a proposer :func:`make_proposer` built (else nothing)."""
    client = getattr(getattr(proposer, "ask", None), "__self__", None)
    if isinstance(client, OpenAICompatibleClient):
        await client.aclose()


@contextlib.asynccontextmanager
async def open_proposer(settings: ProposerSettings, rules: Proposer
                        ) -> AsyncIterator[Proposer]:
    """:func:`make_proposer` for one ``async with`` block; its HTTP client closes on exit."""
    proposer = make_proposer(settings, rules)
    try:
        yield proposer
    finally:
        await aclose_proposer(proposer)


# -- the command line ------------------------------------------------------------------------
_OPTIONS = (
    click.option("--proposer", "proposer_kind", metavar="[rules|llm|hybrid]",
                 help="What reads each turn: the rules (default), a language model (llm), or "
                      "the model only where the rules are unsure (hybrid). Env: "
                      "AMEND_PROPOSER."),
    click.option("--llm-base-url", metavar="URL",
                 help="The OpenAI-compatible server's API root, e.g. http://127.0.0.1:8080/v1. "
                      "Env: AMEND_LLM_BASE_URL. A key, if needed: AMEND_LLM_API_KEY."),
    click.option("--llm-model", metavar="NAME",
                 help="The model name the server knows. Env: AMEND_LLM_MODEL."),
    click.option("--llm-timeout-ms", metavar="MS",
                 help=f"Wait this long for the model, then use the rules' reading "
                      f"(default {DEFAULT_TIMEOUT_MS}). Env: AMEND_LLM_TIMEOUT_MS."),
)


def proposer_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the proposer flags to a click command. The command receives one
    ``proposer_settings: ProposerSettings`` instead; a bad setting is a usage error (one line
    naming the flag and the environment variable), raised before the command runs."""

    @functools.wraps(command)
    def wrapper(*args: Any, proposer_kind: str | None, llm_base_url: str | None,
                llm_model: str | None, llm_timeout_ms: str | None, **kwargs: Any) -> Any:
        kwargs["proposer_settings"] = settings_from_cli(proposer_kind, llm_base_url, llm_model,
                                                        llm_timeout_ms)
        return command(*args, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


def settings_from_cli(kind: str | None, base_url: str | None, model: str | None,
                      timeout_ms: str | None) -> ProposerSettings:
    """:meth:`ProposerSettings.from_env_and_flags`, a bad setting as ``click.UsageError``."""
    try:
        return ProposerSettings.from_env_and_flags(kind, base_url, model, timeout_ms)
    except ProposerSettingsError as exc:
        raise click.UsageError(str(exc)) from None


@click.group("proposer")
def proposer() -> None:
    """The proposer contract: what a model must answer (docs/proposal-json.md)."""


@proposer.command("schema")
def schema() -> None:
    """Print the JSON Schema of a proposal (what a model server is asked to answer in)."""
    from agent.understanding.proposal_json import SCHEMA

    click.echo(json.dumps(SCHEMA, indent=2))


__all__ = ["DEFAULT_TIMEOUT_MS", "KINDS", "OpenAICompatibleClient", "ProposerSettings",
           "ProposerSettingsError", "aclose_proposer", "make_proposer", "open_proposer",
           "proposer", "proposer_options", "settings_from_cli"]
