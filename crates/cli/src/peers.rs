//! The peers `tilemem bench` measures beside tilemem, each run as its own
//! process on a CSV copy of the problem and killed at the time limit:
//! MiniMalloc when `MINIMALLOC` names its binary (it decides whether the
//! problem fits its capacity; the solution file it writes is checked),
//! idealloc when `IDEALLOC` names its binary (run with each of
//! [`IDEALLOC_LIVES`] tries; the height is the `Makespan` it prints).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tilemem_plan::bench::{PeerRun, Row, IDEALLOC_LIVES};
use tilemem_plan::{csv, Problem};

/// The peer binaries named by the environment, the time limit and a
/// scratch folder for their files (removed when dropped).
pub struct Peers {
    minimalloc: Option<PathBuf>,
    idealloc: Option<PathBuf>,
    limit: Duration,
    dir: PathBuf,
}

impl Peers {
    /// The peers `MINIMALLOC` and `IDEALLOC` name, each run killed after
    /// `limit`.
    pub fn from_env(limit: Duration) -> Peers {
        let bin = |var: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Peers {
            minimalloc: bin("MINIMALLOC"),
            idealloc: bin("IDEALLOC"),
            limit,
            dir: std::env::temp_dir().join(format!("tilemem-bench-{}", std::process::id())),
        }
    }

    /// Runs every peer named on `p` and records it in `row`.
    pub fn measure(&self, row: &mut Row, p: &Problem) {
        if self.minimalloc.is_none() && self.idealloc.is_none() {
            return;
        }
        // One copy of the problem for every run (none when the peers
        // cannot read it).
        let input = readable(p).then(|| self.write_input(p));
        let run = |f: &dyn Fn(&Path) -> PeerRun| match &input {
            Some(Ok(path)) => f(path),
            Some(Err(e)) => PeerRun::Failed(e.clone()),
            None => PeerRun::NotApplicable,
        };
        if let Some(bin) = &self.minimalloc {
            row.minimalloc = Some(match p.capacity {
                Some(cap) => run(&|input| self.minimalloc(bin, input, p, cap)),
                None => PeerRun::NotApplicable,
            });
        }
        if let Some(bin) = &self.idealloc {
            row.idealloc =
                Some(IDEALLOC_LIVES.map(|lives| run(&|input| self.idealloc(bin, input, lives))));
        }
    }

    /// Writes `p` as the peers read it, numbered ids (idealloc reads
    /// only numbers): `id,lower,upper,size`.
    fn write_input(&self, p: &Problem) -> Result<PathBuf, String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| e.to_string())?;
        let input = self.dir.join("problem.csv");
        let mut text = String::from("id,lower,upper,size\n");
        for (i, b) in p.buffers.iter().enumerate() {
            text.push_str(&format!("{i},{},{},{}\n", b.lower, b.upper, b.size));
        }
        std::fs::write(&input, text).map_err(|e| e.to_string())?;
        Ok(input)
    }

    /// MiniMalloc on the problem file `input` (a copy of `p`) at
    /// `capacity`: its time when it writes a solution that our validator
    /// accepts for `p` (a peer's wrong placement is a failure, not a win).
    fn minimalloc(&self, bin: &Path, input: &Path, p: &Problem, capacity: u64) -> PeerRun {
        let output = self.dir.join("solution.csv");
        let _ = std::fs::remove_file(&output);
        let mut cmd = Command::new(bin);
        cmd.arg(format!("--capacity={capacity}"))
            .arg(format!("--input={}", input.display()))
            .arg(format!("--output={}", output.display()));
        let (status, seconds) = match self.run(cmd, None) {
            Ok(r) => r,
            Err(run) => return run,
        };
        let placed = status.success()
            && std::fs::read_to_string(&output)
                .ok()
                .and_then(|t| csv::parse(&t, "minimalloc output").ok())
                .and_then(|s| s.solution().ok())
                .is_some_and(|s| tilemem_plan::validate(p, &s).is_ok());
        if placed {
            PeerRun::Done {
                seconds,
                height: None,
            }
        } else {
            PeerRun::Failed("failed".into())
        }
    }

    /// idealloc on the problem file `input` with `lives` tries: the
    /// `Makespan` it prints and its time.
    fn idealloc(&self, bin: &Path, input: &Path, lives: u32) -> PeerRun {
        let log = self.dir.join("idealloc.out");
        let mut cmd = Command::new(bin);
        cmd.arg("-i")
            .arg(input)
            .arg("ex-csv")
            .arg("-l")
            .arg(lives.to_string());
        let (status, seconds) = match self.run(cmd, Some(&log)) {
            Ok(r) => r,
            Err(run) => return run,
        };
        let height = std::fs::read_to_string(&log)
            .ok()
            .and_then(|t| makespan(&t));
        match height {
            Some(h) if status.success() => PeerRun::Done {
                seconds,
                height: Some(h),
            },
            _ => PeerRun::Failed("failed".into()),
        }
    }

    /// Runs `cmd` (standard output into `log`, else dropped) until it ends
    /// or the limit passes: its exit status and wall time, or why not.
    fn run(&self, mut cmd: Command, log: Option<&Path>) -> Result<(ExitStatus, f64), PeerRun> {
        let stdout = match log {
            Some(path) => {
                Stdio::from(File::create(path).map_err(|e| PeerRun::Failed(e.to_string()))?)
            }
            None => Stdio::null(),
        };
        let start = Instant::now();
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| PeerRun::Failed(format!("cannot run: {e}")))?;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ok((status, start.elapsed().as_secs_f64())),
                Ok(None) => {}
                Err(e) => return Err(PeerRun::Failed(e.to_string())),
            }
            if start.elapsed() > self.limit {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PeerRun::Timeout(self.limit.as_secs_f64()));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Peers {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The peers read plain problems only: no alignment, conflicts, pinned
/// offsets or other constraints.
fn readable(p: &Problem) -> bool {
    p.is_plain() && p.buffers.iter().all(|b| b.align <= 1)
}

/// The height idealloc prints: `Makespan:<spaces>N bytes`.
fn makespan(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Makespan:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::makespan;

    #[test]
    fn reads_the_makespan_line() {
        let out = "Best-fit done.\n\nTotal allocation time: 996 μs\nMakespan:\t1352704 bytes\nLOAD:\t\t1048576 bytes\n";
        assert_eq!(makespan(out), Some(1352704));
        assert_eq!(makespan("LOAD:\t\t1048576 bytes\n"), None);
        assert_eq!(makespan("Makespan:\tmany bytes\n"), None);
    }
}
