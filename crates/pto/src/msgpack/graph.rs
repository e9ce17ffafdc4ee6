//! The node graph of a PyPTO MessagePack document, kept whole.
//!
//! PyPTO writes every IR node as `{"id": N, "type": KIND, "fields": {...}}`
//! the first time it meets the object and `{"ref": N}` every later time.
//! [`Graph`] resolves those references: a [`Value::Node`] names a node of
//! the arena, so two places that hold the same [`NodeId`] hold the same
//! PyPTO object. Everything else is kept as written (field names, strings,
//! spans, integers, floats), so a graph read and written again gives the
//! same bytes (see `msgpack::write`).
//!
//! Values are small and `Copy`: arrays and maps are ranges of two arenas
//! of the graph ([`List`], [`Entries`]), read through [`Graph::items`] and
//! [`Graph::entries`]; a value is never changed in place, new ones are
//! added ([`Graph::new_array`], [`Graph::new_map`], [`Graph::add`]). A
//! document of a million nodes is then a few large vectors instead of
//! millions of small allocations.

use std::hash::BuildHasher;

use hashbrown::HashTable;

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

/// An array's items: a range of the graph's item arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct List {
    start: u32,
    len: u32,
}

impl List {
    /// The empty array.
    pub const EMPTY: List = List { start: 0, len: 0 };

    /// Number of items.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A map's entries (or a node's fields): a range of the graph's entry arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entries {
    start: u32,
    len: u32,
}

impl Entries {
    /// The empty map.
    pub const EMPTY: Entries = Entries { start: 0, len: 0 };

    /// Number of entries.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A value: a MessagePack value, or a node of the graph.
#[derive(Copy, Clone, Debug, PartialEq)]
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
    /// Raw bytes (PyPTO writes none; kept so any document round-trips):
    /// an index into the graph's byte strings ([`Graph::bytes`]).
    Bin(u32),
    /// A source span: an index into the graph's spans ([`Graph::span`]),
    /// so that a value stays 16 bytes.
    Span(u32),
    /// An array.
    Array(List),
    /// A map with string keys, in the order read (PyPTO's: sorted).
    Map(Entries),
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

    /// The string, when this is one.
    pub fn as_sym(&self) -> Option<Sym> {
        match self {
            Value::Str(s) => Some(*s),
            _ => None,
        }
    }
}

/// A node: its kind (`"Var"`, `"Call"`, ...) and its fields.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Node {
    /// The node kind, PyPTO's `TypeName()`.
    pub kind: Sym,
    /// Fields in the order read (PyPTO's: sorted by name).
    pub fields: Entries,
    /// Byte offset of the node's map in the document it was read from
    /// (`u32::MAX` for a node built after reading), for diagnostics.
    pub offset: u32,
}

/// The strings of a graph, each stored once, in one buffer.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    text: String,
    /// End offset in `text` of each symbol (its start is the previous end).
    ends: Vec<u32>,
    index: HashTable<Sym>,
}

fn hash_str(s: &[u8]) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(s)
}

impl Symbols {
    /// The symbol of `s`, added when new.
    pub fn intern(&mut self, s: &str) -> Sym {
        let h = hash_str(s.as_bytes());
        let (text, ends) = (&self.text, &self.ends);
        let str_of = |sym: &Sym| sym_str(text, ends, *sym);
        if let Some(&sym) = self.index.find(h, |x| str_of(x) == s) {
            return sym;
        }
        let sym = Sym(u32::try_from(self.ends.len()).expect("fewer than 2^32 strings"));
        self.text.push_str(s);
        self.ends
            .push(u32::try_from(self.text.len()).expect("strings shorter than 4 GiB"));
        let (text, ends) = (&self.text, &self.ends);
        self.index
            .insert_unique(h, sym, |x| hash_str(sym_str(text, ends, *x).as_bytes()));
        sym
    }

    /// The symbol of the UTF-8 text `b`, added when new; `None` when `b`
    /// is not UTF-8 (checked only for new text: text equal to an interned
    /// string is valid).
    pub fn intern_bytes(&mut self, b: &[u8]) -> Option<Sym> {
        let h = hash_str(b);
        let (text, ends) = (&self.text, &self.ends);
        if let Some(&sym) = self
            .index
            .find(h, |x| sym_str(text, ends, *x).as_bytes() == b)
        {
            return Some(sym);
        }
        let s = std::str::from_utf8(b).ok()?;
        Some(self.intern(s))
    }

