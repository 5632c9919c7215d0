"""Docs that run: the shell examples in README.md and docs/*.md are executed, call scripts quoted
in them are validated, the README's module map names every module, every ``amend`` command is
documented, and relative links point at files inside the repository.

The convention, for everyone who writes docs here:

* A fenced block tagged ``sh run`` (or ``bash run``) is executed by :func:`test_runnable_block`
  with ``bash -eo pipefail``. Each block gets its own pytest id (``README.md:123``, the line of
  the opening fence) and its own fresh state:

  - the working directory is a fresh copy of the repository (no ``.git``, caches or databases;
    ``.venv`` is a link to the virtual environment running the tests), so a block reads like a
    user typing in the repository root: ``amend call tests/calls/01-....yaml --mode text``,
    ``for f in registry/demo/*.yaml; ...``; files it writes (``--report report.json``,
    ``--db demo.db``, ``out/``) land in that copy and vanish with it. ``$AMEND_REPO`` names it;
  - ``HOME``, ``TMPDIR``, the ``XDG_*`` directories and ``AMEND_DATA_DIR`` (where ``amend
    registry`` and ``amend retrieve`` keep their default ``registry.db``) point into a fresh
    temporary directory, so nothing is read from or written to the user's real state;
  - the running interpreter's ``bin`` directory comes first on ``PATH`` (so ``amend`` is this
    checkout's), ``HF_HUB_OFFLINE=1``, ``GRADIO_ANALYTICS_ENABLED=False``, ``COLUMNS=120``,
    ``NO_COLOR=1``; standard input is empty (``/dev/null``). ``AMEND_ALLOW_AGENT_FAULTS`` is
    removed: a documented command runs as a user would run it;
  - ``sh run sandbox``: before the block, a fresh ``amend sandbox serve --test-mode --port 0
    --caller acme/tech-17/ACME-001`` is started for it (its own SQLite file) and
    ``AMEND_SANDBOX_URL`` and ``AMEND_SANDBOX_TOKEN`` (the caller token it printed) are exported;
    it is stopped after the block.

  A line ``# expect: TEXT`` (alone, or as a trailing comment) means TEXT must appear in the
  block's combined stdout and stderr (runs of whitespace compare equal, so a wrapped line still
  matches). The exit status must be 0, or N with ``# expect-exit: N``.

* ``sh no-run`` blocks are never executed: only for servers that do not exit (``make demo``,
  ``amend demo``, ``amend sandbox serve``, an interactive ``amend chat``), audio-mode calls and
  commands that run the test suite or the long benchmarks. Every ``sh``/``bash``/``shell``/
  ``console`` block must say ``run`` or ``no-run``; an untagged block that starts with a command
  must say what it is (``sh run``, ``sh no-run`` or ``text``).

* A ``yaml call-script`` block is a call script: it is validated with the real validator
  (:func:`audio.calls.script.load_script`), and a problem is reported at the doc's file and line.
  It is checked as if it were a file in ``tests/calls/`` (relative ``registry:`` paths). A
  ``yaml`` block with the keys of a whole script (``id``, ``clock``, ``caller``, ``turns``) must
  carry the tag; fragments stay plain ``yaml``.

Runnable blocks are independent, so the selected ones are started together, a few at a time
(``AMEND_DOCS_JOBS``, default 3; text-mode calls mostly wait for speech to "play"), and each
test waits for its own block. Blocks never sleep to force a race; a block that runs longer than
``AMEND_DOCS_TIMEOUT`` seconds (default 240) is stopped and fails.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted(ROOT.glob("*/README.md"))]  # the packages' own READMEs
SHELL_LANGS = {"sh", "bash", "shell", "console"}
PACKAGES = ("agent", "audio", "retrieval", "registry", "tools_sandbox", "ui")
JOBS = int(os.environ.get("AMEND_DOCS_JOBS", "3"))
TIMEOUT = float(os.environ.get("AMEND_DOCS_TIMEOUT", "240"))
SANDBOX_CALLER = "acme/tech-17/ACME-001"
SCRIPT_KEYS = ("id", "clock", "caller", "turns")  # the keys every call script has
# An untagged block whose first line starts like this is a command someone forgot to tag.
COMMAND_START = re.compile(r"^(\$ |amend\b|make\b|\.venv/|python3?\b|pytest\b|pip\b|curl\b|"
                           r"printf\b|echo\b|for\b|cd\b|cp\b|export\b|git\b|ruff\b)")
EXPECT = re.compile(r"(?:^|\s)#\s*expect:\s*(.+?)\s*$")
EXPECT_EXIT = re.compile(r"(?:^|\s)#\s*expect-exit:\s*(\d+)\s*$")
COPY_IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache", ".mypy_cache",
    ".hypothesis",
    "build", "dist", "artifacts", "test-artifacts", "*.db", "*.db-wal", "*.db-shm", "*.pyc")


# --------------------------------------------------------------------------- parsing
@dataclass(frozen=True)
class Block:
    doc: str  # path relative to the repository root
    line: int  # 1-based line of the opening fence
    lang: str
    tags: tuple[str, ...]
    body: str

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"

    def expectations(self) -> list[str]:
        return [m.group(1) for ln in self.body.splitlines() if (m := EXPECT.search(ln))]

    def expected_exit(self) -> int:
        codes = [int(m.group(1)) for ln in self.body.splitlines()
                 if (m := EXPECT_EXIT.search(ln))]
        return codes[-1] if codes else 0


FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def parse_blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with its info string split into lang and tags."""
    doc = path.relative_to(ROOT).as_posix()
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        indent, fence = len(m.group("indent")), m.group("fence")
        words = m.group("info").strip().split()
        start, body = i + 1, []
        i += 1
        while i < len(lines):
            close = FENCE.match(lines[i])
            if (close and close.group("fence")[0] == fence[0]
                    and len(close.group("fence")) >= len(fence)
                    and not close.group("info").strip()):
                break
            text = lines[i]
            body.append(text[indent:] if text[:indent].strip() == "" else text.lstrip())
            i += 1
        blocks.append(Block(doc, start, words[0].lower() if words else "",
                            tuple(w.lower() for w in words[1:]), "\n".join(body) + "\n"))
        i += 1
    return blocks


