//! The workspace's floors: each crate's doc comment names the mpt crates it may import, its
//! Cargo.toml depends on exactly those, and its `lib.rs` is only its module list and `pub use` face.

use std::collections::BTreeSet;

/// The `mpt-*` crates a Cargo.toml lists under `[dependencies]`.
fn depends_on(manifest: &str) -> BTreeSet<String> {
    let mut inside = false;
    let mut out = BTreeSet::new();
    for line in manifest.lines() {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && line.starts_with("mpt-") {
            out.insert(line.split(['.', ' ', '=']).next().unwrap().to_string());
        }
    }
    out
}

/// The `mpt-*` names in a crate's doc comment (its `//!` lines at the top).
fn said_to_import(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .take_while(|l| l.starts_with("//!"))
        .flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '-')))
        .filter(|w| w.starts_with("mpt-"))
        .map(str::to_string)
        .collect()
}

#[test]
fn each_crate_imports_the_floors_its_doc_comment_names_and_no_other() {
    let root = crate::house_rules::workspace();
    let mut crates = Vec::new();
    for e in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let manifest = std::fs::read_to_string(e.path().join("Cargo.toml")).unwrap();
        let lib = std::fs::read_to_string(e.path().join("src/lib.rs")).unwrap();
        let deps = depends_on(&manifest);
        let said = said_to_import(&lib);
        assert_eq!(
            deps, said,
            "{name}: its Cargo.toml depends on {deps:?}, its lib.rs says it may import {said:?}"
        );
        assert!(
            lib.lines().take(3).any(|l| l.starts_with("//!")),
            "{name}: a doc comment atop lib.rs says what it owns"
        );
        crates.push(name);
    }
    crates.sort();
    assert!(crates.len() >= 8, "the crates are found: {crates:?}");
    // The package users install sits on every floor.
    let top = depends_on(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap());
    assert_eq!(top, crates.into_iter().collect::<BTreeSet<_>>());
}

/// A crate's `lib.rs` is its module list and its `pub use` face; what it defines lives in a module.
#[test]
fn each_crates_lib_rs_is_its_module_list_and_its_face() {
    let root = crate::house_rules::workspace();
    let mut found = Vec::new();
    for e in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let lib = std::fs::read_to_string(e.path().join("src/lib.rs")).unwrap();
        for (n, line) in lib.lines().enumerate() {
            let item = line
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ");
            let defines = [
                "fn ", "struct ", "enum ", "const ", "static ", "impl", "type ", "trait ",
                "#[derive",
            ]
            .iter()
            .any(|k| item.starts_with(k));
            if defines {
                found.push(format!(
                    "{}/src/lib.rs:{}: {line}",
                    e.path().display(),
                    n + 1
                ));
            }
        }
    }
    assert!(found.is_empty(), "move these into a module: {found:#?}");
}

#[test]
fn a_dependency_the_doc_comment_does_not_name_is_seen() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nmpt-base.workspace = true\nmpt-edge = { workspace = true }\nserde.workspace = true\n\n[dev-dependencies]\nmpt-feed.workspace = true\n";
    assert_eq!(
        depends_on(manifest),
        BTreeSet::from(["mpt-base".to_string(), "mpt-edge".to_string()])
    );
    let lib = "//! Owns x.\n//!\n//! The crate may import mpt-base; nothing above it.\n\npub mod a; // mpt-edge\n";
    assert_eq!(
        said_to_import(lib),
        BTreeSet::from(["mpt-base".to_string()])
    );
}
