"""Read one registry YAML file into a :class:`RegistryFile`, checking it on its own.

Every problem is collected (not just the first) and named by file, revision id and key, so an
author can fix a file in one pass. Cross-checks against the database (references, cycles,
changed content) are in ``checks``. Reads the file; writes nothing.
"""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path
from typing import Any

import yaml

from registry.errors import RejectedFile
from registry.model import (
    KINDS,
    STATUSES,
    Edge,
    Interpretation,
    ProcedureSpec,
    RegistryFile,
    RevisionSpec,
    Scope,
)
from registry.timeaxis import TimeKind, TimeValueError, time_key

TOP_KEYS = ("registry", "time", "families", "revisions")
FAMILY_KEYS = ("id", "title", "aliases", "procedures")
PROCEDURE_KEYS = ("id", "title", "aliases")
REVISION_KEYS = ("id", "family", "kind", "language", "status", "tenant", "roles", "applies",
                 "supersedes", "equivalent_to", "text", "sections", "title")
REVISION_REQUIRED = ("id", "family", "kind", "language", "status", "tenant", "applies")
APPLIES_KEYS = ("procedure", "configurations", "regions", "valid")
EDGE_KEYS = ("revision", "procedure", "decision")
SECTION_KEYS = ("id", "when", "text")


# libyaml's parser when present (about 10x faster on large files); same safe constructors.
# Chosen at run time, so the checker cannot know which class: typed as Any.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StringTimes(_BaseLoader):
    """SafeLoader that keeps dates and timestamps as the strings written, so a bare date can be
    told apart from an instant and offsets are never silently dropped."""


_StringTimes.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


class _Problems:
    def __init__(self, path: str):
        self.path = path
        self.items: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{self.path}: {where}: {message}")

    def unknown_keys(self, where: str, data: dict, allowed: tuple[str, ...]) -> None:
        for key in data:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else \
                    f"; allowed keys: {', '.join(allowed)}"
                self.add(where, f"unknown key {key!r}{hint}")


def _text(problems: _Problems, where: str, data: dict, key: str, required: bool = True):
    value = data.get(key)
    if value is None:
        if required:
            problems.add(where, f"missing required key {key!r}")
        return None
    if not isinstance(value, str) or not value.strip():
        problems.add(where, f"key {key!r} must be a non-empty string, got {value!r}")
        return None
    return value


def _strings(problems: _Problems, where: str, data: dict, key: str, required: bool = True):
    if key not in data:
        if required:
            problems.add(where, f"missing required key {key!r} (omitting it is never a "
                                f"wildcard; write [\"*\"] for every value)")
        return None
    value = data[key]
    if (not isinstance(value, list) or not value
            or not all(isinstance(v, str) and v.strip() for v in value)):
        problems.add(where, f"key {key!r} must be a non-empty list of strings, got {value!r}")
        return None
    return tuple(value)


def _scope(problems: _Problems, where: str, entry: object, time: TimeKind) -> Scope | None:
    if not isinstance(entry, dict):
        problems.add(where, f"must be a mapping with {', '.join(APPLIES_KEYS)}")
        return None
    problems.unknown_keys(where, entry, APPLIES_KEYS)
    procedure = _text(problems, where, entry, "procedure")
    configurations = _strings(problems, where, entry, "configurations")
    regions = _strings(problems, where, entry, "regions")
    valid = entry.get("valid")
    if "valid" not in entry:
        problems.add(where, "missing required key 'valid' ([from, to), to = null: open-ended)")
        return None
    if not isinstance(valid, list) or len(valid) != 2:
        problems.add(where, f"key 'valid' must be a list [from, to], got {valid!r}")
        return None
    start, end = valid
    try:
        if start is None:
            raise TimeValueError("'from' is required; only 'to' may be null (open-ended)")
        from_key = time_key(time, start)
        to_key = None if end is None else time_key(time, end)
    except TimeValueError as exc:
        problems.add(where + ".valid", str(exc))
        return None
    if to_key is not None and to_key <= from_key:
        shape = "empty" if to_key == from_key else "inverted"
        problems.add(where + ".valid", f"interval [{start}, {end}) is {shape}; "
                                       f"'from' must be before 'to'")
        return None
    if procedure is None or configurations is None or regions is None:
        return None
    return Scope(procedure, configurations, regions, start, end, from_key, to_key)


