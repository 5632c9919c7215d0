"""The VAD, and a signal before its stop: the voice has faded.

Silero's stop (``VADUserStoppedSpeakingFrame``) comes ``stop_secs`` (0.2 s) after the last
window it heard a voice in: that long of silence says a segment has ended. Whisper needs about
as long again to hear the turn, and the two used to run one after the other. The fade is the
first ``fade_secs`` of that silence: the speech service starts hearing the turn then
(:meth:`audio.services.SharedWhisperSTT.voice_fading`), so the transcript is ready sooner
after the stop. If the voice comes back before the stop, the early transcription is dropped
and the segment goes on; if the stop comes, the audio between the fade and the stop is what
Silero heard as no voice, and the early transcript stands for the segment.

The fade is read from the state Silero's analyzer returns for each frame (``STOPPING``: a
window without voice while speaking), never from a timer, so it is in audio time.

The other way round: after a stop, the first window with a voice (``STARTING``) comes
``start_secs`` before Silero is sure enough for a VAD start. The end of the turn waits while
a voice may be starting (:class:`~audio.frames.VoiceStartingFrame`): a caller who resumes
just before the turn would have ended ("I need a visit on... Friday") continues the turn.
That frame goes downstream *before* the audio frame the voice came back in, so the frame that
holds the voice is never counted as silence. After it, a caller whose voice came back in the
very frame that made the pause long enough had the turn split, on an idle machine as on a
loaded one (a blind script's 0.9 s pause after "on", 2026-12-06).
"""

from __future__ import annotations

from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADParams, VADState
from pipecat.frames.frames import Frame, InputAudioRawFrame
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection

from audio.frames import VoiceFadingFrame, VoiceStartingFrame

# Silence after the last voiced window before the early transcription starts: two of Silero's
# 32 ms windows, so one window without voice between two words does not start it.
FADE_SECS = 0.064


class FadeWatchingSilero(SileroVADAnalyzer):
    """Silero VAD that also notes, per frame, when the voice has faded for ``fade_secs`` of
    audio while speaking and when it came back after that, and when a voice may be starting
    after a stop (``events``: the frames for :class:`FadingVADProcessor` to send on)."""

    def __init__(self, *, params: VADParams, fade_secs: float = FADE_SECS) -> None:
        if not 0 < fade_secs < params.stop_secs:
            raise ValueError(f"fade_secs must be above 0 and below the VAD's stop_secs "
                             f"({params.stop_secs:g}), not {fade_secs:g}")
        super().__init__(params=params)
        self.fade_secs = fade_secs
        self.events: list[Frame] = []
        self._quiet = 0.0  # seconds of audio in STOPPING so far
        self._faded = False
        self._before = VADState.QUIET

    async def analyze_audio(self, buffer: bytes) -> VADState:
        state = await super().analyze_audio(buffer)
        before, self._before = self._before, state
        if state == VADState.STARTING and before == VADState.QUIET:
            self.events.append(VoiceStartingFrame(started=True))
        elif state == VADState.QUIET and before == VADState.STARTING:
            self.events.append(VoiceStartingFrame(started=False))
        if state == VADState.STOPPING:
            self._quiet += len(buffer) / 2 / max(1, self.sample_rate)
            if not self._faded and self._quiet >= self.fade_secs:
                self._faded = True
                self.events.append(VoiceFadingFrame(resumed=False))
            return state
        if state == VADState.SPEAKING and self._faded:
            self.events.append(VoiceFadingFrame(resumed=True))  # back before the stop
        self._quiet = 0.0
        self._faded = False
        return state


class FadingVADProcessor(VADProcessor):
    """pipecat's ``VADProcessor`` that also sends :class:`~audio.frames.VoiceFadingFrame` and
    :class:`~audio.frames.VoiceStartingFrame` downstream: a voice that may be starting just
    before the audio frame it was heard in, the rest after that frame (and after the VAD's own
    frames about it, in pipecat's order)."""

    def __init__(self, *, vad_analyzer: FadeWatchingSilero, **kwargs) -> None:
        super().__init__(vad_analyzer=vad_analyzer, **kwargs)
        self._watcher = vad_analyzer
        # While an audio frame is analysed: what goes downstream meanwhile (the frame, then
        # the VAD's frames about it), sent once the voice-starting frame went first.
        self._analysed: list[Frame] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if not isinstance(frame, InputAudioRawFrame) or direction != FrameDirection.DOWNSTREAM:
            await super().process_frame(frame, direction)
            return
        self._analysed = []
        try:
            await super().process_frame(frame, direction)  # the frame, then the VAD's frames
        finally:
            analysed, self._analysed = self._analysed, None
        events, self._watcher.events = self._watcher.events, []
        first: list[Frame] = [e for e in events
                              if isinstance(e, VoiceStartingFrame) and e.started]
        for event in first:
            await self.push_frame(event)
        for held in analysed:
            await super().push_frame(held)
        for event in events:
            if not any(event is f for f in first):
                await self.push_frame(event)

    async def push_frame(self, frame: Frame,
                         direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        if self._analysed is not None and direction == FrameDirection.DOWNSTREAM:
            self._analysed.append(frame)
            return
        await super().push_frame(frame, direction)
