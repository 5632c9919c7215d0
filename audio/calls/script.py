"""Call scripts (docs/call-scripts.md): loading and validation.

:func:`load_script` reads a YAML file and either returns a :class:`CallScript` or raises
:class:`ScriptInvalid` listing every problem as ``file:line: key: message``. Nothing runs
before a script validates. Reading is the only side effect. The model lives in
:mod:`audio.calls.model` and is re-exported here.
"""

from __future__ import annotations

import difflib
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.core.caller import Asset, CallerProfile
from agent.core.trace import VOCABULARY
from agent.service.controls import NAMES as AGENT_FAULT_NAMES
from audio.calls.model import (
    BOOKING_KEYS,
    DEFAULT_TIMEOUT_MS,
    FAULT_FLAGS,
    FAULT_OPS,
    MODES,
    STAFF_EDIT_KEYS,
    CallScript,
    Expect,
    ScriptInvalid,
    StaffEdit,
    Trigger,
    Turn,
    audio_problem,
)
from audio.calls.yamlnodes import Reader, compose

__all__ = ["BOOKING_KEYS", "DEFAULT_TIMEOUT_MS", "MODES", "CallScript", "Expect",
           "ScriptInvalid", "StaffEdit", "Trigger", "Turn", "load_script"]


def load_script(path) -> CallScript:
    """Read and validate one script. Raises ScriptInvalid naming file, line and key."""
    path = Path(path)
    reader = Reader(path)
    root = compose(path, reader)
    script = _script(reader, root) if root is not None else None
    if reader.errors or script is None:
        raise ScriptInvalid(path, reader.errors or [f"{path}:1: file: could not be read"])
    return script


# --------------------------------------------------------------------------- sections
_TOP = ("id", "title", "clock", "caller", "registry", "modes", "sandbox", "agent_faults",
        "turns", "expect")


def _script(r: Reader, root) -> CallScript | None:
    top = r.mapping(root, "", _TOP, required=("id", "clock", "caller", "turns"))
    if top is None:
        return None
    sid = r.text(top["id"], "id") if "id" in top else None
    title = r.text(top["title"], "title") if "title" in top else ""
    clock = _clock(r, top.get("clock"))
    caller = _caller(r, top.get("caller"))
    registry = _registry(r, top.get("registry"))
    modes = _modes(r, top.get("modes"))
    sandbox = r.mapping(top["sandbox"], "sandbox", ("bookings", "faults", "staff_edits")) \
        if "sandbox" in top else {}
    sandbox = sandbox or {}
    bookings = _records(r, sandbox.get("bookings"), "sandbox.bookings", BOOKING_KEYS)
    faults = _faults(r, sandbox.get("faults"))
    edits = _staff_edits(r, sandbox.get("staff_edits"), {dict(b).get("ref") for b in bookings})
    agent_faults = _agent_faults(r, top.get("agent_faults"))
    turns = _turns(r, top.get("turns"), modes)
    expect = _expect(r, top["expect"]) if "expect" in top else Expect()
    if r.errors:
        return None
    # Both keys are required, and a missing or unreadable one is an error above.
    assert clock is not None and caller is not None
    return CallScript(r.path, sid or "", title or "", clock, caller, registry, modes,
                      turns, bookings, faults, edits, agent_faults, expect)


def _clock(r: Reader, node) -> datetime | None:
    text = r.text(node, "clock") if node is not None else None
    if text is None:
        return None
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        r.error(node, "clock", f"{text!r} is not an ISO date-time; write e.g. "
                "\"2026-12-01T09:00:00+01:00\"")
        return None
    if instant.tzinfo is None:
        r.error(node, "clock", f"{text!r} has no UTC offset; add one, e.g. +01:00")
        return None
    return instant


def _caller(r: Reader, node) -> CallerProfile | None:
    if node is None:
        return None
    keys = r.mapping(node, "caller", ("tenant", "subject", "roles", "account", "assets",
                                      "name", "region"),
                     required=("tenant", "subject", "account", "assets"))
    if keys is None:
        return None
    get = {k: r.text(keys[k], f"caller.{k}") for k in ("tenant", "subject", "account", "name",
                                                        "region") if k in keys}
    roles = r.texts(keys["roles"], "caller.roles") if "roles" in keys else ()
    assets = []
    for i, item in enumerate(r.sequence(keys.get("assets"), "caller.assets") or []):
        where = f"caller.assets[{i}]"
        a = r.mapping(item, where, ("id", "configuration", "region", "site", "family",
                                    "title", "kind"), required=("id", "configuration", "region",
                                                        "site"))
        if a is not None and all(k in a for k in ("id", "configuration", "region", "site")):
            values = {k: r.text(v, f"{where}.{k}") for k, v in a.items()}
            if None not in values.values():
                assets.append(Asset(**values))  # type: ignore[arg-type]
    if "assets" in keys and not assets and not r.errors:
        r.error(keys["assets"], "caller.assets", "list at least one asset")
    if None in get.values() or roles is None or r.errors:
        return None
    text = {k: v for k, v in get.items() if v is not None}  # all of get: none is None
    return CallerProfile(tenant=text["tenant"], subject=text["subject"], roles=roles,
                         account=text["account"], assets=tuple(assets),
                         name=text.get("name") or "", region=text.get("region"))


