"""Running scripted calls: one isolated world per call, turns on triggers, judged at the end.

:func:`run_call` never raises for anything a script, a fixture or the agent can cause: a
script or fixture problem (a caller audio file that cannot be played included, even one
found only when its turn comes), a trigger that never fires or a call that does not end is
INVALID; an exception raised by the agent itself is a product FAIL. Side effects: the world
factory's (a sandbox and a registry per call) and, with ``artifacts``, one folder per call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from agent.core.clock import FixedClock
from agent.core.errors import InvalidInput
from agent.core.trace import Trace
from agent.service.controls import AgentFaults, agent_faults
from audio.calls.evidence import CallResult, Evidence, Verdict, invalid, ledger_fields
from audio.calls.mode import CallMode, ModeFactory, TurnUnplayable
from audio.calls.script import CallScript, ScriptInvalid, StaffEdit, Turn, load_script
from audio.calls.triggers import Watcher
from audio.calls.world import CallWorld, WorldFactory, WorldSpec

END_QUIET_S = 2.0  # the agent must be idle this long to end (docs/call-scripts.md, "Run semantics")
END_LIMIT_S = 60.0  # ... within this long after the last turn, or the call is INVALID
TURN_GAP_S = 0.5  # a caller answers this long after the agent went quiet
SPEECH_LIMIT_S = 60.0  # an agent that never stops talking makes the call INVALID


class _Invalid(Exception):
    """The harness cannot judge this call."""


class _AgentCrashed(Exception):
    """The agent raised while handling the call (a product failure)."""


async def run_call(script: CallScript, mode_name: str, world_factory: WorldFactory,
                   mode_factory: ModeFactory, *, artifacts: Path | None = None) -> CallResult:
    """Run one validated script in one fresh world and judge it."""
    from audio.calls.judge import judge

    started = time.monotonic()
    file = str(script.path)
    try:
        switches = agent_faults(list(script.agent_faults))
    except InvalidInput as exc:
        return invalid(script.id, file, mode_name, f"{script.path}: {exc}")
    trace = Trace(debug=True)  # synthetic test data: values stay readable in the artifacts
    mode = mode_factory(trace)
    spec = WorldSpec(script.id, script.caller, FixedClock(script.clock), script.registry,
                     script.bookings, script.faults, switches)
    evidence: Evidence | None = None
    reasons: list[str] = []
    crash: str | None = None
    try:
        try:
            manager = world_factory(spec, mode.sink, trace)
            world = await manager.__aenter__()
        except Exception as exc:  # noqa: BLE001 - any setup failure means no judgeable run
            return invalid(script.id, file, mode_name,
                           f"fixture did not set up: {type(exc).__name__}: {exc}",
                           duration_s=time.monotonic() - started)
        try:
            evidence, reasons, crash = await _drive(script, mode, world, trace, switches)
        finally:
            try:
                await world.conversation.close()
            finally:
                await manager.__aexit__(None, None, None)
    except Exception as exc:  # noqa: BLE001 - a harness failure is never a product result
        reasons.append(f"harness error: {type(exc).__name__}: {exc}")
    finally:
        await mode.close()
    duration = time.monotonic() - started
    if evidence is not None:
        evidence = replace(evidence, heard=mode.heard(), latency_ms=mode.latency_ms())
    if artifacts is not None and evidence is not None:
        from audio.calls.artifacts import write_artifacts
        write_artifacts(artifacts / script.id, evidence, mode)
    if reasons or evidence is None:
        result = invalid(script.id, file, mode_name, *(reasons or ["no evidence collected"]),
                         evidence=evidence, duration_s=duration)
        if evidence is None:
            return result
        # Not a verdict: what the records already showed when the harness had to give up.
        seen = judge(script, evidence, mode_name).violations
        return replace(result, notes=tuple(f"observed before the run became invalid: {v}"
                                           for v in seen), latency_ms=evidence.latency_ms)
    result = judge(script, evidence, mode_name)
    if crash is not None:
        result = replace(result, verdict=Verdict.FAIL,
                         violations=(crash,) + result.violations)
    return replace(result, duration_s=duration, latency_ms=evidence.latency_ms)


async def _drive(script: CallScript, mode: CallMode, world: CallWorld, trace: Trace,
                 switches: AgentFaults):
    """Play the turns and staff edits, wait for the end of the call, collect evidence."""
    conversation = world.conversation
    mode.attach(conversation, switches)
    watcher = Watcher(trace, mode, conversation)
    reasons: list[str] = []
    crash: str | None = None
    bookings_before = tuple(await world.bookings())
    notifications_before = tuple(await world.notifications())
    staff_done: list[str] = []
    staff = [asyncio.create_task(_staff_edit(edit, world, watcher, staff_done))
             for edit in script.staff_edits]
    taking: list[asyncio.Task] = []
    try:
        await _agent(conversation.start(), "greeting")
        # A caller does not wait for the agent to finish thinking before speaking again: a
        # triggered turn may reach the agent while it still handles the previous one (the
        # agent's own lock keeps them in order). A turn without a trigger waits for it.
        for turn in script.turns:
            if turn.after is None and taking:
                await taking[-1]
            delivered = await _turn(turn, mode, watcher, trace, taking[-1] if taking else None,
                                    script.path)
            if delivered is not None:
                delivered.add_done_callback(lambda t: _crashed(t, watcher))
                taking.append(delivered)
        await asyncio.gather(*taking)
        if not await watcher.quiet_for(END_QUIET_S, END_LIMIT_S, idle=True):
            raise _Invalid(f"the call did not end: the agent was not idle for {END_QUIET_S:g} s "
                           f"within {END_LIMIT_S:g} s after the last turn")
    except _Invalid as exc:
        reasons.append(str(exc))
    except _AgentCrashed as exc:
        crash = str(exc)
    finally:
        for task in taking:  # a turn still being taken when the run gave up
            if not task.done():
                task.cancel()
        for outcome in await asyncio.gather(*taking, return_exceptions=True):
            if isinstance(outcome, _AgentCrashed) and crash is None:
                crash = str(outcome)  # the agent's failure explains what followed
                reasons.clear()
            elif isinstance(outcome, _Invalid) and str(outcome) not in reasons and crash is None:
                reasons.insert(0, str(outcome))  # a turn that could not be played: the cause
        for task in staff:
            task.cancel()
        outcomes = await asyncio.gather(*staff, return_exceptions=True)
        watcher.detach()
    for edit, outcome in zip(script.staff_edits, outcomes, strict=True):
        if isinstance(outcome, _Invalid):
            reasons.append(str(outcome))
        elif isinstance(outcome, asyncio.CancelledError) and not edit.optional and not reasons:
            reasons.append(f"{script.path}:{edit.line}: staff edit of {edit.booking!r}: its "
                           f"trigger {edit.after.describe()} never fired during the call")
        elif isinstance(outcome, Exception):
            reasons.append(f"{script.path}:{edit.line}: staff edit of {edit.booking!r} failed: "
                           f"{type(outcome).__name__}: {outcome}")
    evidence = Evidence(
        events=tuple(trace.events), heard=mode.heard(), bookings_before=bookings_before,
        bookings=tuple(await world.bookings()), notifications_before=notifications_before,
        notifications=tuple(await world.notifications()),
        fields=ledger_fields(conversation.ledger.current), staff_refs=tuple(staff_done),
        transcripts=mode.transcripts(), world_meta=dict(world.meta()))
    return evidence, reasons, crash


def _crashed(task: asyncio.Task, watcher: Watcher) -> None:
    if task.cancelled():
        return
    if isinstance(task.exception(), _AgentCrashed):
        watcher.abort(str(task.exception()))
    elif isinstance(task.exception(), _Invalid):  # its audio could not be played
        watcher.abort(str(task.exception()), harness=True)


async def _agent(awaitable, what: str, script: Path | None = None) -> None:
    try:
        await awaitable
    except TurnUnplayable as exc:  # the caller's input, not the agent: the harness gives up
        raise _Invalid(exc.cite(script) if script is not None else str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - the product raised: that is its failure
        raise _AgentCrashed(f"the agent raised on {what}: {type(exc).__name__}: {exc}") from exc


async def _turn(turn: Turn, mode: CallMode, watcher: Watcher, trace: Trace,
                previous: asyncio.Task | None, script: Path | None = None,
                ) -> asyncio.Task | None:
    """Wait for the turn's moment, then hand it over; returns the task taking it (or None
    for a skipped optional turn). ``previous`` is the task taking the turn before."""
    where = f"{turn.index} (line {turn.line})"
    marks = watcher.marks
    try:
        return await _deliver(turn, mode, watcher, trace, where, marks, previous, script)
    finally:
        if watcher.failed is not None:
            raise (_Invalid if watcher.harness_failed else _AgentCrashed)(watcher.failed)


async def _deliver(turn: Turn, mode: CallMode, watcher: Watcher, trace: Trace, where: str,
                   marks: tuple[int, int], previous: asyncio.Task | None,
                   script: Path | None = None) -> asyncio.Task | None:
    if turn.after is None:
        if not await watcher.quiet_for(TURN_GAP_S, SPEECH_LIMIT_S, idle=True):
            if turn.optional:
                return None
            raise _Invalid(f"turn {where}: the agent did not finish its response and go idle "
                           f"within {SPEECH_LIMIT_S:g} s")
    else:
        # timeout_ms counts from when the agent has taken the previous turn and finished
        # its work on it, not from when the caller began saying it: how long recognition
        # and planning take on a busy machine is not the script's to guess.
        fired = await watcher.wait_trigger(turn.after, marks[0], marks[1],
                                           turn.after.timeout_ms / 1000,
                                           settled=_taken_and_idle(previous, watcher))
        if not fired:
            if turn.optional:
                return None
            raise _Invalid(f"turn {where}: trigger {turn.after.describe()} did not fire within "
                           f"{turn.after.timeout_ms} ms")
        if turn.after.delay_ms:
            await asyncio.sleep(turn.after.delay_ms / 1000)  # the script's own pause
        if not turn.barge_in and not await watcher.quiet_for(TURN_GAP_S, SPEECH_LIMIT_S,
                                                             idle=False):
            raise _Invalid(f"turn {where}: the agent kept talking for {SPEECH_LIMIT_S:g} s")
    if turn.barge_in and mode.speaking:
        mode.barge_in()
    watcher.marks = (len(trace.events), mode.heard_mark())
    return asyncio.create_task(_agent(mode.say(turn), f"turn {where}", script))


def _taken_and_idle(previous: asyncio.Task | None, watcher: Watcher):
    """The condition that starts a trigger's timeout: the previous turn was taken (its task
    is done) and the agent is not busy. Side effect: the task's end wakes the watcher."""
    if previous is None:
        return None
    previous.add_done_callback(lambda _t: watcher.poke())
    return lambda: previous.done() and not watcher.conversation.busy


