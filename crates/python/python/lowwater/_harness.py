"""The harness: a whole job (partitions -> source subtasks -> one windowed
aggregation) on a manual processing-time clock, in seconds. It is lowwater's
core harness (Rust) with Flink's rules; this module only gives it Python's
shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _lowwater
from ._time import DurationLike, ms_to_seconds, seconds_to_ms

Seconds = Union[int, float]


@dataclass(frozen=True)
class Event:
    """A record: its group key, event time ``t`` in seconds, the partition it
    is read from, and the value the aggregates read (one value, or a tuple of
    values by position). A tuple key is a composite key; ``()`` is no key (a
    global aggregate)."""

    key: Any
    t: Seconds
    partition: int = 0
    value: Any = None


class Row(tuple):
    """A window result: ``(window_start, window_end, key, *aggregates)``, times
    in seconds. It equals the plain tuple, and the dict with the same fields
    (``{"window_start": 0, "window_end": 60, "key": "k0", "count": 2}``).
    ``emitted_at`` (processing time, seconds) and ``emission_lag`` are
    attributes, not part of the comparison."""

    _names: Tuple[str, ...]
    emitted_at: Seconds
    emission_lag: Seconds

    def __new__(cls, values: Sequence[Any], names: Sequence[str], emitted_at: Seconds, emission_lag: Seconds) -> "Row":
        row = super().__new__(cls, values)
        row._names = tuple(names)
        row.emitted_at = emitted_at
        row.emission_lag = emission_lag
        # Fields win over tuple's methods of the same name (``row.count``).
        for name, value in zip(row._names, values):
            setattr(row, name, value)
        return row

    def as_dict(self) -> Dict[str, Any]:
        return dict(zip(self._names, self))

    def __getattr__(self, name: str) -> Any:
        try:
            return self[self._names.index(name)]
        except ValueError:
            raise AttributeError(f"a row has {', '.join(self._names)}; not {name!r}") from None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.as_dict() == dict(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return "Row(" + ", ".join(f"{n}={v!r}" for n, v in zip(self._names, self)) + ")"


@dataclass(frozen=True)
class HeldBy:
    """Who holds the job's watermark back, and why (in words)."""

    partition: Optional[int]
    subtask: int
    watermark: Optional[Seconds]
    silent_for: Seconds
    never_had_record: bool
    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class PartitionState:
    """One partition as its source subtask sees it (times in seconds)."""

    partition: int
    subtask: int
    watermark: Optional[Seconds]
    idle: bool
    records: int
    max_event_time: Optional[Seconds]


def _aggregates(specs: Iterable[Union[str, Tuple[str, int]]]) -> Tuple[List[Tuple[str, Optional[int]]], List[str]]:
    """``"count"`` is COUNT(*); ``"sum"`` reads value 0; ``("sum", 1)`` value 1."""
    native: List[Tuple[str, Optional[int]]] = []
    names: List[str] = []
    for spec in specs:
        if isinstance(spec, str):
            name, col = spec, (None if spec.lower() == "count" else 0)
        elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], int):
            name, col = spec
        else:
            raise TypeError(f"an aggregate is a name ('sum') or (name, value position), got {spec!r}")
        native.append((name.lower(), col))
        label = name.lower() if col in (None, 0) else f"{name.lower()}_{col}"
        while label in names:
            label += "_"
        names.append(label)
    if not native:
        raise ValueError("aggregates must name at least one aggregate")
    return native, names


def _key(values: List[Any]) -> Any:
    return values[0] if len(values) == 1 else (None if not values else tuple(values))