def all_blocks() -> list[Block]:
    return [b for path in DOC_FILES if path.is_file() for b in parse_blocks(path)]


BLOCKS = all_blocks()
RUN_BLOCKS = [b for b in BLOCKS if b.lang in SHELL_LANGS and "run" in b.tags]
SCRIPT_BLOCKS = [b for b in BLOCKS if b.lang in ("yaml", "yml") and "call-script" in b.tags]


# --------------------------------------------------------------------------- the convention
def test_every_shell_block_says_run_or_no_run():
    bad = []
    for b in BLOCKS:
        if b.lang in SHELL_LANGS and ("run" in b.tags) == ("no-run" in b.tags):
            bad.append(f"{b.id}: ```{b.lang} block must be tagged exactly one of `run`, `no-run`")
        first = next((ln.strip() for ln in b.body.splitlines() if ln.strip()), "")
        if not b.lang and COMMAND_START.match(first):
            bad.append(f"{b.id}: untagged block starts with a command ({first[:40]!r}); tag it "
                       "```sh run, ```sh no-run or ```text")
        if (b.lang in ("yaml", "yml") and "call-script" not in b.tags
                and all(re.search(rf"^{key}:", b.body, re.M) for key in SCRIPT_KEYS)):
            bad.append(f"{b.id}: a whole call script must be tagged ```yaml call-script, so it "
                       "is validated")
        if b.lang in SHELL_LANGS and "no-run" in b.tags and (b.expectations()
                                                             or "expect-exit" in b.body):
            bad.append(f"{b.id}: `# expect` lines in a no-run block are never checked")
    assert not bad, "\n".join(bad)


def test_the_docs_have_runnable_examples():
    assert any(b.doc == "README.md" for b in RUN_BLOCKS), "README.md has no ```sh run block"


# --------------------------------------------------------------------------- running blocks
def _copy_repository(dest: Path) -> Path:
    shutil.copytree(ROOT, dest, ignore=COPY_IGNORE, symlinks=False)
    if sys.prefix != sys.base_prefix:  # the tests run in a virtual environment: .venv/bin/amend
        (dest / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return dest


def _environment(work: Path, repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AMEND_", "PYTEST_", "COV_")) or k in (
               "AMEND_WHISPER_MODEL", "AMEND_PIPER_VOICE")}
    home = work / "home"
    for sub in ("home", "tmp", "data", "xdg-data", "xdg-cache", "xdg-config"):
        (work / sub).mkdir()
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)]),
        VIRTUAL_ENV=sys.prefix, HOME=str(home), TMPDIR=str(work / "tmp"),
        XDG_DATA_HOME=str(work / "xdg-data"), XDG_CACHE_HOME=str(work / "xdg-cache"),
        XDG_CONFIG_HOME=str(work / "xdg-config"), AMEND_DATA_DIR=str(work / "data"),
        AMEND_REPO=str(repo), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
        HF_HUB_DISABLE_TELEMETRY="1", GRADIO_ANALYTICS_ENABLED="False", DO_NOT_TRACK="1",
        COLUMNS="120", NO_COLOR="1", TERM="dumb", PYTHONUNBUFFERED="1",
        PYTHONDONTWRITEBYTECODE="1")
    return env


