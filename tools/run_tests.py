"""Run the test suite the way CI does, and say loudly what was skipped.

pytest's exit status 5 (no tests collected) is a failure here: a suite that ran nothing has
proved nothing. ``make test`` runs the suite as two pytest processes at once (``WAITING``, the
modules that mostly wait, and the rest); ``--one-process`` runs it as one.

Browser tests need Debian's chromium; without it they are skipped and this
script prints a banner saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BANNER = "=" * 78
# The modules whose time is mostly waiting: speech played in real time (the pack in text and
# audio mode, the browser, the demo's processes) and a 500-cycle socket census. `make test`
# runs them in a second pytest process beside the rest of the suite, so their waits and the
# rest's computing share the two cores: a fresh clone's run took 31 to 36 minutes one after
# the other. The pack in audio mode keeps a core busy on its own as well (cpu_hog): with the
# other process that is about the load it passed at with two busy processes (issue 14).
WAITING = ("test_calls_pack.py", "test_calls_pack_audio.py", "test_browser_voice.py",
           "test_browser_demo.py", "test_audio_browser.py", "test_broken_audio.py",
           "test_demo_workers.py", "test_ui_app.py", "test_voice_leaks.py",
           "test_call_agents.py")
TESTS = Path(__file__).resolve().parent.parent / "tests"


def main() -> int:
    args = sys.argv[1:]
    env = dict(os.environ, HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False",
               TRANSFORMERS_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1")
    pytest_args = ["-q", "--durations=25"]  # where the time goes: the budget is 25 minutes
    if "--audio-only" in args:
        # make test-audio: the speech tests, with the WHOLE pack in audio mode.
        pytest_args += ["-m", "audio"]
        env["AMEND_AUDIO_PACK"] = "all"
    if shutil.which("chromium") is None and not os.path.exists("/usr/bin/chromium"):
        print(BANNER)
        print("BROWSER TESTS SKIPPED: /usr/bin/chromium is not installed.")
        print("Install it with `apt-get install -y chromium` (as .ci/run does) to run them.")
        print(BANNER)
    from tools_sandbox.pg_local import server_bin

    if server_bin() is None:
        print(BANNER)
        print("POSTGRESQL TESTS SKIPPED: Debian's postgresql server (initdb, pg_ctl) is not "
              "installed.")
        print("Install it with `apt-get install -y postgresql` (as .ci/run does) to run the "
              "PostgreSQL half of the sandbox and registry tests.")
        print(BANNER)
    pytest = [sys.executable, "-m", "pytest", *pytest_args]
    if "--audio-only" in args or "--one-process" in args:
        return _verdict(subprocess.call(pytest, env=env), "the suite")
    waiting = [str(TESTS / name) for name in WAITING]
    missing = [m for m in waiting if not Path(m).is_file()]
    if missing:
        print(f"tools/run_tests.py: WAITING names modules that do not exist: {missing}; "
              "fix the list.")
        return 1
    with tempfile.TemporaryFile("w+") as log:
        # (its own cache directory off: two processes must not write .pytest_cache at once)
        side = subprocess.Popen([*pytest, "-p", "no:cacheprovider", *waiting], env=env,
                                stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            main_code = subprocess.call(
                [*pytest, *(f"--ignore={m}" for m in waiting)], env=env)
        except BaseException:  # interrupted: stop the other process too
            side.terminate()
            side.wait()
            raise
        side_code = side.wait()
        log.seek(0)
        print(f"\n{BANNER}\nThe modules that mostly wait (run beside the rest):\n{BANNER}")
        print(log.read(), end="")
    codes = (_verdict(main_code, "the rest of the suite"),
             _verdict(side_code, "the modules that mostly wait"))
    return next((c for c in codes if c != 0), 0)


def _verdict(code: int, what: str) -> int:
    if code == 5:
        print(f"pytest collected no tests in {what}: failing, because an empty suite proves "
              "nothing.")
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
