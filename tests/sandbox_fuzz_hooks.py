"""Schemathesis hooks for fuzzing the sandbox booking API (loaded by ``tests/schemathesis.toml``).

One hook: every well-formed ``Idempotency-Key`` a generated request carries is made unique,
as a client that follows the contract makes it ("unique per logical request"). The API binds a
key to the payload it first came with and answers the same key with another payload 422
``key_reused`` (the IETF Idempotency-Key draft); a fuzzer that draws keys from the schema draws
"0" for many different payloads, which is a misbehaving client, not a schema-valid request the
API wrongly refuses. Negative requests (a missing or malformed key among them) are left as
generated; key reuse itself is tested in tests/test_sandbox_api.py.
"""

from __future__ import annotations

import itertools
import os
import re

import schemathesis

KEY = re.compile(r"^[!-~]{1,255}$")
_PREFIX = f"{os.getpid():x}.{os.urandom(3).hex()}"  # two runs against one server differ too
_COUNTER = itertools.count(1)


@schemathesis.hook
def before_call(context, case, kwargs):
    # Only schema-valid requests: a negative one is refused before its key is looked at, and
    # editing it would make schemathesis re-judge it (and send the -H Authorization it omits).
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    for name, value in list((case.headers or {}).items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and KEY.fullmatch(value):
            case.headers[name] = f"{value[:200]}~{_PREFIX}.{next(_COUNTER)}"
