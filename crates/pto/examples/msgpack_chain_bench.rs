//! Times tilemem's side of the MessagePack route on chain kernels of about
//! 32,000 and 100,000 statements (PyPTO's shape of a stage-31 document:
//! `tile.load`, a chain of `tile.add`, `tile.store`), against the text
//! route on the same program, each step on its own, in one run:
//!
//! - document: read (decode, print, parse), plan (all memory passes,
//!   pypto planner), write the document back (rebuild the graph, encode);
//! - text: parse the program text, plan, print.
//!
//! `cargo run --release -p tilemem-pto --example msgpack_chain_bench [N...]`
//!
//! Times are the CPU time of each step (the machine may be shared; every
//! step runs on this thread), with each route's wall time beside its
//! total.

use std::time::Instant;

use tilemem_pto::msgpack::graph::{Graph, NodeId, Span, Sym, Value};
use tilemem_pto::passes::{run_pipeline, select_passes, PassContext, PlannerMode};
use tilemem_soc::Soc;

struct B {
    g: Graph,
}

impl B {
    fn s(&mut self, t: &str) -> Sym {
        self.g.syms.intern(t)
    }

    fn span(&mut self, line: i32, c0: i32, c1: i32) -> Value {
        let file = self.s("kernel.py");
        self.g.new_span(Span {
            file,
            begin_line: line,
            begin_column: c0,
            end_line: line,
            end_column: c1,
        })
    }

    fn unknown(&mut self) -> Value {
        let file = self.s("");
        self.g.new_span(Span {
            file,
            begin_line: -1,
            begin_column: -1,
            end_line: -1,
            end_column: -1,
        })
    }

    fn pairs(&mut self, entries: &[(&str, Value)]) -> Vec<(Sym, Value)> {
        entries.iter().map(|(k, v)| (self.s(k), *v)).collect()
    }

    fn map(&mut self, entries: &[(&str, Value)]) -> Value {
        let mut e = self.pairs(entries);
        self.g.new_map(&mut e)
    }

    fn array(&mut self, items: &[Value]) -> Value {
        self.g.new_array(items)
    }

    fn node(&mut self, kind: &str, fields: &[(&str, Value)]) -> NodeId {
        let mut f = self.pairs(fields);
        let kind = self.s(kind);
        self.g.add(kind, &mut f)
    }

    fn int(&mut self, v: i64, span: Value) -> Value {
        let tk = Value::Str(self.s("ScalarType"));
        let ty = self.map(&[("dtype", Value::Int(21)), ("type_kind", tk)]);
        Value::Node(self.node(
            "ConstInt",
            &[("span", span), ("type", ty), ("value", Value::Int(v))],
        ))
    }

    fn shaped(&mut self, kind: &str, tile: bool) -> Value {
        let u = self.unknown();
        let d0 = self.int(128, u);
        let d1 = self.int(128, u);
        let tk = Value::Str(self.s(kind));
        let shape = self.array(&[d0, d1]);
        let mut e = vec![
            ("dtype", Value::Int(52)),
            ("shape", shape),
            ("type_kind", tk),
        ];
        if tile {
            e.push(("memory_space", Value::Int(1)));
        }
        self.map(&e)
    }

    fn var(&mut self, name: &str, ty: Value, span: Value) -> NodeId {
        let n = Value::Str(self.s(name));
        self.node("Var", &[("name_hint", n), ("span", span), ("type", ty)])
    }

    fn call(
        &mut self,
        op: &str,
        args: Vec<Value>,
        kwargs: Vec<Value>,
        ty: Value,
        span: Value,
    ) -> Value {
        let name = Value::Str(self.s(op));
        let opv = self.map(&[("is_global_var", Value::Bool(false)), ("name", name)]);
        let (args, kwargs, empty) = (self.array(&args), self.array(&kwargs), self.array(&[]));
        Value::Node(self.node(
            "Call",
            &[
                ("args", args),
                ("attrs", empty),
                ("kwargs", kwargs),
                ("op", opv),
                ("span", span),
                ("type", ty),
            ],
        ))
    }

    fn assign(&mut self, var: NodeId, value: Value, span: Value) -> Value {
        let empty = self.array(&[]);
        Value::Node(self.node(
            "AssignStmt",
            &[
                ("leading_comments", empty),
                ("span", span),
                ("value", value),
                ("var", Value::Node(var)),
            ],
        ))
    }

