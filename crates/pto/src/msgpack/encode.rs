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

use rustc_hash::FxHashMap;

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
///
/// A node's definition is written where the first walk met it, found
/// again by the node whose fields hold that occurrence and the address of
/// the value: so nodes may share arrays and maps (a rebuilt node keeps its
/// original's shape array), but one node's fields must not reach the same
/// array or map twice (as the reader builds graphs and `Graph::copy`
/// keeps them). A graph that breaks this (a node that would be defined
/// twice) is an error, never a wrong document.
pub fn write(g: &Graph) -> Result<Vec<u8>, EncodeError> {
    let mut n = Numbering {
        g,
        ids: vec![u32::MAX; g.nodes.len()],
        def_site: vec![(u32::MAX, 0); g.nodes.len()],
        holder: g.root,
        next: 0,
        type_kind: g.syms.get("type_kind"),
        orders: FxHashMap::default(),
        depth: 0,
    };
    n.ids[g.root.index()] = 0;
    n.next = 1;
    n.node(g.root)?;
    let mut w = Writer {
        g,
        n: &n,
        out: Vec::with_capacity(g.nodes.len() * 100),
        sorted: SortedKeys::new(g),
        written: vec![false; g.nodes.len()],
        holder: g.root,
        keys: FixedKeys::new(),
    };
    w.node(g.root)?;
    Ok(w.out)
}

/// What decides the visiting order of a node's fields or a map's entries
/// besides their keys: the node's kind, or the key a plain map is reached
/// through (types: any key).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum OrderOf {
    Node(Sym),
    Map(Sym),
    Type,
}

/// The visiting order last computed for one [`OrderOf`]: for the keys
/// `keys` (in stored order), the positions of the entries in visiting
/// order. Nodes of one kind nearly always have the same fields, so one
/// remembered order per kind saves a sort per node.
struct Order {
    keys: Vec<Sym>,
    positions: Vec<u32>,
}

/// The first walk: node ids in PyPTO's visiting order.
struct Numbering<'a> {
    g: &'a Graph,
    /// Id per node (`u32::MAX`: not met yet).
    ids: Vec<u32>,
    /// The occurrence that defines each node: the node whose fields hold
    /// it and the address of its [`Value::Node`].
    def_site: Vec<(u32, usize)>,
    /// The node whose fields are being walked.
    holder: NodeId,
    next: u32,
    type_kind: Option<Sym>,
    /// The last visiting order computed for each [`OrderOf`].
    orders: FxHashMap<OrderOf, Order>,
    depth: usize,
}

