"""What the pack's test modules share: the order its calls start in."""

from __future__ import annotations

from pathlib import Path

from audio.calls.script import load_script


def longest_first(paths: list[Path]) -> list[str]:
    """The scripts, the longest calls first (turns, then words said): started last, a long
    call would set the whole pack's time on its own."""
    def size(path: Path) -> tuple[int, int]:
        turns = load_script(path).turns
        return len(turns), sum(len(t.say) for t in turns)
    return [str(p) for p in sorted(paths, key=size, reverse=True)]
