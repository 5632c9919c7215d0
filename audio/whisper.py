"""Whisper alone: the model, how a turn is decoded and how its words are scored.

Nothing here imports pipecat, so a process that only recognises speech
(:mod:`audio.whisper_host`) loads this and the model, not the pipeline.
:mod:`audio.services` keeps the process-wide model and the queue in front of it, and
re-exports these names.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from audio import models

WINDOW_SAMPLES = 30 * 16000  # one Whisper window: word probabilities are scored within it
# A word scored below this right after another word is also scored written after a comma and
# as the start of a sentence (see _marginalise).
RESCORE_BELOW = 0.9
# The encoder's window. Whisper pads every input to a 30 s window and encodes all of it; on
# tiny.en the encoder is most of a short turn's time (0.66 s of 0.85 s on one core). The
# encoder takes a shorter window as well (its first positions): 15 s halves the work and loses
# nothing measurable on this project's voice set (audio.voices.voice_set(): 16 voices x 32 turns
# of audio.corpus, one run on one core): WER 0.264 / 0.257 / 0.257, first word kept 0.754 /
# 0.758 / 0.770, recognition p50 790 / 348 / 302 ms at 30 / 15 / 12.5 s. At 10 s it breaks
# (WER 0.48 on a third of those turns: repetition loops). A turn that leaves less than
# ENCODER_SPARE_SECS of the window as padding gets the full 30 s.
# ``AMEND_WHISPER_WINDOW_SECS`` sets it (12-30; 30 = Whisper as trained); another model should
# be measured before it is shortened (`amend bench --only audio`).
WINDOW_ENV = "AMEND_WHISPER_WINDOW_SECS"
ENCODER_WINDOW_SECS = 15.0
ENCODER_WINDOW_RANGE = (12.0, 30.0)
ENCODER_SPARE_SECS = 2.0
# Greedy decoding that never repeats a 3-token sequence, and one sample per fallback
# temperature (faster-whisper's default draws five): repetition loops ("Ready, ready, ready,
# ...") were most of the slow decodes. Measured on the voice set (16 voices x 20 value turns,
# one run, 15 s window): WER 0.290 -> 0.282, recognition p95 642 -> 541 ms, mean 508 -> 387 ms.
# Without the fallback at all: p95 419-487 ms but WER 0.295-0.50.
DECODING: dict[str, Any] = {"no_repeat_ngram_size": 3, "best_of": 1}


def encoder_window_secs() -> float:
    """The encoder window in seconds: ``AMEND_WHISPER_WINDOW_SECS`` or the default. A value
    that is not a number in ENCODER_WINDOW_RANGE raises :class:`~audio.models.SettingError`
    naming the variable."""
    raw = os.environ.get(WINDOW_ENV, "").strip()
    if not raw:
        return ENCODER_WINDOW_SECS
    low, high = ENCODER_WINDOW_RANGE
    try:
        secs = float(raw)
    except ValueError:
        secs = math.nan
    if not low <= secs <= high:  # NaN fails too
        raise models.SettingError(
            f"{WINDOW_ENV}={raw!r}: give the Whisper encoder window in seconds, a number "
            f"from {low:g} to {high:g} (30 = the full window Whisper was trained on; "
            f"default {ENCODER_WINDOW_SECS:g})")
    return secs



def load_model(cpu_threads: int = 1, num_workers: int = 2):
    """A faster-whisper model from :func:`audio.models.whisper_model_dir` (int8 on the CPU),
    encoding short turns in the :func:`encoder_window_secs` window. Blocking: loads it."""
    model_class = _aligning_model_class(encoder_window_secs())
    return model_class(str(models.whisper_model_dir()), device="cpu", compute_type="int8",
                       cpu_threads=cpu_threads, num_workers=num_workers)


def _aligning_model_class(window_secs: float) -> type:
    """faster-whisper's ``WhisperModel``, encoding a short turn in a ``window_secs`` window
    (ENCODER_WINDOW_SECS) and keeping each thread's last encoder output, so the words of a
    transcript can be scored against it without encoding the audio again."""
    from faster_whisper import WhisperModel

    class AligningWhisperModel(WhisperModel):
        encoded = threading.local()  # per thread: transcriptions run in worker threads

        def encode(self, features):
            frames = getattr(self.encoded, "window", None)
            if frames is not None and features.shape[-1] > frames:
                features = features[..., :frames]  # the rest is padding (see short_window)
            output = super().encode(features)
            self.encoded.last = output
            return output

        def short_window(self, samples: int) -> int | None:
            """The encoder frames for a transcription of ``samples`` samples: the short
            window when the audio leaves ENCODER_SPARE_SECS of it as padding, else None
            (the full window)."""
            hop, rate = self.feature_extractor.hop_length, self.feature_extractor.sampling_rate
            frames = int(window_secs * rate) // hop // 2 * 2  # the encoder halves the frames
            full = self.feature_extractor.nb_max_frames
            fits = samples + int(ENCODER_SPARE_SECS * rate) <= int(window_secs * rate)
            return frames if fits and frames < full else None

    return AligningWhisperModel


@dataclass(frozen=True, slots=True)
class Heard:
    """What Whisper heard in some audio. Empty ``text`` = no speech."""

    text: str
    confidence: float  # mean token probability of the kept segments
    no_speech: float = 1.0  # the highest no-speech probability of the kept segments
    words: tuple[tuple[str, float], ...] = ()  # each word with its probability, in order


def recognise_with(model, audio: np.ndarray, *, hotwords: str | None = None,
                   initial_prompt: str | None = None, no_speech_prob: float = 0.6,
                   words: bool = True) -> Heard:
    """Blocking: what ``model`` (:func:`load_model`) hears in float32 16 kHz mono ``audio``.

    Decoding is greedy without timestamps (one window), the encoder's window shortened to
    ENCODER_WINDOW_SECS when the audio fits in it with room to spare. With ``words``, each word's
    probability is the mean of its tokens' probabilities, scored against the same encoder
    output and prompt the decoding used (what faster-whisper's ``word_timestamps`` computes,
    without its second pass over the trailing silence, which hallucinates words there)."""
    hotwords = as_sentence(hotwords)
    short = getattr(model, "short_window", None)  # None: a model without it (a test's)
    if short is not None:
        model.encoded.window = short(audio.size)
    try:
        segments, _ = model.transcribe(
            audio, language="en", beam_size=1, hotwords=hotwords,
            initial_prompt=initial_prompt, condition_on_previous_text=False,
            without_timestamps=True, **DECODING)
        segments = list(segments)
    finally:
        if short is not None:
            model.encoded.window = None
    kept = [s for s in segments if s.no_speech_prob < no_speech_prob]
    if not kept:
        return Heard("", 0.0, max((s.no_speech_prob for s in segments), default=1.0))
    text = " ".join(s.text.strip() for s in kept).strip()
    confidence = sum(math.exp(s.avg_logprob) for s in kept) / len(kept)
    scored = _word_probabilities(model, kept, audio.size, hotwords, initial_prompt) \
        if words and audio.size <= WINDOW_SAMPLES else ()
    return Heard(text, round(min(1.0, confidence), 3),
                 round(max(s.no_speech_prob for s in kept), 3), scored)


def as_sentence(hotwords: str | None) -> str | None:
    """The hotwords as a finished sentence: "P 100 P 200 ... Rotterdam." Whisper reads them as
    the text before the turn; left open, it tends to go on with them and the turn's first
    word is lost or garbled ("Could you send..." -> "Road, you send..."). Measured on the
    voice set (OPENINGS and EXPECTED_VALUES, 4 voices, 0.25 s lead-in): first word kept
    0.73 -> 0.84, WER 0.175 -> 0.164 (no hotwords at all: 0.89, WER 0.226)."""
    if hotwords is None or not hotwords.strip():
        return hotwords
    text = hotwords.strip()
    return text if text[-1] in ".?!" else text + "."


def _word_probabilities(model, segments, samples: int, hotwords: str | None,
                        initial_prompt: str | None) -> tuple[tuple[str, float], ...]:
    """Each word of ``segments`` with the mean probability of its tokens (punctuation
    dropped), teacher-forced on the encoder output of the decoding that produced them."""
    from faster_whisper.tokenizer import Tokenizer

    encoded = getattr(getattr(model, "encoded", None), "last", None)
    if encoded is None:
        return ()
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual,
                          task="transcribe", language="en")
    tokens = [t for s in segments for t in s.tokens if t < tokenizer.eot]
    if not tokens:
        return ()
    previous = tokenizer.encode(" " + initial_prompt.strip()) if initial_prompt else []
    prompt = model.get_prompt(tokenizer, previous, without_timestamps=True, hotwords=hotwords)
    frames = min(model.feature_extractor.nb_max_frames,
                 samples // model.feature_extractor.hop_length)
    def align(*sequences: list[int]) -> list[list[float]]:
        """Teacher-forced token probabilities of each sequence, in one batch."""
        features = encoded
        if len(sequences) > 1:
            import ctranslate2
            features = ctranslate2.StorageView.from_array(
                np.repeat(np.asarray(encoded), len(sequences), axis=0))
        return [list(r.text_token_probs) for r in
                model.model.align(features, prompt, list(sequences), frames)]

    probabilities = align(tokens)[0]
    spelled, pieces = tokenizer.split_to_word_tokens(tokens)
    starts, start = [], 0
    for piece in pieces:
        starts.append(start)
        start += len(piece)
    soft = [i for i, (word, at) in enumerate(zip(spelled, starts, strict=True))
            if i > 0 and any(c.isalnum() for c in word) and at < len(probabilities)
            and probabilities[at] < RESCORE_BELOW
            and any(c.isalnum() for c in spelled[i - 1][-1:])]
    if soft:
        _marginalise(align, tokenizer, tokens, spelled, pieces, starts, soft, probabilities)
    out = []
    for word, piece, at in zip(spelled, pieces, starts, strict=True):
        end = at + len(piece)
        if any(c.isalnum() for c in word) and end <= len(probabilities):
            out.append((word.strip(), round(min(1.0, float(np.mean(probabilities[at:end]))), 3)))
    return tuple(out)


def _capitalised(word: str) -> str:
    body = word.lstrip()
    return word[:len(word) - len(body)] + body[:1].upper() + body[1:]


def _marginalise(align, tokenizer, tokens: list[int], spelled: list[str], pieces: list,
                 starts: list[int], soft: list[int], probabilities: list[float]) -> None:
    """Give each word in ``soft`` the probability of being *that word*, however written.

    A word is what the caller said; the punctuation before it and the case of its first
    letter are the recogniser's guesses at a pause and a sentence break, and are dropped from
    the words. Scored alone, a word right after a spot where the model hesitated between
    " Monday", ", Monday" and ". Monday" only gets the share of the way it was written ("P 100
    Monday morning": "Monday" 0.28-0.48 across renditions of the same sentence, 0.97 in those
    where a comma was written; "morning" 0.24-0.47 where ". Morning" was as likely). So each
    soft word is also scored written after a comma and as the start of a new sentence (one
    batched teacher-forced pass), each way's probability (mark and word tokens) is added to the
    written one's, and the word's first-token probability becomes that sum over the
    probability of its remaining tokens (capped at 1 by the caller)."""
    by_start = {starts[i]: i for i in soft}
    variants, wheres = [], []
    for mark, spell in ((",", str), (".", _capitalised)):
        variant, where = [], {}
        mark_tokens = tokenizer.encode(mark)
        index = 0
        while index < len(tokens):
            i = by_start.get(index)
            if i is None:
                variant.append(tokens[index])
                index += 1
                continue
            word_tokens = tokenizer.encode(spell(spelled[i]))
            where[i] = (len(variant), len(mark_tokens) + len(word_tokens))
            variant += mark_tokens + word_tokens
            index += len(pieces[i])
        # The decoder is causal: nothing after the last soft word changes its probability,
        # and a shorter sequence is scored sooner.
        variants.append(variant[:max(at + length for at, length in where.values())])
        wheres.append(where)
    for scored, where in zip(align(*variants), wheres, strict=True):
        for i, (at, length) in where.items():
            if at + length > len(scored):
                continue
            way = float(np.prod(scored[at:at + length]))
            rest = float(np.prod(probabilities[starts[i] + 1:starts[i] + len(pieces[i])]))
            if rest > 0:
                probabilities[starts[i]] += way / rest

