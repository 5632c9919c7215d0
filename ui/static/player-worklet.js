// Agent speech playback: a queue of chunks tagged by generation.
// "clear" drops every chunk of generations <= N between two render quanta, so a barge-in
// silences the agent at once; "pause"/"resume" hold a generation without dropping it.
class AmendPlayer extends AudioWorkletProcessor {
  constructor() {
    super();
    this.queue = [];          // [{gen, data: Float32Array, pos}]
    this.clearedUpTo = 0;     // generations <= this are never played again
    this.paused = new Set();
    this.prebuffer = Math.round(sampleRate * 0.06);  // ~60 ms before a generation starts
    this.playing = 0;         // generation currently audible (0: none)
    this.waitGen = 0;         // generation being prebuffered, and since when
    this.waitStart = 0;
    this.lastFrame = {};      // gen -> context frame of its last non-silent sample played
    this.run = null;          // {gen, start, end, sound}: the stretch being played now
    this.port.onmessage = (e) => this.onMessage(e.data);
  }
  // A "run" is one uninterrupted stretch of a generation's samples written to the output, in
  // context frames: [start, end), and ``sound`` = one past its last non-silent sample (null:
  // the stretch was all silence). It is posted as {type: "played"} when it ends (pause, clear,
  // underflow, next generation), before the "cleared"/"paused" message that ended it.
  note(gen, start, end, sound) {
    const r = this.run;
    if (r && r.gen === gen && r.end === start) {
      r.end = end;
      if (sound > 0) r.sound = sound;
      return;
    }
    this.flush();
    this.run = {gen, start, end, sound: sound > 0 ? sound : null};
  }
  flush() {
    if (this.run) this.port.postMessage({type: "played", ...this.run});
    this.run = null;
  }
  queued(gen) {
    let n = 0;
    for (const c of this.queue) if (c.gen === gen) n += c.data.length - c.pos;
    return n;
  }
  onMessage(m) {
    if (m.type === "chunk") {
      if (m.gen > this.clearedUpTo) this.queue.push({gen: m.gen, data: m.data, pos: 0});
    } else if (m.type === "clear") {
      this.clearedUpTo = Math.max(this.clearedUpTo, m.gen);
      this.queue = this.queue.filter((c) => c.gen > this.clearedUpTo);
      const stale = {};
      for (const g of Object.keys(this.lastFrame)) {
        if (+g <= m.gen) stale[g] = this.lastFrame[g];
      }
      if (this.playing && this.playing <= m.gen) this.playing = 0;
      this.flush();
      this.port.postMessage({type: "cleared", gen: m.gen, at: currentFrame, lastFrame: stale});
    } else if (m.type === "pause") {
      this.paused.add(m.gen);
      if (this.run && this.run.gen === m.gen) this.flush();
      this.port.postMessage({type: "paused", gen: m.gen, at: currentFrame});
    } else if (m.type === "resume") {
      this.paused.delete(m.gen);
    } else if (m.type === "reset") {
      // A new session: its generations start again from 1.
      this.queue = []; this.paused.clear(); this.playing = 0; this.clearedUpTo = 0;
      this.lastFrame = {}; this.waitGen = 0; this.run = null;
    }
  }
  process(_inputs, outputs) {
    const out = outputs[0][0];
    out.fill(0);
    let i = 0;
    while (i < out.length && this.queue.length) {
      const head = this.queue[0];
      if (head.gen <= this.clearedUpTo) { this.queue.shift(); continue; }
      if (this.paused.has(head.gen)) break;  // hold: silence, keep the queue
      if (this.playing !== head.gen) {
        // Prebuffer ~60 ms, but never wait longer than that for a short utterance.
        if (this.waitGen !== head.gen) { this.waitGen = head.gen; this.waitStart = currentFrame; }
        const waited = currentFrame - this.waitStart;
        if (this.queued(head.gen) < this.prebuffer && waited < this.prebuffer) break;
        this.playing = head.gen;
        this.port.postMessage({type: "started", gen: head.gen, at: currentFrame + i});
      }
      const n = Math.min(out.length - i, head.data.length - head.pos);
      let last = -1;
      for (let k = 0; k < n; k++) {
        const s = head.data[head.pos + k];
        out[i + k] = s;
        if (s !== 0) last = k;
      }
      if (last >= 0) this.lastFrame[head.gen] = currentFrame + i + last;
      this.note(head.gen, currentFrame + i, currentFrame + i + n,
                last >= 0 ? currentFrame + i + last + 1 : 0);
      head.pos += n; i += n;
      if (head.pos >= head.data.length) {
        this.queue.shift();
        if (!this.queue.some((c) => c.gen === head.gen)) {
          this.port.postMessage({type: "drained", gen: head.gen, at: currentFrame + i});
        }
      }
    }
    if (this.run && this.run.end !== currentFrame + out.length) this.flush();  // it stopped
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    return true;
  }
}
registerProcessor("amend-player", AmendPlayer);
