"""Reading Python source for what a call reaches: classes, functions, the types of names.

A small, static, best-effort resolver over ``ast`` trees, for tools that follow calls (the
trace-event catalog, ``tools/trace_scan.py``). It knows a name's class only from what the
code says: annotations (``ctx: CallContext``), constructors (``self.ctx = CallContext(...)``)
and plain assignments (``ctx = self.ctx``, ``a, b = self.a, self.b``). Pure: it never imports
the code it reads.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass
class Func:
    """One function or method definition, and where it lives."""

    module: str
    path: str
    cls: str | None
    node: ast.FunctionDef | ast.AsyncFunctionDef
    outer: Func | None = None  # the function a nested one is defined in

    @property
    def key(self) -> str:
        if self.outer is not None:
            return f"{self.outer.key}.<locals>.{self.node.name}"
        return f"{self.module}:{self.cls + '.' if self.cls else ''}{self.node.name}"

    @property
    def params(self) -> tuple[str, ...]:
        a = self.node.args
        names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        return tuple(names[1:] if self.cls and names[:1] == ["self"] else names)

    @property
    def kwarg(self) -> str | None:
        return self.node.args.kwarg.arg if self.node.args.kwarg else None


class Index:
    """Classes, functions and the types of names, from the parsed sources."""

    def __init__(self, sources: dict[str, str]):
        self.funcs: list[Func] = []
        self.by_key: dict[str, Func] = {}
        self.classes: dict[str, list[tuple[str, ast.ClassDef]]] = {}
        self.methods: dict[str, dict[str, Func]] = {}  # class -> method -> func
        self.attrs: dict[str, dict[str, str]] = {}  # class -> attribute -> class name
        for path, text in sorted(sources.items()):
            module = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
            tree = ast.parse(text, filename=path)
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append((module, node))
                    for item in node.body:
                        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            self._add(Func(module, path, node.name, item))
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._add(Func(module, path, None, node))
        for func in list(self.funcs):
            self._nested(func)
        for name, defs in self.classes.items():
            for _, node in defs:
                self._class_attrs(name, node)

    def _add(self, func: Func) -> None:
        self.funcs.append(func)
        self.by_key[func.key] = func
        if func.cls and func.outer is None:
            self.methods.setdefault(func.cls, {})[func.node.name] = func

    def _nested(self, outer: Func) -> None:
        for node in own_nodes(outer.node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not outer.node:
                inner = Func(outer.module, outer.path, None, node, outer)
                self._add(inner)
                self._nested(inner)

    def _class_attrs(self, cls: str, node: ast.ClassDef) -> None:
        attrs = self.attrs.setdefault(cls, {})
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                if (t := self.annotation(item.annotation)) is not None:
                    attrs[item.target.id] = t
        for func in self.methods.get(cls, {}).values():
            params = self.param_types(func)
            for sub in ast.walk(func.node):
                target, value, note = None, None, None
                if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    target, value = sub.targets[0], sub.value
                elif isinstance(sub, ast.AnnAssign):
                    target, value, note = sub.target, sub.value, sub.annotation
                if not (isinstance(target, ast.Attribute) and _is_self(target.value)):
                    continue
                t = self.annotation(note) if note is not None else None
                if t is None and value is not None:
                    t = self._value_type(value, params)
                if t is not None:
                    attrs.setdefault(target.attr, t)

    def annotation(self, node: ast.expr | None) -> str | None:
        """The class an annotation names (``X``, ``"X"``, ``X | None``, ``mod.X``)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.annotation(node.left) or self.annotation(node.right)
        if isinstance(node, ast.Subscript):  # Optional[X]
            return self.annotation(node.slice)
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
        return name if name in self.classes else None

    def param_types(self, func: Func) -> dict[str, str]:
        a = func.node.args
        out = self.local_types(func.outer) if func.outer is not None else {}
        out |= {p.arg: t for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)
               if (t := self.annotation(p.annotation)) is not None}
        if func.cls:
            out["self"] = func.cls
        return out

    def _value_type(self, value: ast.expr, names: dict[str, str]) -> str | None:
        if isinstance(value, ast.Name):
            return names.get(value.id)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id in self.classes:
            return value.func.id
        if isinstance(value, ast.BoolOp):
            return next((t for v in value.values if (t := self._value_type(v, names))), None)
        if isinstance(value, ast.Attribute):
            owner = self._value_type(value.value, names)
            return self.attr_type(owner, value.attr) if owner else None
        return None

    def local_types(self, func: Func) -> dict[str, str]:
        names = self.param_types(func)
        for _ in range(2):  # twice, so that chains of assignments resolve
            for sub in own_nodes(func.node):
                if isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                    if (t := self.annotation(sub.annotation)) is not None:
                        names.setdefault(sub.target.id, t)
                elif isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    target, value = sub.targets[0], sub.value
                    pairs = [(target, value)]
                    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
                            and len(target.elts) == len(value.elts):  # a, b = x, y
                        pairs = list(zip(target.elts, value.elts, strict=True))
                    for left, right in pairs:
                        if isinstance(left, ast.Name) and \
                                (t := self._value_type(right, names)) is not None:
                            names.setdefault(left.id, t)
        return names

    def attr_type(self, cls: str, attr: str) -> str | None:
        for c in self.mro(cls):
            if attr in self.attrs.get(c, {}):
                return self.attrs[c][attr]
        return None

    def mro(self, cls: str) -> Iterator[str]:
        seen = []
        todo = [cls]
        while todo:
            c = todo.pop(0)
            if c in seen or c not in self.classes:
                continue
            seen.append(c)
            yield c
            todo += [b.id for _, node in self.classes[c] for b in node.bases
                     if isinstance(b, ast.Name)]

    def method(self, cls: str, name: str) -> Func | None:
        """``cls.name`` as the code defines it. On a Protocol, whose methods are stubs, it is
        the method of the one class that names the Protocol as its base (a receiver typed by
        a Protocol to avoid an import reaches that class's code)."""
        for c in self.mro(cls):
            if name in self.methods.get(c, {}):
                found = self.methods[c][name]
                if _is_stub(found.node):
                    made = [k for k in self.implementers(c) if name in self.methods.get(k, {})]
                    if len(made) == 1:
                        return self.methods[made[0]][name]
                return found
        return None

    def implementers(self, cls: str) -> list[str]:
        """The classes that name ``cls`` among their bases."""
        return sorted(name for name, defs in self.classes.items() for _, node in defs
                      if any(isinstance(b, ast.Name) and b.id == cls for b in node.bases))

    def callee(self, func: Func, call: ast.Call, types: dict[str, str]) -> Func | None:
        """The function a call reaches, when the code says which."""
        target = call.func
        if isinstance(target, ast.Name):
            return self.by_key.get(f"{func.module}:{target.id}")
        if isinstance(target, ast.Attribute):
            owner = self._value_type(target.value, types)
            return self.method(owner, target.attr) if owner else None
        return None


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function, and nested definitions, without their bodies."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        if current is not node and isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                        ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(current))


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body of a docstring and/or ``...`` only: a Protocol's declaration."""
    body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(
        n.value, ast.Constant) and isinstance(n.value.value, str))]
    return all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
               and n.value.value is Ellipsis for n in body)


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"
