//! Times tilemem's side of the MessagePack route on chain kernels of about
//! 32,000 and 100,000 statements (PyPTO's shape of a stage-31 document:
//! `tile.load`, a chain of `tile.add`, `tile.store`), against the text
//! route on the same program, each step on its own, in one run:
//!
//! - document: read (decode, print, parse), plan (all memory passes,
//!   pypto planner), write the document back;
//! - text: parse the program text, plan, print.
//!
//! `cargo run --release -p tilemem-pto --example msgpack_chain_bench [N...]`

use std::time::Instant;

use tilemem_pto::msgpack::graph::{Graph, Node, NodeId, Span, Sym, Value};
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
        Value::Span(Span {
            file,
            begin_line: line,
            begin_column: c0,
            end_line: line,
            end_column: c1,
        })
    }

    fn unknown(&mut self) -> Value {
        let file = self.s("");
        Value::Span(Span {
            file,
            begin_line: -1,
            begin_column: -1,
            end_line: -1,
            end_column: -1,
        })
    }

    fn map(&mut self, entries: &[(&str, Value)]) -> Value {
        let mut e: Vec<(Sym, Value)> = entries
            .iter()
            .map(|(k, v)| (self.s(k), v.clone()))
            .collect();
        let syms = &self.g.syms;
        e.sort_by(|a, b| syms.str(a.0).cmp(syms.str(b.0)));
        Value::Map(e.into())
    }

    fn node(&mut self, kind: &str, fields: &[(&str, Value)]) -> NodeId {
        let Value::Map(f) = self.map(fields) else {
            unreachable!()
        };
        let kind = self.s(kind);
        self.g.add(Node {
            kind,
            fields: f,
            offset: u32::MAX,
        })
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
        let d0 = self.int(128, u.clone());
        let d1 = self.int(128, u);
        let tk = Value::Str(self.s(kind));
        let mut e = vec![
            ("dtype", Value::Int(52)),
            ("shape", Value::Array(vec![d0, d1].into())),
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
        Value::Node(self.node(
            "Call",
            &[
                ("args", Value::Array(args.into())),
                ("attrs", Value::Array(Box::new([]))),
                ("kwargs", Value::Array(kwargs.into())),
                ("op", opv),
                ("span", span),
                ("type", ty),
            ],
        ))
    }

    fn assign(&mut self, var: NodeId, value: Value, span: Value) -> Value {
        Value::Node(self.node(
            "AssignStmt",
            &[
                ("leading_comments", Value::Array(Box::new([]))),
                ("span", span),
                ("value", value),
                ("var", Value::Node(var)),
            ],
        ))
    }

    fn pair(&mut self, a: i64, b: i64, line: i32) -> Value {
        let s = self.span(line, 40, 50);
        let x = self.int(a, s.clone());
        let y = self.int(b, s.clone());
        let tk = Value::Str(self.s("ScalarType"));
        let st = self.map(&[("dtype", Value::Int(21)), ("type_kind", tk)]);
        let tt = Value::Str(self.s("TupleType"));
        let ty = self.map(&[
            ("type_kind", tt),
            ("types", Value::Array(vec![st.clone(), st].into())),
        ]);
        Value::Node(self.node(
            "MakeTuple",
            &[
                ("elements", Value::Array(vec![x, y].into())),
                ("span", s),
                ("type", ty),
            ],
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
    let t0 = b.var("t0", tt, s.clone());
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
        s.clone(),
    );
    stmts.push(b.assign(t0, load, s));
    let mut prev = t0;
    for i in 1..n.saturating_sub(2) {
        let line = 8 + i as i32;
        let tt = b.shaped("TileType", true);
        let s = b.span(line, 9, 120);
        let t = b.var(&format!("t{i}"), tt, s.clone());
        let ct = b.shaped("TileType", true);
        let c = b.call(
            "tile.add",
            vec![Value::Node(prev), Value::Node(prev)],
            vec![],
            ct,
            s.clone(),
        );
        stmts.push(b.assign(t, c, s));
        prev = t;
    }
    let line = 8 + n as i32;
    let s = b.span(line, 9, 100);
    let st = b.shaped("TensorType", false);
    let stored = b.var("stored", st.clone(), s.clone());
    let o = b.pair(0, 0, line);
    let c = b.call(
        "tile.store",
        vec![Value::Node(prev), o, Value::Node(out)],
        vec![],
        st,
        s.clone(),
    );
    stmts.push(b.assign(stored, c, s));
    let s = b.span(line + 1, 9, 20);
    let ret = b.node(
        "ReturnStmt",
        &[
            ("leading_comments", Value::Array(Box::new([]))),
            ("span", s),
            ("value", Value::Array(vec![Value::Node(out)].into())),
        ],
    );
    stmts.push(Value::Node(ret));
    let s = b.span(7, 5, 5);
    let body = b.node(
        "SeqStmts",
        &[
            ("leading_comments", Value::Array(Box::new([]))),
            ("span", s.clone()),
            ("stmts", Value::Array(stmts.into())),
        ],
    );
    let rt = b.shaped("TensorType", false);
    let name = Value::Str(b.s("chain"));
    let func = b.node(
        "Function",
        &[
            ("attrs", Value::Array(Box::new([]))),
            ("body", Value::Node(body)),
            ("func_type", Value::Int(4)),
            ("level", Value::Int(0)),
            ("name", name.clone()),
            (
                "param_directions",
                Value::Array(vec![Value::Int(0), Value::Int(1)].into()),
            ),
            (
                "params",
                Value::Array(vec![Value::Node(a), Value::Node(out)].into()),
            ),
            ("requires_runtime_binding", Value::Bool(false)),
            ("return_types", Value::Array(vec![rt].into())),
            ("role", Value::Int(1)),
            ("span", s.clone()),
        ],
    );
    let key = b.map(&[("is_global_var", Value::Bool(true)), ("name", name)]);
    let entry = b.map(&[("key", key), ("value", Value::Node(func))]);
    let pname = Value::Str(b.s("Chain"));
    let root = b.g.root;
    let Value::Map(fields) = b.map(&[
        ("functions", Value::Array(vec![entry].into())),
        ("name", pname),
        ("span", s),
    ]) else {
        unreachable!()
    };
    b.g.nodes[root.index()].fields = fields;
    tilemem_pto::msgpack::write(&b.g).expect("writes")
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
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
        if std::env::var_os("STEPS").is_some() {
            let t = Instant::now();
            let g = tilemem_pto::msgpack::read(&doc).expect("reads");
            let d = secs(t);
            let t = Instant::now();
            let text = tilemem_pto::msgpack::to_text(&g).expect("prints");
            let pr = secs(t);
            let t = Instant::now();
            let _ = tilemem_pto::msgpack::write(&g).expect("writes");
            let w = secs(t);
            println!(
                "  decode {d:.3} s, print {pr:.3} s ({} bytes), encode {w:.3} s",
                text.len()
            );
        }
        let t = Instant::now();
        let (mut p, origin) = tilemem_pto::msgpack::read_with_origin(&doc).expect("reads");
        let read = secs(t);
        let t = Instant::now();
        let mut cx = PassContext::new(soc.clone(), PlannerMode::Pypto);
        run_pipeline(&mut p, &mut cx, &passes).expect("plans");
        let plan = secs(t);
        let t = Instant::now();
        let out = tilemem_pto::msgpack::write_program(&p, &origin).expect("writes");
        let write = secs(t);

        let text = tilemem_pto::msgpack::to_text(&tilemem_pto::msgpack::read(&doc).expect("reads"))
            .expect("prints");
        let t = Instant::now();
        let mut q = tilemem_pto::parse(&text).expect("parses");
        let tparse = secs(t);
        let t = Instant::now();
        let mut cx = PassContext::new(soc.clone(), PlannerMode::Pypto);
        run_pipeline(&mut q, &mut cx, &passes).expect("plans");
        let tplan = secs(t);
        let t = Instant::now();
        let printed = tilemem_pto::print(&q);
        let tprint = secs(t);
        println!(
            "{n} statements: document {} -> {} bytes: read {read:.3} s, plan {plan:.3} s, write {write:.3} s, total {:.3} s | text {} bytes: parse {tparse:.3} s, plan {tplan:.3} s, print {tprint:.3} s, total {:.3} s | document/text {:.2}x",
            doc.len(),
            out.len(),
            read + plan + write,
            printed.len(),
            tparse + tplan + tprint,
            (read + plan + write) / (tparse + tplan + tprint),
        );
    }
}
