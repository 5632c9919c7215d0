"""``amend bench --only soak``: the demo left running while browsers come and go (issue 19).

The real demo runs in a subprocess with its speech models warm: ``amend demo --workers 1``,
the form whose system of record another process can read (every tab is a tenant of its own in
one shared sandbox, on SQLite files in a temporary folder; ``docs/postgresql.md``). N simulated
browsers then do what a page does, over HTTP and the voice websocket, for M minutes:

1. open a tab: a Gradio session (the page's ``load`` event, over Gradio's queue protocol) and
   its heartbeat stream, which Gradio watches to know the tab is open;
2. connect the voice websocket and stream a microphone in real time, 20 ms frames, silence
   between turns, as the browser's worklet does;
3. speak a booking with a correction, Piper's voice from WAVs made once: the request, then
   the correction *while the agent is answering* (a barge-in), then the go-ahead;
4. wait for the agent's reply to each turn (its first audio frame of a new generation: the
   voice-to-voice latency, from the caller's last frame of speech) and for the booking's
   commit; then read the system of record: the booking the agent committed must be Thursday
   morning, and the only confirmed booking of that tab;
5. disconnect, and either reset the tab (a new session on the same page, as "Reset
   session" does) or close it (the heartbeat ends, Gradio unloads the session) and open a
   new one.

The demo's resident memory (the process and its children) is sampled every two seconds.
Reported: memory at the end of the warm-up and at the end, its slope after the warm-up in
MiB per hour, p50/p95 voice-to-voice latency in the first and the last minute, errors,
dropped sessions and wrong outcomes. ``--minutes`` and ``--sessions`` set M and N. Beside the
slope, which one number cannot tell apart: the slope over the second half of the run, and the
mean memory of each fifth of it, in total and for each part of the demo (:data:`PARTS`: its
front process, its workers, Whisper's host): a demo that settles late levels off, one that
leaks keeps rising, and these say which part does. A soak of 10 minutes or more also pauses
every browser between two calls at the end of the warm-up (:class:`Lull`) and reads the
demo's memory with no call in flight, as it does once the browsers are gone at the end: the
change between the two is what the demo keeps, without the tens of MiB the calls in flight
swing by from one sample to the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from agent.bench import BenchRow, option, percentile, register
from ui.allocator import TRIM_EVERY_S

COMMAND = "amend bench --only soak [--minutes M] [--sessions N]"
CLOCK = "2026-12-01T09:00:00+01:00"  # a Tuesday: "Thursday" is 3 December
PERSONA = "acme-technician"
TURNS = ("I'd like a service visit for pump P-100 on Wednesday afternoon.",
         "Sorry, Thursday morning, not Wednesday.",
         "Yes, please go ahead.")
EXPECTED = ("2026-12-03", "morning", "P-100")
RATE = 16000
FRAME = 320  # 20 ms
BARGE_AFTER_S = 0.6  # the correction starts this far into the agent's answer
REPLY_TIMEOUT_S = 45.0
SAMPLE_EVERY_S = 2.0
IDLE_MARGIN_S = 10.0  # past one trim period before the idle demo's memory is read
LULL_MIN_MINUTES = 10.0  # a soak at least this long pauses its browsers after the warm-up


def slope_per_hour(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MiB) samples, in MiB per hour (0 for < 2 samples)."""
    if len(samples) < 2:
        return 0.0
    t = np.array([s[0] for s in samples])
    y = np.array([s[1] for s in samples])
    if float(np.ptp(t)) == 0.0:
        return 0.0
    return float(np.polyfit(t, y, 1)[0]) * 3600.0


def means_by_part(samples: list[tuple[float, float]], parts: int = 5) -> list[float]:
    """Mean MiB of each of ``parts`` equal spans of time the samples cover (a part without
    samples is left out): whether memory settles or keeps rising, which one slope hides."""
    if not samples:
        return []
    start, end = samples[0][0], samples[-1][0]
    width = (end - start) / parts or 1.0
    out = []
    for k in range(parts):
        inside = [mib for t, mib in samples
                  if start + k * width <= t < start + (k + 1) * width
                  or (k == parts - 1 and t == end)]
        if inside:
            out.append(round(float(np.mean(inside)), 1))
    return out


