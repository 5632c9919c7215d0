"""The wire contract of the sandbox booking API: request and response bodies (pydantic).

These models are what ``/openapi.json`` publishes, so generated clients and fuzzers see the
same limits the service enforces. Validation is strict and bounded (lengths, ranges, real
calendar dates) so no input can reach SQLite in a shape that would make it fail with a 500.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Window = Literal["morning", "afternoon"]
TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
# Windows of the domain rules (CALL_SCRIPTS.md): morning 08:00-12:00, afternoon 13:00-17:00.
WINDOW_HOURS = {"morning": ("08:00", "12:00"), "afternoon": ("13:00", "17:00")}
MAX_VERSION = 2**31 - 1

Text = Field(min_length=1, max_length=200)


def window_of(time: str) -> Window | None:
    """The window an exact ``HH:MM`` time falls in, or None when it is outside both."""
    for name, (start, end) in WINDOW_HOURS.items():
        if start <= time <= end:
            return name  # type: ignore[return-value]
    return None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


def _check_date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ValueError(f"date {value!r} is not a calendar date; use YYYY-MM-DD") from None


class Slot(_Strict):
    """Where and when: a date plus a window, or an exact time (which implies its window)."""

    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="ISO date, YYYY-MM-DD")
    window: Window | None = None
    time: str | None = Field(None, pattern=TIME_PATTERN, description="HH:MM, within a window")

    _date = field_validator("date")(_check_date)

    @model_validator(mode="after")
    def _window_or_time(self):
        if self.time is not None:
            implied = window_of(self.time)
            if implied is None:
                raise ValueError(f"time {self.time} is outside the morning (08:00-12:00) and "
                                 "afternoon (13:00-17:00) windows")
            if self.window is not None and self.window != implied:
                raise ValueError(f"time {self.time} is in the {implied}, not the {self.window}")
            self.window = implied
        if self.window is None:
            raise ValueError("give a window (morning or afternoon) or an exact time")
        return self


class BookingCreate(Slot):
    """``POST /v1/bookings``. Contact defaults to the token's subject."""

    asset: str = Field(min_length=1, max_length=64)
    units: int = Field(1, ge=1, le=100)
    site: str = Text
    contact: str | None = Field(None, min_length=1, max_length=200)


class BookingChanges(_Strict):
    """The fields a reschedule (or a staff edit) may change. Omitted fields stay as they are."""

    date: str | None = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    window: Window | None = None
    time: str | None = Field(None, pattern=TIME_PATTERN)
    units: int | None = Field(None, ge=1, le=100)
    site: str | None = Field(None, min_length=1, max_length=200)
    contact: str | None = Field(None, min_length=1, max_length=200)

    @field_validator("date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        return None if value is None else _check_date(value)

    @field_validator("time")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None and window_of(value) is None:
            raise ValueError(f"time {value} is outside the morning and afternoon windows")
        return value

    def changes(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True)


class Reschedule(BookingChanges):
    """``POST /v1/bookings/{ref}/reschedule``: changes plus the version they were built on."""

    expected_version: int | None = Field(
        None, ge=1, le=MAX_VERSION,
        description="Alternative to the If-Match header: the version the change was built on")

    def changes(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True, exclude={"expected_version"})


class Cancel(_Strict):
    """``POST /v1/bookings/{ref}/cancel``."""

    expected_version: int | None = Field(None, ge=1, le=MAX_VERSION)


class StaffEdit(BookingChanges):
    """``PATCH /v1/staff/bookings/{ref}``: a person edits the record; the version is bumped."""

    status: Literal["confirmed", "cancelled"] | None = None
    expected_version: int | None = Field(None, ge=1, le=MAX_VERSION)
    notify: bool = Field(False, description="Also write a `change` notification")

    def changes(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True, exclude={"expected_version", "notify"})


class Booking(BaseModel):
    """A booking as the system of record holds it. ``version`` is also the ETag."""

    ref: str
    account: str
    asset: str
    date: str
    window: Window
    time: str | None
    units: int
    site: str
    contact: str
    status: Literal["confirmed", "cancelled"]
    version: int


class BookingList(BaseModel):
    bookings: list[Booking]


class ErrorBody(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. `key_reused`")
    message: str


class Error(BaseModel):
    """Every non-2xx answer. ``current`` carries the record on a 412 so the client can re-plan."""

    error: ErrorBody
    current: Booking | None = None


class RequestView(BaseModel):
    """An idempotent request looked up by its key (``GET /v1/requests/{key}``)."""

    key: str
    op: str
    status: Literal["PENDING", "SUCCEEDED", "FAILED", "CANCELLED"]
    cancel_requested: bool
    revision: int | None
    booking_ref: str | None
    response_status: int | None
    response: dict | None
    created_at: str
    updated_at: str


class Notification(BaseModel):
    id: int
    account: str
    booking_ref: str
    booking_version: int
    kind: Literal["confirmation", "change", "cancellation"]
    contact: str
    dedupe_key: str
    body: str
    status: Literal["queued", "delivered"]
    attempts: int
    deliveries: int
    created_at: str
    delivered_at: str | None


class NotificationList(BaseModel):
    notifications: list[Notification]


class SlotView(BaseModel):
    date: str
    window: Window
    capacity: int
    booked: int
    available: int


class SlotList(BaseModel):
    slots: list[SlotView]


class HandoffCreate(_Strict):
    """An explicit state object for a person (seed 001, "Across workers and channels")."""

    question: str = Field(min_length=1, max_length=200)
    revision: int = Field(ge=0, le=MAX_VERSION)
    field_versions: list[tuple[str, str | None, int, str]] = Field(max_length=100)
    pending_effects: list[tuple[str, str, str]] = Field(max_length=100)
    ambiguity: list[str] = Field(max_length=100)
    reason: str = Field(min_length=1, max_length=500)
    summary: str = Field("", max_length=2000)


class HandoffResolution(_Strict):
    """A person's answer, stamped with the handoff version they worked from."""

    based_on_version: int = Field(ge=1, le=MAX_VERSION)
    note: str = Field(min_length=1, max_length=2000)


class Handoff(BaseModel):
    id: str
    account: str
    status: Literal["open", "resolved"]
    version: int
    state: HandoffCreate
    resolution: str | None


class TokenRequest(_Strict):
    tenant: str = Field(min_length=1, max_length=64)
    subject: str = Field(min_length=1, max_length=64)
    account: str = Field(min_length=1, max_length=64)
    role: Literal["caller", "staff"] = "caller"


class Token(BaseModel):
    token: str
    tenant: str
    subject: str
    account: str
    role: str
