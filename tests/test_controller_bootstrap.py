"""The composition root: isolated worlds, caller files, clean teardown."""

from __future__ import annotations

import pytest

from agent.core.errors import InvalidInput
from ui.bootstrap import DEFAULT_CALLER, caller_from_mapping, fixed_clock, load_caller, open_world

pytestmark = pytest.mark.anyio


async def test_each_world_is_isolated_and_removed_on_exit():
    seed = [{"ref": "BK-1", "asset": "P-100", "date": "2026-12-07", "window": "morning",
             "site": "12 Harbour Road, Rotterdam", "contact": "tech-17"}]
    async with open_world(bookings=seed) as first, open_world() as second:
        assert first.sandbox.base_url != second.sandbox.base_url
        assert [b["ref"] for b in first.sandbox.admin.bookings()] == ["BK-1"]
        assert second.sandbox.admin.bookings() == []
        assert first.registry.snapshot >= 1 and len(first.corpus) > 0
        client = first.client()
        [record] = await client.bookings()
        assert (record.ref, record.account) == ("BK-1", DEFAULT_CALLER.account)
        tmp = first.tmp
    assert not tmp.exists()


def test_caller_yaml_accepts_a_call_script_and_names_what_is_wrong(tmp_path):
    script = tmp_path / "call.yaml"
    script.write_text("id: x\ncaller:\n  tenant: acme\n  subject: s\n  roles: [technician]\n"
                      "  account: A-1\n  assets:\n    - {id: P-1, configuration: C2, "
                      "region: EU, site: here}\n")
    caller = load_caller(script)
    assert (caller.tenant, caller.assets[0].id, caller.assets[0].site) == ("acme", "P-1", "here")
    with pytest.raises(InvalidInput, match=r"assets\[0\]: needs id, configuration and region"):
        caller_from_mapping({"tenant": "a", "subject": "s", "account": "x",
                             "assets": [{"id": "P"}]})
    with pytest.raises(InvalidInput, match="roles: a list"):
        caller_from_mapping({"tenant": "a", "subject": "s", "account": "x", "roles": "boss"})
    with pytest.raises(InvalidInput, match="cannot read the caller file"):
        load_caller(tmp_path / "missing.yaml")
    (tmp_path / "bad.yaml").write_text("caller: [\n")
    with pytest.raises(InvalidInput, match="not valid YAML"):
        load_caller(tmp_path / "bad.yaml")


def test_clock_needs_an_offset():
    assert fixed_clock("2026-12-01T09:00:00+01:00").now().isoformat().endswith("+01:00")
    with pytest.raises(InvalidInput, match="add an offset"):
        fixed_clock("2026-12-01T09:00:00")
    with pytest.raises(InvalidInput, match="RFC 3339"):
        fixed_clock("tomorrow")


async def test_a_missing_registry_file_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidInput, match="no such file"):
        async with open_world(registry=str(tmp_path / "nope.yaml")):
            pass
