"""docs/architecture.md says what the code does: its state machine, decision matrix and import
table are parsed out of the page and compared with the tables in the code."""

import importlib.util
import re
from pathlib import Path

import docs_support
import pytest

from agent.core.actions import TERMINAL, TRANSITIONS
from agent.service.policy import AFTER_DISPATCH, AFTER_LOOKUP, ON_CORRECTION

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
EDGE = re.compile(r"^\s*(\[\*\]|\w+)\s*-->\s*(\[\*\]|\w+)\s*(?::.*)?$")


def mermaid_blocks(text: str) -> list[str]:
    return re.findall(r"^```mermaid\n(.*?)^```", text, re.S | re.M)


def state_edges(text: str) -> set[tuple[str, str]]:
    """The ``a --> b`` edges of the page's one stateDiagram."""
    diagrams = [b for b in mermaid_blocks(text) if b.lstrip().startswith("stateDiagram")]
    assert len(diagrams) == 1, "docs/architecture.md needs exactly one stateDiagram"
    edges = set()
    for line in diagrams[0].splitlines()[1:]:
        match = EDGE.match(line)
        if match:
            edges.add((match[1], match[2]))
        else:
            assert not line.strip() or line.strip().startswith("%%"), f"unparsed line: {line!r}"
    return edges


def table_after(text: str, name: str) -> list[list[str]]:
    return docs_support.table_after(text, name, "docs/architecture.md")


def ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def two_columns(text: str, name: str) -> dict[str, str]:
    out = {}
    for row in table_after(text, name):
        key, value = ticked(row[0]), ticked(row[1])
        assert len(key) == 1 and len(value) == 1, f"{name}: cannot read row {row}"
        assert key[0] not in out, f"{name}: {key[0]} twice"
        out[key[0]] = value[0]
    return out


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_state_diagram_is_the_transition_table_edge_for_edge(doc):
    drawn = state_edges(doc)
    table = {(str(a), str(b)) for a, targets in TRANSITIONS.items() for b in targets}
    assert {e for e in drawn if "[*]" not in e} == table
    assert {b for a, b in drawn if a == "[*]"} == {"proposed"}
    assert {a for a, b in drawn if b == "[*]"} == {str(s) for s in TERMINAL}


@pytest.mark.parametrize("name, table", [("ON_CORRECTION", ON_CORRECTION),
                                         ("AFTER_LOOKUP", AFTER_LOOKUP),
                                         ("AFTER_DISPATCH", AFTER_DISPATCH)])
def test_decision_matrix_tables_match_agent_policy(doc, name, table):
    assert two_columns(doc, name) == {str(k): str(v) for k, v in table.items()}


def test_import_table_matches_the_architecture_test(doc):
    spec = importlib.util.spec_from_file_location("_arch", ROOT / "tests" / "test_architecture.py")
    arch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(arch)
    documented = {}
    for row in table_after(doc, "MAY_IMPORT"):
        (package,) = ticked(row[0])
        documented[package] = set(ticked(row[-1])) | {package}
    assert documented == {p: set(allowed) for p, allowed in arch.MAY_IMPORT.items()}


def test_the_page_has_one_sequence_diagram_of_a_correction(doc):
    sequences = [b for b in mermaid_blocks(doc) if b.lstrip().startswith("sequenceDiagram")]
    assert len(sequences) == 1
    for step in ("propose", "revise", "invalidated_by", "admit", "recheck", "generation"):
        assert step in sequences[0], step


def test_every_module_the_page_names_exists(doc):
    named = set(re.findall(r"\b((?:agent|registry|retrieval|tools_sandbox|audio|ui|tests)"
                           r"/[\w/]+\.py)\b", doc))
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing, missing


def test_parsers_read_a_known_sample():
    sample = ("```mermaid\nstateDiagram-v2\n    [*] --> a\n    a --> b: why\n    b --> [*]\n```\n"
              "<!-- table: T -->\n| k | v |\n|---|---|\n| `x` | `y` |\n\nafter\n")
    assert state_edges(sample) == {("[*]", "a"), ("a", "b"), ("b", "[*]")}
    assert two_columns(sample, "T") == {"x": "y"}
