//! PyPTO's MessagePack documents read and written again come back byte for
//! byte (every file of `../shared/data/pto/msgpack`, skipped visibly when
//! the folder is absent), and malformed or truncated documents are errors
//! that name the byte offset.

use std::io::Write as _;
mod common;

use std::path::{Path, PathBuf};

use common::documents;

use tilemem_pto::msgpack;

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/pto/msgpack/kernels"
);

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
            let at = out
                .iter()
                .zip(&bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(out.len().min(bytes.len()));
            differ.push(format!("{} (first difference at byte {at})", f.display()));
        }
    }
    eprintln!(
        "msgpack round trip: {} passed, {} failed",
        files.len() - differ.len(),
        differ.len()
    );
    assert!(differ.is_empty(), "{differ:#?}");
}

/// Each document prints as the `.py` dump of the same stem (PyPTO's
/// printer): the count is reported, and every document that prints at all
/// reads back with the text reader. The dumps of `deep_tail_rows`,
/// `ragged_rows` and `ragged_rows_nested` differ by PyPTO's own parser (see
/// the data's README) and are left out.
#[test]
fn documents_print_as_pyptos_text() {
    let files = documents(Path::new(DATA));
    if files.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): documents_print_as_pyptos_text: {DATA} not found"
        );
        return;
    }
    let (mut same, mut differ, mut unprintable) = (0, Vec::new(), Vec::new());
    for f in &files {
        let s = f.to_string_lossy();
        if ["/deep_tail_rows", "/ragged_rows"]
            .iter()
            .any(|k| s.contains(k))
        {
            continue;
        }
        let py = PathBuf::from(
            s.replace("/msgpack/kernels/", "/kernels/")
                .replace(".msgpack", ".py"),
        );
        let Ok(want) = std::fs::read_to_string(&py) else {
            continue;
        };
        let g = msgpack::read(&std::fs::read(f).unwrap()).unwrap();
        match msgpack::to_text(&g) {
            Ok(text) => {
                tilemem_pto::parse(&text)
                    .unwrap_or_else(|e| panic!("{}: printed text does not read: {e}", f.display()));
                if text.trim_end() == want.trim_end() {
                    same += 1;
                } else {
                    let line = text
                        .lines()
                        .zip(want.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    differ.push(format!("{}:{}", py.display(), line + 1));
                }
            }
            Err(e) => unprintable.push(format!("{}: {e}", f.display())),
        }
    }
    eprintln!(
        "msgpack documents printed as PyPTO's text: {same} same, {} differ, {} not printed",
        differ.len(),
        unprintable.len()
    );
    for d in differ.iter().chain(&unprintable).take(40) {
        eprintln!("  {d}");
    }
}
