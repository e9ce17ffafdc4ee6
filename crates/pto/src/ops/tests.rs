use super::*;

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
    assert_eq!(lookup("tile.load").unwrap().pipe, Pipe::Mte2);
    assert!(lookup("tile.unknown_op").is_none());
    assert_eq!(
        lookup_or_default("tile.unknown_op").alias,
        AliasRule::InplaceSafe
    );
}
