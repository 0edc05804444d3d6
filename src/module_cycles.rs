//! Proves that no modules import each other in a cycle inside any crate, siblings inside an engine
//! (`runbook/apply.rs` ↔ `credentials.rs` was one) or a crate's top-level modules: read from the sources.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (segments under `crate`) → the file that holds it.
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut segs: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if segs == ["lib"] || segs == ["main"] || segs.last().is_some_and(|s| s == "mod") {
                segs.pop();
            }
            out.insert(segs, path);
        }
    }
    out
}

/// The production code of a file: comments out, a `#[cfg(test)]` item skipped, and everything
/// from a `#[cfg(test)]` module with a body (the tests at the end of a file) cut.
fn production_code(text: &str) -> String {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            match lines.next() {
                Some(item) if item.contains('{') => break,
                _ => continue,
            }
        }
        out.push(line.split("//").next().unwrap_or(""));
    }
    out.join("\n")
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand_use(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or(tree).to_string()];
    };
    let close = tree.rfind('}').filter(|c| *c > open).unwrap_or(tree.len());
    let (prefix, inner) = (&tree[..open], &tree[open + 1..close]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand_use(&format!("{prefix}{p}")))
        .collect()
}

/// Every `crate::…`/`super::…`/`self::…` path a file names, in `use` items or inline.
fn paths_named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let item = line.trim_start();
        let item = item.strip_prefix("pub").map_or(item, |r| {
            r.strip_prefix(|c| c == '(')
                .and_then(|r| r.split_once(')'))
                .map_or(r, |(_, r)| r)
                .trim_start()
        });
        if let Some(tree) = item.strip_prefix("use ") {
            let start = offset + (line.len() - tree.len());
            let tail = &code[start..];
            let tree = &tail[..tail.find(';').unwrap_or(tail.len())];
            let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
            out.extend(expand_use(&tree));
        }
        offset += line.len();
    }
    let bytes = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b':';
    let mut i = 0;
    while i < bytes.len() {
        let at_word = i == 0 || !ident(bytes[i - 1]);
        let head = ["crate::", "super::"]
            .into_iter()
            .find(|h| bytes[i..].starts_with(h.as_bytes()));
        if let (true, Some(_)) = (at_word, head) {
            let len = bytes[i..]
                .iter()
                .position(|c| !ident(*c))
                .unwrap_or(bytes.len() - i);
            out.push(code[i..i + len].trim_end_matches(':').to_string());
            i += len;
        } else {
            i += 1;
        }
    }
    out
}

/// The module a path names from inside `from`: its longest prefix that is a module.
fn target(
    from: &[String],
    path: &str,
    mods: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let mut segs = path.split("::").filter(|s| !s.is_empty() && *s != "*");
    let mut base: Vec<String> = match segs.next()? {
        "crate" => Vec::new(),
        "super" => from[..from.len().saturating_sub(1)].to_vec(),
        "self" => from.to_vec(),
        _ => return None,
    };
    for s in segs {
        match s {
            "super" => {
                base.pop();
            }
            "self" => {}
            s => base.push(s.to_string()),
        }
    }
    (0..=base.len())
        .rev()
        .map(|n| base[..n].to_vec())
        .find(|m| mods.contains_key(m))
}

/// Per parent module: which child imports which sibling (`runbook` → `apply` → `backup`).
fn sibling_edges(src: &Path) -> BTreeMap<String, BTreeSet<(String, String)>> {
    let mods = modules(src);
    let mut edges: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    for (from, file) in &mods {
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let code = production_code(&std::fs::read_to_string(file).unwrap());
        for path in paths_named(&code) {
            let Some(to) = target(from, &path, &mods) else {
                continue;
            };
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let parent = from[..common].join("::");
                edges
                    .entry(parent)
                    .or_default()
                    .insert((from[common].clone(), to[common].clone()));
            }
        }
    }
    edges
}

/// The crate's own test modules (`#[cfg(test)] mod …` in `lib.rs`): they read every floor.
const TEST_ONLY: &[&str] = &["house_rules", "module_cycles"];

/// Which top-level module imports which (`mailbox` → `coord`), production code only.
fn top_level_edges(src: &Path) -> BTreeSet<(String, String)> {
    sibling_edges(src)
        .remove("")
        .unwrap_or_default()
        .into_iter()
        .filter(|(from, to)| {
            !TEST_ONLY.contains(&from.as_str()) && !TEST_ONLY.contains(&to.as_str())
        })
        .collect()
}

