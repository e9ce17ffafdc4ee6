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

/// A fresh scratch directory for one test (`suite`, `name`, this process).
pub fn scratch(suite: &str, name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tilemem-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the built `tilemem` binary.
pub fn tilemem(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(args)
        .output()
        .unwrap()
}
