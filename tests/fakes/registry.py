"""An in-memory applicability registry: ``agent.core.ports.Resolver`` and ``RevisionSource`` with no
SQLite.

Registry YAML files are read with the real parser (``registry.parse.parse_file``: reading a
file is not what is being faked) and kept as one dictionary of revisions per knowledge-time
snapshot. Resolution is the six steps of docs/registry-format.md written again over those
dictionaries, in the same order, with the same outcomes:

1. scope present (tenant, family, procedure, configuration, region; in historical mode the
   instant) else MISSING_SCOPE naming what is missing;
2. candidates: approved, not translations, of the tenant or every tenant, whose applies entry
   covers procedure, configuration, region and instant (half-open) as known at ``known_at``;
   none: NOT_APPLICABLE;
3. authority: supersession edges (transitively, through any revision) leave exactly one, else
   UNRESOLVED_AUTHORITY;
4. the winner must be usable by the subject's roles (no fallback): else UNAVAILABLE;
5. the edition in the language asked: the winner itself or an approved reviewed translation
   of it that the roles may use, else NO_EQUIVALENT_EDITION;
6. RESOLVED with the winner, its edition, the valid interval of the applies entry that matched
   and a scope token.

An import that changes nothing is a no-op; a changed interpretation (status, roles, applies,
supersedes, equivalent_to) is a correction in a new snapshot, so ``known_at`` answers as the
registry knew it then (withdrawn revisions included). Not modelled: the cross-file checks of
an import (dangling references, cycles) and ``sections_for``; the fake trusts its files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from agent.core.clock import Clock, SystemClock
from agent.core.ports import (
    ProcedureInfo,
    RegistryOutcome,
    Resolution,
    ResolutionQuery,
    RevisionText,
)
from registry.errors import BadQuery
from registry.model import RegistryFile, RevisionSpec
from registry.parse import parse_file
from registry.timeaxis import TimeKind, TimeValueError, now_text, time_key
from registry.tokens import POLICY_VERSION, scope_token

WILDCARD = "*"


class _Common(TypedDict):
    """The fields every non-MISSING_SCOPE ``Resolution`` of one query shares."""

    known_at: int
    instant: str
    historical: bool


@dataclass(frozen=True, slots=True)
class _Candidate:
    id: str
    language: str
    roles: tuple[str, ...]
    valid: tuple[int | str | None, int | str | None]


def _usable(required: tuple[str, ...], subject: tuple[str, ...]) -> bool:
    return not required or bool(set(required) & set(subject))


class FakeRegistry:
    """Implements ``Resolver`` and ``RevisionSource`` over dictionaries, one per snapshot."""

    def __init__(self, clock: Clock | None = None, now_tick: int | None = None,
                 policy_version: str = POLICY_VERSION):
        self.clock = clock or SystemClock()
        self.now_tick = now_tick
        self.policy_version = policy_version
        self.name: str | None = None
        self.time_kind = TimeKind.TICKS
        self._states: list[dict[str, RevisionSpec]] = [{}]  # index = snapshot; 0 = empty
        self._families: dict[str, str] = {}  # family -> title (latest import)
        self._procedures: dict[tuple[str, str], tuple[str, tuple[str, ...], tuple[str, ...]]] \
            = {}  # (family, procedure) -> (title, aliases, family aliases)
        self._scoped: set[tuple[str, str]] = set()  # every (family, procedure) ever applied

    @classmethod
    def from_files(cls, paths: Iterable[str | Path], **kwargs) -> FakeRegistry:
        registry = cls(**kwargs)
        for path in paths:
            registry.load(path)
        return registry

    def load(self, source: str | Path | RegistryFile) -> int:
        """Import one registry file (a new snapshot only if something changed); the snapshot."""
        file = source if isinstance(source, RegistryFile) else parse_file(source)
        if self.name is None:
            self.name, self.time_kind = file.name, TimeKind(file.time)
        elif (file.name, file.time) != (self.name, self.time_kind.value):
            raise ValueError(f"{file.path}: registry {file.name!r} ({file.time}) does not fit "
                             f"{self.name!r} ({self.time_kind.value})")
        state = dict(self._states[-1])
        changed = len(self._states) == 1
        for spec in file.revisions:
            old = state.get(spec.id)
            if old is not None and (old.content, old.family, old.kind, old.language,
                                    old.tenant) != (spec.content, spec.family, spec.kind,
                                                    spec.language, spec.tenant):
                raise ValueError(f"{file.path}: revision {spec.id!r}: only its interpretation "
                                 "can be corrected")
            if old is None or old.interp.canonical() != spec.interp.canonical():
                state[spec.id] = spec
                changed = True
        for p in file.procedures:
            words = (p.title, tuple(p.aliases), tuple(p.family_aliases))
            if self._procedures.get((p.family, p.procedure)) != words \
                    or self._families.get(p.family) != p.family_title:
                self._procedures[(p.family, p.procedure)] = words
                self._families[p.family] = p.family_title
                changed = True
        if changed:
            self._states.append(state)
            self._scoped |= {(s.family, a.procedure) for s in state.values()
                             for a in s.interp.applies}
        return self.snapshot

    def close(self) -> None:
        return None

    @property
    def snapshot(self) -> int:
        return len(self._states) - 1

    # -- resolution ------------------------------------------------------------------------------
    def _known_at(self, query: ResolutionQuery) -> int:
        if query.known_at is None:
            return self.snapshot
        if not 0 <= query.known_at <= self.snapshot:
            raise BadQuery(f"known_at {query.known_at}: no such registry snapshot "
                           f"(latest is {self.snapshot})")
        return query.known_at

    def _instant(self, query: ResolutionQuery) -> tuple[str, int] | None:
        if query.mode not in ("current", "historical"):
            raise BadQuery(f"mode {query.mode!r}: use 'current' or 'historical'")
        if query.at is None or str(query.at).strip() == "":
            if query.mode == "historical":
                return None
            if self.time_kind is TimeKind.TICKS:
                if self.now_tick is None:
                    raise BadQuery("current mode in a ticks registry needs 'now' as a tick")
                return str(self.now_tick), self.now_tick
            text = now_text(self.time_kind, self.clock.now())
        else:
            text = str(query.at).strip()
        try:
            return text, time_key(self.time_kind, text, from_text=True)
        except TimeValueError as exc:
            raise BadQuery(f"instant {text!r}: {exc}") from None

    def resolve(self, query: ResolutionQuery) -> Resolution:
        historical = query.mode == "historical"
        known_at = self._known_at(query)
        missing = tuple(name for name in ("tenant", "family", "procedure", "configuration",
                                          "region") if not getattr(query, name))
        instant = self._instant(query)
        if instant is None:
            missing += ("at",)
        if missing:
            return Resolution(RegistryOutcome.MISSING_SCOPE, known_at=known_at,
                              instant=instant[0] if instant else "", historical=historical,
                              missing=missing)
        assert instant is not None  # no instant puts "at" in missing, answered above
        text, key = instant
        base: _Common = {"known_at": known_at, "instant": text, "historical": historical}
        state = self._states[known_at]
        candidates = [c for c in (self._candidate(spec, query, key)
                                  for _, spec in sorted(state.items())) if c is not None]
        if not candidates:
            return Resolution(RegistryOutcome.NOT_APPLICABLE, **base)
        if len(candidates) > 1:
            left = self._undominated([c.id for c in candidates], state, query)
            candidates = [c for c in candidates if c.id in left]
            if len(candidates) > 1:
                return Resolution(RegistryOutcome.UNRESOLVED_AUTHORITY, **base)
        winner = candidates[0]
        if not _usable(winner.roles, query.roles):
            return Resolution(RegistryOutcome.UNAVAILABLE, **base)
        edition = winner.id if query.language == winner.language else None
        if edition is None:
            edition = next((spec.id for _, spec in sorted(state.items())
                            if spec.interp.equivalent_to == winner.id
                            and spec.language == query.language and spec.kind == "translation"
                            and spec.interp.status == "approved"
                            and spec.tenant in (WILDCARD, query.tenant)
                            and _usable(spec.interp.roles, query.roles)), None)
            if edition is None:
                return Resolution(RegistryOutcome.NO_EQUIVALENT_EDITION, **base)
        allowed = (winner.id,) if edition == winner.id else (winner.id, edition)
        token = scope_token(query, text, known_at, allowed, self.policy_version)
        return Resolution(RegistryOutcome.RESOLVED, revision=winner.id, edition=edition,
                          language=query.language, valid=winner.valid, token=token, **base)

    @staticmethod
    def _candidate(spec: RevisionSpec, query: ResolutionQuery, key: int) -> _Candidate | None:
        it = spec.interp
        if it.status != "approved" or spec.kind == "translation" or spec.family != query.family \
                or spec.tenant not in (WILDCARD, query.tenant):
            return None
        for scope in it.applies:  # the first applies entry that covers the request
            if scope.procedure == query.procedure \
                    and (query.configuration in scope.configurations
                         or WILDCARD in scope.configurations) \
                    and (query.region in scope.regions or WILDCARD in scope.regions) \
                    and scope.from_key <= key and (scope.to_key is None or key < scope.to_key):
                return _Candidate(spec.id, spec.language, tuple(it.roles),
                                  (scope.valid_from, scope.valid_to))
        return None

    @staticmethod
    def _undominated(ids: list[str], state: dict[str, RevisionSpec],
                     query: ResolutionQuery) -> set[str]:
        """Candidates no other candidate supersedes, through any chain of reviewed edges."""
        beats: dict[str, list[str]] = {}
        for spec in state.values():
            if spec.family != query.family:
                continue
            for edge in spec.interp.supersedes:
                if edge.procedure == query.procedure:
                    beats.setdefault(spec.id, []).append(edge.revision)
        beaten: set[str] = set()
        for start in ids:
            seen: set[str] = set()
            todo = list(beats.get(start, ()))
            while todo:
                node = todo.pop()
                if node not in seen:
                    seen.add(node)
                    todo.extend(beats.get(node, ()))
            beaten |= (seen & set(ids)) - {start}
        return set(ids) - beaten

    # -- catalogue -------------------------------------------------------------------------------
    def procedures(self) -> tuple[ProcedureInfo, ...]:
        declared = tuple(ProcedureInfo(f, self._families[f], p, title, aliases)
                         for (f, p), (title, aliases, _) in sorted(self._procedures.items()))
        others = tuple(ProcedureInfo(f, f, p, p) for f, p in sorted(self._scoped)
                       if (f, p) not in self._procedures)
        return declared + others

    def revision_texts(self) -> tuple[RevisionText, ...]:
        out = []
        for _, rev in sorted(self._states[-1].items()):
            it = rev.interp
            out.append(RevisionText(
                id=rev.id, family=rev.family, language=rev.language, tenant=rev.tenant,
                roles=it.roles, kind=rev.kind, digest=rev.digest,
                valid=tuple((s.valid_from, s.valid_to) for s in it.applies),
                sections=rev.sections, status=it.status, equivalent_to=it.equivalent_to,
                procedures=tuple(dict.fromkeys(s.procedure for s in it.applies))))
        return tuple(out)
