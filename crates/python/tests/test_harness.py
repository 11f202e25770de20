"""The harness from Python: the case study's tests as it writes them."""

import pytest

from lowwater import Event, Harness, LowwaterError


def test_seed003_verbatim_the_bug_asserted_and_partition_1_named():
    h = Harness(window_seconds=60, watermark_delay=30, partitions=2, idle_timeout=None)
    for t in (0, 30, 90, 150):
        h.process(Event("k0", t, partition=0))  # partition 1: silent
    h.advance_processing_time(300)
    assert h.output() == []  # the bug, asserted

    held = h.held_by()
    assert (held.partition, held.subtask) == (1, 0)
    assert held.never_had_record and held.watermark is None
    assert held.silent_for == 300
    assert str(held).startswith("partition 1 (subtask 0) has had no record since the start")
    assert "withIdleness" in held.reason
    assert h.watermark is None  # MIN: nothing can fire
    assert [p.records for p in h.partitions()] == [4, 0]


def test_seed003_with_idle_timeout_60_the_windows_fire_and_say_when():
    h = Harness(window_seconds=60, watermark_delay=30, partitions=2, idle_timeout=60)
    for t in (0, 30, 90, 150):
        h.process(Event("k0", t, partition=0))
    h.advance_processing_time(300)
    out = h.output()
    assert out == [(0, 60, "k0", 2), (60, 120, "k0", 1)]
    assert out[0] == {"window_start": 0, "window_end": 60, "key": "k0", "count": 2}
    assert out[1] != {"window_start": 60, "window_end": 120, "key": "k0", "count": 2}
    assert (out[0].count, out[0].key) == (2, "k0")
    # Both partitions idle after 60 s of silence (at the emit past 60.2 s).
    assert out[0].emitted_at == 60.4 and out[0].emission_lag == 0.4
    assert h.watermark == 119.999  # 150 - 30 - 0.001: DataStream's - 1 ms
    assert h.held_by() is None and h.is_idle


def test_fourth_case_a_record_after_idleness_is_late_and_counted_not_lost():
    h = Harness(window_seconds=60, watermark_delay=30, partitions=2, idle_timeout=60)
    for t in (0, 30, 90, 150):
        h.process(Event("k0", t, partition=0))
    h.advance_processing_time(300)
    h.process(Event("k1", 10, partition=1))  # partition 1 wakes up with an old event
    assert h.late() == {1: 1}
    assert h.late_dropped == 1
    assert len(h.output()) == 2  # no window re-fired, nothing silently merged

    side = Harness(window_seconds=60, watermark_delay=30, partitions=2, idle_timeout=60, late_side_output=True)
    for t in (0, 30, 90, 150):
        side.process(Event("k0", t, partition=0))
    side.advance_processing_time(300)
    side.process(Event("k1", 10, partition=1, value=7))
    assert side.late_records() == [Event("k1", 10, 1, 7)]
    assert side.late_routed() == {1: 1} and side.late() == {}


def test_aggregates_composite_keys_and_global_windows():
    h = Harness(window_seconds=10, aggregates=["count", "sum", "max", ("min", 1)])
    h.process(Event(("eu", "web"), 1, value=(3, 9)))
    h.process(Event(("eu", "web"), 2, value=(5, 4)))
    h.process(Event((), 3, value=(1, 1)))
    h.end_of_input()
    assert sorted(h.output(), key=repr) == sorted(
        [(0, 10, ("eu", "web"), 2, 8, 5, 4), (0, 10, None, 1, 1, 1, 1)], key=repr
    )
    assert h.output()[0].as_dict().keys() == {"window_start", "window_end", "key", "count", "sum", "max", "min_1"}


def test_checkpoint_and_restore_continue_the_open_windows():
    def fresh():
        return Harness(window_seconds=60, watermark_delay=30, partitions=2, idle_timeout=60)

    h = fresh()
    for t in (0, 30, 90):
        h.process(Event("k0", t, partition=0))
    h.advance_processing_time(10)
    snap = h.checkpoint()
    h2 = fresh()
    h2.restore(snap)
    for x in (h, h2):
        x.process(Event("k0", 150, partition=0))
        x.advance_processing_time(300)
    assert h2.output() == h.output() == [(0, 60, "k0", 2), (60, 120, "k0", 1)]
    assert [r.emitted_at for r in h2.output()] == [r.emitted_at for r in h.output()]


def test_mistakes_are_python_exceptions_with_the_core_message():
    h = Harness(window_seconds=60, partitions=2)
    with pytest.raises(LowwaterError, match=r"partition 5 does not exist: the topic has partitions 0\.\.2"):
        h.process(Event("k", 1, partition=5))
    with pytest.raises(ValueError, match="window='sliding'"):
        Harness(window_seconds=60, window="sliding")
    with pytest.raises(ValueError, match="needs the slide"):
        Harness(window_seconds=60, window="hop")
    with pytest.raises(LowwaterError, match="invalid window"):
        Harness(window_seconds=0)
    with pytest.raises(ValueError, match="must not be negative"):
        h.advance_processing_time(-1)
    with pytest.raises(TypeError, match="must be a number"):
        Harness(window_seconds="60")
    with pytest.raises(ValueError, match="not a value lowwater aggregates"):
        h.process(Event(object(), 1))
    with pytest.raises(ValueError, match="unknown aggregate 'median'"):
        Harness(window_seconds=60, aggregates=["median"])
