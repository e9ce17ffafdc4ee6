//! `cargo xtask ods [ODS_DIR]`: regenerates the op-format and op-traits
//! tables.
//! `cargo xtask pto-registry [CSV]`: regenerates the PyPTO op table.
//! `cargo xtask device-spec [TD]`: regenerates the chip specification table.

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
            let tables = [
                (xtask::generate(&dir), xtask::table_path()),
                (xtask::generate_traits(&dir), xtask::traits_path()),
            ];
            for (text, out) in tables {
                let text = match text {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("error: cannot read ODS files under {}: {e}", dir.display());
                        return ExitCode::from(2);
                    }
                };
                if let Err(e) = std::fs::write(&out, text) {
                    eprintln!("error: cannot write {}: {e}", out.display());
                    return ExitCode::from(1);
                }
                println!("wrote {}", out.display());
            }
            ExitCode::SUCCESS
        }
        Some("pto-registry") => {
            let csv = args
                .get(1)
                .map(PathBuf::from)
                .unwrap_or_else(xtask::pto_registry::default_csv);
            let text = match std::fs::read_to_string(&csv) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", csv.display());
                    return ExitCode::from(2);
                }
            };
            let table = match xtask::pto_registry::generate(&text) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {}: {e}", csv.display());
                    return ExitCode::from(2);
                }
            };
            let out = xtask::pto_registry::table_path();
            if let Err(e) = std::fs::write(&out, table) {
                eprintln!("error: cannot write {}: {e}", out.display());
                return ExitCode::from(1);
            }
            let fmt = std::process::Command::new("rustfmt")
                .args(["--edition", "2021"])
                .arg(&out)
                .status();
            if !fmt.is_ok_and(|s| s.success()) {
                eprintln!("warning: rustfmt failed on {}", out.display());
            }
            println!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Some("device-spec") => {
            let td = args
                .get(1)
                .map(PathBuf::from)
                .unwrap_or_else(xtask::device_spec::default_td);
            let table = match xtask::device_spec::generate(&td) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let out = xtask::device_spec::table_path();
            if let Err(e) = std::fs::write(&out, table) {
                eprintln!("error: cannot write {}: {e}", out.display());
                return ExitCode::from(1);
            }
            println!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: cargo xtask ods [ODS_DIR] | cargo xtask pto-registry [CSV] | cargo xtask device-spec [TD]"
            );
            ExitCode::from(2)
        }
    }
}
