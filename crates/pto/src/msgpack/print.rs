//! PyPTO program text from a MessagePack [`Graph`]: what PyPTO's printer
//! writes for the same program (`ir.python_print`), so that a document can
//! be read into the program model by the text reader and shown to a user.
//!
//! The printer's conventions are PyPTO's, as its printed dumps show them:
//! functions callee-first (a depth-first walk from the functions in name
//! order, callees in name order), `self` on functions that run on the host,
//! free size variables as module-level `X = pl.dynamic("X")` lines, MemRef
//! offsets as `pl.const(N, pl.INT64)`, call tuples as lists.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

use super::graph::{Graph, NodeId, NodeSet, Sym, Value};

/// Why a document could not be printed: a node of an unexpected shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// Byte offset of the node in the document.
    pub offset: u32,
    /// What was expected.
    pub message: String,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ShapeError {}

type R<T> = Result<T, ShapeError>;

/// The program text of a document whose root is a `Program`.
pub fn to_text(g: &Graph) -> R<String> {
    Ok(to_text_with_lines(g)?.0)
}

/// [`to_text`], and for each line of the text (from 1; index 0 unused) the
/// statement node printed there, if one starts there.
pub fn to_text_with_lines(g: &Graph) -> R<(String, Vec<Option<NodeId>>)> {
    let mut p = Printer {
        g,
        // About 33 bytes of text per node in PyPTO's documents: room for
        // the whole text, so it is not copied as it grows.
        out: String::with_capacity(g.nodes.len() * 40),
        allocs: FxHashSet::default(),
        lines: vec![None],
        scanned: 0,
        line: 1,
    };
    p.program()?;
    Ok((p.out, p.lines))
}

/// PyPTO's `DataType` names by code.
pub fn dtype_name(code: i64) -> Option<&'static str> {
    Some(match code {
        0x00 => "BOOL",
        0x10 => "INT4",
        0x11 => "INT8",
        0x12 => "INT16",
        0x13 => "INT32",
        0x14 => "INT64",
        0x15 => "INDEX",
        0x20 => "UINT4",
        0x21 => "UINT8",
        0x22 => "UINT16",
        0x23 => "UINT32",
        0x24 => "UINT64",
        0x30 => "FP4",
        0x31 => "FP8E4M3FN",
        0x32 => "FP8E5M2",
        0x33 => "FP16",
        0x34 => "FP32",
        0x35 => "FP64",
        0x36 => "FP8E8M0",
        0x40 => "BF16",
        0x41 => "HF4",
        0x42 => "HF8",
        0x50 => "TASK_ID",
        _ => return None,
    })
}

/// PyPTO's `MemorySpace` names by code.
pub fn mem_space_name(code: i64) -> Option<&'static str> {
    Some(match code {
        0 => "DDR",
        1 => "Vec",
        2 => "Mat",
        3 => "Left",
        4 => "Right",
        5 => "Acc",
        6 => "Bias",
        7 => "ScalarLocal",
        8 => "LeftScale",
        9 => "RightScale",
        _ => return None,
    })
}

fn function_type_name(code: i64) -> &'static str {
    match code {
        1 => "Orchestration",
        2 => "InCore",
        3 => "AIC",
        4 => "AIV",
        5 => "Group",
        6 => "Spmd",
        7 => "Inline",
        8 => "Graph",
        _ => "Opaque",
    }
}

fn level_name(code: i64) -> Option<&'static str> {
    Some(match code {
        0 => "AIV",
        1 => "AIC",
        2 => "CORE_GROUP",
        3 => "CHIP_DIE",
        4 => "CHIP",
        5 => "HOST",
        6 => "CLUSTER_0",
        7 => "CLUSTER_1",
        8 => "CLUSTER_2",
        9 => "GLOBAL",
        _ => return None,
    })
}

/// Python's `repr` of a float as PyPTO prints constants (17 significant
/// digits, a `.0` on integral values).
fn float_text(x: f64) -> String {
    let mut s = format!("{x:.16e}");
    // Shortest of %.17g: trim the mantissa's trailing zeros, and write
    // exponents between -5 and 16 positionally.
    if let Some((m, e)) = s.split_once('e') {
        let exp: i32 = e.parse().unwrap_or(0);
        let m = m.trim_end_matches('0').trim_end_matches('.');
        if (-5..17).contains(&exp) {
            let digits: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
            let neg = m.starts_with('-');
            let point = exp + 1;
            let mut t = String::new();
            if point <= 0 {
                t.push_str("0.");
                t.push_str(&"0".repeat((-point) as usize));
                t.push_str(&digits);
            } else if (point as usize) >= digits.len() {
                t.push_str(&digits);
                t.push_str(&"0".repeat(point as usize - digits.len()));
            } else {
                t.push_str(&digits[..point as usize]);
                t.push('.');
                t.push_str(&digits[point as usize..]);
            }
            s = if neg { format!("-{t}") } else { t };
        } else {
            s = format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        }
    }
    if !s.contains(['.', 'e', 'n', 'i']) {
        s.push_str(".0");
    }
    s
}

struct Printer<'a> {
    g: &'a Graph,
    out: String,
    /// Variables defined by a `tile.alloc` in the function being printed
    /// (their MemRefs name them bare; other roots are strings).
    allocs: FxHashSet<NodeId>,
    /// Statement node starting on each line.
    lines: Vec<Option<NodeId>>,
    /// Bytes of `out` whose newlines are counted in `line`.
    scanned: usize,
    /// The line `out` ends on.
    line: usize,
}

