"""Run the test suite the way CI does, and say loudly what was skipped.

pytest's exit status 5 (no tests collected) is a failure here: a suite that ran nothing has
proved nothing. Browser tests need Debian's chromium; without it they are skipped and this
script prints a banner saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

BANNER = "=" * 78


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
    code = subprocess.call([sys.executable, "-m", "pytest", *pytest_args], env=env)
    if code == 5:
        print("pytest collected no tests: failing, because an empty suite proves nothing.")
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
