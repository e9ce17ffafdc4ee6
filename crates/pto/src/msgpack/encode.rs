//! Writing a [`Graph`] as PyPTO's serializer does, byte for byte.
//!
//! PyPTO's `IRSerializer` walks the IR in the order of each node's
//! `GetFieldDescriptors()` (and, inside types, the order of its
//! `SerializeType`/`SerializeMemRef`/`SerializeTileView`), numbers each
//! object the first time it meets it, writes it whole there and as
//! `{"ref": id}` everywhere else; it then emits every map with its keys
//! sorted (it builds `std::map`s). So writing takes two walks: one in
//! PyPTO's visiting order (`field_rank`, `map_rank`) that numbers the nodes and
//! notes which occurrence defines each, and one in key order that writes
//! the bytes. Integers are written in their shortest form, as msgpack-c
//! does (a float is written as it was read).

use super::graph::{Graph, NodeId, Span, Sym, Value};

/// Deepest node nesting the writer follows (a read document nests at most
/// [`super::decode::MAX_DEPTH`] levels; a graph whose definitions chain
/// deeper than this through references is refused rather than risking the
/// stack).
pub const MAX_WRITE_DEPTH: usize = 4096;

/// Why a graph could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

/// The order in which PyPTO's serializer visits the fields of a node of
/// kind `kind` (from the nodes' `GetFieldDescriptors()`): a rank per field
/// name, lower first; fields it does not know come last, by name.
fn field_rank(kind: &str, field: &str) -> u8 {
    // Every node starts with IRNode's span, then Expr's type or Stmt's
    // leading comments.
    const HEAD: [&str; 3] = ["span", "type", "leading_comments"];
    if let Some(i) = HEAD.iter().position(|f| *f == field) {
        return i as u8;
    }
    let own: &[&str] = match kind {
        "Var" => &["name_hint"],
        "IterArg" => &["name_hint", "initValue"],
        "MemRef" => &[
            "name_hint",
            "base",
            "byte_offset",
            "size",
            "is_pinned",
            "slot_count",
            "slot_index",
        ],
        "WindowBuffer" => &[
            "name_hint",
            "base",
            "size",
            "load_from_host",
            "store_to_host",
        ],
        "Call" => &["op", "args", "attrs", "kwargs"],
        "Submit" => &[
            "op",
            "args",
            "deps",
            "core_num",
            "sync_start",
            "allow_early_resolve",
            "predicate",
            "attrs",
            "kwargs",
        ],
        "MakeTuple" => &["elements"],
        "TupleGetItemExpr" => &["tuple", "index"],
        "ConstInt" | "ConstFloat" | "ConstBool" => &["value"],
        "AssignStmt" => &["var", "value"],
        "IfStmt" => &["condition", "then_body", "else_body", "return_vars"],
        "YieldStmt" | "ReturnStmt" => &["value"],
        "ForStmt" => &[
            "loop_var",
            "start",
            "stop",
            "step",
            "iter_args",
            "body",
            "return_vars",
            "kind",
            "attrs",
        ],
        "WhileStmt" => &["iter_args", "condition", "body", "return_vars"],
        "InCoreScopeStmt" => &["name_hint", "body", "attrs", "split"],
        "HierarchyScopeStmt" => &["name_hint", "body", "attrs", "level", "role"],
        "SpmdScopeStmt" => &["name_hint", "body", "attrs", "core_num", "sync_start"],
        "SplitAivScopeStmt" => &["name_hint", "body", "attrs", "split", "count"],
        "RuntimeScopeStmt" => &["name_hint", "body", "attrs", "manual"],
        "CommDomainScopeStmt" => &["name_hint", "body", "attrs", "devices", "slots"],
        "ClusterScopeStmt" => &["name_hint", "body", "attrs"],
        "SeqStmts" => &["stmts"],
        "EvalStmt" => &["expr"],
        "InlineStmt" => &["body", "language"],
        "Function" => &[
            "params",
            "param_directions",
            "func_type",
            "level",
            "role",
            "attrs",
            "requires_runtime_binding",
            "return_types",
            "body",
            "name",
        ],
        "Program" => &["name", "functions"],
        // Binary and unary expressions.
        _ => &["left", "right", "operand"],
    };
    match own.iter().position(|f| *f == field) {
        Some(i) => 3 + i as u8,
        None => u8::MAX,
    }
}

