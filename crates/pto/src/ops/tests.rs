use super::*;
// A skip is written to stderr directly, past the harness's output capture.
use std::io::Write as _;

#[test]
fn every_name_is_unique() {
    let mut names: Vec<_> = TABLE.iter().map(|o| o.name).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n);
}

#[test]
fn not_inplace_safe_ops_forbid_every_input() {
    for op in [
        "tile.recip",
        "tile.row_sum",
        "tile.move",
        "tile.transpose",
        "tile.fmods",
    ] {
        let info = lookup(op).unwrap();
        assert!(!info.is_inplace_safe(), "{op}");
        assert_eq!(info.forbidden_alias_args(Family::A5, 2, None), vec![0, 1]);
    }
    assert!(lookup("pl.tile.add").unwrap().is_inplace_safe());
}

#[test]
fn sel_and_expand_forbid_specific_operands() {
    let sel = lookup("tile.sel").unwrap();
    assert_eq!(sel.forbidden_alias_args(Family::A2A3, 4, None), vec![0, 3]);
    let cem = lookup("tile.col_expand_mul").unwrap();
    assert_eq!(cem.forbidden_alias_args(Family::A5, 2, None), vec![1]);
    assert_eq!(
        lookup("tile.row_expand_div").unwrap().alias,
        AliasRule::Forbid(&[1])
    );
}

#[test]
fn sels_and_prelu_are_target_aware() {
    let sels = lookup("tile.sels").unwrap();
    assert_eq!(sels.forbidden_alias_args(Family::A2A3, 4, None), vec![0]);
    assert_eq!(sels.forbidden_alias_args(Family::A5, 4, None), vec![0]);
    assert_eq!(
        sels.operand_separations(Family::A2A3, 4),
        vec![(2, 0), (2, 1)]
    );
    assert!(sels.operand_separations(Family::A5, 4).is_empty());
    assert_eq!(sels.workspace_args, &[2]);
    let prelu = lookup("tile.prelu").unwrap();
    assert_eq!(
        prelu.forbidden_alias_args(Family::A2A3, 3, None),
        vec![0, 1, 2]
    );
    assert_eq!(prelu.forbidden_alias_args(Family::A5, 3, None), vec![0, 1]);
}

#[test]
fn cast_depends_on_width_and_target() {
    let cast = lookup("tile.cast").unwrap();
    let widen = Some(CastWidths {
        src_bits: 16,
        dst_bits: 32,
    });
    let narrow = Some(CastWidths {
        src_bits: 32,
        dst_bits: 16,
    });
    let same = Some(CastWidths {
        src_bits: 32,
        dst_bits: 32,
    });
    assert_eq!(cast.forbidden_alias_args(Family::A5, 1, widen), vec![0]);
    assert_eq!(cast.forbidden_alias_args(Family::A2A3, 1, widen), vec![0]);
    assert_eq!(cast.forbidden_alias_args(Family::A2A3, 1, narrow), vec![0]);
    assert!(cast.forbidden_alias_args(Family::A5, 1, narrow).is_empty());
    assert!(cast.forbidden_alias_args(Family::A2A3, 1, same).is_empty());
}

#[test]
fn views_inplace_and_classes() {
    assert_eq!(
        lookup("tile.slice").unwrap().view,
        ViewRule::Window { offsets_arg: 2 }
    );
    assert_eq!(lookup("tile.reshape").unwrap().view, ViewRule::WholeSource);
    assert!(!lookup("tile.transpose").unwrap().is_view());
    assert_eq!(
        lookup("tile.matmul_acc").unwrap().output_reuses_input,
        Some(0)
    );
    assert_eq!(lookup("tile.store").unwrap().output_reuses_input, Some(2));
    assert_eq!(lookup("tile.load").unwrap().class, OpClass::Load);
    assert_eq!(lookup("tile.tpop_from_aic").unwrap().class, OpClass::Tpop);
    assert_eq!(lookup("tile.matmul").unwrap().pipe, Pipe::Cube);
    assert_eq!(
        lookup("tile.matmul").unwrap().out_space,
        OutSpace::Fixed(MemSpace::Acc)
    );
    assert_eq!(lookup("tile.load").unwrap().pipe, Pipe::Route);
    assert!(lookup("tile.unknown_op").is_none());
    assert_eq!(
        lookup_or_default("tile.unknown_op").alias,
        AliasRule::InplaceSafe
    );
}