def _edge(problems: _Problems, where: str, entry: object) -> Edge | None:
    if not isinstance(entry, dict):
        problems.add(where, f"must be a mapping with {', '.join(EDGE_KEYS)}")
        return None
    problems.unknown_keys(where, entry, EDGE_KEYS)
    values = [_text(problems, where, entry, key) for key in EDGE_KEYS]
    return None if None in values else Edge(*values)


def _sections(problems: _Problems, where: str, raw: dict):
    has_text, has_sections = raw.get("text") is not None, raw.get("sections") is not None
    if has_text == has_sections:
        problems.add(where, "needs exactly one of 'text' or 'sections'")
        return None
    if has_text:
        text = _text(problems, where, raw, "text")
        return None if text is None else ((("text", (), text),), True)
    items = raw["sections"]
    if not isinstance(items, list) or not items:
        problems.add(where, "key 'sections' must be a non-empty list")
        return None
    out, seen = [], set()
    for i, item in enumerate(items):
        spot = f"{where}: sections[{i}]"
        if not isinstance(item, dict):
            problems.add(spot, "must be a mapping with id, when, text")
            continue
        problems.unknown_keys(spot, item, SECTION_KEYS)
        sid, text = _text(problems, spot, item, "id"), _text(problems, spot, item, "text")
        when = item.get("when") or {}
        if not isinstance(when, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in when.items()):
            problems.add(spot, f"key 'when' must map field names to quoted strings "
                               f"(write \"yes\"/\"no\" in quotes), got {when!r}")
            continue
        if sid in seen:
            problems.add(spot, f"duplicate section id {sid!r}")
        seen.add(sid)
        if sid and text:
            out.append((sid, tuple(sorted(when.items())), text))
    return (tuple(out), False) if len(out) == len(items) else None


def _revision(problems: _Problems, i: int, raw: object, time: TimeKind) -> RevisionSpec | None:
    if not isinstance(raw, dict):
        problems.add(f"revisions[{i}]", "must be a mapping")
        return None
    rid = raw.get("id")
    where = f"revision {rid!r}" if isinstance(rid, str) else f"revisions[{i}]"
    before = len(problems.items)
    problems.unknown_keys(where, raw, REVISION_KEYS)
    for key in REVISION_REQUIRED:
        if key not in raw or raw[key] is None:
            problems.add(where, f"missing required key {key!r}")
    fields = {k: _text(problems, where, raw, k, required=False)
              for k in ("id", "family", "kind", "language", "status", "tenant")}
    if fields["kind"] and fields["kind"] not in KINDS:
        problems.add(where, f"key 'kind' must be one of {', '.join(KINDS)}, got {raw['kind']!r}")
    if fields["status"] and fields["status"] not in STATUSES:
        problems.add(where, f"key 'status' must be one of {', '.join(STATUSES)}, "
                            f"got {raw['status']!r}")
    roles = _strings(problems, where, raw, "roles", required=False) if raw.get("roles") \
        is not None else ()
    equivalent = _text(problems, where, raw, "equivalent_to", required=False)
    applies = raw.get("applies")
    scopes: list[Scope | None] = []
    if applies is not None and (not isinstance(applies, list) or not applies):
        problems.add(where, "key 'applies' must be a non-empty list of scopes")
    elif applies:
        scopes = [_scope(problems, f"{where}: applies[{j}]", e, time)
                  for j, e in enumerate(applies)]
    edges_raw = raw.get("supersedes") or []
    edges: list[Edge | None] = []
    if not isinstance(edges_raw, list):
        problems.add(where, "key 'supersedes' must be a list")
    else:
        edges = [_edge(problems, f"{where}: supersedes[{j}]", e) for j, e in enumerate(edges_raw)]
    content = _sections(problems, where, raw)
    if len(problems.items) > before or content is None:
        return None
    # Every None above recorded a problem, so with no problems these filters drop nothing.
    interp = Interpretation(fields["status"], tuple(roles or ()),
                            tuple(s for s in scopes if s is not None),
                            tuple(e for e in edges if e is not None), equivalent)
    return RevisionSpec(fields["id"], fields["family"], fields["kind"], fields["language"],
                        fields["tenant"], content[0], content[1], interp)