    fn pair(&mut self, a: i64, b: i64, line: i32) -> Value {
        let s = self.span(line, 40, 50);
        let x = self.int(a, s);
        let y = self.int(b, s);
        let tk = Value::Str(self.s("ScalarType"));
        let st = self.map(&[("dtype", Value::Int(21)), ("type_kind", tk)]);
        let tt = Value::Str(self.s("TupleType"));
        let st2 = self.g.copy(st);
        let types = self.array(&[st, st2]);
        let ty = self.map(&[("type_kind", tt), ("types", types)]);
        let elements = self.array(&[x, y]);
        Value::Node(self.node(
            "MakeTuple",
            &[("elements", elements), ("span", s), ("type", ty)],
        ))
    }
}

/// A stage-31 document of one AIV kernel of `n` statements.
fn chain(n: usize) -> Vec<u8> {
    let mut b = B {
        g: Graph::new("Program"),
    };
    let ta = b.shaped("TensorType", false);
    let sa = b.span(7, 20, 60);
    let a = b.var("a", ta, sa);
    let to = b.shaped("TensorType", false);
    let so = b.span(7, 62, 100);
    let out = b.var("out", to, so);
    let mut stmts = Vec::new();
    let tt = b.shaped("TileType", true);
    let s = b.span(8, 9, 200);
    let t0 = b.var("t0", tt, s);
    let ct = b.shaped("TileType", true);
    let (o, sh, vs) = (b.pair(0, 0, 8), b.pair(128, 128, 8), b.pair(128, 128, 8));
    let key = Value::Str(b.s("target_memory"));
    let mt = Value::Str(b.s("MemorySpace"));
    let vec = Value::Str(b.s("Vec"));
    let kv = b.map(&[("type", mt), ("value", vec)]);
    let kw = b.map(&[("key", key), ("value", kv)]);
    let load = b.call(
        "tile.load",
        vec![Value::Node(a), o, sh, vs],
        vec![kw],
        ct,
        s,
    );
    stmts.push(b.assign(t0, load, s));
    let mut prev = t0;
    for i in 1..n.saturating_sub(2) {
        let line = 8 + i as i32;
        let tt = b.shaped("TileType", true);
        let s = b.span(line, 9, 120);
        let t = b.var(&format!("t{i}"), tt, s);
        let ct = b.shaped("TileType", true);
        let c = b.call(
            "tile.add",
            vec![Value::Node(prev), Value::Node(prev)],
            vec![],
            ct,
            s,
        );
        stmts.push(b.assign(t, c, s));
        prev = t;
    }
    let line = 8 + n as i32;
    let s = b.span(line, 9, 100);
    let st = b.shaped("TensorType", false);
    // The call's type and the variable's are one object in PyPTO: the
    // same dimension nodes, in two maps of their own.
    let st2 = b.g.copy(st);
    let stored = b.var("stored", st2, s);
    let o = b.pair(0, 0, line);
    let c = b.call(
        "tile.store",
        vec![Value::Node(prev), o, Value::Node(out)],
        vec![],
        st,
        s,
    );
    stmts.push(b.assign(stored, c, s));
    let s = b.span(line + 1, 9, 20);
    let (empty, ret_vals) = (b.array(&[]), b.array(&[Value::Node(out)]));
    let ret = b.node(
        "ReturnStmt",
        &[
            ("leading_comments", empty),
            ("span", s),
            ("value", ret_vals),
        ],
    );
    stmts.push(Value::Node(ret));
    let s = b.span(7, 5, 5);
    let (empty, stmts) = (b.array(&[]), b.array(&stmts));
    let body = b.node(
        "SeqStmts",
        &[("leading_comments", empty), ("span", s), ("stmts", stmts)],
    );
    let rt = b.shaped("TensorType", false);
    let name = Value::Str(b.s("chain"));
    let empty = b.array(&[]);
    let dirs = b.array(&[Value::Int(0), Value::Int(1)]);
    let params = b.array(&[Value::Node(a), Value::Node(out)]);
    let rets = b.array(&[rt]);
    let func = b.node(
        "Function",
        &[
            ("attrs", empty),
            ("body", Value::Node(body)),
            ("func_type", Value::Int(4)),
            ("level", Value::Int(0)),
            ("name", name),
            ("param_directions", dirs),
            ("params", params),
            ("requires_runtime_binding", Value::Bool(false)),
            ("return_types", rets),
            ("role", Value::Int(1)),
            ("span", s),
        ],
    );
    let key = b.map(&[("is_global_var", Value::Bool(true)), ("name", name)]);
    let entry = b.map(&[("key", key), ("value", Value::Node(func))]);
    let pname = Value::Str(b.s("Chain"));
    let functions = b.array(&[entry]);
    let root = b.g.root;
    let kind = b.g.node(root).kind;
    let mut fields = b.pairs(&[("functions", functions), ("name", pname), ("span", s)]);
    b.g.root = b.g.add(kind, &mut fields);
    tilemem_pto::msgpack::write(&b.g).expect("writes")
}

