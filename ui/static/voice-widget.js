// Amend voice widget: microphone capture and agent playback over the same-origin websocket.
//
// Protocol (audio/browser.py owns the server side):
//   client -> server  binary: PCM16 LE mono 16 kHz, 20 ms frames
//                     text:   {"type":"text","text":...} | {"type":"ptt","on":bool}
//                             {"type":"mic","on":false} (the audio stops: end the turn)
//   server -> client  binary: uint32 LE generation, uint32 LE sample rate, PCM16 LE mono
//                     text:   {"type":"clear"|"pause"|"resume","generation":N}
//                             {"type":"event","event":{...trace event...}}
//                             {"type":"warning","code":...,"message":...} (refused or slowed
//                               input; the link stays up: shown for a while)
//                             {"type":"error","code":...,"message":...} (the link cannot be
//                               used, e.g. code "busy": too many calls; shown, then closed)
// State lives on window.amendVoice, because Gradio may re-render the widget's HTML at any
// time; controls are bound by event delegation on the document for the same reason.
// Test hooks (kept stable for the browser tests): open(), sendText(), events, measures,
// bargeInReport(); inject() feeds caller audio into the capture path; played() and
// timeline() say what the page played and when, on the AudioContext clock.
(function () {
  "use strict";
  if (window.amendVoice) return;
  const base = new URL(".", document.currentScript ? document.currentScript.src
                                                    : location.origin + "/static/");
  const ONSET_RMS = 0.02;      // speech onset threshold for the page's own measurement
  const QUIET_FRAMES = 15;     // 300 ms below the threshold re-arms onset detection
  const VOICED_RMS = Math.pow(10, -45 / 20);  // an injected clip's first voiced 5 ms block
  const MAX_RECORDS = 5000;

  const V = {
    tab: null, ws: null, ctx: null, capture: null, player: null, stream: null,
    micOn: false, pttMode: false, talking: false, clearedUpTo: 0,
    resamplers: {}, events: [], quiet: QUIET_FRAMES, framesCaptured: 0,
    measures: {onsets: [], clears: [], pauses: [], started: [], drained: [], played: [],
               held: []},
    injected: [],
    warnings: [], error: null,
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
    V.error = null;
    V.clearedUpTo = 0;
    V.resamplers = {};
    if (V.player) V.player.port.postMessage({type: "reset"});
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/voice?tab=${encodeURIComponent(tab)}`);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => setStatus(V.micOn ? "listening" : "connected (microphone off)");
    ws.onclose = () => {
      if (V.ws === ws) setStatus(V.error ? V.error.message : "voice link closed");
    };
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
      if (msg.type === "pause") {
        V.measures.pauses.push({gen, received: performance.now(),
                                ctxTime: V.ctx ? V.ctx.currentTime : null});
      }
      if (V.player) V.player.port.postMessage({type: msg.type, gen});
    } else if (msg.type === "warning") {
      // Refused or slowed input (a message over its bound, audio faster than real time):
      // the link stays up. Shown in the status line until the next status, or 8 s.
      V.warnings.push(msg);
      if (V.warnings.length > 50) V.warnings.shift();
      const shown = msg.message || msg.code || "warning";
      setStatus(shown);
      setTimeout(() => {
        if (V.status === shown && V.open()) setStatus(V.micOn ? "listening" : "connected");
      }, 8000);
    } else if (msg.type === "error") {
      // The link cannot be used (e.g. "busy: ... try again shortly"); the server closes it.
      V.error = msg;
      setStatus(msg.message || "voice link unavailable");
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
    if (m.type === "played") {
      V.measures.played.push({gen: m.gen, start: m.start, end: m.end, sound: m.sound});
      if (V.measures.played.length > MAX_RECORDS) V.measures.played.shift();
    } else if (m.type === "paused") {
      V.measures.held.push({gen: m.gen, at: m.at});
    } else if (m.type === "cleared") {
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
    if (V.open()) V.ws.send(JSON.stringify({type: "mic", on: false}));  // the audio stops here
    setStatus(V.open() ? "connected (microphone off)" : V.status);
    refreshControls();
  };

  function onFrame(f) {
    V.framesCaptured++;
    // The page's own onset detector, only for measuring barge-in; the server decides turns.
    if (f.rms >= ONSET_RMS) {
      if (V.quiet >= QUIET_FRAMES) {
        V.measures.onsets.push({at: f.at, perf: performance.now(), ctxTime: V.ctx.currentTime});
      }
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

  // ----------------------------------------------------------------------- test hooks
  // What the page played, per uninterrupted stretch of one generation, on the AudioContext
  // clock (seconds): {generation, start, end, lastSound} (lastSound: the end of its last
  // non-silent sample; null if it was all silence). A stretch is listed once it ended (pause,
  // clear, underflow).
  V.played = function () {
    const sr = V.ctx ? V.ctx.sampleRate : 1;
    return V.measures.played.map((r) => ({generation: r.gen, start: r.start / sr,
                                          end: r.end / sr,
                                          lastSound: r.sound === null ? null : r.sound / sr}));
  };

  // Feed caller audio into the capture path, as if the microphone heard it (the microphone
  // must be on; what it hears is mixed in). ``pcm``: base64 PCM16 LE mono. Options: ``rate``
  // (default 16000), ``label``, and when, on the AudioContext clock (seconds): ``onsetAt``
  // (the first voiced sample is fed then) or ``at`` (the clip starts then); default: now.
  // Returns (and appends to V.injected) {id, label, start, onset, end} on the same clock;
  // ``onset`` is the first 5 ms block louder than -45 dBFS.
  V.inject = function (pcm, options) {
    const o = options || {};
    if (!V.ctx || !V.capture) throw new Error("amendVoice.inject: start the microphone first");
    const rate = o.rate || 16000;
    const bytes = Uint8Array.from(atob(pcm), (c) => c.charCodeAt(0));
    const ints = new Int16Array(bytes.buffer, 0, bytes.length >> 1);
    const buffer = V.ctx.createBuffer(1, Math.max(1, ints.length), rate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < ints.length; i++) data[i] = ints[i] / 32768;
    const block = Math.max(1, Math.round(rate * 0.005));
    let voiced = -1;
    for (let b = 0; b + block <= data.length && voiced < 0; b += block) {
      let sum = 0;
      for (let k = b; k < b + block; k++) sum += data[k] * data[k];
      if (Math.sqrt(sum / block) > VOICED_RMS) voiced = b;
    }
    const lead = (voiced < 0 ? 0 : voiced) / rate;
    const earliest = V.ctx.currentTime + 0.05;  // a start in the past would play at once
    let start = o.at !== undefined ? o.at : o.onsetAt !== undefined ? o.onsetAt - lead : 0;
    start = Math.max(start, earliest);
    const source = V.ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(V.capture);
    const record = {id: V.injected.length + 1, label: o.label || "", rate,
                    start, onset: voiced < 0 ? null : start + lead,
                    end: start + data.length / rate, ended: false};
    source.onended = () => { record.ended = true; source.disconnect(); };
    source.start(start);
    V.injected.push(record);
    return record;
  };

  // One snapshot for measurements, on the AudioContext clock (seconds): what was played and
  // injected; the page's own onsets (``at``: the end of the first loud 20 ms frame captured,
  // ``sent``: when it went to the socket); when each "pause" message arrived (``received``;
  // main-thread times are good to ~10 ms), was applied by the player (``held``) and each
  // "clear" applied (``cleared``); when each generation started playing (``started``).
  V.timeline = function () {
    const ctx = V.ctx, sr = ctx ? ctx.sampleRate : 1;
    return {sampleRate: ctx ? ctx.sampleRate : 0, now: ctx ? ctx.currentTime : 0,
            baseLatency: ctx ? ctx.baseLatency || 0 : 0,
            outputLatency: ctx ? ctx.outputLatency || 0 : 0,
            played: V.played(), injected: V.injected.map((r) => ({...r})),
            onsets: V.measures.onsets.map((o) => ({at: o.at / sr, sent: o.ctxTime})),
            received: V.measures.pauses.map((x) => ({generation: x.gen, at: x.ctxTime})),
            held: V.measures.held.map((h) => ({generation: h.gen, at: h.at / sr})),
            cleared: V.measures.clears.filter((c) => c.at !== undefined)
              .map((c) => ({generation: c.gen, at: c.at / sr})),
            started: V.measures.started.map((x) => ({generation: x.gen, at: x.at / sr}))};
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
