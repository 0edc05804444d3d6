//! pi's sessions as a source of the one pipeline (`pipeline.rs`): its files scanned, forks after
//! their parents so copied entries are left out, each parsed and rendered.

use super::export;
use super::fork;
use super::gate::{self, SkipReason};
use super::pipeline::{self, Found, PrepareOptions, Rendered, Run, Source};
use super::report::{Outcome, PrepareReport};
use super::scan::{self, SessionFile};
use super::session::{self, Session};
use super::state::{self, Record};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

struct Item {
    file: SessionFile,
    key: String,
    /// `Err` when the file is already decided (subagent, bad header, unreadable).
    id: Result<Option<String>, SkipReason>,
    parent_raw: Option<String>,
}

/// Run one prepare: walk `sessions_dir` for `**/*.jsonl`; decide unchanged files from the state
/// record; otherwise gate (path, quiet period), parse the current branch, export, gate (content),
/// leave out what a fork copied from a staged ancestor, and stage `<session-id>.md` if changed.
///
/// Errors: `NotFound` when `sessions_dir` does not exist (a CLI may treat that as nothing to do);
/// `InvalidInput` when the state file or the sessions folder lies inside the staging folder; any
/// other I/O error setting up or writing the staging folder. Per-session problems never fail the
/// run: they become [`SkipReason`]s (unreadable, invalid header, ...).
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    let root = fs::canonicalize(&opts.sessions_dir)?;
    pipeline::run(opts, &mut Pi::new(root, opts))
}

/// pi's session files under one root, in the order they are decided: each fork after its parents.
struct Pi<'a> {
    opts: &'a PrepareOptions,
    root: PathBuf,
    items: Vec<Item>,
    /// Each item's parent (an index into `items`), when it is a fork of a session found here.
    parents: Vec<Option<usize>>,
    is_parent: HashSet<usize>,
    /// The entry keys of a parent's current branch, read once.
    keys_cache: HashMap<usize, HashSet<u64>>,
}

impl<'a> Pi<'a> {
    fn new(root: PathBuf, opts: &'a PrepareOptions) -> Pi<'a> {
        Pi {
            opts,
            root,
            items: Vec::new(),
            parents: Vec::new(),
            is_parent: HashSet::new(),
            keys_cache: HashMap::new(),
        }
    }

    /// The ancestors of `k` staged (or unchanged) this run.
    fn staged_ancestors(&self, k: usize, decided: &[Option<Outcome>]) -> Vec<usize> {
        fork::ancestors(&self.parents, k)
            .into_iter()
            .filter(|a| matches!(decided[*a], Some(Outcome::Exported | Outcome::Unchanged)))
            .collect()
    }
}

impl Source for Pi<'_> {
    fn folder(&self) -> Option<(&'static str, &Path)> {
        Some(("sessions folder", &self.root))
    }

    fn open(&mut self, run: &Run, report: &mut PrepareReport) -> io::Result<Result<usize, String>> {
        let (files, warnings) = scan::scan(&self.root)?;
        report.warnings = warnings;
        report.sessions_seen = files.len();
        let items: Vec<Item> = files
            .into_iter()
            .map(|f| examine(f, &run.old, run.opts, report))
            .collect();
        let paths: Vec<&Path> = items.iter().map(|it| it.file.path.as_path()).collect();
        let raws: Vec<Option<&str>> = items.iter().map(|it| it.parent_raw.as_deref()).collect();
        let parents = fork::link_parents(&paths, &raws);
        // Decided parents first: the items and their links renumbered in that order.
        let order = fork::parents_first(&parents);
        let mut at = vec![0; items.len()];
        for (k, &i) in order.iter().enumerate() {
            at[i] = k;
        }
        self.parents = order.iter().map(|&i| parents[i].map(|p| at[p])).collect();
        let mut items: Vec<Option<Item>> = items.into_iter().map(Some).collect();
        self.items = order.iter().map(|&i| items[i].take().unwrap()).collect();
        self.is_parent = self.parents.iter().flatten().copied().collect();
        Ok(Ok(self.items.len()))
    }

