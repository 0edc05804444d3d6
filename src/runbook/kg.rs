//! Step `kg-location` (RFC 001 §7.1, contract §6): the graph palace-local with a link at the HOME
//! path, judged from the shared landmine inspection; hallways/tunnels beside the palace.

use std::path::{Path, PathBuf};

use super::{Inputs, State, Step, cannot_run};
use mpt_palace::PalacePaths;
use mpt_palace::kg::KgStats;
use mpt_palace::landmine::{self, KgLandmine, KgVerdict};
use mpt_palace::procs::Role;

/// What the step found and what applying it does.
pub(super) struct Analysis {
    pub paths: PalacePaths,
    pub l: KgLandmine,
    pub state: State,
    pub summary: String,
    /// Move the HOME graph to the palace-local path (it holds the facts, or is the only one).
    pub move_home: bool,
    /// An empty palace-local file is replaced by the moved one (backed up first).
    pub replace_palace: bool,
    /// An empty HOME file is removed (backed up) because the palace-local one is the truth.
    pub drop_home: bool,
    /// Leave a link at the HOME path to the palace-local file.
    pub link: bool,
    /// Legacy `~/.mempalace/{hallways,tunnels}.json` MemPalace 3.11 ignores → where it reads.
    pub legacy: Vec<(PathBuf, PathBuf)>,
    pub notes: Vec<String>,
}

/// A graph that holds anything at all (facts, or entities without facts).
fn holds(s: &Option<KgStats>) -> bool {
    s.is_some_and(|s| s.triples > 0 || s.entities > 0)
}

fn show(s: &Option<KgStats>) -> String {
    s.map_or("absent".to_string(), |s| {
        format!(
            "{} triples ({} current), {} entities",
            s.triples, s.current_facts, s.entities
        )
    })
}

pub(super) fn analyse(paths: PalacePaths) -> mpt_base::error::Result<Analysis> {
    let l = landmine::inspect(&paths)?;
    let legacy_dir = paths.home.join(".mempalace");
    let mut a = Analysis {
        state: State::Done,
        summary: String::new(),
        move_home: false,
        replace_palace: false,
        drop_home: false,
        link: false,
        legacy: Vec::new(),
        notes: Vec::new(),
        paths,
        l,
    };
    for (name, configured) in [
        ("hallways.json", a.paths.hallways.clone()),
        ("tunnels.json", a.paths.tunnels.clone()),
    ] {
        let old = legacy_dir.join(name);
        if old == configured || !old.is_file() {
            continue;
        }
        if configured.exists() {
            a.notes.push(format!("{} and {} both exist: MemPalace 3.11 reads only the second; merge the first into it by hand", old.display(), configured.display()));
        } else {
            a.legacy.push((old, configured));
        }
    }
    let (home, palace) = (&a.l.home_kg, &a.l.palace_kg);
    let home_link = std::fs::read_link(home).ok();
    if home == palace {
        a.summary =
            "the palace is ~/.mempalace itself: with and without --palace name one file".into();
    } else if a.l.verdict == KgVerdict::Linked {
        a.summary = format!(
            "one knowledge graph: {} links to the palace-local file ({})",
            home.display(),
            show(&a.l.palace_stats)
        );
    } else if let Some(target) = home_link {
        a.state = State::Blocked;
        a.summary = format!(
            "{} is a link to {}, not to the palace-local graph {}",
            home.display(),
            target.display(),
            palace.display()
        );
    } else if holds(&a.l.home_stats) && holds(&a.l.palace_stats) {
        a.state = State::Blocked;
        let t = |s: &Option<KgStats>| s.map_or(0, |s| s.triples);
        a.summary = format!(
            "two knowledge graphs: {} triples palace-local and {} under HOME; merging is not attempted",
            t(&a.l.palace_stats),
            t(&a.l.home_stats)
        );
    } else if !home.exists() && !palace.exists() {
        a.state = State::NotApplicable;
        a.summary =
            "no knowledge graph yet: nothing to move (run again after the first write)".into();
    } else {
        a.state = State::ToDo;
        a.move_home = home.exists() && (holds(&a.l.home_stats) || !palace.exists());
        a.replace_palace = a.move_home && palace.exists();
        a.drop_home = home.exists() && !a.move_home;
        a.link = true;
        a.summary = if a.move_home && holds(&a.l.home_stats) {
            format!(
                "the facts are under HOME ({}) while the palace-local graph is {}: the primary and every --palace process see an empty KG",
                show(&a.l.home_stats),
                if palace.exists() { "empty" } else { "absent" }
            )
        } else {
            format!(
                "no link at {}: a process started without --palace would open a new, empty graph there and split the KG",
                home.display()
            )
        };
    }
    if !a.legacy.is_empty() && matches!(a.state, State::Done | State::NotApplicable) {
        a.state = State::ToDo;
        a.summary = format!(
            "{} legacy file(s) under ~/.mempalace that MemPalace 3.11 ignores",
            a.legacy.len()
        );
    }
    Ok(a)
}

