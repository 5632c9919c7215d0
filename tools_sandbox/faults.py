"""Fault injection: deterministic, per operation and per nth call, changeable while running.

The vocabulary is docs/call-scripts.md's ``sandbox.faults``: ``delay_ms``, ``drop_response``,
``fail_before_commit``, ``hang``, ``duplicate_delivery``, ``ignore_precondition``, each with an
optional ``nth`` (only the Nth call of that op). Two optional extensions: ``probability``
(drawn from a generator seeded per op, so a run replays exactly) and ``uncancellable`` (a
delayed request completes even if cancellation was requested: the "completed anyway" branch).

A :class:`FaultPlan` is shared between the server's event loop and other threads (tests, the
chat ``/faults`` command, the demo UI): rule changes and :meth:`FaultPlan.release` are
thread-safe. Delays and hangs wait on asyncio events, so a test releases them on purpose
instead of sleeping.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum

from agent.core.errors import InvalidInput
from agent.core.ops import SANDBOX_OPS

OPS = SANDBOX_OPS  # every agent op (agent/core/ops.py) and the outbox's deliveries
FLAGS = ("drop_response", "fail_before_commit", "hang", "duplicate_delivery",
         "ignore_precondition", "uncancellable")


# What FaultRule.parse accepts, as JSON Schema (published by /admin/openapi.json).
RULE_SCHEMA: dict = {
    "type": "object", "additionalProperties": False, "required": ["op"],
    "properties": {"op": {"enum": list(OPS)},
                   "delay_ms": {"type": "integer", "minimum": 0, "maximum": 600_000},
                   **{flag: {"type": "boolean"} for flag in FLAGS},
                   "nth": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
                   "probability": {"type": "number", "minimum": 0, "maximum": 1},
                   "tenant": {"anyOf": [{"type": "string", "minLength": 1},
                                        {"type": "null"}]}},
    # It injects something: a delay, or one of the flags set.
    "anyOf": [{"required": ["delay_ms"], "properties": {"delay_ms": {"minimum": 1}}},
              *({"required": [flag], "properties": {flag: {"const": True}}} for flag in FLAGS)],
}


class HoldEnd(StrEnum):
    """Why a held request stopped waiting."""

    ELAPSED = "elapsed"  # the delay ran out (or a hang hit its upper bound)
    RELEASED = "released"  # someone called FaultPlan.release()
    WOKEN = "woken"  # the request's own event fired: cancellation was requested


def _integer(value: object) -> int | None:
    """A JSON integer (2 or 2.0, as JSON Schema has it), else None. Not a bool."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class FaultRule:
    """One ``sandbox.faults`` entry."""

    op: str
    delay_ms: int = 0
    drop_response: bool = False
    fail_before_commit: bool = False
    hang: bool = False
    duplicate_delivery: bool = False
    ignore_precondition: bool = False
    uncancellable: bool = False
    nth: int | None = None
    probability: float = 1.0
    tenant: str | None = None  # only this tenant's calls (one call of many sharing a sandbox)

    @classmethod
    def parse(cls, entry: Mapping[str, object]) -> FaultRule:
        """Build a rule from a script/API mapping. Raises InvalidInput naming the bad key."""
        if not isinstance(entry, Mapping):
            raise InvalidInput(f"sandbox.faults: each entry must be a mapping, got {entry!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(entry) - known)
        if unknown:
            raise InvalidInput(f"sandbox.faults: unknown key(s) {unknown} in {dict(entry)}; "
                               f"known: {sorted(known)}")
        op = entry.get("op")
        if op not in OPS:
            raise InvalidInput(f"sandbox.faults: op {op!r} is not one of {list(OPS)}")
        delay = _integer(entry.get("delay_ms", 0))
        if delay is None or not 0 <= delay <= 600_000:
            raise InvalidInput(f"sandbox.faults: delay_ms must be 0..600000 ms, got "
                               f"{entry.get('delay_ms')!r}")
        nth = entry.get("nth")
        if nth is not None and ((nth := _integer(nth)) is None or nth < 1):
            raise InvalidInput(f"sandbox.faults: nth must be a positive integer, got "
                               f"{entry.get('nth')!r}")
        probability = entry.get("probability", 1.0)
        if isinstance(probability, bool) or not isinstance(probability, int | float) \
                or not 0 <= probability <= 1:
            raise InvalidInput(f"sandbox.faults: probability must be in 0..1, got {probability!r}")
        flags = {}
        for name in FLAGS:
            value = entry.get(name, False)
            if not isinstance(value, bool):
                raise InvalidInput(f"sandbox.faults: {name} must be true or false, got {value!r}")
            flags[name] = value
        if not delay and not any(flags.values()):
            raise InvalidInput(f"sandbox.faults: entry {dict(entry)} injects nothing; give "
                               "delay_ms or one of " + ", ".join(FLAGS[:-1]))
        tenant = entry.get("tenant")
        if tenant is not None and (not isinstance(tenant, str) or not tenant):
            raise InvalidInput(f"sandbox.faults: tenant must be a non-empty text, got "
                               f"{tenant!r}")
        return cls(op=op, delay_ms=delay, nth=nth, probability=float(probability),
                   tenant=tenant, **flags)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"op": self.op}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "op" and value != f.default:
                out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class FaultDecision:
    """What applies to one call of an op (the union of the matching rules)."""

    op: str
    call: int
    delay_ms: int = 0
    drop_response: bool = False
    fail_before_commit: bool = False
    hang: bool = False
    duplicate_delivery: bool = False
    ignore_precondition: bool = False
    uncancellable: bool = False

    @property
    def any(self) -> bool:
        return bool(self.delay_ms) or any(getattr(self, n) for n in FLAGS)