@dataclass
class Outcome:
    code: int | None  # None: timed out
    output: str
    seconds: float


def _start_sandbox(env: dict[str, str], work: Path):
    """A fresh ``amend sandbox serve`` for one block: (process, url, token, output reader)."""
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "amend"), "sandbox", "serve", "--test-mode",
         "--port", "0", "--db", str(work / "sandbox.db"), "--caller", SANDBOX_CALLER],
        cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert proc.stdout is not None  # stdout=PIPE
    lines: queue.Queue[str | None] = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    url = token = None
    seen: list[str] = []
    while url is None or token is None:
        try:
            line = lines.get(timeout=60)
        except queue.Empty:
            line = None
        if line is None:
            _stop(proc)
            reader.join(10)
            proc.stdout.close()
            raise RuntimeError("amend sandbox serve did not start:\n" + "".join(seen))
        seen.append(line)
        if m := re.match(r"sandbox listening on (\S+)", line):
            url = m.group(1)
        if m := re.match(r"caller token for \S+: (\S+)", line):
            token = m.group(1)
    return proc, url, token, reader


def _stop(proc: subprocess.Popen) -> None:
    """Stop a process this test started (and its children): Ctrl-C, then SIGKILL."""
    if proc.poll() is None:
        for sig, wait in ((signal.SIGINT, 10), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue


def run_block(block: Block) -> Outcome:
    import time

    work = Path(tempfile.mkdtemp(prefix="amend-docs-"))
    started = time.monotonic()
    sandbox = None
    try:
        repo = _copy_repository(work / "repo")
        env = _environment(work, repo)
        script = work / "block.sh"
        script.write_text(block.body, encoding="utf-8")
        if "sandbox" in block.tags:
            sandbox, url, token, reader = _start_sandbox(env, work)
            env.update(AMEND_SANDBOX_URL=url, AMEND_SANDBOX_TOKEN=token)
        proc = subprocess.Popen(["bash", "-eo", "pipefail", str(script)], cwd=repo, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=TIMEOUT)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            _stop(proc)
            out, _ = proc.communicate()
            code = None
        return Outcome(code, out.decode("utf-8", "replace"), time.monotonic() - started)
    finally:
        if sandbox is not None:
            _stop(sandbox)
            reader.join(10)
            sandbox.stdout.close()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def block_runs(request) -> Iterator[dict[str, Future[Outcome]]]:
    """Start every selected runnable block (longest first), a few at a time."""
    selected = [item.callspec.params["block"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")
                and isinstance(item.callspec.params.get("block"), Block)
                and "run" in item.callspec.params["block"].tags]

    def cost(b: Block) -> int:
        return -(3 * ("amend call" in b.body) + 2 * ("amend bench" in b.body)
                 + ("amend chat" in b.body))

    pool = ThreadPoolExecutor(max_workers=max(1, JOBS), thread_name_prefix="docs-block")
    futures: dict[str, Future] = {}
    for b in sorted(dict.fromkeys(selected), key=cost):
        futures[b.id] = pool.submit(run_block, b)
    yield futures
    for f in futures.values():
        f.cancel()
    pool.shutdown(wait=True)


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=[b.id for b in RUN_BLOCKS])
def test_runnable_block(block: Block, block_runs):
    outcome: Outcome = block_runs[block.id].result()
    print(f"{block.id}: exit {outcome.code} after {outcome.seconds:.1f} s")  # shown with -rP/-s
    tail = outcome.output[-6000:]
    where = f"{block.id} ({outcome.seconds:.1f} s)"
    assert outcome.code is not None, f"{where}: still running after {TIMEOUT:.0f} s\n{tail}"
    expected = block.expected_exit()
    assert outcome.code == expected, (
        f"{where}: exit status {outcome.code}, expected {expected}\n--- output ---\n{tail}")
    squashed = _squash(outcome.output)
    missing = [e for e in block.expectations()
               if e not in outcome.output and _squash(e) not in squashed]
    assert not missing, (f"{where}: expected text not in the output: {missing}\n"
                         f"--- output ---\n{tail}")


# --------------------------------------------------------------------------- call scripts
@pytest.fixture(scope="module")
def script_dir(tmp_path_factory):
    """A copy of the repository, so relative paths in a quoted script (``registry:``) resolve
    as they would for a script in ``tests/calls/``."""
    repo = _copy_repository(tmp_path_factory.mktemp("docs-scripts") / "repo")
    target = repo / "tests" / "calls"
    target.mkdir(parents=True, exist_ok=True)
    return target


@pytest.mark.parametrize("block", SCRIPT_BLOCKS, ids=[b.id for b in SCRIPT_BLOCKS])
def test_call_script_block_is_valid(block: Block, script_dir: Path):
    from audio.calls.script import ScriptInvalid, load_script

    path = script_dir / f"doc-{block.doc.replace('/', '-')}-{block.line}.yaml"
    path.write_text(block.body, encoding="utf-8")
    try:
        load_script(path)
    except ScriptInvalid as exc:
        def at_doc(m: re.Match) -> str:
            return f"{block.doc}:{block.line + int(m.group(1))}:"

        problems = [re.sub(re.escape(str(path)) + r":(\d+):", at_doc, e) for e in exc.errors]
        pytest.fail(f"{block.id}: the quoted call script is invalid:\n" + "\n".join(problems),
                    pytrace=False)


# --------------------------------------------------------------------------- README contents
def _modules(package: str) -> set[str]:
    root = ROOT / package
    names = {p.stem for p in root.glob("*.py") if p.name != "__init__.py"}
    names |= {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    return names


def _section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"README.md has no '## {title}' section"
    return m.group(1)


def _named_in_module_map() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """For each package: the names the first cells of its rows in the module-map table give in
    backticks (the modules; the second cell describes them), and every backticked name in its
    rows (where a subpackage's own modules are listed).

    A row belongs to the package its first cell names (`agent/`, `agent/core/ledger.py`), else to
    the package of the rows above it (a top-level folder such as `tests/` ends the package).
    A token names a module as ``ledger``, ``ledger.py``, ``agent/core/ledger.py``,
    ``agent.core.ledger``, or a subpackage as ``nlu/``; ``nlu/dates`` names ``dates`` of the
    subpackage."""
    section = _section((ROOT / "README.md").read_text(encoding="utf-8"), "Module map")
    first: dict[str, set[str]] = {p: set() for p in PACKAGES}
    anywhere: dict[str, set[str]] = {p: set() for p in PACKAGES}
    current = None
    for line in section.splitlines():
        if not line.lstrip().startswith("|") or re.match(r"^\s*\|[\s|:-]+\|\s*$", line):
            continue
        cells = line.strip().strip("|").split("|")
        for token in re.findall(r"`([^`]+)`", cells[0]):
            head = token.replace(".", "/").split("/")[0]
            if head in PACKAGES:
                current = head
                break
            if token.endswith("/") and (ROOT / head).is_dir():  # another top-level folder
                current = None
                break
        for n, cell in enumerate(cells):
            for token in re.findall(r"`([^`]+)`", cell):
                token = token.strip().removesuffix("/").removesuffix(".py").replace(".", "/")
                parts = token.split("/")
                package = current
                if parts[0] in PACKAGES and len(parts) > 1:
                    package, parts = parts[0], parts[1:]
                if package is None:
                    continue
                if n == 0:
                    first[package].add(parts[0])
                anywhere[package].add(parts[-1])
    return first, anywhere


def _submodules(package: str) -> list[str]:
    """Modules inside the package's subpackages, as ``nlu/dates``."""
    root = ROOT / package
    return sorted(p.relative_to(root).with_suffix("").as_posix()
                  for sub in root.iterdir() if sub.is_dir() and (sub / "__init__.py").is_file()
                  for p in sub.rglob("*.py") if p.name != "__init__.py")


def test_readme_module_map_names_every_module():
    first, anywhere = _named_in_module_map()
    missing = [f"{package}/{module}" for package in PACKAGES
               for module in sorted(_modules(package) - first[package])]
    assert not missing, ("README.md '## Module map' does not name these modules (name each in "
                         "backticks in the first cell of a row under its package): "
                         + ", ".join(missing))
    unlisted = [f"{package}/{module}" for package in PACKAGES for module in _submodules(package)
                if module.rsplit("/", 1)[-1] not in anywhere[package]]
    assert not unlisted, ("README.md '## Module map' does not list these modules of subpackages "
                          "in their package's rows: " + ", ".join(unlisted))


def _commands():
    import click

    from ui.cli import main

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name, sub in sorted(cmd.commands.items()):
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path)

    return list(walk(main, ["amend"]))


def test_every_amend_command_is_documented():
    text = "\n".join(p.read_text(encoding="utf-8") for p in DOC_FILES if p.is_file())
    text = re.sub(r"[ \t]+", " ", text)
    commands = _commands()
    assert "amend call" in commands and "amend registry import" in commands
    missing = [c for c in commands if not re.search(rf"(^|[^\w-]){re.escape(c)}\b", text)]
    assert not missing, ("these commands appear nowhere in README.md or docs/*.md: "
                         + ", ".join(missing))


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def test_relative_links_resolve_inside_the_repository():
    bad = []
    for path in DOC_FILES:
        if not path.is_file():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                    continue
                file = (path.parent / target.split("#")[0]).resolve()
                where = f"{path.relative_to(ROOT).as_posix()}:{n}: {target}"
                if not file.is_relative_to(ROOT):
                    bad.append(f"{where}: outside the repository")
                elif not file.exists():
                    bad.append(f"{where}: no such file")
    assert not bad, "\n".join(bad)


def test_readme_links_the_design_docs_and_guides():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    wanted = ["docs/architecture.md", "docs/registry-format.md", "docs/call-scripts.md",
              "docs/walkthrough.md", "docs/guide-add-an-intent.md",
              "docs/guide-add-a-booking-field.md", "docs/guide-add-a-tool.md",
              "docs/guide-plug-in-a-proposer.md", "docs/guide-add-a-registry-family.md"]
    missing = [w for w in wanted if f"]({w})" not in text]
    assert not missing, "README.md does not link: " + ", ".join(missing)


def test_the_walkthrough_follows_one_correction_through_at_most_twelve_files():
    """docs/walkthrough.md names each code file it walks through in its table, with its role,
    and names no other code file (tests pin the steps; they are not part of the walk)."""
    text = (ROOT / "docs" / "walkthrough.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| *\d+ *\| *`([^`]+\.py)` *\| *([^|]+?) *\|$", text, re.MULTILINE)
    files = [f for f, _ in table]
    assert 0 < len(files) <= 12 and len(set(files)) == len(files)
    assert all(role and (ROOT / f).is_file() for f, role in table)
    named = {m for m in re.findall(r"`([\w/]+\.py)", text) if not m.startswith("tests/")}
    assert named == set(files), f"named but not in the table: {sorted(named - set(files))}"



def test_the_default_registry_table_names_every_revision_with_its_scope_and_dates():
    """docs/call-scripts.md's table of the default registry is what script writers expect
    answers from: every revision in registry/demo is a row, with its configurations, regions
    and the years its validity starts (and ends), and no row names a revision that is gone."""
    import yaml

    text = (ROOT / "docs" / "call-scripts.md").read_text(encoding="utf-8")
    section = text.split("**The default registry**", 1)[1].split("\n\n**", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            for rev in re.findall(r"`([\w-]+)`", cells[0]):
                rows[rev] = cells
    revisions = [r for f in sorted((ROOT / "registry" / "demo").glob("*.yaml"))
                 for r in yaml.safe_load(f.read_text(encoding="utf-8"))["revisions"]]
    assert sorted(rows) == sorted(r["id"] for r in revisions)
    for rev in revisions:
        row = " ".join(rows[rev["id"]])
        if rev.get("kind") == "translation":  # "as the original"
            assert rev["equivalent_to"] in row, rev["id"]
            continue
        for scope in rev.get("applies", []):
            start, end = scope["valid"]
            assert start[:10] in row, (rev["id"], start)
            assert end is None or end[:10] in row, (rev["id"], end)
            for config in scope["configurations"]:
                assert config == "*" or config in row, (rev["id"], config)
            for region in scope["regions"]:
                assert region in row, (rev["id"], region)
        for role in rev.get("roles", []):
            assert role in row, (rev["id"], role)
        if rev.get("tenant", "*") != "*":
            assert rev["tenant"] in row, rev["id"]
        for superseded in rev.get("supersedes", []):
            assert superseded["revision"] in row and superseded["decision"] in row, rev["id"]
