"""Turn intake: the caller's final transcripts become the conversation's ``user_turn``.

* Final transcripts of one turn are assembled (a cumulative transcript replaces the segments
  before it), with what the recogniser knows beyond the text: each word's probability and
  the no-speech probability (:class:`~agent.core.speech.Utterance`,
  ``agent/understanding/trust.py``). Interim transcripts never get here, so never reach the
  controller.
* When the turn ends while its last segment is still being recognised, the turn waits for the
  recogniser (:class:`~audio.caller_clock.Recogniser`), for that segment only: a segment the
  caller began after the pause is the next turn's.
* The recogniser hears a segment only once the adapter has taken in its VAD stop and no turn
  end before it is still waiting for words (:meth:`TurnIntake.stop_taken`,
  :meth:`audio.services.SharedWhisperSTT.reached`): a turn that ended there has been
  delivered and its audio forgotten, so the segment is heard with its own turn's audio only,
  however busy the machine.
* A turn that is only a lead-in ("Sorry,", "Actually,") is held for ``lead_in_hold_secs`` of
  audio: speech resuming merges into the same turn.
* A turn over agent speech that was only a backchannel or noise goes nowhere (it is traced as
  ``backchannel_ignored``); the barge-in control (:mod:`audio.barge_in_control`) decided
  what happened to the agent's speech meanwhile.
* A turn the recogniser heard no words in is an *unheard* turn when the caller made sound
  for at least ``unheard_turn_secs`` while the agent was waiting (not speaking, no turn of
  theirs still being handled): it goes to the conversation with empty text and confidence
  0, so the caller is asked again and a failed answer counts as one, exactly as a garbled
  one does. A shorter sound (a cough, a click), or any sound over agent speech, goes
  nowhere. Without this, an answer drowned in noise left the agent silent, waiting for a
  turn that had already happened.
* Turns go to the conversation one at a time, in order; a controller failure is kept for
  :meth:`TurnIntake.wait_turns`.
"""

from __future__ import annotations

import asyncio

from agent.core.session import Conversation
from agent.core.speech import Utterance
from audio.barge_in import Overlap, classify_overlap, is_lead_in
from audio.barge_in_control import BargeIn
from audio.caller_clock import AudioTimer, CallerVoice, Recogniser, Spawn, Timers
from audio.generation_gate import GenerationGate
from audio.services import HUNG_RECOGNISER_SECS, SharedWhisperSTT
from audio.trace_bridge import TraceBridge

STT_BACKSTOP_SECS = HUNG_RECOGNISER_SECS  # bounds the wait for a hung recogniser; never orders
# An unheard turn: at least this long from VAD onset to stop (the stop itself is 0.2 s of
# silence), i.e. about half a second of sound; a cough or a click is shorter.
UNHEARD_TURN_SECS = 0.7


