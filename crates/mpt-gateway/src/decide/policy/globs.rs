//! A policy's list of globs (wings, streams): the names as written, each compiled once when the
//! policy loads or reloads, so a read that filters every result never compiles a pattern.

use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Globs as the policy names them, and compiled. One that does not parse matches nothing (the
/// policy's own checks refuse it by name at load, before a gateway uses it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Globs {
    names: Vec<String>,
    compiled: Vec<glob::Pattern>,
}

impl Globs {
    pub fn new(names: Vec<String>) -> Globs {
        let compiled = names
            .iter()
            .filter_map(|g| glob::Pattern::new(g).ok())
            .collect();
        Globs { names, compiled }
    }

    /// Whether `name` matches one of them.
    pub fn matches(&self, name: &str) -> bool {
        self.compiled.iter().any(|p| p.matches(name))
    }
}

impl Deref for Globs {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.names
    }
}

impl<'de> Deserialize<'de> for Globs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Globs, D::Error> {
        Vec::<String>::deserialize(d).map(Globs::new)
    }
}

impl Serialize for Globs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.names.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_once_and_matched_as_written() {
        let g = Globs::new(vec!["wing_*".into(), "[bad".into(), "notes".into()]);
        assert_eq!(&*g, ["wing_*", "[bad", "notes"], "the names as written");
        assert!(g.matches("wing_pi") && g.matches("notes"));
        assert!(
            !g.matches("[bad") && !g.matches("other"),
            "a bad glob matches nothing"
        );
        assert!(!Globs::default().matches("x"));
    }
}
