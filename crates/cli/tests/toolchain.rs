//! The Rust version the README states (`rust-version` in the workspace's
//! Cargo.toml) is the one the lockfile needs: the highest `rust-version`
//! of any locked package, dev-dependencies included, since the Quick start
//! runs the tests too.

use std::process::Command;

use sonic_rs::{JsonContainerTrait, JsonValueTrait};

fn version(v: &str) -> Vec<u64> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

#[test]
fn the_stated_rust_version_is_the_one_the_lockfile_needs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: sonic_rs::Value = sonic_rs::from_slice(&out.stdout).expect("metadata is JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let stated = packages
        .iter()
        .find(|p| p["name"].as_str() == Some("lowwater"))
        .and_then(|p| p["rust_version"].as_str())
        .expect("the lowwater package states a rust-version");
    let (needed, by) = packages
        .iter()
        .filter_map(|p| Some((p["rust_version"].as_str()?, p["name"].as_str()?)))
        .max_by_key(|(v, _)| version(v))
        .expect("some package states a rust-version");
    assert_eq!(
        version(stated)[..2],
        version(needed)[..2],
        "Cargo.toml says rust-version {stated}, but the locked {by} needs {needed}: \
         change rust-version (and the README's Quick start) to what the lockfile needs"
    );
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README");
    let short = stated.split('.').take(2).collect::<Vec<_>>().join(".");
    assert!(
        readme.contains(&format!("Rust ({short} or newer")),
        "the README's Quick start must state Rust {short}"
    );
}
