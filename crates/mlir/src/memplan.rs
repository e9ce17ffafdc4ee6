//! Memory planning of HIVM MLIR as one call: what the CLI, the Python
//! module and tools use.
//!
//! [`plan_text`] reads a module, gives it the device spec of its chip when
//! it has none (`-hacc-append-device-spec`, the chip from the request, the
//! module's `hacc.target`, else `Ascend910B1`), runs the plan-memory pass of
//! the chip's kind (`-hivm-plan-memory` on memory-based chips,
//! `-hivm-plan-memory-regbase` on register-based ones; the pass checks its
//! result independently before it returns) and reports, per function and
//! memory space, where each buffer went.

use tilemem_soc::DeviceSpec;

use crate::ir::{Attribute, Diagnostic, Location, Module, OpId, Severity};
use crate::parse::{parse_module, ParseOptions};
use crate::pass::{Pass, PassContext};
use crate::passes::append_device_spec::AppendDeviceSpec;
use crate::passes::device_spec::{
    entries_of, npu_spec_entries, npu_spec_int, set_npu_spec, target_chip,
};
use crate::passes::plan_memory::membase::PlanMemory;
use crate::passes::plan_memory::op_facts::address_space_of;
use crate::passes::plan_memory::regbase::PlanMemoryRegbase;
use crate::passes::plan_memory::Options;
use crate::print::print_module;

/// What to plan and how.
#[derive(Clone, Debug, Default)]
pub struct PlanRequest {
    /// The chip (`Ascend910B1`, `Ascend950PR_9589`, ...); `None`: the
    /// module's `hacc.target`, else `Ascend910B1`.
    pub target: Option<String>,
    /// Pass options (`mem-plan-mode`, `restrict-inplace-as-isa`, ...).
    pub options: Options,
}

/// Where one buffer went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferPlan {
    /// SSA name in the output (`%0`).
    pub name: String,
    /// The memref type.
    pub ty: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Byte offset of each slot (one per multi-buffer slot).
    pub offsets: Vec<u64>,
    /// Source position of the allocation.
    pub loc: Location,
}

/// One memory space of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpacePlan {
    /// `ub`, `cbuf` or `cc`.
    pub space: String,
    /// Usable bytes.
    pub capacity: u64,
    /// Highest byte used (`max(offset + size)`).
    pub used: u64,
    /// The buffers, in program order.
    pub buffers: Vec<BufferPlan>,
}

/// The plan of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionPlan {
    /// The function's name.
    pub name: String,
    /// Its planned spaces.
    pub spaces: Vec<SpacePlan>,
}

/// A successful plan.
#[derive(Clone, Debug)]
pub struct PlanOutcome {
    /// The planned module, printed.
    pub text: String,
    /// Per function, where the buffers went.
    pub functions: Vec<FunctionPlan>,
    /// Text the pass prints on standard output (the DMA-reuse warning).
    pub stdout: String,
    /// Warnings.
    pub warnings: Vec<Diagnostic>,
    /// The chip planned for.
    pub chip: String,
    /// Summary lines of the pass (`planner=optimal`: per space, the bytes
    /// and penalties of both planners and which placement is used).
    pub summary: Vec<String>,
}

/// Why planning failed.
#[derive(Clone, Debug)]
pub struct PlanFailure {
    /// The errors (and warnings before them).
    pub diagnostics: Vec<Diagnostic>,
    /// The input could not be read or is a program the planner rejects
    /// (exit 2), rather than one whose buffers do not fit (exit 1).
    pub bad_input: bool,
}

/// The chip `module` is planned for under `req`.
fn chip_of(module: &Module, req: &PlanRequest) -> Result<&'static DeviceSpec, PlanFailure> {
    if let Some(t) = &req.target {
        return DeviceSpec::lookup(t).ok_or_else(|| PlanFailure {
            diagnostics: vec![Diagnostic::error(
                Location::unknown(),
                format!("unknown target '{t}' (e.g. Ascend910B1, Ascend950PR_9589)"),
            )],
            bad_input: true,
        });
    }
    Ok(target_chip(module)
        .unwrap_or_else(|| DeviceSpec::lookup("Ascend910B1").expect("Ascend910B1 is in the table")))
}

/// Plans `module` in place (see the module docs); returns the pass
/// context (warnings, standard output text) and the chip.
pub fn plan_module(
    module: &mut Module,
    req: &PlanRequest,
) -> Result<(PassContext, &'static DeviceSpec), PlanFailure> {
    let mut cx = PassContext::default();
    let chip = plan_module_in(module, req, &mut cx)?;
    Ok((cx, chip))
}