    /// The symbol of `s`, if it was interned.
    pub fn get(&self, s: &str) -> Option<Sym> {
        let h = hash_str(s.as_bytes());
        self.index
            .find(h, |x| sym_str(&self.text, &self.ends, *x) == s)
            .copied()
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The text of `sym`.
    pub fn str(&self, sym: Sym) -> &str {
        sym_str(&self.text, &self.ends, sym)
    }
}

fn sym_str<'a>(text: &'a str, ends: &[u32], sym: Sym) -> &'a str {
    let i = sym.0 as usize;
    let end = ends[i] as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..end]
}

/// A whole document: the node arena, the arenas of array items and map
/// entries, its strings, and the root node (PyPTO's `Program`, or any node
/// `ir.serialize` was given).
#[derive(Clone, Debug)]
pub struct Graph {
    /// Every node, definitions in the order read.
    pub nodes: Vec<Node>,
    /// Array items ([`List`] ranges).
    items: Vec<Value>,
    /// Map entries and node fields ([`Entries`] ranges).
    entries: Vec<(Sym, Value)>,
    /// Byte strings ([`Value::Bin`]).
    bytes: Vec<Box<[u8]>>,
    /// Source spans ([`Value::Span`]).
    spans: Vec<Span>,
    /// Strings.
    pub syms: Symbols,
    /// The top-level node.
    pub root: NodeId,
}

impl Graph {
    /// An empty graph whose root is a placeholder node of kind `kind`.
    pub fn new(kind: &str) -> Graph {
        let mut g = Graph::empty();
        let kind = g.syms.intern(kind);
        g.root = g.add_node(Node {
            kind,
            fields: Entries::EMPTY,
            offset: u32::MAX,
        });
        g
    }

    /// A graph without nodes (its root names no node until one is set).
    pub(super) fn empty() -> Graph {
        Graph {
            nodes: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            bytes: Vec::new(),
            spans: Vec::new(),
            syms: Symbols::default(),
            root: NodeId(0),
        }
    }

    /// A copy of the graph with room to double without moving its arenas
    /// (a plain clone has none: the first node added would copy every
    /// arena again).
    pub(super) fn clone_with_room(&self) -> Graph {
        fn roomy<T: Clone>(v: &[T]) -> Vec<T> {
            let mut out = Vec::with_capacity(2 * v.len() + 16);
            out.extend_from_slice(v);
            out
        }
        Graph {
            nodes: roomy(&self.nodes),
            items: roomy(&self.items),
            entries: roomy(&self.entries),
            bytes: self.bytes.clone(),
            spans: roomy(&self.spans),
            syms: self.syms.clone(),
            root: self.root,
        }
    }

    /// Makes room for about `n` bytes of document.
    pub(super) fn reserve_for(&mut self, n: usize) {
        // Measured on PyPTO's documents: a node per 90 bytes, an entry
        // per 12, an item per 120.
        self.nodes.reserve(n / 90);
        self.entries.reserve(n / 12);
        self.items.reserve(n / 120);
    }

