"""The browser demo: one FastAPI app with static files, the voice websocket and Gradio at ``/``.

Route order matters: static files and the websocket are registered before Gradio is mounted
at ``/`` (a websocket route added after the mount never connects). Each browser tab gets its
own session from the :class:`~ui.session_hub.SessionHub` on page load and loses it on unload.
Panels are HTML rendered by :mod:`ui.panels`, which escapes everything user-derived.
"""

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

import gradio as gr

from agent.core.errors import AmendError
from agent.core.ops import SANDBOX_OPS
from ui import panels
from ui.allocator import MemoryTrimmer
from ui.scripted import ScriptRunner
from ui.session_hub import SessionHub, TabScope
from ui.session_view import PanelHTML, render_all

STATIC = Path(__file__).with_name("static")
HEAD = ('<link rel="stylesheet" href="/static/amend.css">'
        '<script src="/static/voice-widget.js"></script>')
FAULT_OPS = SANDBOX_OPS
STAFF_FIELDS = ("date", "window", "time", "units", "site", "contact", "status")
GRADIO_SESSIONS_KEPT = 200  # Gradio's per-session state kept at most (see build_blocks)
NO_SESSION = '<span class="amend-status">no session: reload the page</span>'
PANELS = "panels"  # the Gradio queue of every handler that writes the panels (build_blocks)

VOICE_WIDGET = """
<div class="amend-voice" role="group" aria-label="Voice controls">
  <button id="amend-mic" type="button" aria-pressed="false">Start microphone</button>
  <button id="amend-ptt-mode" type="button" aria-pressed="false"
          title="For rooms without headphones: only send audio while holding Talk">
    Push-to-talk mode</button>
  <button id="amend-talk" type="button" disabled
          title="Hold with the mouse, or focus and hold Space">Hold to talk</button>
  <meter id="amend-level" min="0" max="1" value="0" aria-label="Microphone level"></meter>
  <div class="amend-voice-line"><span id="amend-voice-status" role="status">not connected</span>
  <span id="amend-last-event" class="amend-gen"></span></div>
</div>
"""

# Runs in the page after a (re)opened session: bind the voice link to this tab's session.
CONNECT_JS = "(tab) => { if (window.amendVoice) window.amendVoice.connect(tab, true); }"
# Typed turns go over the voice link when it is up (the pipeline then voices the answer);
# otherwise the server feeds the session directly.
TYPED_JS = ("(text, via) => { const v = window.amendVoice;"
            " if (v && v.sendText(text)) return [text, 'voice'];"
            " return [text, 'direct']; }")


def _panel_values(html: PanelHTML) -> tuple[str, ...]:
    return (html.status, html.transcript, html.ledger, html.actions, html.evidence,
            html.bookings, html.notifications, html.trace, html.waterfall)


async def render_tab(hub: SessionHub, tab: str | None) -> tuple[str, ...]:
    """What the panels show for ``tab`` now. A tab closed or reopened while its panels were
    being rendered (its world's sandbox client closed under the render) shows what the tab has
    now, no session or the new one, rather than raising from a client that is gone."""
    session = hub.get(tab)
    if session is None:
        return (NO_SESSION,) + ("",) * 8
    try:
        return _panel_values(await render_all(session))
    except Exception:
        if hub.get(tab) is session:
            raise  # the session is still the tab's: a real failure
        return await render_tab(hub, tab)


