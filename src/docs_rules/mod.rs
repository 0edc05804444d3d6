//! Proves the documents keep up with the code: every fact a user relies on is written in README.md
//! or docs/, every `mpt` command they show parses, every hint that names a page names a real heading.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/ (not docs/research/, notes kept for their sources).
fn documents() -> Vec<(String, String)> {
    let mut out = vec![(
        "README.md".to_string(),
        std::fs::read_to_string(root().join("README.md")).unwrap(),
    )];
    let mut pages: Vec<_> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 9, "the docs pages are found: {pages:?}");
    for p in pages {
        let name = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
        out.push((name, std::fs::read_to_string(p).unwrap()));
    }
    out
}

fn all_text() -> String {
    documents()
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The headings of a markdown text (outside code fences), without their `#`s.
fn headings(text: &str) -> BTreeSet<String> {
    let mut fence = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        } else if !fence && line.starts_with('#') {
            out.insert(line.trim_start_matches('#').trim().to_string());
        }
    }
    out
}

/// The production sources of every crate, each with its text.
fn sources() -> Vec<(PathBuf, String)> {
    crate::house_rules::source_files()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

/// A file's code before its test module (the tests at the end of a file).
fn production(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests {")
        .map_or(text, |i| &text[..i])
}

#[test]
fn every_hint_that_names_a_page_names_a_heading_it_has() {
    let docs = documents();
    let mut checked = 0;
    let mut bad = Vec::new();
    for (file, text) in sources() {
        // The rules' own files quote pages and headings to check them.
        if file.components().any(|c| c.as_os_str() == "docs_rules") {
            continue;
        }
        for (at, _) in text.match_indices("docs/") {
            let rest = &text[at..];
            let Some(end) = rest.find(".md") else {
                continue;
            };
            let page = &rest[..end + 3];
            if page.contains(char::is_whitespace) || page.starts_with("docs/research") {
                continue;
            }
            let Some((_, doc)) = docs.iter().find(|(n, _)| n == page) else {
                bad.push(format!("{}: {page} does not exist", file.display()));
                continue;
            };
            // `docs/x.md "Heading"`, the quote escaped inside a string literal or not.
            let after = rest[end + 3..].trim_start_matches([' ', '\\']);
            if let Some(quoted) = after.strip_prefix('"') {
                let heading: String = quoted
                    .chars()
                    .take_while(|c| *c != '"' && *c != '\\')
                    .collect();
                if !headings(doc).contains(&heading) {
                    bad.push(format!(
                        "{}: {page} has no heading \"{heading}\"",
                        file.display()
                    ));
                }
            }
            checked += 1;
        }
        for (at, _) in text.match_indices("README \\\"") {
            bad.push(format!(
                "{}: a hint names a README section ({}): name a docs page",
                file.display(),
                &text[at..(at + 40).min(text.len())]
            ));
        }
    }
    assert!(checked >= 3, "the hints are found ({checked})");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A shell line's commands: split at `&&`, `||`, `;`, `|`, parentheses; each command's words
/// (quotes removed), redirections and what follows them dropped.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let (mut words, mut word) = (Vec::new(), String::new());
    let (mut quote, mut has) = (None, false);
    let mut chars = line.chars().peekable();
    let mut redirect = false;
    let end_word = |words: &mut Vec<String>, word: &mut String, has: &mut bool, redirect: bool| {
        if *has && !redirect {
            words.push(std::mem::take(word));
        }
        word.clear();
        *has = false;
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                has = true;
            }
            (None, '#') if !has => break,
            (None, ' ' | '\t') => end_word(&mut words, &mut word, &mut has, redirect),
            (None, '>' | '<') => {
                end_word(&mut words, &mut word, &mut has, redirect);
                redirect = true;
            }
            (None, '&' | '|' | ';' | '(' | ')') => {
                end_word(&mut words, &mut word, &mut has, redirect);
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                out.push(std::mem::take(&mut words));
                redirect = false;
            }
            (None, c) => {
                word.push(c);
                has = true;
            }
        }
    }
    end_word(&mut words, &mut word, &mut has, redirect);
    out.push(words);
    out.retain(|w| !w.is_empty());
    out
}