#[test]
fn registry_facts_fixed_in_the_rebuild() {
    for op in ["tile.ands", "tile.ors", "tile.extract", "tile.gather"] {
        assert_eq!(lookup(op).unwrap().alias, AliasRule::NotInplaceSafe, "{op}");
    }
    let assemble = lookup("tile.assemble").unwrap();
    assert_eq!(assemble.output_reuses_input, None);
    assert!(assemble.output_memory_inherit_input);
    assert_eq!(assemble.output_binds_input(), Some(0));
    assert!(!assemble.is_view());
    assert_eq!(
        assemble.arg_effects,
        ArgEffects::Declared(&[(0, ArgEffect::ReadWrite)])
    );
    let fillpad = lookup("tile.fillpad_inplace").unwrap();
    assert_eq!(fillpad.output_reuses_input, Some(0));
    assert_eq!(lookup("tile.concat").unwrap().pipe, Pipe::Vector);
    assert_eq!(
        lookup("tile.row_expand_add").unwrap().alias,
        AliasRule::Forbid(&[1, 2])
    );
    assert_eq!(
        lookup("tile.transpose_view").unwrap().view,
        ViewRule::WholeSource
    );
    assert_eq!(lookup("tile.add").unwrap().evidence, Evidence::Functional);
    assert_eq!(lookup("tile.alloc").unwrap().evidence, Evidence::NoAccess);
    assert_eq!(
        lookup("tile.row_expand").unwrap().evidence,
        Evidence::Unknown
    );
    for gone in ["tile.max", "tile.reinterpret", "tile.tfree", "tile.select"] {
        assert!(lookup(gone).is_none(), "{gone}");
    }
}

#[test]
fn rem_scratch_is_kept_apart_on_a2a3_only() {
    let rem = lookup("tile.rem").unwrap();
    assert_eq!(
        rem.operand_separations(Family::A2A3, 3),
        vec![(2, 0), (2, 1)]
    );
    assert!(rem.operand_separations(Family::A5, 3).is_empty());
    assert_eq!(rem.forbidden_alias_args(Family::A5, 3, None), vec![0, 1, 2]);
    let rems = lookup("tile.rems").unwrap();
    assert_eq!(rems.operand_separations(Family::A2A3, 3), vec![(2, 0)]);
    assert!(rems.operand_separations(Family::A2A3, 2).is_empty());
}

#[test]
fn unknown_ops_are_named() {
    assert!(check_known("tile.add").is_ok());
    assert!(check_known("pl.tile.quant_mx").is_ok());
    assert!(check_known("tensor.add").is_ok());
    assert!(check_known("pld.tile.remote_load").is_ok());
    assert!(check_known("system.reserve_buffer").is_ok());
    let e = check_known("tile.max").unwrap_err();
    assert!(e.contains("unknown op 'tile.max'"), "{e}");
    assert!(check_known("tensor.frobnicate").is_err());
    assert!(check_known("system.nope").is_err());
}

