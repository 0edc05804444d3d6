//! What the gateway keeps of what it did: the hash-chained audit, the records held while their
//! replies are sent, refusals without a token gathered per peer, each token's last use.

pub mod audit;
pub(super) mod held;
pub mod last_used;
pub(super) mod refusals;
