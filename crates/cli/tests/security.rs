//! Secured Kafka, as managed clusters run it: the local broker's SASL_SSL
//! listener (`scripts/kafka.sh`: 127.0.0.1, `KAFKA_PORT` + 2, a self-signed certificate
//! whose PEM the client trusts, SASL/PLAIN user alice and SCRAM user bob).
//! Jobs use the properties exactly as a Flink job writes them (the JAAS
//! login string, the truststore options): a window job writes through
//! SCRAM-SHA-512 and another reads it back through PLAIN; a wrong password
//! stops the job within 15 s with an error naming the brokers and the
//! mechanism; a JKS truststore is refused with the command that converts it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

mod common;
use common::{create_topic, kafka_scratch, run_sql as run, SECURE};

fn ca() -> PathBuf {
    let home = std::env::var("LOWWATER_KAFKA_HOME").map_or_else(
        |_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/lowwater/kafka"),
        PathBuf::from,
    );
    home.join("tls/ca.pem")
}

fn secured(mechanism: &str, jaas: &str, extra: &str) -> String {
    format!(
        "'properties.bootstrap.servers' = '{SECURE}', 'properties.security.protocol' = 'SASL_SSL',
         'properties.sasl.mechanism' = '{mechanism}', 'properties.sasl.jaas.config' = '{jaas}',
         'properties.ssl.truststore.location' = '{}', 'properties.ssl.truststore.type' = 'PEM'{extra}",
        ca().display()
    )
}

fn scram(password: &str) -> String {
    secured(
        "SCRAM-SHA-512",
        &format!(
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" password=\"{password}\";"
        ),
        "",
    )
}

fn plain(password: &str) -> String {
    secured(
        "PLAIN",
        &format!(
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"{password}\";"
        ),
        "",
    )
}

#[test]
fn a_job_writes_through_scram_and_reads_through_plain_with_flink_jaas_strings() {
    let (dir, id) = kafka_scratch("security");
    let topic = format!("secure-{id}");
    create_topic(&topic, 1);
    let write = format!(
        "CREATE TABLE gen (user_id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'datagen', 'number-of-rows' = '600', 'rows-per-second' = '100000',
               'fields.user_id.min' = '1', 'fields.user_id.max' = '3');
         CREATE TABLE out (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id INT, n BIGINT)
         WITH ('connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json', {});
         INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' HOUR))
         GROUP BY window_start, window_end, user_id;",
        scram("bob-secret")
    );
    let o = run(&dir, "write", &write);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = format!(
        "CREATE TABLE src (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id INT, n BIGINT,
                           WATERMARK FOR window_start AS window_start)
         WITH ('connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
               'scan.bounded.mode' = 'latest-offset', {});
         CREATE TABLE p (total BIGINT) WITH ('connector' = 'print');
         INSERT INTO p SELECT SUM(n) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(window_start), INTERVAL '1' DAY))
         GROUP BY window_start, window_end;",
        plain("alice-secret")
    );
    let o = run(&dir, "read", &read);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let total: i64 = out
        .lines()
        .filter_map(|l| {
            l.strip_prefix("+I[")?
                .strip_suffix(']')?
                .parse::<i64>()
                .ok()
        })
        .sum();
    assert_eq!(total, 600, "every generated row was counted once: {out}");
}

#[test]
fn a_wrong_password_stops_the_job_within_15_s_naming_brokers_and_mechanism() {
    let (dir, id) = kafka_scratch("security");
    let topic = format!("secure-bad-{id}");
    create_topic(&topic, 1);
    for (name, props, mechanism) in [
        ("bad-plain", plain("wrong"), "PLAIN"),
        ("bad-scram", scram("wrong"), "SCRAM-SHA-512"),
    ] {
        let sql = format!(
            "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json', {props});
             CREATE TABLE p (n BIGINT) WITH ('connector' = 'print');
             INSERT INTO p SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
             GROUP BY window_start, window_end;"
        );
        let started = Instant::now();
        let o = run(&dir, name, &sql);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "took {:?}",
            started.elapsed()
        );
        assert!(err.contains(&format!("authentication to the Kafka brokers at {SECURE} failed (SASL mechanism {mechanism})")), "{err}");
        assert!(!err.contains("wrong"), "the password is not shown: {err}");
    }
    let jks = format!(
        "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{topic}', 'format' = 'json',
               'properties.bootstrap.servers' = '{SECURE}', 'properties.ssl.truststore.location' = '/etc/kafka/truststore.jks');
         CREATE TABLE p (n BIGINT) WITH ('connector' = 'print');
         INSERT INTO p SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
         GROUP BY window_start, window_end;"
    );
    let o = run(&dir, "jks", &jks);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("keytool -exportcert") && err.contains("line 3"),
        "{err}"
    );
}
