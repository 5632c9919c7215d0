"""The answer desk: maintenance and return-policy questions, answered from evidence only.

Scope comes from the trusted asset record (configuration, region), the procedure words and the
requested language; tenant, roles and the authorisation epoch come from the session only. The
registry decides which revision applies, retrieval runs through the admission gate, and right
before an answer is spoken its freshness is checked again (field versions, auth epoch, registry
snapshot). Every method here runs under the call's lock except the background retrieval.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from agent.core.dependencies import Invalidation
from agent.core.gate import Disposition, GateMode, Stamp
from agent.core.ledger import FieldOp, LedgerSnapshot
from agent.core.names import (
    ASSET,
    ITEM_CATEGORY,
    LANGUAGE,
    PROCEDURE,
)
from agent.core.ports import (
    EvidenceBundle,
    ProcedureInfo,
    RegistryOutcome,
    Resolution,
    ResolutionQuery,
    Resolver,
    RetrievalOutcome,
    RetrievalRequest,
    RetrievalResult,
    Retriever,
)
from agent.core.speech import SpeechKind
from agent.service.answer_scope import (
    MISSING_TO_FIELD,
    OUTPUT_LANGUAGE,
    QUERY,
    RETURNS,
    Topic,
    missing_field,
    reads_of,
    resolution_query,
    scope_ops,
)
from agent.service.dialogue import CallContext
from agent.service.repair import field_question
from agent.service.scope_now import scope_now
from agent.service.spoken import language_name
from agent.service.vocabulary import HandoffReason

# The most documents a closed choice names ("Is it the seal torque, or something else?").
_NAMED_AT_MOST = 3


class AnswerDesk:
    def __init__(self, ctx: CallContext, resolver: Resolver, retriever: Retriever,
                 handoff: Callable[[HandoffReason, tuple[str, ...]], Awaitable[None]]):
        self.ctx = ctx
        self.resolver = resolver
        self.retriever = retriever
        self.handoff = handoff
        self.topic = Topic.NONE
        self.last_query: ResolutionQuery | None = None
        self.last_resolution: Resolution | None = None
        self.last_bundle: EvidenceBundle | None = None
        self.latest_request: str | None = None
        self.offered_language: str | None = None
        self.offered_person = False
        self._procedures: tuple[int, tuple[ProcedureInfo, ...]] | None = None

    def reads(self) -> tuple[str, ...]:
        return reads_of(self.topic)

    def stale_after(self, invalidation: Invalidation) -> bool:
        """Whether the revision changed a field the answer reads, for the topic it has now."""
        return invalidation.touches(self.reads())

    def scope_ops(self, snap: LedgerSnapshot, source: str) -> list[FieldOp]:
        """Configuration and region from the trusted asset record of the asset now meant
        (:func:`agent.service.answer_scope.scope_ops`)."""
        return scope_ops(self.topic, self.ctx.caller, snap)

    def query_of(self, snap: LedgerSnapshot) -> ResolutionQuery:
        """The resolution query: trusted session values plus accepted fields, nothing else."""
        return resolution_query(self.topic, self.ctx.caller, snap)

    def missing(self, snap: LedgerSnapshot) -> str | None:
        return missing_field(self.topic, snap)

    # -- pursuing a question -------------------------------------------------------------------
    async def pursue(self) -> None:
        """Resolve and retrieve for the question as the ledger holds it now."""
        ctx = self.ctx
        if self.topic is Topic.NONE or ctx.closed:
            return
        snap = ctx.ledger.current
        reads = self.reads()
        ctx.deps = ctx.deps.with_dependent(QUERY, reads).with_dependent(OUTPUT_LANGUAGE,
                                                                         (LANGUAGE,))
        missing = self.missing(snap)
        if missing is not None:
            self._ask(missing)
            return
        query = self.query_of(snap)
        resolution = self.resolver.resolve(query)
        self.last_query, self.last_resolution = query, resolution
        rid = ctx.next_id("r")
        ctx.emit("registry_resolved", request=rid, outcome=str(resolution.outcome),
                 historical=resolution.historical, label=resolution.label)
        outcome = resolution.outcome
        if outcome is RegistryOutcome.RESOLVED and resolution.token is not None:
            request = RetrievalRequest(
                stamp=Stamp.of(snap, reads, scope=resolution.token.cache_key, request=rid),
                token=resolution.token, text=self._query_text(snap), filters=query.fields)
            self.latest_request = rid
            ctx.say(("Let me check the applicable document.",), SpeechKind.WAITING, reads=reads)
            ctx.spawn(self._retrieve(request, resolution), f"retrieve:{rid}")
        elif outcome is RegistryOutcome.MISSING_SCOPE:
            self._ask(MISSING_TO_FIELD.get(resolution.missing[0] if resolution.missing
                                            else "procedure", PROCEDURE))
        elif outcome is RegistryOutcome.UNAVAILABLE:
            self.offered_person = True
            self._spoken(outcome, ("That document is restricted.",
                                   "A colleague with access can help you with it.",
                                   "Shall I put you through?"))
        elif outcome is RegistryOutcome.UNRESOLVED_AUTHORITY:
            self._spoken(outcome, ("The documents for this disagree.",
                                   "Nobody has decided yet which one applies, so I won't guess."))
            await self.handoff(HandoffReason.UNRESOLVED_AUTHORITY,
                               ("registry: unresolved authority",))
        elif outcome is RegistryOutcome.NO_EQUIVALENT_EDITION:
            original = resolution.language if resolution.language not in (
                None, query.language) else "en"
            self.offered_language = original
            self._spoken(outcome, (f"There's no reviewed {language_name(query.language)} "
                                   "edition of the document that applies.",
                                   f"I can give you the answer in {language_name(original)}.",
                                   "Would that help?"))
        else:
            self._spoken(outcome, ("No approved document covers that for your equipment.",
                                   f"That's {query.procedure} for configuration "
                                   f"{query.configuration} in region {query.region}."))

    async def _retrieve(self, request: RetrievalRequest, resolution: Resolution) -> None:
        try:
            result = await asyncio.wait_for(self.retriever.retrieve(request),
                                            self.ctx.options.retrieval_timeout_s)
        except TimeoutError:
            result = RetrievalResult(RetrievalOutcome.TIMEOUT, request.stamp.request)
        async with self.ctx.lock:
            self._use(request, resolution, result)

    def _use(self, request: RetrievalRequest, resolution: Resolution,
             result: RetrievalResult) -> None:
        ctx = self.ctx
        rid = request.stamp.request
        if result.outcome is RetrievalOutcome.OUT_OF_SCOPE and rid == self.latest_request \
                and self.current_scope() != request.stamp.scope:
            # The scope moved under the request (asset record, epoch, registry): ask again.
            ctx.emit("answer_withheld", request=rid, reason="scope_changed")
            ctx.spawn(self._re_pursue(refresh=True), f"re-resolve:{rid}")
            return
        if result.outcome in (RetrievalOutcome.STALE, RetrievalOutcome.CLOSED,
                              RetrievalOutcome.OUT_OF_SCOPE):
            return  # the gate discarded it; the newer question has its own request
        if result.outcome is RetrievalOutcome.TIMEOUT:
            if rid == self.latest_request:
                ctx.say(("The document search didn't answer in time.",
                         "I won't guess. Shall I try again?"), SpeechKind.INFO)
            return
        bundle = result.bundle
        if result.outcome is RetrievalOutcome.NO_ELIGIBLE_EVIDENCE or bundle is None \
                or not bundle.passages:
            if rid == self.latest_request and self.fresh(request.stamp, resolution) == "":
                self._spoken(RegistryOutcome.RESOLVED, (
                    "The applicable document doesn't cover that.", "I won't guess."))
            return
        reason = self.fresh(bundle.stamp, resolution)
        if reason:
            ctx.emit("answer_withheld", request=rid, reason=reason)
            if reason in ("auth_epoch", "registry_snapshot"):
                ctx.spawn(self._re_pursue(), f"re-resolve:{rid}")
            return
        self.last_bundle = bundle
        top = bundle.passages[0]
        label = resolution.label
        opener = ("Here's what the applicable document says." if label == "current"
                  else f"Here's what applied {label}.")
        sentences = (opener, *_sentences(top.text), f"Source: {top.citation.revision}.")
        citations = tuple(dict.fromkeys(c.revision for c in bundle.citations))
        ctx.say(sentences, SpeechKind.ANSWER, reads=self.reads(), citations=citations,
                outcome=str(RegistryOutcome.RESOLVED))
        ctx.emit("answer_spoken", request=rid, citations=list(citations),
                 outcome=str(RegistryOutcome.RESOLVED), label=label,
                 historical=resolution.historical)

    def fresh(self, stamp: Stamp, resolution: Resolution) -> str:
        """Why an answer may no longer be spoken ("" when it may). Checked right before speech."""
        ctx = self.ctx
        if ctx.gate.mode is GateMode.SHADOW:
            return ""  # a gate in shadow mode withholds nothing (agent.service.safeguards)
        if ctx.gate.admit(stamp) is not Disposition.CURRENT:
            return "field_versions"
        token = resolution.token
        if token is not None and token.auth_epoch != ctx.caller.auth_epoch:
            return "auth_epoch"
        if token is not None and token.known_at != self.resolver.snapshot:
            return "registry_snapshot"
        return ""

    def current_scope(self) -> str | None:
        """The scope key the question resolves to now (see :mod:`agent.service.scope_now`)."""
        last = self.last_resolution
        if last is None or last.token is None:
            return None
        snap = self.ctx.ledger.current
        asset = self.ctx.caller.asset(snap.value(ASSET) or "") \
            if self.topic is Topic.MAINTENANCE else None
        return scope_now(self.resolver, last, self.query_of(snap), asset)

    async def _re_pursue(self, *, refresh: bool = False) -> None:
        """Resolve again; ``refresh`` first takes configuration and region from the asset
        record as it is now (one new revision), so the new request has the new scope."""
        async with self.ctx.lock:
            ops = self.scope_ops(self.ctx.ledger.current, "asset_record") if refresh else []
            if ops:
                self.ctx.accept(ops, "asset_record")
            await self.pursue()

    # -- speech helpers ------------------------------------------------------------------------
    def _ask(self, field: str) -> None:
        # What was heard of the field and held back ("V-200" or "the pump" of two; "the seal
        # bolts" heard unclearly): the question names it, and every repair step after it
        candidates = self.ctx.held_back(field)
        names = tuple((info.procedure, f"the {info.title}") for info in self.procedures()
                      if field == PROCEDURE and info.procedure in candidates)
        # Nothing heard of it (a part no document covers: "the flange bolts"): a closed choice
        # of the ladder names what the documents do cover, and a yes or its name answers it
        options: tuple[str, ...] = ()
        if not candidates and field in (PROCEDURE, ITEM_CATEGORY):
            known = [info for info in self.procedures()
                     if (info.family == RETURNS) is (field == ITEM_CATEGORY)][:_NAMED_AT_MOST]
            options = tuple(info.procedure for info in known)
            names += tuple((info.procedure, f"the {info.title}") for info in known)
        self.ctx.ask(field_question(field, self.ctx.caller, candidates,
                                    heard=self.ctx.heard.pop(field, None), names=names,
                                    options=options))

    def _spoken(self, outcome: RegistryOutcome, sentences: tuple[str, ...]) -> None:
        self.ctx.say(sentences, SpeechKind.ANSWER, reads=self.reads(), outcome=str(outcome))
        self.ctx.emit("answer_spoken", citations=[], outcome=str(outcome))

    def _query_text(self, snap: LedgerSnapshot) -> str:
        procedure = snap.value(ITEM_CATEGORY if self.topic is Topic.POLICY else PROCEDURE) or ""
        for info in self.procedures():
            if info.procedure == procedure:
                return " ".join((info.title, *info.aliases))
        return procedure.replace("-", " ")

    def procedures(self) -> tuple[ProcedureInfo, ...]:
        """The registry's procedure titles and aliases (cached per registry snapshot)."""
        try:
            snapshot = self.resolver.snapshot
            if self._procedures is None or self._procedures[0] != snapshot:
                self._procedures = (snapshot, tuple(self.resolver.procedures()))
            return self._procedures[1]
        except Exception:  # noqa: BLE001 - titles only help understanding and query text
            return ()


def _sentences(text: str) -> tuple[str, ...]:
    """Split a passage into short sentences (fast first audio); never rewrite its content."""
    parts, current = [], []
    for word in " ".join(text.split()).split(" "):
        current.append(word)
        if word.endswith((".", "!", "?")):
            parts.append(" ".join(current))
            current = []
    if current:
        parts.append(" ".join(current))
    return tuple(p for p in parts if p)
