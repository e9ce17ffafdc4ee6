//! How the values of an op split into the segments of its ODS operands
//! and results: whether an op can print by its declarative format at all
//! ([`conforms`]) and which values each `$operand`/`$result` stands for.

use crate::ir::format::Elem;
use crate::ir::ods::{Arity, OdsOp};
use crate::ir::{Module, OpId, ValueId};

/// Whether `op` can print by its ODS format: its operands split in one
/// segment per ODS operand (ops read by the format, or built to match
/// it), or unsegmented operands that are exactly the single ODS operands
/// (ops built without segments, e.g. `annotation.mark %v`).
pub(crate) fn conforms(m: &Module, op: OpId) -> Option<(&'static OdsOp, &'static [Elem])> {
    let d = m.op(op);
    if d.syntax.is_some() || !d.regions().is_empty() {
        return None;
    }
    let (ods, elems) = crate::ir::format::op_format(d.name())?;
    segments(m, op, ods)?;
    let singles = ods
        .results
        .iter()
        .filter(|(_, a)| *a == Arity::Single)
        .count();
    (d.results().len() >= singles).then_some((ods, elems))
}

/// The operand ranges of the ODS operands of `op`.
fn segments(m: &Module, op: OpId, ods: &OdsOp) -> Option<Vec<(usize, usize)>> {
    let d = m.op(op);
    let lens: Vec<usize> = if d.segments.len() == ods.operands.len() {
        d.segments.iter().map(|&n| n as usize).collect()
    } else if d.segments.is_empty() {
        // Without segment sizes, MLIR gives a lone variadic or optional
        // operand whatever the single operands leave (an op with several
        // would need `operandSegmentSizes`).
        let singles = ods
            .operands
            .iter()
            .filter(|(_, a)| *a == Arity::Single)
            .count();
        let open: Vec<usize> = (0..ods.operands.len())
            .filter(|&i| ods.operands[i].1 != Arity::Single)
            .collect();
        let rest = d.operands().len().checked_sub(singles)?;
        match open.as_slice() {
            [] => vec![1; singles],
            [i] if ods.operands[*i].1 == Arity::Variadic || rest <= 1 => ods
                .operands
                .iter()
                .enumerate()
                .map(|(k, (_, a))| {
                    if k == *i {
                        rest
                    } else {
                        usize::from(*a == Arity::Single)
                    }
                })
                .collect(),
            _ => return None,
        }
    } else {
        return None;
    };
    if lens.iter().sum::<usize>() != d.operands().len() {
        return None;
    }
    let mut start = 0;
    Some(
        lens.into_iter()
            .map(|n| {
                let r = (start, n);
                start += n;
                r
            })
            .collect(),
    )
}

/// The values of ODS operand `i`.
pub(crate) fn operand_segment(m: &Module, op: OpId, ods: &OdsOp, i: usize) -> Vec<ValueId> {
    let Some(segs) = segments(m, op, ods) else {
        return Vec::new();
    };
    let (start, n) = segs.get(i).copied().unwrap_or((0, 0));
    m.op(op).operands()[start..start + n].to_vec()
}

/// The result values of ODS result `i` (variadic results take what the
/// single ones leave).
pub(crate) fn result_segment(m: &Module, op: OpId, ods: &OdsOp, i: usize) -> Vec<ValueId> {
    let res = m.op(op).results();
    let singles = ods
        .results
        .iter()
        .filter(|(_, a)| *a != Arity::Variadic)
        .count();
    let variadic_len = res.len().saturating_sub(singles);
    let mut start = 0;
    for (k, (_, a)) in ods.results.iter().enumerate() {
        let len = if *a == Arity::Variadic {
            variadic_len
        } else {
            1
        };
        if k == i {
            return res
                .get(start..(start + len).min(res.len()))
                .unwrap_or(&[])
                .to_vec();
        }
        start += len;
    }
    Vec::new()
}
