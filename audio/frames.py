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
from dataclasses import dataclass

from pipecat.frames.frames import Frame, SystemFrame, TTSAudioRawFrame, TTSSpeakFrame

UNSTAMPED = -1


@dataclass
class StampedSpeakFrame(TTSSpeakFrame):
    """One sentence of a :class:`agent.speech.SpeechPlan`, to be spoken as ``generation``."""

    generation: int = 0
    sentence: int = 0  # index within the plan


@dataclass
class TypedTurnFrame(SystemFrame):
    """A typed (not spoken) final user turn from a client, e.g. the browser's text box."""

    text: str = ""


@dataclass
class PushToTalkFrame(SystemFrame):
    """The browser's push-to-talk button: ``on`` while held."""

    on: bool = False


def context_id_for(generation: int) -> str:
    """A fresh TTS context id that names ``generation``."""
    return f"g{generation}:{uuid.uuid4().hex}"


def generation_of_context(context_id: str | None) -> int:
    """The generation a context id names, or ``UNSTAMPED`` for foreign ids."""
    if not context_id or not context_id.startswith("g") or ":" not in context_id:
        return UNSTAMPED
    head = context_id[1:context_id.index(":")]
    return int(head) if head.isdigit() else UNSTAMPED


class GenerationAudio(TTSAudioRawFrame):
    """Base of the per-generation audio classes; ``generation`` is a class attribute."""

    generation: int = UNSTAMPED


_CLASSES: dict[int, type[GenerationAudio]] = {}


def audio_class(generation: int) -> type[GenerationAudio]:
    """The (cached) audio frame class for ``generation`` (side effect: may create one)."""
    cls = _CLASSES.get(generation)
    if cls is None:
        cls = type(f"GenerationAudio{generation}", (GenerationAudio,),
                   {"generation": generation, "__module__": __name__})
        _CLASSES[generation] = cls
    return cls


def stamp_audio(frame: TTSAudioRawFrame | Frame, generation: int, audio: bytes | None = None,
                sample_rate: int | None = None) -> GenerationAudio:
    """A copy of an audio frame whose class carries ``generation``."""
    cls = audio_class(generation)
    out = cls(audio if audio is not None else frame.audio,
              sample_rate=sample_rate or frame.sample_rate, num_channels=frame.num_channels)
    out.context_id = getattr(frame, "context_id", None)
    return out


def generation_of_audio(frame: Frame) -> int:
    """The generation an output audio frame belongs to, or ``UNSTAMPED``."""
    if isinstance(frame, GenerationAudio):
        return type(frame).generation
    return generation_of_context(getattr(frame, "context_id", None))
