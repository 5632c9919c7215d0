"""Every trace event the code emits, with its keys, found by reading the source.

How it finds them, and what it refuses to guess:

1. ``Trace.emit(name, ...)`` in agent/core/trace.py is the only function that records an event.
2. A function that hands one of its own parameters on as the name is an emitter too (a
   wrapper: ``CallContext.emit``, ``Dispatcher.emit``, ``TextPlayer._emit``, ...). The keys it
   adds belong to every event sent through it. A function that hands its ``**kwargs`` on to an
   emit with a literal name (a pass-through: ``ScopedRetriever._reject``) adds its callers'
   keywords to that event.
3. The receiver of ``x.emit(...)`` is found by :mod:`tools.source_index`. A call named like
   an emitter, with a literal first argument, whose receiver cannot be found is an error.
4. Every emitter call with a literal name is a site: event, module, keys. Keys are the
   keywords plus the keys of ``**`` dicts it can read (literal dicts, comprehensions filtered
   by a literal tuple, local dicts assigned above the call, helpers that return literal
   dicts). Any other ``**`` is an error.
5. A computed name is allowed only in a relay listed in RELAYS. There the names are the
   literal names given to the relay's source, minus those the relay drops (``if
   event.name == "x": return``), with the keys the relay adds for each name. Any other
   computed name is an error.

``request`` and ``disposition`` count as keys where a call gives them: the trace leaves them
out when they are None. Pure, except :func:`scan`, which reads the packages' files.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tools.source_index import Func, Index, own_nodes

PACKAGES = ("agent", "audio", "ui", "retrieval", "registry", "tools_sandbox")
BASE = "agent.core.trace:Trace.emit"  # the function that records events
# Computed names: relay function -> the function whose literal names it passes on.
RELAYS = {"audio.trace_bridge:TraceBridge.on_gate_event":
          "audio.generation_gate:GenerationGate._emit"}
FORWARD = "**forward"  # a ** argument that is the function's own **kwargs


@dataclass(frozen=True)
class Key:
    depends: str | None = None  # the emitter's parameter this key needs (None: always given)
    always: bool = True  # False: only some calls carry it


@dataclass(frozen=True)
class Emitter:
    params: tuple[str, ...]  # positional order, without self
    name_param: str | None  # the parameter carrying the name (None: a pass-through)
    names: frozenset[str] = frozenset()  # a pass-through's event names
    keys: tuple[tuple[str, Key], ...] = ()
    kwargs: bool = False  # takes **data that become keys
    source: bool = False  # feeds a relay; not itself on the trace
    module: str = ""  # a pass-through's module: its events are "emitted in" it


@dataclass(frozen=True)
class Site:
    """One place an event with a known name is emitted."""

    name: str
    module: str
    line: int
    keys: tuple[tuple[str, bool], ...]  # key -> carried every time


@dataclass
class Scan:
    sites: list[Site] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dropped: dict[str, list[str]] = field(default_factory=dict)  # relay -> names it drops

    def events(self) -> dict[str, tuple[list[str], dict[str, bool]]]:
        """name -> (modules, key -> on every event of that name)."""
        out: dict[str, tuple[list[str], dict[str, bool]]] = {}
        grouped: dict[str, list[Site]] = {}
        for site in self.sites:
            grouped.setdefault(site.name, []).append(site)
        for name, sites in sorted(grouped.items()):
            keys: dict[str, bool] = {}
            for site in sites:
                for key, always in site.keys:
                    keys[key] = keys.get(key, True) and always
            for key in keys:
                keys[key] = keys[key] and all(key in dict(s.keys) for s in sites)
            out[name] = (sorted({s.module for s in sites}), keys)
        return out


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _maybe_none(node: ast.expr) -> bool:
    return isinstance(node, ast.IfExp) and (_is_none(node.body) or _is_none(node.orelse))


def _depends(node: ast.expr | None, params: tuple[str, ...]) -> str | None:
    """The first parameter of the enclosing function that an expression reads."""
    if node is None:
        return None
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in params:
            return sub.id
    return None


def _guard(test: ast.expr) -> str | None:
    """``event.name == "x"`` -> "x" (the relay's per-name branches)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
            and isinstance(test.left, ast.Attribute) and test.left.attr == "name" \
            and isinstance(test.comparators[0], ast.Constant) \
            and isinstance(test.comparators[0].value, str):
        return test.comparators[0].value
    return None


def _statements(body: list[ast.stmt], guard: str | None = None,
                conditional: bool = False) -> Iterator[tuple[ast.stmt, str | None, bool]]:
    """Every statement with the relay guard around it and whether it runs only sometimes."""
    for stmt in body:
        yield stmt, guard, conditional
        if isinstance(stmt, ast.If):
            named = _guard(stmt.test)  # a relay's branch for one name runs for all of it
            yield from _statements(stmt.body, named or guard, conditional or named is None)
            yield from _statements(stmt.orelse, guard, True)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            yield from _statements(stmt.body, guard, True)
            yield from _statements(stmt.orelse, guard, True)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _statements(stmt.body, guard, conditional)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, stmt.orelse, stmt.finalbody):
                yield from _statements(part, guard, conditional)
            for handler in stmt.handlers:
                yield from _statements(handler.body, guard, True)


