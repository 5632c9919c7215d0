"""Revision texts become passages (chunks) with stable ids and their ``when`` conditions.

A passage id is ``<revision>#<index>-<digest10>``: the revision it belongs to, its position,
and the first ten hex digits of the sha256 of its text. Revision content never changes under
an id (docs/registry-format.md), so re-chunking the same revision gives the same ids, and a citation
names exactly the words it quotes.

A section with a ``when`` condition (``{opened: "yes"}``) stamps that condition on each of its
passages. The corpus treats it as a hard filter on accepted fields, never as text to match.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from agent.core.errors import InvalidInput
from agent.core.ports import RevisionText

MAX_WORDS = 60  # one spoken answer's worth of evidence; long enough to keep a rule whole

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a revision; ``when`` is empty for text that always applies."""

    id: str
    text: str
    when: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SourceRevision:
    """What the corpus needs to know about one registry revision (plain data, no registry)."""

    revision: str
    digest: str
    language: str
    tenant: str
    roles: tuple[str, ...]
    sections: tuple[Section, ...]
    family: str = ""
    valid: tuple[tuple[int | str | None, int | str | None], ...] = ()
    equivalent_to: str | None = None

    @property
    def metadata(self) -> tuple[object, ...]:
        """The parts a registry correction may change without changing the content."""
        return (self.language, self.tenant, self.family, self.roles,
                tuple(tuple(v) for v in self.valid), self.equivalent_to)


@dataclass(frozen=True, slots=True)
class PassageRecord:
    revision: str
    index: int
    digest: str
    section: str
    when: tuple[tuple[str, str], ...]
    text: str

    @property
    def chunk(self) -> str:
        return f"{self.revision}#{self.index}-{self.digest[:10]}"


def source_of(item: RevisionText | SourceRevision | object) -> SourceRevision:
    """Adapt an ``agent.core.ports.RevisionText`` (or any object with the same attributes).

    Sections may be ``(id, when, text)`` triples (RevisionText), mappings or objects; a plain
    ``text`` attribute is one unconditional section. Raises InvalidInput naming the revision
    when there is nothing to index.
    """
    if isinstance(item, SourceRevision):
        return item
    revision = str(getattr(item, "revision", None) or getattr(item, "id", ""))
    if not revision:
        raise InvalidInput(f"revision text {item!r}: no revision id; pass RevisionText values")
    raw_sections = getattr(item, "sections", None) or ()
    sections = tuple(_section(revision, s) for s in raw_sections)
    text = getattr(item, "text", None)
    if not sections and text:
        sections = (Section("text", str(text)),)
    if not sections:
        raise InvalidInput(f"revision {revision}: no text and no sections to index")
    roles = tuple(sorted(str(r) for r in (getattr(item, "roles", None) or ())))
    return SourceRevision(
        revision=revision,
        digest=str(getattr(item, "digest", "") or _digest("".join(s.text for s in sections))),
        language=str(getattr(item, "language", "") or "en"),
        tenant=str(getattr(item, "tenant", "") or "*"),
        roles=roles,
        sections=sections,
        family=str(getattr(item, "family", "") or ""),
        valid=tuple(tuple(v) for v in (getattr(item, "valid", None) or ())),
        equivalent_to=getattr(item, "equivalent_to", None),
    )


def _section(revision: str, raw: object) -> Section:
    if isinstance(raw, tuple) and len(raw) == 3:  # RevisionText: (id, when, text)
        raw = {"id": raw[0], "when": raw[1], "text": raw[2]}
    get = raw.get if isinstance(raw, dict) else lambda k, d=None: getattr(raw, k, d)
    text = get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"revision {revision}: a section has no text")
    when = get("when") or ()
    pairs = when.items() if isinstance(when, dict) else when
    return Section(str(get("id") or "section"), text,
                   tuple(sorted((str(k), str(v)) for k, v in pairs)))


def chunk(source: SourceRevision, max_words: int = MAX_WORDS) -> tuple[PassageRecord, ...]:
    """Split every section into passages of whole sentences, at most ``max_words`` each.

    Pure and deterministic; a sentence longer than ``max_words`` stays whole (never cut a rule
    in half). Passages never span two sections, so a ``when`` condition covers whole passages.
    """
    out: list[PassageRecord] = []
    for section in source.sections:
        for text in _pack(_SENTENCE_END.split(section.text.strip()), max_words):
            out.append(PassageRecord(source.revision, len(out), _digest(text), section.id,
                                     section.when, text))
    return tuple(out)


def _pack(sentences: Iterable[str], max_words: int) -> list[str]:
    chunks: list[list[str]] = [[]]
    words = 0
    for sentence in (s.strip() for s in sentences):
        if not sentence:
            continue
        n = len(sentence.split())
        if chunks[-1] and words + n > max_words:
            chunks.append([])
            words = 0
        chunks[-1].append(" ".join(sentence.split()))
        words += n
    return [" ".join(c) for c in chunks if c]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
