"""Packaging honesty: what the code imports is declared, what it reads ships, and the wheel works.

* Every third-party import is declared in ``pyproject.toml``: runtime packages in
  ``[project].dependencies``, test-only ones there or in the ``test`` extra. A distribution
  that only arrives transitively (pipecat pulling in loguru, FastAPI pulling in starlette)
  is not declared, and breaks the day the other package stops pulling it in.
* Every non-Python file inside a package is package data, and no runtime code reads
  ``tests/``: an installed ``amend`` has no source checkout to fall back on.
* ``tests/calls`` (the acceptance pack) is the shipped ``audio/calls/examples``, not a copy.
* The slow test builds the wheel, installs it (no editable link back to this checkout) into a
  throwaway virtual environment and runs ``amend`` from outside the source tree.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
RUNTIME_DIRS = ("agent", "audio", "retrieval", "registry", "tools_sandbox", "ui")
TEST_DIRS = ("tests", "tools")
# Imports that only an optional extra provides (not installed by `make venv`): import -> extra.
OPTIONAL_IMPORTS = {"pyaudio": "local-audio",  # tests/test_audio_units.py checks its absence
                    "playwright": "browser"}  # only the browser benchmark drives a browser
EXAMPLES = ROOT / "audio" / "calls" / "examples"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _project(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match is not None, requirement  # every requirement starts with its project name
    return match.group(0)


def _declared(requirements: list[str]) -> set[str]:
    return {_canonical(_project(r)) for r in requirements}


def _local_modules() -> set[str]:
    """Top-level names that are this repository's own code (tests import helpers by name)."""
    names = set(RUNTIME_DIRS) | set(TEST_DIRS)
    for folder in TEST_DIRS:
        names |= {p.stem for p in (ROOT / folder).glob("*.py")}
    return names


def _imports(folder: str):
    """(file, top-level module) for every absolute import in ``folder``, nested ones too."""
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                yield path.relative_to(ROOT), name.split(".")[0]


def test_every_imported_package_is_declared():
    project = PYPROJECT["project"]
    runtime = _declared(project["dependencies"])
    extras = {k: _declared(v) for k, v in project.get("optional-dependencies", {}).items()}
    providers = importlib.metadata.packages_distributions()
    local, stdlib = _local_modules(), set(sys.stdlib_module_names)
    problems, seen = [], set()
    for kind, folders in (("runtime", RUNTIME_DIRS), ("test", TEST_DIRS)):
        allowed = runtime if kind == "runtime" else runtime | extras.get("test", set())
        where = ("[project].dependencies" if kind == "runtime"
                 else "[project].dependencies or the `test` extra")
        for folder in folders:
            for path, module in _imports(folder):
                if module in local or module in stdlib or (path, module) in seen:
                    continue
                seen.add((path, module))
                if module in OPTIONAL_IMPORTS:
                    extra = OPTIONAL_IMPORTS[module]
                    if extra not in extras:
                        problems.append(f"{path}: imports {module!r}, supplied by the extra "
                                        f"{extra!r}, which pyproject.toml does not define")
                    continue
                dists = providers.get(module)
                if not dists:
                    problems.append(f"{path}: imports {module!r}, which no installed "
                                    "distribution provides: declare it in pyproject.toml and "
                                    "reinstall (or list it in OPTIONAL_IMPORTS with its extra)")
                elif not {_canonical(d) for d in dists} & allowed:
                    problems.append(f"{path}: imports {module!r} (distribution "
                                    f"{' or '.join(sorted(set(dists)))}), missing from {where}")
    assert not problems, "undeclared imports:\n" + "\n".join(problems)


def _package_data_files() -> set[Path]:
    found = set()
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        base = ROOT.joinpath(*package.split("."))
        for pattern in patterns:
            found |= {p for p in base.glob(pattern) if p.is_file()}
    return found


def test_every_data_file_in_a_package_is_package_data():
    """A file the code reads but the wheel leaves out works in the checkout and nowhere else.
    READMEs beside the code are for readers of the repository and are not shipped."""
    shipped = _package_data_files()
    missing = [str(p.relative_to(ROOT)) for folder in RUNTIME_DIRS
               for p in sorted((ROOT / folder).rglob("*"))
               if p.is_file() and p.suffix not in (".py", ".pyc", ".md")
               and "__pycache__" not in p.parts and p not in shipped]
    assert not missing, ("not in [tool.setuptools.package-data], so not in the wheel: "
                         + ", ".join(missing))


def test_the_test_pack_is_the_shipped_examples():
    """tests/calls links to audio/calls/examples: one pack, never two copies drifting apart."""
    pack, shipped = ROOT / "tests" / "calls", sorted(EXAMPLES.glob("*.yaml"))
    assert len(shipped) >= 19
    assert sorted(p.name for p in pack.glob("*.yaml")) == [p.name for p in shipped]
    for script in shipped:
        assert (pack / script.name).read_bytes() == script.read_bytes(), (
            f"tests/calls/{script.name} differs from the shipped {script.relative_to(ROOT)}")


def test_runtime_code_never_reads_the_tests_folder():
    """No string in runtime code (docstrings aside) names ``tests/``: it is not installed."""
    offenders = []
    for folder in RUNTIME_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                          if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                            ast.AsyncFunctionDef))
                          and n.body and isinstance(n.body[0], ast.Expr)
                          and isinstance(n.body[0].value, ast.Constant)}
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and id(node) not in docstrings
                        and re.search(r"(^|[/\\])tests([/\\]|$)", node.value)):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not offenders, "runtime code refers to tests/:\n" + "\n".join(offenders)


