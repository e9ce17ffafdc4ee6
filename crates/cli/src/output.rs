//! All-or-nothing output files, shared by every subcommand.
//!
//! A command stages every file it means to write (the program, the report,
//! the maps, exported problems) in an [`Outputs`] set and calls
//! [`Outputs::commit`] once everything has been computed. A file is staged
//! either as bytes or as a writer function ([`Outputs::add_stream`]) that
//! produces its text during the commit, straight into the file: a printed
//! program is never held whole in memory. The commit writes each file to a
//! temporary sibling in its destination folder; only when every temporary
//! file is complete does it rename them into place. A failure at any point
//! (read-only folder, full disk, missing folder, a writer function's error)
//! removes the temporary files and leaves every destination as it was, so a
//! failed command never leaves some of its outputs behind.
//!
//! An interrupt (`SIGINT`) before the commit ends the process with nothing
//! written. One that arrives while the temporary files are being written
//! stops the writing at the next write: the temporary files are removed and
//! the process ends with nothing written. One that arrives during the
//! renames is held until they are done, so the files are either all old or
//! all new, never torn. A
//! command with a long search (`solve`) asks instead for the first
//! interrupt to stop the search ([`interrupt::stop_flag`]): the best result
//! so far is then validated and committed, and the command exits with
//! [`interrupt::EXIT`].

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A set of files to write together.
#[derive(Default)]
pub struct Outputs<'a> {
    files: Vec<(PathBuf, Content<'a>)>,
    dirs: Vec<PathBuf>,
}

/// Writes a file's whole contents into the writer it is given.
pub type Producer<'a> = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + 'a>;

/// What a staged file holds.
enum Content<'a> {
    /// Bytes computed before the commit.
    Bytes(Vec<u8>),
    /// Text produced during the commit.
    Stream(Producer<'a>),
}

/// Why a commit failed: the destination that could not be written and the
/// error. Nothing was written.
#[derive(Debug)]
pub struct CommitError {
    /// The destination path.
    pub path: PathBuf,
    /// The I/O error.
    pub error: io::Error,
}

impl std::fmt::Display for CommitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write {}: {}; nothing was written",
            self.path.display(),
            self.error
        )
    }
}

/// Checks that no two of a command's output flags name the same file
/// (`plan -o r.json --report r.json` would keep one and lose the other):
/// `Err` names both flags and the file. Paths are compared after resolving
/// their folders, so `out/r.json` and `./out/r.json` are the same file.
pub fn distinct(outputs: &[(&str, Option<&Path>)]) -> Result<(), String> {
    let resolved: Vec<(&str, &Path, PathBuf)> = outputs
        .iter()
        .filter_map(|&(flag, p)| p.map(|p| (flag, p, resolve(p))))
        .collect();
    for (i, (a, path, ra)) in resolved.iter().enumerate() {
        if let Some((b, _, _)) = resolved[..i].iter().find(|(_, _, rb)| rb == ra) {
            return Err(format!(
                "{b} and {a} both name {}: give each output its own file",
                path.display()
            ));
        }
    }
    Ok(())
}

/// `p` with its folder resolved (symbolic links, `.` and `..`) when the
/// folder exists.
fn resolve(p: &Path) -> PathBuf {
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(parent), p.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => p.to_path_buf(),
    }
}

/// Opens a temporary file for writing; replaced in tests to inject faults.
pub type Opener<'a> = &'a dyn Fn(&Path) -> io::Result<Box<dyn Write>>;

fn open_file(path: &Path) -> io::Result<Box<dyn Write>> {
    Ok(Box::new(std::fs::File::create(path)?))
}

