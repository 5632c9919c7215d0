"""The benchmark registry behind ``amend bench``.

Packages register figures here at import time; the CLI imports each package's ``bench``
module and runs every registered function. Figures are reported, never asserted: targets are
printed beside the values so a reader can judge them.

It lives in ``agent/`` only because every package's benchmark module (``registry``,
``retrieval``, ``tools_sandbox``, ``audio``, ``ui``) must reach it and ``agent`` is the one
package they may all import. It is a leaf: value types and a registry, standard library only,
and no other module of ``agent/`` imports it (``tests/test_architecture.py``); the benchmarks
themselves live outside the core.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BenchRow:
    figure: str
    value: float | int | str
    unit: str
    target: str
    command: str


BenchFn = Callable[[bool], Iterable[BenchRow]]
_REGISTRY: dict[str, BenchFn] = {}


def register(name: str) -> Callable[[BenchFn], BenchFn]:
    """Decorator: register ``fn(quick) -> rows`` under ``name`` (side effect: global registry)."""

    def wrap(fn: BenchFn) -> BenchFn:
        _REGISTRY[name] = fn
        return fn

    return wrap


def registered() -> dict[str, BenchFn]:
    return dict(_REGISTRY)


# Options of one ``amend bench`` run that a group may read (``--db``: the database the sandbox
# and registry groups run on; None means their embedded SQLite default).
# ``soak_minutes`` / ``soak_sessions``: how long the soak runs and how many browsers it plays.
_OPTIONS: dict[str, str | None] = {"db": None, "soak_minutes": None, "soak_sessions": None,
                                   "evidence": None, "replay": None}


class BenchInputError(ValueError):
    """A benchmark's input cannot be used (a file a run reads back): the message names it and
    what to do; ``amend bench`` prints it as an error, never a traceback."""


def set_option(name: str, value: str | None) -> None:
    """Set a run option (side effect: module state read by the benchmark groups)."""
    if name not in _OPTIONS:
        raise KeyError(f"unknown bench option {name!r}")
    _OPTIONS[name] = value


def option(name: str) -> str | None:
    return _OPTIONS[name]


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sample list."""
    if not samples:
        raise ValueError("percentile of an empty sample")
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def median(samples: list[float]) -> float:
    return statistics.median(samples)
