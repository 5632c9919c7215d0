"""Per-call artifacts (``--artifacts DIR``): the evidence as files a person can open.

Writes one folder per call (side effect: creates or overwrites files in it): ``trace.jsonl``,
``bookings.json``, ``notifications.json``, ``fields.json``, ``heard.txt``,
``transcripts.txt``, ``timeline.png`` and whatever the mode adds (``output.wav`` in audio
mode).
"""

from __future__ import annotations

import json
from pathlib import Path

from audio.calls.evidence import Evidence
from audio.calls.mode import CallMode


def write_artifacts(directory: Path, evidence: Evidence, mode: CallMode) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "trace.jsonl").open("w", encoding="utf-8") as out:
        for event in evidence.events:
            out.write(json.dumps(event.to_dict(), default=str) + "\n")
    _dump(directory / "bookings.json", list(evidence.bookings))
    _dump(directory / "notifications.json", list(evidence.notifications))
    _dump(directory / "fields.json", evidence.fields)
    lines = []
    for h in sorted(evidence.heard, key=lambda h: (h.started is None, h.started or 0.0)):
        status = "complete" if h.completed else f"{h.reason} at char {h.heard_chars}"
        lines.append(f"[generation {h.generation} {h.kind} {status}] {h.heard}")
    (directory / "heard.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / "transcripts.txt").write_text(
        "".join(f"turn {i}: {t}\n" for i, t in enumerate(evidence.transcripts, 1)),
        encoding="utf-8")
    from audio.calls.timeline import plot_timeline
    plot_timeline(evidence, directory / "timeline.png")
    mode.write_artifacts(directory)


def _dump(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
