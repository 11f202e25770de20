#!/usr/bin/env python3
"""Writes the golden replay cases: cases/<name>/{job.sql, args, *.jsonl}.

Deterministic. Expected outputs are not written here: run the golden test
with BLESS=1 (`BLESS=1 cargo test -p lowwater-replay --test golden`) after
reviewing the change, then read the diff of cases/*/expected/.
"""
import datetime
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
T0 = int(datetime.datetime(2025, 9, 14, 12, tzinfo=datetime.timezone.utc).timestamp() * 1000)


def sql_ts(ms, sep=" ", z=""):
    d = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%d" + sep + "%H:%M:%S.") + "%03d" % (ms % 1000) + z


def rec(topic, partition, offset, ts, payload):
    if not isinstance(payload, str):
        payload = json.dumps(payload, separators=(",", ":"))
    return json.dumps({"topic": topic, "partition": partition, "offset": offset, "tstype": "create",
                       "ts": ts, "key": None, "payload": payload}, separators=(",", ":"))


KAFKA = "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json'{extra}"


def source(name="events", topic="events", cols="user_id STRING, amount INT, ts TIMESTAMP(3)", wm="ts - INTERVAL '2' SECOND", extra=""):
    return ("CREATE TABLE %s (\n  %s,\n  WATERMARK FOR %s AS %s\n) WITH (%s);\n"
            % (name, cols.replace(", ", ",\n  "), wm.split()[0], wm, KAFKA.format(topic=topic, extra=extra)))


def sink(name, cols, connector=None):
    with_ = connector or KAFKA.format(topic=name, extra="")
    return "CREATE TABLE %s (%s) WITH (%s);\n" % (name, cols, with_)


def events(spec, topic="events", payload=None):
    """spec: list of (arrival_offset_ms, partition, event_offset_ms, user, amount)."""
    out, offsets = [], {}
    for at, p, ev, user, amount in spec:
        off = offsets.get(p, 0)
        offsets[p] = off + 1
        body = payload(at, p, ev, user, amount) if payload else {"user_id": user, "amount": amount, "ts": sql_ts(T0 + ev)}
        out.append(rec(topic, p, off, T0 + at, body))
    return out


def steady(partitions, seconds, every=1000, users=("a", "b"), skip=()):
    """Each partition: one record per `every` ms, event time = arrival."""
    spec = []
    for k in range(seconds * 1000 // every):
        for p in range(partitions):
            if (p, k) in skip or p in skip:
                continue
            t = k * every + p * 10
            spec.append((t, p, t, users[(k + p) % len(users)], (k * 7 + p) % 11))
    return spec


def case(name, job, inputs, args):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "job.sql"), "w") as f:
        f.write(job)
    for fname, lines in inputs.items():
        with open(os.path.join(d, fname), "w") as f:
            f.write("".join(l + "\n" for l in lines))
    with open(os.path.join(d, "args"), "w") as f:
        f.write(args.strip() + "\n")


COUNT_SINK = sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, cnt BIGINT")
COUNT_BY_USER = ("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) AS cnt\n"
                 "FROM TABLE({tvf}) GROUP BY window_start, window_end, user_id;\n")


def tvf(kind, args, table="events", col="ts", part=""):
    return "%s(TABLE %s%s, DESCRIPTOR(%s), %s)" % (kind, table, part, col, args)


