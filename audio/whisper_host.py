"""Whisper in a process of its own: the demo's recogniser.

Why (issue 19): glibc raises its mmap threshold to the size of any mapped block freed, so
after a demo's first calls, Whisper's per-run buffers (a few hundred KiB to a few MiB each)
come out of malloc's arenas, between the calls' small objects that outlive them. The arenas
grow with holes in them and the holes stay resident. In a process that does nothing but
recognise, those buffers are freed and reused among themselves: Whisper alone in a loop
grows by at most 5 MiB per 1000 runs (``amend bench --only model-memory``). The other way out,
a fixed mmap threshold, maps the buffers afresh on every run and makes Whisper 2.4 times
slower; this way keeps its speed. The price is one more process (220 to 270 MiB resident
through a soak: Python, CTranslate2, the model and its buffers; the demo's process holds
about 180 MiB less) and a copy of each turn's audio over a socket. A turn's recognition
alone costs the same (148 ms through the child, 151 ms in the process, 15 runs interleaved);
with the real agent, one pair of runs measured voice-to-voice p50 591 against 570 ms (README).

:class:`WhisperHost` starts ``python -m audio.whisper_host`` with one socket per *lane*, one
lane per Whisper worker. The child serves each lane from a thread of its own over one shared
model (:func:`audio.whisper.load_model`), so simultaneous recognitions run in parallel there as
they would in the demo's process. :meth:`WhisperHost.recognise` blocks (call it from a worker
thread): it takes a free lane, sends the audio and the options, and waits for the answer.

* The child died (killed, out of memory): the recognition in flight raises
  :class:`WhisperHostError`, and the next one starts a new child (:attr:`WhisperHost.starts`).
* The demo's process died: the child's sockets close, its lanes read end-of-file, and it
  exits; nothing is left running.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from audio.models import SettingError

READY_TIMEOUT_S = 120.0  # a cold start on a loaded machine: imports plus the model's load
WHISPER_PROCESS_ENV = "AMEND_WHISPER_PROCESS"  # 1 (default) or 0: see whisper_process_setting


def whisper_process_setting(environ: dict[str, str] | None = None) -> bool:
    """Whether a demo recognises in a process of its own: ``AMEND_WHISPER_PROCESS`` 1 (the
    default) or 0. Raises :class:`~audio.models.SettingError` naming the variable for any
    other value."""
    raw = (os.environ if environ is None else environ).get(WHISPER_PROCESS_ENV, "").strip()
    if raw in ("", "1"):
        return True
    if raw == "0":
        return False
    raise SettingError(
        f"{WHISPER_PROCESS_ENV}={raw!r}: give 1 (Whisper in a process of its own, the "
        "default: a demo's memory stays level) or 0 (in the demo's process)")


class WhisperHostError(RuntimeError):
    """The recognising process could not start, or died during a recognition."""


class WhisperHost:
    """A child process that runs Whisper for this one (see the module's docstring).
    Thread-safe. The child starts on the first :meth:`recognise` (or :meth:`start`)."""

    def __init__(self, cpu_threads: int = 1, num_workers: int = 2):
        if cpu_threads < 1 or num_workers < 1:
            raise ValueError(f"cpu_threads and num_workers must be >= 1, not {cpu_threads}, "
                             f"{num_workers}")
        self.cpu_threads, self.num_workers = cpu_threads, num_workers
        self.starts = 0  # children started so far (more than one: a child died)
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._lanes: queue.Queue[Connection] = queue.Queue()
        self._all: list[Connection] = []

    @property
    def pid(self) -> int | None:
        """The running child's process id, or None."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def start(self) -> None:
        """Start the child unless it runs, and wait until it has loaded the model. Raises
        :class:`WhisperHostError` with the child's own reason when it cannot."""
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return
            self._stop_locked()
            ours, theirs = zip(*(socket.socketpair() for _ in range(self.num_workers)),
                               strict=True)
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "audio.whisper_host", str(self.cpu_threads),
                     *(str(s.fileno()) for s in theirs)],
                    pass_fds=[s.fileno() for s in theirs], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, close_fds=True)
            finally:
                for s in theirs:
                    s.close()
            lanes = [Connection(s.detach()) for s in ours]
            try:
                for lane in lanes:
                    if not lane.poll(READY_TIMEOUT_S):
                        raise WhisperHostError(
                            f"the Whisper process did not load the model in "
                            f"{READY_TIMEOUT_S:.0f} s; is the machine overloaded?")
                    kind, detail = lane.recv()
                    if kind != "ready":
                        raise WhisperHostError(f"the Whisper process could not start: {detail}")
            except (EOFError, OSError) as exc:
                self._stop_child(proc, lanes)
                raise WhisperHostError(
                    f"the Whisper process exited while starting (code {proc.wait()}); its "
                    "error is printed above") from exc
            except BaseException:
                self._stop_child(proc, lanes)
                raise
            self._proc, self._all, self.starts = proc, lanes, self.starts + 1
            self._lanes = queue.Queue()
            for lane in lanes:
                self._lanes.put(lane)

    def recognise(self, audio: np.ndarray, **options: Any):
        """Blocking: :func:`audio.whisper.recognise_with` run in the child on float32 16 kHz
        mono ``audio`` with ``options``; returns its :class:`~audio.whisper.Heard`. Raises
        :class:`WhisperHostError` when the child dies meanwhile, and the error the child's
        recognition raised (as :class:`RuntimeError` with its text) when it fails."""
        from audio.whisper import Heard

        for _ in range(2):  # a second time when the child was replaced while this one waited
            self.start()
            with self._lock:
                proc, lanes = self._proc, self._lanes
            lane = lanes.get()
            if lane.closed:  # its child was stopped meanwhile: take a lane of the new one
                lanes.put(lane)
                continue
            try:
                lane.send_bytes(np.ascontiguousarray(audio, dtype=np.float32).tobytes())
                lane.send(options)
                kind, value = lane.recv()
                break
            except (EOFError, OSError) as exc:
                with self._lock:
                    if self._proc is proc:  # every lane of a dead child is stale
                        self._stop_locked()
                raise WhisperHostError(f"the Whisper process died during a recognition of "
                                       f"{audio.size / 16000:.2f} s of audio; the next one "
                                       "starts a new process") from exc
            finally:
                lanes.put(lane)
        else:
            raise WhisperHostError("the Whisper process was replaced twice during one "
                                   "recognition; is it being killed?")
        if kind != "heard":
            raise RuntimeError(f"Whisper failed in its process: {value}")
        return Heard(*value)

    def stop(self) -> None:
        """Stop the child (it exits when its sockets close) and wait for it."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        proc, lanes = self._proc, self._all
        self._proc, self._all = None, []
        if proc is not None:
            self._stop_child(proc, lanes)

    @staticmethod
    def _stop_child(proc: subprocess.Popen, lanes: list[Connection]) -> None:
        for lane in lanes:
            lane.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _serve(model, lane: Connection) -> None:
    """One lane: recognitions until the parent closes its end."""
    from audio.whisper import recognise_with

    while True:
        try:
            audio = np.frombuffer(lane.recv_bytes(), dtype=np.float32)
            options = lane.recv()
        except (EOFError, OSError):
            return  # the parent is gone or stopped us
        reply: tuple[str, Any]
        try:
            heard = recognise_with(model, audio, **options)
            reply = ("heard", (heard.text, heard.confidence, heard.no_speech, heard.words,
                               heard.unheard, heard.answer))
        except Exception as exc:  # the parent reports it; this lane serves on
            reply = ("failed", f"{type(exc).__name__}: {exc}")
        try:
            lane.send(reply)
        except OSError:
            return


def main(argv: list[str]) -> int:
    """``python -m audio.whisper_host THREADS FD [FD ...]``: load Whisper, say "ready" on
    every lane, serve each lane from a thread; exit when every lane has closed."""
    import ctypes

    threads, fds = int(argv[0]), [int(fd) for fd in argv[1:]]
    lanes = [Connection(fd) for fd in fds]
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(-8, 2)  # M_ARENA_MAX: two arenas, as the demo's process (ui.demo_build)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from audio.whisper import load_model, recognise_with

        model = load_model(cpu_threads=threads, num_workers=len(lanes))
        recognise_with(model, np.zeros(8000, dtype=np.float32))  # the first run's set-up
    except Exception as exc:
        for lane in lanes:
            with contextlib.suppress(OSError):
                lane.send(("failed", f"{type(exc).__name__}: {exc}"))
        return 1
    for lane in lanes:
        lane.send(("ready", os.getpid()))
    workers = [threading.Thread(target=_serve, args=(model, lane), name=f"lane-{i}")
               for i, lane in enumerate(lanes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
