//! The test broker's address: 127.0.0.1 and `KAFKA_PORT` (default 19092),
//! as `scripts/kafka.sh` reads it; its SASL_SSL listener is on that port + 2.
//! `BOOTSTRAP` formats as the address, turns into a `String` and derefs to
//! `&str`, so tests use it where a constant was used before.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

/// `KAFKA_PORT`, or 19092.
pub fn kafka_port() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| match std::env::var("KAFKA_PORT") {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("KAFKA_PORT={v:?} is not a port number")),
        Err(_) => 19092,
    })
}

/// A listener of the test broker, `offset` ports above `KAFKA_PORT`.
#[derive(Clone, Copy)]
pub struct Address {
    offset: u16,
}

/// The PLAINTEXT listener.
pub const BOOTSTRAP: Address = Address { offset: 0 };
/// The SASL_SSL listener.
pub const SECURE: Address = Address { offset: 2 };

impl Address {
    pub fn as_str(&self) -> &'static str {
        static TEXT: [OnceLock<String>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        TEXT[usize::from(self.offset)]
            .get_or_init(|| format!("127.0.0.1:{}", kafka_port() + self.offset))
    }
}

impl Deref for Address {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Address> for String {
    fn from(a: Address) -> String {
        a.as_str().to_string()
    }
}