async def _staff_edit(edit: StaffEdit, world: CallWorld, watcher: Watcher,
                      done: list[str]) -> None:
    timeout = edit.after.timeout_ms / 1000 if edit.after.timeout_given else 24 * 3600.0
    if not await watcher.wait_trigger(edit.after, 0, 0, timeout):
        if edit.optional:
            return
        raise _Invalid(f"staff edit of {edit.booking!r}: trigger {edit.after.describe()} did "
                       f"not fire within {edit.after.timeout_ms} ms")
    if edit.after.delay_ms:
        await asyncio.sleep(edit.after.delay_ms / 1000)
    await world.staff_edit(edit.booking, dict(edit.changes))
    done.append(edit.booking)


async def run_calls(paths: Sequence[str | Path], mode_name: str, world_factory: WorldFactory,
                    mode_factory: ModeFactory, *, artifacts: Path | None = None,
                    concurrency: int = 1,
                    on_done: Callable[[CallResult | None], None] | None = None,
                    ) -> tuple[list[CallResult], list[str]]:
    """Validate every script, then run the valid ones (a few at a time).

    Returns the results in the order given, and notes about scripts skipped because they do
    not run in this mode. ``on_done`` is called after each call (for a progress bar).
    """
    slots = asyncio.Semaphore(max(1, concurrency))
    skipped: list[str] = []

    async def one(path: str | Path) -> CallResult | None:
        try:
            script = load_script(path)
        except ScriptInvalid as exc:
            result: CallResult | None = invalid(Path(path).stem, str(path), mode_name,
                                                *exc.errors)
        except Exception as exc:  # noqa: BLE001 - one unreadable script never stops the batch
            result = invalid(Path(path).stem, str(path), mode_name,
                             f"{path}: harness error while reading the script: "
                             f"{type(exc).__name__}: {exc}")
        else:
            if not script.runs_in(mode_name):
                skipped.append(f"{path}: runs only in modes {list(script.modes)}")
                result = None
            else:
                async with slots:
                    result = await run_call(script, mode_name, world_factory, mode_factory,
                                            artifacts=artifacts)
        if on_done is not None:
            on_done(result)
        return result

    results = await asyncio.gather(*(one(p) for p in paths))
    return [r for r in results if r is not None], skipped
