//! Reading a PyPTO MessagePack document into a [`Graph`].
//!
//! One pass over the bytes. PyPTO's writer sorts map keys, so a reference
//! (`{"ref": N}`) often comes before the node it names; a reference to an
//! id not yet defined gets a placeholder node that the definition fills in,
//! and an id still undefined at the end is an error. Every error names the
//! byte offset where reading stopped and where in the document it was
//! (function, field path), and never panics: the input may be anything.
//!
//! Speed: items and entries collect on two stacks and move into the
//! graph's arenas once their array or map is complete (one copy, no
//! allocation per value); strings are interned straight from the input,
//! the ones met again found in a small cache first; the field path an
//! error names is followed only when reading again after an error;
//! PyPTO numbers its nodes densely from 0, so ids index a vector (a hash
//! map takes the ids past the input's length, which no valid document
//! has).

use std::fmt;

use rmp::Marker;
use rustc_hash::FxHashMap;

use super::graph::{Entries, Graph, Node, NodeId, Span, Sym, Value};

/// Deepest nesting of arrays and maps read (the shared kernels nest at most
/// 38 levels; the limit keeps a hostile input from exhausting the stack).
pub const MAX_DEPTH: usize = 200;

/// Why a document could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset where reading stopped.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
    /// Where in the document: the function and the field path being read
    /// (`function 'k', body.stmts[3].value.args[0]`), or empty at the top.
    pub context: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)?;
        if !self.context.is_empty() {
            write!(f, " (reading {})", self.context)?;
        }
        Ok(())
    }
}

impl std::error::Error for DecodeError {}

/// Whether `bytes` look like a PyPTO MessagePack document rather than
/// program text: a document is one MessagePack map, whose first byte is a
/// map marker (`0x80..=0x8f`, `0xde`, `0xdf`); text starts with a printable
/// character, `#`, whitespace or a UTF-8 byte order mark, none of which is.
pub fn looks_like_msgpack(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(0x80..=0x8f | 0xde | 0xdf))
}

/// Reads a whole document.
pub fn read(bytes: &[u8]) -> Result<Graph, DecodeError> {
    // The path an error names is followed only when there is an error: the
    // read is repeated with it (reading is deterministic, so it stops at
    // the same byte for the same reason).
    read_tracking(bytes, false).map_err(|e| read_tracking(bytes, true).err().unwrap_or(e))
}

/// Reads a whole document, following the path being read when `track`.
fn read_tracking(bytes: &[u8], track: bool) -> Result<Graph, DecodeError> {
    let mut g = Graph::empty();
    g.reserve_for(bytes.len());
    let keys = Keys::new(&mut g);
    let mut r = Reader {
        buf: bytes,
        pos: 0,
        g,
        dense: Vec::new(),
        sparse: FxHashMap::default(),
        defined: Vec::new(),
        path: Vec::new(),
        track,
        strings: StrCache::new(),
        depth: 0,
        items: Vec::new(),
        entries: Vec::new(),
        k: keys,
    };
    let start = r.pos;
    let top = r.value()?;
    if r.pos != bytes.len() {
        return Err(r.error(
            r.pos,
            format!(
                "{} bytes after the end of the document",
                bytes.len() - r.pos
            ),
        ));
    }
    let Value::Node(root) = top else {
        return Err(r.error(start, "the document is not an IR node".into()));
    };
    let undefined = r
        .dense
        .iter()
        .enumerate()
        .filter(|(_, &n)| n != 0 && !r.defined[(n - 1) as usize])
        .map(|(id, _)| id as u64)
        .chain(
            r.sparse
                .iter()
                .filter(|(_, n)| !r.defined[n.index()])
                .map(|(&id, _)| id),
        )
        .min();
    if let Some(id) = undefined {
        return Err(DecodeError {
            offset: bytes.len(),
            message: format!("reference to node id {id}, which the document never defines"),
            context: String::new(),
        });
    }
    let mut g = r.g;
    g.root = root;
    Ok(g)
}

