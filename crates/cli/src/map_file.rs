//! The `--map` file of `plan` and `explain`: the memory map of the planned
//! program or, when the program does not fit, of the same plan made
//! without capacity limits and drawn against the real capacities, so the
//! map shows where and by how much it overflows.

use std::path::Path;

use tilemem_pto::ir::Program;
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassError, PassId, PlannerMode};
use tilemem_soc::Soc;

use crate::output::Outputs;
use crate::plan::MapFormat;
use crate::planned::Planned;

/// `program` planned by `planner` through `passes` for the map: on
/// `soc` when it fits; when it does not (a planning error), on `soc`
/// without capacity limits, with the error beside it. The report holds
/// `soc`'s real capacities either way. Other errors are returned.
pub fn plan_for_map(
    program: &Program,
    soc: &Soc,
    ctx_of: &dyn Fn(&Soc) -> PassContext,
    passes: &[PassId],
) -> Result<(Planned, Option<PassError>), PassError> {
    let run = |on: &Soc| {
        let mut p = program.clone();
        let mut ctx = ctx_of(on);
        run_pipeline(&mut p, &mut ctx, passes).map(|()| (p, ctx.planner))
    };
    let (result, error) = match run(soc) {
        Ok(r) => (r, None),
        Err(e) if e.kind == ErrorKind::Planning => (run(&soc.without_capacity_limits())?, Some(e)),
        Err(e) => return Err(e),
    };
    let (planned, planner) = result;
    let addressed = passes.contains(&PassId::AllocateMemoryAddr) && planner != PlannerMode::Ptoas;
    let report = tilemem_pto::report::build(&planned, soc, addressed);
    Ok((
        Planned {
            planner,
            program: planned,
            report: Some(report),
        },
        error,
    ))
}

/// The note of a map whose plan does not fit.
pub fn overflow_note(error: &PassError) -> String {
    format!(
        "does not fit; drawn as planned without capacity limits against the real capacities: {}",
        error.message
    )
}

/// Stages the map of `results` (the first one's for an SVG) in `outputs`.
#[allow(clippy::too_many_arguments)]
pub fn add<'a>(
    outputs: &mut Outputs<'a>,
    path: &Path,
    format: MapFormat,
    title: &str,
    results: &'a [Planned],
    input: &Program,
    soc: &Soc,
    source: &str,
    note: Option<String>,
) {
    match format {
        MapFormat::Html => {
            let page = crate::html_map::render(&crate::map_model::plan_doc(
                title, results, input, soc, source, note,
            ));
            outputs.add(path, page);
        }
        MapFormat::Svg => {
            let Some(first) = results.first() else {
                return;
            };
            let Some(report) = &first.report else {
                return;
            };
            // Streamed into the file during the commit, lane by lane.
            outputs.add_stream(path, move |w: &mut dyn std::io::Write| {
                crate::map_model::write_plan_svg(report, &first.program, w)
            });
        }
    }
}
