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
from dataclasses import dataclass, replace
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
# Greedy decoding that never repeats a 3-token sequence: repetition loops ("Ready, ready,
# ready, ...") were most of the slow decodes. Measured on the voice set (16 voices x 20 value
# turns, one run, 15 s window), with one sample per fallback temperature then: WER 0.290 ->
# 0.282, recognition p95 642 -> 541 ms, mean 508 -> 387 ms. Without any fallback: p95 419-487
# ms but WER 0.295-0.50.
DECODING: dict[str, Any] = {"no_repeat_ngram_size": 3}
# The fallback is beam search, not sampling. faster-whisper falls back from a greedy decoding
# that looks wrong (too repetitive, or too unsure) to samples at rising temperatures, drawn
# from CTranslate2's per-thread random generator, which is seeded once and never again: the
# same audio came back as other words from one call to the next ("Wok the 200 F at last
# Monday." and "What the 200ft last Monday?", four calls, three transcripts). So a greedy
# decoding that looks wrong (compression ratio over COMPRESSION_CEILING, or mean token
# log-probability under LOGPROB_FLOOR where there is speech) is decoded again with a beam of
# FALLBACK_BEAM, and the likelier of the two kept. Same audio, same words. Measured on the
# voice set's 304 value turns (one core, in one run each): checks and wrong values unchanged
# (0.127 of 118 correct transcripts, 0), WER 0.205 / 0.205 on its turns and 0.571 -> 0.556 on
# its corrupted ones, recognition median 175 / 175 ms, p95 524 -> 493 ms.
FALLBACK_BEAM = 5
COMPRESSION_CEILING = 2.4  # faster-whisper's own thresholds for "looks wrong"
LOGPROB_FLOOR = -1.0
SILENCE_ABOVE = 0.6  # a no-speech probability over which an unsure decoding is silence
# Speech the words do not reach. Greedy decoding in one window sometimes ends the transcript
# while the caller is still speaking: "Could I have someone at P 200 tomorrow?" for a turn
# that goes on "Sorry, I keep saying two o'clock, I mean three o'clock sharp" (Piper), the
# correction lost. The teacher-forced alignment of the words (the pass that scores them) says
# where the last word ends; when more than UNHEARD_SECS of speech follows it, the rest of the
# audio is decoded again on its own, with the words so far as its prompt, and its words are
# appended. Measured on the seventeenth held-out set (audio.corpus, 208 turns): speech after
# the last word was 1.56-3.78 s in the four turns whose transcripts had stopped early, and at
# most 0.38 s in every other turn, noisy ones included.
UNHEARD_SECS = 1.0
# Hotwords are a prompt: Whisper reads them as the text said before the turn. That helps it
# write the caller's ids, and it also lowers the probability of words that do not go on from
# a list of ids, most of all the turn's first word ("Book P-100 for tomorrow at two pm" in an
# espeak-ng voice: " Book" 0.18 after the hotwords, 0.80 after no prompt, the same audio). So
# each token of the transcript is scored under both (the decoding's prompt and none) and keeps
# the higher: a word is heard as surely as the likelier context makes it. The turn's mean
# confidence stays the decoding's own: raised the same way, it let garbled transcripts pass
# (measured in docs/hearing.md).
UNBIASED_WORDS = True
# ... except for the turn's first word, where the prompt's pull is strongest and the turn has
# no words of its own before it yet: the mean confidence counts the first word's tokens at the
# likelier of the two priors. "Book P 100 for tomorrow at 2pm." (three espeak-ng renditions)
# scored 0.56-0.60 and was checked although heard word for word. Measured on one recording of
# the voice set and all 24 held-out sets (docs/hearing.md): checks on correct transcripts,
# voice set 0.119 -> 0.093, held-out 0.297 -> 0.290; wrong values 6 -> 6, none added.
UNBIASED_FIRST_WORD = True
AGAIN_AT_MOST = 2  # the most times the rest of one turn is decoded again
_FRAME_SAMPLES = 320  # 20 ms: one step of the alignment, and of the speech measure
_ALIGNMENT_STEPS_PER_SEC = 16000 // _FRAME_SAMPLES
_WORD_REACH_SECS = 0.3  # speech this close after the last word's aligned end is that word's
# A 20 ms frame is speech when its RMS is this many times the quietest tenth of the frames
# (the noise floor) and at least this share of the loudest frame's
_OVER_FLOOR = 4.0
_OF_PEAK = 0.05
# A turn that opens with a yes or a no: each answer however it may be written at the turn's
# start. What a yes/no question needs to know is whether the caller said yes or no, and a
# one-word answer is scored where the recogniser is least sure, at the start of a turn ("Yes."
# in one espeak-ng voice: " Yes" 0.33, " yes" 0.15, " No" 0.008). Heard.answer is the share
# of the answer written among both answers' forms.
_FORM_FLOOR = 0.001  # a form of an answer whose first token is less likely is left out
ANSWER_FORMS = {
    "yes": (" Yes", " yes", " YES", " Yeah", " yeah", " Yep", " yep", " Yup", " yup"),
    "no": (" No", " no", " NO", " Nope", " nope"),
}
_ANSWER_OF = {form.strip().lower(): name for name, forms in ANSWER_FORMS.items()
              for form in forms}  # "yeah": "yes"


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
    # seconds of speech after the last word that no decoding wrote words for (UNHEARD_SECS)
    unheard: float = 0.0
    # when the first word is a yes or a no: its share of both answers' probability at the
    # turn's start (ANSWER_FORMS); None otherwise
    answer: float | None = None