/// Every `mpt …` a fenced shell block of `text` runs (continuation lines joined; leading
/// variable assignments skipped), with its line.
fn mpt_commands(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let (mut fence, mut shell) = (false, false);
    let mut joined = String::new();
    let mut start = 0;
    for (n, line) in text.lines().enumerate() {
        if let Some(lang) = line.strip_prefix("```") {
            if !fence {
                shell = matches!(lang.trim(), "sh" | "bash" | "shell" | "console" | "");
            }
            fence = !fence;
            continue;
        }
        if !fence || !shell {
            continue;
        }
        if joined.is_empty() {
            start = n + 1;
        }
        let line = line.trim_start_matches("$ ");
        if let Some(head) = line.strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            continue;
        }
        joined.push_str(line);
        for words in commands(&joined) {
            let words: Vec<String> = words
                .into_iter()
                .skip_while(|w| {
                    w.split_once('=').is_some_and(|(k, _)| {
                        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    })
                })
                .collect();
            if words.first().is_some_and(|w| w == "mpt") {
                out.push((start, words));
            }
        }
        joined.clear();
    }
    out
}

#[test]
fn every_mpt_command_the_documents_show_parses() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for (file, text) in documents() {
        for (line, words) in mpt_commands(&text) {
            seen += 1;
            let parsed = <crate::cli::Cli as clap::Parser>::try_parse_from(&words);
            if let Err(e) = parsed {
                use clap::error::ErrorKind as K;
                if !matches!(e.kind(), K::DisplayHelp | K::DisplayVersion) {
                    bad.push(format!("{file}:{line}: {}: {e}", words.join(" ")));
                }
            }
        }
    }
    assert!(seen >= 40, "the commands are found ({seen})");
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

#[test]
fn the_command_reader_splits_as_a_shell_does() {
    assert_eq!(
        commands(r#"A=1 mpt doctor --check transport && mpt edge wire 'pi' # a comment"#),
        [
            vec!["A=1", "mpt", "doctor", "--check", "transport"],
            vec!["mpt", "edge", "wire", "pi"],
        ]
    );
    assert_eq!(
        commands("(umask 077 && mpt gateway token issue lap > ~/t) | cat"),
        [
            vec!["umask", "077"],
            vec!["mpt", "gateway", "token", "issue", "lap"],
            vec!["cat"],
        ]
    );
    let text = "```sh\nX=1 \\\n  mpt outbox flush\n```\n```json\nmpt nothing\n```\n";
    assert_eq!(
        mpt_commands(text),
        [(2, vec!["mpt".to_string(), "outbox".into(), "flush".into()])]
    );
}

/// Every subcommand (`mpt a b`) and every long flag of the CLI.
fn cli_facts() -> (Vec<String>, BTreeSet<String>) {
    fn walk(c: &clap::Command, path: &str, subs: &mut Vec<String>, flags: &mut BTreeSet<String>) {
        for a in c.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(l) = a.get_long().filter(|l| !matches!(*l, "help" | "version")) {
                flags.insert(format!("--{l}"));
            }
        }
        for s in c.get_subcommands() {
            if s.get_name() == "help" {
                continue;
            }
            let p = format!("{path} {}", s.get_name());
            subs.push(p.clone());
            walk(s, &p, subs, flags);
        }
    }
    let (mut subs, mut flags) = (Vec::new(), BTreeSet::new());
    walk(&crate::cli::Cli::command(), "mpt", &mut subs, &mut flags);
    (subs, flags)
}

/// Every `"MPT_…"` and `"MEMPALACE_…"` literal of the production code (the catalog of them,
/// `config::vars`, excepted).
fn variables_in_code() -> BTreeSet<String> {
    let mut vars = BTreeSet::new();
    for (file, src) in sources() {
        if file.ends_with("config/vars.rs") {
            continue;
        }
        let code = production(&src);
        for prefix in ["\"MPT_", "\"MEMPALACE_"] {
            for (at, _) in code.match_indices(prefix) {
                let name: String = code[at + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                // A prefix alone (`"MPT_"`, a filter) names no variable.
                if code[at + 1 + name.len()..].starts_with('"') && !name.ends_with('_') {
                    vars.insert(name);
                }
            }
        }
    }
    vars
}

#[test]
fn the_catalog_of_mpts_variables_is_every_one_its_code_reads() {
    let code = variables_in_code();
    let listed: BTreeSet<String> = mpt_base::config::vars::MPT
        .iter()
        .map(|v| v.to_string())
        .collect();
    let unlisted: Vec<_> = code.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&code).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "crates/mpt-base/src/config/vars.rs's MPT lacks {unlisted:?} and lists {stale:?} no code reads"
    );
}

