"""The sandbox booking API (the system of record Amend changes) and the agent's client.

Start it with :func:`tools_sandbox.server.serve_in_background` or ``amend sandbox serve``; talk
to it with :class:`tools_sandbox.client.SandboxClient` (an ``agent.core.ports.BookingPort``). See
``tools_sandbox/README.md`` for the HTTP contract, faults and admin routes.
"""
