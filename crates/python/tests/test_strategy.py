"""Seed 002's exercise: a watermark strategy tested on a manual clock, with
Flink's exact rules (BoundedOutOfOrdernessWatermarks emits max - delay - 1;
WatermarksWithIdleness goes idle on the periodic emit once the clock is past
the timeout without a record). Times in milliseconds, as in Flink."""

import datetime

import pytest

from lowwater import IDLE, MIN_WATERMARK, Duration, ManualClock, WatermarkOutput, WatermarkStrategy


class Event:
    def __init__(self, ts_ms):
        self.ts_ms = ts_ms


class TsAssigner:  # PyFlink's TimestampAssigner shape
    def extract_timestamp(self, value, record_timestamp):
        return value.ts_ms


def strategy(out_of_orderness_ms=5, idle_ms=1_000):
    return (
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(out_of_orderness_ms))
        .with_timestamp_assigner(lambda e, ts: e.ts_ms)
        .with_idleness(Duration.of_millis(idle_ms))
    )


def test_first_watermark_is_min_and_bounded_out_of_orderness_subtracts_delay_and_one():
    clock = ManualClock()
    g = strategy().create_generator(clock)
    out = WatermarkOutput()
    assert g.on_periodic_emit(out) == MIN_WATERMARK == -(2**63)
    g.on_event(Event(100))
    g.on_event(Event(200))
    clock.advance(200)
    # 200 - 5 - 1: Flink's DataStream form (a missing assigner never gets here).
    assert g.on_periodic_emit(out) == 194
    assert out.watermarks == [MIN_WATERMARK, 194] and not out.idle
    # An out-of-order event below the maximum does not move it back.
    g.on_event(Event(150))
    assert g.on_periodic_emit(out) == 194


def test_sql_form_and_pyflink_assigner_and_durations():
    g = WatermarkStrategy.for_sql_interval(Duration.of_millis(5)).with_timestamp_assigner(TsAssigner()).create_generator()
    g.on_event(Event(100))
    g.on_event(Event(200))
    assert g.on_periodic_emit() == 195  # ts - INTERVAL, no - 1
    mono = WatermarkStrategy.for_monotonous_timestamps().create_generator()
    mono.on_event(None, event_timestamp=1_000)
    assert mono.on_periodic_emit() == 999
    s = WatermarkStrategy.for_bounded_out_of_orderness(datetime.timedelta(seconds=5))
    g = s.create_generator()
    g.on_event(None, 10_000)
    assert g.current_watermark == 4_999
    with pytest.raises(TypeError, match="not whole milliseconds"):
        s.create_generator().on_event(Event(1))  # no assigner, no timestamp


def test_idleness_after_the_timeout_never_before_and_active_again_on_a_record():
    clock = ManualClock()
    g = strategy(idle_ms=1_000).create_generator(clock)
    out = WatermarkOutput()
    g.on_event(Event(100))
    g.on_event(Event(200))
    assert g.on_periodic_emit(out) == 194
    # Silence, with Flink's periodic emit every 200 ms.
    went_idle = None
    while went_idle is None:
        clock.advance(200)
        r = g.on_periodic_emit(out)
        if r == IDLE:
            went_idle = clock.now()
        else:
            assert r == 194 and not out.idle
        assert clock.now() <= 1_000 + 3 * 200, "idle within the timeout and a few intervals"
    assert went_idle > 1_000, "never before the timeout"
    assert g.is_idle and out.idle
    # It says idle once; while idle the periodic emit is silent.
    clock.advance(200)
    assert g.on_periodic_emit(out) is None
    # A record makes it active again: the next emit is a watermark.
    g.on_event(Event(900))
    assert not g.is_idle
    assert g.on_periodic_emit(out) == 894
    assert not out.idle and out.last == 894


def test_without_idleness_a_silent_split_is_never_idle():
    clock = ManualClock()
    g = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5)).with_timestamp_assigner(TsAssigner()).create_generator(clock)
    g.on_event(Event(10_000))
    for _ in range(100):
        clock.advance(Duration.of_minutes(1))
        assert g.on_periodic_emit() == 4_999
    assert not g.is_idle


def test_a_clock_only_moves_forward_and_strategies_check_their_arguments():
    clock = ManualClock(1_000)
    with pytest.raises(ValueError, match="only moves forward"):
        clock.set(10)
    with pytest.raises(ValueError, match="must not be negative"):
        clock.advance(-1)
    assert clock.advance(Duration.of_seconds(1)) == 2_000
    with pytest.raises(TypeError, match="TimestampAssigner"):
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(42)
    with pytest.raises(ValueError, match="must not be negative"):
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(-5))
