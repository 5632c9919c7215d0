"""The scripted speech corpus: what callers say in the acceptance pack, for WER and latency.

Word error rate compares normalised words: lower case, no punctuation, an asset id spoken
as letter + number ("P 100", "P-100", "p100") is one word, "two pm"-style numbers are left
as recognised (both spellings appear in transcripts; the controller parses either).
"""

from __future__ import annotations

import re

from audio.biasing import PROCEDURE_WORDS  # noqa: F401 - the words measured with it

CORPUS = (
    "I'd like a service visit for pump P 100 on Wednesday afternoon.",
    "Yes, please go ahead.",
    "Sorry, Thursday morning, not Wednesday.",
    "Can you move my booking to Friday?",
    "Cancel the visit for valve V 200.",
    "How often should I replace the valve gasket?",
    "Make it two units instead of one.",
    "No, the other pump, P 200.",
    "What is the torque for the flange bolts?",
    "Tomorrow at two pm works for me.",
    "Book pump P 100 for December third in the morning.",
    "Actually, make that the afternoon.",
)
ASSETS = ("P-100", "P-200", "V-200")

_ASSET = re.compile(r"\b([a-z])[\s-]?(\d{2,4})\b")
_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve").split()
_ORDINAL = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}


def normalise(text: str) -> list[str]:
    """Words to compare: "2pm" == "two pm" == "2 p.m.", "3rd" == "third", "P-100" == "p100"."""
    text = text.lower().replace("-", " ").replace("p.m.", "pm").replace("a.m.", "am")
    text = re.sub(r"\bp m\b", "pm", re.sub(r"\ba m\b", "am", text))
    text = _ASSET.sub(lambda m: m.group(1) + m.group(2), text)
    text = re.sub(r"\b(\d{1,2})(am|pm)\b", r"\1 \2", text)
    words = []
    for w in re.findall(r"[a-z0-9']+", text):
        if w.isdigit() and int(w) < len(_SMALL):
            w = _SMALL[int(w)]
        words.append(_ORDINAL.get(w, w))
    return words


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edit distance in words, reference word count). Pure."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[len(hyp)], len(ref)


def wer(pairs: list[tuple[str, str]]) -> float:
    """Corpus word error rate over (reference, hypothesis) pairs."""
    errors = total = 0
    for ref, hyp in pairs:
        e, n = word_errors(ref, hyp)
        errors, total = errors + e, total + n
    return errors / total if total else 0.0