# The demo's processes: ``amend demo --workers N``'s front process (the proxy), its worker
# processes (pages, voice links, calls, the multiprocessing helper), and Whisper's host.
PARTS = {"front": "the demo's front process (the proxy)",
         "workers": "its worker processes (the calls)",
         "whisper": "Whisper's host process (audio/whisper_host.py)"}


@dataclass
class Tally:
    """What the simulated browsers saw, shared by all of them (one event loop)."""

    start: float = field(default_factory=time.monotonic)
    v2v: list[tuple[float, float]] = field(default_factory=list)  # (seconds in, ms)
    calls: int = 0
    errors: list[str] = field(default_factory=list)
    dropped: int = 0
    wrong: list[str] = field(default_factory=list)
    # (seconds in, MiB) with no call in flight: after the warm-up (Lull) and at the end
    idle: list[tuple[float, float]] = field(default_factory=list)
    # (seconds in, MiB) of each part of the demo (PARTS), apart
    parts: dict[str, list[tuple[float, float]]] = field(default_factory=dict)

    def sample(self, demo: Demo) -> float:
        """Read the demo's memory now; the total (MiB) of its parts."""
        at = time.monotonic() - self.start
        parts = demo.rss_parts()
        for part, mib in parts.items():
            self.parts.setdefault(part, []).append((at, mib))
        return sum(parts.values())


# What the demo's output says, by the Demo attribute that keeps it.
_REPORTED = {"sandbox": r"shared sandbox: (\S+)", "allocator": r"memory allocator: (.+)",
             "trims": r"memory trims: (.+)", "collections": r"collections after calls: (.+)"}


class Demo:
    """``amend demo --workers 1 --db FILE`` in a subprocess; its output read line by line."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        code = ("import sys; from ui.cli import main; sys.argv = ['amend', 'demo', '--workers', "
                f"'1', '--port', '{self.port}', '--clock', '{CLOCK}']; main()")
        env = {**os.environ, "COLUMNS": "250", "HF_HUB_OFFLINE": "1",
               "GRADIO_ANALYTICS_ENABLED": "False"}
        self.proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, text=True, env=env)
        self.lines: list[str] = []
        self._ready = threading.Event()
        self.sandbox = ""
        self.allocator = "?"
        self.trims = "n/a"  # the demo process's malloc_trim runs, from its exit message
        self.collections = "n/a"  # its garbage collections after calls, from the same
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(600) or self.proc.poll() is not None:
            self.stop()
            raise RuntimeError("the demo did not start:\n" + "".join(self.lines[-20:]))

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            for attribute, pattern in _REPORTED.items():
                found = re.search(pattern, line)
                if found:
                    setattr(self, attribute, found.group(1).strip())
            if "Amend demo:" in line:
                self._ready.set()
        self._ready.set()

    def rss_mib(self) -> float:
        """Resident memory of the demo: the parent and every process it started."""
        return sum(self.rss_parts().values())

    def rss_parts(self) -> dict[str, float]:
        """Resident MiB of each part of the demo (:data:`PARTS`): which one holds what the
        total gains."""
        import psutil

        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return dict.fromkeys(PARTS, 0.0)
        parts = dict.fromkeys(PARTS, 0.0)
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                if proc is root:
                    part = "front"
                elif "audio.whisper_host" in " ".join(proc.cmdline()):
                    part = "whisper"
                else:
                    part = "workers"
                parts[part] += proc.memory_info().rss / 2**20
        return parts

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _speech() -> list[np.ndarray]:
    """Each turn as PCM16 at 16 kHz (Piper, seeded per text, so every run hears the same)."""
    from audio import synth

    return [(np.clip(synth.piper(text).samples, -1, 1) * 32767).astype("<i2")
            for text in TURNS]


class Tab:
    """One simulated browser tab: its Gradio session, heartbeat, voice socket and microphone."""

    def __init__(self, http, base: str, open_fn: int, tally: Tally):
        self.http, self.base, self.open_fn, self.tally = http, base, open_fn, tally
        self.id = secrets.token_hex(8)
        self.heartbeat: asyncio.Task | None = None

    async def open(self) -> None:
        """The page's load event: a new session for this tab (also what Reset does)."""
        if self.heartbeat is None:
            self.heartbeat = asyncio.ensure_future(self._beat())
        join = await self.http.post(f"{self.base}gradio_api/queue/join", json={
            "data": [PERSONA], "fn_index": self.open_fn, "session_hash": self.id,
            "event_data": None, "trigger_id": None})
        join.raise_for_status()
        async with self.http.stream("GET", f"{self.base}gradio_api/queue/data",
                                    params={"session_hash": self.id}) as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("msg") == "process_completed":
                    if not message.get("success", False):
                        raise RuntimeError(f"open_session failed: {message.get('output')}")
                    return
        raise RuntimeError("the queue stream ended before the session opened")

    async def _beat(self) -> None:
        with contextlib.suppress(Exception):
            async with self.http.stream("GET",
                                        f"{self.base}gradio_api/heartbeat/{self.id}") as s:
                async for _ in s.aiter_bytes():
                    pass

    async def close(self) -> None:
        """Close the tab: the heartbeat ends, and Gradio unloads the session."""
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.heartbeat
            self.heartbeat = None