def _procedures(problems: _Problems, families: object) -> list[ProcedureSpec]:
    if families is None:
        return []
    if not isinstance(families, list):
        problems.add("families", "must be a list")
        return []
    out = []
    for i, fam in enumerate(families):
        where = f"families[{i}]"
        if not isinstance(fam, dict):
            problems.add(where, "must be a mapping with id, title, procedures")
            continue
        problems.unknown_keys(where, fam, FAMILY_KEYS)
        fid = _text(problems, where, fam, "id")
        ftitle = _text(problems, where, fam, "title", required=False) or fid
        faliases = _strings(problems, where, fam, "aliases", required=False) or ()
        procs = fam.get("procedures") or []
        if not isinstance(procs, list):
            problems.add(where, "key 'procedures' must be a list of mappings")
            procs = []
        for j, proc in enumerate(procs):
            spot = f"{where}.procedures[{j}]"
            if not isinstance(proc, dict):
                problems.add(spot, "must be a mapping with id, title, aliases")
                continue
            problems.unknown_keys(spot, proc, PROCEDURE_KEYS)
            pid = _text(problems, spot, proc, "id")
            title = _text(problems, spot, proc, "title", required=False) or pid
            aliases = _strings(problems, spot, proc, "aliases", required=False) or ()
            if fid and pid:
                out.append(ProcedureSpec(fid, ftitle, pid, title, aliases, faliases))
    return out


def parse_file(path: str | Path) -> RegistryFile:
    """Parse and check one import file; raises :class:`RejectedFile` listing every problem."""
    name = str(path)
    try:
        raw_bytes = Path(path).read_bytes()
    except OSError as exc:
        raise RejectedFile([f"{name}: cannot read the file ({exc.strerror}); "
                            f"check the path"]) from None
    try:
        data = yaml.load(raw_bytes.decode("utf-8"), Loader=_StringTimes)  # noqa: S506
    except UnicodeDecodeError:
        raise RejectedFile([f"{name}: not UTF-8 text; save the file as UTF-8"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "malformed"
        raise RejectedFile([f"{name}: not valid YAML{at}: {problem}"]) from None
    problems = _Problems(name)
    if not isinstance(data, dict):
        raise RejectedFile([f"{name}: the top level must be a mapping with "
                            f"{', '.join(TOP_KEYS)}"])
    problems.unknown_keys("top level", data, TOP_KEYS)
    reg_name = _text(problems, "top level", data, "registry")
    time_raw = data.get("time")
    if time_raw not in ("ticks", "instants"):
        problems.add("top level", f"key 'time' must be \"ticks\" or \"instants\", "
                                  f"got {time_raw!r}")
        raise RejectedFile(problems.items)
    time = TimeKind(time_raw)
    procedures = _procedures(problems, data.get("families"))
    revisions_raw = data.get("revisions")
    if not isinstance(revisions_raw, list):
        problems.add("top level", "key 'revisions' must be a list")
        revisions_raw = []
    revisions, seen = [], set()
    for i, raw in enumerate(revisions_raw):
        spec = _revision(problems, i, raw, time)
        if spec is None:
            continue
        if spec.id in seen:
            problems.add(f"revision {spec.id!r}", "key 'id': the id appears twice in this file")
        seen.add(spec.id)
        revisions.append(spec)
    if problems.items:
        raise RejectedFile(problems.items)
    return RegistryFile(name, reg_name, time.value, tuple(procedures), tuple(revisions),
                        hashlib.sha256(raw_bytes).hexdigest())
