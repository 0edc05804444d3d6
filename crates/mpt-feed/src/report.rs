//! The per-run report: one verdict per session file and the counts the CLI prints
//! (`mpt.feed.prepare/v1`), every skip counted under its reason.

use super::gate::SkipReason;
use super::session::Session;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One session's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Its staged file was created or rewritten.
    Exported,
    /// Its staged file already held this content and was left alone.
    Unchanged,
    Skipped(SkipReason),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionOutcome {
    pub source: PathBuf,
    pub session_id: Option<String>,
    /// The staged file name (inside `stage_dir`) when exported or unchanged.
    pub staged: Option<String>,
    pub outcome: Outcome,
    /// Decided from the state record without reading the session.
    pub from_state: bool,
}

/// The `schema` of a serialized [`PrepareReport`].
pub const REPORT_SCHEMA: &str = mpt_base::schema::FEED_PREPARE;

/// Counts for one run. Serializes to the `mpt.feed.prepare/v1` document (skip keys in snake_case,
/// e.g. `{"too_few_user_turns": 2}`); `sessions` has the per-file detail and is not serialized.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PrepareReport {
    /// Always [`REPORT_SCHEMA`] in a report returned by `prepare`.
    pub schema: &'static str,
    pub reason: String,
    pub stage_dir: PathBuf,
    pub sessions_seen: usize,
    pub exported: usize,
    pub unchanged: usize,
    pub skipped: BTreeMap<SkipReason, usize>,
    pub skipped_total: usize,
    /// Session bytes read (headers, full files, parents read for fork de-duplication).
    pub bytes_read: u64,
    /// Staged bytes written.
    pub bytes_written: u64,
    pub decided_from_state: usize,
    pub stale_temps_removed: usize,
    /// The state file was unreadable or made with other settings, so every session was re-examined.
    pub state_reset: bool,
    /// Complete lines of the sessions read this run that were not JSON (each also a warning).
    pub lines_skipped: usize,
    /// The whole source was skipped, and why (an opencode database that is locked, damaged or of
    /// a schema this build does not know): nothing in it was examined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_skipped: Option<String>,
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub sessions: Vec<SessionOutcome>,
}

impl PrepareReport {
    /// Whether the staging folder holds anything for the miner (new or already staged).
    pub fn has_staged(&self) -> bool {
        self.exported + self.unchanged > 0
    }

    /// Says out loud (a warning, and `lines_skipped`) that lines of a session could not be read, and
    /// whether the current branch broke there: everything before the break is then not exported.
    pub(super) fn note_skipped_lines(&mut self, path: &Path, sess: &Session) {
        let stats = &sess.stats;
        if stats.bad_lines == 0 {
            return;
        }
        self.lines_skipped += stats.bad_lines;
        let numbers: Vec<String> = stats
            .bad_line_numbers
            .iter()
            .map(usize::to_string)
            .collect();
        let more = if stats.bad_lines > numbers.len() {
            ", …"
        } else {
            ""
        };
        let mut w = format!(
            "{}: skipped {} line{} that {} not JSON (line {}{more})",
            path.display(),
            stats.bad_lines,
            if stats.bad_lines == 1 { "" } else { "s" },
            if stats.bad_lines == 1 { "is" } else { "are" },
            numbers.join(", ")
        );
        if let Some(parent) = sess.branch_cut() {
            w.push_str(&format!(
                "; the current branch breaks there (its entry '{parent}' is missing), so the conversation before it is not exported"
            ));
        }
        self.warnings.push(w);
    }

    pub(super) fn count(&mut self, o: Outcome) {
        match o {
            Outcome::Exported => self.exported += 1,
            Outcome::Unchanged => self.unchanged += 1,
            Outcome::Skipped(r) => {
                *self.skipped.entry(r).or_default() += 1;
                self.skipped_total += 1;
            }
        }
    }
}