class Call:
    """One call on an open tab's voice socket: the microphone runs in real time throughout."""

    def __init__(self, ws, tally: Tally):
        self.ws, self.tally = ws, tally
        self.speech: list[np.ndarray] = []  # queued turn audio
        self.spoken = asyncio.Event()  # the queued speech has been sent
        self.first_audio: dict[int, float] = {}  # generation -> when its first audio came
        self.audio_seen = asyncio.Event()
        self.stopped: set[int] = set()  # generations whose speech ended
        self.stop_seen = asyncio.Event()
        self.committed: str | None = None
        self.commit_seen = asyncio.Event()

    async def mic(self) -> None:
        silence = np.zeros(FRAME, "<i2")
        next_at = time.monotonic()
        while True:
            if self.speech:
                chunk, self.speech[0] = self.speech[0][:FRAME], self.speech[0][FRAME:]
                if self.speech[0].size == 0:
                    self.speech.pop(0)
                    if not self.speech:
                        self.spoken.set()
                if chunk.size < FRAME:
                    chunk = np.concatenate([chunk, silence[:FRAME - chunk.size]])
            else:
                chunk = silence
            await self.ws.send(chunk.tobytes())
            next_at += FRAME / RATE
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))  # real-time pacing

    async def listen(self) -> None:
        async for message in self.ws:
            if isinstance(message, bytes):
                generation = struct.unpack("<I", message[:4])[0]
                if generation not in self.first_audio:
                    self.first_audio[generation] = time.monotonic()
                    self.audio_seen.set()
                continue
            data = json.loads(message)
            if data.get("type") == "error":
                self.tally.errors.append(str(data.get("message")))
            elif data.get("type") == "event":
                event = data["event"]
                if event.get("event") == "agent_speech_stopped":
                    self.stopped.add(int(event.get("generation") or 0))
                    self.stop_seen.set()
                elif event.get("event") == "action_committed":
                    self.committed = event.get("ref")
                    self.commit_seen.set()

    async def say(self, pcm: np.ndarray) -> float:
        """Queue ``pcm`` on the microphone; returns when its last frame was sent."""
        self.spoken.clear()
        self.speech.append(pcm)
        await self.spoken.wait()
        return time.monotonic()

    async def reply_after(self, spoken_at: float, known: set[int]) -> int:
        """The first generation whose audio began after ``known``; records voice-to-voice."""
        while True:
            fresh = [g for g in self.first_audio if g not in known]
            if fresh:
                generation = min(fresh)
                self.tally.v2v.append((spoken_at - self.tally.start,
                                       (self.first_audio[generation] - spoken_at) * 1000))
                return generation
            self.audio_seen.clear()
            await asyncio.wait_for(self.audio_seen.wait(), REPLY_TIMEOUT_S)

    async def speech_ended(self, generation: int) -> None:
        while generation not in self.stopped:
            self.stop_seen.clear()
            await asyncio.wait_for(self.stop_seen.wait(), REPLY_TIMEOUT_S)


