"""Amend's domain core: fields, the ledger, the admission gate, actions and trace events.

Standard library only (``agent/nlu/`` may use parsing libraries). Nothing here does I/O; the
adapters in ``registry/``, ``retrieval/``, ``tools_sandbox/`` and ``audio/`` reach the outside
world and talk to this package through the Protocols in :mod:`agent.ports`.
"""
