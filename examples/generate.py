#!/usr/bin/env python3
"""Regenerates the example dumps (kcat -J lines) of the seed incidents.

Deterministic: the same files every run. Run from the repository root:
    python3 examples/generate.py
"""
import datetime
import json
import os

DAY = int(datetime.datetime(2025, 9, 14, tzinfo=datetime.timezone.utc).timestamp() * 1000)
HERE = os.path.dirname(os.path.abspath(__file__))


def sql_ts(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)


def line(topic, partition, offset, ts, payload, key=None):
    return json.dumps(
        {"topic": topic, "partition": partition, "offset": offset, "tstype": "create", "ts": ts,
         "key": key, "payload": json.dumps(payload, separators=(",", ":"))},
        separators=(",", ":"))


def write(path, records):
    records.sort(key=lambda r: (r[0], r[1]))
    with open(path, "w") as f:
        for _, _, text in records:
            f.write(text + "\n")


def clickstream(minutes, heartbeat=True):
    """16 partitions; 15 busy (a click per partition per minute), partition 11
    one heartbeat every 90 minutes stamped with the wall clock."""
    out, offsets = [], [0] * 16
    for p in range(16):
        if p == 11:
            continue
        for k in range(minutes):
            at = DAY + k * 60_000 + p * 3_700
            event = at - (p * 389 + k * 113) % 2_000
            payload = {"user_id": "u%d" % ((p * 7 + k) % 5), "url": "/p/%d" % (k % 9), "event_time": sql_ts(event)}
            out.append((at, p, line("clickstream", p, offsets[p], at, payload)))
            offsets[p] += 1
    if heartbeat:
        for at in range(DAY + 10_000, DAY + minutes * 60_000, 90 * 60_000):
            payload = {"user_id": "heartbeat", "url": "/health", "event_time": sql_ts(at)}
            out.append((at, 11, line("clickstream", 11, offsets[11], at, payload)))
            offsets[11] += 1
    return out


def stock_changes(stragglers=()):
    """12 partitions keyed by SKU, 03:00-07:00; partition 7 (slow SKUs) is
    quiet from 03:37:58 to 06:20. `stragglers`: (arrival, event time) of
    partition-7 records delivered late by their producer."""
    out, start = [], DAY + 3 * 3_600_000
    quiet = (DAY + (3 * 3600 + 37 * 60 + 58) * 1000, DAY + (6 * 3600 + 20 * 60) * 1000)
    for p in range(12):
        rows = []
        for k in range(240):
            at = start + k * 60_000 + p * 2_900
            if p == 7:
                at = start + k * 60_000 + 58_000 if k < 37 else (quiet[0] if k == 37 else quiet[1] + (k - 200) * 60_000)
                if k > 37 and k < 200:
                    continue
            qty = max(0, 40 - (k * (p + 3)) % 43)
            rows.append((at, {"sku": "sku-%02d-%d" % (p, k % 3), "available_qty": qty, "changed_at": sql_ts(at)}))
        if p == 7:
            for i, (at, event) in enumerate(stragglers):
                rows.append((at, {"sku": "sku-07-%d" % i, "available_qty": 0, "changed_at": sql_ts(event)}))
            rows.sort(key=lambda r: r[0])
        for offset, (at, payload) in enumerate(rows):
            out.append((at, p, line("stock_changes", p, offset, at, payload)))
    return out


def clock(h, m, s):
    return DAY + (h * 3600 + m * 60 + s) * 1000


# Three partition-7 records its producer delivered late during the quiet
# night, 1m 50s to 2m 10s after their event time. One is late when partition
# 7 is idle and the others' watermark has passed its window. With a 10 s idle
# timeout the other partitions (a record a minute each) go idle between
# records too, the watermark runs ahead, and all three are late; with 1 or 2
# minutes only the first, which comes 2m 42s after partition 7's previous
# record; 5 minutes or more waits for it, and the windows for 5 minutes.
STRAGGLERS = (
    (clock(3, 40, 40), clock(3, 38, 30)),
    (clock(4, 0, 20), clock(3, 58, 30)),
    (clock(5, 10, 20), clock(5, 8, 30)),
)


