//! The environment snapshot every command reads instead of the process's: empty values unset,
//! non-UTF-8 values refused where they matter, and the typed readers of a knob's value.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::error::{MptError, Result};

/// A snapshot of the process environment. Empty values count as unset, as in the bridge
/// (`if (process.env.X)`), so `MEMPALACE_REMOTE_URL=` does not flip a machine to remote.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
    /// Variables whose value was not UTF-8 (kept lossily in `vars`; `raw` refuses them).
    not_utf8: BTreeSet<String>,
}

impl Env {
    pub fn from_process() -> Self {
        let mut env = Env::default();
        for (k, v) in std::env::vars_os() {
            let Ok(k) = k.into_string() else { continue };
            if v.to_str().is_none() {
                env.not_utf8.insert(k.clone());
            }
            env.vars.insert(k, v.to_string_lossy().into_owned());
        }
        env
    }

    pub fn from_pairs<I, K, V>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            not_utf8: BTreeSet::new(),
        }
    }

    /// The value as set, empty included; a value that is not UTF-8 is exit 2 naming the variable.
    pub fn raw(&self, key: &str) -> Result<Option<&str>> {
        if self.not_utf8.contains(key) {
            return Err(
                MptError::usage(format!("{key} holds bytes that are not UTF-8"))
                    .with_hint(format!("set {key} again to a UTF-8 value")),
            );
        }
        Ok(self.vars.get(key).map(String::as_str))
    }

    /// Every variable's name, set or empty.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn home(&self) -> Result<PathBuf> {
        self.get("HOME").map(PathBuf::from).ok_or_else(|| {
            MptError::usage("HOME is not set: mpt cannot find MemPalace's files without it")
                .with_hint("export HOME=/path/to/your/home")
        })
    }

    pub(crate) fn flag(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some("1" | "true" | "yes" | "on") => Ok(true),
            Some("0" | "false" | "no" | "off") => Ok(false),
            Some(other) => Err(MptError::usage(format!(
                "{key}='{other}' is not a switch: use 1 or 0"
            ))),
        }
    }

    /// `MEMPALACE_EDGE`: `1` opts in, `0` or empty (unset) does not, anything else is exit 2
    /// naming the value. Stricter than the other switches because pi's edge branch tests
    /// `=== "1"`: a `true` that opted opencode in would leave pi going straight to the primary.
    pub fn edge_opt_in(&self) -> Result<bool> {
        match self.get("MEMPALACE_EDGE") {
            None | Some("0") => Ok(false),
            Some("1") => Ok(true),
            Some(other) => Err(MptError::usage(format!(
                "MEMPALACE_EDGE='{other}' is neither 1 nor 0: pi's edge branch tests MEMPALACE_EDGE === \"1\", so any other value would opt opencode into the edge and leave pi out"
            ))
            .with_hint("export MEMPALACE_EDGE=1 to opt into the edge, or MEMPALACE_EDGE=0 (or unset it) to stay out")),
        }
    }

    pub(crate) fn millis(&self, key: &str, default: u64) -> Result<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.trim().parse::<u64>().map_err(|_| {
                MptError::usage(format!("{key}='{v}' is not a whole number of milliseconds"))
                    .with_hint(format!(
                        "unset {key} for its default of {default}, or set a number"
                    ))
            }),
        }
    }

    pub(crate) fn bytes(&self, key: &str, default: u64) -> Result<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.trim().parse::<u64>().map_err(|_| {
                MptError::usage(format!("{key}='{v}' is not a whole number of bytes")).with_hint(
                    format!("unset {key} for its default of {default}, or set a number of bytes"),
                )
            }),
        }
    }

    pub(crate) fn count(&self, key: &str, default: u32) -> Result<u32> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.trim().parse::<u32>().map_err(|_| {
                MptError::usage(format!("{key}='{v}' is not a whole number")).with_hint(format!(
                    "unset {key} for its default of {default}, or set a number"
                ))
            }),
        }
    }
}
