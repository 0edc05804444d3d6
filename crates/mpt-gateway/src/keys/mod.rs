//! The device tokens and the files the gateway follows: the token format, `tokens.json` and its
//! edits, the join codes (`invites.json`), the env file a token is written to, the live reload.

pub mod envfile;
pub mod invites;
pub(super) mod reload;
pub mod token;
pub mod tokens;
