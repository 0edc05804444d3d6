//! The MCP transports against real MemPalace processes (`stdio_real`, `http_real`) and fakes for
//! what the real ones cannot do on demand (`http_fake`, `http_bounds`, `stall`); `no_program`.

mod era_choice;
mod era_differential;
mod http_bounds;
mod http_fake;
mod http_real;
mod no_program;
mod stall;
pub mod stdio_real;
