"""Property tests: any interleaving of updates, re-deliveries and late results.

The accepted state always equals the payload of the highest accepted revision, and the gate
never admits a result whose read fields changed since it was issued (nor rejects one whose
read fields did not).
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.core.gate import AdmissionGate, Disposition, Stamp
from agent.core.ledger import Ledger, UpdateOutcome

FIELDS = ("item", "opened", "region")
payloads = st.dictionaries(st.sampled_from(FIELDS), st.sampled_from(("a", "b", "c")),
                           min_size=1)
step = st.one_of(
    st.tuples(st.just("deliver"), st.integers(0, 7)),
    st.tuples(st.just("issue"), st.sets(st.sampled_from(FIELDS), min_size=1)),
    st.tuples(st.just("result"), st.integers(0, 20)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(payloads, min_size=1, max_size=8), st.lists(step, max_size=40))
def test_accepted_state_is_the_highest_accepted_revision(revisions, steps):
    ledger = Ledger()
    gate = AdmissionGate(ledger)
    highest = None
    changes = []  # per accepted update, the set of fields whose value changed
    issued = []  # (stamp, change count at issue)
    for kind, arg in steps:
        if kind == "deliver":
            revision = arg % len(revisions)
            before = ledger.current.values()
            result = ledger.update(revision, revisions[revision])
            if highest is None or revision > highest:
                assert result.outcome is UpdateOutcome.ACCEPTED
                highest = revision
                after = ledger.current.values()
                changes.append({f for f in FIELDS if before.get(f) != after.get(f)})
            elif revision == highest:
                assert result.outcome is UpdateOutcome.DUPLICATE
            else:
                assert result.outcome is UpdateOutcome.STALE
            assert ledger.current.values() == revisions[highest]
            assert ledger.revision == highest
        elif kind == "issue" and highest is not None:
            issued.append((Stamp.of(ledger.current, arg), len(changes), frozenset(arg)))
        elif kind == "result" and issued:
            stamp, at, reads = issued[arg % len(issued)]
            touched = any(change & reads for change in changes[at:])
            disposition = gate.admit(stamp)
            assert disposition is (Disposition.STALE if touched else Disposition.CURRENT)


@settings(max_examples=200, deadline=None)
@given(st.lists(payloads, min_size=2, max_size=6), st.randoms())
def test_out_of_order_redelivery_converges(revisions, rnd):
    deliveries = [r for r in range(len(revisions)) for _ in range(2)]
    rnd.shuffle(deliveries)
    ledger = Ledger()
    for revision in deliveries:
        ledger.update(revision, revisions[revision])
    top = max(deliveries)
    # Whatever the order, the highest revision delivered wins and nothing older overwrites it.
    assert ledger.current.values() == revisions[top]
    assert ledger.revision == top
