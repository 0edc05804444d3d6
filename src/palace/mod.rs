//! Where MemPalace keeps what, and reading it safely: path rules (version 3.11), the knowledge
//! graph (read-only), the sidecar and registry files, and the tool catalog.

pub mod catalog;
pub mod chroma;
pub mod files;
pub mod hygiene;
pub mod kg;
pub mod landmine;
pub mod paths;
pub mod procs;
pub mod sqlite;

pub use paths::PalacePaths;
