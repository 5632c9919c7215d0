"""The call runner against a small fake world: triggers, barge-in, end of call, verdicts.

The fake agent books visits from two phrasings and confirms from the record it wrote, so the
runner and the judge can be tested without the real controller. Playback runs ten times
faster than the contract's 15 characters per second to keep the file fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path

import pytest

from agent.core.ledger import Ledger
from agent.core.speech import Generations, SpeechKind, SpeechPlan, Utterance
from agent.core.trace import Trace
from agent.service.controls import AgentFaults
from audio.calls import runner
from audio.calls.evidence import Verdict
from audio.calls.mode import TextMode
from audio.calls.report import build_report, exit_code
from audio.calls.runner import run_calls
from audio.calls.script import load_script

FAST = 150.0  # characters per second in these tests
SLOW_WORK_S = 0.6  # how long the "slow" fake agent works on a turn


@pytest.fixture(autouse=True)
def quick_timing(monkeypatch):
    monkeypatch.setattr(runner, "END_QUIET_S", 0.3)
    monkeypatch.setattr(runner, "TURN_GAP_S", 0.05)
    monkeypatch.setattr(runner, "END_LIMIT_S", 3.0)


class FakeAgent:
    """Books "<asset> on <date> <window>" after a yes; corrections re-ask before booking."""

    def __init__(self, world: FakeWorld, sink, trace: Trace, faults: AgentFaults,
                 behaviour: str):
        self.world, self.sink, self.trace, self.faults = world, sink, trace, faults
        self.behaviour = behaviour
        self._ledger = Ledger("q-1")
        self.gens = Generations()
        self.pending: dict[str, str] | None = None
        self.tasks: set[asyncio.Task] = set()

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    def emit(self, name: str, **data) -> None:
        snap = self._ledger.current
        self.trace.emit(name, question=snap.question, revision=snap.revision,
                        generation=self.gens.current, **data)

    def say(self, *sentences: str, kind=SpeechKind.INFO, record=None) -> SpeechPlan:
        generation = self.gens.next()
        plan = SpeechPlan(generation, "q-1", self._ledger.revision, sentences, kind, record)
        self.sink.speak(plan)
        return plan

    async def start(self) -> None:
        self.say("Hello, fake service line.")

    async def user_turn(self, utterance: Utterance) -> None:
        self.emit("user_turn_final", text=utterance.text)
        if self.behaviour == "crash":
            raise RuntimeError("fake agent bug")
        if self.behaviour == "slow" and "slowly" in utterance.text:
            # An agent on a busy machine: its answer (a question) takes longer than the
            # next turn's trigger timeout. The sleep stands for that work, not for an order.
            await asyncio.sleep(SLOW_WORK_S)
            self.emit("clarification_requested", fields=["visit_date"])
            self.say("Which day?", kind=SpeechKind.QUESTION)
            return
        text = utterance.text.lower()
        slot = re.search(r"(p-\d+) on (2026-\d\d-\d\d) (morning|afternoon)", text)
        if slot:
            asset, day, window = slot.groups()
            changed = self._ledger.set("visit_date", day, "utterance").changed
            if changed:
                self.emit("field_accepted", fields=list(changed),
                          versions={"visit_date": self._ledger.current.version("visit_date")})
            self.pending = {"asset": asset.upper(), "date": day, "window": window}
            self.emit("action_proposed", op="create_booking", request="k1",
                      vector={"visit_date": self._ledger.current.version("visit_date")})
            self.emit("confirmation_requested", fields=["visit_date"], op="create_booking")
            self.say("Shall I book that?", kind=SpeechKind.QUESTION)
        elif text.startswith("yes") and self.pending:
            self.emit("action_dispatched", op="create_booking", request="k1")
            record = self.world.create(self.pending)
            self.emit("action_committed", op="create_booking", request="k1", ref=record["ref"])
            spoken = dict(record)
            if self.behaviour == "lie":
                spoken["date"] = "2026-12-09"
            plan = self.say(f"It is booked for {spoken['date']} in the {spoken['window']}.",
                            "Anything else?", kind=SpeechKind.CONFIRMATION,
                            record=(record["ref"], record["version"]))
            self.emit("confirmation_spoken", ref=record["ref"], version=record["version"],
                      spoken_generation=plan.generation,
                      **{k: spoken[k] for k in ("asset", "date", "window")})
        elif "withdrawn" in text:  # the agent changes its mind while it is still speaking
            plan = self.say("This answer is about to become stale, please wait a moment.")
            self.emit("generation_invalidated", invalidated=plan.generation)
            if self.behaviour != "no_flush":
                self.sink.invalidate(plan.generation, "answer_changed")
            self.say("Here is the current answer.")
        else:
            self.say("Sorry, I did not get that, could you say it again please?")

    def barge_in(self) -> None:
        stale = self.gens.invalidate()
        self.emit("generation_invalidated", invalidated=stale)
        if self.behaviour != "no_flush":
            self.sink.invalidate(stale, "barge_in")

    @property
    def busy(self) -> bool:
        return self.behaviour == "forever_busy"

    async def wait_idle(self) -> None:
        if self.behaviour == "forever_busy":
            await asyncio.Event().wait()

    async def close(self) -> None:
        self._ledger.close()


class FakeWorld:
    def __init__(self, spec, sink, trace, behaviour: str):
        self.spec = spec
        self.records = [dict(b, version=int(b.get("version", 1))) for b in spec.booking_dicts()]
        self.notes: list[dict] = []
        self.agent = FakeAgent(self, sink, trace, spec.agent_faults, behaviour)

    @property
    def conversation(self):
        return self.agent

    def create(self, values: dict) -> dict:
        record = dict(values, ref=f"B{len(self.records) + 1}", account=self.spec.caller.account,
                      status="confirmed", version=1)
        self.records.append(record)
        self.notes.append({"id": len(self.notes) + 1, "account": record["account"],
                           "booking_ref": record["ref"], "booking_version": 1,
                           "kind": "confirmation"})
        return dict(record)

    async def bookings(self):
        return [dict(r) for r in self.records]

    async def notifications(self):
        return [dict(n) for n in self.notes]

    async def staff_edit(self, ref, changes):
        for record in self.records:
            if record.get("ref") == ref:
                record.update(changes, version=record["version"] + 1)

    def meta(self):
        return {"tool_schema_version": "fake"}


def factory(behaviour: str = "good"):
    @contextlib.asynccontextmanager
    async def build(spec, sink, trace):
        if behaviour == "no_setup":
            raise RuntimeError("sandbox would not start")
        yield FakeWorld(spec, sink, trace, behaviour)
    return build


def text_mode(trace):
    return TextMode(trace, chars_per_second=FAST)


HEADER = """id: {id}
clock: "2026-12-01T09:00:00+01:00"
caller:
  tenant: acme
  subject: tech-17
  roles: [technician]
  account: ACME-001
  assets:
    - {{id: P-100, configuration: C2, region: EU, site: "12 Harbour Road"}}
