//! The device tokens and the files the gateway follows: the token format, `tokens.json` and its
//! edits, the env file a token is written to, the live reload of the policy and the tokens.

pub mod envfile;
pub(super) mod reload;
pub mod token;
pub mod tokens;
