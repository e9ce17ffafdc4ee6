//! The node graph of a PyPTO MessagePack document, kept whole.
//!
//! PyPTO writes every IR node as `{"id": N, "type": KIND, "fields": {...}}`
//! the first time it meets the object and `{"ref": N}` every later time.
//! [`Graph`] resolves those references: a [`Value::Node`] names a node of
//! the arena, so two places that hold the same [`NodeId`] hold the same
//! PyPTO object. Everything else is kept as written (field names, strings,
//! spans, integers, floats), so a graph read and written again gives the
//! same bytes (see `msgpack::write`).

use rustc_hash::FxHashMap;

/// An interned string (field names, node kinds, names, file names).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// A node of the arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// Index into [`Graph::nodes`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A source span, PyPTO's `{"filename", "begin_line", "begin_column",
/// "end_line", "end_column"}` map (about 40 % of a document's bytes, so
/// held in 20 bytes instead of a map).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// File name.
    pub file: Sym,
    /// First line (`-1`: unknown).
    pub begin_line: i32,
    /// First column.
    pub begin_column: i32,
    /// Last line.
    pub end_line: i32,
    /// Last column.
    pub end_column: i32,
}

/// A value: a MessagePack value, or a node of the graph.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `nil`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// An unsigned integer past `i64::MAX`.
    UInt(u64),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
    /// A string.
    Str(Sym),
    /// Raw bytes (PyPTO writes none; kept so any document round-trips).
    Bin(Box<[u8]>),
    /// A source span.
    Span(Span),
    /// An array.
    Array(Box<[Value]>),
    /// A map with string keys, in the order read (PyPTO's: sorted).
    Map(Box<[(Sym, Value)]>),
    /// A node (its definition or a reference to it: the same thing here).
    Node(NodeId),
}

impl Value {
    /// The integer, when this is one that fits `i64`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The node, when this is one.
    pub fn as_node(&self) -> Option<NodeId> {
        match self {
            Value::Node(n) => Some(*n),
            _ => None,
        }
    }

    /// The elements, when this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries, when this is a map.
    pub fn as_map(&self) -> Option<&[(Sym, Value)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }
}

/// A node: its kind (`"Var"`, `"Call"`, ...) and its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The node kind, PyPTO's `TypeName()`.
    pub kind: Sym,
    /// Fields in the order read (PyPTO's: sorted by name).
    pub fields: Box<[(Sym, Value)]>,
    /// Byte offset of the node's map in the document it was read from
    /// (`u32::MAX` for a node built after reading), for diagnostics.
    pub offset: u32,
}

/// The strings of a graph, each stored once.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    names: Vec<Box<str>>,
    index: FxHashMap<Box<str>, Sym>,
}

impl Symbols {
    /// The symbol of `s`, added when new.
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.index.get(s) {
            return sym;
        }
        let sym = Sym(u32::try_from(self.names.len()).expect("fewer than 2^32 strings"));
        self.names.push(s.into());
        self.index.insert(s.into(), sym);
        sym
    }

    /// The symbol of `s`, if it was interned.
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.index.get(s).copied()
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The text of `sym`.
    pub fn str(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }
}

/// A whole document: the node arena, its strings, and the root node
/// (PyPTO's `Program`, or any node `ir.serialize` was given).
#[derive(Clone, Debug)]
pub struct Graph {
    /// Every node, definitions in the order read.
    pub nodes: Vec<Node>,
    /// Strings.
    pub syms: Symbols,
    /// The top-level node.
    pub root: NodeId,
}

impl Graph {
    /// An empty graph whose root is a placeholder node of kind `kind`.
    pub fn new(kind: &str) -> Graph {
        let mut syms = Symbols::default();
        let kind = syms.intern(kind);
        Graph {
            nodes: vec![Node {
                kind,
                fields: Box::new([]),
                offset: u32::MAX,
            }],
            syms,
            root: NodeId(0),
        }
    }

    /// Node `n`.
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.index()]
    }

    /// Adds a node and returns its id.
    pub fn add(&mut self, node: Node) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes"));
        self.nodes.push(node);
        id
    }

    /// The kind of node `n` as text.
    pub fn kind(&self, n: NodeId) -> &str {
        self.syms.str(self.node(n).kind)
    }

    /// Field `name` of node `n`.
    pub fn field(&self, n: NodeId, name: &str) -> Option<&Value> {
        let sym = self.syms.get(name)?;
        lookup(&self.node(n).fields, sym)
    }

    /// The text of a string value.
    pub fn str_of<'a>(&'a self, v: &Value) -> Option<&'a str> {
        match v {
            Value::Str(s) => Some(self.syms.str(*s)),
            _ => None,
        }
    }

    /// Entry `name` of a map value.
    pub fn entry<'a>(&self, map: &'a Value, name: &str) -> Option<&'a Value> {
        let sym = self.syms.get(name)?;
        lookup(map.as_map()?, sym)
    }
}

/// The value of key `sym` among `entries`.
pub fn lookup(entries: &[(Sym, Value)], sym: Sym) -> Option<&Value> {
    entries.iter().find(|(k, _)| *k == sym).map(|(_, v)| v)
}