"""

BOOKING = HEADER + """turns:
  - say: "Book P-100 on 2026-12-03 morning please."
  - say: "Yes."
    after: {{event: confirmation_requested}}
expect:
  bookings:
    - {{asset: P-100, date: 2026-12-03, window: morning, status: confirmed}}
  notifications:
    - {{kind: confirmation, booking: B1}}
  confirmed:
    - {{asset: P-100, date: 2026-12-03}}
  fields:
    visit_date: {{value: 2026-12-03, min_version: 1, status: confirmed}}
  heard:
    include: ["booked for 2026-12-03"]
    exclude: ["2026-12-09"]
"""


def write(tmp_path: Path, name: str, text: str, **fmt) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.format(id=name, **fmt))
    return path


async def run(paths, behaviour="good", **kw):
    results, skipped = await run_calls([str(p) for p in paths], "text", factory(behaviour),
                                       text_mode, **kw)
    return results


@pytest.mark.anyio
async def test_booking_confirmed_from_the_record_passes_with_measures(tmp_path):
    [result] = await run([write(tmp_path, "ok", BOOKING)])
    assert result.verdict is Verdict.PASS, result.violations
    assert result.measures["confirmation_fidelity"] == "pass"
    assert result.measures["correction_capture"] == "n/a"
    assert result.latency_ms["voice_to_voice"], "a turn was answered, so a sample exists"
    report = build_report([result], "text", {"stt": "none", "tts": "none"})
    assert report["calls"][0]["verdict"] == "PASS"
    assert "verdict" not in report["meta"]
    assert set(report["meta"]) >= {"version", "mode", "stt", "tts", "started",
                                   "tool_schema_version"}
    assert exit_code([result]) == 0


@pytest.mark.anyio
async def test_confirmation_that_differs_from_the_record_fails_the_severity_gate(tmp_path):
    [result] = await run([write(tmp_path, "lie", BOOKING)], behaviour="lie")
    assert result.verdict is Verdict.FAIL
    assert any(v.startswith("SEVERITY false confirmation") for v in result.violations)
    assert result.measures["confirmation_fidelity"] == "fail"
    assert exit_code([result]) == 1


@pytest.mark.anyio
async def test_required_trigger_that_never_fires_is_invalid(tmp_path):
    text = HEADER + """turns:
  - say: "Hello there."
  - say: "Yes."
    after: {{event: action_dispatched, op: create_booking, timeout_ms: 300}}
