"""No input: the caller says nothing after the agent asked something.

Once the agent has finished saying a question (a :attr:`~agent.core.speech.SpeechKind.QUESTION`
plan that played to its end), the caller has ``no_input_secs`` of *caller audio* to start
speaking. If that much audio arrives with no speech in it, the turn is a *no-input* turn: an
empty turn goes to the conversation (channel ``silence``), which treats it as an answer it
could not hear: the question is asked again, and in a repair it counts as a failed answer, so
the ladder climbs (a closed choice, a yes/no, a person offered) exactly as it does for a
garbled answer. Without this, an answer the VAD never heard (a quiet voice in noise) left the
agent waiting for a turn that had already happened, and the caller waiting for the agent.

* **Counted in audio time.** A closed microphone, or a push-to-talk button not pressed, sends
  no audio, so no time passes and nobody is asked again. A stalled machine delays the audio
  and the timer with it: it never fires because frames were late.
* **Counted from audio captured after the question.** On a busy machine the adapter runs
  seconds behind the microphone: the audio still queued when the question finished was
  captured while it was playing, and is no silence after it. The count starts at the first
  frame captured after the question finished (``frame_in``, with the transport's capture
  time, :data:`~audio.frames.CAPTURED_KEY`); a frame with no capture time counts from when it
  arrives, as before. Counted from where the adapter was, a lag of several seconds left the
  caller 7 s less the lag to answer, and the reprompt came while the answer was on its way.
* **Capped.** At most ``max_in_row`` no-input turns in a row; after that the agent waits in
  silence until the caller says something (a demo left open does not talk to an empty room).
  Any speech from the caller, spoken or typed, starts the count again.
* **Only when the agent waits.** Speech starting (the VAD, or the early onset over agent
  speech), a typed turn, a push-to-talk press, or a new response of the agent's disarms the
  timer; it fires only while nothing is playing and no turn of the caller's is being
  recognised or handled.

Pure bookkeeping on :class:`~audio.turns.AudioClock` alarms: no frame is read here.
"""

from __future__ import annotations

from collections.abc import Callable

from audio.turns import AudioClock

NO_INPUT_SECS = 7.0  # of caller audio after a question, with no speech: ask again
NO_INPUT_MAX_IN_ROW = 2  # then wait in silence until the caller speaks


class NoInput:
    """The no-input timer of one call."""

    def __init__(self, clock: AudioClock, on_no_input: Callable[[], bool], *,
                 secs: float = NO_INPUT_SECS, max_in_row: int = NO_INPUT_MAX_IN_ROW):
        """``on_no_input`` is called when the timer fires; it returns whether a no-input turn
        went to the conversation (False: the agent was busy after all, nothing counted)."""
        if secs <= 0:
            raise ValueError(f"no_input_secs must be > 0 (got {secs}); to turn the "
                             "no-input reprompt off, set max_in_row to 0")
        if max_in_row < 0:
            raise ValueError(f"no_input_max_in_row must be >= 0 (got {max_in_row})")
        self.secs = secs
        self.max_in_row = max_in_row
        self.in_row = 0  # no-input turns since the caller last said anything
        self._clock = clock
        self._on_no_input = on_no_input
        self._alarm: int | None = None
        self._from: float | None = None  # the question finished then: count from audio after

    @property
    def armed(self) -> bool:
        return self._alarm is not None or self._from is not None

    def question_finished(self, at: float) -> None:
        """The agent's question played to its end at ``at`` (``time.monotonic()``): the
        caller's time to answer starts with the first audio captured after it."""
        self._disarm()
        if self.in_row < self.max_in_row:
            self._from = at

    def frame_in(self, captured: float | None) -> None:
        """A frame of caller audio reaches the adapter, captured at ``captured`` (None: not
        known; it counts from now). Call before the clock advances over it."""
        if self._from is not None and (captured is None or captured >= self._from):
            self._from = None
            self._alarm = self._clock.after(self.secs, self._fire)

    def caller_spoke(self) -> None:
        """The caller started speaking, typed, or pressed to talk: no timer, count reset."""
        self._disarm()
        self.in_row = 0

    def agent_spoke(self) -> None:
        """A new response of the agent's: the caller is no longer being waited for."""
        self._disarm()

    def stop(self) -> None:
        self._disarm()

    def _disarm(self) -> None:
        self._clock.cancel(self._alarm)
        self._alarm = None
        self._from = None

    def _fire(self) -> None:
        self._alarm = None
        if self._on_no_input():
            self.in_row += 1
