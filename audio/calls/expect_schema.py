"""Validation of a script's ``expect`` block (docs/call-scripts.md, "Keys: expect")."""

from __future__ import annotations

from yaml.nodes import MappingNode

from audio.calls.model import BOOKING_KEYS, Expect
from audio.calls.yamlnodes import Reader

NOTIFICATION_KEYS = ("kind", "account", "contact", "booking", "ref", "asset", "date", "window",
                     "time", "status", "channel", "version")
FIELD_KEYS = ("value", "status", "min_version")
FIELD_STATUSES = ("proposed", "confirmed", "unresolved", "cleared")
EXPECT_KEYS = ("bookings", "absent_bookings", "notifications", "confirmed", "fields", "heard",
               "clarified", "handoff", "citations", "outcome", "turns")


def read_expect(r: Reader, node) -> Expect:
    keys = r.mapping(node, "expect", EXPECT_KEYS)
    if keys is None:
        return Expect()
    out: dict = {}
    for name, allowed in (("bookings", BOOKING_KEYS), ("absent_bookings", BOOKING_KEYS),
                          ("notifications", NOTIFICATION_KEYS), ("confirmed", BOOKING_KEYS)):
        if name in keys:
            out[name] = _entries(r, keys[name], f"expect.{name}", allowed)
    if "fields" in keys:
        out["fields"] = _fields(r, keys["fields"])
    for name in ("heard", "citations"):
        if name in keys:
            sub = r.mapping(keys[name], f"expect.{name}", ("include", "exclude")) or {}
            for part in ("include", "exclude"):
                if part in sub:
                    values = _regexes(r, sub[part], f"expect.{name}.{part}") if name == "heard" \
                        else r.texts(sub[part], f"expect.{name}.{part}")
                    out[f"{name}_{part}"] = values or ()
    if "clarified" in keys:
        out["clarified"] = r.texts(keys["clarified"], "expect.clarified") or ()
    if "handoff" in keys:
        out["handoff"] = r.boolean(keys["handoff"], "expect.handoff")
    if "outcome" in keys:
        out["outcome"] = r.text(keys["outcome"], "expect.outcome")
    if "turns" in keys:
        out["turns"] = r.integer(keys["turns"], "expect.turns", minimum=1)
    return Expect(**out)


def _entries(r: Reader, node, where: str, allowed: tuple[str, ...]):
    entries = []
    for i, item in enumerate(r.sequence(node, where) or []):
        keys = r.mapping(item, f"{where}[{i}]", allowed)
        if keys is None:
            continue
        if not keys:
            r.error(item, f"{where}[{i}]", "an empty entry would match anything; name a key")
        entries.append(tuple((k, r.plain(v, f"{where}[{i}].{k}")) for k, v in keys.items()))
    return tuple(entries)


def _fields(r: Reader, node):
    if not isinstance(node, MappingNode):
        r.mapping(node, "expect.fields", ())
        return ()
    names = [k.value for k, _ in node.value]
    keys = r.mapping(node, "expect.fields", names) or {}
    out = []
    for name, value_node in keys.items():
        where = f"expect.fields.{name}"
        spec = r.mapping(value_node, where, FIELD_KEYS)
        if spec is None:
            continue
        if not spec:
            r.error(value_node, where, f"give at least one of {FIELD_KEYS}")
        entry = []
        if "value" in spec:
            entry.append(("value", r.plain(spec["value"], f"{where}.value")))
        if "status" in spec:
            status = r.text(spec["status"], f"{where}.status")
            if status is not None and status not in FIELD_STATUSES:
                r.error(spec["status"], f"{where}.status", f"unknown status {status!r}; "
                        f"use one of {FIELD_STATUSES}")
            entry.append(("status", status))
        if "min_version" in spec:
            entry.append(("min_version", r.integer(spec["min_version"], f"{where}.min_version",
                                                   minimum=0)))
        out.append((name, tuple(entry)))
    return tuple(out)


def _regexes(r: Reader, node, where: str):
    values = r.texts(node, where) or ()
    import re
    for pattern in values:
        try:
            re.compile(pattern)
        except re.error as exc:
            r.error(node, where, f"{pattern!r} is not a valid regular expression ({exc})")
    return values