    /// Node `n`.
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.index()]
    }

    /// Adds a node and returns its id.
    pub fn add_node(&mut self, node: Node) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes"));
        self.nodes.push(node);
        id
    }

    /// Adds a node of kind `kind` with these fields (sorted by name, as
    /// PyPTO writes them) and returns its id.
    pub fn add(&mut self, kind: Sym, fields: &mut [(Sym, Value)]) -> NodeId {
        let fields = self.sorted_entries(fields);
        self.add_node(Node {
            kind,
            fields,
            offset: u32::MAX,
        })
    }

    /// The kind of node `n` as text.
    pub fn kind(&self, n: NodeId) -> &str {
        self.syms.str(self.node(n).kind)
    }

    /// The fields of node `n`.
    pub fn fields(&self, n: NodeId) -> &[(Sym, Value)] {
        self.entries_of(self.node(n).fields)
    }

    /// Field `name` of node `n`.
    pub fn field(&self, n: NodeId, name: &str) -> Option<&Value> {
        let sym = self.syms.get(name)?;
        lookup(self.fields(n), sym)
    }

    /// Field `sym` of node `n`.
    pub fn field_sym(&self, n: NodeId, sym: Sym) -> Option<&Value> {
        lookup(self.fields(n), sym)
    }

    /// The items of an array.
    pub fn items_of(&self, l: List) -> &[Value] {
        &self.items[l.start as usize..(l.start + l.len) as usize]
    }

    /// The entries of a map.
    pub fn entries_of(&self, e: Entries) -> &[(Sym, Value)] {
        &self.entries[e.start as usize..(e.start + e.len) as usize]
    }

    /// The items, when `v` is an array.
    pub fn items(&self, v: &Value) -> Option<&[Value]> {
        match v {
            Value::Array(l) => Some(self.items_of(*l)),
            _ => None,
        }
    }

    /// The entries, when `v` is a map.
    pub fn entries(&self, v: &Value) -> Option<&[(Sym, Value)]> {
        match v {
            Value::Map(e) => Some(self.entries_of(*e)),
            _ => None,
        }
    }

    /// The span of a [`Value::Span`].
    pub fn span(&self, index: u32) -> &Span {
        &self.spans[index as usize]
    }

    /// A new span value.
    pub fn new_span(&mut self, s: Span) -> Value {
        self.spans.push(s);
        Value::Span(arena_index(self.spans.len() - 1))
    }

    /// The bytes of a [`Value::Bin`].
    pub fn bytes(&self, index: u32) -> &[u8] {
        &self.bytes[index as usize]
    }

    /// The text of a string value.
    pub fn str_of<'a>(&'a self, v: &Value) -> Option<&'a str> {
        match v {
            Value::Str(s) => Some(self.syms.str(*s)),
            _ => None,
        }
    }

    /// Entry `name` of a map value.
    pub fn entry(&self, map: &Value, name: &str) -> Option<&Value> {
        let sym = self.syms.get(name)?;
        lookup(self.entries(map)?, sym)
    }

    /// Entry `sym` of a map value.
    pub fn entry_sym(&self, map: &Value, sym: Sym) -> Option<&Value> {
        lookup(self.entries(map)?, sym)
    }

    /// A new array of `items`.
    pub fn new_array(&mut self, items: &[Value]) -> Value {
        Value::Array(self.push_items(items))
    }

    /// A new array of the items `items` yields.
    pub fn collect_array(&mut self, items: impl IntoIterator<Item = Value>) -> Value {
        let start = self.items.len();
        self.items.extend(items);
        Value::Array(List {
            start: arena_index(start),
            len: arena_index(self.items.len() - start),
        })
    }

    /// A new map of `entries`, sorted by key (PyPTO's order).
    pub fn new_map(&mut self, entries: &mut [(Sym, Value)]) -> Value {
        Value::Map(self.sorted_entries(entries))
    }

    /// A new map of `entries`, already in key order.
    pub(super) fn new_map_in_order(&mut self, entries: &[(Sym, Value)]) -> Value {
        Value::Map(self.push_entries(entries))
    }

    /// `v` with its arrays and maps copied (nodes are shared, not
    /// copied): one node's fields must not reach the same array or map
    /// twice (see `msgpack::write`), so a value placed twice in one node
    /// is a copy the second time. Values in different nodes may share
    /// their arrays and maps. Arrays and maps that hold no node are shared:
    /// the writer only cares where a node is held.
    pub fn copy(&mut self, v: Value) -> Value {
        if !self.holds_node(&v) {
            return v;
        }
        match v {
            Value::Array(l) => {
                let items: Vec<Value> = self.items_of(l).to_vec();
                let items: Vec<Value> = items.into_iter().map(|x| self.copy(x)).collect();
                self.new_array(&items)
            }
            Value::Map(e) => {
                let entries: Vec<(Sym, Value)> = self.entries_of(e).to_vec();
                let entries: Vec<(Sym, Value)> = entries
                    .into_iter()
                    .map(|(k, x)| (k, self.copy(x)))
                    .collect();
                Value::Map(self.push_entries(&entries))
            }
            other => other,
        }
    }

    /// Whether an array or map holds a node (directly or in an array or
    /// map it holds).
    fn holds_node(&self, v: &Value) -> bool {
        match v {
            Value::Node(_) => true,
            Value::Array(l) => self.items_of(*l).iter().any(|x| self.holds_node(x)),
            Value::Map(e) => self.entries_of(*e).iter().any(|(_, x)| self.holds_node(x)),
            _ => false,
        }
    }

    /// `map` with entry `key` set to `v` (added when absent), as a new map
    /// (the other entries shared with `map`: the result replaces `map`, it
    /// is not placed beside it in one node).
    pub fn with_entry(&mut self, map: &Value, key: Sym, v: Value) -> Value {
        let old = self.entries(map).unwrap_or_default();
        let mut e: Vec<(Sym, Value)> = Vec::with_capacity(old.len() + 1);
        e.extend(old.iter().filter(|(k, _)| *k != key));
        e.push((key, v));
        self.new_map(&mut e)
    }

    /// `map` without entry `key`, as a new map (the other entries shared,
    /// as in [`Graph::with_entry`]).
    pub fn without_entry(&mut self, map: &Value, key: Sym) -> Value {
        let start = self.entries.len();
        if let Value::Map(e) = *map {
            for i in e.start..e.start + e.len {
                let entry = self.entries[i as usize];
                if entry.0 != key {
                    self.entries.push(entry);
                }
            }
        }
        Value::Map(Entries {
            start: arena_index(start),
            len: arena_index(self.entries.len() - start),
        })
    }

    /// A new node: `n` with some fields set (added when absent; the other
    /// fields shared with `n`).
    pub fn with_fields(&mut self, n: NodeId, repl: &[(Sym, Value)]) -> NodeId {
        let node = *self.node(n);
        let old = self.entries_of(node.fields);
        let mut fields: Vec<(Sym, Value)> = Vec::with_capacity(old.len() + repl.len());
        fields.extend(
            old.iter()
                .filter(|(k, _)| !repl.iter().any(|(r, _)| r == k)),
        );
        fields.extend_from_slice(repl);
        self.add(node.kind, &mut fields)
    }

    pub(super) fn push_items(&mut self, items: &[Value]) -> List {
        let start = self.items.len();
        self.items.extend_from_slice(items);
        List {
            start: arena_index(start),
            len: arena_index(items.len()),
        }
    }

    pub(super) fn push_entries(&mut self, entries: &[(Sym, Value)]) -> Entries {
        let start = self.entries.len();
        self.entries.extend_from_slice(entries);
        Entries {
            start: arena_index(start),
            len: arena_index(entries.len()),
        }
    }

    pub(super) fn push_bytes(&mut self, b: &[u8]) -> u32 {
        self.bytes.push(b.into());
        arena_index(self.bytes.len() - 1)
    }

    fn sorted_entries(&mut self, entries: &mut [(Sym, Value)]) -> Entries {
        let syms = &self.syms;
        entries.sort_by(|a, b| syms.str(a.0).cmp(syms.str(b.0)));
        self.push_entries(entries)
    }
}

