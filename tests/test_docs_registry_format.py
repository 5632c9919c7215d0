"""docs/registry-format.md and the code name the same keys, outcomes, token members and CLI
options: every one in the code is documented, and the page documents nothing the code lacks."""

import dataclasses
import re
from pathlib import Path

import docs_support
import pytest

from agent.core.ports import RegistryOutcome, ScopeToken
from registry import parse
from registry.cli import registry as registry_group
from registry.model import KINDS, STATUSES
from registry.tokens import POLICY_VERSION

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "registry-format.md"


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def first_column(text: str, name: str) -> list[str]:
    """Backticked names in the first column of the table after ``<!-- table: name -->``."""
    rows = docs_support.table_after(text, name, "docs/registry-format.md")
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row[0])]


@pytest.mark.parametrize("table, keys", [
    ("TOP_KEYS", parse.TOP_KEYS), ("FAMILY_KEYS", parse.FAMILY_KEYS),
    ("REVISION_KEYS", parse.REVISION_KEYS), ("APPLIES_KEYS", parse.APPLIES_KEYS),
    ("EDGE_KEYS", parse.EDGE_KEYS), ("SECTION_KEYS", parse.SECTION_KEYS)])
def test_every_import_key_is_documented_once_and_no_other(doc, table, keys):
    documented = first_column(doc, table)
    assert sorted(documented) == sorted(keys)


def test_procedure_keys_kinds_and_statuses_are_named(doc):
    for word in (*parse.PROCEDURE_KEYS, *KINDS, *STATUSES):
        assert f"`{word}`" in doc or f"{{{word}" in doc or f" {word}" in doc, word


def test_required_revision_keys_are_marked_required(doc):
    rows = {re.findall(r"`([^`]+)`", line)[0]: line for line in doc.splitlines()
            if line.startswith("| `") and line.count("|") == 6}
    for key in parse.REVISION_REQUIRED:
        assert "| yes |" in rows[key], key


def test_outcomes_are_the_resolvers(doc):
    assert sorted(first_column(doc, "RegistryOutcome")) == sorted(o.value for o in RegistryOutcome)


def test_scope_token_members_are_the_dataclass_fields(doc):
    documented = first_column(doc, "ScopeToken")
    assert sorted(documented) == sorted(f.name for f in dataclasses.fields(ScopeToken))
    assert POLICY_VERSION in doc


def test_every_cli_command_and_option_is_documented_and_none_invented(doc):
    commands = {cell.split()[0] for cell in first_column(doc, "commands")}
    assert commands == set(registry_group.commands)
    options = {opt for cmd in registry_group.commands.values() for p in cmd.params
               for opt in p.opts if opt.startswith("--")}
    assert options <= set(re.findall(r"(--[a-z][a-z-]*)", doc)), options
    invented = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", doc)) - options
    assert not invented, invented


def test_every_file_the_page_names_exists(doc):
    named = set(re.findall(r"\b((?:agent|registry|retrieval|tests)/[\w/.-]+\.(?:py|yaml|json))",
                           doc))
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing, missing