/// [`plan_module`] in the pass context `cx` (which then holds the
/// placements when `cx.placements` is set, whether or not everything
/// fits).
pub fn plan_module_in(
    module: &mut Module,
    req: &PlanRequest,
    cx: &mut PassContext,
) -> Result<&'static DeviceSpec, PlanFailure> {
    let chip = with_device_spec(module, req, cx)?;
    let result = if chip.is_regbase() {
        PlanMemoryRegbase {
            options: req.options.clone(),
        }
        .run_in(module, cx)
    } else {
        PlanMemory {
            options: req.options.clone(),
        }
        .run_in(module, cx)
    };
    match result {
        Ok(()) => Ok(chip),
        Err(_) => Err(PlanFailure {
            bad_input: cx.bad_input,
            diagnostics: cx.diags.clone(),
        }),
    }
}

/// Gives `module` the device spec of the chip it is planned for under
/// `req` (see the module docs) and returns the chip.
pub fn with_device_spec(
    module: &mut Module,
    req: &PlanRequest,
    cx: &mut PassContext,
) -> Result<&'static DeviceSpec, PlanFailure> {
    let chip = chip_of(module, req)?;
    match npu_spec_entries(module) {
        Some(have) if req.target.is_none() => {
            // A hand-written spec is kept; the entries it lacks come from
            // the chip's row.
            let mut entries = entries_of(chip);
            let complete = entries
                .iter()
                .all(|(k, _)| have.iter().any(|(h, _)| h == k));
            if !complete {
                for e in &mut entries {
                    if let Some((_, v)) = have.iter().find(|(h, _)| *h == e.0) {
                        e.1 = v.clone();
                    }
                }
                set_npu_spec(module, &entries);
            }
        }
        _ => {
            let spec = AppendDeviceSpec {
                target: Some(chip),
                ..AppendDeviceSpec::default()
            };
            let _ = spec.run_in(module, cx);
            // The "overwriting" warnings of an explicit request are expected.
            cx.diags.clear();
        }
    }
    Ok(chip)
}

/// Reads, plans and prints `text` (see the module docs).
pub fn plan_text(text: &str, req: &PlanRequest) -> Result<PlanOutcome, PlanFailure> {
    let mut module = parse_module(text, &ParseOptions::default()).map_err(|d| PlanFailure {
        diagnostics: vec![d],
        bad_input: true,
    })?;
    let (cx, chip) = plan_module(&mut module, req)?;
    Ok(PlanOutcome {
        text: print_module(&module),
        functions: planned_functions(&module),
        stdout: cx.stdout,
        summary: cx.summary,
        warnings: cx
            .diags
            .into_iter()
            .filter(|d| d.severity != Severity::Error)
            .collect(),
        chip: chip.name.to_string(),
    })
}

/// The HIVM address space of a ranked memref type.
fn space_of(t: &crate::ir::Type) -> Option<String> {
    t.as_memref()?;
    address_space_of(t)
}

/// The capacity in bytes of `space` from the module's device spec.
pub fn capacity(module: &Module, space: &str) -> Option<u64> {
    use tilemem_soc::DeviceSpecKey as K;
    let key = match space {
        "ub" => K::UbSize,
        "cbuf" => K::L1Size,
        "cc" => K::L0cSize,
        _ => return None,
    };
    npu_spec_int(module, key).map(|b| (b.max(0) as u64) / 8)
}

/// The alignment in bytes of `space` from the module's device spec.
fn align_bytes(module: &Module, space: &str) -> Option<u64> {
    use tilemem_soc::DeviceSpecKey as K;
    let key = match space {
        "ub" => K::UbAlignSize,
        "cbuf" => K::L1AlignSize,
        "cc" => K::L0cAlignSize,
        _ => return None,
    };
    npu_spec_int(module, key).map(|b| (b.max(0) as u64) / 8)
}

