"""The audio of the sentences the agent says again and again, kept so they are not synthesised
each time.

Most replies start with one of a few stock sentences: "Let me check I have this right.",
"Let me check the applicable document.", "Okay.", "Thanks for calling.". Piper synthesises a
whole sentence before its first sample, so each costs its full synthesis (50 to 150 ms on
this 2-core machine) every time, at the head of the reply, where it adds to the caller's wait
(the "TTS first chunk" stage of ``amend bench --only audio``). Kept, it starts at once.

What is kept: a sentence's audio once the same text has been synthesised to its end twice.
A sentence that carries a booking reference, a date or a time rarely comes back word for
word, so it is never kept; a stock sentence is kept from its second saying on. The audio is
the voice's own output (16-bit PCM at the voice's rate), so a kept sentence sounds as
synthesised; Piper draws new noise at each synthesis, so a kept one is the same take each
time.

Bounded, for a demo that runs for days: at most ``max_bytes`` of audio (the least recently
spoken sentence goes first) and ``max_texts`` texts remembered as said once. A synthesis cut
short (a barge-in) is not offered. Thread-safe. Pure: no I/O, no model.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

MAX_BYTES = 8 * 1024 * 1024  # about 3 minutes of speech at Piper's 22.05 kHz
MAX_TEXTS = 512  # texts remembered as synthesised once (a few tens of KiB of strings)


class SpokenSentences:
    """Kept audio of repeated sentences (see the module's docstring)."""

    def __init__(self, max_bytes: int = MAX_BYTES, max_texts: int = MAX_TEXTS):
        if max_bytes < 0 or max_texts < 0:
            raise ValueError(f"max_bytes and max_texts must be >= 0, not {max_bytes}, "
                             f"{max_texts}")
        self.max_bytes, self.max_texts = max_bytes, max_texts
        self._lock = threading.Lock()
        self._audio: OrderedDict[str, tuple[bytes, ...]] = OrderedDict()
        self._once: OrderedDict[str, None] = OrderedDict()
        self._bytes = 0
        self.hits = 0  # sentences spoken from here
        self.misses = 0  # sentences synthesised

    @property
    def size(self) -> int:
        """Bytes of audio kept."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._audio)

    def get(self, text: str) -> tuple[bytes, ...] | None:
        """The kept audio of ``text`` (its chunks, in order), or None: synthesise it."""
        with self._lock:
            chunks = self._audio.get(text)
            if chunks is None:
                self.misses += 1
                return None
            self._audio.move_to_end(text)
            self.hits += 1
            return chunks

    def offer(self, text: str, chunks: Sequence[bytes]) -> bool:
        """``text`` was synthesised to its end as ``chunks``: keep it if it was synthesised
        once before and fits. Returns whether it is kept now."""
        with self._lock:
            if text in self._audio:
                return True
            if text not in self._once:
                self._once[text] = None
                while len(self._once) > self.max_texts:
                    self._once.popitem(last=False)
                return False
            size = sum(len(c) for c in chunks)
            if size == 0 or size > self.max_bytes:
                return False
            del self._once[text]
            while self._bytes + size > self.max_bytes:
                _, gone = self._audio.popitem(last=False)
                self._bytes -= sum(len(c) for c in gone)
            self._audio[text] = tuple(bytes(c) for c in chunks)
            self._bytes += size
            return True