def _registry(r: Reader, node) -> str:
    if node is None:
        return "default"
    text = r.text(node, "registry")
    if text is None or text == "default":
        return "default"
    target = (r.path.parent / text).resolve()
    if not target.is_file():
        r.error(node, "registry", f"{text!r} is neither 'default' nor an existing registry "
                f"file (looked for {target})")
    return str(target)


def _modes(r: Reader, node) -> tuple[str, ...]:
    if node is None:
        return MODES
    modes = r.texts(node, "modes") or ()
    for mode in modes:
        if mode not in MODES:
            r.error(node, "modes", f"unknown mode {mode!r}; use {list(MODES)}")
    return tuple(modes) or MODES


def _records(r: Reader, node, where: str, allowed: tuple[str, ...] | None):
    out = []
    for i, item in enumerate(r.sequence(node, where) or [] if node is not None else []):
        keys = r.mapping(item, f"{where}[{i}]", allowed) if allowed else \
            _open_mapping(r, item, f"{where}[{i}]")
        if keys is not None:
            out.append(tuple((k, r.plain(v, f"{where}[{i}].{k}")) for k, v in keys.items()))
    return tuple(out)


def _open_mapping(r: Reader, node, where: str):
    from yaml.nodes import MappingNode
    if not isinstance(node, MappingNode):
        return r.mapping(node, where, ())
    names = [k.value for k, _ in node.value]
    return r.mapping(node, where, names)


def _faults(r: Reader, node):
    faults = []
    for i, item in enumerate(r.sequence(node, "sandbox.faults") or [] if node else []):
        where = f"sandbox.faults[{i}]"
        keys = r.mapping(item, where, ("op", "nth", "delay_ms") + FAULT_FLAGS, required=("op",))
        if keys is None:
            continue
        fault: dict[str, Any] = {}
        op = r.text(keys["op"], f"{where}.op") if "op" in keys else None
        if op is not None and op not in FAULT_OPS:
            hint = difflib.get_close_matches(op, FAULT_OPS, n=1)
            r.error(keys["op"], f"{where}.op", f"unknown op {op!r}"
                    + (f"; did you mean {hint[0]!r}?" if hint else f"; use one of {FAULT_OPS}"))
        fault["op"] = op
        for k in ("nth", "delay_ms"):
            if k in keys:
                fault[k] = r.integer(keys[k], f"{where}.{k}", minimum=1 if k == "nth" else 0)
        for k in FAULT_FLAGS:
            if k in keys:
                fault[k] = r.boolean(keys[k], f"{where}.{k}")
        if not any(k in fault for k in ("delay_ms",) + FAULT_FLAGS):
            r.error(item, where, f"say what goes wrong: delay_ms or one of {FAULT_FLAGS}")
        faults.append(tuple(fault.items()))
    return tuple(faults)


def _staff_edits(r: Reader, node, refs: set):
    edits = []
    for i, item in enumerate(r.sequence(node, "sandbox.staff_edits") or [] if node else []):
        where = f"sandbox.staff_edits[{i}]"
        keys = r.mapping(item, where, ("after", "booking", "set", "optional"),
                         required=("after", "booking", "set"))
        if keys is None or not {"after", "booking", "set"} <= set(keys):
            continue
        trigger = _trigger(r, keys["after"], f"{where}.after")
        booking = r.text(keys["booking"], f"{where}.booking")
        if booking is not None and booking not in refs:
            r.error(keys["booking"], f"{where}.booking", f"no sandbox booking has ref {booking!r}"
                    f"; known refs: {sorted(x for x in refs if x)}")
        changes = r.mapping(keys["set"], f"{where}.set", STAFF_EDIT_KEYS) or {}
        optional = r.boolean(keys["optional"], f"{where}.optional") if "optional" in keys \
            else False
        if trigger is not None and booking is not None:
            edits.append(StaffEdit(r.line(item), trigger, booking, tuple(
                (k, r.plain(v, f"{where}.set.{k}")) for k, v in changes.items()), bool(optional)))
    return tuple(edits)


def _agent_faults(r: Reader, node) -> tuple[str, ...]:
    if node is None:
        return ()
    names = r.texts(node, "agent_faults") or ()
    for name in names:
        if name not in AGENT_FAULT_NAMES:
            hint = difflib.get_close_matches(name, AGENT_FAULT_NAMES, n=1)
            r.error(node, "agent_faults", f"unknown switch {name!r}"
                    + (f"; did you mean {hint[0]!r}?" if hint else
                       f"; known: {list(AGENT_FAULT_NAMES)}"))
    return names


