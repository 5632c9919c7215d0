"""The wire contract of the sandbox booking API: request and response bodies (pydantic).

These models are what ``/openapi.json`` publishes, so generated clients and fuzzers see the
same limits the service enforces. Validation is strict and bounded (lengths, ranges, real
calendar dates) so no input can reach SQLite in a shape that would make it fail with a 500.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    model_validator,
)
from pydantic.fields import FieldInfo

Window = Literal["morning", "afternoon"]
TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"  # any HH:MM (told apart for the message)
# The schema says exactly what the validators accept, in both directions (schemathesis
# checks that schema-valid data is accepted and that the rest is refused):
# a calendar date 0001-01-01..9999-12-31 (Python's range: RFC 3339 would allow year 0000),
MONTH_DAY = r"(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
DATE_PATTERN = rf"^([1-9][0-9]{{3}}|0[1-9][0-9]{{2}}|00[1-9][0-9]|000[1-9])-{MONTH_DAY}$"
# and an exact time inside a window (08:00-12:00 or 13:00-17:00, both ends included).
MORNING_TIMES = r"0[89]:[0-5][0-9]|1[01]:[0-5][0-9]|12:00"
AFTERNOON_TIMES = r"1[3-6]:[0-5][0-9]|17:00"
WINDOW_TIME_PATTERN = rf"^({MORNING_TIMES}|{AFTERNOON_TIMES})$"
# Free text is stripped (pydantic's str_strip_whitespace: Unicode White_Space); it must keep at
# least one other character. This class is that set, for the schema's `pattern`.
_STRIPPED = r"\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK_PATTERN = rf"[^{_STRIPPED}]"
# Free text never holds a NUL character (a text column of PostgreSQL cannot store one): the
# whole string, with at least one character that is not stripped.
TEXT_PATTERN = rf"^[^\u0000]*[^{_STRIPPED}\u0000][^\u0000]*$"
# Windows of the "Domain rules" of docs/call-scripts.md: morning 08:00-12:00, afternoon 13:00-17:00.
WINDOW_HOURS = {"morning": ("08:00", "12:00"), "afternoon": ("13:00", "17:00")}
MAX_VERSION = 2**31 - 1

# What pydantic's str_strip_whitespace removes from both ends (it is not str.strip()'s set).
STRIPPED_CHARS = ("\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
                  + "\u2028\u2029\u202f\u205f\u3000")


def window_of(time: str) -> Window | None:
    """The window an exact ``HH:MM`` time falls in, or None when it is outside both."""
    for name, (start, end) in WINDOW_HOURS.items():
        if start <= time <= end:
            return name  # type: ignore[return-value]
    return None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


def _check_date(value: object) -> object:
    """A calendar date written exactly ``YYYY-MM-DD`` (no spaces, no other ISO 8601 forms)."""
    if isinstance(value, str):
        try:
            if re.fullmatch(DATE_PATTERN, value):
                return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
        raise ValueError(f"date {value!r} is not a calendar date; use YYYY-MM-DD")
    return value


def _check_time(value: object) -> object:
    """An exact ``HH:MM`` inside the morning or afternoon window."""
    if isinstance(value, str):
        if not re.fullmatch(TIME_PATTERN, value):
            raise ValueError(f"time {value!r} is not a 24-hour HH:MM time, e.g. 09:30")
        if window_of(value) is None:
            raise ValueError(f"time {value} is outside the morning (08:00-12:00) and "
                             "afternoon (13:00-17:00) windows")
    return value


IsoDate = Annotated[str, BeforeValidator(_check_date), WithJsonSchema(
    {"type": "string", "format": "date", "pattern": DATE_PATTERN,
     "description": "ISO calendar date, YYYY-MM-DD"})]
WindowTime = Annotated[str, BeforeValidator(_check_time), WithJsonSchema(
    {"type": "string", "pattern": WINDOW_TIME_PATTERN,
     "description": "HH:MM within a window: 08:00-12:00 (morning) or 13:00-17:00 (afternoon)"})]


# text(), code() and integer() return the metadata of an ``Annotated`` type, unpacked where
# the type is named: ``Name = Annotated[str, *text(64)]`` (a type checker needs the type
# spelled out, not a function call that builds it).
def text(max_length: int, min_length: int = 1) -> tuple[BeforeValidator, WithJsonSchema]:
    """A string that is stripped, then kept if not blank; ``max_length`` counts what was sent."""

    def check(value: object) -> object:
        if isinstance(value, str):
            if len(value) > max_length:
                raise ValueError(f"at most {max_length} characters, got {len(value)}")
            if "\x00" in value:
                raise ValueError("must not contain a NUL character (\\u0000)")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("must be Unicode text (a lone surrogate escape such as "
                                 "\\ud800 is not a character)") from None
            if min_length and not value.strip(STRIPPED_CHARS):
                raise ValueError("must not be empty or blank")
        return value

    schema: dict = {"type": "string", "maxLength": max_length}
    if min_length:
        schema.update(minLength=1, pattern=TEXT_PATTERN)
    else:
        schema.update(pattern="^[^\\u0000]*$")
    return BeforeValidator(check), WithJsonSchema(schema)


def code(pattern: str, description: str) -> tuple[BeforeValidator, WithJsonSchema]:
    """An identifier matching ``pattern`` exactly, as sent (never stripped)."""

    def check(value: object) -> object:
        if isinstance(value, str) and not re.fullmatch(pattern, value):
            raise ValueError(f"{value!r} is not {description}")
        return value

    return BeforeValidator(check), WithJsonSchema(
        {"type": "string", "pattern": pattern, "description": description})


def _json_integer(value: object) -> object:
    # pydantic's lax mode would read true as 1 and "5" as 5; JSON Schema's integer is neither.
    if isinstance(value, bool | str):
        raise ValueError(f"must be a JSON integer, not {value!r}")
    return value


def _json_boolean(value: object) -> object:
    if not isinstance(value, bool):  # not 1, not "yes"
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def integer(ge: int, le: int) -> tuple[FieldInfo, BeforeValidator]:
    """A JSON integer in ``ge..le`` (bounds before the validator: the schema says them)."""
    return Field(ge=ge, le=le), BeforeValidator(_json_integer)


Int = Annotated[int, BeforeValidator(_json_integer)]
Bool = Annotated[bool, BeforeValidator(_json_boolean)]
Units = Annotated[int, *integer(1, 100)]
Version = Annotated[int, *integer(1, MAX_VERSION)]
Revision = Annotated[int, *integer(0, MAX_VERSION)]
Name = Annotated[str, *text(64)]
Text = Annotated[str, *text(200)]
Reason = Annotated[str, *text(500)]
Note = Annotated[str, *text(2000)]
Summary = Annotated[str, *text(2000, min_length=0)]
REF_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"


def _time_in(window: str, pattern: str) -> dict:
    return {"properties": {"window": {"const": window},
                           "time": {"anyOf": [{"type": "null"}, {"type": "string",
                                                                  "pattern": f"^({pattern})$"}]}}}


# JSON Schema for the rule "an exact time lies in the window given with it".
TIME_IN_WINDOW = [_time_in("morning", MORNING_TIMES), _time_in("afternoon", AFTERNOON_TIMES)]


def _schema_any_of(*rules: list[dict]):
    """``json_schema_extra`` adding cross-field rules (each one list of alternatives)."""

    def extra(schema: dict) -> None:
        schema["allOf"] = [{"anyOf": alternatives} for alternatives in rules]

    return extra


class Slot(_Strict):
    """Where and when: a date plus a window, or an exact time (which implies its window)."""

    # Give window, time, or both when the time lies in that window.
    model_config = ConfigDict(json_schema_extra=_schema_any_of(
        [{**alt, "required": ["window"]} for alt in TIME_IN_WINDOW]
        + [{"required": ["time"], "properties": {"window": {"type": "null"},
                                                  "time": {"type": "string"}}}]))

    date: IsoDate
    window: Window | None = None
    time: WindowTime | None = None

    @model_validator(mode="after")
    def _window_or_time(self):
        if self.time is not None:
            implied = window_of(self.time)
            if self.window is not None and self.window != implied:
                raise ValueError(f"time {self.time} is in the {implied}, not the {self.window}")
            self.window = implied
        if self.window is None:
            raise ValueError("give a window (morning or afternoon) or an exact time")
        return self


class BookingCreate(Slot):
    """``POST /v1/bookings``. Contact defaults to the token's subject."""

    asset: Name
    units: Units = 1
    site: Text
    contact: Text | None = None


