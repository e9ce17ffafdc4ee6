//! `cargo xtask ods [ODS_DIR]`: regenerates the op-format table.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ods") => {
            let dir = args
                .get(1)
                .map(PathBuf::from)
                .unwrap_or_else(xtask::default_ods_dir);
            match xtask::generate(&dir) {
                Ok(text) => {
                    let out = xtask::table_path();
                    if let Err(e) = std::fs::write(&out, text) {
                        eprintln!("error: cannot write {}: {e}", out.display());
                        return ExitCode::from(1);
                    }
                    println!("wrote {}", out.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: cannot read ODS files under {}: {e}", dir.display());
                    ExitCode::from(2)
                }
            }
        }
        _ => {
            eprintln!("usage: cargo xtask ods [ODS_DIR]");
            ExitCode::from(2)
        }
    }
}
