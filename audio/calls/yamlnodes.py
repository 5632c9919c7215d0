"""Reading YAML while keeping line numbers, so every script error can name file, line and key.

``yaml.compose`` gives nodes with marks. :class:`Reader` walks them against the expected shape
and collects every problem as ``file:line: path: message`` instead of raising at the first one.
Unquoted dates and times are kept as their ISO text (YAML would turn ``2026-12-03`` into a date
and ``10:00`` into the number 600).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class Reader:
    """Collects errors for one file. Every ``want_*`` returns a value or None on error."""

    def __init__(self, path: Path):
        self.path = path
        self.errors: list[str] = []

    def error(self, node: Node | None, where: str, message: str) -> None:
        line = node.start_mark.line + 1 if node is not None else 1
        self.errors.append(f"{self.path}:{line}: {where}: {message}")

    def line(self, node: Node | None) -> int:
        return node.start_mark.line + 1 if node is not None else 1

    # -- structure ----------------------------------------------------------------------------
    def mapping(self, node: Node | None, where: str, allowed: Iterable[str],
                required: Iterable[str] = ()) -> dict[str, Node] | None:
        """The keys of a mapping node; unknown keys are errors with a "did you mean"."""
        if not isinstance(node, MappingNode):
            self.error(node, where, f"must be a mapping (key: value), got {_kind(node)}")
            return None
        allowed = tuple(allowed)
        out: dict[str, Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, ScalarNode) else None
            if not isinstance(key, str):
                self.error(key_node, where, "keys must be plain names")
                continue
            path = f"{where}.{key}" if where else key
            if key not in allowed:
                hint = difflib.get_close_matches(key, allowed, n=1)
                suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
                self.error(key_node, path, f"unknown key{suggestion} "
                           f"(allowed: {', '.join(allowed)})")
                continue
            if key in out:
                self.error(key_node, path, "key given twice")
                continue
            out[key] = value_node
        for key in required:
            if key not in out:
                self.error(node, f"{where}.{key}" if where else key, "required key is missing")
        return out

    def sequence(self, node: Node | None, where: str) -> list[Node] | None:
        if isinstance(node, ScalarNode) and node.tag == _NULL:
            return []
        if not isinstance(node, SequenceNode):
            self.error(node, where, f"must be a list, got {_kind(node)}")
            return None
        return list(node.value)

    # -- scalars ------------------------------------------------------------------------------
    def text(self, node: Node | None, where: str, *, allow_empty: bool = False) -> str | None:
        """A string; unquoted dates, times and numbers are kept as the text that was written."""
        if not isinstance(node, ScalarNode) or node.tag in (_NULL, _BOOL):
            self.error(node, where, f"must be text, got {_kind(node)}")
            return None
        if not allow_empty and not node.value.strip():
            self.error(node, where, "must not be empty")
            return None
        return node.value

    def integer(self, node: Node | None, where: str, minimum: int = 0) -> int | None:
        if not isinstance(node, ScalarNode) or node.tag != _INT or ":" in node.value:
            self.error(node, where, f"must be a whole number, got {_kind(node)}")
            return None
        value = yaml.safe_load(node.value)
        if value < minimum:
            self.error(node, where, f"must be at least {minimum}, got {value}")
            return None
        return value

    def number(self, node: Node | None, where: str) -> float | None:
        if not isinstance(node, ScalarNode) or node.tag not in (_INT, _FLOAT):
            self.error(node, where, f"must be a number, got {_kind(node)}")
            return None
        return float(yaml.safe_load(node.value))

    def boolean(self, node: Node | None, where: str) -> bool | None:
        if not isinstance(node, ScalarNode) or node.tag != _BOOL:
            self.error(node, where, f"must be true or false, got {_kind(node)}")
            return None
        return bool(yaml.safe_load(node.value))

    def texts(self, node: Node | None, where: str) -> tuple[str, ...] | None:
        """A list of strings; a single string is accepted as a list of one."""
        if isinstance(node, ScalarNode) and node.tag not in (_NULL, _BOOL):
            single = self.text(node, where)
            return None if single is None else (single,)
        items = self.sequence(node, where)
        if items is None:
            return None
        out = [self.text(item, f"{where}[{i}]") for i, item in enumerate(items)]
        texts = tuple(v for v in out if v is not None)
        return None if len(texts) < len(out) else texts

    def regex(self, node: Node | None, where: str) -> str | None:
        pattern = self.text(node, where)
        if pattern is None:
            return None
        try:
            re.compile(pattern)
        except re.error as exc:
            self.error(node, where, f"not a valid regular expression ({exc})")
            return None
        return pattern

    def plain(self, node: Node | None, where: str) -> Any:
        """A scalar as comparable data: None, bool, or ISO/plain text for everything else."""
        if not isinstance(node, ScalarNode):
            self.error(node, where, f"must be a single value, got {_kind(node)}")
            return None
        if node.tag == _NULL:
            return None
        if node.tag == _BOOL:
            return bool(yaml.safe_load(node.value))
        return node.value  # dates, times and numbers compared as the text written


def compose(path: Path, reader: Reader) -> Node | None:
    """Parse ``path`` into a node tree, or record why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reader.error(None, "file", f"cannot be read ({exc.__class__.__name__}: {exc}); "
                     "check the path")
        return None
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        reader.errors.append(f"{path}:{line}: yaml: {problem}; fix the YAML syntax")
        return None
    if node is None:
        reader.error(None, "file", "is empty; a call script needs at least id, clock, "
                     "caller and turns")
    return node


def _kind(node: Node | None) -> str:
    if node is None:
        return "nothing"
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if node.tag == _NULL:
        return "null"
    return repr(node.value)
