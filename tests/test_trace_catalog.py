"""The trace-event catalog: every event the code emits is named in agent/core/trace.py's CATALOG,
nothing else is, and docs/call-scripts.md shows exactly what the generator makes of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.trace import CATALOG, CORE, TOPICS, VOCABULARY
from tools.trace_catalog import DOC, END, START, generated
from tools.trace_scan import scan_sources

ROOT = Path(__file__).resolve().parents[1]
FIX = "run `python tools/trace_catalog.py --write`"

TRACE = """
class Trace:
    def emit(self, name, *, question, revision, generation, request=None,
             disposition=None, **data):
        self.events.append((name, data))
"""

DESK = """
from agent.core.trace import Trace


class Context:
    def __init__(self, trace: Trace):
        self.trace = trace

    def emit(self, name, *, request=None, **data):
        self.trace.emit(name, question="q", revision=1, generation=0, request=request,
                        where="desk", **data)


class Desk:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def book(self, when):
        ctx = self.ctx
        ctx.emit("visit_booked", request="r1", when=when)
        extra = {"late": True} if when else {}
        self.ctx.emit("visit_checked", **extra)
        self._refuse(reason="full")

    def _refuse(self, **extra):
        self.ctx.emit("visit_refused", **extra)
"""

GATE = """
class Gate:
    def _emit(self, name, generation, **data):
        for listener in self.listeners:
            listener(name, generation, data)

    def stop(self):
        self._emit("gate_stopped", 3, reason="cut")
        self._emit("gate_internal", 3)
"""

ADAPTER = """
from agent.core.trace import Trace


class Adapter:
    def __init__(self, trace: Trace):
        self.trace = trace

    def on_gate_event(self, event):
        data = dict(event.data)
        if event.name == "gate_internal":
            return
        if event.name == "gate_stopped":
            data["late_ms"] = 4
        self.trace.emit(event.name, question="", revision=0, generation=event.generation,
                        **data)
"""

LOOSE = """
from agent.core.trace import Trace


def untyped(trace):
    trace.emit("lost_event", question="", revision=0, generation=0)


def computed(trace: Trace, names):
    for n in names:
        trace.emit(n, question="", revision=0, generation=0)


def unreadable(trace: Trace, extra):
    trace.emit("opaque_event", question="", revision=0, generation=0, **extra())
"""


def _scan(**modules: str):
    return scan_sources({"agent/core/trace.py": TRACE, **{f"pkg/{name}.py": text
                                                     for name, text in modules.items()}},
                        relays={"pkg.adapter:Adapter.on_gate_event": "pkg.gate:Gate._emit"})


# ------------------------------------------------------------------ controls: the scanner itself
def test_scanner_follows_wrappers_pass_throughs_and_local_dicts():
    found = _scan(desk=DESK, gate=GATE, adapter=ADAPTER)
    assert found.errors == []
    events = found.events()
    assert events["visit_booked"] == (["pkg.desk"], {"request": True, "when": True,
                                                     "where": True})
    assert events["visit_checked"] == (["pkg.desk"], {"late": False, "where": True})
    assert events["visit_refused"] == (["pkg.desk"], {"reason": True, "where": True})


def test_scanner_takes_a_relays_names_from_its_source_and_drops_what_it_keeps():
    found = _scan(desk=DESK, gate=GATE, adapter=ADAPTER)
    events = found.events()
    assert events["gate_stopped"] == (["pkg.gate"], {"reason": True, "late_ms": True})
    assert "gate_internal" not in events
    assert found.dropped == {"pkg.adapter:Adapter.on_gate_event": ["gate_internal"]}


PROTOCOL = """
from typing import Protocol

from pkg.desk import Context


class Booking(Protocol):
    ctx: Context

    def emit(self, name, **data) -> None:
        \"\"\"Record ``name`` for this booking.\"\"\"
        ...


def settle(b: Booking):
    b.emit("visit_settled", outcome="done")
"""

BOOKER = """
from pkg.desk import Context
from pkg.protocol import Booking


class Booker(Booking):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def emit(self, name, **data):
        self.ctx.emit(name, booker="b1", **data)
"""


def test_scanner_follows_a_receiver_typed_by_a_protocol_to_its_implementer():
    """A module typing a receiver by a Protocol (to avoid importing the class) reaches the
    code of the one class that names that Protocol as its base."""
    found = _scan(desk=DESK, gate=GATE, adapter=ADAPTER, protocol=PROTOCOL, booker=BOOKER)
    assert found.errors == []
    assert found.events()["visit_settled"] == (["pkg.protocol"], {
        "outcome": True, "booker": True, "where": True})


def test_scanner_refuses_to_guess():
    errors = _scan(desk=DESK, gate=GATE, adapter=ADAPTER, loose=LOOSE).errors
    assert any("loose.py:6: cannot tell which `emit`" in e for e in errors), errors
    assert any("loose.py:11: an event name computed at run time" in e for e in errors), errors
    assert any("loose.py:15: cannot read the keys of this ** argument" in e for e in errors)


def test_a_relay_that_is_gone_is_an_error():
    errors = _scan(desk=DESK).errors  # neither the gate nor the adapter exists
    assert any("RELAYS names pkg.adapter:Adapter.on_gate_event" in e for e in errors)


# ------------------------------------------------------------------ the real code and docs
@pytest.fixture(scope="module")
def real():
    section, found = generated(ROOT)
    return section, found


def test_the_code_can_be_scanned_without_guessing(real):
    _, found = real
    assert found.errors == [], "\n".join(found.errors)
    assert len(found.events()) >= 30  # a scanner that finds nothing proves nothing


def test_every_emitted_event_is_in_the_catalog(real):
    _, found = real
    missing = {name: modules for name, (modules, _) in found.events().items()
               if name not in CATALOG}
    assert not missing, (f"emitted but not in agent/core/trace.py CATALOG: {missing}; add a "
                         f"one-line meaning there, then {FIX}")


def test_the_catalog_lists_only_events_the_code_emits(real):
    _, found = real
    stale = sorted(set(CATALOG) - set(found.events()))
    assert not stale, f"in CATALOG but emitted nowhere: {stale}; remove them, then {FIX}"


def test_topics_place_every_catalog_event_once():
    placed = [name for names in TOPICS.values() for name in names]
    assert sorted(placed) == sorted(CATALOG)
    assert CORE <= set(CATALOG)
    assert VOCABULARY == frozenset(CATALOG)


def test_the_docs_show_what_the_generator_makes(real):
    section, _ = real
    text = DOC.read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1, f"{DOC.name} lost its markers"
    shown = START + text.split(START, 1)[1].split(END, 1)[0] + END
    assert shown == section, f"{DOC.name}: the trace catalog is out of date; {FIX}"


def test_a_trigger_may_wait_for_any_catalog_event(tmp_path):
    """The script validator reads the same vocabulary: a typo of a catalog name is caught."""
    from audio.calls.script import ScriptInvalid, load_script

    script = tmp_path / "typo.yaml"
    script.write_text("""id: typo
clock: "2026-12-01T09:00:00+01:00"
caller: {tenant: acme, subject: tech-17, roles: [technician], account: ACME-001,
         assets: [{id: P-100, configuration: C2, region: EU, site: "12 Harbour Road"}]}
turns:
  - say: "Book P-100 on Thursday morning."
  - say: "Yes."
    after: {event: dispatch_refusd}
""", encoding="utf-8")
    with pytest.raises(ScriptInvalid) as caught:
        load_script(script)
    assert "did you mean 'dispatch_refused'?" in str(caught.value)
