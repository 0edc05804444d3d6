//! `mpt join`'s engine on the device: the join code read and checked, exchanged at the gateway
//! for the device's token, and the device's settings written into mpt's config file.

pub mod code;
pub mod exchange;
pub mod pin;
pub mod settings;