impl Printer<'_> {
    fn err<T>(&self, n: NodeId, message: impl Into<String>) -> R<T> {
        Err(ShapeError {
            offset: self.g.node(n).offset,
            message: message.into(),
        })
    }

    fn field(&self, n: NodeId, name: &str) -> R<&Value> {
        match self.g.field(n, name) {
            Some(v) => Ok(v),
            None => self.err(n, format!("{} without field '{name}'", self.g.kind(n))),
        }
    }

    fn node_field(&self, n: NodeId, name: &str) -> R<NodeId> {
        match self.field(n, name)? {
            Value::Node(m) => Ok(*m),
            _ => self.err(n, format!("{}.{name} is not a node", self.g.kind(n))),
        }
    }

    fn int_field(&self, n: NodeId, name: &str) -> R<i64> {
        match self.field(n, name)? {
            Value::Int(v) => Ok(*v),
            _ => self.err(n, format!("{}.{name} is not an integer", self.g.kind(n))),
        }
    }

    fn str_field(&self, n: NodeId, name: &str) -> R<&str> {
        let v = self.field(n, name)?;
        match self.g.str_of(v) {
            Some(s) => Ok(s),
            None => self.err(n, format!("{}.{name} is not a string", self.g.kind(n))),
        }
    }

    fn nodes(&self, n: NodeId, name: &str) -> R<Vec<NodeId>> {
        match self.field(n, name)? {
            Value::Array(items) => self
                .g
                .items_of(*items)
                .iter()
                .map(|v| match v {
                    Value::Node(m) => Ok(*m),
                    _ => self.err(n, format!("{}.{name} holds a non-node", self.g.kind(n))),
                })
                .collect(),
            Value::Nil => Ok(Vec::new()),
            _ => self.err(n, format!("{}.{name} is not a list", self.g.kind(n))),
        }
    }

    fn program(&mut self) -> R<()> {
        let g = self.g;
        let root = g.root;
        if g.kind(root) != "Program" {
            return self.err(
                root,
                format!("the document holds a {}, not a Program", g.kind(root)),
            );
        }
        let name = self.str_field(root, "name")?.to_string();
        let mut funcs: Vec<(String, NodeId)> = Vec::new();
        if let Value::Array(entries) = self.field(root, "functions")? {
            for e in g.items_of(*entries) {
                let Some(Value::Node(f)) = g.entry(e, "value") else {
                    return self.err(root, "a functions entry without a Function");
                };
                funcs.push((self.str_field(*f, "name")?.to_string(), *f));
            }
        }
        funcs.sort();
        // Callee-first order, as PyPTO's printer emits functions.
        let by_name: FxHashMap<&str, NodeId> =
            funcs.iter().map(|(n, f)| (n.as_str(), *f)).collect();
        let mut order = Vec::new();
        let mut seen = FxHashSet::default();
        let mut walked = NodeSet::new(self.g);
        for (n, _) in &funcs {
            self.visit_fn(n, &by_name, &mut seen, &mut walked, &mut order)?;
        }
        let _ = writeln!(
            self.out,
            "# pypto.program: {name}\nimport pypto.language as pl\n"
        );
        let dynamic = self.free_vars(&order)?;
        if !dynamic.is_empty() {
            for d in &dynamic {
                let _ = writeln!(self.out, "{d} = pl.dynamic(\"{d}\")");
            }
            self.out.push('\n');
        }
        let _ = writeln!(self.out, "@pl.program\nclass {name}:");
        for f in order {
            self.function(f)?;
        }
        // PyPTO's dumps end without a newline.
        while self.out.ends_with('\n') {
            self.out.pop();
        }
        Ok(())
    }

    fn visit_fn(
        &self,
        name: &str,
        by_name: &FxHashMap<&str, NodeId>,
        seen: &mut FxHashSet<NodeId>,
        walked: &mut NodeSet,
        order: &mut Vec<NodeId>,
    ) -> R<()> {
        let Some(&f) = by_name.get(name) else {
            return Ok(());
        };
        if !seen.insert(f) {
            return Ok(());
        }
        let mut callees = BTreeSet::new();
        walked.clear();
        let g = self.g;
        let keys = ["Call", "Submit", "op", "is_global_var", "name"].map(|k| g_sym(g, k));
        self.callees(&Value::Node(f), &keys, &mut callees, walked);
        for c in callees {
            self.visit_fn(&c, by_name, seen, walked, order)?;
        }
        order.push(f);
        Ok(())
    }

    /// Names of the global functions called under `v`; `keys`: the
    /// symbols of `Call`, `Submit`, `op`, `is_global_var` and `name`.
    fn callees(&self, v: &Value, keys: &[Sym; 5], out: &mut BTreeSet<String>, seen: &mut NodeSet) {
        let g = self.g;
        let [call, submit, op_key, is_global_var, name] = *keys;
        match v {
            Value::Node(n) => {
                if !seen.insert(*n) {
                    return;
                }
                let node = g.node(*n);
                if node.kind == call || node.kind == submit {
                    if let Some(op) = g.field_sym(*n, op_key) {
                        if matches!(g.entry_sym(op, is_global_var), Some(Value::Bool(true))) {
                            if let Some(s) = g.entry_sym(op, name).and_then(|v| g.str_of(v)) {
                                out.insert(s.to_string());
                            }
                        }
                    }
                }
                for (_, f) in g.entries_of(node.fields) {
                    self.callees(f, keys, out, seen);
                }
            }
            Value::Array(items) => g
                .items_of(*items)
                .iter()
                .for_each(|x| self.callees(x, keys, out, seen)),
            Value::Map(entries) => g
                .entries_of(*entries)
                .iter()
                .for_each(|(_, x)| self.callees(x, keys, out, seen)),
            _ => {}
        }
    }

    /// Names of variables used but defined nowhere (PyPTO's `pl.dynamic`
    /// sizes), sorted.
    fn free_vars(&self, funcs: &[NodeId]) -> R<BTreeSet<String>> {
        let g = self.g;
        let mut defined = NodeSet::new(g);
        let mut used = NodeSet::new(g);
        let mut used_list = Vec::new();
        let mut seen = NodeSet::new(g);
        let defs = ["params", "var", "loop_var", "iter_args", "return_vars"].map(|k| g_sym(g, k));
        let vars = [g_sym(g, "Var"), g_sym(g, "IterArg")];
        let calls = [g_sym(g, "Call"), g_sym(g, "Submit")];
        let mut stack: Vec<NodeId> = funcs.to_vec();
        let mut nodes = Vec::new();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            let is_call = calls.contains(&g.node(n).kind);
            for (k, v) in g.fields(n) {
                nodes.clear();
                collect_nodes(g, v, &mut nodes);
                for &m in &nodes {
                    if vars.contains(&g.node(m).kind) {
                        if defs.contains(k) && !is_call {
                            defined.insert(m);
                        } else if used.insert(m) {
                            used_list.push(m);
                        }
                    }
                    stack.push(m);
                }
            }
        }
        let mut out = BTreeSet::new();
        for v in used_list {
            if defined.contains(v) {
                continue;
            }
            // MemRef roots (`pl.Ptr`) are not sizes.
            if let Some(t) = g.field(v, "type") {
                if g.entry(t, "type_kind").and_then(|k| g.str_of(k)) == Some("Ptr") {
                    continue;
                }
            }
            out.insert(self.str_field(v, "name_hint")?.to_string());
        }
        Ok(out)
    }

    fn function(&mut self, f: NodeId) -> R<()> {
        let g = self.g;
        let ft = self.int_field(f, "func_type").unwrap_or(0);
        let mut deco = Vec::new();
        if ft != 0 {
            deco.push(format!("type=pl.FunctionType.{}", function_type_name(ft)));
        }
        if let Some(Value::Int(l)) = g.field(f, "level") {
            if let Some(name) = level_name(*l) {
                deco.push(format!("level=pl.Level.{name}"));
            }
        }
        if let Some(Value::Int(r)) = g.field(f, "role") {
            deco.push(format!(
                "role=pl.Role.{}",
                if *r == 0 { "Orchestrator" } else { "SubWorker" }
            ));
        }
        if deco.is_empty() {
            self.out.push_str("    @pl.function\n");
        } else {
            let _ = writeln!(self.out, "    @pl.function({})", deco.join(", "));
        }
        let name = self.str_field(f, "name")?.to_string();
        let mut params = Vec::new();
        if !matches!(ft, 2..=5) {
            params.push("self".to_string());
        }
        let dirs: Vec<i64> = match g.field(f, "param_directions") {
            Some(Value::Array(d)) => g
                .items_of(*d)
                .iter()
                .map(|v| v.as_int().unwrap_or(0))
                .collect(),
            _ => Vec::new(),
        };
        for (i, p) in self.nodes(f, "params")?.into_iter().enumerate() {
            let ty = self.var_type(p)?;
            let ty = match dirs.get(i) {
                Some(1) => format!("pl.Out[{ty}]"),
                Some(2) => format!("pl.InOut[{ty}]"),
                _ => ty,
            };
            params.push(format!("{}: {ty}", self.str_field(p, "name_hint")?));
        }
        let rets = match self.field(f, "return_types")? {
            Value::Array(ts) => g
                .items_of(*ts)
                .iter()
                .map(|t| self.ty(t))
                .collect::<R<Vec<_>>>()?,
            _ => Vec::new(),
        };
        let ret = match rets.len() {
            0 => String::new(),
            1 => format!(" -> {}", rets[0]),
            _ => format!(" -> tuple[{}]", rets.join(", ")),
        };
        let _ = writeln!(self.out, "    def {name}({}){ret}:", params.join(", "));
        // The function's allocations, named bare in MemRefs.
        self.allocs.clear();
        let body = self.node_field(f, "body")?;
        self.find_allocs(body);
        if let Some(Value::Array(attrs)) = g.field(f, "attrs") {
            if !attrs.is_empty() {
                let items = g
                    .items_of(*attrs)
                    .iter()
                    .map(|a| {
                        let k = g.entry(a, "key").and_then(|k| g.str_of(k)).unwrap_or("");
                        let v = g.entry(a, "value").cloned().unwrap_or(Value::Nil);
                        Ok(format!("\"{k}\": {}", self.attr_value(k, &v)?))
                    })
                    .collect::<R<Vec<_>>>()?;
                let _ = writeln!(self.out, "        pl.func_attr({{{}}})", items.join(", "));
            }
        }
        self.block(body, 2, &[])
    }

    fn find_allocs(&mut self, body: NodeId) {
        let g = self.g;
        let [seq, assign, call_kind, stmts, value, op_key, name, var] = [
            "SeqStmts",
            "AssignStmt",
            "Call",
            "stmts",
            "value",
            "op",
            "name",
            "var",
        ]
        .map(|k| g_sym(g, k));
        let bodies = ["body", "then_body", "else_body"].map(|k| g_sym(g, k));
        // Whether each op name met is an allocation (one table lookup per
        // op, not per statement).
        let mut alloc_ops: FxHashMap<Sym, bool> = FxHashMap::default();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            let kind = g.node(n).kind;
            if kind == seq {
                if let Some(Value::Array(s)) = g.field_sym(n, stmts) {
                    stack.extend(g.items_of(*s).iter().filter_map(Value::as_node));
                }
            } else if kind == assign {
                let call = g.field_sym(n, value).and_then(Value::as_node);
                let is_alloc = call.is_some_and(|c| {
                    g.node(c).kind == call_kind
                        && g.field_sym(c, op_key)
                            .and_then(|op| g.entry_sym(op, name))
                            .and_then(Value::as_sym)
                            .is_some_and(|op| {
                                *alloc_ops.entry(op).or_insert_with(|| {
                                    crate::ops::has_class(
                                        g.syms.str(op),
                                        crate::ops::OpClass::Alloc,
                                    )
                                })
                            })
                });
                if let (true, Some(v)) = (is_alloc, g.field_sym(n, var).and_then(Value::as_node)) {
                    self.allocs.insert(v);
                }
            } else {
                for key in bodies {
                    if let Some(Value::Node(b)) = g.field_sym(n, key) {
                        stack.push(*b);
                    }
                }
            }
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
    }

    /// The statements of `body` (a SeqStmts or one statement); `results`
    /// are the variables a yield in it defines.
    fn block(&mut self, body: NodeId, depth: usize, results: &[NodeId]) -> R<()> {
        if self.g.kind(body) == "SeqStmts" {
            for s in self.nodes(body, "stmts")? {
                self.stmt(s, depth, results)?;
            }
            Ok(())
        } else {
            self.stmt(body, depth, results)
        }
    }

    /// Notes that statement `s` starts on the current line.
    fn mark(&mut self, s: NodeId) {
        self.line += self.out.as_bytes()[self.scanned..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.scanned = self.out.len();
        if self.lines.len() <= self.line {
            self.lines.resize(self.line + 1, None);
        }
        self.lines[self.line] = Some(s);
    }

    fn stmt(&mut self, s: NodeId, depth: usize, results: &[NodeId]) -> R<()> {
        let g = self.g;
        if let Some(Value::Array(comments)) = g.field(s, "leading_comments") {
            for c in g.items_of(*comments) {
                if let Some(text) = g.str_of(c) {
                    self.indent(depth);
                    let _ = writeln!(self.out, "# {text}");
                }
            }
        }
        if g.kind(s) != "SeqStmts" {
            self.mark(s);
        }
        match g.kind(s) {
            "AssignStmt" => {
                let v = self.node_field(s, "var")?;
                let value = self.expr(self.node_field(s, "value")?, 0, false)?;
                let line = format!(
                    "{}: {} = {value}",
                    self.str_field(v, "name_hint")?,
                    self.var_type(v)?
                );
                self.indent(depth);
                self.out.push_str(&line);
            }
            "EvalStmt" => {
                let e = self.expr(self.node_field(s, "expr")?, 0, false)?;
                self.indent(depth);
                self.out.push_str(&e);
            }
            "ReturnStmt" => {
                let vals = self.exprs(&self.nodes(s, "value")?)?;
                self.indent(depth);
                if vals.is_empty() {
                    self.out.push_str("return");
                } else {
                    let _ = write!(self.out, "return {}", vals.join(", "));
                }
            }
            "YieldStmt" => {
                let vals = self.exprs(&self.nodes(s, "value")?)?;
                let call = format!("pl.yield_({})", vals.join(", "));
                let line = match results {
                    [] => call,
                    [r] => format!(
                        "{}: {} = {call}",
                        self.str_field(*r, "name_hint")?,
                        self.var_type(*r)?
                    ),
                    rs => {
                        let names = rs
                            .iter()
                            .map(|r| self.str_field(*r, "name_hint").map(str::to_string))
                            .collect::<R<Vec<_>>>()?;
                        format!("{} = {call}", names.join(", "))
                    }
                };
                self.indent(depth);
                self.out.push_str(&line);
            }
            "ForStmt" => {
                let lv = self.node_field(s, "loop_var")?;
                let iter_args = self.nodes(s, "iter_args")?;
                let rvs = self.nodes(s, "return_vars")?;
                let start = self.expr(self.node_field(s, "start")?, 0, false)?;
                let stop = self.expr(self.node_field(s, "stop")?, 0, false)?;
                let step = self.expr(self.node_field(s, "step")?, 0, false)?;
                let mut args = if step != "1" {
                    vec![start, stop, step]
                } else if start != "0" {
                    vec![start, stop]
                } else {
                    vec![stop]
                };
                let mut names = Vec::new();
                let mut inits = Vec::new();
                for ia in &iter_args {
                    names.push(self.str_field(*ia, "name_hint")?.to_string());
                    inits.push(self.expr(self.node_field(*ia, "initValue")?, 0, false)?);
                }
                if !inits.is_empty() {
                    let comma = if inits.len() == 1 { "," } else { "" };
                    args.push(format!("init_values=({}{comma})", inits.join(", ")));
                }
                if let Some(Value::Array(attrs)) = g.field(s, "attrs") {
                    for a in g.items_of(*attrs) {
                        let k = g.entry(a, "key").and_then(|k| g.str_of(k)).unwrap_or("");
                        let v = g.entry(a, "value").cloned().unwrap_or(Value::Nil);
                        args.push(format!("{k}={}", self.kwarg_value(&v)?));
                    }
                }
                let kind = match self.int_field(s, "kind").unwrap_or(0) {
                    1 => "parallel",
                    2 => "unroll",
                    3 => "pipeline",
                    _ => "range",
                };
                let target = if names.is_empty() {
                    self.str_field(lv, "name_hint")?.to_string()
                } else {
                    let comma = if names.len() == 1 { "," } else { "" };
                    format!(
                        "{}, ({}{comma})",
                        self.str_field(lv, "name_hint")?,
                        names.join(", ")
                    )
                };
                self.indent(depth);
                let _ = write!(self.out, "for {target} in pl.{kind}({}):", args.join(", "));
                self.out.push('\n');
                let body = self.node_field(s, "body")?;
                self.block(body, depth + 1, &rvs)?;
                return Ok(());
            }
            "IfStmt" => {
                let cond = self.expr(self.node_field(s, "condition")?, 0, false)?;
                let rvs = self.nodes(s, "return_vars")?;
                self.indent(depth);
                let _ = writeln!(self.out, "if {cond}:");
                let then = self.node_field(s, "then_body")?;
                self.block(then, depth + 1, &rvs)?;
                if let Some(Value::Node(e)) = g.field(s, "else_body") {
                    self.indent(depth);
                    self.out.push_str("else:\n");
                    self.block(*e, depth + 1, &rvs)?;
                }
                return Ok(());
            }
            "RuntimeScopeStmt" => {
                let manual = matches!(g.field(s, "manual"), Some(Value::Bool(true)));
                self.indent(depth);
                self.out.push_str(if manual {
                    "with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
                } else {
                    "with pl.scope():\n"
                });
                let body = self.node_field(s, "body")?;
                return self.block(body, depth + 1, results);
            }
            "SeqStmts" => return self.block(s, depth, results),
            other => return self.err(s, format!("statement {other} is not printed yet")),
        }
        self.out.push('\n');
        Ok(())
    }

    fn exprs(&self, ns: &[NodeId]) -> R<Vec<String>> {
        ns.iter().map(|n| self.expr(*n, 0, false)).collect()
    }

    /// Expression `e` in a context binding at `prec`; `in_call` prints
    /// tuples as lists (PyPTO's call arguments).
    fn expr(&self, e: NodeId, prec: u8, in_call: bool) -> R<String> {
        let g = self.g;
        let kind = g.kind(e);
        let bin = |sym: &str, p: u8| -> R<String> {
            let l = self.expr(self.node_field(e, "left")?, p, false)?;
            let r = self.expr(self.node_field(e, "right")?, p + 1, false)?;
            let s = format!("{l} {sym} {r}");
            Ok(if p < prec { format!("({s})") } else { s })
        };
        Ok(match kind {
            "Var" | "IterArg" | "MemRef" => self.str_field(e, "name_hint")?.to_string(),
            "ConstInt" => {
                let v = self.int_field(e, "value")?;
                match self.const_dtype(e) {
                    0x15 => v.to_string(),
                    dt => format!("pl.const({v}, pl.{})", dtype_name(dt).unwrap_or("INT64")),
                }
            }
            "ConstFloat" => match self.field(e, "value")? {
                Value::Int(n) => float_text(*n as f64),
                Value::F64(x) => float_text(*x),
                Value::F32(x) => float_text(f64::from(*x)),
                _ => return self.err(e, "ConstFloat without a number"),
            },
            "ConstBool" => match self.field(e, "value")? {
                Value::Bool(true) => "True".into(),
                _ => "False".into(),
            },
            "MakeTuple" => {
                let items = self.exprs(&self.nodes(e, "elements")?)?;
                if in_call {
                    format!("[{}]", items.join(", "))
                } else if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            "TupleGetItemExpr" => format!(
                "{}[{}]",
                self.expr(self.node_field(e, "tuple")?, 13, false)?,
                self.int_field(e, "index")?
            ),
            "Call" | "Submit" => self.call(e)?,
            "Add" => bin("+", 9)?,
            "Sub" => bin("-", 9)?,
            "Mul" => bin("*", 10)?,
            "FloorDiv" => bin("//", 10)?,
            "FloorMod" => bin("%", 10)?,
            "FloatDiv" => bin("/", 10)?,
            "Pow" => bin("**", 12)?,
            "Eq" => bin("==", 4)?,
            "Ne" => bin("!=", 4)?,
            "Lt" => bin("<", 4)?,
            "Le" => bin("<=", 4)?,
            "Gt" => bin(">", 4)?,
            "Ge" => bin(">=", 4)?,
            "And" => bin("and", 2)?,
            "Or" => bin("or", 1)?,
            "BitAnd" => bin("&", 7)?,
            "BitOr" => bin("|", 5)?,
            "BitXor" | "Xor" => bin("^", 6)?,
            "BitShiftLeft" => bin("<<", 8)?,
            "BitShiftRight" => bin(">>", 8)?,
            "Min" | "Max" => format!(
                "pl.{}({}, {})",
                kind.to_ascii_lowercase(),
                self.expr(self.node_field(e, "left")?, 0, false)?,
                self.expr(self.node_field(e, "right")?, 0, false)?
            ),
            "Neg" => format!("-{}", self.expr(self.node_field(e, "operand")?, 11, false)?),
            "Not" => format!(
                "not {}",
                self.expr(self.node_field(e, "operand")?, 3, false)?
            ),
            "BitNot" => format!("~{}", self.expr(self.node_field(e, "operand")?, 11, false)?),
            "Abs" => format!(
                "pl.abs({})",
                self.expr(self.node_field(e, "operand")?, 0, false)?
            ),
            "Cast" => {
                let dt = self
                    .field(e, "type")
                    .ok()
                    .and_then(|t| g.entry(t, "dtype"))
                    .and_then(Value::as_int)
                    .and_then(dtype_name)
                    .unwrap_or("INDEX");
                format!(
                    "pl.cast({}, pl.{dt})",
                    self.expr(self.node_field(e, "operand")?, 0, false)?
                )
            }
            other => return self.err(e, format!("expression {other} is not printed yet")),
        })
    }

    /// The dtype code of a constant (INDEX when unwritten).
    fn const_dtype(&self, e: NodeId) -> i64 {
        let g = self.g;
        g.field(e, "type")
            .and_then(|t| g.entry(t, "dtype"))
            .and_then(Value::as_int)
            .unwrap_or(0x15)
    }

    fn call(&self, e: NodeId) -> R<String> {
        let g = self.g;
        let op = self.field(e, "op")?;
        let name = g.entry(op, "name").and_then(|s| g.str_of(s)).unwrap_or("");
        let submit = g.kind(e) == "Submit";
        let callee = if submit {
            "pl.submit".to_string()
        } else if matches!(g.entry(op, "is_global_var"), Some(Value::Bool(true))) {
            format!("self.{name}")
        } else if name.starts_with("pld.") {
            name.to_string()
        } else {
            format!("pl.{name}")
        };
        let mut args = Vec::new();
        if submit {
            args.push(format!("self.{name}"));
        }
        let mut trailing = Vec::new();
        for (i, a) in self.nodes(e, "args")?.into_iter().enumerate() {
            // A memory space is an integer in the IR, printed by name.
            let space = (crate::ops::arg_is_memory_space(name, i) && g.kind(a) == "ConstInt")
                .then(|| {
                    g.field(a, "value")
                        .and_then(Value::as_int)
                        .and_then(mem_space_name)
                })
                .flatten();
            let text = match space {
                Some(s) => format!("pl.Mem.{s}"),
                None => self.expr(a, 0, true)?,
            };
            if let Some(key) = crate::ops::printed_by_name(name, i) {
                trailing.push(format!("{key}={text}"));
            } else {
                args.push(text);
            }
        }
        if let Some(Value::Array(kw)) = g.field(e, "kwargs") {
            for k in g.items_of(*kw) {
                let key = g.entry(k, "key").and_then(|k| g.str_of(k)).unwrap_or("");
                let v = g.entry(k, "value").cloned().unwrap_or(Value::Nil);
                args.push(format!("{key}={}", self.kwarg_value(&v)?));
            }
        }
        args.extend(trailing);
        if submit {
            let deps = self.exprs(&self.nodes(e, "deps")?)?;
            if !deps.is_empty() {
                args.push(format!("deps=[{}]", deps.join(", ")));
            }
        }
        // Call attributes print as one `attrs={...}` keyword, last.
        if let Some(Value::Array(attrs)) = g.field(e, "attrs") {
            if !attrs.is_empty() {
                let items = g
                    .items_of(*attrs)
                    .iter()
                    .map(|a| {
                        let k = g.entry(a, "key").and_then(|k| g.str_of(k)).unwrap_or("");
                        let v = g.entry(a, "value").cloned().unwrap_or(Value::Nil);
                        let v = match &v {
                            Value::Str(s) => format!("\"{}\"", g.syms.str(*s)),
                            other => self.kwarg_value(other)?,
                        };
                        Ok(format!("\"{k}\": {v}"))
                    })
                    .collect::<R<Vec<_>>>()?;
                args.push(format!("attrs={{{}}}", items.join(", ")));
            }
        }
        Ok(format!("{callee}({})", args.join(", ")))
    }

    fn kwarg_value(&self, v: &Value) -> R<String> {
        let g = self.g;
        Ok(match v {
            Value::Nil => "None".into(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Int(n) => n.to_string(),
            Value::UInt(n) => n.to_string(),
            Value::F32(x) => float_text(f64::from(*x)),
            Value::F64(x) => float_text(*x),
            Value::Str(s) => format!("'{}'", g.syms.str(*s)),
            Value::Node(n) => self.expr(*n, 0, true)?,
            Value::Map(_) => {
                let ty = g.entry(v, "type").and_then(|t| g.str_of(t)).unwrap_or("");
                let inner = g.entry(v, "value");
                let text = inner.and_then(|x| g.str_of(x)).unwrap_or("");
                match ty {
                    "DataType" => {
                        let code = g.entry(v, "code").and_then(Value::as_int).unwrap_or(-1);
                        format!("pl.{}", dtype_name(code).unwrap_or("UNKNOWN"))
                    }
                    "MemorySpace" => format!("pl.Mem.{text}"),
                    "TensorLayout" => format!("pl.TensorLayout.{text}"),
                    "TileLayout" => format!("pl.TileLayout.{text}"),
                    "PadValue" => format!("pl.PadValue.{text}"),
                    "Var" | "Expr" => match inner {
                        Some(Value::Node(n)) => self.expr(*n, 0, true)?,
                        _ => "None".into(),
                    },
                    "VarList" => match inner {
                        Some(Value::Array(items)) => {
                            let parts = g
                                .items_of(*items)
                                .iter()
                                .map(|x| match x {
                                    Value::Node(n) => self.expr(*n, 0, true),
                                    _ => Ok("None".into()),
                                })
                                .collect::<R<Vec<_>>>()?;
                            format!("[{}]", parts.join(", "))
                        }
                        _ => "[]".into(),
                    },
                    _ => "None".into(),
                }
            }
            Value::Array(items) => {
                let parts = g
                    .items_of(*items)
                    .iter()
                    .map(|x| self.kwarg_value(x))
                    .collect::<R<Vec<_>>>()?;
                format!("[{}]", parts.join(", "))
            }
            Value::Bin(_) | Value::Span(_) => "None".into(),
        })
    }

    fn attr_value(&self, key: &str, v: &Value) -> R<String> {
        if key == "split" {
            if let Value::Int(n) = v {
                return Ok(format!(
                    "pl.SplitMode.{}",
                    match n {
                        1 => "UP_DOWN",
                        2 => "LEFT_RIGHT",
                        _ => "NONE",
                    }
                ));
            }
        }
        self.kwarg_value(v)
    }

    fn var_type(&self, v: NodeId) -> R<String> {
        let t = self.field(v, "type")?;
        self.ty(t)
    }

    fn dims(&self, v: Option<&Value>) -> R<String> {
        let mut parts = Vec::new();
        if let Some(Value::Array(items)) = v {
            for x in self.g.items_of(*items) {
                match x {
                    Value::Node(n) => parts.push(self.expr(*n, 0, false)?),
                    _ => parts.push("None".into()),
                }
            }
        }
        Ok(format!("[{}]", parts.join(", ")))
    }

    fn ty(&self, t: &Value) -> R<String> {
        let g = self.g;
        let kind = g
            .entry(t, "type_kind")
            .and_then(|k| g.str_of(k))
            .unwrap_or("");
        let dtype = || {
            g.entry(t, "dtype")
                .and_then(Value::as_int)
                .and_then(dtype_name)
                .map(|d| format!("pl.{d}"))
                .unwrap_or_else(|| "pl.UNKNOWN".into())
        };
        Ok(match kind {
            "ScalarType" => format!("pl.Scalar[{}]", dtype()),
            "Ptr" => "pl.Ptr".into(),
            "UnknownType" => "pl.UnknownType".into(),
            "CommCtxType" => "pld.CommCtxType".into(),
            "TupleType" => {
                let parts = match g.entry(t, "types") {
                    Some(Value::Array(ts)) => g
                        .items_of(*ts)
                        .iter()
                        .map(|x| self.ty(x))
                        .collect::<R<Vec<_>>>()?,
                    _ => Vec::new(),
                };
                format!("pl.Tuple[{}]", parts.join(", "))
            }
            "ArrayType" => {
                let n = match g.entry(t, "shape").and_then(|v| g.items(v)) {
                    Some([Value::Node(n)]) => self.expr(*n, 0, false)?,
                    _ => "0".into(),
                };
                format!("pl.Array[{n}, {}]", dtype())
            }
            "TensorType" | "DistributedTensorType" => {
                let mut parts = vec![self.dims(g.entry(t, "shape"))?, dtype()];
                if let Some(tv) = g
                    .entry(t, "tensor_view")
                    .filter(|v| !matches!(v, Value::Nil))
                {
                    parts.push(self.tensor_view(tv)?);
                }
                if let Some(m) = g.entry(t, "memref").filter(|v| !matches!(v, Value::Nil)) {
                    parts.push(self.memref(m)?);
                }
                let head = if kind == "TensorType" {
                    "pl.Tensor"
                } else {
                    "pld.DistributedTensor"
                };
                format!("{head}[{}]", parts.join(", "))
            }
            "TileType" => {
                let mut parts = vec![self.dims(g.entry(t, "shape"))?, dtype()];
                if let Some(m) = g.entry(t, "memref").filter(|v| !matches!(v, Value::Nil)) {
                    parts.push(self.memref(m)?);
                }
                let space = g.entry(t, "memory_space").and_then(Value::as_int);
                if let Some(s) = space.and_then(mem_space_name) {
                    parts.push(format!("pl.Mem.{s}"));
                }
                parts.push(self.tile_view(t, g.entry(t, "tile_view"))?);
                format!("pl.Tile[{}]", parts.join(", "))
            }
            other => format!("pl.{other}"),
        })
    }

    fn memref(&self, m: &Value) -> R<String> {
        let g = self.g;
        let base = match g.entry(m, "base_node") {
            Some(Value::Node(b)) if self.allocs.contains(b) => {
                self.str_field(*b, "name_hint")?.to_string()
            }
            _ => format!(
                "\"{}\"",
                g.entry(m, "base").and_then(|b| g.str_of(b)).unwrap_or("")
            ),
        };
        let offset = match g.entry(m, "byte_offset") {
            Some(Value::Node(o)) if g.kind(*o) == "ConstInt" => {
                let dt = g
                    .field(*o, "type")
                    .and_then(|t| g.entry(t, "dtype"))
                    .and_then(Value::as_int)
                    .unwrap_or(0x15);
                let v = self.int_field(*o, "value")?;
                if dt == 0x15 {
                    v.to_string()
                } else {
                    format!("pl.const({v}, pl.{})", dtype_name(dt).unwrap_or("INT64"))
                }
            }
            Some(Value::Node(o)) => self.expr(*o, 0, false)?,
            _ => "0".into(),
        };
        let size = g.entry(m, "size").and_then(Value::as_int).unwrap_or(0);
        let mut s = format!("pl.MemRef({base}, {offset}, {size}");
        if let Some(Value::Int(n)) = g.entry(m, "slot_count") {
            let _ = write!(s, ", slots={n}");
        }
        s.push(')');
        if let Some(Value::Node(i)) = g.entry(m, "slot_index") {
            let _ = write!(s, "[{}]", self.expr(*i, 0, false)?);
        }
        Ok(s)
    }

    fn tensor_view(&self, tv: &Value) -> R<String> {
        let g = self.g;
        let mut parts = Vec::new();
        if let Some(Value::Array(vs)) = g.entry(tv, "valid_shape") {
            if !vs.is_empty() {
                parts.push(format!(
                    "valid_shape={}",
                    self.dims(g.entry(tv, "valid_shape"))?
                ));
            }
        }
        if let Some(Value::Array(st)) = g.entry(tv, "stride") {
            if !st.is_empty() {
                parts.push(format!("stride={}", self.dims(g.entry(tv, "stride"))?));
            }
        }
        let layout = g
            .entry(tv, "layout")
            .and_then(|l| g.str_of(l))
            .unwrap_or("ND");
        parts.push(format!("layout=pl.TensorLayout.{layout}"));
        if let Some(p) = g
            .entry(tv, "pad")
            .and_then(|p| g.str_of(p))
            .filter(|p| *p != "null")
        {
            parts.push(format!("pad=pl.PadValue.{p}"));
        }
        Ok(format!("pl.TensorView({})", parts.join(", ")))
    }

    /// A tile's view, written out in full as PyPTO's printer does; a tile
    /// without one prints the view its shape implies.
    fn tile_view(&self, t: &Value, tv: Option<&Value>) -> R<String> {
        let g = self.g;
        let mut parts = Vec::new();
        let tv = tv.filter(|v| !matches!(v, Value::Nil));
        let (blayout, slayout, fractal) = match tv {
            Some(tv) => {
                if let Some(Value::Array(vs)) = g.entry(tv, "valid_shape") {
                    let same =
                        g.entry(t, "shape").and_then(|v| g.items(v)) == Some(g.items_of(*vs));
                    if !vs.is_empty() && !same {
                        parts.push(format!(
                            "valid_shape={}",
                            self.dims(g.entry(tv, "valid_shape"))?
                        ));
                    }
                }
                if let Some(Value::Array(st)) = g.entry(tv, "stride") {
                    if !st.is_empty() {
                        parts.push(format!("stride={}", self.dims(g.entry(tv, "stride"))?));
                    }
                }
                if let Some(Value::Node(o)) = g.entry(tv, "start_offset") {
                    parts.push(format!("start_offset={}", self.expr(*o, 0, false)?));
                }
                (
                    g.entry(tv, "blayout")
                        .and_then(|s| g.str_of(s))
                        .unwrap_or("row_major")
                        .to_string(),
                    g.entry(tv, "slayout")
                        .and_then(|s| g.str_of(s))
                        .unwrap_or("none_box")
                        .to_string(),
                    g.entry(tv, "fractal")
                        .and_then(Value::as_int)
                        .unwrap_or(512),
                )
            }
            None => {
                // The layout each memory space implies (PyPTO's default
                // views: boxed for the cube's buffers, a column vector
                // column-major in Vec).
                let space = g.entry(t, "memory_space").and_then(Value::as_int);
                let (b, s, f) = match space {
                    Some(2 | 3) => ("col_major", "row_major", 512),
                    Some(4) => ("row_major", "col_major", 512),
                    Some(5) => ("col_major", "row_major", 1024),
                    _ => {
                        let shape = g.entry(t, "shape").and_then(|v| g.items(v)).unwrap_or(&[]);
                        let one = |v: &Value| matches!(v, Value::Node(n) if g.kind(*n) == "ConstInt" && g.field(*n, "value") == Some(&Value::Int(1)));
                        let col = shape.len() == 2 && one(&shape[1]) && !one(&shape[0]);
                        (if col { "col_major" } else { "row_major" }, "none_box", 512)
                    }
                };
                (b.to_string(), s.to_string(), f)
            }
        };
        parts.push(format!("blayout=pl.TileLayout.{blayout}"));
        parts.push(format!("slayout=pl.TileLayout.{slayout}"));
        parts.push(format!("fractal={fractal}"));
        if let Some(tv) = tv {
            if let Some(p) = g
                .entry(tv, "pad")
                .and_then(|p| g.str_of(p))
                .filter(|p| *p != "null")
            {
                parts.push(format!("pad=pl.PadValue.{p}"));
            }
            if let Some(c) = g
                .entry(tv, "compact")
                .and_then(|p| g.str_of(p))
                .filter(|p| *p != "null")
            {
                parts.push(format!("compact=pl.CompactMode.{c}"));
            }
        }
        Ok(format!("pl.TileView({})", parts.join(", ")))
    }
}

/// The nodes directly in `v` (not inside other nodes).
fn collect_nodes(g: &Graph, v: &Value, out: &mut Vec<NodeId>) {
    match v {
        Value::Node(n) => out.push(*n),
        Value::Array(items) => g
            .items_of(*items)
            .iter()
            .for_each(|x| collect_nodes(g, x, out)),
        Value::Map(entries) => g
            .entries_of(*entries)
            .iter()
            .for_each(|(_, x)| collect_nodes(g, x, out)),
        _ => {}
    }
}

/// The symbol of `s` in `g`, or one that names nothing of `g` when the
/// document has no such string (compares unequal to every symbol of it).
fn g_sym(g: &Graph, s: &str) -> Sym {
    g.syms.get(s).unwrap_or(Sym(u32::MAX))
}