/// The visiting order of the entries of a plain map reached through key
/// `via` (types, MemRefs, tile and tensor views, kwargs), as ranks.
fn map_rank(via: &str, is_type: bool, key: &str) -> u8 {
    let order: &[&str] = if is_type {
        // SerializeType: shape (or a tuple's types), then the MemRef, then
        // the view, then a distributed tensor's window buffer.
        &[
            "shape",
            "types",
            "memref",
            "tensor_view",
            "tile_view",
            "window_buffer",
        ]
    } else {
        match via {
            "memref" => &["base_node", "byte_offset", "slot_index"],
            "tile_view" => &["valid_shape", "stride", "start_offset"],
            "tensor_view" => &["stride", "valid_shape"],
            // `{"key": k, "value": v}` pairs of kwargs, attrs, functions.
            _ => &["key", "value"],
        }
    };
    order
        .iter()
        .position(|k| *k == key)
        .map_or(u8::MAX, |i| i as u8)
}

/// Writes `g` as PyPTO's serializer would.
pub fn write(g: &Graph) -> Result<Vec<u8>, EncodeError> {
    let mut n = Numbering {
        g,
        ids: vec![u32::MAX; g.nodes.len()],
        def_site: vec![0; g.nodes.len()],
        next: 0,
        type_kind: g.syms.get("type_kind"),
        depth: 0,
    };
    n.ids[g.root.index()] = 0;
    n.next = 1;
    n.node(g.root)?;
    let mut w = Writer {
        g,
        n: &n,
        out: Vec::with_capacity(g.nodes.len() * 64),
        sorted: SortedKeys::new(g),
    };
    w.node(g.root);
    Ok(w.out)
}

/// The first walk: node ids in PyPTO's visiting order.
struct Numbering<'a> {
    g: &'a Graph,
    /// Id per node (`u32::MAX`: not met yet).
    ids: Vec<u32>,
    /// Address of the [`Value::Node`] occurrence that defines each node.
    def_site: Vec<usize>,
    next: u32,
    type_kind: Option<Sym>,
    depth: usize,
}

