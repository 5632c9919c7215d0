"""What caller speech over agent speech was: a backchannel, noise, or a real turn.

Output pauses at speech onset (before anything is known); this decides afterwards whether to
resume the same generation or invalidate it. A wrong "turn" cuts the agent off for nothing
(a false cut-off); a wrong "backchannel" talks over a correction. So only short utterances
made entirely of acknowledgement words count as backchannels.
"""

from __future__ import annotations

import re
from enum import StrEnum

# "yes" and "sure" are left out on purpose: over the tail of a question they are answers.
BACKCHANNEL_WORDS = frozenset({
    "mm", "mhm", "mmhmm", "mmm", "hmm", "hm", "uh", "huh", "uhhuh", "um", "ok", "okay", "yeah",
    "yep", "right", "alright", "aha", "ah", "oh", "i", "see", "got", "it", "go", "on",
})
_CONTENT_PHRASES = ("go ahead",)  # an acknowledgement word pair that is an instruction
_MAX_WORDS = 3


class Overlap(StrEnum):
    NOISE = "noise"  # no words recognised: resume
    BACKCHANNEL = "backchannel"  # "mm-hmm", "okay", "yeah": resume the same generation
    TURN = "turn"  # anything else: invalidate the generation, hand the turn to the controller


def words(text: str) -> list[str]:
    """Lower-case words, hyphens and apostrophes joined ("mm-hmm" -> "mmhmm")."""
    return re.findall(r"[a-z0-9]+", re.sub(r"[-']", "", text.lower()))


def classify_overlap(text: str) -> Overlap:
    """Classify what the caller said while the agent was speaking. Pure."""
    tokens = words(text)
    if not tokens:
        return Overlap.NOISE
    phrase = " ".join(tokens)
    if any(p in phrase for p in _CONTENT_PHRASES):
        return Overlap.TURN
    if len(tokens) <= _MAX_WORDS and all(t in BACKCHANNEL_WORDS for t in tokens):
        return Overlap.BACKCHANNEL
    return Overlap.TURN


# Words a caller starts a correction with, then breathes: "Sorry, ...", "Actually, ...".
LEAD_INS = frozenset({"sorry", "actually", "wait", "no", "um", "uh", "well", "so", "oh",
                      "hang", "on", "hold", "erm", "hmm", "oops"})


def is_lead_in(text: str) -> bool:
    """True if ``text`` is only a lead-in ("Sorry.", "No, wait."): the turn is likely not over.
    Pure. Such a turn is held briefly instead of being handed to the controller at once."""
    tokens = words(text)
    return 0 < len(tokens) <= 2 and all(t in LEAD_INS for t in tokens)
