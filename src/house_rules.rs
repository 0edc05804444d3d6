//! The layering checked on the sources: commands print only through `Output`, engines log through
//! `mpt_base::log` and never import `output`, every `schema` name lives in `mpt_base::schema`, and the
//! process environment is read once, into config's snapshot (`mpt_base::config::Env`).

use std::path::{Path, PathBuf};

/// Modules above the engines: they may use `output`.
const TOP: [&str; 5] = [
    "src/commands/",
    "src/cli.rs",
    "src/lib.rs",
    "src/main.rs",
    "crates/mpt-base/src/output.rs",
];

/// Engines whose stdio is their MCP transport, not printing: the shim relays stdin/stdout to the
/// owner, and `--standalone` serves on them.
const STDIO_TRANSPORTS: [&str; 2] = [
    "crates/mpt-edge/src/shim.rs",
    "crates/mpt-edge/src/launch.rs",
];

/// What prints, or opens stdout/stderr, directly.
const PRINTING: [&str; 8] = [
    "println!",
    "eprintln!",
    "print!(",
    "eprint!(",
    "io::stdout()",
    "io::stderr()",
    "io::stdin()",
    "dbg!(",
];

/// The workspace's root: the `mpt` package's folder, with every other crate under `crates/`.
pub(crate) fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate's `src/` folder: the `mpt` package's, then each crate's under `crates/`.
pub(crate) fn source_roots() -> Vec<PathBuf> {
    let mut roots = vec![workspace().join("src")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    assert!(crates.len() >= 8, "the walk finds the crates: {crates:?}");
    roots.extend(crates);
    roots
}

/// Every `.rs` file of the workspace's crates (not tests/ or benches/), by its path from the root.
pub(crate) fn source_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for r in source_roots() {
        walk(&r, &mut files);
    }
    files.sort();
    files
}

fn sources() -> Vec<(String, String)> {
    let root = workspace();
    let files = source_files();
    assert!(
        files.iter().any(|f| f.ends_with("src/commands/mod.rs")),
        "the walk finds the sources"
    );
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Code lines (comments left out) of a file, numbered from 1.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
}

