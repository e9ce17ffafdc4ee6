//! Benchmark: memory planning of a generated function of 10,000 ops
//! (`generate_plan`: loops of loads, in-place adds, transposing
//! exponentials and stores, double-buffered inputs; far more buffer bytes
//! than UB holds, so the planner reuses by lifetime and reports the
//! DMA-reuse warning).
//!
//! Run with `cargo bench -p tilemem-mlir --bench plan_memory`. Prints, in
//! one run, the best and median wall and CPU time and the peak heap of
//! reading and printing alone, of reading, appending the device spec, planning
//! (with its independent check) and printing, and of the same recording
//! each space's placement (what `tilemem opt` does for its summary line
//! and `-map`), and their ratios.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tilemem_mlir::memplan::{plan_module, plan_module_in, PlanRequest};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::pass::PassContext;
use tilemem_mlir::print::print_module;

/// Counts live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// A function of about `ops` ops for memory planning: groups of a loop
/// whose body loads into a double-buffered buffer, adds in place, applies
/// a transposing exponential into a third buffer and stores it, plus a
/// chain of vector temporaries between loops. Its buffers need far more
/// than the 192 KiB of UB, so the planner reuses by lifetime.
fn generate_plan(ops: usize) -> String {
    let ub = "#hivm.address_space<ub>";
    let gm = "#hivm.address_space<gm>";
    let t = format!("memref<1024xf32, {ub}>");
    let g = format!("memref<1024xf32, {gm}>");
    let mut out = format!(
        "func.func @generated(%gm: {g}) {{\n  %c0 = arith.constant 0 : index\n  %c4 = arith.constant 4 : index\n  %c1 = arith.constant 1 : index\n"
    );
    // 12 ops per group.
    for k in 0..ops / 12 {
        out.push_str("  scf.for %i = %c0 to %c4 step %c1 {\n");
        out.push_str(&format!("    %a{k} = memref.alloc() : {t}\n"));
        out.push_str(&format!(
            "    annotation.mark %a{k} {{hivm.multi_buffer = 2 : i32}} : {t}\n"
        ));
        out.push_str(&format!(
            "    hivm.hir.load ins(%gm : {g}) outs(%a{k} : {t})\n"
        ));
        out.push_str(&format!("    %b{k} = memref.alloc() : {t}\n"));
        out.push_str(&format!(
            "    hivm.hir.vadd ins(%a{k}, %a{k} : {t}, {t}) outs(%b{k} : {t})\n"
        ));
        out.push_str(&format!("    %c{k} = memref.alloc() : {t}\n"));
        out.push_str(&format!(
            "    hivm.hir.vexp ins(%b{k} : {t}) outs(%c{k} : {t}) transpose = [0]\n"
        ));
        out.push_str(&format!(
            "    hivm.hir.store ins(%c{k} : {t}) outs(%gm : {g})\n"
        ));
        out.push_str("  }\n");
        out.push_str(&format!("  %d{k} = memref.alloc() : {t}\n"));
        out.push_str(&format!(
            "  hivm.hir.load ins(%gm : {g}) outs(%d{k} : {t})\n"
        ));
        out.push_str(&format!(
            "  hivm.hir.store ins(%d{k} : {t}) outs(%gm : {g})\n"
        ));
    }
    out.push_str("  return\n}\n");
    out
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The time this thread has run on a CPU (Linux's schedstat), when known:
/// on a shared machine wall time also counts waiting for a core.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Runs `f`, returning its wall time, its CPU time (wall time where the
/// CPU time is unknown) and the heap peak above the live bytes at its start.
fn measure<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let cpu0 = cpu_time();
    let start = Instant::now();
    let out = f();
    let t = start.elapsed();
    let cpu = match (cpu0, cpu_time()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => t,
    };
    (out, t, cpu, PEAK.load(Ordering::Relaxed) - base)
}

fn stats(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    (
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3,
    )
}

fn main() {
    let text = generate_plan(10_000);
    let opts = ParseOptions::default();
    let ops = match parse_module(&text, &opts) {
        Ok(m) => m.all_ops().len(),
        Err(d) => {
            eprintln!("cannot read the generated input: {}", d.render("gen"));
            return;
        }
    };
    let (mut base_t, mut plan_t) = (Vec::new(), Vec::new());
    let (mut base_cpu, mut plan_cpu) = (Vec::new(), Vec::new());
    let (mut base_peak, mut plan_peak) = (0, 0);
    let (mut rec_t, mut rec_cpu, mut rec_peak) = (Vec::new(), Vec::new(), 0);
    let mut summary = String::new();
    for _ in 0..5 {
        let (_, t, cpu, peak) = measure(|| {
            let m = parse_module(&text, &opts).expect("reads");
            print_module(&m).len()
        });
        base_t.push(t);
        base_cpu.push(cpu);
        base_peak = base_peak.max(peak);
        let ((len, used), t, cpu, peak) = measure(|| {
            let mut m = parse_module(&text, &opts).expect("reads");
            let req = PlanRequest::default();
            plan_module(&mut m, &req).expect("plans");
            let used = tilemem_mlir::memplan::planned_functions(&m)
                .iter()
                .flat_map(|f| f.spaces.iter().map(|s| s.used))
                .max()
                .unwrap_or(0);
            (print_module(&m).len(), used)
        });
        plan_t.push(t);
        plan_cpu.push(cpu);
        plan_peak = plan_peak.max(peak);
        summary = format!("{} KiB out, UB used {used} bytes", len / 1024);
        let (_, t, cpu, peak) = measure(|| {
            let mut m = parse_module(&text, &opts).expect("reads");
            let mut cx = PassContext {
                placements: Some(Vec::new()),
                ..PassContext::default()
            };
            plan_module_in(&mut m, &PlanRequest::default(), &mut cx).expect("plans");
            (print_module(&m).len(), cx.placements.map_or(0, |p| p.len()))
        });
        rec_t.push(t);
        rec_cpu.push(cpu);
        rec_peak = rec_peak.max(peak);
    }
    let (bb, bm) = stats(base_t);
    let (pb, pm) = stats(plan_t);
    let (bcb, bcm) = stats(base_cpu);
    let (pcb, pcm) = stats(plan_cpu);
    println!("{ops} ops, {} KiB in, {summary}", text.len() / 1024);
    println!(
        "read + print:        wall best {bb:.1} ms, median {bm:.1} ms; cpu best {bcb:.1} ms, median {bcm:.1} ms; peak heap {} KiB",
        base_peak / 1024
    );
    println!(
        "read + plan + print: wall best {pb:.1} ms, median {pm:.1} ms; cpu best {pcb:.1} ms, median {pcm:.1} ms; peak heap {} KiB",
        plan_peak / 1024
    );
    let (rb, rm) = stats(rec_t);
    let (rcb, rcm) = stats(rec_cpu);
    println!(
        "  + placements:      wall best {rb:.1} ms, median {rm:.1} ms; cpu best {rcb:.1} ms, median {rcm:.1} ms; peak heap {} KiB",
        rec_peak / 1024
    );
    println!(
        "ratio (plan / read+print): cpu time {:.2}x, peak heap {:.2}x",
        pcm / bcm,
        plan_peak as f64 / base_peak.max(1) as f64
    );
    println!(
        "ratio (plan + placements / plan): cpu time {:.2}x, peak heap {:.2}x",
        rcm / pcm,
        rec_peak as f64 / plan_peak.max(1) as f64
    );
}
