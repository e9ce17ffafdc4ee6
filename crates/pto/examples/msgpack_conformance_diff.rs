//! Why planned documents differ from PyPTO's: for each check of
//! `tests/msgpack_conformance.rs` (single passes and pipelines) that does not give
//! PyPTO's bytes, whether the written document prints as PyPTO's text (a
//! write-back difference: object sharing, spans, constant types) or not (a
//! planning difference, with the first differing line), and a count of
//! each kind. `TILEMEM_DIFF_DIR=D` also writes both documents of every
//! write-back difference to `D`.
//!
//! `cargo run --release -p tilemem-pto --example msgpack_conformance_diff [KERNELS_DIR]`
//! (default `../shared/data/pto/msgpack/kernels`).

use tilemem_pto::msgpack;
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode, SeedRules};
use tilemem_soc::Soc;
use PassId::{
    AllocateMemoryAddr as Alloc, InitMemref as Init, MaterializeSemanticAliases as Msa,
    MemoryReuse as Reuse,
};
fn main() {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/data/pto/msgpack/kernels".into());
    let root = std::path::Path::new(&root);
    let dump = std::env::var_os("TILEMEM_DIFF_DIR").map(std::path::PathBuf::from);
    let mut ks: Vec<_> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    ks.sort();
    let mut counts = std::collections::BTreeMap::<String, u32>::new();
    for k in &ks {
        for (planner, mode) in [
            ("pypto", PlannerMode::Pypto),
            ("dsa_rp", PlannerMode::DsaRp),
        ] {
            let d = k.join(planner);
            let meta = std::fs::read_to_string(d.join("meta.json")).unwrap_or_default();
            let target = meta
                .find("\"target\": \"")
                .and_then(|a| meta[a + 11..].split('"').next())
                .unwrap_or("none")
                .to_string();
            let runs: Vec<(&str, &str, Vec<PassId>, &str)> = if planner == "pypto" {
                vec![
                    (
                        "init",
                        "31_after_MaterializeTensorStrides",
                        vec![Init],
                        "32_after_InitMemRef",
                    ),
                    (
                        "msa",
                        "31_after_MaterializeTensorStrides",
                        vec![Init, Msa],
                        "33_after_MaterializeSemanticAliases",
                    ),
                    (
                        "reuse",
                        "33_after_MaterializeSemanticAliases",
                        vec![Reuse],
                        "34_after_MemoryReuse",
                    ),
                    (
                        "alloc",
                        "34_after_MemoryReuse",
                        vec![Alloc],
                        "35_after_AllocateMemoryAddr",
                    ),
                    (
                        "reuse_alloc",
                        "33_after_MaterializeSemanticAliases",
                        vec![Reuse, Alloc],
                        "35_after_AllocateMemoryAddr",
                    ),
                    (
                        "full",
                        "31_after_MaterializeTensorStrides",
                        vec![Init, Msa, Reuse, Alloc],
                        "35_after_AllocateMemoryAddr",
                    ),
                ]
            } else {
                vec![
                    (
                        "init",
                        "31_after_MaterializeTensorStrides",
                        vec![Init],
                        "32_after_InitMemRef",
                    ),
                    (
                        "msa",
                        "31_after_MaterializeTensorStrides",
                        vec![Init, Msa],
                        "33_after_MaterializeSemanticAliases",
                    ),
                    (
                        "alloc",
                        "33_after_MaterializeSemanticAliases",
                        vec![Alloc],
                        "34_after_AllocateMemoryAddr",
                    ),
                    (
                        "full",
                        "31_after_MaterializeTensorStrides",
                        vec![Init, Msa, Alloc],
                        "34_after_AllocateMemoryAddr",
                    ),
                ]
            };
            for (check, input, passes, want) in runs {
                let (Ok(input), Ok(want)) = (
                    std::fs::read(d.join(format!("{input}.msgpack"))),
                    std::fs::read(d.join(format!("{want}.msgpack"))),
                ) else {
                    continue;
                };
                let mut last = String::new();
                let mut ok = false;
                for rules in [SeedRules::ALL, SeedRules::pypto_e2d0f78()] {
                    let (mut p, origin) = msgpack::read_with_origin(&input).unwrap();
                    let soc = Soc::from_name(&target).unwrap();
                    let mut cx = PassContext::new(soc, mode);
                    cx.seed_rules = rules;
                    if let Err(e) = run_pipeline(&mut p, &mut cx, &passes) {
                        last = format!(
                            "planning error: {}",
                            e.message.chars().take(80).collect::<String>()
                        );
                        continue;
                    }
                    let out = msgpack::write_program(&p, &origin).unwrap();
                    if out == want {
                        ok = true;
                        break;
                    }
                    let t_out = msgpack::to_text(&msgpack::read(&out).unwrap()).unwrap();
                    let t_want = msgpack::to_text(&msgpack::read(&want).unwrap()).unwrap();
                    if let (true, Some(dir)) = (t_out == t_want, &dump) {
                        let n = format!(
                            "{planner}_{check}_{}",
                            k.file_name().unwrap().to_string_lossy()
                        );
                        std::fs::write(dir.join(format!("{n}.ours.msgpack")), &out).unwrap();
                        std::fs::write(dir.join(format!("{n}.pypto.msgpack")), &want).unwrap();
                    }
                    last = if t_out == t_want {
                        "write-back difference (same text)".into()
                    } else {
                        let l = t_out
                            .lines()
                            .zip(t_want.lines())
                            .find(|(a, b)| a != b)
                            .map(|(a, b)| {
                                format!("\n   ours: {}\n   pypto: {}", a.trim(), b.trim())
                            })
                            .unwrap_or_default();
                        format!("planning difference (text differs){l}")
                    };
                }
                if !ok {
                    let kind = last.lines().next().unwrap().to_string();
                    *counts
                        .entry(format!("{planner} {check} {kind}"))
                        .or_default() += 1;
                    println!(
                        "{planner} {check} {}: {last}",
                        k.file_name().unwrap().to_string_lossy()
                    );
                }
            }
        }
    }
    for (k, n) in counts {
        println!("{n:4} {k}");
    }
}
