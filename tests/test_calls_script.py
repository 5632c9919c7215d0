"""Call-script validation: every error names file, line and key, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from audio.calls.script import ScriptInvalid, load_script

GOOD = """id: sample
clock: "2026-12-01T09:00:00+01:00"
caller:
  tenant: acme
  subject: tech-17
  roles: [technician]
  account: ACME-001
  assets:
    - {id: P-100, configuration: C2, region: EU, site: "12 Harbour Road"}
sandbox:
  bookings:
    - {ref: VISIT, asset: P-100, date: 2026-12-08, window: morning, time: 10:00}
  faults:
    - {op: create_booking, delay_ms: 1500, nth: 2}
  staff_edits:
    - after: {event: confirmation_requested}
      booking: VISIT
      set: {window: afternoon}
turns:
  - say: "Book P-100 on Thursday morning."
  - say: "Yes."
    after: {event: action_dispatched, op: create_booking, delay_ms: 100, timeout_ms: 5000}
    barge_in: true
    optional: true
  - say: "Thanks."
    after: {heard: "booked"}
expect:
  bookings:
    - {asset: P-100, date: 2026-12-03, time: 10:00}
  fields:
    visit_date: {value: 2026-12-03, status: confirmed, min_version: 2}
  heard: {include: "booked", exclude: ["Wednesday"]}
  clarified: [visit_date]
  handoff: false
  citations: {include: [nw-bulletin-b]}
  outcome: RESOLVED
"""


def load(tmp_path: Path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return load_script(path), path


def errors(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ScriptInvalid) as info:
        load_script(path)
    return list(info.value.errors)


def test_valid_script_keeps_unquoted_dates_and_times_as_iso_text(tmp_path):
    script, _ = load(tmp_path, GOOD)
    assert dict(script.bookings[0])["date"] == "2026-12-08"
    assert dict(script.bookings[0])["time"] == "10:00"  # YAML 1.1 would make it 600
    assert dict(script.expect.bookings[0])["time"] == "10:00"
    assert dict(dict(script.expect.fields)["visit_date"])["value"] == "2026-12-03"
    turn = script.turns[1]
    assert (turn.after.event, turn.after.op, turn.after.delay_ms, turn.after.timeout_ms) == (
        "action_dispatched", "create_booking", 100, 5000)
    assert turn.barge_in and turn.optional
    assert script.turns[2].after.heard == "booked"
    assert script.expect.heard_include == ("booked",)
    assert script.staff_edits[0].booking == "VISIT"
    assert script.modes == ("text", "audio")
    assert script.clock.utcoffset().total_seconds() == 3600


@pytest.mark.parametrize("old,new,expected", [
    ("clock: ", "clok: ", ":2: clok: unknown key; did you mean 'clock'?"),
    ("    after: {event: action", "    after: {evnt: action",
     ":22: turns[1].after.evnt: unknown key; did you mean 'event'?"),
    ("{event: confirmation_requested}", "{event: confirmation_requestd}",
     ":16: sandbox.staff_edits[0].after.event: unknown event 'confirmation_requestd'; "
     "did you mean 'confirmation_requested'?"),
    ("op: create_booking, delay", "op: create_bookin, delay",
     ":14: sandbox.faults[0].op: unknown op 'create_bookin'; did you mean 'create_booking'?"),
    ("barge_in: true", "barge_in: sometimes", ":23: turns[1].barge_in: must be true or false"),
    ('"2026-12-01T09:00:00+01:00"', '"2026-12-01T09:00:00"', ":2: clock: '2026-12-01T09:00:00' "
     "has no UTC offset"),
    ('{heard: "booked"}', '{heard: "(booked"}', ":26: turns[2].after.heard: not a valid "
     "regular expression"),
    ("booking: VISIT", "booking: VISTI", ":17: sandbox.staff_edits[0].booking: no sandbox "
     "booking has ref 'VISTI'"),
    ("status: confirmed, min", "status: done, min", ":31: expect.fields.visit_date.status: "
     "unknown status 'done'"),
    ("timeout_ms: 5000", "timeout_ms: soon", ":22: turns[1].after.timeout_ms: must be a whole "
     "number"),
    ("  roles: [technician]\n", "  roles: [technician]\n  role: admin\n",
     ":7: caller.role: unknown key; did you mean 'roles'?"),
    ("set: {window: afternoon}", "set: {asset: P-200}",  # the staff endpoint cannot move it
     ":18: sandbox.staff_edits[0].set.asset: unknown key"),
])
def test_bad_script_names_file_line_and_key(tmp_path, old, new, expected):
    assert old in GOOD
    found = errors(tmp_path, GOOD.replace(old, new, 1))
    assert any(expected in e and e.startswith(str(tmp_path / "s.yaml")) for e in found), found


def test_every_problem_is_reported_at_once(tmp_path):
    found = errors(tmp_path, GOOD.replace("clock: ", "clok: ").replace("barge_in: true",
                                                                        "barge_in: 3"))
    assert len(found) >= 3  # clok unknown, clock missing, barge_in not a boolean


def test_unknown_agent_fault_switch_is_rejected(tmp_path):
    found = errors(tmp_path, GOOD.replace("turns:", "agent_faults: [gate_of]\nturns:"))
    assert any("unknown switch 'gate_of'; did you mean 'gate_off'?" in e for e in found)


@pytest.mark.parametrize("text,expected", [
    ("", "is empty"),
    ("id: [unclosed\n", "yaml:"),
    ("- just\n- a list\n", "must be a mapping"),
    ("id: x\nclock: \"2026-12-01T09:00:00+01:00\"\ncaller: {tenant: a, subject: b, account: c,"
     " assets: []}\nturns: []\n", "list at least one"),
])
def test_malformed_files_are_invalid_not_crashes(tmp_path, text, expected):
    assert any(expected in e for e in errors(tmp_path, text))


def test_missing_file_and_registry_are_named(tmp_path):
    with pytest.raises(ScriptInvalid, match="cannot be read"):
        load_script(tmp_path / "absent.yaml")
    found = errors(tmp_path, GOOD.replace("turns:", "registry: nowhere.yaml\nturns:"))
    assert any("registry: 'nowhere.yaml' is neither 'default' nor an existing registry file"
               in e for e in found)


def test_every_pack_script_validates():
    pack = sorted((Path(__file__).parent / "calls").glob("*.yaml"))
    assert pack
    for path in pack:
        script = load_script(path)
        assert script.id == path.stem
        assert script.clock.year == 2026  # scripts written blind pick their own day
        # the demo registry, or a registry file the pack keeps in registries/ (56, 57)
        assert script.registry == "default" or Path(script.registry).parent.name == "registries"
