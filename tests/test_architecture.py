"""The architecture's rules, enforced (docs/architecture.md, "Packages and the import rule").

* The import table, by walking every module's imports.
* agent/ in layers: core, then understanding, then service; each imports only the layers
  before it.
* No import cycle between modules of our packages, type-checking imports and imports inside
  functions included: a cycle is a module that cannot be read without the other.
* The repository stands alone: no tracked or untracked (non-ignored) text file reads, cites or
  links anything outside the checkout.
"""

import ast
import re
import subprocess
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
# tools/ (developer scripts) is imported by none of them.
# agent/ is standard library only, except agent/understanding/nlu/, which may use parsing libraries.
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
            if root in (*OURS, "tools") and root not in MAY_IMPORT[package]:
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


# The layers of agent/ (docs/architecture.md): each may import only itself and the layers
# before it. agent/bench.py (the benchmarks' shared value types) imports nothing of ours.
LAYERS = ("core", "understanding", "service")


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "agent" and parts[1] in LAYERS else None


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports of ``graph`` from a layer of agent/ into a later one (or into agent.bench's
    neighbours from agent.bench), as "importer -> imported" lines."""
    found = []
    for module, targets in sorted(graph.items()):
        mine = layer_of(module)
        for target in sorted(targets):
            theirs = layer_of(target)
            if mine is not None and theirs is not None and \
                    LAYERS.index(theirs) > LAYERS.index(mine):
                found.append(f"{module} ({mine}) imports {target} ({theirs})")
            if module == "agent.bench" and target.startswith("agent."):
                found.append(f"{module} imports {target}: the bench types stand alone")
    return found


def test_agent_is_layered_core_understanding_service():
    assert sorted(p.name for p in (ROOT / "agent").iterdir()
                  if (p / "__init__.py").is_file()) == sorted(LAYERS)
    assert sorted(p.name for p in (ROOT / "agent").glob("*.py")) == ["__init__.py", "bench.py"]
    violations = layer_violations(import_graph(("agent",)))
    assert not violations, "\n".join(violations)


def test_the_layer_check_bites():
    graph = {"agent.core.ledger": {"agent.understanding.proposals"},
             "agent.understanding.trust": {"agent.service.render", "agent.core.speech"},
             "agent.service.controller": {"agent.core.ledger", "agent.understanding.trust"},
             "agent.bench": {"agent.core.trace"}}
    assert layer_violations(graph) == [
        "agent.bench imports agent.core.trace: the bench types stand alone",
        "agent.core.ledger (core) imports agent.understanding.proposals (understanding)",
        "agent.understanding.trust (understanding) imports agent.service.render (service)"]


def test_every_package_exists_with_modules():
    for package in OURS:
        assert (ROOT / package / "__init__.py").is_file(), package


# --------------------------------------------------------------------------- no cycles
def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(name: str, source: str, known: set[str], *, package: bool) -> set[str]:
    """The modules of ``known`` that ``name`` imports, at any depth of its code (functions
    and ``if TYPE_CHECKING:`` blocks included). ``from a.b import c`` imports ``a.b.c`` when
    that is a module, else ``a.b``; importing a submodule runs its package, so ``a`` counts
    too when ``a/__init__.py`` is a module of ``known``."""
    here = name if package else name.rpartition(".")[0]
    wanted: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            wanted |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            wanted |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    found = set()
    for target in wanted:
        parts = target.split(".")
        for depth in range(1, len(parts) + 1):  # the module itself and every package above
            candidate = ".".join(parts[:depth])
            if candidate in known and candidate != name:
                found.add(candidate)
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    cycles.append(sorted(members))
    return cycles


def import_graph(packages=OURS, root: Path = ROOT) -> dict[str, set[str]]:
    paths = {module_name(p, root): p for package in packages
             for p in sorted((root / package).rglob("*.py"))}
    known = set(paths)
    return {name: module_imports(name, path.read_text(), known,
                                 package=path.name == "__init__.py")
            for name, path in paths.items()}


def cycle_report(graph: dict[str, set[str]], cycle: list[str]) -> str:
    members = set(cycle)
    edges = [f"{a} -> {b}" for a in cycle for b in sorted(graph[a] & members)]
    return f"cycle {' / '.join(cycle)}: " + "; ".join(edges)


def test_no_import_cycle_between_modules():
    graph = import_graph()
    cycles = import_cycles(graph)
    assert not cycles, "\n".join(cycle_report(graph, c) for c in cycles)


def test_the_cycle_detector_flags_each_kind(tmp_path):
    """Known-answer control: a direct cycle, one through a type-checking import, one through
    an import inside a function and one through a package's ``__init__`` are each found; a
    chain without a way back is not."""
    files = {
        "pkg/__init__.py": "from pkg.hub import Hub\n",
        "pkg/hub.py": "from pkg import leaf\n",
        "pkg/leaf.py": "from pkg.words import WORDS\n",
        "pkg/words.py": "WORDS = ()\n",
        "pkg/a.py": "from pkg.b import x\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from pkg.a import y\n",
        "pkg/c.py": "import pkg.d\n",
        "pkg/d.py": "def f():\n    from pkg import c\n",
        "pkg/e.py": "from .f import z\n",
        "pkg/f.py": "from . import words\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    cycles = import_cycles(import_graph(("pkg",), tmp_path))
    assert sorted(cycles) == [["pkg", "pkg.hub", "pkg.leaf"], ["pkg.a", "pkg.b"],
                              ["pkg.c", "pkg.d"]]


# --------------------------------------------------------------------------- standing alone
# What may not appear in any text file of the repository. Patterns are spelled so that this
# file does not match itself (`[E]`, `[ ]`, `\.\.`); the control test proves each one bites.
RETIRED_NAMES = re.compile(r"\b(?:ARCHITECTUR[E]|CALL_SCRIPT[S]|REGISTRY_FORMA[T])(?:\.md)?\b")
SIBLING_FOLDERS = re.compile(
    r"\.\.[/\\]shared\b|(?<![\w-])shared[/\\](?:fixtures|design|seeds)\b"
    r"|\bshared[ ]design[ ]doc", re.I)
# A checkout, a workspace or a home directory: machine-specific wherever it appears. System
# paths (/usr/bin/chromium, /dev/null, /etc/...) name the platform, not a machine, and pass.
MACHINE_PATHS = re.compile(r"(?<![\w.~$}/-])/(?:work|home|root|Users|mnt|srv)(?=/|\b)")
# /tmp as a data location: only tests may use it, as scratch space.
SCRATCH = re.compile(r"(?<![\w.~$}/-])/tmp(?=/|\b)")
FILE_ANCESTOR = re.compile(
    r"Path\(__file__\)(?:\.resolve\(\)|\.absolute\(\))?"
    r"(?P<parents>(?:\.parent\b)*)(?:\.parents\[(?P<index>\d+)\])?")
MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)")
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".rst", ".txt", ".yaml", ".yml", ".toml", ".json",
                 ".cfg", ".ini", ".sh", ".bash", ".js", ".mjs", ".css", ".html", ".in"}
TEXT_NAMES = {"Makefile", "Dockerfile", "LICENSE", ".gitignore", ".gitattributes", "run"}


def repository_files() -> list[str]:
    """Tracked files plus untracked, non-ignored ones, relative to the root (no symlinks)."""
    try:
        listed = [subprocess.run(["git", "ls-files", "-z", *extra], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout.split("\0")
                  for extra in ((), ("--others", "--exclude-standard"))]
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot tell repository files from local ones")
    names = sorted({n for group in listed for n in group if n})
    return [n for n in names if (ROOT / n).is_file() and not (ROOT / n).is_symlink()]


def is_text(name: str) -> bool:
    path = Path(name)
    if path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES:
        return True
    if path.suffix:
        return False
    with open(ROOT / name, "rb") as handle:
        return handle.read(2) == b"#!"  # an extensionless script (.ci/run and the like)


def outside_references(name: str, text: str) -> list[str]:
    """Every place in ``text`` (the file ``name``, relative to the root) that reaches outside
    the repository, as ``name:line: what``."""
    found = []
    depth = len(Path(name).parts)  # Path(__file__) ancestor number `depth` is the root
    in_tests = Path(name).parts[0] == "tests"
    for n, line in enumerate(text.splitlines(), 1):
        where = f"{name}:{n}"
        for m in RETIRED_NAMES.finditer(line):
            found.append(f"{where}: retired design-document name {m[0]!r}; point at "
                         f"docs/architecture.md, docs/call-scripts.md or docs/registry-format.md")
        for m in SIBLING_FOLDERS.finditer(line):
            found.append(f"{where}: {m[0]!r} is material beside the checkout; keep what is "
                         f"needed in the repository and point at it there")
        for m in MACHINE_PATHS.finditer(line):
            found.append(f"{where}: absolute machine path {line[m.start():m.start() + 30]!r}")
        if not in_tests:
            for m in SCRATCH.finditer(line):
                found.append(f"{where}: {line[m.start():m.start() + 30]!r}: /tmp as a data "
                             f"location outside tests; use a relative path or tempfile")
        for m in FILE_ANCESTOR.finditer(line):
            level = m["parents"].count(".parent")
            if m["index"] is not None:
                level += int(m["index"]) + 1
            if level > depth:
                found.append(f"{where}: {m[0]!r} goes {level - depth} level(s) above the "
                             f"repository root")
        if name.endswith(".md"):
            for target in MD_LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                    continue
                if target.startswith("/"):
                    found.append(f"{where}: absolute link {target!r}")
                    continue
                resolved = ((ROOT / name).parent / target.split("#")[0]).resolve()
                if not resolved.is_relative_to(ROOT):
                    found.append(f"{where}: link {target!r} leaves the repository")
    return found


def test_no_reference_leaves_the_repository():
    problems = []
    for name in repository_files():
        if is_text(name):
            text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
            problems += outside_references(name, text)
    assert not problems, "\n".join(problems)


def test_the_reference_detector_flags_each_kind():
    """Known-answer control: each kind of outside reference, in a synthetic file, is caught,
    and the legitimate look-alikes are not."""
    up, sep = "..", "/"
    bad = {
        "retired name": "see " + "ARCHI" + "TECTURE.md",
        "retired name without suffix": "(CALL" + "_SCRIPTS vocabulary)",
        "retired registry name": "the REGISTRY" + "_FORMAT.md six steps",
        "sibling folder": f"`{up}{sep}shared{sep}design{sep}X.md`",
        "fixtures beside the checkout": "ROOT / " + "'shared" + sep + "fixtures'",
        "seeds beside the checkout": "read shared" + sep + "seeds" + sep + "003.txt",
        "design docs beside the checkout": "as the shared " + "design docs say",
        "workspace path": f'Path("{sep}work{sep}main{sep}tests")',
        "home path": f"cd {sep}home{sep}dev{sep}amend",
        "root home": f"{sep}root{sep}.cache{sep}amend",
        "scratch outside tests": f"--db {sep}tmp{sep}r.db",
        "parents above the root": "Path(__file__)" + ".resolve().parents[2] / 'x'",
        "parent chain above the root": "Path(__file__)" + ".parent.parent.parent",
    }
    for kind, line in bad.items():
        assert outside_references("registry/x.py", line), kind
    assert outside_references("docs/x.md", f"[design]({up}/{up}/elsewhere.md)")
    assert outside_references("docs/x.md", f"[design]({sep}work{sep}x.md)")
    good = [
        'CHROMIUM = Path("/usr/bin/chromium")', "command -v sox >/dev/null 2>&1",
        "ROOT = Path(__file__)" + ".resolve().parent.parent",
        "ROOT = Path(__file__)" + ".resolve().parents[1]",
        "see docs/architecture.md and docs/registry-format.md",
        "https://example.com/home/page", "~/.local/share/amend/registry.db",
        "the shared lock", "$AMEND_DATA_DIR/registry.db", "CALL_SCRIPTS_DIR = 1",
    ]
    for line in good:
        assert not outside_references("tests/x.py", line), line
    assert not outside_references("docs/x.md", "[walkthrough](walkthrough.md#step-1)")
    assert not outside_references("tests/x.py", f"scratch = '{sep}tmp{sep}amend-test'")


# --------------------------------------------------------------------------- no test machinery
# The core holds no known-answer switches and no benchmarks. The naive strategies a test
# injects live in agent/service/controls.py, which no other module of agent/ imports; the benchmarks
# live outside agent/, except the row type and registry every package's benchmarks share.
CONTROLS_MODULE = "agent/service/controls.py"
BENCH_TYPES_MODULE = "agent/bench.py"


def core_machinery(root: Path, switches: tuple[str, ...]) -> list[str]:
    """Every place in ``root/agent`` where test machinery reaches the core, as
    ``path:line: what``: a known-answer switch read by attribute (``faults.gate_off``,
    ``getattr(faults, "gate_off")``) or an import of the controls module outside it, a
    benchmark module (``bench_*.py``) in the package, or an import of the shared benchmark
    types by another module of the core."""
    found = []
    for path in sorted((root / "agent").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if re.fullmatch(r"bench\w*\.py", path.name) and name != BENCH_TYPES_MODULE:
            found.append(f"{name}:1: a benchmark module in the core; move it to ui/")
        if name == CONTROLS_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=name)):
            if isinstance(node, ast.Attribute) and node.attr in switches:
                found.append(f"{name}:{node.lineno}: reads the known-answer switch "
                             f"{node.attr!r}; inject a strategy (agent/service/safeguards.py)")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id == "getattr" and len(node.args) > 1 and \
                    isinstance(node.args[1], ast.Constant) and node.args[1].value in switches:
                found.append(f"{name}:{node.lineno}: reads the known-answer switch "
                             f"{node.args[1].value!r}; inject a strategy "
                             "(agent/service/safeguards.py)")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                imported = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                if "agent.service.controls" in imported:
                    found.append(f"{name}:{node.lineno}: imports agent.service.controls; only the "
                                 f"composition root (ui/bootstrap.py) and tests may")
                if "agent.bench" in imported and name != BENCH_TYPES_MODULE:
                    found.append(f"{name}:{node.lineno}: imports agent.bench; benchmarks "
                                 f"live outside the core")
    return found


def test_no_test_machinery_in_the_core():
    from agent.service.controls import NAMES

    found = core_machinery(ROOT, NAMES)
    assert not found, "\n".join(found)


def test_the_core_machinery_check_bites(tmp_path):
    """Known-answer control: each kind of test machinery in a synthetic core is found, the
    controls module itself and the shared benchmark types are not, and neither is a module
    that reads its strategies."""
    files = {
        "agent/__init__.py": "",
        "agent/service/controls.py": "def f(faults):\n    return faults.gate_off\n",
        "agent/bench.py": "ROWS = []\n",
        "agent/desk.py": "def g(ctx):\n    if ctx.faults.gate_off:\n        return 1\n",
        "agent/worker.py": "def h(f):\n    return getattr(f, 'retry_with_new_key', False)\n",
        "agent/wiring.py": "from agent.service.controls import FromPlan\n",
        "agent/sub/wiring.py": "from agent.service import controls\n",
        "agent/bench_core.py": "X = 1\n",
        "agent/timing.py": "from agent.bench import register\n",
        "agent/clean.py": "from agent.service.safeguards import Safeguards\n\n"
                          "def k(s: Safeguards):\n    return s.gate_mode, 'gate_off'\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = core_machinery(tmp_path, ("gate_off", "retry_with_new_key"))
    flagged = sorted({line.split(":")[0] for line in found})
    assert flagged == ["agent/bench_core.py", "agent/desk.py", "agent/sub/wiring.py",
                       "agent/timing.py", "agent/wiring.py", "agent/worker.py"], found


def test_retrieval_names_fields_through_the_core_names_module():
    """Retrieval and understanding share field names through agent/core/names.py: retrieval
    imports nothing of the understanding contract (agent/understanding/proposals.py,
    agent/understanding/nlu/)."""
    graph = import_graph(("agent", "retrieval"))
    reach = {m: sorted(t for t in targets if t == "agent.understanding.proposals" or
                       t.startswith("agent.understanding.nlu"))
             for m, targets in graph.items() if m.startswith("retrieval")}
    assert not {m: t for m, t in reach.items() if t}, reach


# ------------------------------------------------------------ one owner of the booking task
WORKFLOW_STATE = frozenset({"_goal", "_target", "_awaiting", "_confirmed_once",
                            "_consent_revision", "_withdrawn_for_cancel", "goal", "target",
                            "target_ref", "awaiting", "confirmed_once", "consent_revision",
                            "withdrawn_for_cancel"})
WORKFLOW_OWNER = "agent/service/workflow.py"


def workflow_writes(source: str) -> list[str]:
    """Where ``source`` assigns a field of the booking task (``x.goal = ...``, augmented or
    in a tuple), or sets one through ``setattr``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if isinstance(t, ast.Attribute) and t.attr in WORKFLOW_STATE:
                    found.append(f"line {t.lineno}: {ast.unparse(t)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "setattr" and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in WORKFLOW_STATE:
            found.append(f"line {node.lineno}: setattr(..., {node.args[1].value!r})")
    return found


def test_only_the_workflow_assigns_the_booking_task():
    """Goal, target, the awaited draft and the consent change only through BookingWorkflow's
    transitions (agent/service/workflow.py); every other module reads them."""
    offenders = {}
    for path in sorted((ROOT / "agent").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel != WORKFLOW_OWNER and (found := workflow_writes(path.read_text())):
            offenders[rel] = found
    assert offenders == {}


def test_the_workflow_owner_check_bites():
    old = ("desk.goal = Goal.CANCEL\n"
           "self.target_ref, self.goal = None, Goal.BOOK\n"
           "call.bookings.consent_revision += 1\n"
           "setattr(desk, 'awaiting', None)\n"
           "desk.workflow.on(GoalEvent.SETTLED)\n")
    assert len(workflow_writes(old)) == 5