/// Every registry fact of every in-scope op equals `op-registry.csv`, and
/// every other difference is an entry of `DEVIATIONS`.
#[test]
fn shared_table_matches_registry_csv() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference/pypto/op-registry.csv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_table_matches_registry_csv: {path} not present"
        );
        return;
    };
    let rows = registry::parse_csv(&text).unwrap();
    assert_eq!(rows.len(), 312);
    let mut names: Vec<&str> = rows.iter().map(|r| r["name"].as_str()).collect();
    names.sort_unstable();
    let signed: Vec<&str> = SIGNATURES.iter().map(|s| s.name).collect();
    assert_eq!(names, signed);
    for row in &rows {
        let sig = signature(&row["name"]).unwrap();
        for (col, ours) in registry::signature_facts(sig) {
            assert_eq!(ours, row[col], "{}: column {col}", sig.name);
        }
    }
    let deviates = |op: &str, pred: &dyn Fn(&Change) -> bool| {
        DEVIATIONS.iter().any(|d| d.op == op && pred(&d.change))
    };
    let mut compared = 0;
    for row in &rows {
        let name = row["name"].as_str();
        if !registry::in_scope(name) {
            assert!(TABLE.iter().all(|o| o.name != name), "{name} out of scope");
            continue;
        }
        let info = TABLE
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("registry op {name} missing from the table"));
        for (col, ours) in registry::registry_facts(info) {
            assert_eq!(ours, row[col], "{name}: column {col}");
        }
        let plain = if !info.inplace_safe {
            AliasRule::NotInplaceSafe
        } else if !info.forbid_output_alias.is_empty() {
            AliasRule::Forbid(info.forbid_output_alias)
        } else {
            AliasRule::InplaceSafe
        };
        assert!(
            info.alias == plain || deviates(name, &|c| *c == Change::Alias(info.alias)),
            "{name}: alias {:?} differs from the registry's {plain:?} without a deviation",
            info.alias
        );
        assert!(
            info.workspace_args.is_empty()
                || deviates(name, &|c| *c == Change::Workspace(info.workspace_args)),
            "{name}: workspace args without a deviation"
        );
        assert!(
            info.a2a3_separations.is_empty()
                || deviates(name, &|c| *c
                    == Change::A2a3Separations(info.a2a3_separations)),
            "{name}: A2/A3 separations without a deviation"
        );
        compared += 1;
    }
    assert_eq!(compared, TABLE.len(), "table rows outside the registry");
    for d in DEVIATIONS {
        let registered = names.binary_search(&d.op).is_ok();
        assert_eq!(
            registered,
            !matches!(d.change, Change::Row(_)),
            "{}: a Row deviation exactly for unregistered ops",
            d.op
        );
        assert!(d.source.contains("seeds/"), "{}: no seed reference", d.op);
    }
}

/// The per-call pipe of load, store and move follows the SoC memory graph:
/// the routes only Ascend950 has are none on 910B.
#[test]
fn route_pipes_follow_the_memory_graph() {
    use super::route_pipe;
    use tilemem_soc::Family::{A2A3, A5};
    assert_eq!(
        route_pipe(MemSpace::Ddr, MemSpace::Mat, A2A3),
        Some(Pipe::Mte2)
    );
    assert_eq!(route_pipe(MemSpace::Ddr, MemSpace::Left, A5), None);
    assert_eq!(
        route_pipe(MemSpace::Vec, MemSpace::Ddr, A2A3),
        Some(Pipe::Mte3)
    );
    assert_eq!(
        route_pipe(MemSpace::Acc, MemSpace::Ddr, A2A3),
        Some(Pipe::Fixpipe)
    );
    assert_eq!(
        route_pipe(MemSpace::Mat, MemSpace::Right, A2A3),
        Some(Pipe::Mte1)
    );
    assert_eq!(
        route_pipe(MemSpace::Mat, MemSpace::Mat, A2A3),
        Some(Pipe::Vector)
    );
    assert_eq!(route_pipe(MemSpace::Acc, MemSpace::Vec, A2A3), None);
    assert_eq!(
        route_pipe(MemSpace::Acc, MemSpace::Vec, A5),
        Some(Pipe::Fixpipe)
    );
    assert_eq!(route_pipe(MemSpace::Vec, MemSpace::Mat, A2A3), None);
    assert_eq!(
        route_pipe(MemSpace::Vec, MemSpace::Mat, A5),
        Some(Pipe::Mte3)
    );
    assert_eq!(route_pipe(MemSpace::Mat, MemSpace::LeftScale, A2A3), None);
    assert!(lookup("tile.assemble")
        .unwrap()
        .writes_window_of_first_arg());
    let others = TABLE
        .iter()
        .filter(|o| o.writes_window_of_first_arg())
        .map(|o| o.name)
        .collect::<Vec<_>>();
    assert_eq!(others, ["tile.assemble"]);
}

#[test]
fn required_arguments_follow_the_registry_memory_facts() {
    let min = |op: &str| signature(op).unwrap().min_args;
    // Input spaces: both matmul operands; the reused accumulator and both
    // operands of matmul_acc, not its init_cond.
    assert_eq!(min("tile.matmul"), 2);
    assert_eq!(min("tile.matmul_acc"), 3);
    // The stored tensor (set_output_reuses_input(2)); the slice's offsets.
    assert_eq!(min("tile.store"), 3);
    assert_eq!(min("tile.slice"), 3);
    // No memory fact beyond the first argument; tile.rsqrt's tmp is
    // optional (PyPTO prints it without).
    assert_eq!(min("tile.load"), 1);
    assert_eq!(min("tile.rsqrt"), 1);
    assert_eq!(min("system.reserve_buffer"), 0);
}

