"""Durations and time units: PyFlink's ``Duration``, and the conversions the
API uses (the harness speaks seconds, as the case study does; watermark
generators speak milliseconds, as Flink does)."""

from __future__ import annotations

import datetime
import math
from typing import Any, Union


class Duration:
    """A span of time, shaped like PyFlink's ``pyflink.common.Duration``.

    >>> Duration.of_minutes(1).to_milliseconds()
    60000
    """

    __slots__ = ("_ms",)

    def __init__(self, milliseconds: int) -> None:
        if isinstance(milliseconds, bool) or not isinstance(milliseconds, int):
            raise TypeError(f"Duration takes whole milliseconds, got {milliseconds!r}")
        self._ms = milliseconds

    @classmethod
    def of_millis(cls, millis: int) -> "Duration":
        return cls(millis)

    @classmethod
    def of_seconds(cls, seconds: int) -> "Duration":
        return cls(seconds * 1000)

    @classmethod
    def of_minutes(cls, minutes: int) -> "Duration":
        return cls(minutes * 60_000)

    @classmethod
    def of_hours(cls, hours: int) -> "Duration":
        return cls(hours * 3_600_000)

    @classmethod
    def of_days(cls, days: int) -> "Duration":
        return cls(days * 86_400_000)

    def to_milliseconds(self) -> int:
        return self._ms

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other._ms == self._ms

    def __hash__(self) -> int:
        return hash(self._ms)

    def __repr__(self) -> str:
        return f"Duration.of_millis({self._ms})"


DurationLike = Union[Duration, datetime.timedelta, int, float]


def _from_duration(x: Any) -> Union[int, None]:
    """Milliseconds of a Duration (ours or PyFlink's) or a timedelta."""
    if hasattr(x, "to_milliseconds"):
        return int(x.to_milliseconds())
    if isinstance(x, datetime.timedelta):
        return round(x.total_seconds() * 1000)
    return None


def _number(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{what} must be a number, a Duration or a timedelta, got {x!r}")
    if not math.isfinite(x):
        raise ValueError(f"{what} must be finite, got {x!r}")
    return x


def seconds_to_ms(x: Any, what: str, negative: bool = False) -> int:
    """A time in seconds (a number) or a Duration/timedelta, in milliseconds."""
    ms = _from_duration(x)
    if ms is None:
        ms = round(_number(x, what) * 1000)
    if ms < 0 and not negative:
        raise ValueError(f"{what} must not be negative, got {x!r}")
    return ms


def millis(x: Any, what: str, negative: bool = False) -> int:
    """A time in milliseconds (an int) or a Duration/timedelta, in milliseconds."""
    ms = _from_duration(x)
    if ms is None:
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError(f"{what} must be milliseconds (int), a Duration or a timedelta, got {x!r}")
        ms = x
    if ms < 0 and not negative:
        raise ValueError(f"{what} must not be negative, got {x!r}")
    return ms


def ms_to_seconds(ms: int) -> Union[int, float]:
    """Milliseconds as seconds: an int when whole, else a float."""
    return ms // 1000 if ms % 1000 == 0 else ms / 1000