/// Most fields or map entries visited without a heap allocation.
const INLINE: usize = 16;

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
        let fields = g.entries_of(node.fields);
        let outer = std::mem::replace(&mut self.holder, n);
        self.visit(OrderOf::Node(node.kind), fields)?;
        self.holder = outer;
        self.depth -= 1;
        Ok(())
    }

    /// Visits `entries` (a node's fields or a map's entries) in the order
    /// `of` and their keys give.
    fn visit(&mut self, of: OrderOf, entries: &[(Sym, Value)]) -> Result<(), EncodeError> {
        let fresh = match self.orders.get(&of) {
            Some(o) => !o.keys.iter().copied().eq(entries.iter().map(|(k, _)| *k)),
            None => true,
        };
        if fresh {
            let order = self.order(of, entries);
            self.orders.insert(of, order);
        }
        let positions = &self.orders[&of].positions;
        // The positions leave `self` before the walk goes on (it needs
        // `self` mutably).
        let mut inline = [0u32; INLINE];
        let heap: Vec<u32>;
        let positions: &[u32] = if positions.len() <= INLINE {
            inline[..positions.len()].copy_from_slice(positions);
            &inline[..positions.len()]
        } else {
            heap = positions.clone();
            &heap
        };
        for &i in positions {
            let (k, v) = &entries[i as usize];
            self.value(v, *k)?;
        }
        Ok(())
    }

    /// The visiting order of `entries` (see [`field_rank`], [`map_rank`]):
    /// by rank, then by name.
    fn order(&self, of: OrderOf, entries: &[(Sym, Value)]) -> Order {
        let syms = &self.g.syms;
        let mut ranked: Vec<(u8, &str, u32)> = entries
            .iter()
            .enumerate()
            .map(|(i, (k, _))| {
                let name = syms.str(*k);
                let rank = match of {
                    OrderOf::Node(kind) => field_rank(syms.str(kind), name),
                    OrderOf::Map(via) => map_rank(syms.str(via), false, name),
                    OrderOf::Type => map_rank("", true, name),
                };
                (rank, name, i as u32)
            })
            .collect();
        ranked.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        Order {
            keys: entries.iter().map(|(k, _)| *k).collect(),
            positions: ranked.into_iter().map(|(_, _, i)| i).collect(),
        }
    }

    fn value(&mut self, v: &Value, via: Sym) -> Result<(), EncodeError> {
        match v {
            Value::Node(n) if self.ids[n.index()] == u32::MAX => {
                self.ids[n.index()] = self.next;
                self.next += 1;
                self.def_site[n.index()] = (self.holder.0, v as *const Value as usize);
                self.node(*n)?;
            }
            Value::Array(items) => {
                for x in self.g.items_of(*items) {
                    self.value(x, via)?;
                }
            }
            Value::Map(entries) => {
                let g = self.g;
                let entries = g.entries_of(*entries);
                // Maps of plain values (spans are not maps here; kwargs of
                // scalars, layouts) hold no node: nothing to number.
                if !entries
                    .iter()
                    .any(|(_, v)| matches!(v, Value::Node(_) | Value::Array(_) | Value::Map(_)))
                {
                    return Ok(());
                }
                let is_type = self
                    .type_kind
                    .is_some_and(|tk| entries.iter().any(|(k, _)| *k == tk));
                let of = if is_type {
                    OrderOf::Type
                } else {
                    OrderOf::Map(via)
                };
                self.visit(of, entries)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Key order of a map as written (byte order of the names), and every
/// string already encoded.
struct SortedKeys {
    /// Rank of each symbol among all symbols in byte order.
    rank: Vec<u32>,
    /// The MessagePack encoding of every symbol, back to back.
    encoded: Vec<u8>,
    /// End of each symbol's encoding in `encoded`.
    ends: Vec<u32>,
}

impl SortedKeys {
    fn new(g: &Graph) -> SortedKeys {
        let count = g.syms.len();
        let mut all: Vec<u32> = (0..count as u32).collect();
        all.sort_unstable_by(|&a, &b| g.syms.str(Sym(a)).cmp(g.syms.str(Sym(b))));
        let mut rank = vec![0; count];
        for (r, s) in all.into_iter().enumerate() {
            rank[s as usize] = r as u32;
        }
        let mut encoded = Vec::new();
        let mut ends = Vec::with_capacity(count);
        for s in 0..count {
            let _ = rmp::encode::write_str(&mut encoded, g.syms.str(Sym(s as u32)));
            ends.push(encoded.len() as u32);
        }
        SortedKeys {
            rank,
            encoded,
            ends,
        }
    }

    /// The encoding of `s`.
    fn encoded(&self, s: Sym) -> &[u8] {
        let i = s.0 as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.encoded[start..self.ends[i] as usize]
    }
}

/// The encoded form of the keys every node and span writes.
struct FixedKeys {
    node_head: Vec<u8>,
    id: Vec<u8>,
    ty: Vec<u8>,
    reference: Vec<u8>,
    span: [Vec<u8>; 5],
}

fn encoded_str(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = rmp::encode::write_str(&mut out, s);
    out
}

impl FixedKeys {
    fn new() -> FixedKeys {
        let mut node_head = Vec::new();
        let _ = rmp::encode::write_map_len(&mut node_head, 3);
        node_head.extend(encoded_str("fields"));
        let mut reference = Vec::new();
        let _ = rmp::encode::write_map_len(&mut reference, 1);
        reference.extend(encoded_str("ref"));
        let mut span0 = Vec::new();
        let _ = rmp::encode::write_map_len(&mut span0, 5);
        span0.extend(encoded_str("begin_column"));
        FixedKeys {
            node_head,
            id: encoded_str("id"),
            ty: encoded_str("type"),
            reference,
            span: [
                span0,
                encoded_str("begin_line"),
                encoded_str("end_column"),
                encoded_str("end_line"),
                encoded_str("filename"),
            ],
        }
    }
}

/// The second walk: the bytes.
struct Writer<'a> {
    g: &'a Graph,
    n: &'a Numbering<'a>,
    out: Vec<u8>,
    sorted: SortedKeys,
    /// Whether each node's definition was written.
    written: Vec<bool>,
    /// The node whose fields are being written.
    holder: NodeId,
    keys: FixedKeys,
}

impl Writer<'_> {
    fn node(&mut self, n: NodeId) -> Result<(), EncodeError> {
        if std::mem::replace(&mut self.written[n.index()], true) {
            return Err(EncodeError(format!(
                "node {} ({}) would be defined twice: one node's fields reach an array or map of the graph twice",
                n.index(),
                self.g.kind(n)
            )));
        }
        let g = self.g;
        let node = *g.node(n);
        // {"fields": {...}, "id": N, "type": KIND}
        self.out.extend_from_slice(&self.keys.node_head);
        let outer = std::mem::replace(&mut self.holder, n);
        self.entries(g.entries_of(node.fields))?;
        self.holder = outer;
        self.out.extend_from_slice(&self.keys.id);
        self.uint(u64::from(self.n.ids[n.index()]));
        self.out.extend_from_slice(&self.keys.ty);
        self.sym(node.kind);
        Ok(())
    }

    fn entries(&mut self, entries: &[(Sym, Value)]) -> Result<(), EncodeError> {
        self.map_len(entries.len());
        let rank = &self.sorted.rank;
        let sorted = entries
            .windows(2)
            .all(|w| rank[w[0].0 .0 as usize] <= rank[w[1].0 .0 as usize]);
        if sorted {
            for (k, v) in entries {
                self.sym(*k);
                self.value(v)?;
            }
        } else {
            let mut order: Vec<&(Sym, Value)> = entries.iter().collect();
            order.sort_by_key(|(k, _)| rank[k.0 as usize]);
            for (k, v) in order {
                self.sym(*k);
                self.value(v)?;
            }
        }
        Ok(())
    }

    fn value(&mut self, v: &Value) -> Result<(), EncodeError> {
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
                let _ = rmp::encode::write_bin(&mut self.out, self.g.bytes(*b));
            }
            Value::Span(s) => {
                let g = self.g;
                self.span(g.span(*s));
            }
            Value::Array(items) => {
                let g = self.g;
                let items = g.items_of(*items);
                let _ = rmp::encode::write_array_len(&mut self.out, items.len() as u32);
                for x in items {
                    self.value(x)?;
                }
            }
            Value::Map(entries) => {
                let g = self.g;
                self.entries(g.entries_of(*entries))?;
            }
            Value::Node(n) => {
                if self.n.def_site[n.index()] == (self.holder.0, v as *const Value as usize) {
                    self.node(*n)?;
                } else {
                    self.out.extend_from_slice(&self.keys.reference);
                    self.uint(u64::from(self.n.ids[n.index()]));
                }
            }
        }
        Ok(())
    }

    fn span(&mut self, s: &Span) {
        self.out.extend_from_slice(&self.keys.span[0]);
        self.int(s.begin_column);
        self.out.extend_from_slice(&self.keys.span[1]);
        self.int(s.begin_line);
        self.out.extend_from_slice(&self.keys.span[2]);
        self.int(s.end_column);
        self.out.extend_from_slice(&self.keys.span[3]);
        self.int(s.end_line);
        self.out.extend_from_slice(&self.keys.span[4]);
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

    fn sym(&mut self, s: Sym) {
        self.out.extend_from_slice(self.sorted.encoded(s));
    }
}
