//! Calls that break PyPTO's op registry are bad input: exit 2, the
//! diagnostic at `file:line:col` naming the op, nothing written.

mod common;

use common::tilemem;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("registry", name)
}

/// The matmul kernel with `line` defining its lhs `a` (line 9).
fn kernel(line: &str) -> String {
    format!(
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    \
         @pl.function(type=pl.FunctionType.InCore)\n    def main(self, x: pl.Tensor[[16, 16], \
         pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n        \
         b: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.load(x, [0, 0], [16, 16], [16, \
         16], target_memory=pl.Mem.Right)\n        {line}\n        c: pl.Tile[[16, 16], \
         pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)\n        r: pl.Tensor[[16, 16], pl.FP32] = \
         pl.tile.store(c, [0, 0], out)\n        return r\n"
    )
}

#[test]
fn an_unknown_keyword_exits_2_at_the_keyword_for_fmt_and_plan() {
    let d = scratch("kw");
    let input = d.join("k.py");
    let line = "a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Left, layout=1)";
    std::fs::write(&input, kernel(line)).unwrap();
    let input = input.to_str().unwrap();
    let out = d.join("out.py");
    for cmd in ["fmt", "plan"] {
        let o = tilemem(&[cmd, input, "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        let msg = "error: 'tile.load' has no keyword argument 'layout': PyPTO e2d0f78 accepts \
                   the attributes target_memory (MemorySpace), clamp (bool), the arguments \
                   tensor, offsets, shapes, valid_shape by name, `attrs=`";
        // fmt shows the snippet, plan one line.
        let want = match cmd {
            "fmt" => format!("{msg}\n --> {input}:9:125\n"),
            _ => format!("{input}:9:125: {msg}\n"),
        };
        assert!(err.starts_with(&want), "{cmd}: {err}");
        assert!(!out.exists(), "{cmd}");
    }
}

#[test]
fn an_operand_without_a_space_exits_2_naming_op_operand_and_space() {
    let d = scratch("space");
    let input = d.join("k.py");
    let line = "a: pl.Tile[[16, 16], pl.BF16] = pl.tile.load(x, [0, 0], [16, 16], [16, 16])";
    std::fs::write(&input, kernel(line)).unwrap();
    let input = input.to_str().unwrap();
    let out = d.join("out.py");
    let o = tilemem(&["plan", input, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "{input}:10:9: ValueError: 'tile.matmul' argument 0 (lhs) 'a' is a tile without a \
             memory space, so it gets no storage; PyPTO e2d0f78 registers the argument for Left \
             (set_input_memory): declare the space in its type (`pl.Mem.Left`)\n"
        )
    );
    assert!(!out.exists());
}

#[test]
fn a_declared_space_against_the_registry_plans_with_a_warning() {
    let d = scratch("warn");
    let input = d.join("k.py");
    let line = "a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)";
    std::fs::write(&input, kernel(line)).unwrap();
    let o = tilemem(&["plan", input.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "[warning] line 10: 'tile.matmul' argument 0 (lhs) 'a' is in Mat, but PyPTO e2d0f78 \
         registers the argument for Left only (set_input_memory); planned as declared: move it \
         first (`pl.tile.move(a, target_memory=pl.Mem.Left)`) unless the target reads it there\n"
    );
}