/// A cycle in `edges`, if any, as the modules along it.
fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    fn visit<'a>(
        n: &'a str,
        edges: &'a BTreeSet<(String, String)>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| *p == n) {
            let mut cycle: Vec<String> = path[at..].iter().map(|s| s.to_string()).collect();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if !done.insert(n) {
            return None;
        }
        path.push(n);
        for (_, to) in edges.iter().filter(|(f, _)| f == n) {
            if let Some(c) = visit(to, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .iter()
        .find_map(|(from, _)| visit(from, edges, &mut Vec::new(), &mut done))
}

/// Cycles not yet broken, each named by its parent and a module on it (none left: the last,
/// mcp body -> http, went when the dropped-connection mapping moved into body.rs).
const KNOWN: &[(&str, &str)] = &[];

#[test]
fn no_engine_has_an_import_cycle_between_its_modules() {
    let mut found = Vec::new();
    for src in crate::house_rules::source_roots() {
        for (parent, edges) in sibling_edges(&src) {
            if parent.is_empty() {
                continue; // a crate's own top-level modules: the next test
            }
            if let Some(cycle) = find_cycle(&edges)
                && !KNOWN
                    .iter()
                    .any(|(p, m)| *p == parent && cycle.iter().any(|c| c == m))
            {
                found.push(format!(
                    "{}: {parent}: {}",
                    src.display(),
                    cycle.join(" -> ")
                ));
            }
        }
    }
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

/// Top-level arrows that close a circle not yet broken: (from, to, where and what breaks it).
const KNOWN_TOP: &[(&str, &str, &str)] = &[];

/// Inside each crate (the compiler keeps the crates themselves in layers, `crate_floors.rs`).
#[test]
fn no_two_top_level_modules_import_each_other_in_a_circle() {
    let mut found = Vec::new();
    for src in crate::house_rules::source_roots() {
        let mut edges = top_level_edges(&src);
        for (from, to, _) in KNOWN_TOP {
            edges.remove(&(from.to_string(), to.to_string()));
        }
        // Each circle found is reported, then one of its arrows set aside to look for the next.
        while let Some(cycle) = find_cycle(&edges) {
            found.push(format!("{}: {}", src.display(), cycle.join(" -> ")));
            edges.remove(&(cycle[0].clone(), cycle[1].clone()));
        }
    }
    assert!(
        found.is_empty(),
        "import circles between top-level modules: {found:#?}"
    );
}

#[test]
fn a_circle_between_top_level_modules_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("low")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod low;\npub mod high;\n").unwrap();
    std::fs::write(src.join("low/mod.rs"), "pub mod deep;\n").unwrap();
    std::fs::write(src.join("low/deep.rs"), "use crate::high::Thing;\n").unwrap();
    std::fs::write(src.join("high.rs"), "fn f() { crate::low::deep::g() }\n").unwrap();
    let edges = top_level_edges(src);
    let pairs: Vec<(&str, &str)> = edges
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    assert_eq!(pairs, [("high", "low"), ("low", "high")]);
    assert_eq!(
        find_cycle(&edges).unwrap(),
        ["high", "low", "high"].map(String::from)
    );
}

#[test]
fn the_reader_sees_grouped_inline_and_relative_imports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("eng")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod eng;\n").unwrap();
    std::fs::write(
        src.join("eng/mod.rs"),
        "mod a;\nmod b;\nmod c;\npub struct T;\n",
    )
    .unwrap();
    std::fs::write(src.join("eng/a.rs"), "use super::{T, b::{self, X}};\n").unwrap();
    std::fs::write(src.join("eng/b.rs"), "fn f() { super::c::g() }\n").unwrap();
    std::fs::write(
        src.join("eng/c.rs"),
        "// use super::a;\nfn g() { crate::eng::a::h() }\n#[cfg(test)]\nuse super::b;\n",
    )
    .unwrap();
    let edges = &sibling_edges(src)["eng"];
    let pairs: Vec<(&str, &str)> = edges
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    assert_eq!(pairs, [("a", "b"), ("b", "c"), ("c", "a")]);
    assert_eq!(
        find_cycle(edges).unwrap(),
        ["a", "b", "c", "a"].map(String::from)
    );
}
