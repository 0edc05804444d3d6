//! opencode's conversations fed like pi's: its SQLite database read read-only in one short
//! transaction, each session turned into the same [`Session`](super::session::Session) pi's are.

// `schema` recognises the database by its migrations (an unknown one is skipped, never guessed
// at); `db` reads the session index and the rows of the sessions that need exporting, or, for a
// first export, `scan` reads each table once (each message's fields parsed as `part` says while
// the row is read, the parts' data copied into one buffer per session), both delivering what
// `rows` describes; `part` reads a row's fields (serde's derive of the few it uses); `convert` parses the parts and turns one session into entries; `prepare` is
// the run, sharing pi's gate, export, state fast path and staging. The tables are described in
// docs/research/opencode-sessions.md.

pub mod convert;
pub mod db;
pub mod part;
mod pool;
pub mod prepare;
pub mod rows;
mod scan;
pub mod schema;