def build_blocks(hub: SessionHub, scripts: ScriptRunner | None = None) -> Any:
    """The Gradio page. Every handler finds its tab's session by the request's session hash."""
    personas = [(p.name or key, key) for key, p in hub.personas.items()]
    first = personas[0][1]

    async def panels_for(request: gr.Request) -> tuple[str, ...]:
        return await render_tab(hub, request.session_hash)

    # Per tab: what the page shows now. Only the handlers of the PANELS queue write the panels,
    # one at a time in every tab (Gradio's concurrency limit 1), so what they send arrives in
    # the order it was rendered. When a typed turn's handler returned the panels itself, a
    # render taken before the booking confirmed could reach the page after the timer had sent
    # "It's booked.", and the timer, believing the page current, never sent it again.
    sent: dict[str | None, tuple[str, ...]] = {}

    async def _refresh(request: gr.Request, every: bool) -> tuple[Any, ...]:
        values = await panels_for(request)
        if hub.get(request.session_hash) is None:  # a tick after the tab closed: keep nothing
            sent.pop(request.session_hash, None)
            return values
        before = sent.get(request.session_hash)
        sent[request.session_hash] = values
        if every or before is None:
            return values
        return tuple(gr.skip() if new == old else new for new, old in zip(values, before,
                                                                        strict=True))

    async def changed_panels(request: gr.Request) -> tuple[Any, ...]:
        """The panels' refresh: only panels that changed, so scroll positions and focus stay."""
        return await _refresh(request, every=False)

    async def all_panels(request: gr.Request) -> tuple[Any, ...]:
        """Every panel, empty ones too, for a page whose session was just (re)opened: what
        the page shows is the previous session's."""
        return await _refresh(request, every=True)

    async def open_session(persona_id: str, request: gr.Request):
        try:
            session = await hub.open(request.session_hash, persona_id or first)
        except AmendError as exc:
            raise gr.Error(str(exc)) from None
        return request.session_hash, panels.render_persona(session.persona)

    async def typed(text: str, via: str, request: gr.Request):
        session = hub.get(request.session_hash)
        if session is None:
            raise gr.Error("no session for this tab: reload the page")
        if via != "voice":
            try:
                await session.typed_turn(text)
            except AmendError as exc:
                gr.Warning(str(exc))
                return text
        return ""

    async def inject_fault(op: str, delay_ms: float, lost: bool, request: gr.Request):
        session = hub.get(request.session_hash)
        fault: dict[str, object] = {}
        if delay_ms and delay_ms > 0:
            fault["delay_ms"] = int(delay_ms)
        if lost:
            fault["drop_response"] = True
        if session is None or not fault:
            gr.Warning("choose a delay above 0 ms or a lost response, then inject")
            return
        try:
            await session.world.set_fault(op, fault)
        except AmendError as exc:
            gr.Warning(str(exc))
        else:
            gr.Info(f"next {op}: {', '.join(f'{k}={v}' for k, v in fault.items())}")

    async def staff_edit(ref: str, field: str, value: str, request: gr.Request):
        session = hub.get(request.session_hash)
        if session is None or not ref.strip() or not value.strip():
            gr.Warning("staff edit: give a booking ref and a new value")
            return
        try:
            await session.world.staff_edit(ref.strip(), {field: value.strip()})
        except AmendError as exc:
            gr.Warning(str(exc))

    async def end_session(request: gr.Request) -> None:
        sent.pop(request.session_hash, None)
        await hub.close(request.session_hash)
        _forget_gradio_session(demo, request.session_hash)

    with gr.Blocks(title="Amend: corrections done right", analytics_enabled=False,
                   fill_width=True) as demo:
        gr.HTML('<header class="amend-header"><h1>Amend</h1><p>A voice agent that gets '
                "corrections right. Talk or type; correct yourself; watch the revision, the "
                "actions and the system of record.</p></header>", js_on_load=None)
        tab_id = gr.Textbox(visible=False, elem_id="amend-tab")
        with gr.Tabs():
            with gr.Tab("Live call", id="live"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=1, min_width=320):
                        persona = gr.Dropdown(personas, value=first, label="Caller persona",
                                              elem_id="amend-persona")
                        persona_html = gr.HTML(js_on_load=None, elem_id="amend-persona-card")
                        gr.HTML(VOICE_WIDGET, js_on_load=None, elem_id="amend-voice-widget")
                        with gr.Row():
                            text = gr.Textbox(label="Typed turn", elem_id="amend-typed",
                                              placeholder="e.g. Book P-100 on Wednesday "
                                              "afternoon (Enter sends)", scale=4)
                            via = gr.Textbox(visible=False, value="direct")
                            send = gr.Button("Send", variant="primary", scale=1,
                                             elem_id="amend-send")
                        with gr.Accordion("Demo controls", open=False, elem_id="amend-controls"):
                            fault_op = gr.Dropdown(list(FAULT_OPS), value=FAULT_OPS[0],
                                                   label="Sandbox op")
                            with gr.Row():
                                delay = gr.Number(value=1500, label="Delay (ms)", minimum=0)
                                lost = gr.Checkbox(label="Lose the response")
                            fault_btn = gr.Button("Inject fault on the next call")
                            with gr.Row():
                                staff_ref = gr.Textbox(label="Booking ref")
                                staff_field = gr.Dropdown(list(STAFF_FIELDS), value="date",
                                                          label="Field")
                            staff_value = gr.Textbox(label="New value")
                            staff_btn = gr.Button("Apply staff edit")
                            reset = gr.Button("Reset session", variant="stop",
                                              elem_id="amend-reset")
                    with gr.Column(scale=2, min_width=480):
                        status = gr.HTML(js_on_load=None, elem_id="amend-status")
                        transcript = gr.HTML(js_on_load=None, elem_id="amend-transcript",
                                             label="Transcript")
                        with gr.Tabs():
                            with gr.Tab("Ledger"):
                                ledger = gr.HTML(js_on_load=None, elem_id="amend-ledger")
                            with gr.Tab("Actions"):
                                actions = gr.HTML(js_on_load=None, elem_id="amend-actions")
                            with gr.Tab("Evidence"):
                                evidence = gr.HTML(js_on_load=None, elem_id="amend-evidence")
                            with gr.Tab("Sandbox"):
                                bookings = gr.HTML(js_on_load=None, elem_id="amend-bookings")
                                notes = gr.HTML(js_on_load=None, elem_id="amend-notifications")
                            with gr.Tab("Trace"):
                                trace = gr.HTML(js_on_load=None, elem_id="amend-trace")
                            with gr.Tab("Latency"):
                                waterfall = gr.HTML(js_on_load=None, elem_id="amend-waterfall")
            with gr.Tab("Scripted call", id="scripted"):
                if scripts is not None:
                    scripts.build(gr)
                else:
                    gr.Markdown("No call scripts found.")

        outputs = [status, transcript, ledger, actions, evidence, bookings, notes, trace,
                   waterfall]
        panel_queue: dict[str, Any] = {"concurrency_id": PANELS, "concurrency_limit": 1}
        for opening in (demo.load, persona.change, reset.click):
            opening(open_session, [persona], [tab_id, persona_html]).then(
                all_panels, None, outputs, **panel_queue).then(None, [tab_id], None,
                                                               js=CONNECT_JS)
        for trigger in (text.submit, send.click):
            trigger(typed, [text, via], [text], js=TYPED_JS).then(
                changed_panels, None, outputs, show_progress="hidden", **panel_queue)
        fault_btn.click(inject_fault, [fault_op, delay, lost], None).then(
            changed_panels, None, outputs, **panel_queue)
        staff_btn.click(staff_edit, [staff_ref, staff_field, staff_value], None).then(
            changed_panels, None, outputs, **panel_queue)
        gr.Timer(0.5).tick(changed_panels, None, outputs, show_progress="hidden",
                           **panel_queue)
        demo.unload(end_session)
    # Gradio keeps a session's state (a copy of the page's config: 80 KiB when created here,
    # more once events have stored the panels' values) for up to 10000 sessions, closed or
    # not: a demo left up while browsers come and go grows by that much per tab (issue 19).
    # Closed tabs are forgotten in end_session; this bounds the rest (the oldest go first; a
    # live tab's handlers read the hub, not Gradio's state).
    demo.state_session_capacity = GRADIO_SESSIONS_KEPT
    return demo


