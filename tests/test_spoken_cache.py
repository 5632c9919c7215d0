"""The kept audio of repeated sentences (``audio/spoken_cache.py``) and the TTS service that
speaks from it (``audio.services.GenerationPiperTTS``)."""

from __future__ import annotations

import contextlib

import pytest
from pipecat.frames.frames import ErrorFrame, TTSAudioRawFrame, TTSStartedFrame, TTSStoppedFrame
from pipecat.tests.utils import run_test

from audio.frames import StampedSpeakFrame
from audio.spoken_cache import SpokenSentences

STOCK = "Let me check I have this right."


def test_a_sentence_is_kept_from_its_second_synthesis_on():
    spoken = SpokenSentences()
    assert spoken.get(STOCK) is None
    assert spoken.offer(STOCK, [b"ab", b"cd"]) is False  # said once: remembered, not kept
    assert spoken.get(STOCK) is None
    assert spoken.offer(STOCK, [b"ab", b"cd"]) is True
    assert spoken.get(STOCK) == (b"ab", b"cd")
    assert (spoken.hits, spoken.misses, spoken.size, len(spoken)) == (1, 2, 4, 1)


def test_sentences_said_once_are_never_kept_and_their_memory_is_bounded():
    spoken = SpokenSentences(max_texts=3)
    for n in range(10):  # a booking reference makes each sentence new
        assert spoken.offer(f"Booking BK-{n:06d} is confirmed.", [bytes(100)]) is False
    assert len(spoken) == 0 and spoken.size == 0
    assert spoken.offer("Booking BK-000000 is confirmed.", [bytes(100)]) is False  # forgotten
    assert spoken.offer("Booking BK-000009 is confirmed.", [bytes(100)]) is True  # recent


def test_the_least_recently_spoken_sentence_goes_first_when_the_bytes_run_out():
    spoken = SpokenSentences(max_bytes=250)
    for text in ("one", "two", "one", "two"):
        spoken.offer(text, [bytes(100)])
    spoken.get("one")  # "two" is now the least recently spoken
    spoken.offer("three", [bytes(100)])
    spoken.offer("three", [bytes(100)])
    assert spoken.get("two") is None
    assert spoken.get("one") is not None and spoken.get("three") is not None
    assert spoken.size == 200


@pytest.mark.parametrize("chunks", [[], [bytes(300)]])
def test_empty_or_oversized_audio_is_not_kept(chunks):
    spoken = SpokenSentences(max_bytes=250)
    spoken.offer("x", chunks)
    assert spoken.offer("x", chunks) is False and len(spoken) == 0


def test_bounds_must_not_be_negative():
    with pytest.raises(ValueError, match="must be >= 0, not -1, 512"):
        SpokenSentences(max_bytes=-1)


class CountingVoice:
    """Piper's voice as the TTS service uses it: each sentence as two chunks that differ
    from one synthesis to the next (Piper draws new noise each time); counts syntheses.
    ``fail_after``: raise after that many chunks (a synthesis that breaks off)."""

    class config:  # noqa: N801 - the attribute Piper's voice has
        sample_rate = 24000

    class Chunk:
        def __init__(self, audio: bytes):
            self.audio_int16_bytes = audio

    def __init__(self, fail_after: int | None = None):
        self.syntheses = 0
        self.fail_after = fail_after

    def synthesize(self, text):
        self.syntheses += 1
        for part in range(2):
            if self.fail_after is not None and part >= self.fail_after:
                raise RuntimeError("the voice broke off")
            yield self.Chunk(bytes([self.syntheses % 256, part]) * 240)


@contextlib.contextmanager
def _voice(voice):
    """The process-wide Piper voice is ``voice`` (a stand-in) inside the block."""
    from audio import services

    held = services._cache.get("piper")
    services._cache["piper"] = voice
    try:
        yield
    finally:
        if held is None:
            services._cache.pop("piper", None)
        else:
            services._cache["piper"] = held


async def _speak(voice, texts: list[str], *, keep: bool = True) -> list[bytes]:
    """Each text spoken in turn by a GenerationPiperTTS over ``voice``; the audio of each."""
    from audio import services

    with _voice(voice):
        out = []
        for n, text in enumerate(texts):
            tts = services.GenerationPiperTTS(keep=keep)
            down, up = await run_test(tts, frames_to_send=[StampedSpeakFrame(
                text=text, generation=n + 1)])
            errors = [f.error for f in (*down, *up) if isinstance(f, ErrorFrame)]
            out.append(b"".join(f.audio for f in down if isinstance(f, TTSAudioRawFrame))
                       if not errors else errors[0].encode())
        return out


