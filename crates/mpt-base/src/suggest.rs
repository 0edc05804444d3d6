//! The one typo suggestion every command gives for a name it does not know (a tool, a step):
//! the closest known name by the measure clap uses for its own `did you mean`.

/// The candidate closest to `typed`, when one is close enough to be what was meant.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro(typed, c), c))
        // clap's own threshold (clap_builder's `did_you_mean`).
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `did you mean 'X'? ` when a candidate is close, else nothing: the start of a hint.
pub fn did_you_mean<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, candidates).map_or(String::new(), |c| format!("did you mean '{c}'? "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_name_and_nonsense_finds_none() {
        let steps = ["kg-location", "provenance", "no-sync"];
        assert_eq!(closest("kg-locaton", steps), Some("kg-location"));
        assert_eq!(closest("provenence", steps), Some("provenance"));
        assert_eq!(closest("zzz", steps), None);
        assert_eq!(did_you_mean("zzz", steps), "");
    }
}