CHANGE_FIELDS = ("date", "window", "time", "units", "site", "contact")
# Either side of a change may be left out; given together, the time lies in the window.
CONSISTENT_CHANGE = ([{"properties": {"time": {"type": "null"}}},
                      {"properties": {"window": {"type": "null"}}}] + TIME_IN_WINDOW)


class BookingChanges(_Strict):
    """The fields a reschedule (or a staff edit) may change. Omitted fields stay as they are."""

    model_config = ConfigDict(json_schema_extra=_schema_any_of(CONSISTENT_CHANGE))

    date: IsoDate | None = None
    window: Window | None = None
    time: WindowTime | None = None
    units: Units | None = None
    site: Text | None = None
    contact: Text | None = None

    @model_validator(mode="after")
    def _time_in_window(self):
        if self.time is not None and self.window is not None:
            implied = window_of(self.time)
            if implied != self.window:
                raise ValueError(f"time {self.time} is in the {implied}, not the {self.window}")
        return self

    def changes(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True)


class Reschedule(BookingChanges):
    """``POST /v1/bookings/{ref}/reschedule``: changes plus the version they were built on."""

    # At least one field to change (a body with none is refused: 422 no_changes).
    model_config = ConfigDict(json_schema_extra=_schema_any_of(
        CONSISTENT_CHANGE, [{"required": [name], "properties": {name: {"not": {"type": "null"}}}}
                            for name in CHANGE_FIELDS]))

    expected_version: Version | None = Field(
        None, description="Alternative to the If-Match header: the version the change was built on")

    def changes(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True, exclude={"expected_version"})


class Cancel(_Strict):
    """``POST /v1/bookings/{ref}/cancel``."""

    expected_version: Version | None = None


class StaffEdit(BookingChanges):
    """``PATCH /v1/staff/bookings/{ref}``: a person edits the record; the version is bumped."""

    status: Literal["confirmed", "cancelled"] | None = None
    expected_version: Version | None = None
    notify: Bool = Field(False, description="Also write a `change` notification")

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

    question: Text
    revision: Revision
    field_versions: list[tuple[str, str | None, Int, str]] = Field(max_length=100)
    pending_effects: list[tuple[str, str, str]] = Field(max_length=100)
    ambiguity: list[str] = Field(max_length=100)
    reason: Reason
    summary: Summary = ""


class HandoffResolution(_Strict):
    """A person's answer, stamped with the handoff version they worked from."""

    based_on_version: Version
    note: Note


class Handoff(BaseModel):
    id: str
    account: str
    status: Literal["open", "resolved"]
    version: int
    state: HandoffCreate
    resolution: str | None


class TokenRequest(_Strict):
    tenant: Name
    subject: Name
    account: Name
    role: Literal["caller", "staff"] = "caller"


class Token(BaseModel):
    token: str
    tenant: str
    subject: str
    account: str
    role: str
