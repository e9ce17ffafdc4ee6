//! Times the MessagePack route against the text route on given PyPTO
//! documents (the largest shared kernels, say), one after the other in one
//! run: for each file, read / plan / write the document, and parse / plan
//! / print the text of the same program, each step `R` times (default 9),
//! medians of CPU time (this thread's, from `/proc/thread-self/schedstat`:
//! the machine may be shared).
//!
//! `cargo run --release -p tilemem-pto --example msgpack_files_bench -- [-r R] [--target T] FILE...`
//!
//! Each round also checks what the route promises: the document read and
//! written unplanned is the same bytes, and the planned document prints
//! as the planned text.

use tilemem_pto::passes::{run_pipeline, select_passes, PassContext, PlannerMode};
use tilemem_soc::Soc;

fn cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// CPU seconds of one run of `f`: runs it until 50 ms of this thread's
/// CPU time have passed (a run may take less than the scheduler's tick, at
/// which the thread's CPU time advances).
fn per_run(mut f: impl FnMut()) -> f64 {
    let c = cpu();
    let mut n = 0u32;
    loop {
        f();
        n += 1;
        let d = cpu() - c;
        if d >= 0.05 {
            return d / f64::from(n);
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut rounds, mut target, mut files) = (9usize, "910b".to_string(), Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "-r" => rounds = args.next().and_then(|r| r.parse().ok()).expect("-r N"),
            "--target" => target = args.next().expect("--target T"),
            _ => files.push(a),
        }
    }
    let soc = Soc::from_name(&target).expect("target");
    let passes = select_passes(PlannerMode::Pypto, None, None).expect("passes");
    println!("file: MessagePack read / plan / write vs text parse / plan / print, median CPU ms of {rounds}");
    for path in files {
        let doc = std::fs::read(&path).expect("file");
        let text = tilemem_pto::msgpack::to_text(&tilemem_pto::msgpack::read(&doc).expect("reads"))
            .expect("prints");
        let mut t = [(); 6].map(|_| Vec::new());
        let (p, origin) = tilemem_pto::msgpack::read_with_origin(&doc).expect("reads");
        let same = tilemem_pto::msgpack::write_program(&p, &origin).expect("writes");
        assert_eq!(
            same, doc,
            "{path}: read and written unplanned is the same bytes"
        );
        let q = tilemem_pto::parse(&text).expect("parses");
        let plan = |p: &mut tilemem_pto::ir::Program| {
            run_pipeline(
                p,
                &mut PassContext::new(soc.clone(), PlannerMode::Pypto),
                &passes,
            )
            .is_ok()
        };
        let (mut planned, mut planned_text) = (p.clone(), q.clone());
        let ok = plan(&mut planned);
        assert_eq!(
            ok,
            plan(&mut planned_text),
            "{path}: both routes plan or both fail"
        );
        if ok {
            let out = tilemem_pto::msgpack::write_program(&planned, &origin).expect("writes");
            let back =
                tilemem_pto::msgpack::to_text(&tilemem_pto::msgpack::read(&out).expect("reads"))
                    .expect("prints");
            assert_eq!(
                back,
                tilemem_pto::print(&planned_text),
                "{path}: the planned document prints as the planned text"
            );
        }
        for _ in 0..rounds {
            t[0].push(per_run(|| {
                drop(tilemem_pto::msgpack::read_with_origin(&doc))
            }));
            // Planning starts from a copy of the program read (the copy is
            // timed on both routes alike).
            t[1].push(per_run(|| {
                plan(&mut p.clone());
            }));
            t[2].push(per_run(|| {
                drop(tilemem_pto::msgpack::write_program(&planned, &origin))
            }));
            t[3].push(per_run(|| drop(tilemem_pto::parse(&text))));
            t[4].push(per_run(|| {
                plan(&mut q.clone());
            }));
            t[5].push(per_run(|| drop(tilemem_pto::print(&planned_text))));
        }
        let m: Vec<f64> = t.into_iter().map(|v| median(v) * 1e3).collect();
        let (doc_total, text_total) = (m[0] + m[1] + m[2], m[3] + m[4] + m[5]);
        println!(
            "{path} ({} bytes, text {} bytes)\n  document: read {:.2}, plan {:.2}, write {:.2}, total {doc_total:.2}\n  text:     parse {:.2}, plan {:.2}, print {:.2}, total {text_total:.2}\n  document/text: read {:.2}x, plan {:.2}x, write {:.2}x, total {:.2}x",
            doc.len(),
            text.len(),
            m[0], m[1], m[2], m[3], m[4], m[5],
            m[0] / m[3], m[1] / m[4], m[2] / m[5], doc_total / text_total,
        );
    }
}
