"""Caller audio the agent has not heard yet: how far its ear runs behind the microphone.

On a busy machine the VAD and the turn detector fall behind the caller's audio, and the frames
wait in the pipeline's queues. A reply that begins then may be talking over a caller who has
already spoken: a correction said while the answer was being prepared. On an idle machine the
VAD would have heard that speech before the reply began, and the reply would have been held
for it (``caller_first`` in :mod:`audio.barge_in_control`). On a loaded one the reply played
for seconds, old citation and all, before the correction's audio reached the VAD (audio script
18 at three times ``make test-audio``'s load, 2026-12-07: 14 s behind, 7.6 s of the stale
answer played).

So the agent does not speak over audio it has not heard. Every input frame carries its capture
time (:data:`audio.frames.CAPTURED_KEY`). :class:`InputMark`, the first processor after the
transport, notes the newest capture time that entered the pipeline; the controller adapter
notes the newest that reached it, past the VAD, the recogniser and the turn detector. A reply
that begins while audio captured more than ``lag_secs`` before it is still on its way is held
until the adapter has had that audio (:meth:`InputBacklog.when_heard`); the caller's speech in
it then decides, as if they had spoken over the reply.

``lag_secs`` is the pipeline's own delay on an idle machine (the VAD reads 32 ms windows and
needs 0.1 s of speech to start), with room: an idle machine never holds a reply here.
"""

from __future__ import annotations

from collections.abc import Callable

from pipecat.frames.frames import Frame, InputAudioRawFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from audio.frames import captured_at

# Audio captured this long before a reply began, and not yet heard, holds the reply.
HEARD_LAG_SECS = 0.25


class InputBacklog:
    """The newest capture time that entered the pipeline and the newest the agent has heard.

    Frames without a capture time (a transport that does not stamp them) are not counted: with
    none at all, nothing is ever behind."""

    def __init__(self, lag_secs: float = HEARD_LAG_SECS):
        self.lag_secs = lag_secs
        self.captured: float | None = None  # newest capture time in the pipeline
        self.heard: float | None = None  # newest capture time that reached the adapter
        self._first: float | None = None  # the first capture time in the pipeline
        self._waiters: list[tuple[float, Callable[[], None]]] = []

    def entered(self, at: float | None) -> None:
        """A frame captured at ``at`` entered the pipeline."""
        if at is None:
            return
        if self._first is None:
            self._first = at
        self.captured = at if self.captured is None else max(self.captured, at)

    def reached(self, at: float | None) -> None:
        """A frame captured at ``at`` reached the adapter: fire the waits it ends (side
        effect: calls their callbacks, in the order they were asked for)."""
        if at is None:
            return
        self.heard = at if self.heard is None else max(self.heard, at)
        done = [w for w in self._waiters if w[0] <= self.heard]
        if done:
            self._waiters = [w for w in self._waiters if w[0] > self.heard]
            for _, callback in done:
                callback()

    def unheard_secs(self) -> float:
        """Seconds of captured audio that have not reached the adapter yet."""
        if self.captured is None:
            return 0.0
        heard = self.heard if self.heard is not None else self._first
        assert heard is not None  # (set with captured)
        return max(0.0, self.captured - heard)

    def behind(self) -> bool:
        """Audio captured more than ``lag_secs`` ago has not been heard."""
        return self.unheard_secs() > self.lag_secs

    def when_heard(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` once the audio captured up to ``lag_secs`` before now has reached
        the adapter (at once if it has). Returns a function that cancels the wait."""
        if self.captured is None or not self.behind():
            callback()
            return lambda: None
        waiter = (self.captured - self.lag_secs, callback)
        self._waiters.append(waiter)

        def cancel() -> None:
            self._waiters = [w for w in self._waiters if w is not waiter]

        return cancel


class InputMark(FrameProcessor):
    """First after ``transport.input()``: notes each input frame's capture time in the call's
    :class:`InputBacklog`. Passes every frame on unchanged; does no other work, so that its
    own queue never grows."""

    def __init__(self, backlog: InputBacklog, **kwargs):
        super().__init__(**kwargs)
        self.backlog = backlog

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame):
            self.backlog.entered(captured_at(frame))
        await self.push_frame(frame, direction)
