//! The `--map` file of `plan` and `explain`: the memory map of the planned
//! program or, when the program does not fit, of the same plan made
//! without capacity limits and drawn against the real capacities, so the
//! map shows where and by how much it overflows.

use std::path::Path;

use tilemem_pto::ir::Program;
use tilemem_pto::passes::{ErrorKind, PassError, SeedRules};
use tilemem_pto::PlanOptions;
use tilemem_soc::Soc;

use crate::output::Outputs;
use crate::plan::MapFormat;
use crate::planned::Planned;

/// `program` planned as `opts_of` says for the map (through the façade):
/// on `soc` when it fits; when it does not (a planning error), on `soc`
/// without capacity limits, with the error beside it. The report holds
/// `soc`'s real capacities either way. Other errors are returned.
pub fn plan_for_map(
    program: &Program,
    soc: &Soc,
    opts_of: &dyn Fn(&Soc) -> PlanOptions,
) -> Result<(Planned, Option<PassError>), PassError> {
    let run = |on: &Soc| {
        let mut p = program.clone();
        let opts = opts_of(on);
        tilemem_pto::plan(&mut p, &opts)
            .map(|_| (p, opts.planner, opts.addressed()))
            .map_err(|f| f.error)
    };
    let (result, error) = match run(soc) {
        Ok(r) => (r, None),
        Err(e) if e.kind == ErrorKind::Planning => (run(&soc.without_capacity_limits())?, Some(e)),
        Err(e) => return Err(e),
    };
    let (planned, planner, addressed) = result;
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

/// Stages the map of `results` (the first one's for an SVG) in `outputs`;
/// `rules` are the seed rules they were planned with.
#[allow(clippy::too_many_arguments)]
pub fn add<'a>(
    outputs: &mut Outputs<'a>,
    path: &Path,
    format: MapFormat,
    title: &str,
    results: &'a [Planned],
    input: &Program,
    soc: &Soc,
    rules: SeedRules,
    source: &str,
    note: Option<String>,
) {
    match format {
        MapFormat::Html => {
            let page = crate::html_map::render(&crate::map_model::plan_doc(
                title, results, input, soc, rules, source, note,
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