# --- the wheel, installed for real -------------------------------------------------------

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(args, cwd: Path, env: dict, stdin: str | None = None, timeout: float = 180):
    return subprocess.run(args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def _wait_for_http_200(url: str, proc: subprocess.Popen, log: Path, deadline_s: float) -> None:
    """Poll ``url`` until it answers 200; fail early if the server process exits."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    deadline = time.monotonic() + deadline_s
    last = "no answer yet"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"amend demo exited with {proc.returncode} before serving:\n"
                        + log.read_text(errors="replace")[-3000:])
        try:
            with opener.open(url, timeout=5) as response:
                if response.status == 200:
                    return
                last = f"HTTP {response.status}"
        except OSError as exc:
            last = repr(exc)
        time.sleep(0.25)
    pytest.fail(f"{url} did not answer 200 within {deadline_s:.0f} s ({last}):\n"
                + log.read_text(errors="replace")[-3000:])


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_source_tree(tmp_path):
    started = time.monotonic()
    # 1. Build from a copy: an in-tree build writes build/ and *.egg-info into the checkout.
    src, wheels = tmp_path / "src", tmp_path / "wheels"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
        ".hypothesis", "artifacts", "test-artifacts", "*.db", "*.db-*"))
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "--no-index", "--wheel-dir", str(wheels), str(src)], tmp_path, dict(os.environ))
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("amend-*.whl")

    # 2. A throwaway venv without pip; this interpreter's pip installs the wheel into it
    #    before the dependencies become visible (so pip never sees the editable amend).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py, amend = venv / "bin" / "python", venv / "bin" / "amend"
    installed = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
                      "--no-index", str(wheel)], tmp_path, dict(os.environ))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # The dependencies come from this environment's site-packages as plain path entries: a
    # path in a .pth file is added without running that folder's own .pth files, so the
    # editable install's finder (__editable__.amend-*.pth) never loads.
    purelib = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                        tmp_path, dict(os.environ)).stdout.strip())
    deps = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    (purelib / "amend-test-deps.pth").write_text("\n".join(deps) + "\n")

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False",
               HF_HUB_DISABLE_TELEMETRY="1", PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")
    work = tmp_path / "elsewhere"
    work.mkdir()

    # 3. The installed code, not this checkout, is what runs; its package data is there.
    probe = _run([str(py), "-c", (
        "import importlib.metadata as m, ui, ui.personas as p, ui.scripted as s\n"
        "print(ui.__file__)\n"
        "print(m.distribution('amend').locate_file(''))\n"
        "print(len(p.load_personas()))\n"
        "r = s.ScriptRunner(); print(r.directory); print(len(r.scripts()))\n")], work, env)
    assert probe.returncode == 0, probe.stdout + probe.stderr
    ui_file, dist_dir, personas, examples, n_scripts = probe.stdout.splitlines()
    assert Path(ui_file).is_relative_to(purelib), ui_file
    assert not Path(ui_file).resolve().is_relative_to(ROOT), ui_file
    assert Path(dist_dir).resolve() == purelib.resolve()
    assert int(personas) >= 1
    assert Path(examples).is_relative_to(purelib)
    assert int(n_scripts) == len(list(EXAMPLES.glob("*.yaml")))

    # 4. amend --help
    helped = _run([str(amend), "--help"], work, env)
    assert helped.returncode == 0, helped.stderr
    for command in ("call", "chat", "demo", "registry", "sandbox", "retrieve", "bench"):
        assert re.search(rf"^\s+{command}\s", helped.stdout, re.M), helped.stdout

    # 5. amend chat with a scripted caller
    chat = _run([str(amend), "chat", "--clock", "2026-12-01T09:00:00+01:00"], work, env,
                stdin="Book a service visit for P-100 on Wednesday afternoon.\n/ledger\n")
    assert chat.returncode == 0, chat.stdout + chat.stderr
    assert "confirmation_requested" in chat.stdout, chat.stdout
    assert "P-100" in chat.stdout and "2026-12-02" in chat.stdout, chat.stdout
    assert "afternoon" in chat.stdout and "Traceback" not in chat.stdout + chat.stderr

    # 6. amend call on a shipped script copied out of the installed package
    script = work / "my-call.yaml"
    shutil.copyfile(Path(examples) / "05-which-thursday.yaml", script)
    call = _run([str(amend), "call", str(script), "--mode", "text"], work, env)
    assert call.returncode == 0, call.stdout + call.stderr
    assert "PASS 1 FAIL 0 INVALID 0" in call.stdout, call.stdout

    # 7. amend demo serves its page on a free loopback port, then stops on SIGTERM
    port, log = _free_port(), tmp_path / "demo.log"
    with log.open("w") as out:
        demo = subprocess.Popen([str(amend), "demo", "--no-warm", "--host", "127.0.0.1",
                                 "--port", str(port)], cwd=work, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        _wait_for_http_200(f"http://127.0.0.1:{port}/", demo, log, deadline_s=180)
        # package data the page needs: the style sheet and the voice widget
        for asset in ("amend.css", "voice-widget.js"):
            _wait_for_http_200(f"http://127.0.0.1:{port}/static/{asset}", demo, log, 10)
    finally:
        demo.terminate()
        try:
            demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            demo.kill()
            demo.wait(timeout=10)
    assert "Traceback" not in log.read_text(errors="replace"), log.read_text()
    print(f"wheel built, installed and run in {time.monotonic() - started:.1f} s")
