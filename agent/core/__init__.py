"""The revision core: accepted fields and the ledger, the admission gate, actions and their
dependencies, trace events, speech generations, the caller, the clock, errors, field and op
names, and the Protocols the adapters implement. It imports nothing above it
(``tests/test_architecture.py``)."""
