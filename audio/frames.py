"""Pipecat frames that carry Amend's response generation across the pipeline.

Pipecat has no generation counter, and its output transport re-chunks audio as
``type(frame)(audio, sample_rate=..., num_channels=...)``, which drops every per-frame field
(``context_id`` included). Two tricks survive that:

* the TTS ``context_id`` of a stamped speak frame is ``"g<generation>:<uuid>"``, so every
  ``TTSStartedFrame`` / ``TTSAudioRawFrame`` / ``TTSStoppedFrame`` names its generation;
* audio leaving the generation gate is an instance of a per-generation subclass whose
  generation is a *class* attribute, so the transport's re-chunked copies keep it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TypeVar

from pipecat.frames.frames import (
    AudioRawFrame,
    DataFrame,
    Frame,
    OutputAudioRawFrame,
    SystemFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
)

UNSTAMPED = -1


def frame_seconds(frame: AudioRawFrame) -> float:
    """Seconds of audio a 16-bit PCM frame holds: the unit of every audio-time count."""
    channels = max(1, frame.num_channels)
    return len(frame.audio) / 2 / channels / max(1, frame.sample_rate)


@dataclass
class StampedSpeakFrame(TTSSpeakFrame):
    """One sentence of a :class:`agent.core.speech.SpeechPlan`, to be spoken as ``generation``."""

    generation: int = 0
    sentence: int = 0  # index within the plan


@dataclass
class TypedTurnFrame(SystemFrame):
    """A typed (not spoken) final user turn from a client, e.g. the browser's text box."""

    text: str = ""


@dataclass
class PushToTalkFrame(SystemFrame):
    """The browser's push-to-talk button: ``on`` while held. ``on=False`` also stands for the
    microphone being switched off: either way the caller's audio stops there."""

    on: bool = False


@dataclass
class VoiceFadingFrame(SystemFrame):
    """The VAD stopped hearing a voice while the caller was speaking (``resumed=False``), for
    long enough that the segment may be ending, though its VAD stop is still to come; or the
    voice came back before that stop (``resumed=True``). See :mod:`audio.vad`."""

    resumed: bool = False


@dataclass
class VoiceStartingFrame(SystemFrame):
    """After a VAD stop, Silero heard a voice again (``started=True``), before it is sure
    enough for a VAD start (``start_secs`` of it), or that voice faded before then
    (``started=False``). The end of the turn waits while a voice may be starting: speech
    that resumes before the turn ends continues it. See :mod:`audio.vad`."""

    started: bool = True


@dataclass
class TurnCutFrame(SystemFrame):
    """The caller's turn reached its length cap (``PipelineConfig.max_turn_secs``): the end of
    the turn does not wait for a pause. Sent by the VAD stage right after the VAD stop it sent
    for the cut (see :class:`audio.turns.CappedVADProcessor`)."""


# The caller's segments are numbered 1, 2, ... per call, in the order the recogniser queued
# them (audio.services.SharedWhisperSTT). Every VAD stop that passes the recogniser carries,
# under this key of its ``metadata``, the number of the last segment queued by then (its own,
# if it queued one): the words a decision about that pause must have in hand.
SEGMENT_KEY = "amend.segment"


# A scripted caller's clips are numbered 1, 2, ... per call (audio.scripted); the input frame
# that holds a clip's last sample carries its number under this key. Whoever waits for the
# pipeline to take a turn in can then count silence from where the clip ended in the stream,
# not from where the pipeline had got to when the clip was fed: on a busy machine the
# pipeline runs seconds behind the microphone.
CLIP_END_KEY = "amend.clip_end"


# When an input audio frame was captured (time.monotonic() where the transport took it in: the
# scripted microphone, or the browser's audio arriving). Frames may reach the adapter seconds
# later on a busy machine; what was captured while the agent was still speaking is no silence
# after it (audio/no_input.py).
CAPTURED_KEY = "amend.captured"


F = TypeVar("F", bound=Frame)


def stamp_captured(frame: F, at: float) -> F:
    """``frame`` with its capture time (side effect: sets its metadata); returns it."""
    frame.metadata[CAPTURED_KEY] = at
    return frame