/// The keys the reader recognises, interned once.
struct Keys {
    id: Sym,
    ty: Sym,
    fields: Sym,
    reference: Sym,
    key: Sym,
    name: Sym,
    /// Sorted, as PyPTO writes them.
    span_keys: [Sym; 5],
}

impl Keys {
    fn new(g: &mut Graph) -> Keys {
        let s = &mut g.syms;
        Keys {
            id: s.intern("id"),
            ty: s.intern("type"),
            fields: s.intern("fields"),
            reference: s.intern("ref"),
            key: s.intern("key"),
            name: s.intern("name"),
            span_keys: [
                s.intern("begin_column"),
                s.intern("begin_line"),
                s.intern("end_column"),
                s.intern("end_line"),
                s.intern("filename"),
            ],
        }
    }
}

/// The strings met last, by their first and last bytes: most strings of a
/// document are field names and kinds met again and again, and a hit costs
/// no hashing of the table and no comparison with the stored text for
/// strings of at most 16 bytes (their key is the whole string).
struct StrCache {
    slots: Vec<(StrKey, Sym)>,
}

/// Length, first 8 and last 8 bytes (zero-padded) of a string.
type StrKey = (u64, u64, u64);

impl StrCache {
    const SLOTS: usize = 4096;

    fn new() -> StrCache {
        // A length no string has: an empty slot never hits.
        StrCache {
            slots: vec![((u64::MAX, 0, 0), Sym(0)); Self::SLOTS],
        }
    }

    /// The key of `b` and its slot.
    #[inline]
    fn key(b: &[u8]) -> (StrKey, usize) {
        /// The first 8 bytes of `x`, zero-padded, read without a loop or
        /// a call (overlapping loads of the same bytes agree).
        #[inline]
        fn word(x: &[u8]) -> u64 {
            let n = x.len();
            let u32_at =
                |i: usize| u64::from(u32::from_le_bytes([x[i], x[i + 1], x[i + 2], x[i + 3]]));
            match n {
                8.. => u64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]),
                4..=7 => u32_at(0) | u32_at(n - 4) << (8 * (n - 4)),
                1..=3 => {
                    u64::from(x[0])
                        | u64::from(x[n / 2]) << (8 * (n / 2))
                        | u64::from(x[n - 1]) << (8 * (n - 1))
                }
                0 => 0,
            }
        }
        let n = b.len();
        let head = word(b);
        let tail = if n > 8 { word(&b[n.max(16) - 8..]) } else { 0 };
        let mixed = (head ^ tail.rotate_left(23) ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((n as u64, head, tail), (mixed >> 52) as usize % Self::SLOTS)
    }
}

/// One step of the path shown in errors.
enum Step {
    Field(Sym),
    Index(usize),
    Function(Sym),
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    g: Graph,
    /// Document id -> node + 1 (0: not met yet), for ids below the input's
    /// length.
    dense: Vec<u32>,
    /// Document id -> node, for larger ids.
    sparse: FxHashMap<u64, NodeId>,
    /// Whether each node's definition has been read.
    defined: Vec<bool>,
    path: Vec<Step>,
    /// Whether `path` is kept (see [`read`]).
    track: bool,
    strings: StrCache,
    depth: usize,
    /// Items of the arrays being read.
    items: Vec<Value>,
    /// Entries of the maps being read.
    entries: Vec<(Sym, Value)>,
    k: Keys,
}