def recognise_with(model, audio: np.ndarray, *, hotwords: str | None = None,
                   initial_prompt: str | None = None, no_speech_prob: float = 0.6,
                   words: bool = True, again: int = AGAIN_AT_MOST,
                   unbiased: bool = UNBIASED_WORDS, opening: bool = True) -> Heard:
    """Blocking: what ``model`` (:func:`load_model`) hears in float32 16 kHz mono ``audio``.

    Decoding is greedy without timestamps (one window), the encoder's window shortened to
    ENCODER_WINDOW_SECS when the audio fits in it with room to spare. The decoded tokens are
    then aligned to the same encoder output and prompt (teacher-forced, what faster-whisper's
    ``word_timestamps`` computes, without its second pass over the trailing silence, which
    hallucinates words there). With ``words``, each word's probability is the mean of its
    tokens' probabilities in that pass. Where the alignment leaves more than UNHEARD_SECS of
    speech after the last word, the rest of the audio is decoded again (at most ``again``
    times) and its words appended; what is still left is ``Heard.unheard``. ``opening``: the
    audio starts the turn, so its first word counts at the likelier prior in the mean
    confidence (:data:`UNBIASED_FIRST_WORD`); the rest decoded again does not."""
    hotwords = as_sentence(hotwords)
    short = getattr(model, "short_window", None)  # None: a model without it (a test's)
    if short is not None:
        model.encoded.window = short(audio.size)
    try:
        segments = _decoded(model, audio, hotwords, initial_prompt)
    finally:
        if short is not None:
            model.encoded.window = None
    kept = [s for s in segments if s.no_speech_prob < no_speech_prob]
    if not kept:
        return Heard("", 0.0, max((s.no_speech_prob for s in segments), default=1.0))
    text = " ".join(s.text.strip() for s in kept).strip()
    aligned = _aligned_words(model, kept, audio.size, hotwords, initial_prompt, words,
                             unbiased) \
        if audio.size <= WINDOW_SAMPLES else None
    gain = aligned.first_gain if aligned is not None and opening and UNBIASED_FIRST_WORD \
        else 0.0
    # the decoding's mean token log-probability (faster-whisper divides by tokens + 1), the
    # first segment's with its first word at the likelier prior
    confidence = sum(math.exp(s.avg_logprob + (gain / (len(s.tokens) + 1) if i == 0 else 0.0))
                     for i, s in enumerate(kept)) / len(kept)
    heard = Heard(text, round(min(1.0, confidence), 3),
                  round(max(s.no_speech_prob for s in kept), 3),
                  aligned.words if aligned and words else (),
                  answer=aligned.answer if aligned else None)
    if aligned is None or aligned.end is None:
        return heard
    unheard = speech_after(audio, aligned.end + _WORD_REACH_SECS)
    if unheard < UNHEARD_SECS:
        return heard
    rest_from = int(aligned.end * 16000)
    rest = recognise_with(model, audio[rest_from:], hotwords=hotwords,
                          initial_prompt=" ".join(p for p in (initial_prompt, text) if p),
                          no_speech_prob=no_speech_prob, words=words,
                          again=again - 1, unbiased=unbiased, opening=False) \
        if again > 0 else None
    if rest is None or not rest.text:
        return replace(heard, unheard=round(unheard, 2))
    return _joined(heard, rest)