class Harness:
    """A windowed job on a manual clock, with Flink's rules, for tests.

    >>> h = Harness(window_seconds=60, watermark_delay=30, partitions=2, idle_timeout=None)
    >>> for t in (0, 30, 90, 150):
    ...     h.process(Event("k0", t, partition=0))     # partition 1: silent
    >>> h.advance_processing_time(300)
    >>> h.output()
    []

    Times are seconds (numbers) or ``Duration``/``timedelta``. The watermark
    is DataStream's ``forBoundedOutOfOrderness(watermark_delay)`` (``max - delay
    - 1 ms``), or SQL's ``ts - INTERVAL`` with ``watermark="sql"``; it is emitted
    every ``emit_interval`` (Flink's 200 ms). ``window`` is ``"tumble"``,
    ``"hop"`` (``slide_seconds``), ``"cumulate"`` (step ``slide_seconds`` up to
    ``window_seconds``) or ``"session"`` (gap ``window_seconds``). Partitions map
    to subtasks with Flink's Kafka formula for ``topic``.
    """

    def __init__(
        self,
        window_seconds: Union[Seconds, DurationLike],
        watermark_delay: Union[Seconds, DurationLike] = 0,
        partitions: int = 1,
        idle_timeout: Optional[Union[Seconds, DurationLike]] = None,
        parallelism: int = 1,
        allowed_lateness: Union[Seconds, DurationLike] = 0,
        window: str = "tumble",
        slide_seconds: Optional[Union[Seconds, DurationLike]] = None,
        aggregates: Sequence[Union[str, Tuple[str, int]]] = ("count",),
        emit_interval: Union[Seconds, DurationLike] = 0.2,
        topic: str = "events",
        watermark: str = "datastream",
        late_side_output: bool = False,
    ) -> None:
        if watermark not in ("datastream", "sql"):
            raise ValueError(f"watermark={watermark!r}: use 'datastream' (max - delay - 1 ms) or 'sql' (ts - INTERVAL)")
        for name, n in (("partitions", partitions), ("parallelism", parallelism)):
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {n!r}")
        native_aggs, self._names = _aggregates(aggregates)
        self._names = ["window_start", "window_end", "key", *self._names]
        self._h = _lowwater.NativeHarness(
            window,
            seconds_to_ms(window_seconds, "window_seconds"),
            None if slide_seconds is None else seconds_to_ms(slide_seconds, "slide_seconds"),
            seconds_to_ms(watermark_delay, "watermark_delay"),
            watermark == "sql",
            None if idle_timeout is None else seconds_to_ms(idle_timeout, "idle_timeout"),
            partitions,
            parallelism,
            seconds_to_ms(allowed_lateness, "allowed_lateness"),
            native_aggs,
            seconds_to_ms(emit_interval, "emit_interval"),
            topic,
            late_side_output,
        )

    @staticmethod
    def _event(e: Event) -> Tuple[Any, int, int, Any]:
        if not isinstance(e, Event):
            raise TypeError(f"process takes an Event, got {e!r}")
        return e.key, seconds_to_ms(e.t, "Event.t", negative=True), e.partition, e.value

    def process(self, event: Event) -> None:
        """Feeds one record at the current processing time (no tick runs)."""
        self._h.process(*self._event(event))

    def process_at(self, t: Union[Seconds, DurationLike], event: Event) -> None:
        """Runs the periodic emissions before processing time ``t``, then feeds
        the record at ``t`` (before the emission at ``t``): replay's order."""
        self._h.process_at(seconds_to_ms(t, "t"), *self._event(event))

    def advance_processing_time(self, seconds: Union[Seconds, DurationLike]) -> None:
        """Moves processing time forward, running every periodic watermark
        emission on the way, including one at the new time."""
        self._h.advance_processing_time(seconds_to_ms(seconds, "advance_processing_time"))

    def set_processing_time(self, t: Union[Seconds, DurationLike]) -> None:
        """Moves processing time to ``t`` (if later), running the emissions up to it."""
        self._h.set_processing_time(seconds_to_ms(t, "t"))

    def end_of_input(self) -> None:
        """Ends the bounded input: every subtask sends MAX, so every window fires."""
        self._h.end_of_input()

    def add_partition(self) -> int:
        """Adds the next partition while running, as Kafka partition discovery does."""
        return self._h.add_partition()

    @property
    def now(self) -> Seconds:
        """Current processing time, seconds."""
        return ms_to_seconds(self._h.now())

    @property
    def watermark(self) -> Optional[Seconds]:
        """The job's watermark in seconds (``None`` while it is MIN)."""
        w = self._h.watermark()
        return None if w is None else ms_to_seconds(w)

    @property
    def is_idle(self) -> bool:
        """Whether every source is idle (so nothing holds the watermark)."""
        return self._h.is_idle()

    def output(self) -> List[Row]:
        """Every window result so far, in emission order."""
        return [
            Row((ms_to_seconds(s), ms_to_seconds(e), _key(k), *vals), self._names, ms_to_seconds(at), ms_to_seconds(at - e))
            for (s, e, k, vals, at) in self._h.output()
        ]

    def late(self) -> Dict[int, int]:
        """Late records dropped, per partition (Flink's numLateRecordsDropped)."""
        return dict(self._h.late()[0])

    @property
    def late_dropped(self) -> int:
        """Late records dropped in total."""
        return sum(self._h.late()[0].values())

    def late_routed(self) -> Dict[int, int]:
        """Late records sent to the side output (``late_side_output=True``), per partition."""
        return dict(self._h.late()[1])

    def late_records(self) -> List[Event]:
        """The late records themselves, with ``late_side_output=True``."""
        return [
            Event(_key(k), ms_to_seconds(ts), p, None if not row else (row[0] if len(row) == 1 else tuple(row)))
            for (k, ts, p, row) in self._h.late_records()
        ]

    def held_by(self) -> Optional[HeldBy]:
        """The partition and subtask holding the job's watermark back, and why;
        ``None`` when nothing holds it (all idle)."""
        h = self._h.held_by()
        if h is None:
            return None
        subtask, partition, wm, silent, never, why = h
        return HeldBy(
            partition=partition,
            subtask=subtask,
            watermark=None if wm == _lowwater.MIN_WATERMARK else ms_to_seconds(wm),
            silent_for=ms_to_seconds(silent),
            never_had_record=never,
            reason=why,
        )

    def partitions(self) -> List[PartitionState]:
        """Every partition's watermark, idleness and records, with its subtask."""
        return [
            PartitionState(p, s, None if w is None else ms_to_seconds(w), idle, n, None if m is None else ms_to_seconds(m))
            for (p, s, w, idle, n, m) in self._h.partitions()
        ]

    def watermark_timeline(self) -> List[Tuple[Seconds, Seconds]]:
        """(processing time, watermark) at every advance of the job's watermark."""
        return [(ms_to_seconds(t), ms_to_seconds(w)) for (t, w) in self._h.watermark_timeline()]

    def checkpoint(self) -> bytes:
        """The job's state now (watermarks, idleness, open windows, the clock)."""
        return self._h.checkpoint()

    def restore(self, checkpoint: bytes) -> None:
        """Continues from a checkpoint of a harness configured the same way."""
        self._h.restore(checkpoint)
