//! The gateway's HTTP, each way: the front (hyper, after the framing check), the replies it makes
//! itself, the upstream client, the relay of an answer and its streams, TLS.

pub(super) mod admission;
pub(super) mod fanout;
pub(super) mod forward;
pub(super) mod framing;
pub(super) mod front;
pub(super) mod gate;
pub(super) mod relay;
pub mod reply;
pub(super) mod tls;
pub(super) mod upstream;
