//! What the Kafka tests share: the real broker (`scripts/kafka.sh`,
//! 127.0.0.1 and `KAFKA_PORT`, default 19092), fresh topic names, a plain producer for fixtures and
//! a way to wait for one of rdkafka's admin futures without sleeping.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

mod address;
#[allow(unused_imports)] // each test binary uses its own part
pub use address::{kafka_port, BOOTSTRAP, SECURE};

/// Starts the broker unless it runs.
pub fn broker() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
    let o = Command::new("bash")
        .arg(script)
        .arg("start")
        .output()
        .expect("run scripts/kafka.sh");
    assert!(
        o.status.success(),
        "the Kafka broker did not start: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A topic name no earlier run used (test name, process id, time).
pub fn fresh(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{name}-{}-{nanos}", std::process::id())
}

/// `properties.*` with the test broker and these extra pairs.
pub fn props(extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    p.insert("bootstrap.servers".to_string(), BOOTSTRAP.to_string());
    for (k, v) in extra {
        p.insert(k.to_string(), v.to_string());
    }
    p
}

/// Table options from pairs.
pub fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Writes `n` records to `topic`/`partition` (not transactional), payload
/// `{prefix}-{i}`, timestamp `ts0 + 1000 * i`, and waits for them.
pub fn produce(topic: &str, partition: i32, n: i64, prefix: &str, ts0: i64) {
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("producer");
    for i in 0..n {
        p.send(
            BaseRecord::<(), str>::to(topic)
                .partition(partition)
                .payload(&format!("{prefix}-{i}"))
                .timestamp(ts0 + 1000 * i),
        )
        .expect("send");
        p.poll(Duration::ZERO);
    }
    p.flush(Duration::from_secs(10)).expect("flush");
}

/// Wakes the thread that waits in [`block_on`].
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs one of rdkafka's admin futures to completion on this thread,
/// parked until rdkafka's thread wakes it.
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}
