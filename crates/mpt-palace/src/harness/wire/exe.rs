//! Which `mpt` an edge entry runs: the `mpt` found on PATH when it is this very binary (a stable
//! install location), else this binary's own path (a build folder pinned, and said so).

use std::io::Read;
use std::path::{Path, PathBuf};

/// Where the wired command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExeSource {
    /// The `mpt` on PATH, the same binary as the one running.
    Path,
    /// The running binary's own path (no `mpt` on PATH, or another one).
    ThisBinary,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WiredExe {
    pub path: PathBuf,
    pub source: ExeSource,
    /// Why, in one line.
    pub why: String,
}

/// Picks the command for `current` (the running binary) given the `PATH` value.
pub fn choose(path_var: Option<&str>, current: &Path) -> WiredExe {
    let on_path = path_var.and_then(|p| {
        p.split(':')
            .filter(|d| Path::new(d).is_absolute())
            .map(|d| Path::new(d).join("mpt"))
            .find(|c| c.is_file())
    });
    match on_path {
        Some(p) if same_binary(&p, current) => WiredExe {
            why: format!(
                "the mpt on PATH ({}) is this binary: wired by that stable path",
                p.display()
            ),
            path: p,
            source: ExeSource::Path,
        },
        Some(p) => WiredExe {
            path: current.to_path_buf(),
            source: ExeSource::ThisBinary,
            why: format!(
                "the mpt on PATH ({}) is another binary: wired this one by its own path (run `mpt edge wire` from the mpt you want opencode to run)",
                p.display()
            ),
        },
        None => WiredExe {
            path: current.to_path_buf(),
            source: ExeSource::ThisBinary,
            why: "no mpt on PATH: wired this binary by its own path (install mpt on PATH and wire again to keep opencode off a build folder)".into(),
        },
    }
}

/// The same file (through any link), or a copy with identical bytes (`cargo install` copies).
fn same_binary(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
        return true;
    }
    ma.len() == mb.len() && same_bytes(a, b).unwrap_or(false)
}

fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(fb.read(&mut bb[..1])? == 0);
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_wins_only_for_the_same_binary() {
        let d = tempfile::tempdir().unwrap();
        let (bin, other, link) = (d.path().join("b"), d.path().join("o"), d.path().join("l"));
        for dir in [&bin, &other, &link] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let me = d.path().join("build-mpt");
        std::fs::write(&me, b"binary bytes").unwrap();
        std::fs::write(bin.join("mpt"), b"binary bytes").unwrap();
        std::fs::write(other.join("mpt"), b"other bytes!").unwrap();
        std::os::unix::fs::symlink(&me, link.join("mpt")).unwrap();
        let pick = |p: &Path| choose(Some(&format!("relative:{}", p.display())), &me);
        assert_eq!(
            (pick(&bin).source, pick(&bin).path),
            (ExeSource::Path, bin.join("mpt"))
        );
        assert_eq!(pick(&link).path, link.join("mpt"));
        assert_eq!(
            (pick(&other).source, pick(&other).path),
            (ExeSource::ThisBinary, me.clone())
        );
        assert_eq!(choose(None, &me).source, ExeSource::ThisBinary);
    }
}
