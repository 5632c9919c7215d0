"""Amend's agent, in three layers (each imports only the layers above it in this list):

* :mod:`agent.core`: the revision core: fields, the ledger, the admission gate, actions,
  dependencies, trace events, speech generations, the caller, the clock, errors, names, and
  the Protocols adapters implement (:mod:`agent.core.ports`);
* :mod:`agent.understanding`: the proposal contract, calibrated trust and the rule-based
  proposer (``nlu/``): a turn in, a proposal out, nothing accepted;
* :mod:`agent.service`: the dialogue service: the controller, its turn steps, the booking
  workflow, dispatch and reconciliation, answers, rendering, validation and the decision
  tables.

:mod:`agent.bench` holds the value types every package's benchmarks share.

Standard library only (``agent/understanding/nlu/`` may use parsing libraries). Nothing here
does I/O; the adapters in ``registry/``, ``retrieval/``, ``tools_sandbox/`` and ``audio/``
reach the outside world and talk to this package through the Protocols in
:mod:`agent.core.ports`.
"""
