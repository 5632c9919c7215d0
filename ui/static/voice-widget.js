// Amend voice widget: microphone capture and agent playback over the same-origin websocket.
//
// Protocol (audio/browser.py owns the server side):
//   client -> server  binary: PCM16 LE mono 16 kHz, 20 ms frames
//                     text:   {"type":"text","text":...} | {"type":"ptt","on":bool}
//   server -> client  binary: uint32 LE generation, uint32 LE sample rate, PCM16 LE mono
//                     text:   {"type":"clear"|"pause"|"resume","generation":N}
//                             {"type":"event","event":{...trace event...}}
// State lives on window.amendVoice, because Gradio may re-render the widget's HTML at any
// time; controls are bound by event delegation on the document for the same reason.
(function () {
  "use strict";
  if (window.amendVoice) return;
  const base = new URL(".", document.currentScript ? document.currentScript.src
                                                    : location.origin + "/static/");
  const ONSET_RMS = 0.02;      // speech onset threshold for the page's own measurement
  const QUIET_FRAMES = 15;     // 300 ms below the threshold re-arms onset detection

  const V = {
    tab: null, ws: null, ctx: null, capture: null, player: null, stream: null,
    micOn: false, pttMode: false, talking: false, clearedUpTo: 0,
    resamplers: {}, events: [], quiet: QUIET_FRAMES, framesCaptured: 0,
    measures: {onsets: [], clears: [], pauses: [], started: [], drained: []},
    status: "not connected",
  };
  window.amendVoice = V;

  function $(id) { return document.getElementById(id); }
  function setStatus(text) {
    V.status = text;
    const el = $("amend-voice-status");
    if (el) el.textContent = text;
  }
  function refreshControls() {
    const mic = $("amend-mic"), ptt = $("amend-ptt-mode"), talk = $("amend-talk");
    if (mic) {
      mic.setAttribute("aria-pressed", String(V.micOn));
      mic.textContent = V.micOn ? "Stop microphone" : "Start microphone";
    }
    if (ptt) ptt.setAttribute("aria-pressed", String(V.pttMode));
    if (talk) {
      talk.disabled = !V.pttMode;
      talk.classList.toggle("amend-talking", V.talking);
    }
  }

  // ----------------------------------------------------------------------- websocket
  // ``fresh``: the tab's session was just (re)opened, so bind a new socket to it even if one
  // is open (reset and persona changes replace the session behind the same tab id).
  V.connect = function (tab, fresh) {
    if (!tab) return;
    if (!fresh && V.ws && V.tab === tab && V.ws.readyState <= 1) return;
    if (V.ws) V.ws.close();
    V.tab = tab;
    V.clearedUpTo = 0;
    V.resamplers = {};
    if (V.player) V.player.port.postMessage({type: "reset"});
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/voice?tab=${encodeURIComponent(tab)}`);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => setStatus(V.micOn ? "listening" : "connected (microphone off)");
    ws.onclose = () => { if (V.ws === ws) setStatus("voice link closed"); };
    ws.onerror = () => setStatus("voice link unavailable: typed turns still work");
    ws.onmessage = (m) => {
      if (V.ws !== ws) return;  // a replaced socket's late audio belongs to an old session
      if (typeof m.data === "string") onControl(JSON.parse(m.data)); else onAudio(m.data);
    };
    V.ws = ws;
  };
  V.open = function () { return !!(V.ws && V.ws.readyState === 1); };
  V.sendText = function (text) {
    if (!V.open() || !text) return false;
    V.ws.send(JSON.stringify({type: "text", text: text}));
    return true;
  };

  function onControl(msg) {
    const gen = msg.generation | 0;
    if (msg.type === "clear") {
      V.clearedUpTo = Math.max(V.clearedUpTo, gen);
      for (const g of Object.keys(V.resamplers)) if (+g <= gen) delete V.resamplers[g];
      V.measures.clears.push({gen, received: performance.now()});
      if (V.player) V.player.port.postMessage({type: "clear", gen});
    } else if (msg.type === "pause" || msg.type === "resume") {
      if (msg.type === "pause") V.measures.pauses.push({gen, received: performance.now()});
      if (V.player) V.player.port.postMessage({type: msg.type, gen});
    } else if (msg.type === "event") {
      V.events.push(msg.event);
      if (V.events.length > 500) V.events.shift();
      document.dispatchEvent(new CustomEvent("amend-event", {detail: msg.event}));
      const el = $("amend-last-event");
      if (el) el.textContent = msg.event.event || "";
    }
  }

  function onAudio(buf) {
    if (buf.byteLength < 10 || !V.player) return;
    const view = new DataView(buf);
    const gen = view.getUint32(0, true), rate = view.getUint32(4, true);
    if (gen <= V.clearedUpTo || !rate) return;  // late chunks of a cleared generation
    const pcm = new Int16Array(buf.slice(8, 8 + ((buf.byteLength - 8) & ~1)));
    V.player.port.postMessage({type: "chunk", gen, data: resample(gen, rate, pcm)});
  }

  // Linear resampling with per-generation continuity (phase and last sample carry over).
  function resample(gen, rate, pcm) {
    const r = V.resamplers[gen] || (V.resamplers[gen] = {phase: 0, prev: 0});
    const step = rate / V.ctx.sampleRate;
    const out = [];
    let p = r.phase;
    while (p < pcm.length - 1 + 1e-9) {
      const i = Math.floor(p), f = p - i;
      const a = i < 0 ? r.prev : pcm[i] / 32768, b = pcm[Math.min(i + 1, pcm.length - 1)] / 32768;
      out.push(a + (b - a) * f);
      p += step;
    }
    r.phase = p - pcm.length;
    r.prev = pcm[pcm.length - 1] / 32768;
    return Float32Array.from(out);
  }

  // ----------------------------------------------------------------------- audio graph
  V.ensureAudio = async function () {
    if (V.ctx) { if (V.ctx.state === "suspended") await V.ctx.resume(); return; }
    const ctx = new AudioContext({latencyHint: "interactive"});
    await ctx.audioWorklet.addModule(new URL("player-worklet.js", base));
    await ctx.audioWorklet.addModule(new URL("capture-worklet.js", base));
    const player = new AudioWorkletNode(ctx, "amend-player", {outputChannelCount: [1]});
    player.connect(ctx.destination);
    player.port.onmessage = (e) => onPlayer(e.data);
    V.ctx = ctx; V.player = player;
    if (ctx.state === "suspended") await ctx.resume();
  };

  function onPlayer(m) {
    if (m.type === "cleared") {
      V.measures.clears.push({gen: m.gen, at: m.at, lastFrame: m.lastFrame});
    } else if (m.type === "started" || m.type === "drained") {
      V.measures[m.type].push({gen: m.gen, at: m.at});
    }
  }

  V.startMic = async function () {
    await V.ensureAudio();
    const stream = await navigator.mediaDevices.getUserMedia({audio: {
      echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1}});
    const node = new AudioWorkletNode(V.ctx, "amend-capture", {numberOfInputs: 1,
                                                                numberOfOutputs: 0});
    V.ctx.createMediaStreamSource(stream).connect(node);
    node.port.onmessage = (e) => onFrame(e.data);
    V.stream = stream; V.capture = node; V.micOn = true;
    setStatus(V.open() ? "listening" : "microphone on, voice link down");
    refreshControls();
  };
  V.stopMic = function () {
    if (V.stream) V.stream.getTracks().forEach((t) => t.stop());
    if (V.capture) V.capture.disconnect();
    V.stream = null; V.capture = null; V.micOn = false;
    setStatus(V.open() ? "connected (microphone off)" : V.status);
    refreshControls();
  };

  function onFrame(f) {
    V.framesCaptured++;
    // The page's own onset detector, only for measuring barge-in; the server decides turns.
    if (f.rms >= ONSET_RMS) {
      if (V.quiet >= QUIET_FRAMES) V.measures.onsets.push({at: f.at, perf: performance.now()});
      V.quiet = 0;
    } else {
      V.quiet++;
    }
    const meter = $("amend-level");
    if (meter) meter.value = Math.min(1, f.rms * 8);
    if (V.pttMode && !V.talking) return;
    if (V.open()) V.ws.send(f.frame);
  }

  function setTalking(on) {
    if (!V.pttMode || V.talking === on) return;
    V.talking = on;
    if (V.open()) V.ws.send(JSON.stringify({type: "ptt", on}));
    refreshControls();
  }

  // Speech onset to the last stale sample played: both on the AudioContext clock, plus the
  // device's output latency (when the last sample actually leaves the speaker).
  V.bargeInReport = function () {
    const sr = V.ctx ? V.ctx.sampleRate : 0;
    const out = [];
    for (const c of V.measures.clears.filter((x) => x.lastFrame)) {
      const frames = Object.entries(c.lastFrame).filter(([g]) => +g <= c.gen).map(([, f]) => f);
      if (!frames.length) continue;
      const last = Math.max(...frames);
      const onset = V.measures.onsets.filter((o) => o.at <= c.at).pop();
      if (!onset) continue;
      const latency = (V.ctx.outputLatency || 0) + (V.ctx.baseLatency || 0);
      const ts = V.ctx.getOutputTimestamp();
      out.push({gen: c.gen, sampleRate: sr,
                onsetToClearMs: (c.at - onset.at) / sr * 1000,
                onsetToLastStaleMs: (last - onset.at) / sr * 1000 + latency * 1000,
                lastStalePerf: ts.performanceTime + ((last / sr) - ts.contextTime) * 1000,
                onsetPerf: onset.perf});
    }
    return out;
  };

  // ----------------------------------------------------------------------- controls
  document.addEventListener("click", async (e) => {
    const t = e.target.closest ? e.target.closest("button") : null;
    if (!t) return;
    if (t.id === "amend-mic") {
      try { V.micOn ? V.stopMic() : await V.startMic(); }
      catch (err) { setStatus("microphone unavailable: " + err.name); }
    } else if (t.id === "amend-ptt-mode") {
      V.pttMode = !V.pttMode;
      if (!V.pttMode) setTalking(false);
      refreshControls();
    }
  });
  const isTalk = (e) => e.target && e.target.id === "amend-talk";
  document.addEventListener("pointerdown", (e) => { if (isTalk(e)) setTalking(true); });
  document.addEventListener("pointerup", () => setTalking(false));
  document.addEventListener("keydown", (e) => {
    if (isTalk(e) && (e.key === " " || e.key === "Enter")) { e.preventDefault(); setTalking(true); }
  });
  document.addEventListener("keyup", (e) => {
    if (isTalk(e) && (e.key === " " || e.key === "Enter")) { e.preventDefault(); setTalking(false); }
  });
  // Keep the newest transcript line in view whenever the panel re-renders.
  new MutationObserver(() => {
    const list = document.querySelector("ol.amend-transcript");
    if (list && list.dataset.count !== String(list.children.length)) {
      list.dataset.count = String(list.children.length);
      list.scrollTop = list.scrollHeight;
    }
  }).observe(document.documentElement, {childList: true, subtree: true});
  // Ensure playback can start as soon as a session exists (autoplay permitting).
  V.ensureAudio().catch(() => setStatus("click “Start microphone” to enable audio"));
})();
