"""In-memory fakes of the agent's ports, for tests that must be fast and isolate one decision.

- ``BookingPort`` (real: ``tools_sandbox.client.SandboxClient`` over the HTTP sandbox):
  ``booking.FakeBookingPort``, a client of ``booking.FakeSandbox``;
- ``Resolver`` and ``RevisionSource`` (real: ``registry.resolver.Registry`` over SQLite):
  ``registry.FakeRegistry``;
- ``Retriever`` (real: ``retrieval.retriever.ScopedRetriever`` over the FTS5 ``Corpus``):
  ``retrieval.FakeRetriever`` over ``retrieval.FakeCorpus``;
- ``Clock`` (real: ``agent.core.clock.FixedClock``, ``SystemClock``): ``clock.FakeClock``.

Each module says which semantics it honours and what it leaves out.
``tests/test_port_contracts.py`` runs one set of cases against every fake and its real adapter,
so a fake cannot drift from what it stands in for; ``tests/controller_support.py`` runs the
controller scenarios on a world of fakes (``world.open_fake_world``) unless a test asks for the
real services.

Test machinery only: nothing outside ``tests/`` imports this package.
"""