/// Where the buffers of a planned module went, read from its
/// `hivm.hir.pointer_cast`s.
pub fn planned_functions(module: &Module) -> Vec<FunctionPlan> {
    let names = crate::print::Names::new(module, module.top());
    let mut out = Vec::new();
    for f in module.funcs() {
        let mut spaces: Vec<SpacePlan> = Vec::new();
        for op in module.walk(f) {
            let d = module.op(op);
            if !d.is("hivm.hir.pointer_cast") {
                continue;
            }
            let Some(v) = d.result(0) else { continue };
            let ty = module.value_type(v);
            let Some(space) = space_of(ty) else { continue };
            let Some(cap) = capacity(module, &space) else {
                continue;
            };
            let bytes = ty
                .as_memref()
                .and_then(|mt| {
                    let n = mt
                        .shape
                        .iter()
                        .try_fold(1u64, |a, &d| a.checked_mul(u64::try_from(d).ok()?))?;
                    Some((n * u64::from(mt.elem.bit_width()?)).div_ceil(8))
                })
                .unwrap_or(0);
            let offsets = address_constants(module, op);
            let s = match spaces.iter_mut().find(|s| s.space == space) {
                Some(s) => s,
                None => {
                    spaces.push(SpacePlan {
                        space: space.clone(),
                        capacity: cap,
                        used: 0,
                        buffers: Vec::new(),
                    });
                    spaces.last_mut().expect("just pushed")
                }
            };
            // PlanMemory gives each buffer whole alignment units (its
            // storage entries, the `opt` summary and the lower bound count
            // them so): a 48-byte buffer takes 64 bytes of a UB aligned to
            // 32, and the space's usage must say 64, never less than the
            // bound.
            let unit = align_bytes(module, &space).unwrap_or(1).max(1);
            for &o in &offsets {
                s.used = s.used.max(o + bytes.div_ceil(unit) * unit);
            }
            s.buffers.push(BufferPlan {
                name: names.get(module, v),
                ty: ty.to_string(),
                bytes,
                offsets,
                loc: d.loc,
            });
        }
        if !spaces.is_empty() {
            out.push(FunctionPlan {
                name: module.func_name(f).unwrap_or("").to_string(),
                spaces,
            });
        }
    }
    out
}

/// The constant addresses of a `pointer_cast`.
fn address_constants(module: &Module, cast: OpId) -> Vec<u64> {
    let d = module.op(cast);
    let n = d.segment(0).len().min(d.operands().len());
    d.operands()[..n]
        .iter()
        .filter_map(|&a| {
            let op = module.defining_op(a)?;
            match module.op(op).attr("value")? {
                Attribute::Integer { value, .. } => u64::try_from(*value).ok(),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_report_offsets_per_space() {
        let text = r#"func.func @f(%g: memref<64xf32, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %b = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%g : memref<64xf32, #hivm.address_space<gm>>) outs(%a : memref<64xf32, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%a : memref<64xf32, #hivm.address_space<ub>>) outs(%b : memref<64xf32, #hivm.address_space<ub>>) transpose = [0]
  hivm.hir.store ins(%b : memref<64xf32, #hivm.address_space<ub>>) outs(%g : memref<64xf32, #hivm.address_space<gm>>)
  return
}"#;
        let out = plan_text(text, &PlanRequest::default()).unwrap();
        assert_eq!(out.chip, "Ascend910B1");
        let f = &out.functions[0];
        assert_eq!(f.name, "f");
        let ub = &f.spaces[0];
        assert_eq!(ub.space, "ub");
        assert_eq!(ub.capacity, 196_608);
        assert_eq!(ub.used, 512);
        assert_eq!(ub.buffers[0].offsets, vec![0]);
        assert_eq!(ub.buffers[1].offsets, vec![256]);
        assert!(out.text.contains("hivm.hir.pointer_cast(%c256_i64)"));
        let a5 = plan_text(
            text,
            &PlanRequest {
                target: Some("Ascend950PR_9589".into()),
                ..PlanRequest::default()
            },
        )
        .unwrap();
        assert_eq!(a5.functions[0].spaces[0].capacity, 2_031_616 / 8);
        let bad = plan_text("func.func @f(", &PlanRequest::default()).unwrap_err();
        assert!(bad.bad_input);
    }

    /// A space with more entries than the optimal planner lowers keeps the
    /// reference's placement, and the summary says so.
    #[test]
    fn optimal_leaves_a_space_of_more_than_max_entries_to_the_reference() {
        use crate::passes::plan_memory::optimal::{Planner, MAX_ENTRIES};
        let n = MAX_ENTRIES + 1;
        let ty = "memref<64xf32, #hivm.address_space<ub>>";
        let gm = "memref<64xf32, #hivm.address_space<gm>>";
        let mut text = format!("func.func @many(%g: {gm}) {{\n");
        for i in 0..n {
            text.push_str(&format!(
                "  %a{i} = memref.alloc() : {ty}\n  hivm.hir.load ins(%g : {gm}) outs(%a{i} : {ty})\n  \
                 hivm.hir.store ins(%a{i} : {ty}) outs(%g : {gm})\n"
            ));
        }
        text.push_str("  return\n}\n");
        let req = |planner| PlanRequest {
            target: None,
            options: crate::passes::plan_memory::Options {
                planner,
                ..Default::default()
            },
        };
        let optimal = plan_text(&text, &req(Planner::Optimal)).unwrap();
        assert_eq!(
            optimal.summary,
            vec![format!(
                "@many ub: optimal: not tried ({n} entries, more than {MAX_ENTRIES}); bishengir \
                 196608 bytes; bishengir placement used"
            )]
        );
        let reference = plan_text(&text, &req(Planner::Bishengir)).unwrap();
        assert_eq!(optimal.text, reference.text);
    }
}