#[test]
fn commands_and_engines_print_only_through_output_and_log() {
    let mut found = Vec::new();
    for (file, text) in sources() {
        let exempt = [
            "crates/mpt-base/src/output.rs",
            "crates/mpt-base/src/log.rs",
            "src/house_rules.rs",
        ]
        .contains(&file.as_str())
            || STDIO_TRANSPORTS.contains(&file.as_str());
        if exempt {
            continue;
        }
        for (n, line) in code_lines(&text) {
            if PRINTING.iter().any(|p| line.contains(p)) {
                found.push(format!("{file}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "print through ctx.out (commands) or mpt_base::log (engines):\n{}",
        found.join("\n")
    );
}

#[test]
fn engines_do_not_import_output() {
    let mut found = Vec::new();
    for (file, text) in sources() {
        // The rules' own modules (test-only) read every floor, the CLI's definition among them.
        if TOP.iter().any(|t| file.starts_with(t))
            || file == "src/house_rules.rs"
            || file.starts_with("src/docs_rules/")
        {
            continue;
        }
        for (n, line) in code_lines(&text) {
            let output = line.contains("mpt_base::output")
                || (file.starts_with("crates/mpt-base/") && line.contains("crate::output"));
            if output || line.contains("crate::commands") || line.contains("crate::cli::") {
                found.push(format!("{file}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "engines stay below commands, cli and output:\n{}",
        found.join("\n")
    );
}

#[test]
fn schema_names_live_in_the_schema_module() {
    let mut found = Vec::new();
    for (file, text) in sources() {
        if file == "crates/mpt-base/src/schema.rs" || file == "src/house_rules.rs" {
            continue;
        }
        for (n, line) in code_lines(&text) {
            let literal = line.match_indices("\"mpt.").any(|(i, _)| {
                let rest = &line[i + 1..];
                rest.find('"').is_some_and(|end| rest[..end].contains("/v"))
            });
            // Tests may assert the literal: that is the contract seen from outside.
            if literal && !line.contains("assert") {
                found.push(format!("{file}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "use a mpt_base::schema constant:\n{}",
        found.join("\n")
    );
}

/// Where the process environment may still be read directly, and why; everything else reads
/// config's snapshot (`Env`), so what a command sees is what it was given.
const PROCESS_ENV_READERS: [(&str, &str); 4] = [
    ("crates/mpt-base/src/config/env.rs", "the snapshot itself"),
    (
        "crates/mpt-base/src/lock.rs",
        "its tests' child-process hooks",
    ),
    (
        "crates/mpt-mcp/src/stdio/session.rs",
        "the PATH a spawned child inherits from this process",
    ),
    (
        "crates/mpt-outbox/src/admin.rs",
        "USER in an operator's audit line",
    ),
];

#[test]
fn the_process_environment_is_read_into_configs_snapshot() {
    let mut found = Vec::new();
    for (file, text) in sources() {
        if file == "src/house_rules.rs" || PROCESS_ENV_READERS.iter().any(|(f, _)| *f == file) {
            continue;
        }
        for (n, line) in code_lines(&text) {
            if ["env::var(", "env::var_os(", "env::vars(", "env::vars_os("]
                .iter()
                .any(|r| line.contains(r))
            {
                found.push(format!("{file}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read the variable from config's Env (ctx.env) and pass it down:\n{}",
        found.join("\n")
    );
}

/// The files allowed to hold `unsafe` (a new one is a decision, not an accident), each for what
/// no safe wrapper does. Every other system call goes through std or rustix.
const UNSAFE_ALLOWED: &[(&str, &str)] = &[
    (
        "crates/mpt-coord/src/pull.rs",
        "pre_exec: the child's limits set between fork and exec",
    ),
    (
        "crates/mpt-edge/src/quiet_io.rs",
        "AsyncFd::register_with_interest, tokio's one sound constructor",
    ),
    (
        "crates/mpt-feed/src/stage.rs",
        "sync_file_range, wrapped by neither std nor rustix",
    ),
    (
        "crates/mpt-base/src/hop_trace.rs",
        "a signal handler and atexit hook writing the trace (hop-trace builds)",
    ),
    (
        "crates/mpt-base/src/lock.rs",
        "F_OFD_GETLK: who holds a lock, which no safe wrapper asks",
    ),
];

#[test]
fn unsafe_lives_only_where_it_is_allowed_each_with_its_safety_line() {
    let mut outside = Vec::new();
    let mut unexplained = Vec::new();
    let mut holding = std::collections::BTreeSet::new();
    for (file, text) in sources() {
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in code_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            let keyword = code.match_indices("unsafe").any(|(i, _)| {
                let before = code[..i].chars().next_back();
                let after = code[i + 6..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || "_\"`".contains(c))
                    && !after.is_some_and(|c| c.is_alphanumeric() || "_\"`".contains(c))
            });
            if !keyword {
                continue;
            }
            holding.insert(file.clone());
            if !UNSAFE_ALLOWED.iter().any(|(f, _)| *f == file) {
                outside.push(format!("{file}:{n}: {}", line.trim()));
            }
            let said = lines[n.saturating_sub(6)..n]
                .iter()
                .any(|l| l.contains("SAFETY:"));
            if !said {
                unexplained.push(format!("{file}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "`unsafe` outside the files allowed it (use std or rustix, or add the file to UNSAFE_ALLOWED with why):\n{}",
        outside.join("\n")
    );
    assert!(
        unexplained.is_empty(),
        "`unsafe` without a `// SAFETY:` line just above it:\n{}",
        unexplained.join("\n")
    );
    let stale: Vec<_> = UNSAFE_ALLOWED
        .iter()
        .filter(|(f, _)| !holding.contains(*f))
        .collect();
    assert!(
        stale.is_empty(),
        "allowed but holding no `unsafe`: {stale:?}"
    );
}

/// One module style in every crate, the test suite and the benchmarks: a module with children is
/// a folder with its `mod.rs` (or a target's `main.rs`), never a `foo.rs` beside a `foo/`.
#[test]
fn a_module_with_children_is_a_folder_with_its_mod_rs() {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.with_extension("rs").exists() {
                    out.push(p.with_extension("rs").display().to_string());
                }
                walk(&p, out);
            }
        }
    }
    let mut found = Vec::new();
    let suites = [workspace().join("tests/it"), workspace().join("benches")];
    for r in source_roots().into_iter().chain(suites) {
        walk(&r, &mut found);
    }
    assert!(
        found.is_empty(),
        "move each into its folder as mod.rs: {found:?}"
    );
}