#[test]
fn every_fact_a_user_relies_on_is_written_down() {
    let text = all_text();
    let mut missing = Vec::new();
    // Every variable mpt reads from its environment (its production code's `MPT_*` and
    // `MEMPALACE_*` names).
    let vars = variables_in_code();
    assert!(vars.len() >= 40, "the variables are found: {vars:?}");
    missing.extend(vars.iter().filter(|v| !text.contains(v.as_str())).cloned());
    // Every subcommand and flag.
    let (subs, flags) = cli_facts();
    assert!(subs.len() >= 40 && flags.len() >= 40);
    missing.extend(subs.into_iter().filter(|s| !text.contains(s.as_str())));
    missing.extend(flags.into_iter().filter(|f| !text.contains(f.as_str())));
    // Every exit code, in the README's table.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for code in [0, 1, 2, 3, 4, 6, 7] {
        if !readme.contains(&format!("\n| {code} |")) {
            missing.push(format!("exit code {code} in README.md's table"));
        }
    }
    // Every `--json` schema name.
    let schema = std::fs::read_to_string(root().join("crates/mpt-base/src/schema.rs")).unwrap();
    for line in schema.lines().filter(|l| l.starts_with("pub const")) {
        let name = line.split('"').nth(1).unwrap();
        if !text.contains(name) {
            missing.push(name.to_string());
        }
    }
    // Every refusal: the gateway's 401 reasons and the kinds of its rules.
    for why in ["malformed", "unknown_token", "expired", "revoked"] {
        if !text.contains(&format!("`{why}`")) && !text.contains(&format!("\"{why}\"")) {
            missing.push(format!("the 401 reason {why}"));
        }
    }
    for rule in [
        "needs:member",
        "needs:admin",
        "allow_sync:false",
        "device:not_in_policy",
        "wing:not_canonical",
        "wings.write",
        "wings.read",
        "protected_wings",
        "protected_wings:lookalike",
        "streams.read",
        "streams.write",
        "agents:not_allowed",
        "provenance:strict",
        "mine:outside_source_prefix",
        "mine:mode_not_convos",
        "mine:wing_required",
        "mine:source_not_found",
        "source_file:outside_mine_prefix",
        "tunnel:drawer_outside_wing",
        "streams.write:unknown_event",
        "arguments:unknown",
        "arguments:type",
        "arguments:stamp_lookalike",
        "mine_in_progress",
        "rate_limited",
        "bad_framing",
        "bad_header",
        "audit_unavailable",
        "upstream_busy",
        "connections_busy",
        "upstream_auth",
        "disk:below_floor",
        "auth:refused_again",
    ] {
        if !text.contains(rule) {
            missing.push(format!("the refusal {rule}"));
        }
    }
    assert!(
        missing.is_empty(),
        "not written in README.md or docs/:\n{}",
        missing.join("\n")
    );
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn every_link_between_the_documents_lands_on_a_page_and_heading() {
    let docs = documents();
    let mut bad = Vec::new();
    let mut seen = 0;
    for (file, text) in &docs {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for (at, _) in text.match_indices("](") {
            let target: String = text[at + 2..].chars().take_while(|c| *c != ')').collect();
            if target.contains("://") || target.contains(' ') {
                continue;
            }
            seen += 1;
            let (path, frag) = target.split_once('#').unwrap_or((&target, ""));
            let page = if path.is_empty() {
                Some(text.clone())
            } else {
                let p = root().join(dir).join(path);
                match std::fs::read_to_string(&p) {
                    Ok(t) => Some(t),
                    Err(_) if p.exists() => None,
                    Err(_) => {
                        bad.push(format!("{file}: {target}: no such file"));
                        continue;
                    }
                }
            };
            if let (false, Some(page)) = (frag.is_empty(), page)
                && !headings(&page).iter().any(|h| anchor(h) == frag)
            {
                bad.push(format!("{file}: {target}: no such heading"));
            }
        }
    }
    assert!(seen >= 20, "the links are found ({seen})");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

mod files;