@pytest.mark.anyio
async def test_a_stock_sentence_is_synthesised_twice_then_spoken_from_its_kept_audio():
    voice = CountingVoice()
    first, second, third, fourth = await _speak(voice, [STOCK] * 4)
    assert voice.syntheses == 2
    assert third == fourth == second != first  # the second take, replayed whole
    assert len(third) > 0


@pytest.mark.anyio
async def test_without_keeping_every_sentence_is_synthesised():
    voice = CountingVoice()
    await _speak(voice, [STOCK] * 3, keep=False)
    assert voice.syntheses == 3


@pytest.mark.anyio
async def test_a_synthesis_that_breaks_off_is_never_kept():
    voice = CountingVoice(fail_after=1)
    said = await _speak(voice, [STOCK] * 3)
    assert voice.syntheses == 3
    assert all(b"speech synthesis failed on 'Let me check I have this right.'" in s
               for s in said)


@pytest.mark.anyio
async def test_another_voice_starts_afresh():
    from audio import services

    first, second = CountingVoice(), CountingVoice()
    await _speak(first, [STOCK] * 2)
    assert services.spoken_sentences(first).get(STOCK) is not None
    await _speak(second, [STOCK])
    assert second.syntheses == 1  # nothing of the first voice is spoken in the second


class HeldVoice(CountingVoice):
    """A synthesis that hands over nothing until ``go`` is set (a loaded machine)."""

    def __init__(self):
        super().__init__()
        import threading
        self.go = threading.Event()

    def synthesize(self, text):
        self.go.wait(timeout=60)  # set by the test's hook, never by a clock
        yield from super().synthesize(text)


async def _speak_held(stop_frame_timeout_s: float | None) -> list:
    """One sentence over a HeldVoice; the voice is let go once pipecat ended the sentence's
    audio context without audio (``stop_frame_timeout_s`` given) or once its start frame went
    out (the default: nothing ends it early). The frames sent downstream, in order."""
    from audio import services

    voice = HeldVoice()
    with _voice(voice):
        kwargs = {} if stop_frame_timeout_s is None else {
            "stop_frame_timeout_s": stop_frame_timeout_s}
        tts = services.GenerationPiperTTS(keep=False, **kwargs)
        end_context = tts._end_audio_context
        push_frame = tts.push_frame

        async def ended(context_id, playback):
            await end_context(context_id, playback)
            voice.go.set()

        async def pushed(frame, *args, **kw):
            await push_frame(frame, *args, **kw)
            if stop_frame_timeout_s is None and isinstance(frame, TTSStartedFrame):
                voice.go.set()

        tts._end_audio_context = ended  # type: ignore[method-assign]
        tts.push_frame = pushed  # type: ignore[method-assign]
        down, _ = await run_test(tts, frames_to_send=[StampedSpeakFrame(text=STOCK,
                                                                        generation=1)])
        return [type(f).__name__ for f in down
                if isinstance(f, (TTSStartedFrame, TTSStoppedFrame, TTSAudioRawFrame))]


@pytest.mark.anyio
async def test_a_slow_synthesis_is_not_ended_before_its_audio():
    """pipecat ends a sentence's audio context when no audio came for stop_frame_timeout_s
    (3 s by default): a loaded machine's Piper took longer, the gate took the early stop for
    the sentence's end, and a scripted caller answered before the question played. The
    service waits for its synthesis up to the hung-synthesizer bound instead."""
    from audio import services

    early = await _speak_held(0.05)  # the failure, as pipecat's 3 s default gave it
    assert early[:2] == ["TTSStartedFrame", "TTSStoppedFrame"]
    assert services.GenerationPiperTTS(keep=False)._stop_frame_timeout_s == \
        services.HUNG_SYNTHESIS_SECS >= 30
    whole = await _speak_held(None)
    assert whole[0] == "TTSStartedFrame" and whole[-1] == "TTSStoppedFrame"
    assert whole.count("TTSStoppedFrame") == 1 and "TTSAudioRawFrame" in whole
