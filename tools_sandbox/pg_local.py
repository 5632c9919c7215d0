"""A throwaway PostgreSQL cluster on 127.0.0.1, in a temporary directory (tests and benchmarks).

    with LocalCluster.start() as cluster:
        dsn = cluster.new_database()      # postgresql://amend@127.0.0.1:PORT/amend_1

It uses the server programs of Debian's ``postgresql`` package (``initdb``, ``pg_ctl``), found on
``PATH`` or under ``/usr/lib/postgresql/<version>/bin``. PostgreSQL refuses to run as root, so
when this process is root the cluster runs as the ``postgres`` system user (which the Debian
package creates). Durability is switched off (``fsync=off``): the data is thrown away anyway.
Nothing listens beyond loopback; the socket directory is inside the temporary directory.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

INSTALL_HINT = ("install Debian's PostgreSQL server (`apt-get install -y postgresql`, as .ci/run "
                "does) or put its bin directory (with initdb and pg_ctl) on PATH")


class ClusterUnavailable(RuntimeError):
    """No PostgreSQL server programs here, or the cluster would not start (the message says)."""


def server_bin() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, newest major version first."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(Path(p).parent.parent.name)
                        if Path(p).parent.parent.name.isdigit() else 0, reverse=True)
    return Path(candidates[0]).parent if candidates else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    """A running cluster; :meth:`stop` (or leaving the ``with`` block) removes everything."""

    def __init__(self, root: tempfile.TemporaryDirectory, bindir: Path, port: int,
                 user: str | None):
        self._root, self._bindir, self.port, self._user = root, bindir, port, user
        self.data = Path(root.name) / "data"
        self._count = 0

    @classmethod
    def start(cls, max_connections: int = 200) -> LocalCluster:
        """initdb + pg_ctl start; raises :class:`ClusterUnavailable` naming what is missing."""
        bindir = server_bin()
        if bindir is None:
            raise ClusterUnavailable(f"no PostgreSQL server programs found: {INSTALL_HINT}")
        user = None
        root = tempfile.TemporaryDirectory(prefix="amend-pg-")
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam("postgres")
            except KeyError:
                root.cleanup()
                raise ClusterUnavailable("running as root and there is no `postgres` user to "
                                         f"run the server as: {INSTALL_HINT}") from None
            user = "postgres"
            os.chown(root.name, entry.pw_uid, entry.pw_gid)
        cluster = cls(root, bindir, _free_port(), user)
        try:
            cluster._run("initdb", "-D", str(cluster.data), "-U", "amend", "--auth=trust",
                         "-E", "UTF8", "--locale=C", "--no-sync")
            options = (f"-c listen_addresses=127.0.0.1 -p {cluster.port} -k {root.name} "
                       "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                       f"-c max_connections={max_connections} -c shared_buffers=128MB")
            cluster._run("pg_ctl", "-D", str(cluster.data), "-l", f"{root.name}/server.log",
                         "-o", options, "-w", "-t", "60", "start")
        except ClusterUnavailable:
            cluster.stop()
            raise
        return cluster

    def _run(self, program: str, *args: str) -> None:
        proc = subprocess.run([str(self._bindir / program), *args], capture_output=True,
                              text=True, user=self._user, cwd=self._root.name)
        if proc.returncode != 0:
            log = Path(self._root.name) / "server.log"
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            raise ClusterUnavailable(f"{program} failed ({proc.returncode}): "
                                     f"{(proc.stderr or proc.stdout).strip()[-800:]} {tail}")

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://amend@127.0.0.1:{self.port}/{database}"

    def new_database(self, prefix: str = "amend") -> str:
        """CREATE DATABASE with a fresh name; returns its DSN."""
        import psycopg

        self._count += 1
        name = f"{prefix}_{self._count}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run([str(self._bindir / "pg_ctl"), "-D", str(self.data), "-m",
                            "immediate", "-w", "stop"], capture_output=True, user=self._user,
                           cwd=self._root.name)
        self._root.cleanup()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
