//! The generated input shared by the benchmarks.

/// Ops per generated group (alloc, alloc, subview, load, vadd).
const GROUP_OPS: usize = 5;

/// A function of `ops` ops (plus `return`) whose buffers all live in UB
/// and need row padding (allocs, subviews, HIVM loads and vector ops),
/// inside a module with `target` as its `hacc.target` when given.
pub fn generate(ops: usize, target: Option<&str>) -> String {
    let ub = "#hivm.address_space<ub>";
    let gm_ty = "memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>";
    let a_ty = format!("memref<4x15xf16, {ub}>");
    let s_ty = format!("memref<2x15xf16, strided<[15, 1]>, {ub}>");
    let b_ty = format!("memref<2x15xf16, {ub}>");
    let mut out = String::new();
    if let Some(t) = target {
        out.push_str(&format!(
            "module attributes {{hacc.target = #hacc.target<\"{t}\">}} {{\n"
        ));
    }
    out.push_str(&format!("func.func @generated(%gm: {gm_ty}) {{\n"));
    for g in 0..ops / GROUP_OPS {
        out.push_str(&format!("  %a{g} = memref.alloc() : {a_ty}\n"));
        out.push_str(&format!("  %b{g} = memref.alloc() : {b_ty}\n"));
        out.push_str(&format!(
            "  %s{g} = memref.subview %a{g}[0, 0] [2, 15] [1, 1] : {a_ty} to {s_ty}\n"
        ));
        out.push_str(&format!(
            "  hivm.hir.load ins(%gm : {gm_ty}) outs(%a{g} : {a_ty})\n"
        ));
        out.push_str(&format!(
            "  hivm.hir.vadd ins(%s{g}, %b{g} : {s_ty}, {b_ty}) outs(%b{g} : {b_ty})\n"
        ));
    }
    out.push_str("  return\n}\n");
    if target.is_some() {
        out.push_str("}\n");
    }
    out
}