/// What applying does, in one sentence.
pub(super) fn describe(a: &Analysis) -> String {
    let (home, palace) = (a.l.home_kg.display(), a.l.palace_kg.display());
    let mut parts = Vec::new();
    if a.move_home {
        parts.push(format!(
            "checkpoint {home} and move it (with its -wal/-shm) to {palace}{}",
            if a.replace_palace {
                ", replacing the empty palace-local file"
            } else {
                ""
            }
        ));
    }
    if a.drop_home {
        parts.push(format!("remove the empty {home}"));
    }
    if a.link {
        parts.push(format!("leave a link {home} -> {palace}"));
    }
    for (old, new) in &a.legacy {
        parts.push(format!("move {} to {}", old.display(), new.display()));
    }
    format!(
        "{}; everything replaced is backed up first and the triple count read back",
        parts.join("; ")
    )
}

pub fn check(inputs: &Inputs) -> Step {
    let id = "kg-location";
    let a = match inputs.palace().and_then(analyse) {
        Ok(a) => a,
        Err(e) => return cannot_run(id, &e),
    };
    let mut s = Step::new(id, a.state, a.summary.clone())
        .evidence(format!(
            "with --palace (serve, mpt, the edge): {}  {}",
            a.l.palace_kg.display(),
            show(&a.l.palace_stats)
        ))
        .evidence(match std::fs::read_link(&a.l.home_kg) {
            Ok(t) => format!(
                "without --palace (older extensions, the CLI's default layout): {} -> {}",
                a.l.home_kg.display(),
                t.display()
            ),
            Err(_) => format!(
                "without --palace (older extensions, the CLI's default layout): {}  {}",
                a.l.home_kg.display(),
                show(&a.l.home_stats)
            ),
        });
    s = writers(s, inputs, &a.paths);
    s = s.evidence("the link, not proof that every writer passes --palace: a plain mempalace-mcp, an older extension or the CLI on the default layout started later would open a new, empty graph at the HOME path; SQLite resolves the link, so -wal/-shm sit beside the real file (observed with mempalace 3.11, SQLite 3.40)");
    s = s.evidence(format!(
        "hallways.json, tunnels.json: beside the palace ({}, {}); MemPalace 3.11 reads only these",
        a.paths.hallways.display(),
        a.paths.tunnels.display()
    ));
    for n in &a.notes {
        s = s.evidence(n.clone());
    }
    s = s.evidence(entities_note(&a.paths.known_entities));
    match a.state {
        State::ToDo => s.apply = Some(describe(&a)),
        State::Blocked if holds(&a.l.home_stats) && holds(&a.l.palace_stats) => {
            s = s.manual(format!(
                "decide which graph is the truth. Keep the palace-local one: archive the HOME file (`mv {h} {h}.pre-runbook`, with its -wal/-shm) and re-run apply. Keep both: re-add the HOME facts through a --palace process (`mpt call kg_add ...`, listed by `mpt paths`), archive the HOME file, re-run apply",
                h = a.l.home_kg.display()
            ));
        }
        State::Blocked => {
            s = s.manual(format!(
                "point the link at {} (or remove it) by hand, then re-run",
                a.l.palace_kg.display()
            ))
        }
        _ => {}
    }
    s
}

/// The MemPalace children running here, and which graph each one has.
fn writers(mut s: Step, inputs: &Inputs, paths: &PalacePaths) -> Step {
    let (_, mine) = inputs.procs();
    for p in mine
        .iter()
        .filter(|p| matches!(p.role, Some(Role::Child | Role::Hub)))
    {
        let graph = if p.palace_arg().is_some() {
            "with --palace: the palace-local graph".to_string()
        } else {
            format!("without --palace: {}", paths.kg_without_flag.display())
        };
        s = s.evidence(format!("running: pid {} {graph}", p.pid));
    }
    s
}

fn entities_note(known: &Path) -> String {
    format!(
        "known_entities.json stays HOME-anchored ({}, {}): the primary host's `mempalace serve` and miner read the serving user's own ~/.mempalace/known_entities.json; copy this file there if entity detection on the primary should know these names",
        known.display(),
        if known.is_file() { "present" } else { "absent" }
    )
}