def captured_at(frame: Frame) -> float | None:
    """When the transport took ``frame`` in (None: it did not say)."""
    at = frame.metadata.get(CAPTURED_KEY)
    return float(at) if isinstance(at, (int, float)) else None


def clip_end(frame: Frame) -> int | None:
    """The number of the scripted clip whose last sample ``frame`` holds (None: none)."""
    number = frame.metadata.get(CLIP_END_KEY)
    return number if isinstance(number, int) else None


def stop_segment(frame: Frame) -> int | None:
    """The segment number a VAD stop carries (None: it passed no numbering recogniser)."""
    number = frame.metadata.get(SEGMENT_KEY)
    return number if isinstance(number, int) else None


def answer_segment(frame: Frame) -> int:
    """The segment a recogniser answer belongs to: a :class:`SegmentHeardFrame`'s number, a
    transcript's ``result["segment"]``; 0 for a transcript with no number."""
    if isinstance(frame, SegmentHeardFrame):
        return frame.number
    result = getattr(frame, "result", None)
    number = result.get("segment") if isinstance(result, dict) else None
    return number if isinstance(number, int) else 0


@dataclass
class SegmentHeardFrame(DataFrame):
    """The recogniser is done with segment ``number``: its transcript, if it heard words,
    went just before this frame, in the same (data) order. Sent for every segment, heard or
    not, so that "every word up to this pause is in" is a fact of the stream, not a count
    kept elsewhere. Never dropped by an interruption."""

    number: int = 0
    interruptible: bool = field(default=False, init=False)


def context_id_for(generation: int, sentence: int = 0) -> str:
    """A fresh TTS context id that names ``generation`` and the plan's sentence index."""
    return f"g{generation}s{sentence}:{uuid.uuid4().hex}"


def _parse(context_id: str | None) -> tuple[int, int]:
    if not context_id or not context_id.startswith("g") or ":" not in context_id:
        return UNSTAMPED, 0
    gen, _, sentence = context_id[1:context_id.index(":")].partition("s")
    if not gen.isdigit():
        return UNSTAMPED, 0
    return int(gen), int(sentence) if sentence.isdigit() else 0


def generation_of_context(context_id: str | None) -> int:
    """The generation a context id names, or ``UNSTAMPED`` for foreign ids."""
    return _parse(context_id)[0]


def sentence_of_context(context_id: str | None) -> int:
    return _parse(context_id)[1]


class GenerationAudio(TTSAudioRawFrame):
    """Base of the per-generation audio classes; ``generation`` and ``sentence`` are class
    attributes, so they survive the output transport's re-chunking."""

    generation: int = UNSTAMPED
    sentence: int = 0


_CLASSES: dict[tuple[int, int], type[GenerationAudio]] = {}


def audio_class(generation: int, sentence: int = 0) -> type[GenerationAudio]:
    """The (cached) audio frame class for one sentence of ``generation`` (may create one)."""
    key = (generation, sentence)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = type(f"GenerationAudio{generation}s{sentence}", (GenerationAudio,),
                   {"generation": generation, "sentence": sentence, "__module__": __name__})
        _CLASSES[key] = cls
    return cls


def stamp_audio(frame: OutputAudioRawFrame, generation: int, audio: bytes | None = None,
                sample_rate: int | None = None) -> GenerationAudio:
    """A copy of an audio frame whose class carries ``generation`` (and its sentence)."""
    sentence = type(frame).sentence if isinstance(frame, GenerationAudio) else \
        sentence_of_context(getattr(frame, "context_id", None))
    cls = audio_class(generation, sentence)
    out = cls(audio if audio is not None else frame.audio,
              sample_rate=sample_rate or frame.sample_rate, num_channels=frame.num_channels)
    out.context_id = getattr(frame, "context_id", None)
    return out


def generation_of_audio(frame: Frame) -> int:
    """The generation an output audio frame belongs to, or ``UNSTAMPED``."""
    if isinstance(frame, GenerationAudio):
        return type(frame).generation
    return generation_of_context(getattr(frame, "context_id", None))
