"""The names the call's parts share: the ledger's field names.

Plain constants, nothing else, so understanding (:mod:`agent.understanding.proposals`,
``agent/understanding/nlu``), the controller and its desks, and retrieval (``retrieval/query.py``)
can all name a field without importing one another. The values are public: call scripts
(docs/call-scripts.md: ``expect.fields``, ``clarified``, trace events) and the sandbox's API use
them as written. The booking ops are :class:`agent.core.ops.Op`.
"""

from __future__ import annotations

# -- ledger fields ---------------------------------------------------------------------------
ASSET = "asset"
VISIT_DATE = "visit_date"  # ISO date "2026-12-03"
VISIT_WINDOW = "visit_window"  # "morning" | "afternoon"
VISIT_TIME = "visit_time"  # "14:00" (implies its window)
UNITS = "units"
SITE = "site"
CONTACT = "contact"
BOOKING_REF = "booking_ref"  # the booking a reschedule/cancel refers to
LANGUAGE = "language"  # requested answer language, e.g. "de"
FAMILY = "family"
PROCEDURE = "procedure"
CONFIGURATION = "configuration"
REGION = "region"
ITEM_CATEGORY = "item_category"  # return policies: procedure of family "returns"
OPENED = "opened"  # "yes" | "no"

BOOKING_FIELDS = (ASSET, VISIT_DATE, VISIT_WINDOW, VISIT_TIME, UNITS, SITE, CONTACT)