    fn found(&mut self, k: usize, decided: &[Option<Outcome>]) -> Found {
        let dedup: String = self
            .staged_ancestors(k, decided)
            .iter()
            .map(|&a| self.items[a].key.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let it = &self.items[k];
        Found {
            key: it.key.clone(),
            source: it.file.path.clone(),
            id: it.id.clone().ok().flatten(),
            record: Record {
                size: it.file.size,
                mtime_ns: state::mtime_ns(it.file.mtime),
                id: it.id.clone().ok().flatten(),
                parent: it.parent_raw.clone(),
                dedup,
                staged: None,
                staged_size: 0,
                skip: None,
            },
        }
    }

    /// Gate, parse and render one session whose record could not be reused.
    fn render(
        &mut self,
        k: usize,
        decided: &[Option<Outcome>],
        report: &mut PrepareReport,
    ) -> io::Result<Rendered> {
        let ancestors = self.staged_ancestors(k, decided);
        let opts = self.opts;
        let it = &self.items[k];
        let skip = |r| Ok(Rendered::Skip(r));
        let id = match &it.id {
            Err(r) => return skip(*r),
            Ok(id) => id.clone(),
        };
        if let Err(r) = gate::check_file(
            &it.file.rel,
            it.file.mtime,
            opts.now,
            &opts.reason,
            &opts.gate,
        ) {
            return skip(r);
        }
        let Some(sess) = load(&it.file.path, report) else {
            return skip(SkipReason::Unreadable);
        };
        let sess = match sess {
            Ok(s) => s,
            Err(_) => return skip(SkipReason::InvalidHeader),
        };
        report.note_skipped_lines(&it.file.path, &sess);
        if self.is_parent.contains(&k) {
            self.keys_cache.insert(k, export::branch_keys(&sess));
        }
        let t = export::build(&sess, &opts.export);
        if let Err(r) = gate::check_content(&t.stats, &opts.gate) {
            return skip(r);
        }
        let mut copied = HashSet::new();
        for &a in &ancestors {
            let path = &self.items[a].file.path;
            let keys = self
                .keys_cache
                .entry(a)
                .or_insert_with(|| match load(path, report) {
                    Some(Ok(s)) => export::branch_keys(&s),
                    _ => HashSet::new(),
                });
            copied.extend(keys.iter().copied());
        }
        let (text, n) = export::render(&t, &copied, &opts.export);
        if n == 0 {
            return skip(SkipReason::DuplicateOfParent);
        }
        let id = id.unwrap_or_else(|| sess.header.id.clone());
        Ok(Rendered::Text { id, text })
    }
}

/// Phase A: decide what can be known from the path, the state record or the header line alone.
fn examine(
    file: SessionFile,
    old: &super::state::State,
    opts: &PrepareOptions,
    report: &mut PrepareReport,
) -> Item {
    let key = file.path.to_string_lossy().into_owned();
    let mut item = Item {
        file,
        key,
        id: Ok(None),
        parent_raw: None,
    };
    if opts.gate.skip_subagents && gate::is_subagent_path(&item.file.rel, &opts.gate) {
        item.id = Err(SkipReason::Subagent);
        return item;
    }
    let rec = old.sessions.get(&item.key);
    if let Some(r) = rec.filter(|r| r.same_state(item.file.size, state::mtime_ns(item.file.mtime)))
    {
        item.id = match r.skip {
            Some(SkipReason::InvalidHeader) => Err(SkipReason::InvalidHeader),
            _ => Ok(r.id.clone()),
        };
        item.parent_raw = r.parent.clone();
        return item;
    }
    match session::read_header(&item.file.path) {
        Ok((header, n)) => {
            report.bytes_read += n;
            match header {
                Some(h) => {
                    item.id = Ok(Some(h.id));
                    item.parent_raw = h.parent_session;
                }
                None => item.id = Err(SkipReason::InvalidHeader),
            }
        }
        Err(_) => item.id = Err(SkipReason::Unreadable),
    }
    item
}

/// Read and parse a session; `None` if unreadable.
fn load(path: &Path, report: &mut PrepareReport) -> Option<Result<Session, session::ParseError>> {
    let bytes = fs::read(path).ok()?;
    report.bytes_read += bytes.len() as u64;
    Some(session::parse(&bytes))
}
