"""The API says what it does: ``schemathesis run --checks all`` as a test.

Every schemathesis check (server errors; status codes, content types, headers and bodies as
declared; schema-valid data accepted and the rest refused; missing required headers; ignored
auth; undeclared methods answered 405 with ``Allow``; links between operations ...) runs in all
three generating phases (coverage: boundaries, missing headers, undeclared methods; fuzzing;
stateful: sequences along links) with a fixed seed and a bounded number of examples. Their
configuration is ``tests/schemathesis.toml``, the file the CLI is given: it holds only
what OpenAPI cannot say. The engine is driven directly (the pytest plugin does not load under
pytest 9); the ``slow`` test runs the real CLI against a real ``amend sandbox serve`` process.

``/openapi.json`` (the booking API) and ``/admin/openapi.json`` (the test harness: it injects
faults and resets, so it runs against a server of its own) are each checked.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema

from tools_sandbox.server import serve_in_background

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261203
MAX_EXAMPLES = 20  # per operation and phase; ~15 s for the booking API on a quiet machine
PHASES = ["coverage", "fuzzing", "stateful"]


def schemathesis_config() -> SchemathesisConfig:
    """tests/schemathesis.toml, its hooks file found from the root wherever pytest
    runs (the CLI resolves it from the working directory)."""
    data = tomllib.loads((ROOT / "tests" / "schemathesis.toml").read_text(encoding="utf-8"))
    data["hooks"] = str(ROOT / data["hooks"])
    config = SchemathesisConfig.from_dict(data)
    config.update(seed=SEED, max_failures=None)
    return config


def run_all_checks(schema_url: str, headers: dict[str, str] | None = None,
                   max_examples: int = MAX_EXAMPLES) -> tuple[list[str], dict[str, int], set]:
    """Run every check over every operation of ``schema_url``: (problems, cases per phase,
    operations tested). A problem is a failed check or an error, with a curl to replay it."""
    config = schemathesis_config()
    project = config.projects.override
    # workers=1: CPython 3.11's ast.parse is not thread-safe; hypothesis calls it to describe
    # a lambda, and two workers made it raise "AST constructor recursion depth mismatch".
    project.update(headers=headers, workers=1)
    project.checks.update(included_check_names=["all"])
    project.phases.update(phases=PHASES)
    project.generation.update(max_examples=max_examples)
    schema = schemathesis.openapi.from_url(schema_url, config=config)
    problems: list[str] = []
    cases: dict[str, int] = {}
    tested: set[str] = set()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            cases[event.phase.value] = cases.get(event.phase.value, 0) + len(event.recorder.cases)
            tested |= {node.value.operation.label for node in event.recorder.cases.values()}
            for case_id, checks in event.recorder.checks.items():
                for check in checks:
                    if check.failure_info is not None:
                        failure = check.failure_info.failure
                        problems.append(f"{failure.operation} [{check.name}] {failure.title}: "
                                        f"{failure.message}\n    {check.failure_info.code_sample}")
                    elif check.status is Status.ERROR:
                        problems.append(f"{case_id} [{check.name}] errored")
        elif isinstance(event, events.NonFatalError):
            problems.append(f"{event.label}: {event.info.format()}")
        elif isinstance(event, events.FatalError):
            problems.append(f"fatal: {event.exception!r}")
        elif isinstance(event, events.EngineFinished):
            problems += [f"{f.operation} {f.title}: {f.message}" for f in event.failures]
    return sorted(set(problems)), cases, tested


@pytest.fixture(scope="module")
def sandbox(sandbox_db):
    with serve_in_background(sandbox_db, seed=13) as handle:
        handle.admin.seed("acme", [{"ref": "BK-SEEDED", "account": "ACME-001",
                                    "asset": "P-100", "date": "2026-12-03",
                                    "window": "morning"}])
        handle.token = handle.admin.mint("acme", "tech-17", "ACME-001")
        yield handle


@pytest.fixture
def api(sandbox):
    with httpx.Client(base_url=sandbox.base_url, timeout=5,
                      headers={"Authorization": f"Bearer {sandbox.token}"}) as client:
        yield client


def document(sandbox, path: str = "/openapi.json") -> dict:
    return httpx.get(f"{sandbox.base_url}{path}").json()


# ---------------------------------------------------------------- what the document says

def test_openapi_declares_the_idempotency_and_precondition_contract(sandbox):
    post = document(sandbox)["paths"]["/v1/bookings/{ref}/reschedule"]["post"]
    headers = {p["name"]: p for p in post["parameters"] if p["in"] == "header"}
    assert {"Idempotency-Key", "If-Match", "Amend-Revision"} <= set(headers)
    assert headers["Idempotency-Key"]["required"] and not headers["If-Match"]["required"]
    assert {"400", "401", "404", "409", "412", "422", "428", "503"} <= set(post["responses"])
    state = document(sandbox)["paths"]["/v1/handoffs/{hid}/state"]["put"]
    assert [p["required"] for p in state["parameters"] if p["name"] == "If-Match"] == [True]


def test_every_error_is_declared_with_the_one_error_shape(sandbox):
    for path, item in document(sandbox)["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            if "requestBody" in operation:
                assert "400" in responses, (method, path)  # malformed_body
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, (method, path)


def test_the_test_harness_is_published_apart_from_the_booking_api(sandbox):
    assert not [p for p in document(sandbox)["paths"] if p.startswith("/admin")]
    admin = document(sandbox, "/admin/openapi.json")["paths"]
    assert {"/admin/tokens", "/admin/seed", "/admin/faults", "/admin/reset"} <= set(admin)
    assert httpx.get(f"{sandbox.base_url}/admin/docs").status_code == 200


def test_dates_and_times_in_the_schema_are_exactly_what_the_api_accepts(sandbox):
    props = document(sandbox)["components"]["schemas"]["BookingCreate"]["properties"]
    date, time = props["date"], props["time"]["anyOf"][0]
    assert date["format"] == "date"
    dates = {"2026-12-03": True, "0001-01-01": True, "9999-12-31": True, "2024-02-29": True,
             "0000-01-01": False, "2023-02-29": False, "2026-12-3": False, "20261203": False,
             "2026-W49-4": False, " 2026-12-03": False, "2026-12-03T00:00": False,
             "\uff12\uff10\uff12\uff16-12-03": False}  # full-width digits
    times = {"08:00": True, "12:00": True, "13:00": True, "16:59": True, "17:00": True,
             "07:59": False, "12:01": False, "12:30": False, "17:01": False, "9:00": False,
             "09:00:00": False, " 09:00": False}
    for field, pattern, table in (("date", date["pattern"], dates),
                                  ("time", time["pattern"], times)):
        for i, (value, valid) in enumerate(table.items()):
            # The schema's verdict: its pattern and, for a date, `format: date` (a real day).
            said = bool(re.search(pattern, value)) and (field == "time" or _is_day(value))
            assert said is valid, value
            body = {"asset": "P-100", "date": "2026-12-03", "window": None, "time": "09:00",
                    "site": "12 Harbour Road", field: value}
            response = httpx.post(f"{sandbox.base_url}/v1/bookings", json=body, headers={
                "Authorization": f"Bearer {sandbox.token}", "Idempotency-Key": f"{field}:{i}"})
            assert (response.status_code in (201, 409)) is valid, (value, response.text)
            if not valid:
                assert field in response.json()["error"]["message"], response.text


def _is_day(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def test_slots_near_the_end_of_the_calendar_list_the_days_that_exist(api):
    slots = api.get("/v1/slots", params={"start": "9999-12-30", "days": 7}).json()["slots"]
    assert sorted({s["date"] for s in slots}) == ["9999-12-30", "9999-12-31"]
    refused = api.get("/v1/slots", params={"start": "2026-02-30"})
    assert refused.status_code == 422 and "calendar date" in refused.text


def test_undeclared_methods_are_405_with_an_allow_header_naming_every_method(sandbox):
    for path, item in document(sandbox)["paths"].items():
        url = sandbox.base_url + re.sub(r"\{[^}]+\}", "x", path)
        response = httpx.request("TRACE", url)
        assert response.status_code == 405, path
        assert set(response.headers["Allow"].split(", ")) == {m.upper() for m in item}, path
        assert response.json()["error"]["code"] == "method_not_allowed"


def test_a_body_that_is_not_json_is_400_malformed_body(api):
    for content in (b"{not json", b"\xff\xfe\xfa"):
        response = api.post("/v1/bookings", content=content, headers={
            "Idempotency-Key": "k", "Content-Type": "application/json"})
        assert response.status_code == 400, content
        assert response.json()["error"]["code"] == "malformed_body"


def test_json_types_are_not_coerced(api):
    """pydantic would read true as 1 and "2" as 2; the schema says integer and boolean."""
    for body, field in (({"date": "2026-12-04", "expected_version": True}, "expected_version"),
                        ({"units": "2", "expected_version": 1}, "units")):
        response = api.post("/v1/bookings/BK-SEEDED/reschedule", json=body,
                            headers={"Idempotency-Key": f"coerce:{field}"})
        assert response.status_code == 422 and field in response.text, response.text


def test_blank_means_the_same_to_the_schema_and_to_the_validator():
    """The schema's NOT_BLANK_PATTERN and pydantic's stripping agree on every character (all
    Unicode White_Space lies below U+3100)."""
    from tools_sandbox import models as m

    for code in range(0x3100):
        char = chr(code)
        if 0xD800 <= code < 0xE000 or code == 0:
            continue  # (a lone surrogate and NUL are no text: refused, see below)
        stripped = m.BookingChanges.model_validate({"site": f"{char}x"}).site == "x"
        assert stripped is (re.search(m.NOT_BLANK_PATTERN, char) is None), hex(code)


@pytest.mark.parametrize(("field", "value"), [
    ("site", "Harbour\u0000Road"), ("asset", "P-\u0000100"), ("contact", "\u0000"),
    ("site", "Harbour \ud800Road")])
def test_a_nul_or_a_lone_surrogate_in_text_is_refused_naming_the_field(api, field, value):
    # schemathesis found it: PostgreSQL cannot store a NUL in text, and answered 500
    body = {"asset": "P-100", "date": "2026-12-03", "window": "morning", "site": "Harbour",
            field: value}
    response = api.post("/v1/bookings", content=json.dumps(body), headers={
        "Idempotency-Key": f"nul:{field}", "Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    message = response.json()["error"]["message"]
    assert field in message and ("NUL" in message or "surrogate" in message), message


def test_the_schema_says_text_holds_no_nul():
    from tools_sandbox import models as m

    assert re.search(m.TEXT_PATTERN, "Harbour Road") and re.search(m.TEXT_PATTERN, " x ")
    assert not re.search(m.TEXT_PATTERN, "Harbour\u0000Road")
    assert not re.search(m.TEXT_PATTERN, " \u3000")


def test_a_blank_text_is_refused_as_the_schema_says(api):
    response = api.post("/v1/bookings", headers={"Idempotency-Key": "blank"}, json={
        "asset": "P-100", "date": "2026-12-03", "window": "morning", "site": " \u3000"})
    assert response.status_code == 422 and "site" in response.json()["error"]["message"]


# ---------------------------------------------------------------- every check, every phase

def test_the_booking_api_passes_every_schemathesis_check(sandbox):
    problems, cases, tested = run_all_checks(
        f"{sandbox.base_url}/openapi.json", {"Authorization": f"Bearer {sandbox.token}"})
    assert not problems, f"{len(problems)} schemathesis failure(s):\n" + "\n".join(problems)
    assert len(tested) == len([m for item in document(sandbox)["paths"].values() for m in item])
    assert all(cases.get(phase) for phase in PHASES), cases


def test_the_test_harness_passes_every_schemathesis_check():
    with serve_in_background(seed=14) as harness:  # its own server: it injects faults, resets
        problems, cases, tested = run_all_checks(f"{harness.base_url}/admin/openapi.json")
    assert not problems, f"{len(problems)} schemathesis failure(s):\n" + "\n".join(problems)
    assert len(tested) >= 10 and cases.get("coverage") and cases.get("fuzzing"), (cases, tested)


# ---------------------------------------------------------------- the CLI, as documented

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(predicate, what: str, proc: subprocess.Popen, log: Path, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        if proc.poll() is not None:
            pytest.fail(f"amend sandbox serve exited ({proc.returncode}) before {what}:\n"
                        f"{log.read_text()}")
        time.sleep(0.05)  # a readiness poll, bounded by the deadline
    pytest.fail(f"amend sandbox serve: no {what} after {timeout} s:\n{log.read_text()}")


@pytest.mark.slow
def test_the_documented_cli_run_reports_no_failure(tmp_path):
    """``amend sandbox serve --test-mode --caller ...`` then ``schemathesis run ... --checks
    all -H "Authorization: Bearer <token>"`` from the repository root, as
    schemathesis.toml documents it."""
    amend = shutil.which("amend", path=str(Path(sys.executable).parent)) or "amend"
    cli = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"
    log = tmp_path / "serve.log"
    port = _free_port()
    with log.open("w") as out:
        proc = subprocess.Popen([amend, "sandbox", "serve", "--test-mode", "--port", str(port),
                                 "--caller", "acme/tech-17/ACME-001"], stdout=out,
                                stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = _wait_for(lambda: re.search(r"^caller token for acme/tech-17/ACME-001: (\S+)$",
                                           log.read_text(), re.M), "token line", proc, log)
        url = f"http://127.0.0.1:{port}/openapi.json"
        _wait_for(lambda: _answers(url), "/openapi.json", proc, log)
        operations = sum(len(item) for item in httpx.get(url).json()["paths"].values())
        run = subprocess.run(
            [cli, "--config-file", str(ROOT / "tests" / "schemathesis.toml"), "run", url,
             "--checks", "all", "-H", f"Authorization: Bearer {line[1]}",
             "--seed", str(SEED), "--max-examples", str(MAX_EXAMPLES), "--workers", "1",
             "--no-color"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    summary = run.stdout[-6000:]
    assert run.returncode == 0, f"schemathesis run failed:\n{summary}\n{run.stderr[-2000:]}"
    assert "Configuration:    " + str(ROOT / "tests" / "schemathesis.toml") in run.stdout, summary
    assert f"Selected: {operations}/{operations}" in run.stdout, summary
    assert f"Tested: {operations}" in run.stdout and "failure" not in summary.lower(), summary


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