impl Reader<'_> {
    fn error(&self, offset: usize, message: String) -> DecodeError {
        DecodeError {
            offset,
            message,
            context: self.context(),
        }
    }

    /// The path being read, as text.
    fn context(&self) -> String {
        let syms = &self.g.syms;
        let mut func = None;
        let mut start = 0;
        for (i, s) in self.path.iter().enumerate() {
            if let Step::Function(f) = s {
                func = Some(*f);
                start = i + 1;
            }
        }
        let mut out = String::new();
        for s in &self.path[start..] {
            match s {
                Step::Field(f) => {
                    // The node envelope ("fields") says nothing a reader of
                    // the path needs.
                    if *f == self.k.fields {
                        continue;
                    }
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(syms.str(*f));
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
                Step::Function(_) => {}
            }
        }
        match func {
            Some(f) if out.is_empty() => format!("function '{}'", syms.str(f)),
            Some(f) => format!("function '{}', {out}", syms.str(f)),
            None => out,
        }
    }

    #[inline]
    fn byte(&mut self) -> Result<u8, DecodeError> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated()),
        }
    }

    #[cold]
    fn truncated(&self) -> DecodeError {
        self.error(
            self.pos,
            format!(
                "unexpected end of input (the document is {} bytes: truncated?)",
                self.buf.len()
            ),
        )
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end {
            Some(end) => {
                let s = &self.buf[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.truncated()),
        }
    }

    #[inline]
    fn be<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn len(&mut self, m: Marker) -> Result<Option<usize>, DecodeError> {
        Ok(Some(match m {
            Marker::FixStr(n) | Marker::FixArray(n) | Marker::FixMap(n) => usize::from(n),
            Marker::Str8 | Marker::Bin8 => usize::from(self.byte()?),
            Marker::Str16 | Marker::Bin16 | Marker::Array16 | Marker::Map16 => {
                usize::from(u16::from_be_bytes(self.be()?))
            }
            Marker::Str32 | Marker::Bin32 | Marker::Array32 | Marker::Map32 => {
                u32::from_be_bytes(self.be()?) as usize
            }
            _ => return Ok(None),
        }))
    }

    fn string(&mut self, n: usize, at: usize) -> Result<Sym, DecodeError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let Some(end) = end else {
            return Err(self.truncated());
        };
        let buf = self.buf;
        self.pos = end;
        let b = &buf[end - n..end];
        let (key, slot) = StrCache::key(b);
        let hit = self.strings.slots[slot];
        if hit.0 == key && (n <= 16 || self.g.syms.str(hit.1).as_bytes() == b) {
            return Ok(hit.1);
        }
        match self.g.syms.intern_bytes(b) {
            Some(s) => {
                self.strings.slots[slot] = (key, s);
                Ok(s)
            }
            None => Err(self.error(at, "string is not valid UTF-8".into())),
        }
    }

    /// Reads one value.
    fn value(&mut self) -> Result<Value, DecodeError> {
        let at = self.pos;
        let m = Marker::from_u8(self.byte()?);
        Ok(match m {
            Marker::Null => Value::Nil,
            Marker::True => Value::Bool(true),
            Marker::False => Value::Bool(false),
            Marker::FixPos(n) => Value::Int(i64::from(n)),
            Marker::FixNeg(n) => Value::Int(i64::from(n)),
            Marker::U8 => Value::Int(i64::from(self.byte()?)),
            Marker::U16 => Value::Int(i64::from(u16::from_be_bytes(self.be()?))),
            Marker::U32 => Value::Int(i64::from(u32::from_be_bytes(self.be()?))),
            Marker::U64 => {
                let v = u64::from_be_bytes(self.be()?);
                i64::try_from(v).map_or(Value::UInt(v), Value::Int)
            }
            Marker::I8 => Value::Int(i64::from(i8::from_be_bytes(self.be()?))),
            Marker::I16 => Value::Int(i64::from(i16::from_be_bytes(self.be()?))),
            Marker::I32 => Value::Int(i64::from(i32::from_be_bytes(self.be()?))),
            Marker::I64 => Value::Int(i64::from_be_bytes(self.be()?)),
            Marker::F32 => Value::F32(f32::from_be_bytes(self.be()?)),
            Marker::F64 => Value::F64(f64::from_be_bytes(self.be()?)),
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                let n = self.len(m)?.unwrap_or(0);
                Value::Str(self.string(n, at)?)
            }
            Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
                let n = self.len(m)?.unwrap_or(0);
                let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
                let Some(end) = end else {
                    return Err(self.truncated());
                };
                let buf = self.buf;
                self.pos = end;
                Value::Bin(self.g.push_bytes(&buf[end - n..end]))
            }
            Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
                let n = self.len(m)?.unwrap_or(0);
                self.enter(at)?;
                // Each element takes at least one byte: a length past the
                // rest of the input is a truncated (or corrupt) document,
                // found before reserving memory for it.
                if n > self.buf.len() - self.pos {
                    return Err(self.truncated());
                }
                let start = self.items.len();
                for i in 0..n {
                    if self.track {
                        self.path.push(Step::Index(i));
                    }
                    let v = self.value()?;
                    self.items.push(v);
                    if self.track {
                        self.path.pop();
                    }
                }
                let list = self.g.push_items(&self.items[start..]);
                self.items.truncate(start);
                self.depth -= 1;
                Value::Array(list)
            }
            Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
                let n = self.len(m)?.unwrap_or(0);
                self.enter(at)?;
                let v = self.map(n, at)?;
                self.depth -= 1;
                v
            }
            Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32 => {
                return Err(self.error(
                    at,
                    "MessagePack extension types do not occur in PyPTO's IR".into(),
                ))
            }
            Marker::Reserved => {
                return Err(self.error(at, "byte 0xc1 is not a MessagePack value".into()))
            }
        })
    }

    fn enter(&mut self, at: usize) -> Result<(), DecodeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(at, format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    /// Reads the `n` entries of a map starting at `at`, then makes it a
    /// node, a reference, a span or a plain map.
    fn map(&mut self, n: usize, at: usize) -> Result<Value, DecodeError> {
        if n > (self.buf.len() - self.pos) / 2 {
            return Err(self.truncated());
        }
        let start = self.entries.len();
        for _ in 0..n {
            let key_at = self.pos;
            let m = Marker::from_u8(self.byte()?);
            let key = match m {
                Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                    let len = self.len(m)?.unwrap_or(0);
                    self.string(len, key_at)?
                }
                _ => {
                    return Err(self.error(
                        key_at,
                        "a map key that is not a string (PyPTO's maps have string keys)".into(),
                    ))
                }
            };
            if self.entries[start..].iter().any(|(s, _)| *s == key) {
                return Err(self.error(
                    key_at,
                    format!("key '{}' twice in one map", self.g.syms.str(key)),
                ));
            }
            if !self.track {
                let v = self.value()?;
                self.entries.push((key, v));
                continue;
            }
            // The function a `{"key": GlobalVar, "value": Function}` entry
            // holds is named by its key, which comes first.
            let step = match self.entries[start..].first() {
                Some((k0, Value::Map(gv))) if *k0 == self.k.key && key != self.k.key => self
                    .g
                    .entries_of(*gv)
                    .iter()
                    .find(|(s, _)| *s == self.k.name)
                    .and_then(|(_, v)| v.as_sym())
                    .map(Step::Function),
                _ => None,
            };
            let pushed_fn = step.is_some();
            if let Some(s) = step {
                self.path.push(s);
            }
            self.path.push(Step::Field(key));
            let v = self.value()?;
            self.path.pop();
            if pushed_fn {
                self.path.pop();
            }
            self.entries.push((key, v));
        }
        let v = self.classify(start, at);
        self.entries.truncate(start);
        v
    }

    /// The value of the map whose entries are `self.entries[start..]`.
    fn classify(&mut self, start: usize, at: usize) -> Result<Value, DecodeError> {
        let entries = &self.entries[start..];
        let k = &self.k;
        // `{"ref": N}`
        if let [(key, v)] = entries {
            if *key == k.reference {
                let id = self.doc_id(v, at)?;
                return Ok(Value::Node(self.node_for(id)));
            }
        }
        // `{"fields": {...}, "id": N, "type": KIND}`
        if entries.len() == 3
            && entries
                .iter()
                .all(|(s, _)| *s == k.id || *s == k.ty || *s == k.fields)
        {
            let get = |s: Sym| entries.iter().find(|(x, _)| *x == s).map(|(_, v)| *v);
            let (Some(id), Some(kind), Some(fields)) = (get(k.id), get(k.ty), get(k.fields)) else {
                return Ok(Value::Map(self.g.push_entries(entries)));
            };
            let id = self.doc_id(&id, at)?;
            let Value::Str(kind) = kind else {
                return Err(self.error(at, "a node whose \"type\" is not a string".into()));
            };
            let fields: Entries = match fields {
                Value::Map(f) => f,
                _ => return Err(self.error(at, "a node whose \"fields\" is not a map".into())),
            };
            let n = self.node_for(id);
            if self.defined[n.index()] {
                return Err(self.error(at, format!("node id {id} defined twice")));
            }
            self.defined[n.index()] = true;
            self.g.nodes[n.index()] = Node {
                kind,
                fields,
                offset: u32::try_from(at).unwrap_or(u32::MAX),
            };
            return Ok(Value::Node(n));
        }
        // A span.
        if entries.len() == 5 && entries.iter().zip(&k.span_keys).all(|((s, _), w)| s == w) {
            let int = |i: usize| match entries[i].1 {
                Value::Int(n) => i32::try_from(n).ok(),
                _ => None,
            };
            if let (Some(bc), Some(bl), Some(ec), Some(el), Value::Str(file)) =
                (int(0), int(1), int(2), int(3), entries[4].1)
            {
                return Ok(self.g.new_span(Span {
                    file,
                    begin_line: bl,
                    begin_column: bc,
                    end_line: el,
                    end_column: ec,
                }));
            }
        }
        Ok(Value::Map(self.g.push_entries(entries)))
    }

    fn doc_id(&self, v: &Value, at: usize) -> Result<u64, DecodeError> {
        match v {
            Value::Int(n) if *n >= 0 => Ok(*n as u64),
            Value::UInt(n) => Ok(*n),
            _ => Err(self.error(at, "a node id that is not an unsigned integer".into())),
        }
    }

    /// The node of document id `id`, a placeholder until its definition.
    fn node_for(&mut self, id: u64) -> NodeId {
        let dense = usize::try_from(id).ok().filter(|&i| i < self.buf.len());
        match dense {
            Some(i) => {
                if let Some(&n) = self.dense.get(i).filter(|&&n| n != 0) {
                    return NodeId(n - 1);
                }
                let n = self.placeholder();
                if self.dense.len() <= i {
                    self.dense.resize((i + 1).max(self.dense.len() * 2), 0);
                }
                self.dense[i] = n.0 + 1;
                n
            }
            None => {
                if let Some(&n) = self.sparse.get(&id) {
                    return n;
                }
                let n = self.placeholder();
                self.sparse.insert(id, n);
                n
            }
        }
    }

    fn placeholder(&mut self) -> NodeId {
        self.defined.push(false);
        self.g.add_node(Node {
            kind: self.k.id,
            fields: Entries::EMPTY,
            offset: u32::MAX,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::StrCache;

    #[test]
    fn a_short_strings_cache_key_is_the_whole_string() {
        // Every string of up to 16 bytes over a small alphabet, and the
        // strings that differ from one of them in one byte: equal keys
        // exactly for equal strings.
        let mut strings: Vec<Vec<u8>> = vec![Vec::new()];
        for n in 1..=16usize {
            for seed in 0..40u32 {
                let s: Vec<u8> = (0..n)
                    .map(|i| b'a' + ((seed as usize * 7 + i * i * 3 + n) % 5) as u8)
                    .collect();
                for at in 0..n {
                    let mut t = s.clone();
                    t[at] = b'z';
                    strings.push(t);
                }
                strings.push(s);
            }
        }
        strings.push(vec![0; 3]);
        strings.push(vec![0; 4]);
        strings.sort();
        strings.dedup();
        let keys: Vec<_> = strings.iter().map(|s| StrCache::key(s).0).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), strings.len(), "two strings share a key");
        for (s, k) in strings.iter().zip(&keys) {
            assert_eq!(k.0, s.len() as u64);
        }
    }
}