def _decoded(model, audio: np.ndarray, hotwords: str | None,
             initial_prompt: str | None) -> list:
    """The segments of a greedy decoding at temperature 0, or, when it looks wrong, of the
    likelier of it and a beam search (:data:`FALLBACK_BEAM`): never a random sample."""
    def decode(beam: int) -> list:
        segments, _ = model.transcribe(
            audio, language="en", beam_size=beam, hotwords=hotwords,
            initial_prompt=initial_prompt, condition_on_previous_text=False,
            without_timestamps=True, temperature=0.0, **DECODING)
        return list(segments)

    greedy = decode(1)
    if not any(_looks_wrong(s) for s in greedy):
        return greedy
    return max((greedy, decode(FALLBACK_BEAM)), key=_likelihood)


def _looks_wrong(segment) -> bool:
    """faster-whisper's test for a fallback: too repetitive, or too unsure where there is
    speech."""
    return segment.compression_ratio > COMPRESSION_CEILING or (
        segment.avg_logprob < LOGPROB_FLOOR and segment.no_speech_prob <= SILENCE_ABOVE)


def _likelihood(segments: list) -> tuple[bool, float]:
    """Not repetitive first, then the mean token log-probability."""
    return (not any(s.compression_ratio > COMPRESSION_CEILING for s in segments),
            sum(s.avg_logprob for s in segments) / max(1, len(segments)))


def speech_after(audio: np.ndarray, secs: float) -> float:
    """Seconds of speech in ``audio`` after ``secs``: 20 ms frames whose RMS stands well
    above the quietest tenth of the frames (the noise floor) and not far below the loudest
    (_OVER_FLOOR, _OF_PEAK). A measure of sound, not of words: coughs count too."""
    frames = audio.size // _FRAME_SAMPLES
    if frames == 0:
        return 0.0
    power = np.square(audio[:frames * _FRAME_SAMPLES].astype(np.float64)).reshape(
        frames, _FRAME_SAMPLES).mean(axis=1)
    rms = np.sqrt(power)
    loud = rms > max(_OVER_FLOOR * float(np.percentile(rms, 10)), _OF_PEAK * float(rms.max()))
    first = max(0, math.ceil(secs * 16000 / _FRAME_SAMPLES))
    return float(loud[first:].sum()) * _FRAME_SAMPLES / 16000


def _joined(first: Heard, rest: Heard) -> Heard:
    """``first`` followed by ``rest``, the rest of the same audio decoded again: the words and
    text in order, the confidence weighted by each one's words, the higher no-speech."""
    weights = (len(first.text.split()), len(rest.text.split()))
    confidence = (first.confidence * weights[0] + rest.confidence * weights[1]) / sum(weights)
    return Heard(f"{first.text} {rest.text}", round(confidence, 3),
                 max(first.no_speech, rest.no_speech), first.words + rest.words, rest.unheard,
                 first.answer)


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


@dataclass(frozen=True, slots=True)
class _Aligned:
    """Decoded words as the teacher-forced alignment scored and placed them."""

    words: tuple[tuple[str, float], ...]  # each word with the mean probability of its tokens
    end: float | None  # seconds into the audio where the last word ends (None: unknown)
    answer: float | None = None  # see Heard.answer
    # log-probability the first word's tokens gain under the likelier prior (UNBIASED_WORDS)
    first_gain: float = 0.0


