"""The handoff queue: work passed to a person as an explicit state object, versioned.

Seed 001, "Across workers and channels": the next worker receives the current field versions,
pending effects and unresolved ambiguity, not only a prose summary. The agent may update the
state while the handoff is open (``PUT .../state`` with If-Match), which bumps its version.
When the person's work comes back (``PUT .../resolution``) it carries the version they worked
from; if the state moved on meanwhile the resolution is refused with 412 and must be redone
against the current state.
"""

from __future__ import annotations

import json

from tools_sandbox.idempotency import Caller, Reply, Work, error, with_etag
from tools_sandbox.store import Store, now_iso


def handoff_json(row: dict) -> dict:
    return {"id": row["id"], "account": row["account"], "status": row["status"],
            "version": row["version"], "state": json.loads(row["state"]),
            "resolution": row["resolution"]}


class Handoffs:
    def __init__(self, store: Store, new_id):
        self._store = store
        self._new_id = new_id

    def visible(self, caller: Caller, hid: str) -> dict | None:
        row = self._store.one("SELECT * FROM handoffs WHERE id = ?", hid)
        if row is None or row["tenant"] != caller.tenant:
            return None
        if caller.role != "staff" and row["account"] != caller.account:
            return None
        return row

    def create(self, caller: Caller, state: dict) -> Work:
        """Queue a handoff (runs inside the idempotent executor's transaction)."""
        stamp = now_iso()
        row = {"id": self._new_id(), "tenant": caller.tenant, "account": caller.account,
               "status": "open", "version": 1, "state": json.dumps(state), "resolution": None,
               "created_at": stamp, "updated_at": stamp}
        self._store.insert("handoffs", row)
        return Work(201, handoff_json(row))

    def get(self, caller: Caller, hid: str) -> Reply:
        row = self.visible(caller, hid)
        if row is None:
            return error(404, "not_found", f"no handoff {hid!r} for this account")
        return with_etag(Reply(200, handoff_json(row)))

    def _update(self, row: dict, **changes: object) -> Reply:
        sets = ", ".join(f"{k} = ?" for k in changes)
        cur = self._store.execute(f"UPDATE handoffs SET {sets}, version = version + 1, "
                                  "updated_at = ? WHERE id = ? AND version = ?",
                                  *changes.values(), now_iso(), row["id"], row["version"])
        if cur.rowcount != 1:  # another process changed it since it was read: say so
            return error(412, "version_mismatch", f"handoff {row['id']} changed since "
                         f"version {row['version']}; re-read it and redo")
        fresh = self._store.one("SELECT * FROM handoffs WHERE id = ?", row["id"])
        assert fresh is not None  # updated just above
        return with_etag(Reply(200, handoff_json(fresh)))

    def update_state(self, caller: Caller, hid: str, expected: int, state: dict) -> Reply:
        """The agent revises the state object of an open handoff (conditional on version)."""
        row = self.visible(caller, hid)
        if row is None:
            return error(404, "not_found", f"no handoff {hid!r} for this account")
        if row["status"] != "open":
            return error(409, "handoff_resolved", f"handoff {hid} is already resolved")
        if row["version"] != expected:
            return error(412, "version_mismatch",
                         f"handoff {hid} is at version {row['version']}, not {expected}")
        return self._update(row, state=json.dumps(state))

    def resolve(self, caller: Caller, hid: str, based_on: int, note: str) -> Reply:
        """A person returns work; refused (412) if the state changed since they read it."""
        if caller.role != "staff":
            return error(404, "not_found", f"no handoff {hid!r} in the staff queue")
        row = self.visible(caller, hid)
        if row is None:
            return error(404, "not_found", f"no handoff {hid!r} in this tenant")
        if row["status"] != "open":
            return error(409, "handoff_resolved", f"handoff {hid} is already resolved")
        if row["version"] != based_on:
            return error(412, "version_mismatch", f"handoff {hid} changed since version "
                         f"{based_on} (now {row['version']}); re-read its state and redo")
        return self._update(row, status="resolved", resolution=note)

    def queue(self, caller: Caller) -> list[dict]:
        rows = self._store.all("SELECT * FROM handoffs WHERE tenant = ? ORDER BY created_at",
                               caller.tenant)
        return [handoff_json(r) for r in rows
                if caller.role == "staff" or r["account"] == caller.account]
