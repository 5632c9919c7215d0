// Microphone capture: low-pass, resample to 16 kHz mono, post 20 ms Int16 frames.
// Runs on the audio thread. The headless AudioContext may run at 44.1 kHz: never assume 48.
class AmendCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / 16000;  // input samples per output sample
    this.phase = 0;                  // fractional read position into the filtered stream
    this.prev = 0;                   // last filtered sample of the previous quantum
    this.frame = new Int16Array(320);
    this.fill = 0;
    // Biquad low-pass at 7 kHz (RBJ cookbook), so decimation does not alias.
    const w = 2 * Math.PI * Math.min(7000, sampleRate * 0.45) / sampleRate;
    const a = Math.sin(w) / (2 * Math.SQRT1_2), c = Math.cos(w), a0 = 1 + a;
    this.b = [(1 - c) / 2 / a0, (1 - c) / a0, (1 - c) / 2 / a0];
    this.a = [-2 * c / a0, (1 - a) / a0];
    this.z = [0, 0, 0, 0];
  }
  lowpass(x) {
    const [b0, b1, b2] = this.b, [a1, a2] = this.a, z = this.z;
    const y = b0 * x + b1 * z[0] + b2 * z[1] - a1 * z[2] - a2 * z[3];
    z[1] = z[0]; z[0] = x; z[3] = z[2]; z[2] = y;
    return y;
  }
  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0) return true;
    const ch = input[0];
    const n = ch.length;
    const filtered = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let x = ch[i];
      for (let c = 1; c < input.length; c++) x += input[c][i];  // downmix
      filtered[i] = this.lowpass(x / input.length);
    }
    // Linear interpolation between filtered samples; index -1 is the previous quantum's last.
    while (this.phase < n - 1 + 1e-9) {
      const i = Math.floor(this.phase), f = this.phase - i;
      const left = i < 0 ? this.prev : filtered[i];
      const right = filtered[Math.min(i + 1, n - 1)];
      const s = Math.max(-1, Math.min(1, left + (right - left) * f));
      this.frame[this.fill++] = s < 0 ? s * 0x8000 : s * 0x7fff;
      if (this.fill === 320) {
        let sum = 0;
        for (let k = 0; k < 320; k++) sum += this.frame[k] * this.frame[k];
        const rms = Math.sqrt(sum / 320) / 32768;
        const out = this.frame;
        this.port.postMessage({frame: out.buffer, rms, at: currentFrame + i}, [out.buffer]);
        this.frame = new Int16Array(320);
        this.fill = 0;
      }
      this.phase += this.step;
    }
    this.phase -= n;
    this.prev = filtered[n - 1];
    return true;
  }
}
registerProcessor("amend-capture", AmendCapture);
