//! What several end-to-end suites share.
#![allow(dead_code)]

/// A one-function kernel: `a` loaded, `b = exp(a)` in place, `b` stored.
pub const KERNEL: &str = "# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)
        return r
";

/// A fresh scratch directory of one test, removed with everything in it
/// when the value is dropped (at the end of the test, passed or failed):
/// a test run leaves nothing in the temporary folder. It stands for its
/// path (`d.join(..)`, `&d` as a `&Path`).
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

/// A fresh scratch directory for one test, named after `suite` and `name`
/// (`tilemem-SUITE-NAME-XXXXXX`) so a test that is stopped can be told.
pub fn scratch(suite: &str, name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("tilemem-{suite}-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// Runs the built `tilemem` binary.
pub fn tilemem(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(args)
        .output()
        .unwrap()
}