async def _one_call(http, port: int, tab: Tab, speech: list[np.ndarray], admin) -> None:
    from websockets.asyncio.client import connect

    tally = tab.tally
    async with connect(f"ws://127.0.0.1:{port}/ws/voice?tab={tab.id}", max_size=None,
                       compression=None, open_timeout=30) as ws:
        call = Call(ws, tally)
        tasks = [asyncio.ensure_future(call.mic()), asyncio.ensure_future(call.listen())]
        try:
            known: set[int] = set(call.first_audio)
            spoken = await call.say(speech[0])
            first = await call.reply_after(spoken, known)
            known.add(first)
            # The correction starts while the agent answers: a barge-in.
            await asyncio.sleep(max(0.0, call.first_audio[first] + BARGE_AFTER_S
                                    - time.monotonic()))
            spoken = await call.say(speech[1])
            known |= set(call.first_audio)
            second = await call.reply_after(spoken, known)
            known.add(second)
            await call.speech_ended(second)
            spoken = await call.say(speech[2])
            known |= set(call.first_audio)
            await call.reply_after(spoken, known)
            await asyncio.wait_for(call.commit_seen.wait(), REPLY_TIMEOUT_S)
        finally:
            for task in tasks:
                task.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
        if any(isinstance(r, Exception) and "ConnectionClosed" in type(r).__name__
               for r in results):
            tally.dropped += 1
    tally.calls += 1
    # The oracle reads this call's booking and its tab's, never every tab's: a read that
    # grows with the run would load the demo's sandbox more the longer the soak runs.
    mine = await asyncio.to_thread(admin.bookings, ref=call.committed) \
        if call.committed else []
    if len(mine) != 1:
        tally.wrong.append(f"{call.committed}: not in the record")
        return
    tenant_rows = [r for r in await asyncio.to_thread(admin.bookings, mine[0]["tenant"])
                   if r["status"] == "confirmed"]
    got = (mine[0]["date"], mine[0]["window"], mine[0]["asset"])
    if got != EXPECTED or len(tenant_rows) != 1:
        tally.wrong.append(f"{call.committed}: {got}, {len(tenant_rows)} confirmed")


class Lull:
    """Every browser paused between two calls, so that the demo's memory can be read with no
    call in flight: what it keeps, without what the calls in flight use, which swings by tens
    of MiB from one moment to the next under four browsers."""

    def __init__(self) -> None:
        self._go = asyncio.Event()
        self._go.set()
        self._busy = 0  # browsers in a call
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def on(self) -> bool:
        """New calls are held back."""
        return not self._go.is_set()

    @contextlib.asynccontextmanager
    async def call(self):
        """One browser's call: it starts only while no lull is on."""
        await self._go.wait()
        self._busy += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    async def read(self, measure) -> float:
        """Stop new calls, wait for those in flight to end and for one trim period, return
        ``measure()``, and let the browsers go on."""
        self._go.clear()
        try:
            await self._idle.wait()
            await asyncio.sleep(TRIM_EVERY_S + IDLE_MARGIN_S)  # the trim's cadence, not a race
            return measure()
        finally:
            self._go.set()


