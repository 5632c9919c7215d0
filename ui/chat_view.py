"""What ``amend chat`` prints: agent speech (a SpeechSink) and the trace, rendered inline.

A correction shows as ``field: old -> new (v2, revision 3)``; an action that a correction made
stale shows as it dies (cancelled, withdrawn, reconciled). Read-only on the controller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agent.core.speech import SpeechKind, SpeechPlan
from agent.core.trace import Trace, TraceEvent

if TYPE_CHECKING:
    from agent.service.controller import Controller

_ACTION_STYLE = {"action_proposed": "cyan", "action_dispatched": "blue",
                 "action_committed": "green", "action_cancelled": "red",
                 "action_cancel_requested": "yellow", "action_reconciled": "yellow",
                 "action_unknown": "yellow", "action_failed": "red", "dispatch_refused": "red"}


class ChatView:
    def __init__(self, console: Console, trace: Trace):
        self.console = console
        self.trace = trace
        self.controller: Controller | None = None  # set by attach(), before any command
        self._values: dict[str, str | None] = {}
        trace.listeners.append(self.on_event)

    def attach(self, controller: Controller) -> None:
        self.controller = controller

    # -- SpeechSink -------------------------------------------------------------------------
    def speak(self, plan: SpeechPlan) -> None:
        style = {SpeechKind.CONFIRMATION: "bold green", SpeechKind.PENDING: "yellow",
                 SpeechKind.WAITING: "yellow", SpeechKind.QUESTION: "bold"}.get(plan.kind, "")
        tag = f"[dim]g{plan.generation}[/dim]"
        text = escape(plan.text)
        self.console.print(f"[bold]agent[/bold] {tag}> [{style}]{text}[/{style}]"
                           if style else f"[bold]agent[/bold] {tag}> {text}")

    def invalidate(self, generation: int, reason: str) -> None:
        self.console.print(f"[dim]  (generation g{generation} cut: {reason})[/dim]")

    # -- trace --------------------------------------------------------------------------------
    def on_event(self, event: TraceEvent) -> None:
        name = event.name
        if name == "field_accepted" and self.controller is not None:
            snap = self.controller.snapshot
            for field in event.get("fields") or ():
                record = snap.get(field)
                old = self._values.get(field)
                new = record.value if record is not None else None
                status = f" [{record.status}]" if record is not None and str(
                    record.status) != "confirmed" else ""
                self.console.print(
                    f"[magenta]  ledger {field}: {old or '-'} -> {new or '-'}{status} "
                    f"(v{record.version if record else 0}, revision {event.revision}, "
                    f"{event.get('source')})[/magenta]")
                self._values[field] = new
        elif name == "field_rejected":
            self.console.print(f"[red]  rejected {event.get('field')}: {event.get('reason')} "
                               "(ledger unchanged)[/red]")
        elif name in _ACTION_STYLE:
            extra = " ".join(f"{k}={event.get(k)}" for k in (
                "reason", "state", "ref", "version", "based_on_revision") if event.get(k)
                is not None)
            self.console.print(f"[{_ACTION_STYLE[name]}]  {name.replace('_', ' ')} "
                               f"{event.get('action') or ''} {event.get('op') or ''} {extra}"
                               f"[/{_ACTION_STYLE[name]}]")
        elif name in ("confirmation_requested", "clarification_requested"):
            self.console.print(f"[dim]  {name}: {', '.join(event.get('fields') or ())}[/dim]")
        elif name == "repair":
            self.console.print(f"[dim]  repair: {event.get('step')} ({event.get('field')})[/dim]")
        elif name in ("handoff", "answer_withheld", "agent_error"):
            detail = event.get("reason") or event.get("error")
            self.console.print(f"[yellow]  {name}: {detail}[/yellow]")
        elif name == "answer_spoken":
            cites = ", ".join(event.get("citations") or ()) or "none"
            self.console.print(f"[dim]  answer: {event.get('outcome')}; citations {cites}[/dim]")

    # -- commands -------------------------------------------------------------------------------
    def print_ledger(self) -> None:
        assert self.controller is not None
        snap = self.controller.snapshot
        table = Table(title=f"ledger {snap.question} revision {snap.revision}")
        for column in ("field", "value", "status", "version", "revision", "source"):
            table.add_column(column)
        for name, r in snap.fields:
            value = r.value if r.value is not None else "/".join(r.candidates) or "-"
            table.add_row(name, value, str(r.status), str(r.version), str(r.updated_at),
                          r.source)
        self.console.print(table)

    def print_actions(self) -> None:
        assert self.controller is not None
        table = Table(title="actions")
        for column in ("id", "op", "status", "based_on_revision", "key", "args"):
            table.add_column(column, overflow="fold")
        for a in self.controller.actions:
            args = ", ".join(f"{k}={v}" for k, v in a.args if v and k in (
                "asset", "date", "window", "time", "ref"))
            table.add_row(a.id, a.op, str(a.status), str(a.based_on_revision),
                          a.idempotency_key, args)
        self.console.print(table)

    def print_trace(self, count: int) -> None:
        for event in self.trace.events[-count:]:
            data = " ".join(f"{k}={v}" for k, v in event.data)
            self.console.print(f"[dim]{event.t:7.3f}[/dim] {event.name} rev={event.revision} "
                               f"gen={event.generation} {event.request or ''} {data}",
                               markup=False)

    def print_bookings(self, rows: list[dict]) -> None:
        assert self.controller is not None
        account = self.controller.caller.account
        table = Table(title=f"bookings of {account}")
        for column in ("ref", "asset", "date", "window", "time", "status", "version"):
            table.add_column(column)
        for b in rows:
            if b["account"] == account:
                table.add_row(*(str(b.get(k) or "-") for k in (
                    "ref", "asset", "date", "window", "time", "status", "version")))
        self.console.print(table)
