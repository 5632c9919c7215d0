"""A latency timeline of one call (``timeline.png``): who spoke when, and what the agent did.

Rows: caller turns, agent speech per generation (hatched where it was cut), and the trace's
dialogue, action and retrieval events as markers. Uses matplotlib's Agg backend (no display).
"""

from __future__ import annotations

from pathlib import Path

from audio.calls.evidence import Evidence

ROWS = {"caller": 4, "agent": 3, "dialogue": 2, "actions": 1, "retrieval": 0}
GROUPS = {"confirmation_requested": "dialogue", "clarification_requested": "dialogue",
          "handoff": "dialogue", "repair": "dialogue", "field_accepted": "dialogue",
          "field_rejected": "dialogue",
          "generation_invalidated": "agent", "confirmation_spoken": "agent",
          "answer_spoken": "agent"}


def plot_timeline(evidence: Evidence, path: Path) -> None:
    """Draw and save the timeline (side effect: writes ``path``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 3.6))
    try:
        for event in evidence.named("user_turn_final"):
            ax.plot([event.t], [ROWS["caller"]], "v", color="tab:blue")
        for h in evidence.heard:
            if h.started is None or h.stopped is None:
                continue
            cut = not h.completed
            ax.barh(ROWS["agent"], max(h.stopped - h.started, 0.02), left=h.started, height=0.5,
                    color="tab:red" if cut else "tab:green", alpha=0.6,
                    hatch="//" if cut else None)
            ax.text(h.started, ROWS["agent"] + 0.3, f"g{h.generation}", fontsize=7)
            if cut:
                ax.plot([h.stopped], [ROWS["agent"]], "x", color="tab:red")
        styles: dict[str, tuple[str, str]] = {}
        markers = "o^sDv<>Ph*X"
        for event in evidence.events:
            group = GROUPS.get(event.name) or (
                "actions" if event.name.startswith("action_") else
                "retrieval" if event.name.startswith("retrieval_") else None)
            if group is None:
                continue
            if event.name not in styles:  # one marker per event name, named in the legend
                n = len(styles)
                styles[event.name] = (markers[n % len(markers)], f"C{n % 10}")
            marker, color = styles[event.name]
            ax.plot([event.t], [ROWS[group]], marker, color=color, markersize=6,
                    label=event.name.replace("_", " "))
        handles, labels = ax.get_legend_handles_labels()
        unique = dict(zip(labels, handles, strict=True))
        if unique:
            ax.legend(unique.values(), unique.keys(), fontsize=6, loc="upper left",
                      bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.set_yticks(list(ROWS.values()), list(ROWS.keys()))
        ax.set_xlabel("seconds since call start")
        ax.set_ylim(-0.8, 4.8)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
