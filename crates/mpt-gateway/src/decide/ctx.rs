//! What the stages reach of the running gateway besides the policy: the upstream and its shared
//! streams, the records held for replies in flight, the one mine slot, a scoped mine's home.

use std::path::Path;
use std::sync::Arc;

use crate::decide::mine_slot::MineSlot;
use crate::http::fanout::Hubs;
use crate::http::upstream::Upstream;
use crate::record::held::Held;

/// Borrowed from the gateway's shared state for one request (`Shared::ctx`).
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub upstream: &'a Upstream,
    pub held: &'a Arc<Held>,
    pub hubs: &'a Hubs,
    pub mine: &'a MineSlot,
    /// Where a scoped mine's `~` points (`GatewayKnobs::mine_home`).
    pub mine_home: Option<&'a Path>,
}
