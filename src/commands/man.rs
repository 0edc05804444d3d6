//! `mpt man [DIR]`: man pages from the clap definition, one per subcommand, or mpt(1) on stdout.

use std::path::{Path, PathBuf};

use crate::commands::{Ctx, Root};
use clap::Args;
use mpt_base::error::{Exit, MptError, Result};

/// `mpt man DIR --json` (`mpt.man/v1`): the folder and the pages written there.
#[derive(Debug, serde::Serialize)]
struct ManDoc<'a> {
    schema: &'static str,
    dir: &'a Path,
    pages: &'a [String],
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write mpt.1 and one page per subcommand here (else print mpt(1) to stdout)
    pub dir: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, args: ManArgs, root: Root) -> Result<Exit> {
    match args.dir {
        Some(dir) => {
            let written = write_all(&dir, root)?;
            let doc = ManDoc {
                schema: mpt_base::schema::MAN,
                dir: &dir,
                pages: &written,
            };
            ctx.out.emit_typed(&doc, |w| {
                for p in &written {
                    writeln!(w, "{}", dir.join(p).display())?;
                }
                Ok(())
            })?;
        }
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(root())
                .render(&mut buf)
                .map_err(|e| MptError::io("rendering the man page", &e))?;
            ctx.out.write_raw(&buf)?;
        }
    }
    Ok(Exit::Ok)
}

/// Writes mpt.1 and mpt-<sub>.1 for every subcommand; returns the file names, sorted.
pub fn write_all(dir: &Path, root: Root) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    clap_mangen::generate_to(root(), dir)
        .map_err(|e| MptError::io(format!("writing man pages into {}", dir.display()), &e))?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| MptError::io(format!("listing {}", dir.display()), &e))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".1"))
        .collect();
    names.sort();
    Ok(names)
}
