"""The mode seam: how a scripted caller speaks to the agent and what the caller hears.

A :class:`CallMode` is built per call by a :data:`ModeFactory` (``mode_factory(trace)``),
inside the running loop. The runner gives ``mode.sink`` to the world factory, then calls
``attach`` with the conversation (and the script's known-answer switches), and drives turns
through ``say`` and ``barge_in``.

:class:`TextMode` delivers turns as final transcripts and plays speech with the
:class:`~audio.calls.player.TextPlayer`. Audio mode (issue 8) implements the same protocol
over the real pipeline: synthesize or load each turn, play it in real time, record the output
frames, and report heard text cut where playback was cut.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.core.session import Conversation
from agent.core.speech import SpeechSink, Utterance
from agent.core.trace import Trace
from agent.service.controls import AgentFaults
from audio.calls.model import TurnUnplayable
from audio.calls.player import CHARS_PER_SECOND, Heard, TextPlayer
from audio.calls.script import Turn

if TYPE_CHECKING:
    from audio.wav_input import CallerAudio


class CallMode(Protocol):
    name: str  # "text" or "audio": the value of --mode

    @property
    def sink(self) -> SpeechSink:
        """The SpeechSink the controller speaks into."""

    def attach(self, conversation: Conversation, controls: AgentFaults | None = None) -> None:
        """Bind the conversation of this call (called once, before the greeting). ``controls``
        are the known-answer switches the script asked for (test runs only); a mode applies
        those of its own side (audio mode: ``no_audio_flush``) and ignores the rest."""

    async def say(self, turn: Turn) -> None:
        """Deliver one caller turn; returns once the agent has taken it (its final turn).
        Raises :class:`TurnUnplayable` if the turn's own input cannot be played (the call is
        then INVALID); anything else it raises is the agent's failure."""

    def barge_in(self) -> None:
        """The caller starts speaking over the agent (the runner calls ``say`` next)."""

    @property
    def speaking(self) -> bool:
        """True while agent speech is playing or queued for playback."""

    async def wait_silent(self) -> None:
        """Return when no agent speech is playing or queued."""

    def heard_mark(self) -> int:
        """A position in the heard stream; :meth:`heard_since` reads from there."""

    def heard_since(self, mark: int) -> str:
        """Everything heard after ``mark``, joined as heard."""

    def add_heard_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever more speech was heard."""

    def heard(self) -> tuple[Heard, ...]:
        """Every generation with what of it reached the caller."""

    def transcripts(self) -> tuple[str, ...]:
        """What the agent received per turn (STT output in audio mode)."""

    def latency_ms(self) -> dict[str, list[float]]:
        """Latency samples by kind: ``voice_to_voice``, ``barge_in``."""

    def write_artifacts(self, directory: Path) -> None:
        """Mode-specific files (audio mode: ``output.wav``)."""

    def meta(self) -> dict[str, Any]:
        """The STT and TTS configuration for the report."""

    async def close(self) -> None:
        """Stop playback and release the mode's resources."""


ModeFactory = Callable[[Trace], CallMode]


def turn_audio(turn: Turn) -> CallerAudio:
    """The turn's `audio:` file decoded in full, 16 kHz mono (``load_wav``, strict). The
    script's validation checked it already; if it broke since, raises TurnUnplayable."""
    from audio.wav_input import AudioInputError, load_wav

    assert turn.audio is not None, "a turn without `audio:` is synthesised"
    try:
        return load_wav(turn.audio, strict=True)
    except AudioInputError as exc:
        raise TurnUnplayable(turn, exc.problem, exc.fix) from exc


class TextMode:
    """Turns as final transcripts; speech plays at 15 characters per second."""

    name = "text"

    def __init__(self, trace: Trace, chars_per_second: float = CHARS_PER_SECOND):
        self.trace = trace
        self.player = TextPlayer(trace, chars_per_second)
        self._conversation: Conversation | None = None
        self._transcripts: list[str] = []
        self._barge_ins: list[tuple[float, float]] = []

    @property
    def sink(self) -> SpeechSink:
        return self.player

    def attach(self, conversation: Conversation, controls: AgentFaults | None = None) -> None:
        self._conversation = conversation  # text mode has no output side to switch off

    async def say(self, turn: Turn) -> None:
        """Hand the turn to the agent as a final transcript (side effect: a user turn)."""
        assert self._conversation is not None, "attach() first"
        self._transcripts.append(turn.say)
        utterance = Utterance(turn.say, turn.confidence, turn.alternatives, id=f"turn-{turn.index}")
        await self._conversation.user_turn(utterance)

    def barge_in(self) -> None:
        """Cut playback at once and tell the agent a real turn started over its speech."""
        assert self._conversation is not None, "attach() first"
        onset = self.trace.clock()
        was_speaking = self.player.speaking
        self.player.barge_in()
        if was_speaking:
            self._barge_ins.append((onset, self.trace.clock()))
            self._conversation.barge_in()

    @property
    def speaking(self) -> bool:
        return self.player.speaking

    async def wait_silent(self) -> None:
        await self.player.wait_silent()

    def heard_mark(self) -> int:
        return self.player.heard_mark()

    def heard_since(self, mark: int) -> str:
        return self.player.heard_since(mark)

    def add_heard_listener(self, listener: Callable[[], None]) -> None:
        self.player.listeners.append(listener)

    def heard(self) -> tuple[Heard, ...]:
        return tuple(self.player.records)

    def transcripts(self) -> tuple[str, ...]:
        return tuple(self._transcripts)

    def latency_ms(self) -> dict[str, list[float]]:
        """Turn handed over -> first agent speech after it; barge-in onset -> playback cut."""
        v2v: list[float] = []
        pending: float | None = None
        for event in self.trace.events:
            if event.name == "user_turn_final":
                pending = event.t
            elif event.name == "agent_speech_started" and pending is not None:
                v2v.append(round((event.t - pending) * 1000, 1))
                pending = None
        barge = [round((cut - onset) * 1000, 1) for onset, cut in self._barge_ins]
        return {"voice_to_voice": v2v, "barge_in": barge}

    def write_artifacts(self, directory: Path) -> None:
        """Text mode has no audio; the common artifacts are written by the runner."""

    def meta(self) -> dict[str, Any]:
        return {"stt": "none (text mode: turns are final transcripts)",
                "tts": f"none (text mode: {self.player.cps:g} characters per second)"}

    async def close(self) -> None:
        await self.player.close()
