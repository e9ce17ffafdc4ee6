//! MemoryReuse run on its own output: the `pipeline_membership` tags are
//! consumed by the first run, and a second run must still reach the same
//! decision (the stage copies it kept apart stay apart).

mod common;

use common::program;
use tilemem_pto::passes::memory_reuse;
use tilemem_pto::passes::{PassContext, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

fn reuse(src: &str) -> String {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::ascend910b(), PlannerMode::Pypto);
    memory_reuse::run(&mut p, &mut cx).expect("pass succeeds");
    assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
    print(&p)
}

const SIG: &str = "x: pl.Tensor[[512], pl.FP32], out: pl.Out[pl.Tensor[[512], pl.FP32]]) -> pl.Tensor[[512], pl.FP32]";

fn tile(name: &str, root: &str, rhs: &str) -> String {
    format!("{name}: pl.Tile[[128], pl.FP32, pl.MemRef({root}, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = {rhs}")
}

/// Two stages of one group in a pipelined loop, each a load and an `exp`:
/// the load and the `exp` of one stage share, the stages do not.
fn pipelined(tagged: bool) -> String {
    let tag = |s: u32| {
        if tagged {
            format!(", attrs={{\"pipeline_membership\": \"0:{s}\"}}")
        } else {
            String::new()
        }
    };
    let lines = [
        "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)".to_string(),
        "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)".to_string(),
        "mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)".to_string(),
        "mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)".to_string(),
        "for i in pl.pipeline(0, 4, 2, stage=1):".to_string(),
        format!(
            "    {}",
            tile(
                "ld",
                "mem_vec_2",
                &format!(
                    "pl.tile.load(x, [i * 128], [128], [128], target_memory=pl.Mem.Vec{})",
                    tag(0)
                )
            )
        ),
        format!(
            "    {}",
            tile("c", "mem_vec_3", &format!("pl.tile.exp(ld{})", tag(0)))
        ),
        "    _r: pl.Tensor[[512], pl.FP32] = pl.tile.store(c, [i * 128], out)".to_string(),
        format!(
            "    {}",
            tile(
                "ld_1",
                "mem_vec_4",
                &format!(
                    "pl.tile.load(x, [(i + 1) * 128], [128], [128], target_memory=pl.Mem.Vec{})",
                    tag(1)
                )
            )
        ),
        format!(
            "    {}",
            tile("c_1", "mem_vec_5", &format!("pl.tile.exp(ld_1{})", tag(1)))
        ),
        "    _r_1: pl.Tensor[[512], pl.FP32] = pl.tile.store(c_1, [(i + 1) * 128], out)"
            .to_string(),
        "return x".to_string(),
    ];
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    program("InCore", SIG, &body)
}

/// The root each tile of the output lives in, in printed order.
fn roots(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim_start().split_once(": pl.Tile[")?;
            let root = rest.split_once("pl.MemRef(")?.1.split_once(',')?.0;
            Some(format!("{name}@{root}"))
        })
        .collect()
}

#[test]
fn a_second_run_keeps_the_stage_copies_the_first_run_kept_apart() {
    let once = reuse(&pipelined(true));
    assert_eq!(
        roots(&once),
        [
            "ld@mem_vec_2",
            "c@mem_vec_2",
            "ld_1@mem_vec_4",
            "c_1@mem_vec_4"
        ]
    );
    assert!(!once.contains("pipeline_membership"), "{once}");
    assert_eq!(reuse(&once), once);
}

/// Without tags and without an earlier run's decision (one buffer per
/// tile), the buffers of a pipelined loop are the decision: each distinct
/// root is kept apart from the others of its loop and space.
#[test]
fn untagged_pipelined_loops_keep_their_buffers_apart() {
    let out = reuse(&pipelined(false));
    assert_eq!(
        roots(&out),
        [
            "ld@mem_vec_2",
            "c@mem_vec_3",
            "ld_1@mem_vec_4",
            "c_1@mem_vec_5"
        ]
    );
}