fn arena_index(i: usize) -> u32 {
    u32::try_from(i).expect("a document of fewer than 2^32 values")
}

/// The value of key `sym` among `entries`.
pub fn lookup(entries: &[(Sym, Value)], sym: Sym) -> Option<&Value> {
    entries.iter().find(|(k, _)| *k == sym).map(|(_, v)| v)
}

/// A set of a graph's nodes, dense: walks of documents of millions of
/// nodes mark what they met without hashing. [`NodeSet::clear`] empties it
/// in constant time, so one set serves many walks.
#[derive(Clone, Debug)]
pub struct NodeSet {
    /// The generation that marked each node.
    marks: Vec<u32>,
    /// The current generation (never 0, the mark of a node never met).
    generation: u32,
}

impl NodeSet {
    /// An empty set for the nodes of `g` (nodes added later are held too).
    pub fn new(g: &Graph) -> NodeSet {
        NodeSet {
            marks: vec![0; g.nodes.len()],
            generation: 1,
        }
    }

    /// Adds `n`; whether it was absent.
    pub fn insert(&mut self, n: NodeId) -> bool {
        let i = n.index();
        if i >= self.marks.len() {
            self.marks.resize(i + 1, 0);
        }
        let fresh = self.marks[i] != self.generation;
        self.marks[i] = self.generation;
        fresh
    }

    /// Whether `n` is in the set.
    pub fn contains(&self, n: NodeId) -> bool {
        self.marks.get(n.index()) == Some(&self.generation)
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
    }
}
