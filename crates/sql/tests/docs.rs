//! The option reference cannot go stale: every key lowwater reads (every
//! `SET` setting, every connector's and format's table option, from the
//! lists the planner checks keys against) is in docs/options.md, written
//! as code (`key`).

#[test]
fn every_option_lowwater_reads_is_in_the_options_reference() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/options.md");
    let doc = std::fs::read_to_string(path).expect("docs/options.md");
    let missing: Vec<&str> = lowwater_sql::options::documented_keys()
        .into_iter()
        .filter(|k| !doc.contains(&format!("`{k}`")) && !doc.contains(&format!("'{k}'")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/options.md does not list: {missing:?} (add a row for each)"
    );
}