impl<'a> Outputs<'a> {
    /// An empty set.
    pub fn new() -> Outputs<'a> {
        Outputs::default()
    }

    /// Stages `bytes` to be written at `path`. A later file with the same
    /// path replaces the earlier one.
    pub fn add(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.stage(path.into(), Content::Bytes(bytes.into()));
    }

    /// Stages a file whose contents `produce` writes during the commit,
    /// straight into the temporary file (nothing is held in memory). An
    /// error it returns fails the commit like a write error: nothing is
    /// written. A later file with the same path replaces the earlier one.
    pub fn add_stream(
        &mut self,
        path: impl Into<PathBuf>,
        produce: impl FnOnce(&mut dyn Write) -> io::Result<()> + 'a,
    ) {
        self.stage(path.into(), Content::Stream(Box::new(produce)));
    }

    fn stage(&mut self, path: PathBuf, content: Content<'a>) {
        self.files.retain(|(p, _)| *p != path);
        self.files.push((path, content));
    }

    /// Creates the folder `dest` (and its missing parents) at the commit,
    /// for files staged under it; removed again when the commit fails.
    pub fn add_dir(&mut self, dest: &Path) {
        self.dirs.push(dest.to_path_buf());
    }

    /// Stages every regular file of `staging` to be written under the
    /// output folder `dest` with the same name (used for folders a library
    /// fills, such as exported problems). `dest` is created by the commit.
    pub fn add_dir_contents(&mut self, staging: &Path, dest: &Path) -> io::Result<()> {
        self.add_dir(dest);
        let mut entries: Vec<_> = std::fs::read_dir(staging)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            if e.file_type()?.is_file() {
                self.add(dest.join(e.file_name()), std::fs::read(e.path())?);
            }
        }
        Ok(())
    }

    /// Writes every staged file, or none.
    pub fn commit(self) -> Result<(), CommitError> {
        self.commit_with(&open_file)
    }

    /// [`Outputs::commit`] with a custom way of opening the temporary files.
    pub fn commit_with(self, open: Opener<'_>) -> Result<(), CommitError> {
        let _guard = interrupt::hold();
        // Output folders first; the ones this commit creates are removed
        // again when it fails.
        let mut created: Vec<PathBuf> = Vec::new();
        let remove_created = |created: &[PathBuf]| {
            for d in created.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
        };
        for d in &self.dirs {
            let mut missing: Vec<PathBuf> = d
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty() && !a.exists())
                .map(Path::to_path_buf)
                .collect();
            missing.reverse();
            if let Err(error) = std::fs::create_dir_all(d) {
                remove_created(&created);
                return Err(CommitError {
                    path: d.clone(),
                    error,
                });
            }
            created.extend(missing);
        }
        let mut temps: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(self.files.len());
        let cleanup = |temps: &[(PathBuf, PathBuf)]| {
            for (t, _) in temps {
                let _ = std::fs::remove_file(t);
            }
        };
        // A destination that is not a regular file (`/dev/null`,
        // `/dev/stdout`, a named pipe) is a stream, not a file to replace:
        // renaming a temporary file over it would replace the device node
        // itself. Such destinations are written in place, after every
        // regular file's temporary copy is complete, so that a failure
        // before them still writes nothing anywhere.
        let (regular, special): (Vec<_>, Vec<_>) = self
            .files
            .into_iter()
            .partition(|(path, _)| !is_stream_destination(path));
        for (path, content) in regular {
            let tmp = temp_path(&path);
            let written = write_content(open, &tmp, content);
            // Record the temporary file before checking, so a partial one is
            // removed too.
            temps.push((tmp, path));
            if let Err(error) = written {
                cleanup(&temps);
                remove_created(&created);
                let path = temps.pop().map(|(_, p)| p).unwrap_or_default();
                return Err(CommitError { path, error });
            }
        }
        for (path, content) in special {
            if let Err(error) = write_content(open, &path, content) {
                cleanup(&temps);
                remove_created(&created);
                return Err(CommitError { path, error });
            }
        }
        // Every file is complete: move them into place. A rename within one
        // folder does not fail for lack of space; should one fail anyway,
        // the files already moved are removed when they did not exist.
        let mut moved: Vec<(&Path, bool)> = Vec::new();
        for (i, (tmp, path)) in temps.iter().enumerate() {
            let path = path.as_path();
            let existed = path.exists();
            if let Err(error) = std::fs::rename(tmp, path) {
                cleanup(&temps[i..]);
                for (p, existed) in moved {
                    if !existed {
                        let _ = std::fs::remove_file(p);
                    }
                }
                remove_created(&created);
                return Err(CommitError {
                    path: path.to_path_buf(),
                    error,
                });
            }
            moved.push((path, existed));
        }
        Ok(())
    }
}

