//! Name resolution of the reader: every name a function reads is defined
//! before the use (a parameter, an assignment target, a loop variable, an
//! iter arg, a loop or `if` result), by the module (imports, `N = ...`
//! lines before the class), or printed by PyPTO as a free variable
//! (`NAME__FREE_VAR`). Any other name is rejected at its line and column
//! with the closest defined name, as PyPTO's own parser rejects it.

use tilemem_pto::parse;

const CHAIN: &str = include_str!("../../../examples/pto/vector_chain.py");

#[test]
fn undefined_name_in_a_call_is_rejected_with_the_closest_name() {
    // `row_sum` misspelt where `result` reads it.
    let src = CHAIN.replace(
        "pl.tile.row_expand_div(exp_shifted, row_sum)",
        "pl.tile.row_expand_div(exp_shifted, row_summ)",
    );
    assert_ne!(src, CHAIN);
    let e = parse(&src).unwrap_err();
    let line = src.lines().position(|l| l.contains("row_summ")).unwrap() as u32 + 1;
    let col = src
        .lines()
        .nth(line as usize - 1)
        .unwrap()
        .find("row_summ")
        .unwrap() as u32
        + 1;
    assert_eq!((e.line, e.col, e.len), (line, col, 8));
    assert_eq!(
        e.message,
        "undefined name `row_summ`: no parameter, assignment, loop variable, loop or `if` \
         result before this use defines it"
    );
    assert_eq!(
        e.label,
        format!("did you mean `row_sum` (line {})?", line - 1)
    );
    let shown = e.render("examples/pto/vector_chain.py", &src);
    assert!(
        shown.contains(&format!("--> examples/pto/vector_chain.py:{line}:{col}")),
        "{shown}"
    );
}

#[test]
fn undefined_name_in_a_memref_or_a_dotted_root_is_rejected() {
    let src = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def f(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:\n        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)\n        t: pl.Tile[[16], pl.FP32, pl.MemRef(mem_vec_1, 0, 64), pl.Mem.Vec] = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)\n        return x\n";
    let e = parse(src).unwrap_err();
    assert_eq!((e.line, e.col), (8, 45));
    assert_eq!(e.label, "did you mean `mem_vec_0` (line 7)?");
    let src = src
        .replace("pl.MemRef(mem_vec_1", "pl.MemRef(mem_vec_0")
        .replace(
            "        return x\n",
            "        n: pl.Scalar[pl.INDEX] = xx.shape\n        return x\n",
        );
    let e = parse(&src).unwrap_err();
    assert_eq!((e.line, e.col), (9, 34));
    assert!(
        e.message.starts_with("undefined name `xx`"),
        "{}",
        e.message
    );
    assert_eq!(e.label, "did you mean `x` (line 6)?");
}

#[test]
fn a_name_far_from_every_defined_one_still_names_the_closest() {
    let src = CHAIN.replace("pl.tile.exp(shifted)", "pl.tile.exp(completely_unrelated)");
    let e = parse(&src).unwrap_err();
    assert!(
        e.label
            .starts_with("define it before this use; the closest defined name is `"),
        "{}",
        e.label
    );
}

#[test]
fn a_use_before_its_definition_is_undefined() {
    // `sum_tmp` read one line before it is assigned.
    let src = CHAIN.replace("pl.tile.exp(shifted)", "pl.tile.exp(sum_tmp)");
    let e = parse(&src).unwrap_err();
    assert!(
        e.message.starts_with("undefined name `sum_tmp`"),
        "{}",
        e.message
    );
}

/// Every form PyPTO prints a definition in resolves: parameters,
/// assignments (one and several targets), loop variables, iter args, loop
/// and `if` results, module-level dynamic dimensions, `pld` types,
/// `tuple[...]` returns, `self.` calls and PyPTO's free variables.
#[test]
fn every_printed_definition_resolves() {
    let src = r#"# pypto.program: Forms
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class Forms:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[N, 64], pl.FP32], d: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]) -> tuple[pl.Tensor[[N, 64], pl.FP32], pl.Tensor[[N, 64], pl.FP32]]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a,)):
            b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, acc)
            if i < 2:
                c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(b, b)
                r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(c)
            else:
                r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
            out: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(r)
        for (w,) in pl.while_(init_values=(out,)):
            pl.cond(n__FREE_VAR > 0)
            w2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
            w_out: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(w2)
        s: pl.Tensor[[N, 64], pl.FP32] = pl.tile.store(w_out, [0, 0], x)
        return s, s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(x: pl.Tensor[[N, 64], pl.FP32], d: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        y, z = self.k(x, d)
        return y
"#;
    let p = parse(src).unwrap_or_else(|e| panic!("{}", e.render("forms.py", src)));
    assert_eq!(tilemem_pto::print(&p), src);
}