def main():
    if os.path.isdir(CASES):
        for name in os.listdir(CASES):
            for f in os.listdir(os.path.join(CASES, name)):
                if f != "expected":
                    os.remove(os.path.join(CASES, name, f))
    basic = events(steady(2, 30))
    std_args = "--input events=events.jsonl --output out=out.jsonl"

    case("tumble_keyed", source() + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
         {"events.jsonl": basic}, std_args)
    case("tumble_global", source() + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, COUNT(*), SUM(amount) FROM TABLE(%s) GROUP BY window_start, window_end;\n"
         % tvf("TUMBLE", "INTERVAL '10' SECOND"), {"events.jsonl": basic}, std_args)
    case("tumble_offset", source() + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND, INTERVAL '3' SECOND")),
         {"events.jsonl": basic}, std_args)
    case("hop_keyed", source() + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("HOP", "INTERVAL '5' SECOND, INTERVAL '10' SECOND")),
         {"events.jsonl": basic}, std_args)
    case("cumulate_global", source() + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, COUNT(*) FROM TABLE(%s) GROUP BY window_start, window_end;\n"
         % tvf("CUMULATE", "INTERVAL '5' SECOND, INTERVAL '15' SECOND"), {"events.jsonl": basic}, std_args)
    bursty = events([(t, p, t, u, 1) for (t, p, u) in
                     [(0, 0, "a"), (1000, 0, "a"), (2500, 1, "b"), (9000, 0, "a"), (9500, 1, "b"), (20000, 0, "a"),
                      (21000, 1, "a"), (30000, 0, "b"), (30500, 1, "b"), (40000, 0, "a"), (40000, 1, "b")]])
    case("session_keyed", source() + COUNT_SINK + COUNT_BY_USER.format(
        tvf=tvf("SESSION", "INTERVAL '5' SECOND", part=" PARTITION BY user_id")), {"events.jsonl": bursty}, std_args)
    case("session_global", source() + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, users BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, COUNT(*), COUNT(DISTINCT user_id) FROM TABLE(%s) GROUP BY window_start, window_end;\n"
         % tvf("SESSION", "INTERVAL '5' SECOND"), {"events.jsonl": bursty}, std_args)

    # Out-of-order data with late rows (delay 2 s, 10 s windows).
    late = events([(0, 0, 0, "a", 1), (1000, 0, 1000, "a", 2), (12500, 0, 12500, "a", 3), (13000, 1, 13000, "b", 4),
                   (13500, 0, 9000, "a", 5), (14000, 1, 4000, "b", 6), (15000, 1, 9999, "b", 7),
                   (16000, 0, 16000, "a", 8), (26000, 1, 26000, "b", 9), (27000, 0, 15000, "a", 10)])
    case("late_rows_dropped", source() + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
         {"events.jsonl": late}, std_args)
    case("late_rows_to_sink", source(extra=", 'late-data.sink' = 'late'") + COUNT_SINK
         + sink("late", "user_id STRING, amount INT, ts TIMESTAMP(3)")
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
         {"events.jsonl": late}, std_args + " --output late=late.jsonl")
    # A late row of a deduplication goes to the late-data sink too.
    case("window_dedup_late_rows_to_sink", source(extra=", 'late-data.sink' = 'late'")
         + sink("out", "window_start TIMESTAMP(3), user_id STRING, amount INT")
         + sink("late", "user_id STRING, amount INT, ts TIMESTAMP(3)")
         + "INSERT INTO out SELECT window_start, user_id, amount FROM (\n"
           "  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts) AS rn\n"
           "  FROM TABLE(%s)\n"
           ") WHERE rn = 1;\n" % tvf("TUMBLE", "INTERVAL '10' SECOND"),
         {"events.jsonl": late}, std_args + " --output late=late.jsonl")
    case("hop_late_row_counts_in_open_window", source(wm="ts - INTERVAL '0' SECOND") + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("HOP", "INTERVAL '5' SECOND, INTERVAL '10' SECOND")),
         {"events.jsonl": events([(0, 0, 0, "a", 1), (5200, 0, 5200, "a", 1), (5600, 0, 3000, "a", 1), (5700, 0, 100, "a", 1)])},
         std_args)

    # Window Top-N: the two users with the most rows per window (ties by
    # name), and per window the user with the largest sum, one per amount
    # sign (a partition by a GROUP BY key routes by that key live).
    many = events([(t, t // 1000 % 3, t, "u%d" % (t * 7 // 1000 % 5), (t // 1000) % 4 - 1) for t in range(0, 40000, 500)])
    case("window_top_n", source() + sink("out", "window_start TIMESTAMP(3), user_id STRING, cnt BIGINT, rn BIGINT")
         + "INSERT INTO out SELECT window_start, user_id, cnt, rn FROM (\n"
           "  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cnt DESC, user_id) AS rn\n"
           "  FROM (SELECT window_start, window_end, user_id, COUNT(*) AS cnt FROM TABLE(%s)\n"
           "        GROUP BY window_start, window_end, user_id)\n"
           ") WHERE rn <= 2;\n" % tvf("TUMBLE", "INTERVAL '10' SECOND"),
         {"events.jsonl": many}, std_args + " --partitions events=3")
    case("window_top_n_rows", source() + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, amount INT, rn BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, user_id, amount, rn FROM (\n"
           "  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn\n"
           "  FROM TABLE(%s)\n"
           ") WHERE rn <= 3;\n" % tvf("HOP", "INTERVAL '5' SECOND, INTERVAL '10' SECOND"),
         {"events.jsonl": many}, std_args + " --partitions events=3")
    case("window_top_n_partitioned", source() + sink("out", "window_start TIMESTAMP(3), positive BOOLEAN, user_id STRING, total INT")
         + "INSERT INTO out SELECT window_start, positive, user_id, total FROM (\n"
           "  SELECT window_start, positive, user_id, total,\n"
           "    RANK() OVER (PARTITION BY window_start, window_end, positive ORDER BY total DESC) AS r\n"
           "  FROM (SELECT window_start, window_end, amount > 0 AS positive, user_id, SUM(amount) AS total FROM TABLE(%s)\n"
           "        GROUP BY window_start, window_end, amount > 0, user_id)\n"
           ") WHERE r = 1;\n" % tvf("HOP", "INTERVAL '5' SECOND, INTERVAL '10' SECOND"),
         {"events.jsonl": many}, std_args + " --partitions events=3")

    # A window function without GROUP BY: every row at once with its
    # windows (HOP: two per row), late rows included, as Flink's.
    case("window_rows_hop_late_included", source() + sink("out", "user_id STRING, amount INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3)")
         + "INSERT INTO out SELECT user_id, amount, window_start, window_end FROM TABLE(%s) WHERE amount <> 3;\n"
         % tvf("HOP", "INTERVAL '5' SECOND, INTERVAL '10' SECOND"),
         {"events.jsonl": late}, std_args)

    # One record from a producer whose clock is off (year 9999): without the
    # guard its watermark makes every later record late; with
    # 'lowwater.watermark.max-future' it is kept out and counted.
    far = int(datetime.datetime(9999, 1, 1, tzinfo=datetime.timezone.utc).timestamp() * 1000) - T0
    skewed = events([(t, 0, t, "a", 1) for t in range(0, 30000, 1000)] + [(30500, 0, far, "bad", 1)]
                    + [(t, 0, t, "a", 1) for t in range(31000, 60000, 1000)])
    for name, opts in [("future_timestamp_unguarded", ""),
                       ("future_timestamp_guarded", ", 'lowwater.watermark.max-future' = '10 min'")]:
        case(name, source(extra=opts) + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
             {"events.jsonl": skewed}, std_args)
    # Four partitions with a 1 min idle timeout: the year-9999 record on
    # partition 2, then a 3 min lull on all of them. Unguarded, partition 2
    # is the last to wake and its watermark (9999) passes: every later
    # record is late. Guarded, none is.
    lull = sorted([(t, p, t, "u%d" % p, 1) for t in range(0, 60000, 1000) for p in range(4)]
                  + [(30500, 2, far, "bad", 1)]
                  + [(t, p, t, "u%d" % p, 1) for t in range(240000, 300000, 1000) for p in range(4)])
    for name, opts in [("future_timestamp_lull_unguarded", ", 'scan.watermark.idle-timeout' = '1 min'"),
                       ("future_timestamp_lull_guarded", ", 'scan.watermark.idle-timeout' = '1 min', "
                        "'lowwater.watermark.max-future' = '10 min'")]:
        case(name, source(extra=opts) + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
             {"events.jsonl": events(lull)}, std_args + " --partitions events=4")

    # The guarded record and a late one in the late-data sink, each with why.
    case("future_timestamp_to_late_sink",
         source(extra=", 'lowwater.watermark.max-future' = '10 min', 'late-data.sink' = 'late'") + COUNT_SINK
         + sink("late", "user_id STRING, ts TIMESTAMP(3), lowwater_late_reason STRING")
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
         {"events.jsonl": events([(t, 0, t, "a", 1) for t in range(0, 30000, 1000)] + [(30500, 0, far, "bad", 1)]
                                 + [(t, 0, t, "a", 1) for t in range(31000, 60000, 1000)] + [(60500, 0, 5000, "old", 1)])},
         std_args + " --output late=late.jsonl")

    # Watermark alignment: partition 0 catches up from 400 s behind at
    # six times real speed while partitions 1-3 are live. Unaligned, their
    # records wait in open windows until partition 0 passes them; aligned
    # (drift 30 s), partitions 1-3 are paused and their records wait unread.
    # The rows are the same (tests/alignment.rs compares them).
    catch_up = sorted([(t, 0, -400000 + t * 6, "a", 1) for t in range(0, 120000, 500)]
                      + [(t, p, t, "b", 1) for t in range(0, 120000, 1000) for p in (1, 2, 3)])
    for name, opts in [("alignment_off", ""),
                       ("alignment_catch_up", ", 'scan.watermark.alignment.group' = 'g', "
                        "'scan.watermark.alignment.max-drift' = '30 s', 'scan.watermark.alignment.update-interval' = '1 s'")]:
        case(name, source(extra=opts) + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
             {"events.jsonl": events(catch_up)}, std_args + " --partitions events=4")

    # FLIP-296 emission: on-event, the watermark follows each record at once
    # (row 3 is late); periodically (or on-event every 3 rows) the last row's
    # watermark is emitted later and row 3 counts.
    burst = events([(0, 0, 0, "a", 1), (10, 0, 12000, "a", 2), (20, 0, 3000, "a", 3), (30000, 0, 30000, "a", 4)])
    for name, opts in [("on_event_emission", ", 'scan.watermark.emit.strategy' = 'on-event'"),
                       ("on_event_gap_3", ", 'scan.watermark.emit.strategy' = 'on-event', 'scan.watermark.emit.on-event.gap' = '3'"),
                       ("on_periodic_emission", ", 'scan.watermark.emit.strategy' = 'on-periodic'")]:
        case(name, source(extra=opts) + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
             {"events.jsonl": burst}, std_args)

    # WHERE: partition 1's rows are all filtered out, but still move the watermark.
    case("where_filter_keeps_watermark", source() + COUNT_SINK
         + "INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) AS cnt FROM TABLE(%s)\n"
           "WHERE user_id <> 'b' AND amount >= 0 GROUP BY window_start, window_end, user_id;\n" % tvf("TUMBLE", "INTERVAL '10' SECOND"),
         {"events.jsonl": events([(t, p, t, "a" if p == 0 else "b", 1) for t in range(0, 30000, 1000) for p in (0, 1)])},
         std_args)

    nulls = events([(0, 0, 0, "a", 5), (100, 0, 100, None, 7), (200, 1, 200, "b", None), (300, 1, 300, "a", -2),
                    (400, 0, 400, "c", 10), (11000, 0, 11000, "a", 1), (11000, 1, 11000, "b", 1)])
    case("aggregates_with_nulls", source(cols="user_id STRING, amount INT, ts TIMESTAMP(3)")
         + sink("out", "window_start TIMESTAMP(3), c BIGINT, c_user BIGINT, users BIGINT, s INT, mn INT, mx INT, av INT, avg_d DOUBLE")
         + "INSERT INTO out SELECT window_start, COUNT(*), COUNT(user_id), COUNT(DISTINCT user_id), SUM(amount), MIN(amount), MAX(amount), AVG(amount), AVG(CAST(amount AS DOUBLE))\n"
           "FROM TABLE(%s) GROUP BY window_start, window_end;\n" % tvf("TUMBLE", "INTERVAL '10' SECOND"),
         {"events.jsonl": nulls}, std_args)

    epoch = events(steady(2, 20), payload=lambda at, p, ev, u, a: {"user_id": u, "epoch_ms": T0 + ev})
    case("computed_rowtime_ltz", source(cols="user_id STRING, epoch_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(epoch_ms, 3)")
         + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP_LTZ(3), user_id STRING, cnt BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, window_time, user_id, COUNT(*) FROM TABLE(%s) GROUP BY window_start, window_end, user_id;\n"
         % tvf("TUMBLE", "INTERVAL '5' SECOND"), {"events.jsonl": epoch}, std_args)
    meta = events(steady(2, 20), payload=lambda at, p, ev, u, a: {"user_id": u})
    case("metadata_timestamp_rowtime", source(cols="user_id STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL, part INT METADATA FROM 'partition'")
         + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), part INT, cnt BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, part, COUNT(*) FROM TABLE(%s) GROUP BY window_start, window_end, part;\n"
         % tvf("TUMBLE", "INTERVAL '5' SECOND"), {"events.jsonl": meta}, std_args)
    iso = events(steady(1, 12), payload=lambda at, p, ev, u, a: {"user_id": u, "amount": a, "ts": sql_ts(T0 + ev, "T")})
    case("iso8601_timestamps", source(extra=", 'json.timestamp-format.standard' = 'ISO-8601'")
         + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, cnt BIGINT",
                connector=KAFKA.format(topic="out", extra=", 'json.timestamp-format.standard' = 'ISO-8601'"))
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": iso}, std_args)
    bad = events(steady(1, 12))
    bad[3] = rec("events", 0, 3, T0 + 3000, '{"user_id":"a","amount":"lots","ts":"%s"}' % sql_ts(T0 + 3000))
    bad[5] = rec("events", 0, 5, T0 + 5000, '{"user_id":"a", broken')
    bad[7] = rec("events", 0, 7, T0 + 7000, '{"user_id":"a","amount":1}')
    case("ignore_parse_errors", source(extra=", 'json.ignore-parse-errors' = 'true'") + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": bad}, std_args)

    case("ignore_parse_errors_nulls_fields", source(extra=", 'json.ignore-parse-errors' = 'true'")
         + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, total INT, n BIGINT")
         + "INSERT INTO out SELECT window_start, window_end, user_id, SUM(amount), COUNT(amount) FROM TABLE(%s) GROUP BY window_start, window_end, user_id;\n"
         % tvf("TUMBLE", "INTERVAL '5' SECOND"), {"events.jsonl": bad}, std_args)
    tomb = events(steady(1, 8))
    tomb[2] = json.dumps({"topic": "events", "partition": 0, "offset": 2, "tstype": "create", "ts": T0 + 2000,
                          "key": "k", "payload": None}, separators=(",", ":"))
    tomb[4] = rec("events", 0, 4, T0 + 4000, "")
    case("tombstones_and_empty_payloads_are_skipped", source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": tomb}, std_args)
    gap = events([(t, p, t, "a", 1) for t in list(range(0, 20000, 1000)) + list(range(3600000, 3620000, 1000)) for p in (0, 1)])
    case("silent_hour_is_not_a_stall", source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": gap}, std_args)
    case("kafka_sink_key_except_key", source() + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), k_user STRING, cnt BIGINT",
         connector=KAFKA.format(topic="out", extra=", 'key.format' = 'json', 'key.fields' = 'k_user', 'key.fields-prefix' = 'k_', 'value.fields-include' = 'EXCEPT_KEY'"))
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")), {"events.jsonl": basic}, std_args)
    case("parallelism_2", "SET 'parallelism.default' = '2';\n" + source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": events(steady(6, 20))}, std_args)
    case("parallelism_8_more_subtasks_than_partitions", "SET 'parallelism.default' = '8';\n" + source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": events(steady(4, 30))},
         std_args + " --not-parallelism-invariant")
    case("parallelism_8_more_subtasks_with_idle_timeout", "SET 'parallelism.default' = '8';\nSET 'table.exec.source.idle-timeout' = '2 s';\n"
         + source() + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")),
         {"events.jsonl": events(steady(4, 30))}, std_args)

    quiet_end = events([(t, p, t, "a", 1) for t in range(0, 8000, 1000) for p in (0, 1)] + [(60000, 0, 60000, "z", 1)])
    case("idle_partition_end_of_input_flushes", "SET 'table.exec.source.idle-timeout' = '5 s';\n" + source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '1' MINUTE")), {"events.jsonl": quiet_end}, std_args)
    case("no_drain", source() + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")),
         {"events.jsonl": basic}, std_args + " --no-drain")
    case("emit_interval_zero", "SET 'pipeline.auto-watermark-interval' = '0';\n" + source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")), {"events.jsonl": basic}, std_args)
    case("two_inserts_one_source", source() + COUNT_SINK + sink("hops", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), total BIGINT")
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND"))
         + "INSERT INTO hops SELECT window_start, window_end, SUM(amount) FROM TABLE(%s) GROUP BY window_start, window_end;\n"
         % tvf("HOP", "INTERVAL '5' SECOND, INTERVAL '10' SECOND"),
         {"events.jsonl": basic}, std_args + " --output hops=hops.jsonl")
    # Partition 1 goes quiet after 5 s; its own table option releases it, the global setting would not.
    quiet1 = events([(t, p, t, "a", 1) for t in range(0, 40000, 1000) for p in (0, 1) if p == 0 or t < 5000])
    case("table_idle_timeout_overrides_global", "SET 'table.exec.source.idle-timeout' = '1 h';\n"
         + source(extra=", 'scan.watermark.idle-timeout' = '3 s'") + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": quiet1}, std_args)
    # Window deduplication over rows waits on the watermark as a window
    # does: the quiet partition holds it, and the report names it.
    case("window_dedup_quiet_partition", source() + sink("out", "window_start TIMESTAMP(3), user_id STRING, amount INT, ts TIMESTAMP(3)")
         + "INSERT INTO out SELECT window_start, user_id, amount, ts FROM (\n"
           "  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts DESC) AS rn\n"
           "  FROM TABLE(%s)\n"
           ") WHERE rn = 1;\n" % tvf("TUMBLE", "INTERVAL '5' SECOND"), {"events.jsonl": quiet1}, std_args)
    case("quiet_partition_without_idle_timeout", source() + COUNT_SINK
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")), {"events.jsonl": quiet1}, std_args)
    case("print_sink", source() + sink("out", "window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, cnt BIGINT",
                                        connector="'connector' = 'print'")
         + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '10' SECOND")), {"events.jsonl": basic}, std_args)
    two_topics = events(steady(2, 12), topic="a") + events(steady(1, 12), topic="b")
    case("two_topics_one_table", source(topic="a;b") + COUNT_SINK + COUNT_BY_USER.format(tvf=tvf("TUMBLE", "INTERVAL '5' SECOND")),
         {"events.jsonl": two_topics}, std_args)

    # The seed incidents, on the example dumps.
    ex = "../../../../../../examples/"  # from a case directory
    root_ex = os.path.join(HERE, "../../../../examples/")
    case("seed000_heartbeat", open(os.path.join(root_ex, "seed000_heartbeat/job.sql")).read(), {},
         "--input clickstream=%sseed000_heartbeat/clickstream.jsonl --output dashboard=dashboard.jsonl" % ex)
    case("seed000_heartbeat_idle_timeout", open(os.path.join(root_ex, "seed000_heartbeat/job_idle_timeout.sql")).read(), {},
         "--input clickstream=%sseed000_heartbeat/clickstream.jsonl --output dashboard=dashboard.jsonl" % ex)
    case("seed000_retired_producer", open(os.path.join(root_ex, "seed000_heartbeat/job.sql")).read(), {},
         "--input clickstream=%sseed000_heartbeat/clickstream_retired.jsonl --partitions clickstream=16 --output dashboard=dashboard.jsonl" % ex)
    case("seed000_retired_producer_idle_timeout", open(os.path.join(root_ex, "seed000_heartbeat/job_idle_timeout.sql")).read(), {},
         "--input clickstream=%sseed000_heartbeat/clickstream_retired.jsonl --partitions clickstream=16 --output dashboard=dashboard.jsonl" % ex)
    case("seed003_overnight", open(os.path.join(root_ex, "seed003_overnight/job.sql")).read(), {},
         "--input stock_changes=%sseed003_overnight/stock_changes.jsonl --output stock_out_alerts=alerts.jsonl" % ex)
    case("seed003_overnight_idle_timeout", open(os.path.join(root_ex, "seed003_overnight/job_idle_timeout.sql")).read(), {},
         "--input stock_changes=%sseed003_overnight/stock_changes.jsonl --output stock_out_alerts=alerts.jsonl" % ex)

    # The temporal join's incident: a rates partition that never gets a
    # record holds every order until the end; its own idle-timeout frees it.
    rates_args = ("--input orders=%srates_join/orders.jsonl --input rates=%srates_join/rates.jsonl "
                  "--partitions rates=4 --output converted=converted.jsonl --rows-unordered" % (ex, ex))
    case("temporal_join_quiet_rates", open(os.path.join(root_ex, "rates_join/job.sql")).read(), {}, rates_args)
    case("temporal_join_quiet_rates_idle_timeout", open(os.path.join(root_ex, "rates_join/job_idle_timeout.sql")).read(), {},
         rates_args)


if __name__ == "__main__":
    main()