/// Writes one staged file's contents through `open(path)`.
fn write_content(open: Opener<'_>, path: &Path, content: Content<'_>) -> io::Result<()> {
    // An interrupt while the files are written ends the writing (and, once
    // the temporary files are gone, the process).
    let mut w = interrupt::Stoppable(open(path)?);
    match content {
        Content::Bytes(bytes) => w.write_all(&bytes)?,
        Content::Stream(produce) => produce(&mut w)?,
    }
    w.flush()
}

/// True when `path` exists and is not a regular file once links are
/// followed: a character device, a pipe or a socket.
fn is_stream_destination(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// A hidden sibling of `path` unique to this process.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tilemem-{}.tmp", std::process::id()))
}

/// Writes `bytes` to standard output; a closed pipe or a full device is an
/// error, not a panic.
pub fn stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Streams what `produce` writes to standard output (a printed program,
/// never held whole); errors as [`stdout`].
pub fn stdout_stream(produce: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    produce(&mut out)?;
    out.flush()
}

/// Prints a command's collected standard output and ends with `code`; when
/// standard output cannot be written (a full device), says so on stderr
/// and ends with 2 instead.
pub fn finish(text: &str, code: std::process::ExitCode) -> std::process::ExitCode {
    match stdout(text.as_bytes()) {
        Ok(()) => code,
        Err(e) => {
            eprintln!("error: cannot write standard output: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// `SIGINT` handling around commits.
pub mod interrupt {
    #[cfg(unix)]
    use std::sync::atomic::{AtomicBool, Ordering};

    #[cfg(unix)]
    static COMMITTING: AtomicBool = AtomicBool::new(false);
    #[cfg(unix)]
    static PENDING: AtomicBool = AtomicBool::new(false);
    /// Set by the first interrupt once [`stop_flag`] was called.
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    #[cfg(unix)]
    static SOFT: AtomicBool = AtomicBool::new(false);

    /// Exit status of an interrupted command (128 + SIGINT).
    pub const EXIT: i32 = 130;

    #[cfg(unix)]
    extern "C" fn on_sigint(_: libc::c_int) {
        if COMMITTING.load(Ordering::SeqCst) {
            PENDING.store(true, Ordering::SeqCst);
        } else if SOFT.load(Ordering::SeqCst) && !STOP.swap(true, Ordering::SeqCst) {
            // The first interrupt asks the search to stop; a second one
            // ends the process at once.
        } else {
            // SAFETY: _exit is async-signal-safe; nothing has been written.
            unsafe { libc::_exit(EXIT) };
        }
    }

    /// Installs the handler: an interrupt outside a commit exits at once
    /// (nothing written), one during a commit exits after it.
    pub fn install() {
        #[cfg(unix)]
        // SAFETY: installs a handler that only touches atomics and calls
        // _exit, both async-signal-safe.
        unsafe {
            libc::signal(
                libc::SIGINT,
                on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }

    /// Makes the first interrupt (outside a commit) set the returned flag
    /// instead of ending the process, for a search that checks it (a
    /// budget's stop flag). A second interrupt still ends the process at
    /// once with nothing written.
    pub fn stop_flag() -> &'static std::sync::atomic::AtomicBool {
        #[cfg(unix)]
        SOFT.store(true, Ordering::SeqCst);
        &STOP
    }

    /// True once an interrupt asked the search to stop.
    pub fn stopped() -> bool {
        STOP.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Whether an interrupt arrived during the current commit.
    fn pending() -> bool {
        #[cfg(unix)]
        return PENDING.load(Ordering::SeqCst);
        #[cfg(not(unix))]
        false
    }

    /// A commit's temporary file: once an interrupt is pending, every
    /// further write fails, so a long write (a streamed program) ends at
    /// once, the commit removes its temporary files and the held interrupt
    /// then ends the process with nothing written.
    pub(super) struct Stoppable(pub(super) Box<dyn std::io::Write>);

    impl std::io::Write for Stoppable {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if pending() {
                return Err(std::io::Error::other("interrupted"));
            }
            self.0.write(buf)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            self.0.flush()
        }
    }

    /// Holds interrupts while alive.
    pub struct Hold(());

    /// Starts holding interrupts until the returned guard is dropped.
    pub fn hold() -> Hold {
        #[cfg(unix)]
        COMMITTING.store(true, Ordering::SeqCst);
        Hold(())
    }

    impl Drop for Hold {
        fn drop(&mut self) {
            #[cfg(unix)]
            {
                COMMITTING.store(false, Ordering::SeqCst);
                if PENDING.load(Ordering::SeqCst) {
                    std::process::exit(EXIT);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// A fresh scratch directory, removed with its files when dropped;
    /// it stands for its path.
    struct Scratch(tempfile::TempDir);

    impl std::ops::Deref for Scratch {
        type Target = Path;

        fn deref(&self) -> &Path {
            self.0.path()
        }
    }

    fn scratch(name: &str) -> Scratch {
        Scratch(
            tempfile::Builder::new()
                .prefix(&format!("tilemem-out-{name}-"))
                .tempdir()
                .unwrap(),
        )
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_or_device_destination_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        // A pipe stands for `/dev/null` and `/dev/stdout`, which the test
        // must not risk replacing.
        let d = scratch("fifo");
        let fifo = d.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut o = Outputs::new();
        o.add(d.join("plain.txt"), "file\n");
        o.add_stream(&fifo, |w| w.write_all(b"streamed\n"));
        o.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"streamed\n");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(
            std::fs::read_to_string(d.join("plain.txt")).unwrap(),
            "file\n"
        );
        assert_eq!(names(&d), ["pipe", "plain.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_regular_file_writes_nothing_to_a_pipe_either() {
        let d = scratch("fifo-fail");
        let fifo = d.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let mut o = Outputs::new();
        o.add_stream(&fifo, |w| w.write_all(b"never\n"));
        o.add_stream(d.join("out.txt"), |_| Err(io::Error::other("no")));
        // Opening the pipe would block without a reader: reaching it at
        // all would hang this test, so the failure must come first.
        assert!(o.commit().is_err());
        assert_eq!(names(&d), ["pipe"]);
    }

    /// A file that accepts `left` more bytes, then fails as a full disk
    /// does.
    struct Full {
        file: std::fs::File,
        left: Rc<Cell<usize>>,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left.get() == 0 {
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            let n = buf.len().min(self.left.get());
            self.left.set(self.left.get() - n);
            self.file.write(&buf[..n])
        }
        fn flush(&mut self) -> io::Result<()> {
            self.file.flush()
        }
    }

    #[test]
    fn writes_all_files() {
        let d = scratch("all");
        let mut o = Outputs::new();
        o.add(d.join("a.txt"), "A");
        o.add(d.join("b.txt"), "B");
        o.commit().unwrap();
        assert_eq!(names(&d), ["a.txt", "b.txt"]);
        assert_eq!(std::fs::read_to_string(d.join("b.txt")).unwrap(), "B");
    }

    #[test]
    fn a_missing_folder_for_the_last_file_writes_nothing() {
        let d = scratch("missing");
        std::fs::write(d.join("a.txt"), "old").unwrap();
        let mut o = Outputs::new();
        o.add(d.join("a.txt"), "new");
        o.add(d.join("nodir/b.txt"), "B");
        let e = o.commit().unwrap_err();
        assert_eq!(e.path, d.join("nodir/b.txt"));
        assert_eq!(names(&d), ["a.txt"]);
        assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), "old");
    }

    /// A full disk at every possible byte: nothing is written and no
    /// temporary file remains, whichever file the disk fills up on.
    #[test]
    fn a_full_disk_after_n_bytes_writes_nothing() {
        let d = scratch("full");
        let total = "first file".len() + "second".len();
        for budget in 0..total {
            // The budget is shared by all files, like a disk.
            let left = Rc::new(Cell::new(budget));
            let open = |p: &Path| -> io::Result<Box<dyn Write>> {
                let file = std::fs::File::create(p)?;
                Ok(Box::new(Full {
                    file,
                    left: left.clone(),
                }))
            };
            let mut o = Outputs::new();
            o.add(d.join("a.txt"), "first file");
            o.add(d.join("b.txt"), "second");
            let e = o.commit_with(&open).unwrap_err();
            assert_eq!(e.error.raw_os_error(), Some(28), "budget {budget}");
            assert!(names(&d).is_empty(), "budget {budget}: {:?}", names(&d));
        }
        // With room for everything, both land.
        let mut o = Outputs::new();
        o.add(d.join("a.txt"), "first file");
        o.add(d.join("b.txt"), "second");
        let left = Rc::new(Cell::new(total));
        let open = |p: &Path| -> io::Result<Box<dyn Write>> {
            Ok(Box::new(Full {
                file: std::fs::File::create(p)?,
                left: left.clone(),
            }))
        };
        o.commit_with(&open).unwrap();
        assert_eq!(names(&d), ["a.txt", "b.txt"]);
    }

    /// A streamed file written in several pieces: a full disk at every
    /// byte, whether it fills up in the streamed file or in the file after
    /// it, leaves nothing behind; with room, the stream lands whole.
    #[test]
    fn a_full_disk_in_a_streamed_file_writes_nothing() {
        let d = scratch("stream");
        let pieces = ["alpha\n", "beta\n", "gamma"];
        let stream = |w: &mut dyn Write| -> io::Result<()> {
            for p in pieces {
                w.write_all(p.as_bytes())?;
            }
            Ok(())
        };
        let total = pieces.concat().len() + "tail".len();
        for budget in 0..total {
            let left = Rc::new(Cell::new(budget));
            let open = |p: &Path| -> io::Result<Box<dyn Write>> {
                Ok(Box::new(Full {
                    file: std::fs::File::create(p)?,
                    left: left.clone(),
                }))
            };
            let mut o = Outputs::new();
            o.add_stream(d.join("prog.py"), stream);
            o.add(d.join("report.json"), "tail");
            let e = o.commit_with(&open).unwrap_err();
            assert_eq!(e.error.raw_os_error(), Some(28), "budget {budget}");
            assert!(names(&d).is_empty(), "budget {budget}: {:?}", names(&d));
        }
        let mut o = Outputs::new();
        o.add_stream(d.join("prog.py"), stream);
        o.add(d.join("report.json"), "tail");
        o.commit().unwrap();
        assert_eq!(names(&d), ["prog.py", "report.json"]);
        assert_eq!(
            std::fs::read_to_string(d.join("prog.py")).unwrap(),
            "alpha\nbeta\ngamma"
        );
    }

    /// A stream that fails on its own (not through the writer) after
    /// writing part of its file: nothing is written, an existing file keeps
    /// its old contents.
    #[test]
    fn a_failing_stream_writes_nothing() {
        let d = scratch("stream-err");
        std::fs::write(d.join("prog.py"), "old").unwrap();
        let mut o = Outputs::new();
        o.add(d.join("a.txt"), "A");
        o.add_stream(d.join("prog.py"), |w: &mut dyn Write| {
            w.write_all(b"half of it")?;
            Err(io::Error::other("printer gave up"))
        });
        let e = o.commit().unwrap_err();
        assert_eq!(e.path, d.join("prog.py"));
        assert_eq!(e.error.to_string(), "printer gave up");
        assert_eq!(names(&d), ["prog.py"]);
        assert_eq!(std::fs::read_to_string(d.join("prog.py")).unwrap(), "old");
    }

    #[test]
    fn a_failed_commit_removes_the_output_folder_it_created() {
        let d = scratch("dirs");
        let staging = d.join("staging");
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::write(staging.join("f.Vec.csv"), "id").unwrap();
        let mut o = Outputs::new();
        o.add_dir_contents(&staging, &d.join("out/problems"))
            .unwrap();
        o.add(d.join("nodir/x.py"), "x");
        o.commit().unwrap_err();
        assert_eq!(names(&d), ["staging"]);
    }

    #[test]
    fn a_later_file_replaces_an_earlier_one() {
        let d = scratch("dup");
        let mut o = Outputs::new();
        o.add(d.join("a.txt"), "1");
        o.add(d.join("a.txt"), "2");
        assert_eq!(o.files.len(), 1);
        o.commit().unwrap();
        assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), "2");
    }
}
