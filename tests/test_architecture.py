"""The import table of ARCHITECTURE.md, enforced by walking every module's imports."""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("agent", "registry", "retrieval", "tools_sandbox", "audio", "ui")
MAY_IMPORT = {
    "agent": {"agent"},
    "registry": {"agent", "registry"},
    "retrieval": {"agent", "retrieval"},
    "tools_sandbox": {"agent", "tools_sandbox"},
    "audio": {"agent", "audio"},
    "ui": set(OURS),
}
# agent/ is standard library only, except agent/nlu/, which may use parsing libraries.
NLU_LIBRARIES = {"dateparser", "text2num", "text_to_num", "rapidfuzz", "regex", "dateutil"}


def imported_roots(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def modules(package: str):
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", OURS)
def test_packages_import_only_what_the_table_allows(package):
    violations = []
    for path in modules(package):
        for line, root in imported_roots(path):
            if root in OURS and root not in MAY_IMPORT[package]:
                violations.append(f"{path.relative_to(ROOT)}:{line} imports {root}")
    assert not violations, "\n".join(violations)


def test_agent_core_is_standard_library_only():
    allowed = set(sys.stdlib_module_names) | {"agent", "__future__"}
    violations = []
    for path in modules("agent"):
        nlu = "nlu" in path.relative_to(ROOT / "agent").parts
        for line, root in imported_roots(path):
            if root in allowed or (nlu and root in NLU_LIBRARIES):
                continue
            violations.append(f"{path.relative_to(ROOT)}:{line} imports {root}")
    assert not violations, "\n".join(violations)


def test_every_package_exists_with_modules():
    for package in OURS:
        assert (ROOT / package / "__init__.py").is_file(), package
