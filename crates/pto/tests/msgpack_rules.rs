//! Write-back rules of the MessagePack route, on PyPTO's own documents
//! bundled in `tests/data/msgpack/` (pypto planner; stage 31 and PyPTO's
//! stage 32 after InitMemRef, or stage 33 and PyPTO's stage 34 after
//! MemoryReuse or stage 35 after MemoryReuse and AllocateMemoryAddr): each
//! is read, run through the passes, written back, and compared byte for
//! byte with PyPTO's document, and the rule it shows is checked on the
//! written document's node graph.

use tilemem_pto::msgpack::{self, graph::Graph, graph::NodeId, graph::Value};
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_soc::Soc;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/msgpack");

fn read(kernel: &str, stage: &str) -> Vec<u8> {
    let p = format!("{DATA}/{kernel}/{stage}.msgpack");
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The stage-31 document of `kernel` through InitMemRef, written back.
fn init_memref(kernel: &str) -> Vec<u8> {
    run(
        kernel,
        "31_after_MaterializeTensorStrides",
        PassId::InitMemref,
    )
}

/// Document `stage` of `kernel` through `pass`, written back (target 910B,
/// or 950 for the `__a5` kernels).
fn run(kernel: &str, stage: &str, pass: PassId) -> Vec<u8> {
    run_passes(kernel, stage, &[pass])
}

/// Document `stage` of `kernel` through `passes`, written back.
fn run_passes(kernel: &str, stage: &str, passes: &[PassId]) -> Vec<u8> {
    let input = read(kernel, stage);
    let (mut p, origin) = msgpack::read_with_origin(&input).expect("reads");
    let target = if kernel.ends_with("__a5") {
        "950"
    } else {
        "910b"
    };
    let mut cx = PassContext::new(Soc::from_name(target).expect("target"), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut cx, passes).expect("plans");
    msgpack::write_program(&p, &origin).expect("writes")
}

/// Every node of `g` of kind `kind` whose `name_hint` is `name`.
fn named(g: &Graph, kind: &str, name: &str) -> Vec<NodeId> {
    (0..g.nodes.len() as u32)
        .map(NodeId)
        .filter(|&n| g.kind(n) == kind)
        .filter(|&n| g.field(n, "name_hint").and_then(|v| g.str_of(v)) == Some(name))
        .collect()
}

/// The node holding the byte offset of variable `v`'s MemRef: two
/// variables whose MemRefs are one object share it.
fn memref_offset(g: &Graph, v: NodeId) -> NodeId {
    g.field(v, "type")
        .and_then(|t| g.entry(t, "memref"))
        .and_then(|m| g.entry(m, "byte_offset"))
        .and_then(Value::as_node)
        .unwrap_or_else(|| panic!("{} has no MemRef", g.kind(v)))
}

/// The iter arg of an inner loop whose init value is the outer loop's
/// iter arg holds the MemRef object of the outer loop's init value (the
/// text never shows an iter arg's type, so the writer derives it through
/// the chain of init values).
#[test]
fn nested_iter_arg_carries_the_outer_init_values_memref() {
    let out = init_memref("tile_assemble_double_loop");
    let want = read("tile_assemble_double_loop", "32_after_InitMemRef");
    let g = msgpack::read(&out).expect("reads back");
    let only = |kind: &str, name: &str| {
        let found = named(&g, kind, name);
        assert_eq!(found.len(), 1, "one {kind} {name}: {found:?}");
        found[0]
    };
    let init = only("Var", "tile_x__ssa_v0");
    let outer = only("IterArg", "tile_x__iter_v1");
    let inner = only("IterArg", "tile_x__iter_v3");
    let object = memref_offset(&g, init);
    assert_eq!(memref_offset(&g, outer), object, "outer iter arg");
    assert_eq!(memref_offset(&g, inner), object, "inner iter arg");
    assert!(out == want, "differs from PyPTO's stage-32 document");
}

/// InitMemRef drops the comments leading an assignment even where it
/// leaves the assignment otherwise alone (PyPTO rebuilds every
/// assignment): the written statement has no leading comments, as in
/// PyPTO's document.
#[test]
fn init_memref_drops_comments_leading_an_unchanged_assignment() {
    let input = read("window_program", "31_after_MaterializeTensorStrides");
    let out = init_memref("window_program");
    let want = read("window_program", "32_after_InitMemRef");
    let comments_of_assignment_to = |doc: &[u8], name: &str| -> usize {
        let g = msgpack::read(doc).expect("reads");
        let var = named(&g, "Var", name);
        let stmt = (0..g.nodes.len() as u32)
            .map(NodeId)
            .find(|&n| {
                g.kind(n) == "AssignStmt"
                    && g.field(n, "var").and_then(Value::as_node) == var.first().copied()
            })
            .unwrap_or_else(|| panic!("an assignment to {name}"));
        g.field(stmt, "leading_comments")
            .and_then(|v| g.items(v))
            .map_or(0, <[_]>::len)
    };
    let name = "data_buf__ssa_v0";
    assert!(
        comments_of_assignment_to(&input, name) > 0,
        "the input's comment"
    );
    assert_eq!(comments_of_assignment_to(&out, name), 0);
    assert!(out == want, "differs from PyPTO's stage-32 document");
}

/// A tile result of a loop, printed untyped by a multi-value `pl.yield_`,
/// holds its iter arg's MemRef object (PyPTO types every result; the text
/// does not show it).
#[test]
fn untyped_loop_tile_result_holds_its_iter_args_memref() {
    let kernel = "qwen3_scope3__a5";
    let out = init_memref(kernel);
    let want = read(kernel, "32_after_InitMemRef");
    let g = msgpack::read(&out).expect("reads back");
    let nodes_of = |n: NodeId, key: &str| -> Vec<NodeId> {
        g.field(n, key)
            .and_then(|v| g.items(v))
            .map(|items| items.iter().filter_map(Value::as_node).collect())
            .unwrap_or_default()
    };
    let mut checked = 0;
    for l in (0..g.nodes.len() as u32).map(NodeId) {
        if g.kind(l) != "ForStmt" {
            continue;
        }
        let (args, results) = (nodes_of(l, "iter_args"), nodes_of(l, "return_vars"));
        for (a, r) in args.iter().zip(&results) {
            let name = g.field(*r, "name_hint").and_then(|v| g.str_of(v));
            if name.is_some_and(|n| n.starts_with("gate_acc__rv")) {
                assert_eq!(memref_offset(&g, *r), memref_offset(&g, *a), "{name:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "a loop carrying gate_acc");
    assert!(out == want, "differs from PyPTO's stage-32 document");
}

/// A tensor result of a loop, printed untyped by a multi-value
/// `pl.yield_`, gets a DDR MemRef of its own from InitMemRef (numbered
/// after the loop's body), not its iter arg's: the model keeps it beside
/// the function (the text never shows it) and the writer writes it.
#[test]
fn untyped_loop_tensor_result_gets_its_own_ddr_memref() {
    let kernel = "chained_snapshot_manual_dummy_phase_fence";
    let out = init_memref(kernel);
    let want = read(kernel, "32_after_InitMemRef");
    let g = msgpack::read(&out).expect("reads back");
    let only = |kind: &str, name: &str| {
        let found = named(&g, kind, name);
        assert_eq!(found.len(), 1, "one {kind} {name}: {found:?}");
        found[0]
    };
    let result = only("Var", "out__rv_v4");
    let arg = only("IterArg", "out__iter_v3");
    let base = |v: NodeId| {
        g.field(v, "type")
            .and_then(|t| g.entry(t, "memref"))
            .and_then(|m| g.entry(m, "base"))
            .and_then(|b| g.str_of(b))
            .map(str::to_string)
    };
    assert_eq!(base(result).as_deref(), Some("mem_ddr_3"));
    assert_eq!(base(arg).as_deref(), Some("mem_ddr_1"));
    assert_ne!(memref_offset(&g, result), memref_offset(&g, arg));
    assert!(out == want, "differs from PyPTO's stage-32 document");
}

/// MemoryReuse gives each view (here `tile.reshape` results moved onto a
/// donor) a MemRef object of its own with a plain index offset, also where
/// two views' MemRefs are equal: the writer does not share them by text.
#[test]
fn memory_reuse_gives_each_view_its_own_memref_object() {
    let (g, same) = from_stage_33("rms_norm", &[PassId::MemoryReuse], "34_after_MemoryReuse");
    let var = |name: &str| {
        let found = named(&g, "Var", name);
        assert_eq!(found.len(), 1, "one Var {name}: {found:?}");
        found[0]
    };
    // `MemRef(mem_vec_5, 0, 128)` both.
    let (a, b) = (var("mean_sq_v1__ssa_v0"), var("mean_sq_T_v2__ssa_v0"));
    let memref = |v: NodeId| {
        g.field(v, "type")
            .and_then(|t| g.entry(t, "memref"))
            .copied()
    };
    for key in ["base", "size"] {
        let of = |v| memref(v).and_then(|m| g.entry(&m, key).copied());
        assert_eq!(of(a), of(b), "{key}");
    }
    assert_ne!(memref_offset(&g, a), memref_offset(&g, b));
    assert!(same, "differs from PyPTO's stage-34 document");
}

/// Stage 33 of `kernel` through `passes`, read back, and whether it is
/// PyPTO's document `want` byte for byte.
fn from_stage_33(kernel: &str, passes: &[PassId], want: &str) -> (Graph, bool) {
    let out = run_passes(kernel, "33_after_MaterializeSemanticAliases", passes);
    let same = out == read(kernel, want);
    (msgpack::read(&out).expect("reads back"), same)
}

/// Stage 33 of `kernel` through MemoryReuse and AllocateMemoryAddr (see
/// [`from_stage_33`]).
fn reuse_and_alloc(kernel: &str) -> (Graph, bool) {
    let passes = [PassId::MemoryReuse, PassId::AllocateMemoryAddr];
    from_stage_33(kernel, &passes, "35_after_AllocateMemoryAddr")
}

/// The assignment defining variable `var`, and its call.
fn assignment_of(g: &Graph, var: NodeId) -> (NodeId, NodeId) {
    let stmt = (0..g.nodes.len() as u32)
        .map(NodeId)
        .find(|&n| {
            g.kind(n) == "AssignStmt" && g.field(n, "var").and_then(Value::as_node) == Some(var)
        })
        .expect("an assignment of the variable");
    let call = g.field(stmt, "value").and_then(Value::as_node);
    (stmt, call.expect("a call"))
}

/// The type map of variable `v`.
fn type_of(g: &Graph, v: NodeId) -> Value {
    *g.field(v, "type").expect("a typed variable")
}

/// The nodes of the `shape` of type map `t`.
fn shape_nodes(g: &Graph, t: &Value) -> Vec<NodeId> {
    g.entry(t, "shape")
        .and_then(|s| g.items(s))
        .map(|items| items.iter().filter_map(Value::as_node).collect())
        .unwrap_or_default()
}

/// The one `Var` of `g` named `name`.
fn only_var(g: &Graph, name: &str) -> NodeId {
    let found = named(g, "Var", name);
    assert_eq!(found.len(), 1, "one Var {name}: {found:?}");
    found[0]
}

/// A `tensor.slice` view's MemRef offset is built from the call's own
/// offset arguments: the constant `0` of `[0, 0]` in
/// `0 * block_size_cfg * 4` is the argument's node (with its span), the
/// stride variable is the variable, and the element size is new.
#[test]
fn tensor_slice_offset_holds_the_calls_offset_arguments() {
    let kernel = "dynamic_paged_attention_orch";
    let out = init_memref(kernel);
    let want = read(kernel, "32_after_InitMemRef");
    let g = msgpack::read(&out).expect("reads back");
    let view = only_var(&g, "sij_valid__ssa_v0");
    let (_, call) = assignment_of(&g, view);
    let args = g
        .field(call, "args")
        .and_then(|a| g.items(a))
        .expect("args");
    let offsets = args[2].as_node().expect("the offsets tuple");
    let first = g
        .field(offsets, "elements")
        .and_then(|e| g.items(e))
        .and_then(|e| e.first())
        .and_then(Value::as_node)
        .expect("offset 0");
    assert_eq!(g.kind(first), "ConstInt");
    // (0 * block_size_cfg) * 4
    let offset = memref_offset(&g, view);
    let left = |n: NodeId| g.field(n, "left").and_then(Value::as_node).expect("left");
    let right = |n: NodeId| g.field(n, "right").and_then(Value::as_node).expect("right");
    let term = left(offset);
    assert_eq!(left(term), first, "the offset argument's own node");
    assert_eq!(g.kind(right(term)), "Var", "the stride variable");
    assert_eq!(g.kind(right(offset)), "ConstInt", "the element size");
    assert!(out == want, "differs from PyPTO's stage-32 document");
}

/// After MemoryReuse and AllocateMemoryAddr, each view MemoryReuse gave a
/// MemRef of its own keeps it: AllocateMemoryAddr replaces each MemRef
/// object by one new object, so two views whose MemRefs now print alike
/// (`MemRef(mem_vec_5, pl.const(8448, pl.INT64), 128)`) still hold two.
#[test]
fn memory_reuse_views_keep_their_own_memref_objects_through_addresses() {
    let (g, same) = reuse_and_alloc("rms_norm");
    let (a, b) = (
        only_var(&g, "mean_sq_v1__ssa_v0"),
        only_var(&g, "mean_sq_T_v2__ssa_v0"),
    );
    let value = |n: NodeId| g.field(n, "value").and_then(Value::as_int);
    let (oa, ob) = (memref_offset(&g, a), memref_offset(&g, b));
    assert_eq!(value(oa), value(ob));
    assert_ne!(oa, ob);
    assert!(same, "differs from PyPTO's stage-35 document");
}

/// MemoryReuse moves an `if` result with its buffer; a bare alias of it
/// then has the result's whole type object (its shape nodes and MemRef
/// object); and an `if` result holds the MemRef object its then branch
/// yields, also where MemoryReuse made that object for one variable (and
/// after AllocateMemoryAddr), while the else branch's equal MemRef is
/// another.
#[test]
fn memory_reuse_alias_of_a_moved_if_result_takes_its_whole_type() {
    let (g, same) = reuse_and_alloc("mat_split_k_kernel");
    // `c__tile_t0 = c__tile_t0_l0_c_phi_2`
    let (alias, phi) = (
        only_var(&g, "c__tile_t0"),
        only_var(&g, "c__tile_t0_l0_c_phi_2"),
    );
    let (ta, tp) = (type_of(&g, alias), type_of(&g, phi));
    assert_eq!(shape_nodes(&g, &ta), shape_nodes(&g, &tp));
    assert_eq!(memref_offset(&g, alias), memref_offset(&g, phi));
    // `if ...: d__tile_l0_c_first = ...; yield` / `else: d__tile_l0_c_acc`
    let first = only_var(&g, "d__tile_l0_c_first");
    let acc = only_var(&g, "d__tile_l0_c_acc");
    let phis = named(&g, "Var", "d__tile_l0_c_phi");
    assert!(!phis.is_empty(), "the if result");
    for p in phis {
        assert_eq!(memref_offset(&g, p), memref_offset(&g, first));
    }
    assert_ne!(memref_offset(&g, acc), memref_offset(&g, first));
    assert!(same, "differs from PyPTO's stage-35 document");
}

/// A bare alias of an assignment-defined value that MemoryReuse moves with
/// its source keeps its own type object (its own shape nodes): only the
/// aliases of a moved `if` result take their source's whole type.
#[test]
fn memory_reuse_alias_of_an_assigned_value_keeps_its_own_shape() {
    let (g, same) = from_stage_33(
        "split_aiv_none_pipe",
        &[PassId::MemoryReuse],
        "34_after_MemoryReuse",
    );
    // `acc__rv_v2 = acc__ssa_v3_2`, both on `mem_vec_2` now.
    let (alias, src) = (only_var(&g, "acc__rv_v2"), only_var(&g, "acc__ssa_v3_2"));
    let (ta, ts) = (type_of(&g, alias), type_of(&g, src));
    assert_eq!(memref_offset(&g, alias), memref_offset(&g, src));
    let (sa, ss) = (shape_nodes(&g, &ta), shape_nodes(&g, &ts));
    assert_eq!(sa.len(), 2);
    assert!(sa.iter().all(|n| !ss.contains(n)), "{sa:?} {ss:?}");
    assert!(same, "differs from PyPTO's stage-34 document");
}

/// `tile_assemble_double_loop`'s stage-31 document with the row window
/// made static (`tile.slice(tile_src, [1, 16], [2, 0])`) and a reshape of
/// it added after it (`tile_row_r = tile.reshape(tile_row, [1, 16])`),
/// built on PyPTO's own nodes (no shared kernel has a static tile window).
fn static_window_and_reshape() -> Vec<u8> {
    let doc = read(
        "tile_assemble_double_loop",
        "31_after_MaterializeTensorStrides",
    );
    let mut g = msgpack::read(&doc).expect("reads");
    let sym = |g: &mut Graph, t: &str| g.syms.intern(t);
    let var = only_var(&g, "tile_row__ssa_v0");
    let (stmt, call) = assignment_of(&g, var);
    let args: Vec<Value> = g
        .field(call, "args")
        .and_then(|a| g.items(a))
        .expect("args")
        .to_vec();
    let (shape, offsets) = (args[1], args[2].as_node().expect("offsets"));
    // Offsets `[row, 0]` -> `[2, 0]`, in place.
    let elems: Vec<Value> = g
        .field(offsets, "elements")
        .and_then(|e| g.items(e))
        .expect("elements")
        .to_vec();
    let zero = elems[1].as_node().expect("a constant");
    let value = sym(&mut g, "value");
    let two = g.with_fields(zero, &[(value, Value::Int(2))]);
    let elements = g.new_array(&[Value::Node(two), elems[1]]);
    let key = sym(&mut g, "elements");
    let n = g.with_fields(offsets, &[(key, elements)]);
    g.nodes[offsets.index()] = *g.node(n);
    // The reshape: the window's call and variable, renamed and re-opped.
    let name = sym(&mut g, "tile_row_r__ssa_v0");
    let key = sym(&mut g, "name_hint");
    let var2 = g.with_fields(var, &[(key, Value::Str(name))]);
    let op = *g.field(call, "op").expect("op");
    let (key, name) = (sym(&mut g, "name"), sym(&mut g, "tile.reshape"));
    let op = g.with_entry(&op, key, Value::Str(name));
    let args = g.new_array(&[Value::Node(var), shape]);
    let (k_op, k_args) = (sym(&mut g, "op"), sym(&mut g, "args"));
    let call2 = g.with_fields(call, &[(k_op, op), (k_args, args)]);
    let (k_var, k_value) = (sym(&mut g, "var"), sym(&mut g, "value"));
    let stmt2 = g.with_fields(
        stmt,
        &[(k_var, Value::Node(var2)), (k_value, Value::Node(call2))],
    );
    // Placed after the window, in place of its block.
    let k_stmts = sym(&mut g, "stmts");
    let block = (0..g.nodes.len() as u32)
        .map(NodeId)
        .find(|&n| {
            g.kind(n) == "SeqStmts"
                && g.field(n, "stmts")
                    .and_then(|v| g.items(v))
                    .is_some_and(|items| items.contains(&Value::Node(stmt)))
        })
        .expect("the window's block");
    let mut items: Vec<Value> = g
        .field(block, "stmts")
        .and_then(|v| g.items(v))
        .expect("stmts")
        .to_vec();
    let at = items
        .iter()
        .position(|x| *x == Value::Node(stmt))
        .expect("the window")
        + 1;
    items.insert(at, Value::Node(stmt2));
    let items = g.new_array(&items);
    let n = g.with_fields(block, &[(k_stmts, items)]);
    g.nodes[block.index()] = *g.node(n);
    msgpack::write(&g).expect("writes")
}

/// A whole-source view (`tile.reshape`) of a static window holds the
/// window's MemRef object: InitMemRef binds an inherit-input op's result
/// to its argument's MemRef (PyPTO's op registry notes, InitMemRef), a
/// window's MemRef is one object per window, and AllocateMemoryAddr
/// replaces each object by one new object, so after both passes the two
/// variables still share one.
#[test]
fn init_memref_reshape_of_a_static_window_holds_the_windows_memref() {
    let doc = static_window_and_reshape();
    for passes in [
        &[PassId::InitMemref][..],
        &[PassId::InitMemref, PassId::AllocateMemoryAddr][..],
    ] {
        let (mut p, origin) = msgpack::read_with_origin(&doc).expect("reads");
        let soc = Soc::from_name("910b").expect("target");
        let mut cx = PassContext::new(soc, PlannerMode::Pypto);
        run_pipeline(&mut p, &mut cx, passes).expect("plans");
        let out = msgpack::write_program(&p, &origin).expect("writes");
        let g = msgpack::read(&out).expect("reads back");
        let (window, view) = (
            only_var(&g, "tile_row__ssa_v0"),
            only_var(&g, "tile_row_r__ssa_v0"),
        );
        let offset = memref_offset(&g, window);
        // Row 2 of a [32, 16] FP32 tile: 128 bytes in (an address after
        // AllocateMemoryAddr).
        let bytes = g.field(offset, "value").and_then(Value::as_int);
        assert!(bytes.is_some_and(|b| b >= 128), "{passes:?}: {bytes:?}");
        assert_eq!(memref_offset(&g, view), offset, "{passes:?}");
    }
}