def _forget_gradio_session(blocks: Any, session_hash: str | None) -> None:
    """Drop Gradio's per-session state of a closed tab now, not an hour later (side effect:
    ``blocks.state_holder``, set once the page is mounted)."""
    holder = getattr(blocks, "state_holder", None)
    if holder is None or session_hash is None:
        return
    with holder.lock:
        holder.session_data.pop(session_hash, None)
        holder.time_last_used.pop(session_hash, None)


def build_app(hub: SessionHub, voice_router: Any | None = None,
              scripts: ScriptRunner | None = None, trimmer: MemoryTrimmer | None = None) -> Any:
    """FastAPI app: /static, /ws/voice (when a router is given), then Gradio at /.
    ``trimmer``: gives malloc's free memory back while the app runs (ui/allocator.py); its
    summary goes to stderr at shutdown, with the voice link's collections after calls."""
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        trimming = None
        if trimmer is not None and trimmer.available:
            trimming = asyncio.ensure_future(trimmer.run())
        try:
            yield
        finally:
            if trimming is not None:
                trimming.cancel()
                print(trimmer.summary(), file=sys.stderr, flush=True)
            links = getattr(voice_router, "links", None)
            if links is not None:
                print(links.summary(), file=sys.stderr, flush=True)
            await hub.close_all()  # every tab's world: sandbox threads, temporary databases

    app = FastAPI(title="Amend demo", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if voice_router is not None:
        paths = [getattr(r, "path", "") for r in voice_router.routes]
        prefix = "" if any(p.startswith("/ws/voice") for p in paths) else "/ws/voice"
        app.include_router(voice_router, prefix=prefix)
    app.add_middleware(TabScope)
    app.state.hub = hub
    blocks = build_blocks(hub, scripts)
    return gr.mount_gradio_app(app, blocks, path="/", head=HEAD, footer_links=[])
