"""PyFlink-shaped watermark strategies, for testing one on a manual clock.

The generator is lowwater's core generator, which computes exactly what
Flink's ``BoundedOutOfOrdernessWatermarks`` and ``WatermarksWithIdleness``
compute: the watermark is ``max event time - out-of-orderness - 1`` ms, the
first one is Long.MIN_VALUE, and a split is idle once the clock has moved
past the idle timeout without a record (checked on the periodic emit, which
then says idle once). Times here are milliseconds, as in Flink.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Union

from . import _lowwater
from ._time import DurationLike, millis

#: What ``on_periodic_emit`` returns when the split has just become idle.
IDLE = "idle"


class ManualClock:
    """A processing-time clock that moves only when told (milliseconds)."""

    def __init__(self, start: Union[int, DurationLike] = 0) -> None:
        self._native = _lowwater.NativeClock(millis(start, "start", negative=True))

    def now(self) -> int:
        return self._native.now()

    def advance(self, d: Union[int, DurationLike]) -> int:
        """Moves forward by ``d`` (ms, Duration or timedelta); returns the new time."""
        return self._native.advance(millis(d, "advance"))

    def set(self, t: Union[int, DurationLike]) -> int:
        """Moves to ``t`` (not earlier than now); returns it."""
        return self._native.set(millis(t, "t", negative=True))


class Watermark:
    """A watermark as Flink's ``WatermarkOutput.emitWatermark`` receives it."""

    __slots__ = ("timestamp",)

    def __init__(self, timestamp: int) -> None:
        self.timestamp = timestamp

    def get_timestamp(self) -> int:
        return self.timestamp

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Watermark) and other.timestamp == self.timestamp

    def __hash__(self) -> int:
        return hash(self.timestamp)

    def __repr__(self) -> str:
        return f"Watermark({self.timestamp})"


class WatermarkOutput:
    """Records what a generator emits, as Flink's WatermarkOutput receives it:
    ``watermarks`` (every emitted timestamp, in order), ``idle``."""

    def __init__(self) -> None:
        self.watermarks: List[int] = []
        self.idle = False

    def emit_watermark(self, watermark: Watermark) -> None:
        self.watermarks.append(watermark.timestamp)
        self.idle = False

    def mark_idle(self) -> None:
        self.idle = True

    def mark_active(self) -> None:
        self.idle = False

    @property
    def last(self) -> Optional[int]:
        """The last emitted watermark (``None`` before any)."""
        return self.watermarks[-1] if self.watermarks else None


def _assign(assigner: Any) -> Callable[[Any, Optional[int]], int]:
    if hasattr(assigner, "extract_timestamp"):
        return assigner.extract_timestamp
    if callable(assigner):
        return assigner
    raise TypeError(
        "with_timestamp_assigner takes a TimestampAssigner (extract_timestamp(value, record_timestamp)) "
        f"or a function (value, record_timestamp) -> int ms, got {assigner!r}"
    )


class WatermarkGenerator:
    """One split's generator on a clock. Feed it ``on_event`` and call
    ``on_periodic_emit`` where Flink would (every auto-watermark interval)."""

    def __init__(self, strategy: "WatermarkStrategy", clock: ManualClock) -> None:
        self.clock = clock
        self._assigner = strategy._assigner
        self._native = _lowwater.NativeGenerator(strategy._delay, strategy._sql, strategy._idle, clock._native)

    def on_event(self, event: Any, event_timestamp: Optional[int] = None, output: Any = None) -> None:
        """A record: its time is the assigner's (or ``event_timestamp``, in ms).
        The DataStream generator emits nothing on an event (``output`` is
        accepted for PyFlink's signature); a record ends idleness."""
        ts = self._assigner(event, event_timestamp) if self._assigner is not None else event_timestamp
        if isinstance(ts, bool) or not isinstance(ts, int):
            raise TypeError(
                f"the event time of {event!r} is {ts!r}, not whole milliseconds: give the strategy a "
                "timestamp assigner (with_timestamp_assigner) or pass event_timestamp"
            )
        self._native.on_event(ts)

    def on_periodic_emit(self, output: Any = None) -> Union[int, str, None]:
        """The periodic emit at the clock's time: returns the watermark (ms),
        ``IDLE`` when the split has just gone idle, or ``None`` (still idle).
        With an ``output`` (e.g. ``WatermarkOutput``) it also calls
        ``emit_watermark`` / ``mark_idle`` on it, as Flink does."""
        emitted = self._native.on_periodic_emit()
        if emitted is None:
            return None
        kind, ts = emitted
        if kind == "idle":
            if output is not None:
                output.mark_idle()
            return IDLE
        if output is not None:
            output.emit_watermark(Watermark(ts))
        return ts

    @property
    def current_watermark(self) -> int:
        """The watermark the next periodic emit gives (idleness aside)."""
        return self._native.current_watermark()

    @property
    def is_idle(self) -> bool:
        return self._native.is_idle()


class WatermarkStrategy:
    """PyFlink's ``WatermarkStrategy``, for tests:

    >>> s = (WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5))
    ...      .with_timestamp_assigner(lambda e, ts: e["ts_ms"])
    ...      .with_idleness(Duration.of_minutes(1)))
    >>> g = s.create_generator(ManualClock())
    """

    def __init__(self, delay_ms: int, sql: bool = False, idle_ms: Optional[int] = None, assigner: Any = None) -> None:
        self._delay = delay_ms
        self._sql = sql
        self._idle = idle_ms
        self._assigner = assigner

    @staticmethod
    def for_bounded_out_of_orderness(max_out_of_orderness: DurationLike) -> "WatermarkStrategy":
        """Watermark ``max event time - max_out_of_orderness - 1`` ms (Flink's DataStream form)."""
        return WatermarkStrategy(millis(max_out_of_orderness, "max_out_of_orderness"))

    @staticmethod
    def for_monotonous_timestamps() -> "WatermarkStrategy":
        """Watermark ``max event time - 1`` ms."""
        return WatermarkStrategy(0)

    @staticmethod
    def for_sql_interval(delay: DurationLike) -> "WatermarkStrategy":
        """SQL's ``WATERMARK FOR ts AS ts - INTERVAL delay``: the last row's
        ``ts - delay``, without the ``- 1``."""
        return WatermarkStrategy(millis(delay, "delay"), sql=True)

    def with_timestamp_assigner(self, assigner: Any) -> "WatermarkStrategy":
        """Reads each record's event time (ms): a TimestampAssigner or a
        function ``(value, record_timestamp) -> int``."""
        return WatermarkStrategy(self._delay, self._sql, self._idle, _assign(assigner))

    def with_idleness(self, idle_timeout: DurationLike) -> "WatermarkStrategy":
        """Marks a split idle once it has had no record for ``idle_timeout``."""
        return WatermarkStrategy(self._delay, self._sql, millis(idle_timeout, "idle_timeout"), self._assigner)

    def create_generator(self, clock: Optional[ManualClock] = None) -> WatermarkGenerator:
        """A generator for one split, on ``clock`` (a new one at 0 if omitted)."""
        return WatermarkGenerator(self, clock if clock is not None else ManualClock())

    def __repr__(self) -> str:
        form = "sql_interval" if self._sql else "bounded_out_of_orderness"
        return f"WatermarkStrategy({form}={self._delay} ms, idleness={self._idle} ms)"
