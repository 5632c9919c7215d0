"""schemathesis against /openapi.json: no 5xx on any generated input (faults off), and every
response conforms to the declared status codes, content types and schemas."""

from __future__ import annotations

import hypothesis
import pytest
import schemathesis
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tools_sandbox.server import serve_in_background

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture(scope="module")
def sandbox():
    with serve_in_background(seed=13) as handle:
        handle.admin.seed("acme", [{"ref": "BK-SEEDED", "account": "ACME-001",
                                    "asset": "P-100", "date": "2026-12-03",
                                    "window": "morning"}])
        handle.token = handle.admin.mint("acme", "tech-17", "ACME-001")
        yield handle


def operations(sandbox):
    schema = schemathesis.openapi.from_url(f"{sandbox.base_url}/openapi.json")
    # /admin is the test harness's own door (it can reset or inject faults): not fuzzed.
    for result in schema.exclude(path_regex="^/admin").get_all_operations():
        yield result.ok()


def test_openapi_declares_the_idempotency_and_precondition_contract(sandbox):
    import httpx

    document = httpx.get(f"{sandbox.base_url}/openapi.json").json()
    post = document["paths"]["/v1/bookings/{ref}/reschedule"]["post"]
    headers = {p["name"] for p in post["parameters"] if p["in"] == "header"}
    assert {"Idempotency-Key", "If-Match"} <= headers
    assert {"409", "412", "422", "428"} <= set(post["responses"])


def test_generated_requests_get_no_5xx_and_conforming_responses(sandbox):
    auth = {"Authorization": f"Bearer {sandbox.token}"}
    ran = []
    for operation in operations(sandbox):

        @hypothesis.given(case=operation.as_strategy())
        @hypothesis.settings(max_examples=25, deadline=None, derandomize=True,
                             database=None, suppress_health_check=list(hypothesis.HealthCheck))
        def fuzz(case):
            case.call_and_validate(headers=auth, checks=CHECKS, timeout=5)

        fuzz()
        ran.append(operation.label)
    assert len(ran) >= 12, ran
