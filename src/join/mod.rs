//! `mpt join`'s engine on the device: the join code read and checked, the gateway's certificate
//! pinned, the code exchanged for the device's token, the device's settings written into mpt's
//! config file, the flush timer, and the record `--leave` undoes.

pub mod code;
pub mod exchange;
pub mod pin;
pub mod record;
pub mod settings;
pub mod timer;
pub mod tty;
pub mod url;
