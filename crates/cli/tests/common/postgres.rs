//! The local PostgreSQL servers of the jdbc sink tests
//! (`scripts/postgres.sh`: a real server on 127.0.0.1, database and user
//! `lowwater`), a schema per test, and the job options that point at them.
#![allow(dead_code)] // each test binary uses its own part

use std::process::Command;

/// The shared server's port (`scripts/postgres.sh`'s default).
pub const PORT: u16 = 15432;
/// The password of the user `lowwater`.
pub const PASSWORD: &str = "lowwater-secret";

/// Runs `scripts/postgres.sh ACTION` for the server on `port`.
pub fn script(action: &str, port: u16) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres.sh");
    let o = Command::new("bash")
        .arg(script)
        .arg(action)
        .env("PG_PORT", port.to_string())
        .output()
        .expect("run scripts/postgres.sh");
    assert!(
        o.status.success(),
        "scripts/postgres.sh {action} (port {port}) failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Starts the shared server once per test binary.
pub fn server() {
    static SERVER: std::sync::Once = std::sync::Once::new();
    SERVER.call_once(|| script("start", PORT));
}

/// A client of the server on `port` as the user `lowwater`.
pub fn client_on(port: u16) -> postgres::Client {
    postgres::Config::new()
        .host("127.0.0.1")
        .port(port)
        .user("lowwater")
        .password(PASSWORD)
        .dbname("lowwater")
        .connect(postgres::NoTls)
        .expect("connect to the test PostgreSQL")
}

/// A client of the shared server.
pub fn client() -> postgres::Client {
    server();
    client_on(PORT)
}

/// A fresh schema `name_PID` on the server on `port`, with `ddl` run in
/// it (`{s}` in `ddl` is the schema's name); returns the schema.
pub fn schema_on(port: u16, name: &str, ddl: &str) -> String {
    let schema = format!("{name}_{}", std::process::id());
    let mut c = client_on(port);
    c.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; {}",
        ddl.replace("{s}", &schema)
    ))
    .expect("create the test schema");
    schema
}

/// [`schema_on`] the shared server.
pub fn schema(name: &str, ddl: &str) -> String {
    server();
    schema_on(PORT, name, ddl)
}

/// The `WITH` options of a jdbc table `table` on the server on `port`,
/// with `extra` options after them.
pub fn jdbc_options(port: u16, table: &str, extra: &str) -> String {
    format!(
        "'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:{port}/lowwater', \
         'table-name' = '{table}', 'username' = 'lowwater', 'password' = '{PASSWORD}'{extra}"
    )
}

/// The number of rows of `table`.
pub fn count(c: &mut postgres::Client, table: &str) -> i64 {
    c.query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .map(|r| r.get(0))
        .unwrap_or(-1)
}

/// A `lowwater run` that is killed when dropped, so that a failed
/// assertion leaves no job running.
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `lowwater run JOB`, its standard error written to `log`.
pub fn spawn(job: &std::path::Path, log: &std::path::Path) -> Running {
    Running(
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", job.to_str().expect("utf-8 path")])
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(log).expect("log"))
            .spawn()
            .expect("spawn lowwater"),
    )
}