"""
    [result] = await run([write(tmp_path, "never", text)])
    assert result.verdict is Verdict.INVALID
    assert "did not fire within 300 ms" in result.violations[0]
    assert set(result.measures.values()) == {"n/a"}
    assert exit_code([result]) == 2


@pytest.mark.anyio
async def test_optional_turn_whose_trigger_never_fires_is_skipped(tmp_path):
    text = BOOKING.replace("expect:", """  - say: "Yes."
    after: {{event: clarification_requested, timeout_ms: 200}}
    optional: true
expect:""")
    [result] = await run([write(tmp_path, "optional", text)])
    assert result.verdict is Verdict.PASS, result.violations
    assert result.evidence.transcripts == ("Book P-100 on 2026-12-03 morning please.", "Yes.")


@pytest.mark.anyio
async def test_a_trigger_timeout_counts_from_when_the_agent_took_the_previous_turn(tmp_path):
    """The agent needs SLOW_WORK_S (600 ms) to ask its question; the answer's trigger allows
    200 ms. The timeout starts once the agent has taken the turn and finished with it, so a
    slow agent (a loaded machine) is waited for, and the answer is given."""
    text = HEADER + """turns:
  - say: "Please book it slowly."
  - say: "Thursday."
    after: {{event: clarification_requested, timeout_ms: 200}}
"""
    [result] = await run([write(tmp_path, "slow", text)], behaviour="slow")
    assert result.verdict is Verdict.PASS, result.violations
    assert result.evidence.transcripts == ("Please book it slowly.", "Thursday.")


@pytest.mark.anyio
async def test_a_trigger_that_never_fires_after_a_slow_turn_still_times_out(tmp_path):
    text = HEADER + """turns:
  - say: "Please book it slowly."
  - say: "Yes."
    after: {{event: action_dispatched, timeout_ms: 200}}
"""
    [result] = await run([write(tmp_path, "slow-never", text)], behaviour="slow")
    assert result.verdict is Verdict.INVALID
    assert "did not fire within 200 ms" in result.violations[0]


@pytest.mark.anyio
async def test_barge_in_cuts_playback_and_records_what_was_heard(tmp_path):
    text = HEADER + """turns:
  - say: "Something unclear."
  - say: "Book P-100 on 2026-12-03 morning please."
    after: {{heard: "did not get"}}
    barge_in: true
expect:
  heard:
    exclude: ["say it again please"]
"""
    [result] = await run([write(tmp_path, "barge", text)])
    assert result.verdict is Verdict.PASS, result.violations
    cut = [h for h in result.evidence.heard if h.reason == "barge_in"]
    assert cut and 0 < cut[0].heard_chars < len(cut[0].text)
    stopped = [e for e in result.evidence.events if e.name == "agent_speech_stopped"
               and e.get("reason") == "barge_in"]
    assert stopped and stopped[0].get("completed") is False


@pytest.mark.anyio
async def test_invalidated_generation_that_keeps_playing_fails_no_stale_audio(tmp_path):
    text = HEADER + """turns:
  - say: "A question whose answer is withdrawn."
expect:
  heard:
    include: ["current answer"]
