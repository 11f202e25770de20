#!/usr/bin/env python3
"""Writes and reads Avro records on Kafka as real clients do, for lowwater's
tests (run with the Python from scripts/pyenv.sh).

  produce-confluent --topic T --registry URL --schema FILE   (records: JSON lines on stdin)
  consume-confluent --topic T --registry URL --count N       (records: JSON lines on stdout)
  produce-plain     --topic T --schema FILE
  consume-plain     --topic T --schema FILE --count N

confluent-kafka's AvroSerializer / AvroDeserializer frame records with the
Schema Registry id (registering the schema under <topic>-value); the plain
commands write and read schemaless Avro binary with fastavro. Timestamps
read back print as epoch milliseconds. A stdin line may be
{"raw_hex": "..."} to send those bytes as they are.
"""
import argparse
import datetime
import io
import json
import sys
import time
import uuid

import fastavro
from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def plain(v):
    if isinstance(v, datetime.datetime):
        return int(v.timestamp() * 1000)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command")
    ap.add_argument("--bootstrap", default="127.0.0.1:19092")
    ap.add_argument("--topic", required=True)
    ap.add_argument("--registry")
    ap.add_argument("--schema")
    ap.add_argument("--count", type=int, default=0)
    a = ap.parse_args()
    schema_text = open(a.schema).read() if a.schema else None
    ctx = SerializationContext(a.topic, MessageField.VALUE)
    if a.command.startswith("produce"):
        p = Producer({"bootstrap.servers": a.bootstrap})
        if a.command == "produce-confluent":
            ser = AvroSerializer(SchemaRegistryClient({"url": a.registry}), schema_text)
            encode = lambda rec: ser(rec, ctx)
        else:
            parsed = fastavro.parse_schema(json.loads(schema_text))

            def encode(rec):
                out = io.BytesIO()
                fastavro.schemaless_writer(out, parsed, rec)
                return out.getvalue()
        n = 0
        for line in sys.stdin:
            if not line.strip():
                continue
            rec = json.loads(line)
            value = bytes.fromhex(rec["raw_hex"]) if "raw_hex" in rec else encode(rec)
            p.produce(a.topic, value=value, partition=0)
            n += 1
        if p.flush(30) != 0:
            sys.exit("records not delivered")
        print(f"produced {n}", file=sys.stderr)
        return
    c = Consumer({
        "bootstrap.servers": a.bootstrap,
        "group.id": f"avro-client-{uuid.uuid4()}",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    c.subscribe([a.topic])
    if a.command == "consume-confluent":
        de = AvroDeserializer(SchemaRegistryClient({"url": a.registry}))
        decode = lambda b: de(b, ctx)
    else:
        parsed = fastavro.parse_schema(json.loads(schema_text))
        decode = lambda b: fastavro.schemaless_reader(io.BytesIO(b), parsed)
    got, deadline = 0, time.time() + 60
    while got < a.count and time.time() < deadline:
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        print(json.dumps(plain(decode(m.value())), sort_keys=True), flush=True)
        got += 1
    c.close()
    if got < a.count:
        sys.exit(f"read {got} of {a.count} records")


if __name__ == "__main__":
    main()