class FaultPlan:
    """The live set of rules, per-op call counters and the waits currently held.

    A rule with a ``tenant`` applies to that tenant's calls only, and its ``nth`` and
    ``probability`` count and draw over that tenant's calls: calls that share one sandbox,
    each under its own tenant, each see exactly the faults their script asked for.
    """

    def __init__(self, rules: Iterable[FaultRule | Mapping] = (), *, seed: int = 0,
                 enabled: bool = True):
        self.seed = seed
        self.enabled = enabled
        self._lock = threading.Lock()
        self._held = threading.Condition(self._lock)
        self._rules: tuple[FaultRule, ...] = ()
        self._calls: dict[tuple[str, str | None], int] = {}
        self._rngs: dict[tuple[str, str | None], random.Random] = {}
        self._waits: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self.set(rules)

    # ------------------------------------------------------------------ rules

    @property
    def rules(self) -> tuple[FaultRule, ...]:
        return self._rules

    def set(self, rules: Iterable[FaultRule | Mapping], *, tenant: str | None = None) -> None:
        """Replace every rule and restart the call counters (side effect: shared state).

        With ``tenant``: replace only that tenant's rules (each given rule is scoped to it)
        and restart only its counters; other tenants' rules are untouched.
        """
        rules = list(rules)
        if rules and not self.enabled:
            raise InvalidInput("sandbox faults are disabled; start the sandbox with "
                               "faults enabled (test/demo flag) to inject them")
        parsed = tuple(r if isinstance(r, FaultRule) else FaultRule.parse(r) for r in rules)
        if tenant is not None:
            parsed = tuple(replace(r, tenant=tenant) for r in parsed)
        with self._lock:
            if tenant is None:
                self._rules = parsed
                self._calls, self._rngs = {}, {}
            else:
                self._rules = (*(r for r in self._rules if r.tenant != tenant), *parsed)
                for counters in (self._calls, self._rngs):
                    for scope in [k for k in counters if k[1] == tenant]:
                        del counters[scope]

    def add(self, rule: FaultRule | Mapping) -> None:
        """Add one rule, keeping the counters (the chat ``/faults`` command)."""
        if not self.enabled:
            raise InvalidInput("sandbox faults are disabled; enable them to inject faults")
        parsed = rule if isinstance(rule, FaultRule) else FaultRule.parse(rule)
        with self._lock:
            self._rules = (*self._rules, parsed)

    def clear(self) -> None:
        self.set(())

    def calls(self, op: str, tenant: str | None = None) -> int:
        """Calls of ``op`` counted so far: all of them, or one tenant's."""
        with self._lock:
            return self._calls.get((op, tenant), 0)

    def decide(self, op: str, tenant: str | None = None) -> FaultDecision:
        """Count one call of ``op`` (by ``tenant``) and return the faults that apply to it."""
        with self._lock:
            scopes: list[tuple[str, str | None]] = [(op, None)]
            if tenant is not None:
                scopes.append((op, tenant))
            for counted in scopes:
                self._calls[counted] = self._calls.get(counted, 0) + 1
            delay_ms = 0
            flags: dict[str, bool] = {}
            for rule in self._rules:
                if rule.op != op or rule.tenant not in (None, tenant):
                    continue
                scope: tuple[str, str | None] = (op, rule.tenant)
                if rule.nth is not None and rule.nth != self._calls[scope]:
                    continue
                # Draw for every matching rule, hit or miss, so the sequence is replayable.
                if rule.probability < 1 and self._rng(scope).random() >= rule.probability:
                    continue
                delay_ms = max(delay_ms, rule.delay_ms)
                for name in FLAGS:
                    flags[name] = flags.get(name, False) or getattr(rule, name)
            n = self._calls[(op, None)]
        return FaultDecision(op=op, call=n, delay_ms=delay_ms, **flags)

    def _rng(self, scope: tuple[str, str | None]) -> random.Random:
        """The draws of one op (and tenant), seeded so that a run replays exactly."""
        if scope not in self._rngs:
            op, tenant = scope
            self._rngs[scope] = random.Random(f"{self.seed}:{op}" if tenant is None
                                              else f"{self.seed}:{op}:{tenant}")
        return self._rngs[scope]

    # ------------------------------------------------------------------ holds

    async def hold(self, seconds: float | None, wake: asyncio.Event | None = None) -> HoldEnd:
        """Wait ``seconds`` (None: until released) and say why the wait ended.

        ``wake`` is the request's own event (set when cancellation is requested).
        """
        released = asyncio.Event()
        entry = (asyncio.get_running_loop(), released)
        with self._held:
            self._waits.append(entry)
            self._held.notify_all()
        waiters = [asyncio.ensure_future(released.wait())]
        if wake is not None:
            waiters.append(asyncio.ensure_future(wake.wait()))
        try:
            done, _ = await asyncio.wait(waiters, timeout=seconds,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
            with self._held:
                self._waits.remove(entry)
        if not done:
            return HoldEnd.ELAPSED
        return HoldEnd.RELEASED if released.is_set() else HoldEnd.WOKEN

    @property
    def held(self) -> int:
        with self._lock:
            return len(self._waits)

    def wait_held(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block this (non-loop) thread until ``count`` calls are held in a delay or hang."""
        with self._held:
            return self._held.wait_for(lambda: len(self._waits) >= count, timeout=timeout)

    def release(self) -> int:
        """End every current delay, hang or dropped-response hold now. Returns how many."""
        with self._lock:
            waits = list(self._waits)
        for loop, event in waits:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)
        return len(waits)
