//! Every path mpt writes, in one place: the edge's folder and its per-palace files (`edge`), the
//! sockets' folder (`runtime`), the feed's (`feed`) and the gateway's (`gateway`) folders, and what
//! `mpt join` keeps on a device (`device`).

// docs/reference.md "Where mpt keeps its files" lists each file and why it is there; a test in
// `docs_rules` keeps the two together. mpt's XDG roots and the config file's own default are
// config's (`config::xdg`, `config::default_file`: config is read before any other path is
// known), answered here too so that one module answers every "where".

pub use crate::config::{Xdg, default_file as config_file};

pub mod device;
pub mod edge;
pub mod feed;
pub mod gateway;
pub mod real;
pub mod runtime;
