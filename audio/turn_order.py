"""The turn processor sees the caller's audio in the order that makes its decision the audio's.

After a VAD stop, the end of the turn needs two answers that take wall-clock time: the
recogniser's transcript of the turn so far and Smart Turn's verdict on the pause
(:class:`audio.turns.AudioClockTurnStop`). Meanwhile the caller's audio keeps arriving. If the
turn processor took that audio in as it came, the same recording would end a turn or not
depending on how fast the machine answered:

* answers ready within the pause: the silence is counted and the turn ends at the pause,
  ``"Sorry, I meant P-200."``, and ``"not P-100"`` becomes a turn of its own;
* answers late: the caller is already speaking again when they arrive, so the turn goes on.

:class:`OrderedUserTurnProcessor` takes the audio after a VAD stop in only once both answers
are in: until then it holds the frames that carry the caller's audio and voice activity, and
then lets them through in their order. The stop strategy so always judges a pause with the
transcript and the verdict in hand at the moment of the stop, and counts the silence after it
frame by frame: a given recording ends its turns at the same samples on an idle machine and on
a loaded one. What the caller says while frames are held is not lost or reordered, only seen
later: by the time the recogniser and Smart Turn answered, typically 0.1 to 0.3 s.

The recogniser's answers (transcripts and :class:`~audio.frames.SegmentHeardFrame`) are what
the hold waits for, so they are not held behind the audio; but they are kept in step with it.
The recogniser numbers its segments and every VAD stop carries the number of the last segment
queued by then (:data:`audio.frames.SEGMENT_KEY`). An answer for a segment whose VAD stop the
turn processor has not taken in yet (the recogniser ran ahead while audio was held) waits,
and goes in right after that stop. A pause is so judged on the words up to it, never on words
the caller said after it, however far ahead the recogniser got. Frames going upstream and the
pipeline's own control frames are never held.

A hold waits as long as the answers are being worked on (``working``: a segment is with the
recogniser, a verdict is being computed), however long a loaded machine takes: a turn ended
without its words is heard wrong, and late is better than wrong. Two bounds end it anyway, so
a recogniser that never answers delays the turn's end and never stops it: ``max_held_secs`` of
caller audio held with nothing being worked on (an answer lost), and ``hung_held_secs`` in all
(a hung recogniser, :data:`audio.services.HUNG_RECOGNISER_SECS`). Before, a hold ended after
5 s of held audio whatever was being worked on; with two calls and two other busy processes on
two cores, a recognition took up to 8.5 s, and turns went on without their words.

While it holds, it tells the strategy how much of the held audio is silence after the stop
(``on_quiet``: the seconds before any voice starts): once that silence is as long as the
longest wait Smart Turn's verdict could give, the verdict can no longer change how the pause
ends, and the frames go on without it (:meth:`audio.turns.AudioClockTurnStop.quiet_ahead`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    TranscriptionFrame,
    UserSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.turns.user_turn_processor import UserTurnProcessor

from audio.frames import (
    SegmentHeardFrame,
    TurnCutFrame,
    VoiceStartingFrame,
    answer_segment,
    frame_seconds,
    stop_segment,
)
from audio.services import HUNG_RECOGNISER_SECS

# The frames that carry the caller's audio and what the VAD heard in it: the ones a decision
# about a pause must see in audio order.
HELD = (InputAudioRawFrame, VADUserStartedSpeakingFrame, VADUserStoppedSpeakingFrame,
        VoiceStartingFrame, UserSpeakingFrame, TurnCutFrame)
# The longest hold with nothing being worked on (an answer lost), in seconds of caller audio:
# past it the frames go on without the answers.
MAX_HELD_SECS = 5.0
# The longest hold in all, in seconds of caller audio (arriving in real time): a hung recogniser.
HUNG_HELD_SECS = HUNG_RECOGNISER_SECS
# When the call ends while frames are held, how long (wall clock) its last answers are waited
# for before the frames go on without them: a backstop for a hung recogniser, never an order.
END_WAIT_SECS = 10.0


class OrderedUserTurnProcessor(UserTurnProcessor):
    """pipecat's ``UserTurnProcessor`` that, after each VAD stop, holds the caller's audio
    frames until ``settled()`` says the answers the stop strategy waits for are in.

    Call :meth:`wake` whenever an answer comes in (the recogniser's and the strategy's
    ``settled_listeners``), so the frames go on at once rather than with the next frame.
    ``working()`` says whether an answer is being worked on (default: never, so a hold ends
    after ``max_held_secs``)."""

    def __init__(self, *, settled: Callable[[], bool], working: Callable[[], bool] | None = None,
                 max_held_secs: float = MAX_HELD_SECS, hung_held_secs: float = HUNG_HELD_SECS,
                 on_quiet: Callable[[float], None] | None = None, **kwargs) -> None:
        if not 0 < max_held_secs <= hung_held_secs:
            raise ValueError(f"need 0 < max_held_secs <= hung_held_secs, not {max_held_secs} "
                             f"and {hung_held_secs}")
        super().__init__(**kwargs)
        self._settled = settled
        self._working = working or (lambda: False)
        self.max_held_secs = max_held_secs
        self.hung_held_secs = hung_held_secs
        self._held: deque[Frame] = deque()
        self._ahead: deque[Frame] = deque()  # answers for segments whose stop is still to come
        self._segment = 0  # the segment number of the last VAD stop taken in
        self._held_secs = 0.0
        self._idle_secs = 0.0  # held audio since an answer was last being worked on
        self._quiet_secs = 0.0  # held audio after the stop before any voice starts
        self._quiet = True  # no voice has started in the held frames yet
        self.on_quiet = on_quiet
        self._holding = False
        self._order = asyncio.Lock()  # system frames and transcripts come on two tasks
        self._answered = asyncio.Event()  # set by wake()
        self.holds = 0  # pauses whose audio had to wait for the answers (amend bench, tests)
        self.backstops = 0  # holds that ended on a bound, not on their answers
        # Told the seconds of caller audio held, and of them the seconds held with nothing
        # being worked on, each time a hold ends on a bound (the pipeline traces it: a turn's
        # end that did not wait for its answers).
        self.on_backstop: Callable[[float, float], None] | None = None

    @property
    def holding(self) -> bool:
        return self._holding

    def wake(self) -> None:
        """An answer came in (a transcript settled, a verdict): let the held frames through
        now if nothing else is awaited, not at the next frame."""
        self._answered.set()
        if self._holding and self._settled():
            self.create_task(self._release_if_settled(), "turn_order_release")

    async def _release_if_settled(self) -> None:
        async with self._order:
            if self._holding and self._settled():
                await self._release()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if direction != FrameDirection.DOWNSTREAM:
            await super().process_frame(frame, direction)
            return
        if isinstance(frame, CancelFrame):
            self._held.clear()
            self._ahead.clear()
            self._holding = False
            await super().process_frame(frame, direction)
            return
        async with self._order:
            if isinstance(frame, EndFrame):
                await self._drain()
            elif (isinstance(frame, (TranscriptionFrame, SegmentHeardFrame))
                  and answer_segment(frame) > self._segment):
                self._ahead.append(frame)  # goes in after its segment's stop
                return
            elif self._holding and isinstance(frame, HELD):
                self._held.append(frame)
                if isinstance(frame, InputAudioRawFrame):
                    self._count_held(frame_seconds(frame))
                self._count_quiet(frame)
                if self._settled():
                    await self._release()
                elif self._past_bound():
                    self.backstops += 1
                    if self.on_backstop is not None:
                        self.on_backstop(self._held_secs, self._idle_secs)
                    await self._release()
                return
            await self._take(frame)
            if self._holding and self._settled():
                await self._release()

    async def _take(self, frame: Frame) -> None:
        await super().process_frame(frame, FrameDirection.DOWNSTREAM)
        if not isinstance(frame, VADUserStoppedSpeakingFrame):
            return
        self._segment = max(self._segment, stop_segment(frame) or 0)
        await self._take_ahead(self._segment)
        if not self._settled():
            self._holding = True
            self.holds += 1
            self._quiet_secs, self._quiet = 0.0, True

    def _count_held(self, secs: float) -> None:
        self._held_secs += secs
        self._idle_secs = 0.0 if self._working() else self._idle_secs + secs

    def _past_bound(self) -> bool:
        """The hold has lasted past a bound: ``max_held_secs`` of audio with nothing being
        worked on, or ``hung_held_secs`` in all."""
        return (self._idle_secs >= self.max_held_secs - 1e-9
                or self._held_secs >= self.hung_held_secs - 1e-9)

    def _count_quiet(self, frame: Frame) -> None:
        """Count a held frame into the silence after the stop, and tell ``on_quiet``."""
        if not self._quiet:
            return
        if isinstance(frame, InputAudioRawFrame):
            self._quiet_secs += frame_seconds(frame)
            if self.on_quiet is not None:
                self.on_quiet(self._quiet_secs)
        elif (isinstance(frame, (VADUserStartedSpeakingFrame, TurnCutFrame))
              or (isinstance(frame, VoiceStartingFrame) and frame.started)):
            self._quiet = False

    async def _drain(self) -> None:
        """The call ends: let every held frame through, each pause with its answers (waited
        for up to END_WAIT_SECS in all)."""
        deadline = asyncio.get_running_loop().time() + END_WAIT_SECS
        while self._held or self._holding:
            while self._holding and not self._settled():
                self._answered.clear()
                left = deadline - asyncio.get_running_loop().time()
                try:
                    await asyncio.wait_for(self._answered.wait(), max(0.0, left))
                except TimeoutError:
                    break
            await self._release(hold=asyncio.get_running_loop().time() < deadline)
        await self._take_ahead(None)  # answers whose stop never came (none, well formed)

    async def _take_ahead(self, upto: int | None) -> None:
        """Take in the waiting answers for segments up to ``upto`` (None: all), in order."""
        while self._ahead and (upto is None or answer_segment(self._ahead[0]) <= upto):
            await super().process_frame(self._ahead.popleft(), FrameDirection.DOWNSTREAM)

    async def _release(self, *, hold: bool = True) -> None:
        """Let the held frames through in order; a VAD stop among them starts a new hold
        (unless ``hold`` is False: the call is ending past its wait), which ends here too if
        the frames after it settle it (a moot verdict)."""
        while True:
            self._holding = False
            self._held_secs = self._idle_secs = 0.0
            while self._held and not self._holding:
                frame = self._held.popleft()
                await self._take(frame)
                if not hold:
                    self._holding = False
            if not self._holding:
                return
            # the rest wait for that stop's answers
            self._held_secs = sum(frame_seconds(f) for f in self._held
                                  if isinstance(f, InputAudioRawFrame))
            for held in self._held:
                self._count_quiet(held)
            if not self._settled():
                return
