"""lowwater for Python: test event-time watermarks and windows with Flink's
exact rules.

- ``Harness`` and ``Event``: a whole windowed job on a manual clock, in
  seconds (the case study's test runs verbatim); ``output()``, ``late()``,
  ``held_by()``.
- ``WatermarkStrategy``, ``Duration``, ``ManualClock``: PyFlink-shaped
  strategies whose generator you drive by hand, in milliseconds.
- ``replay`` and ``explain``: ``lowwater replay`` / ``lowwater explain`` of a
  Flink SQL job over Kafka topic dumps.

Everything runs lowwater's Rust core; nothing here re-implements it.
"""

from ._lowwater import MAX_WATERMARK, MIN_WATERMARK, LowwaterError
from ._harness import Event, HeldBy, Harness, PartitionState, Row
from ._replay import Report, explain, replay
from ._strategy import IDLE, ManualClock, Watermark, WatermarkGenerator, WatermarkOutput, WatermarkStrategy
from ._time import Duration

__all__ = [
    "Duration",
    "Event",
    "Harness",
    "HeldBy",
    "IDLE",
    "LowwaterError",
    "MAX_WATERMARK",
    "MIN_WATERMARK",
    "ManualClock",
    "PartitionState",
    "Report",
    "Row",
    "Watermark",
    "WatermarkGenerator",
    "WatermarkOutput",
    "WatermarkStrategy",
    "explain",
    "replay",
]