def _trigger(r: Reader, node, where: str) -> Trigger | None:
    keys = r.mapping(node, where, ("event", "op", "field", "heard", "delay_ms", "timeout_ms"))
    if keys is None:
        return None
    if ("event" in keys) == ("heard" in keys):
        r.error(node, where, "give exactly one of event: NAME or heard: \"regex\"")
        return None
    event = r.text(keys["event"], f"{where}.event") if "event" in keys else None
    if event is not None and event not in VOCABULARY:
        hint = difflib.get_close_matches(event, sorted(VOCABULARY), n=1, cutoff=0.75)
        if hint:  # an unknown name close to a known one is a typo; others may be new events
            r.error(keys["event"], f"{where}.event", f"unknown event {event!r}; "
                    f"did you mean {hint[0]!r}?")
    if "heard" not in keys and not event:
        return None
    if "heard" in keys and ("op" in keys or "field" in keys):
        r.error(node, where, "op/field filters apply to event triggers only")
    return Trigger(
        event=event,
        op=r.text(keys["op"], f"{where}.op") if "op" in keys else None,
        field=r.text(keys["field"], f"{where}.field") if "field" in keys else None,
        heard=r.regex(keys["heard"], f"{where}.heard") if "heard" in keys else None,
        delay_ms=(r.integer(keys["delay_ms"], f"{where}.delay_ms") or 0)
        if "delay_ms" in keys else 0,
        timeout_ms=(r.integer(keys["timeout_ms"], f"{where}.timeout_ms", minimum=1)
                    or DEFAULT_TIMEOUT_MS) if "timeout_ms" in keys else DEFAULT_TIMEOUT_MS,
        timeout_given="timeout_ms" in keys)


def _turns(r: Reader, node, modes: tuple[str, ...]) -> tuple[Turn, ...]:
    turns = []
    items = r.sequence(node, "turns") if node is not None else None
    if items == []:
        r.error(node, "turns", "list at least one turn")
    for i, item in enumerate(items or []):
        where = f"turns[{i}]"
        keys = r.mapping(item, where, ("say", "audio", "after", "barge_in", "optional"),
                         required=("say",))
        if keys is None or "say" not in keys:
            continue
        say, confidence, alternatives = _say(r, keys["say"], f"{where}.say", modes)
        audio, written = None, ""
        if "audio" in keys:
            written = r.text(keys["audio"], f"{where}.audio") or ""
            if written:
                audio = (r.path.parent / written).resolve()
                problem = _audio_problem(written, audio)
                if problem is not None:
                    r.error(keys["audio"], f"{where}.audio", problem)
        after = _trigger(r, keys["after"], f"{where}.after") if "after" in keys else None
        flags = {k: r.boolean(keys[k], f"{where}.{k}") for k in ("barge_in", "optional")
                 if k in keys}
        if say is not None:
            turns.append(Turn(i + 1, r.line(item), say, confidence, alternatives, audio, after,
                              bool(flags.get("barge_in")), bool(flags.get("optional")),
                              written, r.line(keys.get("audio")) if audio else 0))
    return tuple(turns)


def _audio_problem(written: str, audio: Path) -> str | None:
    """Why a turn's `audio:` file cannot be played (None if it can): it is decoded in full
    now, in either mode, so a broken file makes the script INVALID before anything runs."""
    from audio.wav_input import AudioInputError, check_wav

    try:
        check_wav(audio)
    except AudioInputError as exc:
        return audio_problem(written, audio, exc.problem, exc.fix)
    return None


def _say(r: Reader, node, where: str, modes: tuple[str, ...]):
    from yaml.nodes import MappingNode
    if not isinstance(node, MappingNode):
        return r.text(node, where), 1.0, ()
    if "audio" in modes:
        r.error(node, where, "the {text, confidence, alternatives} form is text-only; "
                "add `modes: [text]` to the script")
    keys = r.mapping(node, where, ("text", "confidence", "alternatives"), required=("text",))
    if keys is None or "text" not in keys:
        return None, 1.0, ()
    confidence = r.number(keys["confidence"], f"{where}.confidence") \
        if "confidence" in keys else 1.0
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        r.error(keys["confidence"], f"{where}.confidence", "must be between 0 and 1")
    alternatives = r.texts(keys["alternatives"], f"{where}.alternatives") \
        if "alternatives" in keys else ()
    return r.text(keys["text"], f"{where}.text"), confidence or 0.0, alternatives or ()


def _expect(r: Reader, node) -> Expect:
    from audio.calls.expect_schema import read_expect
    return read_expect(r, node)