#[test]
fn signature_checks() {
    assert!(check_call("pl.tile.load", 4, &["target_memory", "attrs"]).is_ok());
    let e = check_call("tile.load", 4, &["target_memory", "pad"]).unwrap_err();
    assert_eq!((e.at, e.label), (At::Kwarg(1), "unknown keyword"));
    let e = check_call("tile.full", 2, &["value"]).unwrap_err();
    assert_eq!((e.at, e.label), (At::Kwarg(0), "given twice"));
    assert!(check_call("tile.full", 1, &["dtype", "value"]).is_ok());
    let e = check_call("tile.matmul", 1, &[]).unwrap_err();
    assert_eq!((e.at, e.label), (At::Callee, "missing argument"));
    assert!(check_call("tile.matmul", 1, &["rhs"]).is_ok());
    let e = check_call("tile.exp", 2, &[]).unwrap_err();
    assert_eq!(e.label, "too many arguments");
    // No attributes declared: any keyword (PyPTO validates none).
    assert!(check_call("system.task_dummy", 0, &["deps"]).is_ok());
    // Not in the table: not checked here.
    assert!(check_call("pl.range", 7, &["x"]).is_ok());
}

#[test]
fn input_spaces_and_roles_come_from_the_registry() {
    use tilemem_soc::MemSpace;
    assert_eq!(
        lookup("tile.matmul").unwrap().input_memory,
        &[(0, &[MemSpace::Left][..]), (1, &[MemSpace::Right][..])]
    );
    assert_eq!(
        lookup("tile.store").unwrap().input_memory,
        &[(0, &[MemSpace::Vec, MemSpace::Acc][..])]
    );
    assert!(has_class("pl.tile.alloc", OpClass::Alloc));
    assert!(has_class("system.reserve_buffer", OpClass::Reserve));
    assert!(!has_class("reserve_buffer", OpClass::Reserve));
    assert!(has_role(
        "system.aiv_initialize_pipe",
        CrossCoreRole::InitializePipe
    ));
    assert!(has_role("tile.tpop_from_aic", CrossCoreRole::TPop));
    assert!(!has_role("tile.add", CrossCoreRole::TPop));
}

#[test]
fn every_registered_op_has_a_signature_checked_on_its_calls() {
    assert_eq!(SIGNATURES.len(), 312);
    assert!(SIGNATURES.windows(2).all(|w| w[0].name < w[1].name));
    // Outside the table's scope: the pre-lowering tensor ops, pld, array.
    assert!(lookup("tensor.add").is_none());
    let e = check_call("pl.tensor.add", 3, &[]).unwrap_err();
    assert_eq!(
        e.message,
        "'tensor.add' takes at most 2 positional arguments (lhs, rhs), found 3"
    );
    let e = check_call("array.create", 1, &["dtype", "size"]).unwrap_err();
    assert_eq!((e.at, e.label), (At::Kwarg(1), "unknown keyword"));
    assert!(check_call("pld.system.rank", 1, &[]).is_ok());
    assert_eq!(
        check_call("pld.system.rank", 0, &[]).unwrap_err().label,
        "missing argument"
    );
}

#[test]
fn printing_rules_come_from_the_registry_names() {
    // The registry names the first argument of both allocations
    // `memory_space`; no other argument is one.
    assert!(arg_is_memory_space("tile.alloc", 0));
    assert!(arg_is_memory_space("pl.tensor.alloc", 0));
    assert!(!arg_is_memory_space("tile.alloc", 1));
    assert!(!arg_is_memory_space("tile.load", 0));
    assert!(!arg_is_memory_space("no.such_op", 0));
    // Arguments printed by name carry their registry name.
    assert_eq!(printed_by_name("tile.full", 1), Some("value"));
    assert_eq!(printed_by_name("pl.tensor.full", 1), Some("value"));
    assert_eq!(printed_by_name("tile.matmul_acc", 3), Some("init_cond"));
    assert_eq!(printed_by_name("tile.full", 0), None);
    assert_eq!(printed_by_name("tile.add", 1), None);
}
