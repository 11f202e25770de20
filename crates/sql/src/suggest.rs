//! "Did you mean": the known name closest to a mistyped one, when it is
//! close enough to be the likely intent (a few edits for its length).

/// The candidate closest to `word` by edit distance (case-insensitive), if
/// it is within a third of the word's length (at least 2 edits).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w = word.to_ascii_lowercase();
    let limit = (w.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&w, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        let known = ["scan.startup.mode", "scan.bounded.mode", "topic", "format"];
        assert_eq!(
            closest("scan.startup.mod", known),
            Some("scan.startup.mode")
        );
        assert_eq!(
            closest("SCAN.BOUNDED-MODE", known),
            Some("scan.bounded.mode")
        );
        assert_eq!(closest("topci", known), Some("topic"));
        assert_eq!(closest("partitioner", known), None);
    }
}