impl Numbering<'_> {
    fn node(&mut self, n: NodeId) -> Result<(), EncodeError> {
        self.depth += 1;
        if self.depth > MAX_WRITE_DEPTH {
            return Err(EncodeError(format!(
                "node definitions nest more than {MAX_WRITE_DEPTH} levels deep"
            )));
        }
        let g = self.g;
        let node = g.node(n);
        let kind = g.syms.str(node.kind);
        let mut order: Vec<(u8, &str, &Value)> = node
            .fields
            .iter()
            .map(|(k, v)| {
                let name = g.syms.str(*k);
                (field_rank(kind, name), name, v)
            })
            .collect();
        order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (_, name, v) in order {
            self.value(v, name)?;
        }
        self.depth -= 1;
        Ok(())
    }

    fn value(&mut self, v: &Value, via: &str) -> Result<(), EncodeError> {
        match v {
            Value::Node(n) if self.ids[n.index()] == u32::MAX => {
                self.ids[n.index()] = self.next;
                self.next += 1;
                self.def_site[n.index()] = v as *const Value as usize;
                self.node(*n)?;
            }
            Value::Array(items) => {
                for x in items.iter() {
                    self.value(x, via)?;
                }
            }
            Value::Map(entries) => {
                let is_type = self
                    .type_kind
                    .is_some_and(|tk| entries.iter().any(|(k, _)| *k == tk));
                let g = self.g;
                let mut order: Vec<(u8, &str, &Value)> = entries
                    .iter()
                    .map(|(k, v)| {
                        let name = g.syms.str(*k);
                        (map_rank(via, is_type, name), name, v)
                    })
                    .collect();
                order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
                for (_, name, v) in order {
                    self.value(v, name)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Key order of a map as written: byte order of the names.
struct SortedKeys {
    /// Rank of each symbol among all symbols in byte order.
    rank: Vec<u32>,
}

impl SortedKeys {
    fn new(g: &Graph) -> SortedKeys {
        let count = g.syms.len();
        let mut all: Vec<u32> = (0..count as u32).collect();
        all.sort_by(|&a, &b| g.syms.str(Sym(a)).cmp(g.syms.str(Sym(b))));
        let mut rank = vec![0; count];
        for (r, s) in all.into_iter().enumerate() {
            rank[s as usize] = r as u32;
        }
        SortedKeys { rank }
    }
}

/// The second walk: the bytes.
struct Writer<'a> {
    g: &'a Graph,
    n: &'a Numbering<'a>,
    out: Vec<u8>,
    sorted: SortedKeys,
}

impl Writer<'_> {
    fn node(&mut self, n: NodeId) {
        let g = self.g;
        let node = g.node(n);
        // {"fields": {...}, "id": N, "type": KIND}
        self.map_len(3);
        self.str("fields");
        self.entries(&node.fields);
        self.str("id");
        self.uint(u64::from(self.n.ids[n.index()]));
        self.str("type");
        self.sym(node.kind);
    }

    fn entries(&mut self, entries: &[(Sym, Value)]) {
        self.map_len(entries.len());
        let sorted = entries
            .windows(2)
            .all(|w| self.sorted.rank[w[0].0 .0 as usize] <= self.sorted.rank[w[1].0 .0 as usize]);
        if sorted {
            for (k, v) in entries {
                self.sym(*k);
                self.value(v);
            }
        } else {
            let mut order: Vec<&(Sym, Value)> = entries.iter().collect();
            order.sort_by_key(|(k, _)| self.sorted.rank[k.0 as usize]);
            for (k, v) in order {
                self.sym(*k);
                self.value(v);
            }
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Nil => self.out.push(0xc0),
            Value::Bool(b) => self.out.push(if *b { 0xc3 } else { 0xc2 }),
            Value::Int(n) => {
                let _ = rmp::encode::write_sint(&mut self.out, *n);
            }
            Value::UInt(n) => self.uint(*n),
            Value::F32(x) => {
                let _ = rmp::encode::write_f32(&mut self.out, *x);
            }
            Value::F64(x) => {
                let _ = rmp::encode::write_f64(&mut self.out, *x);
            }
            Value::Str(s) => self.sym(*s),
            Value::Bin(b) => {
                let _ = rmp::encode::write_bin(&mut self.out, b);
            }
            Value::Span(s) => self.span(s),
            Value::Array(items) => {
                let _ = rmp::encode::write_array_len(&mut self.out, items.len() as u32);
                for x in items.iter() {
                    self.value(x);
                }
            }
            Value::Map(entries) => self.entries(entries),
            Value::Node(n) => {
                if self.n.def_site[n.index()] == v as *const Value as usize {
                    self.node(*n);
                } else {
                    self.map_len(1);
                    self.str("ref");
                    self.uint(u64::from(self.n.ids[n.index()]));
                }
            }
        }
    }

    fn span(&mut self, s: &Span) {
        self.map_len(5);
        self.str("begin_column");
        self.int(s.begin_column);
        self.str("begin_line");
        self.int(s.begin_line);
        self.str("end_column");
        self.int(s.end_column);
        self.str("end_line");
        self.int(s.end_line);
        self.str("filename");
        self.sym(s.file);
    }

    fn int(&mut self, n: i32) {
        let _ = rmp::encode::write_sint(&mut self.out, i64::from(n));
    }

    fn uint(&mut self, n: u64) {
        let _ = rmp::encode::write_uint(&mut self.out, n);
    }

    fn map_len(&mut self, n: usize) {
        let _ = rmp::encode::write_map_len(&mut self.out, n as u32);
    }

    fn str(&mut self, s: &str) {
        let _ = rmp::encode::write_str(&mut self.out, s);
    }

    fn sym(&mut self, s: Sym) {
        let g = self.g;
        self.str(g.syms.str(s));
    }
}
