//! The exit codes of every command, in one table.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success (`explain`: explained, whether or not the program fits) |
//! | 1 | the request was understood but cannot be met: no placement, over capacity, a planning error, a HIVM pass that failed on a module it accepts (an overflow, rewrites that do not converge) or `-verify-diagnostics` found a mismatch, `fmt --check` found a difference, `validate` found a violation |
//! | 2 | bad input: an unreadable or inconsistent file (syntax, a MemRef that contradicts its allocation, ...), a program PyPTO rejects with its own `InternalError` (overlapping `reserve_buffer` windows, a divergent accumulator phi, two loop carries from one tile: the message keeps PyPTO's class), a HIVM module a pass rejects (not bufferized, an op whose allocation sizes cannot be aligned, a stride mark no padding satisfies, a dynamic-shaped allocation to plan), an unknown flag or value, an output that cannot be written, two outputs naming one file |
//! | 3 | internal error: a check inside tilemem failed whatever the input (the independent validator rejected a placement): a bug to report; nothing is written |
//! | 130 | interrupted (`SIGINT`) |
//!
//! A panic (Rust's 101) is a bug in any case. `tests/exit_codes.rs` runs
//! each kind of failure through each command and asserts this table; no
//! input reaches 3 (it would be a bug), so its mapping is asserted here.

use std::process::ExitCode;

/// The table every `--help` prints (`tilemem --help`, each command's,
/// `tilemem opt --help`), word for word: a literal, so that the help
/// texts can be built with `concat!`. `tests/exit_codes.rs` checks that
/// each help holds it.
#[macro_export]
macro_rules! exit_table {
    () => {
        "Exit codes (the same for every command):
  0    success (explain: explained, whether or not the program fits)
  1    cannot be met: no placement within the capacity, over capacity, a
       planning error, a pass that failed (opt), -verify-diagnostics found a
       mismatch, fmt --check or validate found a difference
  2    bad input: an unreadable, malformed or inconsistent file, a program
       PyPTO rejects with its own InternalError, a HIVM module a pass rejects
       (not bufferized, an op whose sizes cannot be aligned, a stride mark no
       padding satisfies), an unknown flag or value, an output that cannot be
       written
  3    internal error: a check inside tilemem failed whatever the input (the
       independent validator rejected a placement): a bug to report; nothing
       is written
  130  interrupted (Ctrl-C)"
    };
}

/// [`exit_table!`] as a constant.
pub const TABLE: &str = exit_table!();

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

#[cfg(test)]
mod tests {
    use super::*;
    use tilemem_pto::passes::PassError;

    /// PyPTO's `InternalError` on a wrong program is bad input; only a
    /// failed check of tilemem's own is 3.
    #[test]
    fn each_pass_error_kind_has_its_code() {
        let code = |e: PassError| (e.prefix(), of_pass_error(e.kind));
        assert_eq!(
            code(PassError::planning("x")),
            ("ValueError", ExitCode::from(1))
        );
        assert_eq!(
            code(PassError::input("x")),
            ("ValueError", ExitCode::from(2))
        );
        assert_eq!(
            code(PassError::input_pypto_internal("x")),
            ("InternalError", ExitCode::from(2))
        );
        assert_eq!(
            code(PassError::internal("x")),
            ("InternalError", ExitCode::from(3))
        );
    }
}