"""
    [good] = await run([write(tmp_path, "flush", text)])
    assert good.verdict is Verdict.PASS, good.violations
    assert [h.heard_chars for h in good.evidence.heard if "stale" in h.text] == [0]
    [result] = await run([write(tmp_path, "noflush", text)], behaviour="no_flush")
    assert result.verdict is Verdict.FAIL
    assert any(v.startswith("invariant 5") for v in result.violations), result.violations


@pytest.mark.anyio
async def test_staff_edit_happens_on_its_trigger_and_is_not_blamed_on_the_agent(tmp_path):
    text = BOOKING.replace("turns:", """sandbox:
  bookings:
    - {{ref: OLD, account: ACME-001, asset: P-100, date: 2026-12-10, window: morning,
       status: confirmed}}
  staff_edits:
    - after: {{event: confirmation_requested}}
      booking: OLD
      set: {{window: afternoon}}
turns:""").replace("""  bookings:
    - {{asset: P-100, date: 2026-12-03""", """  bookings:
    - {{ref: OLD, window: afternoon, version: 2}}
    - {{asset: P-100, date: 2026-12-03""").replace("booking: B1", "booking: B2")
    [result] = await run([write(tmp_path, "staff", text)])
    assert result.verdict is Verdict.PASS, result.violations


@pytest.mark.anyio
async def test_agent_faults_outside_a_test_run_are_invalid(tmp_path, monkeypatch):
    monkeypatch.delenv("AMEND_ALLOW_AGENT_FAULTS", raising=False)
    text = BOOKING.replace("turns:", "agent_faults: [gate_off]\nturns:")
    [result] = await run([write(tmp_path, "faults", text)])
    assert result.verdict is Verdict.INVALID
    assert "exist only in test runs" in result.violations[0]


@pytest.mark.anyio
async def test_malformed_script_is_invalid_and_names_file_line_and_key(tmp_path):
    path = write(tmp_path, "bad", BOOKING.replace("after: {{event:", "after: {{evnt:"))
    [result] = await run([path])
    assert result.verdict is Verdict.INVALID
    assert any(f"{path}:13: turns[1].after.evnt: unknown key; did you mean 'event'?" in v
               for v in result.violations), result.violations


@pytest.mark.anyio
async def test_fixture_that_does_not_set_up_is_invalid(tmp_path):
    [result] = await run([write(tmp_path, "nosetup", BOOKING)], behaviour="no_setup")
    assert result.verdict is Verdict.INVALID
    assert "fixture did not set up" in result.violations[0]


@pytest.mark.anyio
async def test_agent_that_raises_is_a_product_failure_not_a_harness_one(tmp_path):
    [result] = await run([write(tmp_path, "crash", BOOKING)], behaviour="crash")
    assert result.verdict is Verdict.FAIL
    assert "fake agent bug" in result.violations[0]


@pytest.mark.anyio
async def test_call_that_never_goes_idle_is_invalid(tmp_path):
    text = HEADER + """turns:
  - say: "Hello."
    after: {{event: agent_speech_stopped}}
"""
    [result] = await run([write(tmp_path, "busy", text)], behaviour="forever_busy")
    assert result.verdict is Verdict.INVALID
    assert "did not end" in result.violations[0]


@pytest.mark.anyio
async def test_artifacts_are_written_per_call(tmp_path):
    out = tmp_path / "art"
    await run([write(tmp_path, "arts", BOOKING)], artifacts=out)
    folder = out / "arts"
    names = {p.name for p in folder.iterdir()}
    assert names >= {"trace.jsonl", "bookings.json", "notifications.json", "fields.json",
                     "heard.txt", "transcripts.txt", "timeline.png"}
    first = json.loads((folder / "trace.jsonl").read_text().splitlines()[0])
    assert first["event"] == "agent_speech_started"
    assert json.loads((folder / "fields.json").read_text())["visit_date"]["version"] == 1


def test_text_only_say_form_needs_modes_text(tmp_path):
    from audio.calls.script import ScriptInvalid

    text = HEADER + """turns:
  - say: {{text: "fifteen", confidence: 0.4, alternatives: ["fifty"]}}
"""
    with pytest.raises(ScriptInvalid, match="text-only; add `modes: \\[text\\]`"):
        load_script(write(tmp_path, "textonly", text))
    script = load_script(write(tmp_path, "textok", text.replace("turns:", "modes: [text]\nturns:")))
    assert script.turns[0].alternatives == ("fifty",)