RATES_KEYS = {"EUR": 0, "USD": 0, "GBP": 1, "JPY": 1}


def rates(hours):
    """4 partitions keyed by currency: EUR and USD on partition 0, GBP and
    JPY on 1; partitions 2 and 3 never receive a record (a compacted topic
    with fewer keys than partitions). Each rate changes once an hour."""
    out, offsets = [], [0] * 4
    base = {"EUR": 114, "USD": 100, "GBP": 131, "JPY": 2}
    for h in range(hours):
        for i, (cur, p) in enumerate(sorted(RATES_KEYS.items())):
            at = DAY + h * 3_600_000 + i * 1_000
            payload = {"currency": cur, "rate": base[cur] + (h * (i + 1)) % 5, "update_time": sql_ts(at)}
            out.append((at, p, line("rates", p, offsets[p], at, payload, key=cur)))
            offsets[p] += 1
    return out


def orders(minutes):
    """8 partitions, an order per partition per minute, in several
    currencies; event times up to 3 s behind arrival."""
    out, offsets, currencies = [], [0] * 8, sorted(RATES_KEYS)
    for p in range(8):
        for k in range(minutes):
            at = DAY + 30_000 + k * 60_000 + p * 4_100
            payload = {"order_id": p * 100_000 + k, "currency": currencies[(p + k) % 4],
                       "amount": 1 + (p * 13 + k * 7) % 50, "order_time": sql_ts(at - (p * 211 + k * 97) % 3_000)}
            out.append((at, p, line("orders", p, offsets[p], at, payload)))
            offsets[p] += 1
    return out


def shipments(minutes):
    """4 partitions (one per warehouse, by order_id): a shipment 5 to 40
    minutes after each order of `orders(minutes)`; warehouse 3's feed stops
    at 01:00, so its partition gets nothing after that and its later orders
    are never shipped."""
    out, offsets = [], [0] * 4
    for p in range(8):
        for k in range(minutes):
            order_id = p * 100_000 + k
            placed = DAY + 30_000 + k * 60_000 + p * 4_100 - (p * 211 + k * 97) % 3_000
            at = placed + 300_000 + (order_id * 7_919) % 2_100_000
            w = order_id % 4
            if w == 3 and at >= DAY + 3_600_000:
                continue
            payload = {"ship_id": 900_000 + order_id, "order_id": order_id, "ship_time": sql_ts(at)}
            out.append((at, w, line("shipments", w, offsets[w], at, payload)))
            offsets[w] += 1
    # Offsets in arrival order per partition.
    out.sort(key=lambda r: (r[0], r[1]))
    fixed, offsets = [], [0] * 4
    for at, w, text in out:
        rec = json.loads(text)
        rec["offset"] = offsets[w]
        offsets[w] += 1
        fixed.append((at, w, json.dumps(rec, separators=(",", ":"))))
    return fixed


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "shipments_join"), exist_ok=True)
    write(os.path.join(HERE, "shipments_join", "shipments.jsonl"), shipments(180))
    os.makedirs(os.path.join(HERE, "rates_join"), exist_ok=True)
    write(os.path.join(HERE, "rates_join", "orders.jsonl"), orders(180))
    write(os.path.join(HERE, "rates_join", "rates.jsonl"), rates(3))
    write(os.path.join(HERE, "seed000_heartbeat", "clickstream.jsonl"), clickstream(200))
    write(os.path.join(HERE, "seed000_heartbeat", "clickstream_retired.jsonl"), clickstream(30, heartbeat=False))
    write(os.path.join(HERE, "seed003_overnight", "stock_changes.jsonl"), stock_changes())
    write(os.path.join(HERE, "seed003_overnight", "stock_changes_stragglers.jsonl"), stock_changes(STRAGGLERS))
