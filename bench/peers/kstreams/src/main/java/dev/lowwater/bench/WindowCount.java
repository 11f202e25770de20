/*
 * The Kafka Streams peer of scripts/peer_bench.sh (path "kafka"): the same job as
 * bench/peers/peer_bench.py gives lowwater and Flink, a COUNT per user_id in 1-minute
 * tumbling event-time windows, read from the input topic's earliest offset.
 *
 *   java -cp target/kstreams-peer.jar:target/lib/* dev.lowwater.bench.WindowCount \
 *        BOOTSTRAP INPUT_TOPIC OUTPUT_TOPIC THREADS STATE_DIR
 *
 * Records are keyed by user_id (the producer keys them so), so groupByKey needs no
 * repartition topic. The event time is the value's "ts" (JSON, "yyyy-MM-dd HH:mm:ss.SSS",
 * UTC), parsed with Jackson as the other engines parse the whole record. The grace
 * period is the 5 seconds the SQL jobs' watermark delay gives; suppress(untilWindowCloses)
 * writes each window once, when it closes, as a SQL window aggregate does. Like the
 * other two engines in the bench, it keeps no fault-tolerant state: an in-memory window
 * store and suppression buffer, both without changelog topics.
 *
 * Kafka Streams never ends by itself: it reads the end offsets of the input before it
 * starts and closes when it has handed that many records to the topology (close()
 * commits, which flushes the caches through the suppression into the producer). Its
 * windows close on stream time, so the input ends with an end-marker record per
 * partition, an hour after the data, that closes every window of the data.
 *
 * Output: key = the windowed key as WindowedSerdes.timeWindowedSerdeFrom writes it
 * (the user_id's UTF-8 bytes, then the window start as an 8-byte big-endian long),
 * value = the count as an 8-byte big-endian long.
 */
package dev.lowwater.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.state.Stores;

public final class WindowCount {
  private static final Duration SIZE = Duration.ofMinutes(1);
  private static final Duration GRACE = Duration.ofSeconds(5);
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  /** Reads a record's JSON value as a tree. */
  static final class JsonDeserializer implements Deserializer<JsonNode> {
    private final ObjectMapper json = new ObjectMapper();

    @Override
    public JsonNode deserialize(String topic, byte[] data) {
      try {
        return json.readTree(data);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A record's event time: its "ts" field, in UTC. */
  static long eventTime(JsonNode value) {
    return LocalDateTime.parse(value.get("ts").asText(), TS).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  /** The number of records in the topic's partitions now (end minus beginning offsets). */
  static long records(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition()))
          .collect(Collectors.toList());
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      Map<TopicPartition, Long> begin = c.beginningOffsets(parts);
      return parts.stream().mapToLong(t -> end.get(t) - begin.get(t)).sum();
    }
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 5) {
      System.err.println("usage: WindowCount BOOTSTRAP INPUT_TOPIC OUTPUT_TOPIC THREADS STATE_DIR");
      System.exit(2);
    }
    String bootstrap = args[0], input = args[1], output = args[2], stateDir = args[4];
    int threads = Integer.parseInt(args[3]);
    long total = records(bootstrap, input);

    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "peer-bench-" + UUID.randomUUID());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

    AtomicLong seen = new AtomicLong();
    Serde<JsonNode> events = Serdes.serdeFrom((topic, e) -> {
      throw new UnsupportedOperationException("events are only read");
    }, new JsonDeserializer());
    StreamsBuilder b = new StreamsBuilder();
    b.stream(input, Consumed.with(Serdes.String(), events)
            .withTimestampExtractor((rec, previous) -> eventTime((JsonNode) rec.value())))
        .peek((k, v) -> seen.incrementAndGet())
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE))
        .count(Materialized.<String, Long>as(
                Stores.inMemoryWindowStore("counts", SIZE.plus(GRACE), SIZE, false))
            .withLoggingDisabled())
        .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded().withLoggingDisabled()))
        .toStream()
        .to(output, Produced.with(
            WindowedSerdes.timeWindowedSerdeFrom(String.class, SIZE.toMillis()), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.start();
    while (seen.get() < total) {
      KafkaStreams.State s = streams.state();
      if (s == KafkaStreams.State.ERROR || s == KafkaStreams.State.NOT_RUNNING) {
        System.err.println("WindowCount: Kafka Streams stopped (" + s + ") after " + seen.get() + " of " + total + " records");
        System.exit(1);
      }
      Thread.sleep(10);
    }
    streams.close();
    System.err.println("WindowCount: " + seen.get() + " records in");
  }
}
