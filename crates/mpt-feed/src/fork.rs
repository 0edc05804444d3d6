//! Forks: resolving a header's `parentSession` to a scanned file, ordering parents before their
//! forks, and walking a fork's ancestors (whose copied entries it must not export again).

use std::collections::HashMap;
use std::path::Path;

/// For each file, the index of its parent file: the header's parent path matched exactly against
/// `paths`, else by file name (pi records the absolute path on the machine that wrote it, which may
/// differ from where the files are read now). A file is never its own parent.
pub fn link_parents(paths: &[&Path], parent_raw: &[Option<&str>]) -> Vec<Option<usize>> {
    let mut by_path: HashMap<&Path, usize> = HashMap::new();
    let mut by_name: HashMap<&std::ffi::OsStr, usize> = HashMap::new();
    for (i, p) in paths.iter().enumerate() {
        by_path.entry(p).or_insert(i);
        if let Some(n) = p.file_name() {
            by_name.entry(n).or_insert(i);
        }
    }
    parent_raw
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let raw = Path::new((*raw)?);
            let found = by_path.get(raw).or_else(|| by_name.get(raw.file_name()?));
            found.copied().filter(|&p| p != i)
        })
        .collect()
}

/// All ancestors of `i`, nearest first; stops at a cycle.
pub fn ancestors(parents: &[Option<usize>], i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut cur = parents[i];
    while let Some(p) = cur {
        if p == i || out.contains(&p) || out.len() >= parents.len() {
            break;
        }
        out.push(p);
        cur = parents[p];
    }
    out
}

/// Indices ordered by fork depth (parents before forks), ties kept in index order.
pub fn parents_first(parents: &[Option<usize>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..parents.len()).collect();
    order.sort_by_cached_key(|&i| (ancestors(parents, i).len(), i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_by_path_then_name_and_orders_parents_first() {
        let paths = [
            Path::new("/s/b/child.jsonl"),
            Path::new("/s/a/parent.jsonl"),
            Path::new("/s/c/grand.jsonl"),
        ];
        let raw = [
            Some("/elsewhere/--a--/parent.jsonl"),
            Some("/s/c/grand.jsonl"),
            Some("/nowhere/x.jsonl"),
        ];
        let parents = link_parents(&paths, &raw);
        assert_eq!(parents, [Some(1), Some(2), None]);
        assert_eq!(ancestors(&parents, 0), [1, 2]);
        assert_eq!(parents_first(&parents), [2, 1, 0]);
    }

    #[test]
    fn self_reference_and_cycles_terminate() {
        let paths = [Path::new("/a.jsonl"), Path::new("/b.jsonl")];
        assert_eq!(
            link_parents(&paths, &[Some("/a.jsonl"), None]),
            [None, None]
        );
        let cyclic = [Some(1), Some(0)];
        assert_eq!(ancestors(&cyclic, 0), [1]);
        assert_eq!(parents_first(&cyclic).len(), 2);
    }
}
