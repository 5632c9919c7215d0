"""Fault rules scoped to a tenant (issue 17): calls that share one sandbox, each under its own
tenant, each see exactly the faults their script asked for, counted over their own calls."""

from __future__ import annotations

import pytest

from agent.core.errors import InvalidInput
from tools_sandbox.faults import FaultPlan, FaultRule


def test_a_tenant_rule_counts_and_hits_only_that_tenants_calls():
    plan = FaultPlan([{"op": "create_booking", "fail_before_commit": True, "nth": 2,
                       "tenant": "call-a"}])
    seen = [(t, plan.decide("create_booking", t).fail_before_commit)
            for t in ("call-b", "call-a", "call-b", "call-b", "call-a", "call-a")]
    # call-a's second create fails, though it is the fifth create the sandbox saw.
    assert seen == [("call-b", False), ("call-a", False), ("call-b", False),
                    ("call-b", False), ("call-a", True), ("call-a", False)]
    assert plan.calls("create_booking") == 6 and plan.calls("create_booking", "call-a") == 3


def test_an_unscoped_rule_still_counts_every_call_of_every_tenant():
    plan = FaultPlan([{"op": "create_booking", "delay_ms": 5, "nth": 2}])
    hits = [plan.decide("create_booking", t).delay_ms for t in ("x", "y", "x")]
    assert hits == [0, 5, 0]


def test_setting_one_tenants_rules_keeps_the_others_and_restarts_only_its_counters():
    plan = FaultPlan([{"op": "create_booking", "hang": True, "tenant": "keep"}])
    plan.decide("create_booking", "mine")
    plan.set([{"op": "create_booking", "drop_response": True, "nth": 1}], tenant="mine")
    assert {(r.tenant, r.hang, r.drop_response) for r in plan.rules} == {
        ("keep", True, False), ("mine", False, True)}
    assert plan.decide("create_booking", "mine").drop_response  # its count started again
    assert plan.decide("create_booking", "keep").hang
    plan.set([], tenant="mine")
    assert [r.tenant for r in plan.rules] == ["keep"]


def test_probability_draws_replay_per_tenant_whatever_the_other_tenants_do():
    rule = {"op": "create_booking", "fail_before_commit": True, "probability": 0.5}

    def draws(noise: int) -> list[bool]:
        plan = FaultPlan(seed=3)
        plan.set([rule], tenant="t")
        out = []
        for _ in range(12):
            for _ in range(noise):
                plan.decide("create_booking", "other")
            out.append(plan.decide("create_booking", "t").fail_before_commit)
        return out

    assert draws(0) == draws(3)
    assert True in draws(0) and False in draws(0)


def test_a_bad_tenant_is_refused_by_name():
    with pytest.raises(InvalidInput, match="tenant must be a non-empty text"):
        FaultRule.parse({"op": "create_booking", "hang": True, "tenant": ""})
