//! The Quick start in a fresh clone, with only what the README lists: the
//! repository is cloned (committed files only: nothing built, generated or
//! left over), the README's first command is taken from the README and run
//! there verbatim, and it must do what the README says it does (window rows
//! printed, the stall named while it happens). The README's test command
//! must name a script the clone has.
//!
//! The clone builds into a target directory of its own
//! (`target/quickstart`), from nothing the first time (about 6 minutes on
//! two cores); later runs rebuild only lowwater's crates.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first line of the Quick start's commands that starts with `prefix`,
/// without its comment.
fn command(readme: &str, prefixes: &[&str]) -> String {
    let start = readme
        .find("## Quick start")
        .expect("README has a Quick start");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    section[..end]
        .lines()
        .find(|l| prefixes.iter().any(|p| l.starts_with(p)))
        .map(|l| l.split(" #").next().unwrap_or(l).trim().to_string())
        .unwrap_or_else(|| panic!("the Quick start has no command starting with {prefixes:?}"))
}

/// A copy of the repository's committed files in `dir`.
fn fresh_clone(dir: &Path) {
    let root = root();
    let ok = if root.join(".git").exists() {
        Command::new("git")
            .args(["clone", "--quiet", "--no-local"])
            .arg(&root)
            .arg(dir)
            .status()
    } else {
        // A checkout without its history holds committed files only.
        std::fs::create_dir_all(dir).expect("clone dir");
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "tar -C '{}' --exclude=./target -cf - . | tar -C '{}' -xf -",
                root.display(),
                dir.display()
            ))
            .status()
    };
    assert!(
        ok.is_ok_and(|s| s.success()),
        "could not clone {} into {}",
        root.display(),
        dir.display()
    );
}

#[test]
fn the_quick_start_runs_in_a_fresh_clone() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let main_cmd = command(&readme, &["cargo run"]);
    let test_cmd = command(&readme, &["bash scripts/test.sh", "cargo test"]);
    let dir = std::env::temp_dir().join(format!("lowwater-quickstart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    fresh_clone(&dir);
    if let Some(script) = test_cmd
        .split_whitespace()
        .nth(1)
        .filter(|_| test_cmd.starts_with("bash"))
    {
        assert!(
            dir.join(script).exists(),
            "the Quick start's test command runs {script}, which a clone does not have"
        );
    }
    let out = Command::new("sh")
        .arg("-c")
        .arg(&main_cmd)
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", root().join("target/quickstart"))
        .env_remove("RUST_LOG")
        .output()
        .expect("sh runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "`{main_cmd}` failed in a fresh clone:\n{stderr}"
    );
    assert!(
        stdout.lines().filter(|l| l.starts_with("+I[")).count() >= 3,
        "`{main_cmd}` printed no window rows:\n{stdout}"
    );
    assert!(
        stderr.contains("watermark stalled") && stderr.contains("partition 3"),
        "`{main_cmd}` did not name the stall the README promises:\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