async def _browser(http, demo: Demo, open_fn: int, speech, admin, tally: Tally,
                   until: float, index: int, lull: Lull) -> None:
    from websockets.exceptions import ConnectionClosed

    tab = Tab(http, f"http://127.0.0.1:{demo.port}/", open_fn, tally)
    rounds = 0
    while time.monotonic() < until:
        try:
            async with lull.call():
                await tab.open()
                await _one_call(http, demo.port, tab, speech, admin)
        except ConnectionClosed:
            tally.dropped += 1
        except TimeoutError:
            tally.errors.append(f"browser {index}: no reply within {REPLY_TIMEOUT_S:.0f} s")
        except Exception as exc:  # a bench reports what went wrong and goes on
            tally.errors.append(f"browser {index}: {type(exc).__name__}: {exc}"[:200])
        rounds += 1
        if rounds % 2 == 0:  # every other call: close the tab and open another
            await tab.close()
            tab = Tab(http, tab.base, open_fn, tally)
    await tab.close()


async def _soak(demo: Demo, sessions: int, minutes: float, speech,
                samples: list[tuple[float, float]], tally: Tally) -> None:
    import httpx

    from tools_sandbox.admin_client import SandboxAdmin

    admin = SandboxAdmin(demo.sandbox)
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0), trust_env=False) as http:
        config = (await http.get(f"http://127.0.0.1:{demo.port}/config")).json()
        open_fn = next(d["id"] for d in config["dependencies"]
                       if d.get("api_name") == "open_session")
        until = tally.start + minutes * 60

        lull = Lull()

        async def sample() -> None:
            while True:
                if not lull.on:  # a lull's memory is read apart (Tally.idle)
                    samples.append((time.monotonic() - tally.start, tally.sample(demo)))
                await asyncio.sleep(SAMPLE_EVERY_S)  # sampling cadence, not a race

        async def idle_after_warm_up() -> None:
            # the end of the warm-up is a point of the run's schedule, not a race
            await asyncio.sleep(max(0.0, tally.start + warm_up_secs(minutes) - time.monotonic()))
            mib = await lull.read(demo.rss_mib)
            tally.idle.append((time.monotonic() - tally.start, mib))

        sampler = asyncio.ensure_future(sample())
        lulls = [asyncio.ensure_future(idle_after_warm_up())] \
            if minutes >= LULL_MIN_MINUTES else []
        try:
            await asyncio.gather(*(_browser(http, demo, open_fn, speech, admin, tally, until, i,
                                            lull) for i in range(sessions)))
        finally:
            for task in (sampler, *lulls):
                task.cancel()
            samples.append((time.monotonic() - tally.start, tally.sample(demo)))
            admin.close()


@register("soak")
def soak_bench(quick: bool) -> list[BenchRow]:
    sessions = int(option("soak_sessions") or (2 if quick else 4))
    minutes = float(option("soak_minutes") or (1 if quick else 3))
    speech = _speech()
    samples: list[tuple[float, float]] = []
    tally = Tally()
    demo = Demo()
    idle = None
    try:
        tally.start = time.monotonic()
        asyncio.run(_soak(demo, sessions, minutes, speech, samples, tally))
        # Between calls the demo gives malloc's free memory back (ui/allocator.py): read the
        # resident memory once a trim period has passed with every browser gone.
        time.sleep(TRIM_EVERY_S + IDLE_MARGIN_S)  # a measurement's cadence, not a race
        idle = demo.rss_mib()
        tally.idle.append((time.monotonic() - tally.start, idle))
    finally:
        demo.stop()
    return _rows(sessions, minutes, samples, tally, demo.allocator, demo.trims, idle,
                 demo.collections)


def warm_up_secs(minutes: float) -> float:
    """The warm-up: the first minute (a third of the run if shorter)."""
    return min(60.0, minutes * 60 / 3)


def idle_rows(idle: list[tuple[float, float]]) -> list[BenchRow]:
    """What the demo keeps: its memory with no call in flight after the warm-up and at the
    end (:class:`Lull`), and the change per hour between the two."""
    if len(idle) < 2:
        return []
    (start, before), (end, after) = idle[0], idle[-1]
    per_hour = (after - before) / (end - start) * 3600 if end > start else 0.0
    return [
        BenchRow(f"resident memory with no call in flight ({TRIM_EVERY_S + IDLE_MARGIN_S:g} s "
                 "after the calls stopped), after the warm-up → at the end",
                 f"{before:.0f} → {after:.0f}", "MiB", "", COMMAND),
        BenchRow("... its change per hour (what the demo keeps, without the calls in flight)",
                 round(per_hour, 1), "MiB/h", "≤ 5 MiB/h", COMMAND)]


