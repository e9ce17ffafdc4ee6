//! The exit codes of every command, in one table.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success (`explain`: explained, whether or not the program fits) |
//! | 1 | the request was understood but cannot be met: no placement, over capacity, a planning error, `fmt --check` found a difference, `validate` found a violation |
//! | 2 | bad input: an unreadable or inconsistent file (syntax, a MemRef that contradicts its allocation, ...), an unknown flag or value, an output that cannot be written, two outputs naming one file |
//! | 3 | internal error: a check inside tilemem failed (the independent validator rejected a placement, or PyPTO's own internal check fires on this program, as PyPTO raises `InternalError` for it); nothing is written |
//! | 130 | interrupted (`SIGINT`) |
//!
//! A panic (Rust's 101) is a bug in any case. `tests/exit_codes.rs` runs
//! each kind of failure through each command and asserts this table.

use std::process::ExitCode;

use tilemem_pto::passes::ErrorKind;

/// The request cannot be met.
pub const UNMET: u8 = 1;
/// Bad input.
pub const BAD_INPUT: u8 = 2;
/// An internal check failed.
pub const INTERNAL: u8 = 3;

/// The exit code of a PyPTO pass error of kind `kind`.
pub fn of_pass_error(kind: ErrorKind) -> ExitCode {
    ExitCode::from(match kind {
        ErrorKind::Planning => UNMET,
        ErrorKind::Input => BAD_INPUT,
        ErrorKind::Internal => INTERNAL,
    })
}
