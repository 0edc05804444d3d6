//! The `mpt` binary: parse, run, print the error once, exit with the code from the table.
//! A reader that goes away (`mpt ... | head`) is not an error: exit 0.

use std::process::ExitCode;

fn main() -> ExitCode {
    mpt::main_with_args(std::env::args_os().collect())
}