def _aligned_words(model, segments, samples: int, hotwords: str | None,
                   initial_prompt: str | None, rescore: bool = True,
                   unbiased: bool = UNBIASED_WORDS) -> _Aligned | None:
    """Each word of ``segments`` with the mean probability of its tokens (punctuation
    dropped), teacher-forced on the encoder output of the decoding that produced them, and
    where the last word ends. ``rescore``: also score soft words written other ways
    (:func:`_marginalise`); without it the probabilities are the written way's alone.
    ``unbiased``: with hotwords, each token keeps the higher of its probabilities after them
    and after no prompt at all (:data:`UNBIASED_WORDS`)."""
    from faster_whisper.tokenizer import Tokenizer

    encoded = getattr(getattr(model, "encoded", None), "last", None)
    if encoded is None:
        return None
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual,
                          task="transcribe", language="en")
    tokens = [t for s in segments for t in s.tokens if t < tokenizer.eot]
    if not tokens:
        return None
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

    def first_step() -> np.ndarray | None:
        """The probability of each token of the vocabulary as the turn's first, after the
        decoding's prompt: one greedy decoder step, nothing suppressed."""
        step = model.model.generate(encoded, [prompt], max_length=len(prompt) + 1,
                                    beam_size=1, return_logits_vocab=True,
                                    suppress_blank=False, suppress_tokens=[])[0]
        if not step.logits or not step.logits[0]:
            return None
        logits = np.asarray(step.logits[0][0], dtype=np.float64).reshape(-1)
        exp = np.exp(logits - logits.max())
        return exp / exp.sum()

    first = model.model.align(encoded, prompt, [tokens], frames)[0]
    probabilities = list(first.text_token_probs)
    spelled, pieces = tokenizer.split_to_word_tokens(tokens)
    starts, start = [], 0
    for piece in pieces:
        starts.append(start)
        start += len(piece)
    soft = [i for i, (word, at) in enumerate(zip(spelled, starts, strict=True))
            if i > 0 and any(c.isalnum() for c in word) and at < len(probabilities)
            and probabilities[at] < RESCORE_BELOW
            and any(c.isalnum() for c in spelled[i - 1][-1:])]
    if soft and rescore:
        _marginalise(align, tokenizer, tokens, spelled, pieces, starts, soft, probabilities)
    if unbiased and hotwords:
        plain = model.get_prompt(tokenizer, previous, without_timestamps=True)
        free = model.model.align(encoded, plain, [tokens], frames)[0].text_token_probs
        first_word = len(pieces[0]) if pieces else 0
        gain = sum(math.log(max(p, biased)) - math.log(biased) for biased, p
                   in zip(probabilities[:first_word], free[:first_word], strict=True)
                   if biased > 0)
        probabilities = [max(biased, p) for biased, p in zip(probabilities, free, strict=True)]
    else:
        gain = 0.0
    out = []
    for word, piece, at in zip(spelled, pieces, starts, strict=True):
        end = at + len(piece)
        if any(c.isalnum() for c in word) and end <= len(probabilities):
            out.append((word.strip(), round(min(1.0, float(np.mean(probabilities[at:end]))), 3)))
    answer = _ANSWER_OF.get(spelled[0].strip().strip(".,!?").lower()) if spelled else None
    return _Aligned(tuple(out), _last_word_end(first.alignments, spelled, pieces, starts),
                    _answer_share(first_step, align, tokenizer, answer) if answer else None,
                    gain)


def _answer_share(first_step, align, tokenizer, answer: str) -> float | None:
    """``answer``'s share ("yes" or "no") of the probability of every form of either answer
    as the turn's first word (:data:`ANSWER_FORMS`). ``first_step()`` is the probability of
    every token of the vocabulary as the turn's first (one decoder step): a form of one token
    is read off it. A form of more tokens is scored teacher-forced (``align``) only when its
    first token reaches :data:`_FORM_FLOOR`; below it the form is at most that likely and is
    left out. Aligning all fourteen forms in one batch took 450 ms of a 550 ms recognition of
    "Yes, go ahead." (the slowest turns of a call); this takes about 15 ms."""
    probabilities = first_step()
    if probabilities is None:
        return None
    totals = dict.fromkeys(ANSWER_FORMS, 0.0)
    longer = []
    for name, forms in ANSWER_FORMS.items():
        for form in forms:
            tokens = tokenizer.encode(form)
            if len(tokens) == 1:
                totals[name] += float(probabilities[tokens[0]])
            elif probabilities[tokens[0]] >= _FORM_FLOOR:
                longer.append((name, tokens))
    if longer:
        for (name, _), scored in zip(longer, align(*(t for _, t in longer)), strict=True):
            totals[name] += float(np.prod(scored))
    both = sum(totals.values())
    return round(totals[answer] / both, 3) if both > 0 else None


def _last_word_end(alignments, spelled: list[str], pieces: list, starts: list[int]
                   ) -> float | None:
    """Seconds from the audio's start to the end of the last word that has a letter or digit
    in it, read off the alignment's (token, step) pairs (50 steps a second); None when the
    alignment does not place it."""
    last = max((i for i, word in enumerate(spelled) if any(c.isalnum() for c in word)),
               default=None)
    if last is None:
        return None
    token = starts[last] + len(pieces[last]) - 1
    steps = [step for index, step in alignments if index == token]
    return max(steps) / _ALIGNMENT_STEPS_PER_SEC if steps else None


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