class TurnIntake:
    """Assembles the caller's turn and hands it to the conversation."""

    def __init__(self, gate: GenerationGate, bridge: TraceBridge, barge: BargeIn,
                 voice: CallerVoice, recogniser: Recogniser, timers: Timers, spawn: Spawn, *,
                 stt: SharedWhisperSTT | None, lead_in_hold_secs: float,
                 unheard_turn_secs: float = UNHEARD_TURN_SECS):
        self.gate = gate
        self.conversation: Conversation | None = None
        self.transcripts: list[tuple[str, float]] = []  # every final STT result
        self.turn_texts: list[tuple[str, str]] = []  # (channel, text) per delivered turn
        self.errors: list[Exception] = []  # controller failures, surfaced by wait_turns
        self._bridge = bridge
        self._barge = barge
        self._voice = voice
        self._recogniser = recogniser
        self._timers = timers
        self._spawn = spawn
        self._stt = stt
        self._lead_in_hold = lead_in_hold_secs
        self._unheard_secs = unheard_turn_secs
        self._segments: list[tuple[str, float]] = []
        # What the recogniser knows beyond the text, for the turn so far: its words with their
        # probabilities and its no-speech probability (agent.core.speech.Utterance;
        # agent/understanding/trust.py).
        self._words: tuple[tuple[str, float], ...] = ()
        self._no_speech = 0.0
        self._answer: float | None = None  # of the turn's first segment (Utterance.answer)
        self._hold: AudioTimer | None = None
        self._turns = asyncio.Lock()
        self._deliveries: set[asyncio.Task] = set()
        self._ending = False  # a turn end waits for the recogniser (_turn_ended_after_stt)

    # -- transcripts -----------------------------------------------------------------------

    def transcribed(self, text: str, result: object) -> None:
        """One final transcript (``result``: the recogniser's dict, if any)."""
        result = result if isinstance(result, dict) else {}
        confidence = float(result.get("confidence", 1.0))
        self._recogniser.transcript_arrived()
        words = tuple(tuple(w) for w in result.get("words") or ())
        no_speech = float(result.get("no_speech", 0.0))
        answer = result.get("answer")
        answer = float(answer) if isinstance(answer, (int, float)) else None
        if result.get("cumulative"):  # the whole turn so far: replaces earlier segments
            self._segments = [(text.strip(), confidence)]
            self._words, self._no_speech, self._answer = words, no_speech, answer
        else:
            if not self._segments:
                self._answer = answer  # only the turn's first words can open it
            self._segments.append((text.strip(), confidence))
            self._words, self._no_speech = self._words + words, max(self._no_speech, no_speech)
        self.transcripts.append((text.strip(), confidence))
        self._bridge.clock.transcribed()
        self._barge.heard(self._text())

    def _text(self) -> str:
        return " ".join(t for t, _ in self._segments if t).strip()

    def idle(self) -> bool:
        """Nothing of the caller's is being recognised, held or assembled into a turn."""
        return not self._recogniser.busy() and self._hold is None and not self._segments

    @property
    def handling(self) -> bool:
        """A delivered turn is still being handled by the conversation."""
        return bool(self._deliveries)

    # -- the end of a turn -----------------------------------------------------------------

    def speech_resumed(self) -> None:
        """The caller speaks again: a held lead-in and what follows are one turn."""
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None

    def stop_taken(self, segment: int | None) -> None:
        """A VAD stop carrying ``segment`` reached the adapter: let the recogniser hear that
        segment, unless a turn end before it still waits for words (then once it is done)."""
        if segment is None:
            return
        self._recogniser.stop_taken(segment)
        if not self._ending:
            self._let_hear()

    def _let_hear(self) -> None:
        if self._stt is not None:
            self._stt.reached(self._recogniser.awaited)

    def turn_ended(self) -> None:
        """The turn detector says the caller finished."""
        last = self._recogniser.awaited  # the turn's last segment: what came after is not its
        if self._recogniser.busy(last):
            self._ending = True
            self._spawn(self._turn_ended_after_stt(last), "turn_end")
        else:
            self._turn_ended()

    async def _turn_ended_after_stt(self, last: int) -> None:
        """The turn ended while its last segment was still being recognised: wait for it."""
        try:
            await self._recogniser.caught_up(STT_BACKSTOP_SECS, upto=last)
            self._turn_ended()
        finally:
            self._ending = False
            self._let_hear()

    def _turn_ended(self) -> None:
        if is_lead_in(self._text()) and self._hold is None:
            # "Sorry," / "Actually," then a breath: the turn is not over. Hold it for
            # lead_in_hold_secs of audio; speech resuming merges into this turn.
            self._hold = self._timers.after(self._lead_in_hold, self._release_held_turn)
            return
        self._deliver_turn()

    def _release_held_turn(self) -> None:
        self._hold = None
        self._deliver_turn()

    def _deliver_turn(self) -> None:
        voiced = 0.0
        if self._stt is not None:
            voiced = self._stt.turn_voiced_secs()
            self._stt.reset_turn()
        text, segments = self._text(), self._segments
        words, no_speech, answer = self._words, self._no_speech, self._answer
        self._words, self._no_speech, self._answer = (), 0.0, None
        self._segments = []
        waiting = not self.gate.speaking and not self.handling
        overlapping, barged = self._barge.settle()
        if not text:
            if voiced >= self._unheard_secs and waiting and not overlapping:
                self.deliver("", 0.0, "voice", no_speech=1.0)  # heard sound, no words
            return
        if overlapping and not barged and classify_overlap(text) is not Overlap.TURN:
            self._bridge.backchannel_ignored(text, self.gate.latest)
            return
        confidence = min(c for _, c in segments)
        self.deliver(text, confidence, "voice", words=words, no_speech=no_speech, answer=answer)

    # -- to the conversation ---------------------------------------------------------------

    def deliver(self, text: str, confidence: float, channel: str, *,
                words: tuple[tuple[str, float], ...] = (), no_speech: float = 0.0,
                answer: float | None = None) -> None:
        """Hand one whole turn to the conversation (in order, one at a time)."""
        self.turn_texts.append((channel, text))
        last_voiced = self._voice.last_voiced if channel == "voice" else None
        self._bridge.turn_voiced(text, confidence, channel, last_voiced, self.gate.latest)
        utterance = Utterance(text, confidence, words=words, no_speech=no_speech, answer=answer)
        task = self._spawn(self._user_turn(utterance), "user_turn")
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)

    async def _user_turn(self, utterance: Utterance) -> None:
        if self.conversation is None:
            return
        async with self._turns:  # one turn at a time, in order
            try:
                await self.conversation.user_turn(utterance)
            except Exception as exc:  # noqa: BLE001 - kept for wait_turns; the call goes on
                self.errors.append(exc)

    async def wait_turns(self) -> None:
        """Return when every delivered turn was handled; re-raise a controller failure."""
        while self._deliveries:
            await asyncio.gather(*tuple(self._deliveries), return_exceptions=True)
        if self.errors:
            raise self.errors.pop(0)

    def stop(self) -> None:
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