def _rows(sessions: int, minutes: float, samples: list[tuple[float, float]],
          tally: Tally, allocator: str = "?", trims: str = "n/a",
          idle: float | None = None, collections: str = "n/a") -> list[BenchRow]:
    warm = warm_up_secs(minutes)
    after = [s for s in samples if s[0] >= warm] or samples[-1:]
    half = [s for s in after if s[0] >= (after[0][0] + after[-1][0]) / 2]
    span = minutes * 60
    first = [ms for t, ms in tally.v2v if t < min(60.0, span / 2)]
    last = [ms for t, ms in tally.v2v if t >= max(span - 60.0, span / 2)]

    def pct(values: list[float], q: float) -> float | str:
        return percentile(values, q) if values else "n/a"

    p95_first, p95_last = pct(first, 95), pct(last, 95)
    ratio = (p95_last / p95_first if isinstance(p95_first, float)
             and isinstance(p95_last, float) else "n/a")
    label = f"{sessions} browsers, {minutes:g} min, {allocator}"
    return [
        BenchRow(f"calls completed ({label})", tally.calls, "calls", "", COMMAND),
        BenchRow("resident memory after the warm-up", after[0][1], "MiB", "", COMMAND),
        BenchRow("resident memory at the end", samples[-1][1] if samples else 0.0, "MiB",
                 "", COMMAND),
        BenchRow("memory slope after the warm-up", slope_per_hour(after), "MiB/h",
                 "≤ 5 MiB/h", COMMAND),
        BenchRow("memory slope over the second half of the run after the warm-up",
                 slope_per_hour(half), "MiB/h", "report: a demo that settles late", COMMAND),
        BenchRow("resident memory after the warm-up, mean of each fifth of the run",
                 ", ".join(f"{m:g}" for m in means_by_part(after)), "MiB",
                 "report: level or rising", COMMAND),
        *(BenchRow(f"{PARTS[part]} after the warm-up, mean of each fifth of the run",
                   ", ".join(f"{m:g}" for m in means_by_part(
                       [p for p in tally.parts[part] if p[0] >= warm])), "MiB", "report",
                   COMMAND)
          for part in PARTS if tally.parts.get(part)),
        *idle_rows(tally.idle),
        BenchRow("voice-to-voice p50, first minute", pct(first, 50), "ms", "", COMMAND),
        BenchRow("voice-to-voice p95, first minute", p95_first, "ms", "", COMMAND),
        BenchRow("voice-to-voice p50, last minute", pct(last, 50), "ms", "", COMMAND),
        BenchRow("voice-to-voice p95, last minute", p95_last, "ms", "", COMMAND),
        BenchRow("p95 last minute / first minute", ratio, "×", "≤ 1.10", COMMAND),
        BenchRow("errors", len(tally.errors), "", "0", COMMAND),
        BenchRow("dropped sessions", tally.dropped, "", "0", COMMAND),
        BenchRow("wrong system-of-record outcomes", len(tally.wrong), "", "0", COMMAND),
        BenchRow(f"resident memory {TRIM_EVERY_S + IDLE_MARGIN_S:g} s after the last call "
                 "(free memory given back between calls)",
                 "n/a" if idle is None else idle, "MiB", "", COMMAND),
        BenchRow("malloc_trim runs in the demo process (ui/allocator.py)", trims, "", "",
                 COMMAND),
        BenchRow("garbage collections after calls (audio/browser.py)", collections, "", "",
                 COMMAND),
    ] + [BenchRow(f"error: {e}", "", "", "", COMMAND) for e in tally.errors[:5]] \
      + [BenchRow(f"wrong: {w}", "", "", "", COMMAND) for w in tally.wrong[:5]]
