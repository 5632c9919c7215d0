"""HTML for the demo's live panels: pure functions from session views to escaped markup.

``gr.HTML`` does not sanitize, so every string that could come from a caller, a record, a
registry file or a trace passes through :func:`esc` here and nowhere else builds markup.
Nothing in this module performs I/O or touches a session; it only reads what it is given.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.core.caller import CallerProfile
from agent.core.ledger import LedgerSnapshot
from agent.core.trace import TraceEvent


def esc(value: object) -> str:
    """Escape anything for HTML text or a quoted attribute (quotes included)."""
    return html.escape("" if value is None else str(value), quote=True)


@dataclass(frozen=True, slots=True)
class TranscriptLine:
    """One line of the transcript. ``cut`` marks agent speech stopped by a barge-in."""

    speaker: str  # "caller" | "agent"
    text: str
    generation: int = 0
    cut: bool = False
    kind: str = ""  # the SpeechKind of agent lines ("confirmation", "pending", ...)
    cut_reason: str = ""  # why it was cut: "barge_in", "correction", ...


@dataclass(frozen=True, slots=True)
class TurnLatency:
    """Milestones of one turn in ms after the caller's last voiced frame (None: not reached)."""

    turn: int
    transcript_ms: float | None = None
    decision_ms: float | None = None
    first_audio_ms: float | None = None


