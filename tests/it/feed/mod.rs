//! `mpt feed`: the engine over the fixtures, the real convo miner on what it stages, the CLI's
//! contracts (line output, lock, kill -9), remote mode over a real sshd, and `feed mine`.

mod claude;
mod cli;
mod codex;
mod crash;
mod damage;
mod edge;
mod helper;
mod incremental;
mod mine;
mod miner;
mod opencode;
mod prepare;
mod remote;