/// CPU time of this thread so far, in seconds (Linux's schedstat; 0 where
/// it is missing): the machine may be shared, and CPU time is what a step
/// costs however busy the other cores are.
fn cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![32_000, 100_000]
    } else {
        sizes
    };
    let soc = Soc::from_name("950").expect("target");
    let passes = select_passes(PlannerMode::Pypto, None, None).expect("passes");
    // Vec holds 188 KiB on 910B; a chain needs two live 64 KiB tiles.
    for n in sizes {
        let doc = chain(n);
        // Each step's CPU time (see `cpu`); wall time summed per route.
        let (mut wall_doc, mut wall_text) = (0.0, 0.0);
        let step = |f: &mut dyn FnMut(), wall: &mut f64| {
            let (t, c) = (Instant::now(), cpu());
            f();
            *wall += t.elapsed().as_secs_f64();
            cpu() - c
        };
        let mut scratch = 0.0;
        let mut g = None;
        let decode = step(
            &mut || g = Some(tilemem_pto::msgpack::read(&doc).expect("reads")),
            &mut scratch,
        );
        let g = g.expect("read");
        let mut text = String::new();
        let print = step(
            &mut || text = tilemem_pto::msgpack::to_text(&g).expect("prints"),
            &mut scratch,
        );
        let mut again = Vec::new();
        let encode = step(
            &mut || again = tilemem_pto::msgpack::write(&g).expect("writes"),
            &mut scratch,
        );
        assert_eq!(again, doc, "a document read and written is the same bytes");

        let mut read = None;
        let tread = step(
            &mut || read = Some(tilemem_pto::msgpack::read_with_origin(&doc).expect("reads")),
            &mut wall_doc,
        );
        let (mut p, origin) = read.expect("read");
        let tplan = step(
            &mut || {
                let mut cx = PassContext::new(soc.clone(), PlannerMode::Pypto);
                run_pipeline(&mut p, &mut cx, &passes).expect("plans");
            },
            &mut wall_doc,
        );
        let mut out = Vec::new();
        let twrite = step(
            &mut || out = tilemem_pto::msgpack::write_program(&p, &origin).expect("writes"),
            &mut wall_doc,
        );
        // The write step's two parts, each on its own.
        let mut rebuilt = None;
        let trebuild = step(
            &mut || rebuilt = Some(tilemem_pto::msgpack::rebuild(&p, &origin).expect("rebuilds")),
            &mut scratch,
        );
        let rebuilt = rebuilt.expect("rebuilt");
        let mut encoded = Vec::new();
        let tencode = step(
            &mut || encoded = tilemem_pto::msgpack::write(&rebuilt).expect("writes"),
            &mut scratch,
        );
        assert_eq!(encoded, out, "the write step is rebuild, then encode");

        let mut q = None;
        let xparse = step(
            &mut || q = Some(tilemem_pto::parse(&text).expect("parses")),
            &mut wall_text,
        );
        let mut q = q.expect("parsed");
        let xplan = step(
            &mut || {
                let mut cx = PassContext::new(soc.clone(), PlannerMode::Pypto);
                run_pipeline(&mut q, &mut cx, &passes).expect("plans");
            },
            &mut wall_text,
        );
        let mut printed = String::new();
        let xprint = step(&mut || printed = tilemem_pto::print(&q), &mut wall_text);
        let (doc_total, text_total) = (tread + tplan + twrite, xparse + xplan + xprint);
        println!(
            "{n} statements (CPU seconds)\n  \
             document {} -> {} bytes: read {tread:.3} (decode {decode:.3}, print {print:.3}), \
             plan {tplan:.3}, write {twrite:.3} (rebuild {trebuild:.3}, encode {tencode:.3}; original encoded alone {encode:.3}), total {doc_total:.3} (wall {wall_doc:.3})\n  \
             text {} bytes: parse {xparse:.3}, plan {xplan:.3}, print {xprint:.3}, total {text_total:.3} (wall {wall_text:.3})\n  \
             document/text {:.2}x",
            doc.len(),
            out.len(),
            printed.len(),
            doc_total / text_total,
        );
    }
}