def _table(headers: Sequence[str], rows: Iterable[tuple[Sequence[object], str]],
           empty: str, caption: str) -> str:
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in headers)
    body = "".join(
        f'<tr class="{esc(cls)}">' + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"
        for cells, cls in rows)
    if not body:
        body = f'<tr><td colspan="{len(headers)}" class="amend-empty">{esc(empty)}</td></tr>'
    return (f'<div class="amend-scroll"><table class="amend-table"><caption>{esc(caption)}'
            f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def render_persona(profile: CallerProfile) -> str:
    """The authenticated caller: what the agent trusts without asking."""
    assets = "".join(
        f"<li><b>{esc(a.id)}</b> {esc(a.configuration)} · {esc(a.region)} · {esc(a.site)}</li>"
        for a in profile.assets)
    return (f'<div class="amend-persona"><dl>'
            f"<dt>Tenant</dt><dd>{esc(profile.tenant)}</dd>"
            f"<dt>Subject</dt><dd>{esc(profile.subject)}</dd>"
            f"<dt>Roles</dt><dd>{esc(', '.join(profile.roles))}</dd>"
            f"<dt>Account</dt><dd>{esc(profile.account)}</dd></dl>"
            f"<ul>{assets}</ul></div>")


def render_transcript(lines: Sequence[TranscriptLine]) -> str:
    """Caller and agent turns; agent speech cut by a barge-in is struck through and labelled."""
    if not lines:
        return '<div class="amend-transcript amend-empty">Say hello, or type a turn.</div>'
    items = []
    for line in lines:
        cls = f"amend-line amend-{esc(line.speaker)}" + (" amend-cut" if line.cut else "")
        who = "You" if line.speaker == "caller" else "Agent"
        meta = f' <span class="amend-gen">g{line.generation}</span>' if line.speaker == "agent" \
            else ""
        kind = f' <span class="amend-kind">{esc(line.kind)}</span>' if line.kind else ""
        why = line.cut_reason.replace("_", " ") or "barge in"
        cut = f' <span class="amend-cut-label">(cut: {esc(why)})</span>' if line.cut else ""
        items.append(f'<li class="{cls}"><span class="amend-who">{who}</span>{meta}{kind} '
                     f'<span class="amend-text">{esc(line.text)}</span>{cut}</li>')
    return f'<ol class="amend-transcript" aria-live="polite">{"".join(items)}</ol>'


def render_ledger(snapshot: LedgerSnapshot, changed: Iterable[str] = ()) -> str:
    """Field, value, version, source, status; rows changed at the latest revision highlighted."""
    fresh = set(changed)
    rows = [((name, rec.value if rec.value is not None else "—", rec.version, rec.source,
              rec.status), "amend-changed" if name in fresh else "")
            for name, rec in snapshot.fields]
    caption = f"revision {snapshot.revision}" + (" · closed" if snapshot.closed else "")
    return _table(("field", "value", "version", "source", "status"), rows,
                  "No accepted fields yet.", caption)


def render_actions(actions: Sequence[Any]) -> str:
    """Each action's op, status, the revision it was built on and its idempotency key."""
    rows = [((a.op, a.status, a.based_on_revision, a.idempotency_key,
              ", ".join(f"{k}={v}" for k, v in a.args)), f"amend-status-{esc(a.status)}")
            for a in actions]
    return _table(("op", "status", "based on rev", "idempotency key", "args"), rows,
                  "No actions.", "actions")


def render_evidence(items: Sequence[Mapping[str, object]]) -> str:
    """Citations and outcomes: revision, validity interval, registry snapshot, outcome."""
    rows = [((i.get("outcome"), i.get("revision"), i.get("interval"), i.get("snapshot"),
              i.get("chunk")), "") for i in items]
    return _table(("outcome", "revision", "interval", "snapshot", "chunk"), rows,
                  "No evidence used yet.", "evidence and citations")


def render_bookings(records: Sequence[Any]) -> str:
    """The sandbox's bookings: the system of record the agent's confirmations must match."""
    rows = [((r.ref, r.asset, r.date, r.window or r.time, r.units, r.status, r.version),
             f"amend-status-{esc(r.status)}") for r in records]
    return _table(("ref", "asset", "date", "window/time", "units", "status", "version"), rows,
                  "No bookings.", "sandbox bookings")


def render_notifications(items: Sequence[Mapping[str, object]]) -> str:
    """The sandbox outbox. Sent notifications cannot be recalled."""
    rows = [((n.get("kind"), n.get("booking_ref") or n.get("booking"),
              n.get("booking_version", ""), n.get("contact") or n.get("to"),
              n.get("status", ""), n.get("body") or n.get("text")), "") for n in items]
    return _table(("kind", "booking", "version", "to", "status", "text"), rows, "Outbox empty.",
                  "notifications (cannot be recalled)")


def _show(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, tuple | list) else str(value)


def render_trace(events: Sequence[TraceEvent], limit: int = 80) -> str:
    """The newest ``limit`` trace events, newest first, with their stamps."""
    rows = []
    for e in reversed(list(events)[-limit:]):
        extra = "; ".join(f"{k}={_show(v)}" for k, v in e.data if k != "text")
        rows.append(((f"{e.t:.2f}", e.name, e.revision, e.generation, e.disposition or "",
                      extra), f"amend-ev-{esc(e.name)}"))
    table = _table(("t (s)", "event", "rev", "gen", "disposition", "data"), rows,
                   "No events yet.", f"trace: {len(events)} events, newest first")
    return table.replace('class="amend-table"', 'class="amend-table amend-trace"', 1)


_MILESTONES = (("transcript_ms", "transcript"), ("decision_ms", "decision"),
               ("first_audio_ms", "first audio"))


def render_waterfall(turns: Sequence[TurnLatency], scale_ms: float = 1500.0) -> str:
    """Per-turn bars from the last voiced frame (0 ms) to each milestone."""
    if not turns:
        return '<div class="amend-waterfall amend-empty">No voiced turns measured yet.</div>'
    blocks = []
    for turn in turns[-6:]:
        bars = []
        for attr, label in _MILESTONES:
            ms = getattr(turn, attr)
            width = 0 if ms is None else min(100.0, max(1.0, 100.0 * ms / scale_ms))
            value = "—" if ms is None else f"{ms:.0f} ms"
            bars.append(f'<div class="amend-bar-row"><span class="amend-bar-label">'
                        f'{label}</span><span class="amend-bar amend-bar-{attr[:-3]}" '
                        f'style="width:{width:.1f}%"></span><span class="amend-bar-value">'
                        f"{value}</span></div>")
        blocks.append(f'<div class="amend-turn"><div class="amend-turn-title">turn '
                      f'{turn.turn}: ms after the last voiced frame (typed: after arrival)'
                      f'</div>{"".join(bars)}</div>')
    return f'<div class="amend-waterfall">{"".join(blocks)}</div>'
