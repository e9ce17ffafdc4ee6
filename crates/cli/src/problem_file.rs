//! Reading the problem file named on the command line of `tilemem solve`
//! and `tilemem validate`.

use std::path::Path;
use std::process::ExitCode;

use tilemem_plan::csv::{self, CsvProblem};

use crate::input_kind::{self, InputKind};

/// Reads the problem file at `path`; `capacity` (the `--capacity` flag),
/// when given, overrides the file's `# capacity=` line. An unreadable or
/// malformed file is reported on stderr as `file:line:col: error: ...`
/// and gives exit code 2.
pub fn read(path: &Path, capacity: Option<u64>) -> Result<CsvProblem, ExitCode> {
    let mut file = match csv::read(path) {
        Ok(f) => f,
        Err(e) => {
            let file = path.display().to_string();
            let bytes = std::fs::read(path).unwrap_or_default();
            match input_kind::mismatch(&file, &bytes, InputKind::ProblemCsv) {
                Some(msg) => eprintln!("{msg}"),
                None => eprintln!("{}: error: {}", e.location(), e.message),
            }
            return Err(ExitCode::from(2));
        }
    };
    if capacity.is_some() {
        file.problem.capacity = capacity;
    }
    Ok(file)
}