Keys = dict[str, tuple[bool, str | None]]  # key -> (always, only for this relayed name)


class Scanner:
    def __init__(self, sources: dict[str, str], relays: dict[str, str] | None = None):
        self.index = Index(sources)
        self.relays = RELAYS if relays is None else relays
        self.emitters: dict[str, Emitter] = {}
        self.scan = Scan()
        self.setup_errors: list[str] = []

    def run(self) -> Scan:
        base = self.index.by_key.get(BASE)
        if base is None:
            self.scan.errors.append(f"{BASE} not found: nothing records events")
            return self.scan
        for relay, source in self.relays.items():
            func = self.index.by_key.get(source)
            if func is None or relay not in self.index.by_key:
                self.setup_errors.append(f"RELAYS names {relay} -> {source}, which is not "
                                        "in the code; update RELAYS in tools/trace_scan.py")
                continue
            self.emitters[source] = Emitter(func.params, func.params[0], kwargs=True,
                                            source=True)
        p = base.params
        self.emitters[BASE] = Emitter(p, p[0], keys=(("disposition", Key("disposition")),
                                                    ("request", Key("request"))), kwargs=True)
        for _ in range(10):  # until no new wrapper appears
            before = dict(self.emitters)
            self.scan = Scan(errors=list(self.setup_errors))
            self._pass()
            if self.emitters == before:
                break
        else:
            self.scan.errors.append("the wrappers did not settle after 10 passes")
        self.scan.errors = sorted(set(self.scan.errors))
        return self.scan

    def _pass(self) -> None:
        names = {k.rsplit(".", 1)[-1].rsplit(":", 1)[-1] for k in self.emitters}
        sources: dict[str, list[tuple[str, Keys, str]]] = {}  # relay source -> its sites
        relay_calls: list[tuple[Func, ast.Call, Emitter]] = []
        for func in self.index.funcs:
            if func.key == BASE or func.key in self.relays.values():
                continue
            types = self.index.local_types(func)
            for call in (n for n in own_nodes(func.node) if isinstance(n, ast.Call)):
                callee = self.index.callee(func, call, types)
                emitter = self.emitters.get(callee.key) if callee else None
                if emitter is None:
                    target = call.func
                    if callee is None and isinstance(target, ast.Attribute) \
                            and target.attr in names and call.args \
                            and isinstance(call.args[0], ast.Constant):
                        self._error(func, call, f"cannot tell which `{target.attr}` this is; "
                                    "annotate its receiver (e.g. `trace: Trace`)")
                    continue
                assert callee is not None  # an emitter is only ever found through its callee
                if func.key in self.relays and emitter.name_param and not emitter.source:
                    name = self._name(call, emitter)
                    if not (isinstance(name, ast.Constant) or
                            (isinstance(name, ast.Name) and name.id in func.params)):
                        relay_calls.append((func, call, emitter))
                        continue
                self._call(func, call, callee.key, sources)
        for func, call, emitter in relay_calls:
            self._relay(func, call, emitter, sources.get(self.relays[func.key], []))

    def _name(self, call: ast.Call, emitter: Emitter) -> ast.expr | None:
        i = emitter.params.index(emitter.name_param)
        if i < len(call.args) and not isinstance(call.args[i], ast.Starred):
            return call.args[i]
        return next((k.value for k in call.keywords if k.arg == emitter.name_param), None)

    def _error(self, func: Func, node: ast.AST, message: str) -> None:
        self.scan.errors.append(f"{func.path}:{getattr(node, 'lineno', 0)}: {message}")

    def _keys(self, func: Func, call: ast.Call, emitter: Emitter,
              relayed: Keys | None = None) -> tuple[dict[str, Key], bool, dict[str, Keys]]:
        """The keys one call gives its event, whether it forwards **kwargs, and the keys a
        relay adds per name."""
        bound: dict[str, ast.expr | None] = {}
        keys: dict[str, Key] = {}
        per_name: dict[str, Keys] = {}
        forwards = False
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                self._error(func, call, "*args in an emit call: pass keywords")
                break
            if i < len(emitter.params):
                bound[emitter.params[i]] = arg
        for kw in call.keywords:
            if kw.arg is not None:
                if kw.arg in emitter.params:
                    bound[kw.arg] = kw.value
                else:  # a data key is written even when its value is None
                    keys[kw.arg] = Key(_depends(kw.value, func.params))
                continue
            found = self._splat(func, kw.value, relayed)
            if found is None:
                self._error(func, kw.value, "cannot read the keys of this ** argument; use "
                            "keywords or a literal dict")
                continue
            for key, (always, only) in found.items():
                if key == FORWARD:
                    forwards = True
                elif only is not None:
                    per_name.setdefault(only, {})[key] = (always, None)
                elif key in emitter.params:
                    bound[key] = None
                else:
                    keys[key] = Key(None, always)
        for key, spec in emitter.keys:
            if spec.depends is None:
                keys[key] = spec
            elif spec.depends in bound and not _is_none(bound[spec.depends]):
                value = bound[spec.depends]
                # `x.value if x else None` is None only when x is: the dependency says that
                sometimes = value is not None and _maybe_none(value) and \
                    _depends(value.test, func.params) is None  # type: ignore[attr-defined]
                keys[key] = Key(_depends(value, func.params), spec.always and not sometimes)
        if keys and not emitter.kwargs and any(k not in dict(emitter.keys) for k in keys):
            self._error(func, call, "keywords given to an emitter that takes no **data")
        return keys, forwards, per_name

    def _call(self, func: Func, call: ast.Call, emitter_key: str,
              sources: dict[str, list[tuple[str, Keys, str]]]) -> None:
        emitter = self.emitters[emitter_key]
        keys, forwards, _ = self._keys(func, call, emitter)
        names: list[str] = sorted(emitter.names)
        if emitter.name_param is not None:
            name = self._name(call, emitter)
            if isinstance(name, ast.Name) and name.id in func.params:
                self._learn(func, Emitter(func.params, name.id, keys=_frozen(keys),
                                          kwargs=forwards))
                return
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self._error(func, call, "an event name computed at run time; write it as a "
                            "literal, or list this function in RELAYS with the source of "
                            "its names")
                return
            names = [name.value]
        if emitter.source:
            for event in names:
                plain: Keys = {k: (v.always, None) for k, v in keys.items()}
                sources.setdefault(emitter_key, []).append((event, plain, func.module))
            return
        if forwards:  # a pass-through: the event happens where it is called, with more keys
            self._learn(func, Emitter(func.params, None, frozenset(names), _frozen(keys), True,
                                      module=func.module))
            return
        for event in names:
            self.scan.sites.append(Site(event, emitter.module or func.module, call.lineno,
                                        tuple(sorted((k, v.always) for k, v in keys.items()))))

    def _learn(self, func: Func, emitter: Emitter) -> None:
        old = self.emitters.get(func.key)
        if old is not None and old != emitter:  # several forwarding calls: keep every key
            mine, theirs = dict(old.keys), dict(emitter.keys)
            merged = {k: Key((mine.get(k) or theirs[k]).depends,
                             k in mine and k in theirs and mine[k].always and theirs[k].always)
                      for k in {**mine, **theirs}}
            emitter = Emitter(emitter.params, emitter.name_param, old.names | emitter.names,
                              _frozen(merged), old.kwargs or emitter.kwargs,
                              module=emitter.module)
        self.emitters[func.key] = emitter

    def _relay(self, func: Func, call: ast.Call, emitter: Emitter,
               fed: list[tuple[str, Keys, str]]) -> None:
        dropped = set()
        for stmt, _, _ in _statements(func.node.body):
            if isinstance(stmt, ast.If) and (name := _guard(stmt.test)) is not None \
                    and any(isinstance(s, ast.Return) for s in stmt.body):
                dropped.add(name)
        self.scan.dropped[func.key] = sorted(dropped)
        for name, source_keys, module in fed:
            if name in dropped:
                continue
            keys, _, per_name = self._keys(func, call, emitter, relayed=source_keys)
            extra = {k: Key(None, a) for k, (a, _) in per_name.get(name, {}).items()}
            merged = {**keys, **extra}
            self.scan.sites.append(Site(name, module, call.lineno, tuple(sorted(
                (k, v.always) for k, v in merged.items()))))

    # -- ** arguments ---------------------------------------------------------------------------
    def _splat(self, func: Func, node: ast.expr, relayed: Keys | None,
               depth: int = 0) -> Keys | None:
        """The keys a ``**node`` gives, or None when they cannot be read."""
        if depth > 4:
            return None
        if isinstance(node, ast.Dict):
            out: Keys = {}
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:
                    inner = self._splat(func, value, relayed, depth + 1)
                    if inner is None:
                        return None
                    out.update(inner)
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out[key.value] = (True, None)
                else:
                    return None
            return out
        if isinstance(node, ast.DictComp):
            for gen in node.generators:
                for test in gen.ifs:
                    if isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.In) \
                            and isinstance(test.comparators[0], (ast.Tuple, ast.List, ast.Set)):
                        return {e.value: (False, None) for e in test.comparators[0].elts
                                if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            return None
        if isinstance(node, ast.IfExp):
            left = self._splat(func, node.body, relayed, depth + 1)
            right = self._splat(func, node.orelse, relayed, depth + 1)
            if left is None or right is None:
                return None
            return {k: (left.get(k, (False, None))[0] and right.get(k, (False, None))[0],
                        None) for k in {**left, **right}}
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "dict":
                if node.args and relayed is not None and isinstance(node.args[0], ast.Attribute) \
                        and node.args[0].attr == "data":
                    return dict(relayed)
                if node.args:
                    return None
                return {k.arg: (True, None) for k in node.keywords if k.arg}
            return self._returns(func, node, relayed, depth)
        if isinstance(node, ast.Name):
            if node.id == func.kwarg:
                return {FORWARD: (True, None)}
            return self._local_dict(func, node, relayed, depth)
        return None

    def _returns(self, func: Func, call: ast.Call, relayed: Keys | None,
                 depth: int) -> Keys | None:
        """The keys of the dicts a helper returns (``self._where(...)``, ``turn.ms()``)."""
        target = self.index.callee(func, call, self.index.local_types(func))
        if target is None and isinstance(call.func, ast.Attribute):
            same = [f for f in self.index.funcs if f.node.name == call.func.attr
                    and f.module == func.module]
            target = same[0] if len(same) == 1 else None
        if target is None:
            return None
        results = [r.value for r in own_nodes(target.node)
                   if isinstance(r, ast.Return) and r.value is not None]
        out: Keys = {}
        for value in results:
            found = self._splat(target, value, None, depth + 1)
            if found is None:
                return None
            for key, (always, _) in found.items():
                out[key] = (always and all(key in (self._splat(target, v, None, depth + 1) or {})
                                           for v in results), None)
        return out or None

    def _local_dict(self, func: Func, use: ast.Name, relayed: Keys | None,
                    depth: int) -> Keys | None:
        """A local dict's keys, from what is assigned to it above its use."""
        name = use.id
        out: Keys = {}
        assigned = False
        for stmt, guard, conditional in _statements(func.node.body):
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                stmt = ast.Assign([stmt.target], stmt.value, lineno=stmt.lineno)  # x: T = ...
            if isinstance(stmt, ast.Assign) and stmt.lineno < use.lineno:
                for target in stmt.targets:
                    if isinstance(target, ast.Name) and target.id == name:
                        found = self._splat(func, stmt.value, relayed, depth + 1)
                        if found is None:
                            return None
                        assigned = True
                        out.update({k: (always and not conditional, only)
                                    for k, (always, only) in found.items()})
                    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                            and target.value.id == name:
                        key = target.slice
                        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                            return None
                        out[key.value] = (not conditional, guard if relayed is not None else None)
        return out if assigned else None


def _frozen(keys: dict[str, Key]) -> tuple[tuple[str, Key], ...]:
    return tuple(sorted(keys.items()))


def scan_sources(sources: dict[str, str], relays: dict[str, str] | None = None) -> Scan:
    """Scan source texts given as ``{"pkg/module.py": text}`` (pure)."""
    return Scanner(sources, relays).run()


def scan(root: Path) -> Scan:
    """Scan the packages under ``root`` (reads files only)."""
    sources = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            sources[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    return scan_sources(sources)
