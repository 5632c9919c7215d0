"""A small synchronous client of the test-mode ``/admin`` routes (oracle, fixtures, faults).

Every method is one HTTP call and raises :class:`SandboxAdminError` naming the route and the
server's message when it is refused.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping

import httpx


def _plain(value: object) -> object:
    """YAML turns 2026-12-03 into a date: send dates and times as ISO text (times as HH:MM)."""
    if isinstance(value, dt.time):
        return value.isoformat(timespec="minutes")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _tenant(tenant: str | None) -> dict[str, str]:
    return {} if tenant is None else {"tenant": tenant}


def _field(name: str, value: object) -> object:
    """A booking field as the API takes it: ISO text for dates, a JSON integer for ``units``
    (a form gives "2"; the API refuses a string where its schema says integer)."""
    if name == "units" and isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
        return int(value.strip())
    return _plain(value)


class SandboxAdminError(RuntimeError):
    """An admin call was refused (bad seed, bad fault, test mode off)."""


class SandboxAdmin:
    def __init__(self, base_url: str, timeout: float = 10.0):
        self._http = httpx.Client(base_url=base_url, timeout=timeout)
        self._staff: dict[str, str] = {}

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs) -> dict:
        response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            try:
                detail = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                detail = response.text[:200]
            raise SandboxAdminError(f"sandbox {method} {path}: {response.status_code} {detail}")
        return response.json()

    def mint(self, tenant: str, subject: str, account: str, role: str = "caller") -> str:
        """A bearer token for this test subject (side effect: a token row)."""
        return self._call("POST", "/admin/tokens", json={
            "tenant": tenant, "subject": subject, "account": account, "role": role})["token"]

    def seed(self, tenant: str, bookings: Iterable[Mapping]) -> dict[str, str]:
        """Insert bookings as-is; returns handle -> ref (``ref`` keys are kept as refs)."""
        rows = [{k: _field(k, v) for k, v in dict(b).items()} for b in bookings]
        return self._call("POST", "/admin/seed", json={"tenant": tenant,
                                                       "bookings": rows})["refs"]

    def bookings(self, tenant: str | None = None, *, ref: str | None = None) -> list[dict]:
        """Every booking, or ``tenant``'s, or the one with reference ``ref`` (with its tenant)."""
        params = {**_tenant(tenant), **({} if ref is None else {"ref": ref})}
        return self._call("GET", "/admin/bookings", params=params)["bookings"]

    def notifications(self, tenant: str | None = None) -> list[dict]:
        """Every notification, or ``tenant``'s."""
        return self._call("GET", "/admin/notifications",
                          params=_tenant(tenant))["notifications"]

    def events(self) -> list[dict]:
        return self._call("GET", "/admin/events")["events"]

    def requests(self) -> list[dict]:
        return self._call("GET", "/admin/requests")["requests"]

    def faults(self) -> list[dict]:
        """Every fault rule now in force (a rule scoped to a tenant says so)."""
        return self._call("GET", "/admin/faults")["faults"]

    def calls(self, op: str, tenant: str | None = None) -> int:
        """Calls of ``op`` the fault plan counted: all of them, or ``tenant``'s."""
        return int(self._call("GET", "/admin/faults", params=_tenant(tenant))["calls"][op])

    def set_faults(self, faults: Iterable[Mapping], tenant: str | None = None) -> dict:
        """Replace the fault rules: all of them, or only ``tenant``'s."""
        body: dict[str, object] = {"faults": list(faults)}
        if tenant is not None:
            body["tenant"] = tenant
        return self._call("PUT", "/admin/faults", json=body)

    def add_fault(self, fault: Mapping) -> dict:
        return self._call("POST", "/admin/faults", json=dict(fault))

    def release(self) -> int:
        return self._call("POST", "/admin/faults/release")["released"]

    def set_capacity(self, date: str, window: str, capacity: int) -> None:
        self._call("PUT", "/admin/slots", json={"date": date, "window": window,
                                                "capacity": capacity})

    def reset(self) -> None:
        """Delete everything and clear faults (side effect: the whole sandbox)."""
        self._staff.clear()
        self._call("POST", "/admin/reset")

    def staff_edit(self, tenant: str, ref: str, changes: Mapping, *,
                   expected_version: int | None = None, notify: bool = False,
                   subject: str = "staff") -> dict:
        """Edit a booking as staff (docs/call-scripts.md ``staff_edits``); bumps version."""
        if tenant not in self._staff:
            self._staff[tenant] = self.mint(tenant, subject, "*staff*", role="staff")
        body = {**{k: _field(k, v) for k, v in dict(changes).items()}, "notify": notify}
        if expected_version is not None:
            body["expected_version"] = expected_version
        return self._call("PATCH", f"/v1/staff/bookings/{ref}", json=body,
                          headers={"Authorization": f"Bearer {self._staff[tenant]}"})
