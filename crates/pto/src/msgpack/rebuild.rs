//! Writing a planned program back as the document it was read from.
//!
//! A document is read into the program model through its text
//! ([`super::to_text`]); the passes then change the model. Writing back
//! starts from the document's own node graph ([`Origin`]) and changes only
//! what the passes changed, the way PyPTO's passes build their results:
//!
//! - a statement the passes left alone is the document's node, rebuilt only
//!   where a node under it was replaced (a variable whose type changed), so
//!   spans, constant types, comments and object sharing stay as they were;
//! - a variable whose type changed is a new `Var` with the old span and
//!   name; in its type only the changed parts are new (shape, view and
//!   dtype stay the document's values);
//! - a MemRef equal to one already in the function (the document's or one
//!   built before) shares its offset constant, as PyPTO shares the MemRef
//!   object; a new one gets an `INT64` offset constant;
//! - allocations and other statements the passes add are built as PyPTO
//!   builds them (no span, `INDEX` constants).
//!
//! What the writer cannot build (a loop the passes created, a type it has
//! no template for) is an error, never a silently different document.

use rustc_hash::FxHashMap;

use super::graph::{Graph, List, NodeId, NodeSet, Span, Sym, Value};
use super::print::{dtype_name, mem_space_name, to_text_with_lines};
use super::{read, ReadError};
use crate::ir::{
    EntityRef, Expr, Function, MemBase, MemRef, Program, SecondaryMap, StmtId, StmtKind, Type,
    VarId,
};
use crate::passes::rewrite::storage::MemrefOwners;
use crate::print::{print_expr, print_type};

/// A program read from a document, with what writing it back needs: the
/// document's graph, the program as read, and the statement node of each
/// printed line.
#[derive(Clone, Debug)]
pub struct Origin {
    graph: Graph,
    snapshot: Program,
    lines: Vec<Option<NodeId>>,
}

/// Reads a document into the program model and keeps its [`Origin`].
pub fn read_with_origin(bytes: &[u8]) -> Result<(Program, Origin), ReadError> {
    let graph = read(bytes).map_err(ReadError::Decode)?;
    let (text, lines) = to_text_with_lines(&graph).map_err(ReadError::Shape)?;
    let program = crate::parse(&text).map_err(ReadError::Text)?;
    let origin = Origin {
        graph,
        snapshot: program.clone(),
        lines,
    };
    Ok((program, origin))
}

/// Why a program could not be written back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write the program as MessagePack: {}", self.0)
    }
}

impl std::error::Error for WriteError {}

type W<T> = Result<T, WriteError>;

/// The document of `p`, which was read from `origin`'s document.
pub fn write_program(p: &Program, origin: &Origin) -> W<Vec<u8>> {
    let g = rebuild(p, origin)?;
    super::write(&g).map_err(|e| WriteError(e.0))
}

/// The graph of `p` (see the module docs).
pub fn rebuild(p: &Program, origin: &Origin) -> W<Graph> {
    let mut g = origin.graph.clone_with_room();
    let k = Keys::new(&mut g);
    let mut b = Builder {
        g,
        origin,
        subst: NodeMap::default(),
        memo: NodeMap::default(),
        templates: Vec::new(),
        first_var_types: None,
        k,
    };
    let root = b.g.root;
    let mut funcs = Vec::new();
    if let Some(Value::Array(entries)) = origin.graph.field(root, "functions") {
        for e in origin.graph.items_of(*entries) {
            let Some(Value::Node(fnode)) = origin.graph.entry(e, "value") else {
                return Err(WriteError("a functions entry without a Function".into()));
            };
            let name = origin
                .graph
                .field(*fnode, "name")
                .and_then(|v| origin.graph.str_of(v))
                .unwrap_or("")
                .to_string();
            let (Some(f), Some(snap)) = (p.function(&name), origin.snapshot.function(&name)) else {
                return Err(WriteError(format!(
                    "function '{name}' is not in the program"
                )));
            };
            let new = b.function(f, snap, *fnode)?;
            funcs.push(b.set_entry(e, "value", Value::Node(new)));
        }
    }
    if p.functions.len() != funcs.len() {
        return Err(WriteError("the passes added or removed a function".into()));
    }
    let funcs = b.g.new_array(&funcs);
    let new_root = b.with_fields(root, &[("functions", funcs)]);
    b.g.root = new_root;
    Ok(b.g)
}

/// Symbols the builder writes.
struct Keys {
    span: Sym,
    ty: Sym,
    name_hint: Sym,
    value: Sym,
    var: Sym,
    stmts: Sym,
    lc: Sym,
    args: Sym,
    attrs: Sym,
    kwargs: Sym,
    op: Sym,
    memref: Sym,
    empty: Sym,
    assign_stmt: Sym,
    eval_stmt: Sym,
}

impl Keys {
    fn new(g: &mut Graph) -> Keys {
        let mut s = |t: &str| g.syms.intern(t);
        Keys {
            span: s("span"),
            ty: s("type"),
            name_hint: s("name_hint"),
            value: s("value"),
            var: s("var"),
            stmts: s("stmts"),
            lc: s("leading_comments"),
            args: s("args"),
            attrs: s("attrs"),
            kwargs: s("kwargs"),
            op: s("op"),
            memref: s("memref"),
            empty: s(""),
            assign_stmt: s("AssignStmt"),
            eval_stmt: s("EvalStmt"),
        }
    }
}

struct Builder<'a> {
    g: Graph,
    origin: &'a Origin,
    /// Document node -> its replacement (variables whose type changed).
    subst: NodeMap,
    /// [`Builder::remap`]'s results.
    memo: NodeMap,
    /// [`Builder::template_for`]'s answers: function, type, template.
    templates: Vec<(String, Type, Option<Value>)>,
    /// The type of the first document variable of each name (see
    /// [`first_var_types`]), made when first needed.
    first_var_types: Option<FxHashMap<Sym, Option<Value>>>,
    k: Keys,
}

/// What one function's rebuild knows.
struct FnState {
    /// Output node of each model variable, once made.
    vars: Vec<Option<NodeId>>,
    /// MemRefs the passes left alone, by text: a changed MemRef equal to
    /// one of them is that object (MemoryReuse gives a tile its donor's).
    memrefs: FxHashMap<String, Value>,
    /// MemRefs built, by the document MemRef object they replace (its
    /// offset node; `None` for a variable that had none) and text: objects
    /// shared before stay shared, and new ones of equal text are one.
    built: FxHashMap<(Option<NodeId>, String), Value>,
    /// Document MemRef objects (offset nodes) whose text another, distinct
    /// object of the function has too: PyPTO keeps such objects apart
    /// (MemoryReuse gives views their own), so their replacements stay
    /// apart; every other new MemRef is one object per text.
    split_objects: rustc_hash::FxHashSet<NodeId>,
    /// The first MemRef built of each text.
    built_by_text: FxHashMap<String, Value>,
    /// MemRefs made for one variable (see [`crate::passes::rewrite::storage::memref_owner`]), by owner and
    /// text.
    own: FxHashMap<(VarId, String), Value>,
    /// The document's MemRef object (offset node) of each variable that
    /// has a document node with one, by variable index.
    doc_objects: Vec<Option<NodeId>>,
    /// The MemRef owners of the variables asked about, without and with
    /// the document's objects kept apart (one table each: a walk per
    /// variable would be quadratic on a long chain of views).
    owners: MemrefOwners,
    owners_apart: MemrefOwners,
    /// Base `Ptr` variables of string-named roots, by name.
    named_bases: FxHashMap<String, NodeId>,
    /// The document's statement node of each snapshot statement.
    origin_stmt: SecondaryMap<StmtId, Option<NodeId>>,
}

impl Builder<'_> {
    fn unknown_span(&mut self) -> Value {
        self.g.new_span(Span {
            file: self.k.empty,
            begin_line: -1,
            begin_column: -1,
            end_line: -1,
            end_column: -1,
        })
    }

    fn add(&mut self, kind: &str, fields: Vec<(Sym, Value)>) -> NodeId {
        let kind = self.g.syms.intern(kind);
        self.add_kind(kind, fields)
    }

    /// A new node. Its arrays and maps may be shared with other nodes
    /// (the writer tells occurrences apart by the node holding them, see
    /// `msgpack::write`); no value is placed twice in one node's fields.
    fn add_kind(&mut self, kind: Sym, mut fields: Vec<(Sym, Value)>) -> NodeId {
        self.g.add(kind, &mut fields)
    }

    /// A copy of node `n` with some fields replaced.
    fn with_fields(&mut self, n: NodeId, repl: &[(&str, Value)]) -> NodeId {
        let node = *self.g.node(n);
        let mut fields = self.g.entries_of(node.fields).to_vec();
        for (name, v) in repl {
            let sym = self.g.syms.intern(name);
            match fields.iter_mut().find(|(k, _)| *k == sym) {
                Some(slot) => slot.1 = *v,
                None => fields.push((sym, *v)),
            }
        }
        self.add_kind(node.kind, fields)
    }

    /// A copy of map `m` with entry `key` set (the other entries shared
    /// with `m`, which the copy replaces).
    fn set_entry(&mut self, m: &Value, key: &str, v: Value) -> Value {
        let sym = self.g.syms.intern(key);
        self.g.with_entry(m, sym, v)
    }

    /// Node `n` with every replaced node under it replaced (new nodes only
    /// where something under them changed; shared nodes stay shared).
    fn remap(&mut self, n: NodeId) -> NodeId {
        if let Some(m) = self.subst.get(n) {
            return m;
        }
        if let Some(m) = self.memo.get(n) {
            return m;
        }
        // Mark first: a cycle resolves to the node itself.
        self.memo.insert(n, n);
        let fields = self.g.node(n).fields;
        let Some(mut new) =
            self.remap_entries(self.g.entries_of(fields).len(), |g| g.entries_of(fields))
        else {
            return n;
        };
        let kind = self.g.node(n).kind;
        // PyPTO's mutators rebuild an assignment or expression statement
        // without its leading comments (loops and ifs keep theirs).
        if kind == self.k.assign_stmt || kind == self.k.eval_stmt {
            for (k, v) in &mut new {
                if *k == self.k.lc {
                    *v = Value::Array(List::EMPTY);
                }
            }
        }
        let out = self.add_kind(kind, new);
        self.memo.insert(n, out);
        out
    }

    /// The entries `of` gives (`len` of them) remapped, or `None` when
    /// none changes (then nothing is allocated).
    fn remap_entries(
        &mut self,
        len: usize,
        of: impl Fn(&Graph) -> &[(Sym, Value)],
    ) -> Option<Vec<(Sym, Value)>> {
        for i in 0..len {
            let (k, x) = of(&self.g)[i];
            let nx = self.remap_value(&x);
            if nx != x {
                let mut new = Vec::with_capacity(len);
                new.extend_from_slice(&of(&self.g)[..i]);
                new.push((k, nx));
                for j in i + 1..len {
                    let (k, y) = of(&self.g)[j];
                    let ny = self.remap_value(&y);
                    new.push((k, ny));
                }
                return Some(new);
            }
        }
        None
    }

    /// `v` with every replaced node under it replaced: `v` itself when
    /// none is.
    fn remap_value(&mut self, v: &Value) -> Value {
        match *v {
            Value::Node(n) => Value::Node(self.remap(n)),
            Value::Array(items) => {
                let len = items.len();
                for i in 0..len {
                    let x = self.g.items_of(items)[i];
                    let nx = self.remap_value(&x);
                    if nx != x {
                        let mut new = Vec::with_capacity(len);
                        new.extend_from_slice(&self.g.items_of(items)[..i]);
                        new.push(nx);
                        for j in i + 1..len {
                            let y = self.g.items_of(items)[j];
                            let ny = self.remap_value(&y);
                            new.push(ny);
                        }
                        return self.g.new_array(&new);
                    }
                }
                *v
            }
            Value::Map(entries) => {
                match self.remap_entries(entries.len(), |g| g.entries_of(entries)) {
                    // Still in key order: the entries are the old ones'.
                    Some(new) => self.g.new_map_in_order(&new),
                    None => *v,
                }
            }
            other => other,
        }
    }

    fn function(&mut self, f: &Function, snap: &Function, fnode: NodeId) -> W<NodeId> {
        let og = &self.origin.graph;
        // The document's variables of this function, by name (a name met
        // twice is ambiguous and not matched).
        let mut by_name: FxHashMap<Sym, Option<NodeId>> = FxHashMap::default();
        let mut named_bases = FxHashMap::default();
        // Symbols absent from the document match no node.
        let sym = |t: &str| og.syms.get(t).unwrap_or(Sym(u32::MAX));
        let (var_kind, iter_arg_kind, ptr) = (sym("Var"), sym("IterArg"), sym("Ptr"));
        let (name_hint, type_kind, empty) = (self.k.name_hint, sym("type_kind"), sym(""));
        let mut stack = vec![fnode];
        let mut seen = NodeSet::new(og);
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            let kind = og.node(n).kind;
            if kind == var_kind || kind == iter_arg_kind {
                let name = og
                    .field_sym(n, name_hint)
                    .and_then(Value::as_sym)
                    .unwrap_or(empty);
                let is_ptr = og
                    .field_sym(n, self.k.ty)
                    .and_then(|t| og.entry_sym(t, type_kind))
                    .and_then(Value::as_sym)
                    == Some(ptr);
                by_name
                    .entry(name)
                    .and_modify(|e| {
                        if *e != Some(n) {
                            *e = None
                        }
                    })
                    .or_insert(Some(n));
                if is_ptr {
                    named_bases
                        .entry(og.syms.str(name).to_string())
                        .or_insert(n);
                }
            }
            for (_, v) in og.fields(n) {
                push_nodes(og, v, &mut stack);
            }
        }
        // The document variable of a name (see `by_name`).
        let by_name = |name: &str| -> Option<Option<NodeId>> { by_name.get(&sym(name)).copied() };
        let mut origin_stmt = SecondaryMap::new();
        // Variables a statement defines, matched by position with the
        // statement's node (names repeat across loops).
        let mut by_def: FxHashMap<VarId, NodeId> = FxHashMap::default();
        let nodes_of = |n: NodeId, key: &str| -> Vec<NodeId> {
            match og.field(n, key) {
                Some(Value::Array(a)) => {
                    og.items_of(*a).iter().filter_map(Value::as_node).collect()
                }
                Some(Value::Node(x)) => vec![*x],
                _ => Vec::new(),
            }
        };
        for (_, s) in snap.walk() {
            let line = snap.pos_of(s).line as usize;
            if let Some(Some(n)) = self.origin.lines.get(line) {
                origin_stmt[s] = Some(*n);
                let pairs: Vec<(Vec<VarId>, Vec<NodeId>)> = match &snap.stmts[s].kind {
                    StmtKind::For(l) if og.kind(*n) == "ForStmt" => vec![
                        (l.iter_args.clone(), nodes_of(*n, "iter_args")),
                        (l.results.clone(), nodes_of(*n, "return_vars")),
                        (l.loop_var.into_iter().collect(), nodes_of(*n, "loop_var")),
                    ],
                    StmtKind::If(i) if og.kind(*n) == "IfStmt" => {
                        vec![(i.results.clone(), nodes_of(*n, "return_vars"))]
                    }
                    StmtKind::Assign { targets, .. } if og.kind(*n) == "AssignStmt" => {
                        vec![(targets.to_vec(), nodes_of(*n, "var"))]
                    }
                    _ => Vec::new(),
                };
                for (vs, ns) in pairs {
                    if vs.len() == ns.len() {
                        by_def.extend(vs.into_iter().zip(ns));
                    }
                }
            }
        }
        let mut st = FnState {
            vars: vec![None; f.vars.len()],
            memrefs: FxHashMap::default(),
            built: FxHashMap::default(),
            built_by_text: FxHashMap::default(),
            own: FxHashMap::default(),
            doc_objects: vec![None; f.vars.len()],
            owners: MemrefOwners::new(f),
            owners_apart: MemrefOwners::new(f),
            split_objects: Default::default(),
            named_bases,
            origin_stmt,
        };
        // The document's MemRefs that stay, by text, so equal new ones share.
        for (v, d) in f.vars.iter() {
            let Some(Some(o)) = by_name(d.name.as_str()) else {
                continue;
            };
            let (Some(t), Some(st_t)) = (&d.ty, snap.vars.get(v).and_then(|s| s.ty.as_ref()))
            else {
                continue;
            };
            if let (Some(m), Some(sm)) = (t.memref(), st_t.memref()) {
                if m == sm && snap.vars[v].name == d.name {
                    if let Some(mv) = og.field(o, "type").and_then(|t| og.entry(t, "memref")) {
                        st.memrefs.entry(print_memref(f, m)).or_insert(*mv);
                    }
                }
            }
        }
        let mut objects: FxHashMap<String, Vec<NodeId>> = FxHashMap::default();
        for (v, d) in snap.vars.iter() {
            let (Some(m), Some(Some(o))) = (
                d.ty.as_ref().and_then(Type::memref),
                by_name(d.name.as_str()),
            ) else {
                continue;
            };
            let _ = v;
            if let Some(off) = og
                .field(o, "type")
                .and_then(|t| og.entry(t, "memref"))
                .and_then(|m| og.entry(m, "byte_offset"))
                .and_then(Value::as_node)
            {
                let e = objects.entry(print_memref(snap, m)).or_default();
                if !e.contains(&off) {
                    e.push(off);
                }
            }
        }
        st.split_objects = objects
            .into_values()
            .filter(|o| o.len() > 1)
            .flatten()
            .collect();
        // Variables: the document's where the type is unchanged, new ones
        // otherwise (placeholders first, fields once every replacement is
        // known).
        let mut pending = Vec::new();
        for (v, d) in f.vars.iter() {
            let same_var = snap.vars.get(v).is_some_and(|s| s.name == d.name);
            let origin = by_def
                .get(&v)
                .copied()
                .filter(|_| same_var)
                .or_else(|| by_name(d.name.as_str()).flatten());
            st.doc_objects[v.index()] = origin
                .and_then(|o| og.field(o, "type"))
                .and_then(|t| og.entry(t, "memref"))
                .and_then(|m| og.entry(m, "byte_offset"))
                .and_then(Value::as_node);
            let snap_same = snap
                .vars
                .get(v)
                .is_some_and(|s| s.name == d.name && s.ty == d.ty);
            // An iter arg carries its init value's MemRef (PyPTO types it
            // so; the text does not show it).
            let carried = (d.ty.is_none())
                .then(|| carried_memref(f, v))
                .flatten()
                .filter(|m| {
                    let og = &self.origin.graph;
                    let old = origin
                        .and_then(|o| og.field(o, "type"))
                        .and_then(|t| og.entry(t, "memref"));
                    old.is_none() || !self.same_memref_as(f, m, old)
                });
            match origin {
                Some(o) if snap_same && carried.is_none() => st.vars[v.index()] = Some(o),
                Some(o) => {
                    let ph = self.add("Var", Vec::new());
                    self.subst.insert(o, ph);
                    st.vars[v.index()] = Some(ph);
                    pending.push((v, Some(o), ph));
                }
                // A name the text reads as a variable but the document has
                // none for (`tuple` of `-> tuple[...]`): nothing to write.
                None if d.ty.is_none() => {}
                None => {
                    let ph = self.add("Var", Vec::new());
                    st.vars[v.index()] = Some(ph);
                    pending.push((v, None, ph));
                }
            }
        }
        // Iter args last: they take their init value's MemRef object.
        pending.sort_by_key(|(v, _, _)| f.vars[*v].ty.is_none());
        for (v, o, ph) in pending {
            self.fill_var(f, snap, v, o, ph, &mut st)?;
        }
        // Parameters and return types.
        let params: Vec<Value> = f
            .params
            .iter()
            .map(|p| self.var_node(&st, p.var).map(Value::Node))
            .collect::<W<_>>()?;
        let body_origin = og.field(fnode, "body").and_then(Value::as_node);
        let body = self.block(f, snap, &f.body, body_origin, &mut st)?;
        let params = self.g.new_array(&params);
        let mut repl = vec![("params", params), ("body", Value::Node(body))];
        let rets = og
            .field(fnode, "return_types")
            .copied()
            .unwrap_or(Value::Nil);
        if f.ret == snap.ret {
            repl.push(("return_types", self.remap_value(&rets)));
        } else {
            return Err(WriteError(format!(
                "function '{}': the passes changed its return type",
                f.name
            )));
        }
        let remapped = self.remap(fnode);
        Ok(self.with_fields(remapped, &repl))
    }

    /// The output node of model variable `v` (a variable of a pass with no
    /// node yet gets one in [`Builder::function`]).
    fn var_node(&mut self, st: &FnState, v: VarId) -> W<NodeId> {
        match st.vars.get(v.index()).copied().flatten() {
            Some(n) => Ok(self.remap(n)),
            None => Err(WriteError(format!("variable {} has no node", v.index()))),
        }
    }

    fn fill_var(
        &mut self,
        f: &Function,
        snap: &Function,
        v: VarId,
        o: Option<NodeId>,
        ph: NodeId,
        st: &mut FnState,
    ) -> W<()> {
        let d = &f.vars[v];
        let og = &self.origin.graph;
        let (kind, mut fields) = match o {
            Some(o) => (
                og.kind(o).to_string(),
                og.fields(o)
                    .to_vec()
                    .iter()
                    .map(|(k, x)| (*k, self.remap_value(x)))
                    .collect::<Vec<_>>(),
            ),
            None => {
                let name = self.g.syms.intern(&d.name);
                (
                    "Var".to_string(),
                    vec![
                        (self.k.name_hint, Value::Str(name)),
                        (self.k.span, self.unknown_span()),
                    ],
                )
            }
        };
        let snap_ty = o
            .and_then(|_| snap.vars.get(v))
            .filter(|s| s.name == d.name)
            .and_then(|s| s.ty.clone());
        let origin_ty = o.and_then(|o| og.field(o, "type")).copied();
        let t = match (&d.ty, carried_memref(f, v), &origin_ty) {
            (Some(ty), _, _) => match self.alias_source_type(f, v, st) {
                Some(t) => t,
                None => {
                    self.build_type(f, ty, snap_ty.as_ref(), origin_ty.as_ref(), Some(v), st)?
                }
            },
            (None, Some(m), Some(ot)) => {
                // The init value's own MemRef object: found by text among
                // the kept ones, or the one built for the init variable.
                let init_was = None;
                let mv = self.init_memref(f, &m, init_was, st)?;
                let ot = self.remap_value(ot);
                self.set_entry(&ot, "memref", mv)
            }
            _ => return Err(WriteError(format!("variable '{}' has no type", d.name))),
        };
        match fields.iter_mut().find(|(k, _)| *k == self.k.ty) {
            Some(slot) => slot.1 = t,
            None => fields.push((self.k.ty, t)),
        }
        let kind = self.g.syms.intern(&kind);
        let n = self.add_kind(kind, fields);
        self.g.nodes[ph.index()] = *self.g.node(n);
        Ok(())
    }

    /// The type of a bare alias `v = y` that follows its source's whole
    /// type (see [`crate::ir::ObjectSharing::whole_type_aliases`]): `y`'s
    /// written type value itself, shape nodes and MemRef object included.
    /// `None` for any other variable, or while `y` has no type written yet.
    fn alias_source_type(&mut self, f: &Function, v: VarId, st: &FnState) -> Option<Value> {
        let y = pending_alias_source(f, v)?;
        let src = st.vars.get(y.index()).copied().flatten()?;
        let t = self.g.field_sym(src, self.k.ty).copied()?;
        Some(self.remap_value(&t))
    }

    /// The document value of type `ty`: the document's own (`origin`) where
    /// the model's equals what was read (`snap`), changed parts new.
    fn build_type(
        &mut self,
        f: &Function,
        ty: &Type,
        snap: Option<&Type>,
        origin: Option<&Value>,
        var: Option<VarId>,
        st: &mut FnState,
    ) -> W<Value> {
        if let (Some(s), Some(o)) = (snap, origin) {
            if s == ty {
                return Ok(self.remap_value(o));
            }
        }
        let same_shape = |a: &Type, b: &Type| match (a, b) {
            (Type::Tile(x, _), Type::Tile(y, _)) => x == y,
            (Type::Tensor(x, _), Type::Tensor(y, _)) => x == y,
            (Type::Other(x), Type::Other(y)) => without_memref(x) == without_memref(y),
            _ => false,
        };
        match ty {
            Type::Ptr => Ok({
                let tk = self.str_value("Ptr");
                self.type_map(&[("type_kind", tk)])
            }),
            Type::Scalar(d) => {
                let code = dtype_code(d.name())
                    .ok_or_else(|| WriteError(format!("unknown dtype {}", d.name())))?;
                let tk = self.str_value("ScalarType");
                Ok(self.type_map(&[("dtype", Value::Int(code)), ("type_kind", tk)]))
            }
            Type::Tile(..) | Type::Tensor(..) | Type::Other(_) => {
                // `pld.DistributedTensor[...]` is an expression in the
                // model; its MemRef is its last item.
                let other = match ty {
                    Type::Other(e) => Some(other_memref(e).map_err(|()| {
                        WriteError(format!(
                            "a type the writer cannot build: `{}`",
                            print_type(f, ty)
                        ))
                    })?),
                    _ => None,
                };
                let m = match &other {
                    Some(m) => m.as_ref(),
                    None => ty.memref(),
                };
                // A template: the document's type of this variable, or of
                // any variable of the function with the same type but for
                // the MemRef.
                let template = match (snap, origin) {
                    (Some(s), Some(o)) if same_shape(s, ty) => Some(*o),
                    _ => self.template_for(f, ty),
                };
                let Some(template) = template else {
                    return Err(WriteError(format!(
                        "no type in the document to build `{}` from",
                        print_type(f, ty)
                    )));
                };
                let mut t = self.remap_value(&template);
                let was = origin
                    .and_then(|o| self.origin.graph.entry(o, "memref"))
                    .and_then(|mv| self.origin.graph.entry(mv, "byte_offset"))
                    .and_then(Value::as_node);
                let memref = match m {
                    Some(m) => self.memref(f, m, was, var, st)?,
                    None => Value::Nil,
                };
                t = match memref {
                    Value::Nil => self.g.without_entry(&t, self.k.memref),
                    mv => self.set_entry(&t, "memref", mv),
                };
                if let Type::Tile(tt, _) = ty {
                    if let Some(space) = &tt.space {
                        let code = (0..10)
                            .find(|c| mem_space_name(*c) == Some(space.name()))
                            .ok_or_else(|| {
                                WriteError(format!("unknown memory space {}", space.name()))
                            })?;
                        t = self.set_entry(&t, "memory_space", Value::Int(code));
                    }
                }
                Ok(t)
            }
            _ => Err(WriteError(format!(
                "the passes changed a type the writer cannot build: `{}`",
                print_type(f, ty)
            ))),
        }
    }

    /// The MemRef object of an iter arg's init value: the one built for it
    /// (whatever document object it replaced) or a kept one.
    fn init_memref(
        &mut self,
        f: &Function,
        m: &MemRef,
        was: Option<NodeId>,
        st: &mut FnState,
    ) -> W<Value> {
        let text = print_memref(f, m);
        if let Some(v) = st.memrefs.get(&text) {
            return Ok(self.remap_value(&v.clone()));
        }
        if let Some(v) = st.built_by_text.get(&text).copied() {
            return Ok(self.remap_value(&v));
        }
        self.memref(f, m, was, None, st)
    }

    /// Whether document MemRef `old` reads as model MemRef `m`.
    fn same_memref_as(&self, f: &Function, m: &MemRef, old: Option<&Value>) -> bool {
        let og = &self.origin.graph;
        let Some(old) = old else { return false };
        let base = og
            .entry(old, "base")
            .and_then(|b| og.str_of(b))
            .unwrap_or("");
        let base_same = match m.base() {
            MemBase::Var(v) => &*f.vars[v].name == base,
            MemBase::Named(n) => &*n == base,
        };
        let off = og
            .entry(old, "byte_offset")
            .and_then(Value::as_node)
            .and_then(|o| og.field(o, "value"))
            .and_then(Value::as_int);
        base_same
            && off == m.const_offset()
            && og.entry(old, "size").and_then(Value::as_int) == m.size().map(|s| s as i64)
    }

    /// The document type of a variable of `f` whose model type equals `ty`
    /// but for the MemRef: the first such variable of the snapshot that
    /// the document names, the type of the first document variable of
    /// that name. Answers are kept per shape, so a program with many new
    /// variables costs one walk of the document, not one per variable.
    fn template_for(&mut self, f: &Function, ty: &Type) -> Option<Value> {
        let same = |t: &Type| match (t, ty) {
            (Type::Tile(x, _), Type::Tile(y, _)) => x == y,
            (Type::Tensor(x, _), Type::Tensor(y, _)) => x == y,
            _ => false,
        };
        if let Some((_, _, v)) = self
            .templates
            .iter()
            .find(|(name, t, _)| **name == *f.name && same(t))
        {
            return *v;
        }
        let origin = self.origin;
        let first = self
            .first_var_types
            .get_or_insert_with(|| first_var_types(&origin.graph));
        let found = origin.snapshot.function(&f.name).and_then(|snap| {
            snap.vars
                .iter()
                .filter(|(_, d)| d.ty.as_ref().is_some_and(same))
                .find_map(|(_, d)| {
                    let name = origin.graph.syms.get(&d.name)?;
                    first.get(&name).copied()
                })
                .flatten()
        });
        self.templates.push((f.name.to_string(), ty.clone(), found));
        found
    }

    fn str_value(&mut self, s: &str) -> Value {
        Value::Str(self.g.syms.intern(s))
    }

    fn type_map(&mut self, entries: &[(&str, Value)]) -> Value {
        let mut e: Vec<(Sym, Value)> = entries
            .iter()
            .map(|(k, v)| (self.g.syms.intern(k), *v))
            .collect();
        self.g.new_map(&mut e)
    }

    fn const_int(&mut self, value: i64, dtype: i64) -> NodeId {
        let span = self.unknown_span();
        let tk = self.str_value("ScalarType");
        let ty = self.type_map(&[("dtype", Value::Int(dtype)), ("type_kind", tk)]);
        self.add(
            "ConstInt",
            vec![
                (self.k.span, span),
                (self.k.ty, ty),
                (self.k.value, Value::Int(value)),
            ],
        )
    }

    /// The document value of MemRef `m` (of variable `var`, when building
    /// a variable's type): one object per distinct MemRef of the function,
    /// but one per variable for the MemRefs MemoryReuse makes for a single
    /// variable (see [`crate::passes::rewrite::storage::memref_owner`]).
    fn memref(
        &mut self,
        f: &Function,
        m: &MemRef,
        was: Option<NodeId>,
        var: Option<VarId>,
        st: &mut FnState,
    ) -> W<Value> {
        let text = print_memref(f, m);
        if let Some(v) = st.memrefs.get(&text) {
            return Ok(self.remap_value(&v.clone()));
        }
        // A MemRef whose offset is a plain index constant (or that a pass
        // recorded as made for one variable) is one MemoryReuse made for a
        // single moved member, or InitMemRef for a window view: PyPTO makes
        // one such object per variable, equal ones included, held also by
        // the variables that take their MemRef from it (`memref_owner`).
        let own = &f.sharing.own_memrefs;
        let per_variable = matches!(m.offset(), Some(Expr::Int(_)))
            || var.is_some_and(|v| {
                !own.is_empty() && own.contains(&st.owners.get(f, v, |_, _| false))
            });
        let owner = var.filter(|_| per_variable).map(|v| {
            // The document's objects, where both variables have one (set
            // for every variable before the first MemRef is built).
            let doc_objects = &st.doc_objects;
            let apart = |x: VarId, y: VarId| {
                let doc = |v: VarId| doc_objects.get(v.index()).copied().flatten();
                matches!((doc(x), doc(y)), (Some(a), Some(b)) if a != b)
            };
            st.owners_apart.get(f, v, apart)
        });
        if let Some(v) = owner.and_then(|o| st.own.get(&(o, text.clone()))) {
            return Ok(self.remap_value(&v.clone()));
        }
        let key = (was.filter(|w| st.split_objects.contains(w)), text);
        if let Some(v) = st.built.get(&key).filter(|_| !per_variable) {
            return Ok(self.remap_value(&v.clone()));
        }
        let text = key.1.clone();
        let (base_name, base_node) = match m.base() {
            MemBase::Var(v) => (f.vars[v].name.to_string(), self.var_node(st, v)?),
            MemBase::Named(n) => {
                let node = match st.named_bases.get(&*n) {
                    Some(&b) => self.remap(b),
                    None => {
                        let span = self.unknown_span();
                        let ty = {
                            let tk = self.str_value("Ptr");
                            self.type_map(&[("type_kind", tk)])
                        };
                        let name = self.str_value(&n);
                        let b = self.add(
                            "Var",
                            vec![
                                (self.k.span, span),
                                (self.k.ty, ty),
                                (self.k.name_hint, name),
                            ],
                        );
                        st.named_bases.insert(n.to_string(), b);
                        b
                    }
                };
                (n.to_string(), node)
            }
        };
        let offset = match m.offset() {
            Some(Expr::Const(n, d)) => {
                let code = dtype_code(d.name()).unwrap_or(0x14);
                self.const_int(n, code)
            }
            Some(Expr::Int(n)) => self.const_int(n, 0x15),
            Some(other) => match self.window_offset_args(f, var, st) {
                Some(args) => self.window_offset(f, &other, &args, st)?,
                None => self.fresh_expr(f, &other, st)?,
            },
            None => self.const_int(0, 0x14),
        };
        let base_str = self.str_value(&base_name);
        let mut entries = vec![
            ("base", base_str),
            ("base_node", Value::Node(base_node)),
            ("byte_offset", Value::Node(offset)),
            ("size", Value::Int(m.size().unwrap_or(0) as i64)),
        ];
        if let Some(s) = m.slots().filter(|&s| s != 1) {
            entries.push(("slot_count", Value::Int(s as i64)));
        }
        if m.slot_index().is_some() {
            return Err(WriteError(
                "a slotted MemRef the writer cannot build".into(),
            ));
        }
        let v = self.type_map(&entries);
        if let Some(o) = owner {
            st.own.insert((o, text.clone()), v);
        }
        st.built_by_text.entry(text).or_insert(v);
        st.built.insert(key, v);
        Ok(v)
    }

    /// The offset arguments of the window view (`tensor.slice`) that
    /// defines `var`, each with its node in the written document, when the
    /// statement is the document's.
    fn window_offset_args(
        &mut self,
        f: &Function,
        var: Option<VarId>,
        st: &FnState,
    ) -> Option<Vec<(Expr, NodeId)>> {
        let crate::ir::VarDef::Stmt(s) = f.vars[var?].def else {
            return None;
        };
        let StmtKind::Assign {
            value: Expr::Call(c),
            ..
        } = &f.stmts[s].kind
        else {
            return None;
        };
        let crate::ops::ViewRule::Window { offsets_arg } =
            crate::ops::lookup_or_default(c.op_name()).view
        else {
            return None;
        };
        let offsets = c.args.get(offsets_arg)?.as_elems()?;
        let og = &self.origin.graph;
        let call = og.field(st.origin_stmt[s]?, "value")?.as_node()?;
        let tuple = og
            .items(og.field(call, "args")?)?
            .get(offsets_arg)?
            .as_node()?;
        let nodes: Vec<NodeId> = og
            .items(og.field(tuple, "elements")?)?
            .iter()
            .map(Value::as_node)
            .collect::<Option<_>>()?;
        if nodes.len() != offsets.len() {
            return None;
        }
        let nodes: Vec<NodeId> = nodes.into_iter().map(|n| self.remap(n)).collect();
        Some(offsets.iter().cloned().zip(nodes).collect())
    }

    /// The byte offset of a window view as InitMemRef builds it from the
    /// view's offset arguments: `(off_0 * stride_0 + ... ) * elem_bytes`,
    /// a term per offset in dimension order (constant zero offsets with a
    /// constant stride left out, constant terms folded, a stride of 1 left
    /// out). PyPTO's terms hold the call's own offset argument objects
    /// (their spans included), so each term's offset is the node of the
    /// next argument equal to it; strides, folded constants and the
    /// element size are new.
    fn window_offset(
        &mut self,
        f: &Function,
        e: &Expr,
        args: &[(Expr, NodeId)],
        st: &mut FnState,
    ) -> W<NodeId> {
        use crate::ir::BinOp;
        let Expr::Binary(BinOp::Mul, sum, bytes) = e else {
            return self.fresh_expr(f, e, st);
        };
        let mut terms = Vec::new();
        let mut x = &**sum;
        while let Expr::Binary(BinOp::Add, a, b) = x {
            terms.push(&**b);
            x = a;
        }
        terms.push(x);
        terms.reverse();
        let mut next = 0;
        let mut acc: Option<NodeId> = None;
        for t in terms {
            let (lead, stride) = match t {
                Expr::Binary(BinOp::Mul, l, r) => (&**l, Some(&**r)),
                _ => (t, None),
            };
            // A folded constant term is new.
            let folded = stride.is_none() && matches!(t, Expr::Int(_) | Expr::Const(..));
            let arg = (!folded)
                .then(|| args[next..].iter().position(|(a, _)| a == lead))
                .flatten();
            let lead_node = match arg {
                Some(i) => {
                    let n = args[next + i].1;
                    next += i + 1;
                    n
                }
                None => self.fresh_expr(f, lead, st)?,
            };
            let term = match stride {
                Some(r) => {
                    let r = self.fresh_expr(f, r, st)?;
                    self.index_binary("Mul", lead_node, r)
                }
                None => lead_node,
            };
            acc = Some(match acc {
                None => term,
                Some(a) => self.index_binary("Add", a, term),
            });
        }
        let sum = acc.ok_or_else(|| WriteError("an empty window offset".into()))?;
        let bytes = self.fresh_expr(f, bytes, st)?;
        Ok(self.index_binary("Mul", sum, bytes))
    }

    /// A new index expression (a computed MemRef offset): PyPTO builds
    /// its arithmetic as `INDEX` scalars without a span.
    fn fresh_expr(&mut self, f: &Function, e: &Expr, st: &mut FnState) -> W<NodeId> {
        use crate::ir::BinOp;
        Ok(match e {
            Expr::Var(v) => self.var_node(st, *v)?,
            Expr::Int(n) => self.const_int(*n, 0x15),
            Expr::Const(n, d) => {
                let code = dtype_code(d.name()).unwrap_or(0x14);
                self.const_int(*n, code)
            }
            Expr::Binary(op, a, b) => {
                let kind = match op {
                    BinOp::Add => "Add",
                    BinOp::Sub => "Sub",
                    BinOp::Mul => "Mul",
                    BinOp::FloorDiv => "FloorDiv",
                    BinOp::Mod => "FloorMod",
                    _ => {
                        return Err(WriteError(format!(
                            "an expression the writer cannot build: `{}`",
                            print_expr(f, e)
                        )))
                    }
                };
                let l = self.fresh_expr(f, a, st)?;
                let r = self.fresh_expr(f, b, st)?;
                self.index_binary(kind, l, r)
            }
            _ => {
                return Err(WriteError(format!(
                    "an expression the writer cannot build: `{}`",
                    print_expr(f, e)
                )))
            }
        })
    }

    /// A new `INDEX` binary expression node without a span.
    fn index_binary(&mut self, kind: &str, l: NodeId, r: NodeId) -> NodeId {
        let span = self.unknown_span();
        let tk = self.str_value("ScalarType");
        let ty = self.type_map(&[("dtype", Value::Int(0x15)), ("type_kind", tk)]);
        let left = self.g.syms.intern("left");
        let right = self.g.syms.intern("right");
        self.add(
            kind,
            vec![
                (self.k.span, span),
                (self.k.ty, ty),
                (left, Value::Node(l)),
                (right, Value::Node(r)),
            ],
        )
    }

    /// The SeqStmts of `stmts`: `origin`'s node when nothing in it changed.
    fn block(
        &mut self,
        f: &Function,
        snap: &Function,
        stmts: &[StmtId],
        origin: Option<NodeId>,
        st: &mut FnState,
    ) -> W<NodeId> {
        let mut out = Vec::new();
        // Whether comment lines lead the statement to come: a document
        // statement keeps its leading comments only while the model still
        // has them (InitMemRef drops those of assignments, also of ones it
        // leaves otherwise alone, as PyPTO's rebuilds them).
        let mut commented = false;
        for &s in stmts {
            match f.stmts[s].kind {
                StmtKind::Comment(_) => {
                    commented = true;
                    continue;
                }
                StmtKind::Blank => continue,
                _ => {}
            }
            // `pl.func_attr(...)` prints the function's attrs, which the
            // Function node keeps.
            if st.origin_stmt[s].is_none()
                && f.stmts[s]
                    .call()
                    .is_some_and(|c| c.op_name() == "func_attr")
            {
                continue;
            }
            let mut n = self.stmt(f, snap, s, st)?;
            let has_comments = self
                .g
                .field_sym(n, self.k.lc)
                .and_then(|v| self.g.items(v))
                .is_some_and(|c| !c.is_empty());
            if has_comments && !std::mem::take(&mut commented) {
                n = self.with_fields(n, &[("leading_comments", Value::Array(List::EMPTY))]);
            }
            commented = false;
            out.push(Value::Node(n));
        }
        // A body PyPTO holds as one statement, not a SeqStmts.
        if let (Some(o), [Value::Node(only)]) = (origin, &out[..]) {
            if self.origin.graph.kind(o) != "SeqStmts" {
                return Ok(*only);
            }
        }
        if let Some(o) = origin.filter(|&o| self.origin.graph.kind(o) == "SeqStmts") {
            let remapped = self.remap(o);
            if self
                .g
                .field(remapped, "stmts")
                .and_then(|v| self.g.items(v))
                == Some(&out[..])
            {
                return Ok(remapped);
            }
            let stmts = self.g.new_array(&out);
            return Ok(self.with_fields(remapped, &[("stmts", stmts)]));
        }
        let span = self.unknown_span();
        let stmts = self.g.new_array(&out);
        Ok(self.add(
            "SeqStmts",
            vec![
                (self.k.span, span),
                (self.k.lc, Value::Array(List::EMPTY)),
                (self.k.stmts, stmts),
            ],
        ))
    }

    fn stmt(&mut self, f: &Function, snap: &Function, s: StmtId, st: &mut FnState) -> W<NodeId> {
        let kind = &f.stmts[s].kind;
        let origin = st.origin_stmt[s];
        let unchanged = origin.is_some() && snap.stmts.get(s).is_some_and(|x| &x.kind == kind);
        let og = &self.origin.graph;
        match kind {
            StmtKind::For(l) => {
                let Some(o) = origin else {
                    return Err(WriteError("the passes added a loop".into()));
                };
                let Some(StmtKind::For(sl)) = snap.stmts.get(s).map(|x| &x.kind) else {
                    return Err(WriteError("a loop changed kind".into()));
                };
                if l.iter != sl.iter || l.iter_args != sl.iter_args || l.results != sl.results {
                    return Err(WriteError("the passes changed a loop header".into()));
                }
                let body_o = og.field(o, "body").and_then(Value::as_node);
                let body = self.block(f, snap, &l.body, body_o, st)?;
                let r = self.remap(o);
                if self.g.field(r, "body") == Some(&Value::Node(body)) {
                    return Ok(r);
                }
                Ok(self.with_fields(r, &[("body", Value::Node(body))]))
            }
            StmtKind::If(i) => {
                let Some(o) = origin else {
                    return Err(WriteError("the passes added an if".into()));
                };
                let then_o = og.field(o, "then_body").and_then(Value::as_node);
                let else_o = og.field(o, "else_body").and_then(Value::as_node);
                let then = self.block(f, snap, &i.then_body, then_o, st)?;
                let mut repl = vec![("then_body", Value::Node(then))];
                if let Some(e) = &i.else_body {
                    let e = self.block(f, snap, e, else_o, st)?;
                    repl.push(("else_body", Value::Node(e)));
                }
                let r = self.remap(o);
                if repl.iter().all(|(k, v)| self.g.field(r, k) == Some(v)) {
                    return Ok(r);
                }
                Ok(self.with_fields(r, &repl))
            }
            StmtKind::With(w) => {
                let Some(o) = origin else {
                    return Err(WriteError("the passes added a scope".into()));
                };
                let body_o = og.field(o, "body").and_then(Value::as_node);
                let body = self.block(f, snap, &w.body, body_o, st)?;
                let r = self.remap(o);
                if self.g.field(r, "body") == Some(&Value::Node(body)) {
                    return Ok(r);
                }
                Ok(self.with_fields(r, &[("body", Value::Node(body))]))
            }
            _ if unchanged => Ok(self.remap(origin.unwrap_or(NodeId(0)))),
            StmtKind::Alloc {
                var,
                space,
                size,
                pinned,
            } => {
                let code = (0..10)
                    .find(|c| mem_space_name(*c) == Some(space.name()))
                    .ok_or_else(|| WriteError(format!("unknown memory space {}", space.name())))?;
                let a0 = self.const_int(code, 0x15);
                let a1 = self.const_int(*size as i64, 0x15);
                let kwargs = if *pinned {
                    let key = self.str_value("pinned");
                    let kv = self.type_map(&[("key", key), ("value", Value::Bool(true))]);
                    vec![kv]
                } else {
                    Vec::new()
                };
                let v = self.var_node(st, *var)?;
                self.call_stmt(
                    "tile.alloc",
                    vec![Value::Node(a0), Value::Node(a1)],
                    kwargs,
                    Type::Ptr,
                    f,
                    Some(v),
                    st,
                )
            }
            StmtKind::Assign {
                value: Expr::Call(c),
                ..
            }
            | StmtKind::Expr(Expr::Call(c))
                if origin.is_some() =>
            {
                // The document's call with keyword values or attrs changed
                // (reserve_buffer's base; pipeline tags MemoryReuse consumes).
                let o = origin.unwrap_or(NodeId(0));
                let field = if og.kind(o) == "EvalStmt" {
                    "expr"
                } else {
                    "value"
                };
                let same_shape = snap.stmts.get(s).and_then(|x| x.call()).is_some_and(|sc| {
                    let names = |c: &crate::ir::Call| {
                        c.kwargs
                            .iter()
                            .filter(|k| &*k.name != "attrs")
                            .map(|k| k.name.clone())
                            .collect::<Vec<_>>()
                    };
                    sc.func == c.func && sc.args == c.args && names(sc) == names(c)
                });
                let (true, Some(Value::Node(call))) = (same_shape, og.field(o, field)) else {
                    return Err(WriteError(format!(
                        "the passes changed a statement the writer cannot rebuild yet: `{}`",
                        crate::print::print_stmt(f, s).trim()
                    )));
                };
                let call = *call;
                let kw = self.kwargs_updated(call, c)?;
                let snap_attrs = snap
                    .stmts
                    .get(s)
                    .and_then(|x| x.call())
                    .and_then(|sc| sc.kwarg("attrs").cloned());
                let attrs = match (c.kwarg("attrs"), &snap_attrs) {
                    (None, _) => Value::Array(List::EMPTY),
                    (Some(a), Some(sa)) if a == sa => {
                        let v = og.field(call, "attrs").copied().unwrap_or(Value::Nil);
                        self.remap_value(&v)
                    }
                    _ => return Err(WriteError("the passes changed call attributes".into())),
                };
                let rc = self.remap(call);
                let call2 = self.with_fields(rc, &[("kwargs", kw), ("attrs", attrs)]);
                let ro = self.remap(o);
                Ok(self.with_fields(ro, &[(field, Value::Node(call2))]))
            }
            _ => Err(WriteError(format!(
                "the passes added a statement the writer cannot build yet: `{}`",
                crate::print::print_stmt(f, s).trim()
            ))),
        }
    }

    /// `call`'s kwargs with the scalar values of model call `c`.
    fn kwargs_updated(&mut self, call: NodeId, c: &crate::ir::Call) -> W<Value> {
        let og = &self.origin.graph;
        let Some(Value::Array(kw)) = og.field(call, "kwargs") else {
            return Err(WriteError("a call without kwargs".into()));
        };
        let mut out = Vec::new();
        for e in og.items_of(*kw).to_vec().iter() {
            let key = og
                .entry(e, "key")
                .and_then(|k| og.str_of(k))
                .unwrap_or("")
                .to_string();
            let old = og.entry(e, "value").copied().unwrap_or(Value::Nil);
            let new = match (c.kwarg(&key), &old) {
                (Some(Expr::Int(n)), Value::Int(_)) => Value::Int(*n),
                (Some(Expr::Bool(b)), Value::Bool(_)) => Value::Bool(*b),
                (Some(_), _) => self.remap_value(&old),
                (None, _) => return Err(WriteError(format!("the passes removed kwarg '{key}'"))),
            };
            out.push(self.set_entry(e, "value", new));
        }
        Ok(self.g.new_array(&out))
    }

    #[allow(clippy::too_many_arguments)]
    fn call_stmt(
        &mut self,
        op: &str,
        args: Vec<Value>,
        kwargs: Vec<Value>,
        ty: Type,
        f: &Function,
        var: Option<NodeId>,
        st: &mut FnState,
    ) -> W<NodeId> {
        let span = self.unknown_span();
        let t = self.build_type(f, &ty, None, None, None, st)?;
        let op_name = self.str_value(op);
        let opv = self.type_map(&[("is_global_var", Value::Bool(false)), ("name", op_name)]);
        let (args, kwargs) = (self.g.new_array(&args), self.g.new_array(&kwargs));
        let call = self.add(
            "Call",
            vec![
                (self.k.span, span),
                (self.k.ty, t),
                (self.k.op, opv),
                (self.k.args, args),
                (self.k.attrs, Value::Array(List::EMPTY)),
                (self.k.kwargs, kwargs),
            ],
        );
        let mut fields = vec![
            (self.k.span, span),
            (self.k.lc, Value::Array(List::EMPTY)),
            (self.k.value, Value::Node(call)),
        ];
        let kind = match var {
            Some(v) => {
                fields.push((self.k.var, Value::Node(v)));
                "AssignStmt"
            }
            None => "EvalStmt",
        };
        Ok(self.add(kind, fields))
    }
}

/// The MemRef an untyped carried variable holds (the text shows no type
/// for it; PyPTO types it): an iter arg holds its init value's; a tile
/// result of a loop its iter arg's, a tile result of an `if` the value
/// its then branch yields (InitMemRef's rule); a tensor result the MemRef
/// of its own the pass gave it ([`Function::untyped_memrefs`]).
fn carried_memref(f: &Function, v: VarId) -> Option<MemRef> {
    use crate::ir::{Block, VarDef};
    let mut v = v;
    // Whether the chain went through a loop or `if` result.
    let mut result = false;
    // Each step goes to an enclosing construct's variable: a malformed
    // program's cycle ends at the bound.
    for _ in 0..=f.stmts.len() {
        if let Some(m) = f.untyped_memrefs.get(&v) {
            return Some(m.clone());
        }
        let next = match (f.vars[v].def, result || f.vars[v].ty.is_none()) {
            (VarDef::IterArg(s), _) => {
                let StmtKind::For(l) = &f.stmts[s].kind else {
                    return None;
                };
                let i = l.iter_args.iter().position(|&a| a == v)?;
                l.init_values().get(i)?.as_var()?
            }
            (VarDef::Stmt(s), true) => {
                result = true;
                match &f.stmts[s].kind {
                    StmtKind::For(l) => {
                        let i = l.results.iter().position(|&r| r == v)?;
                        *l.iter_args.get(i)?
                    }
                    StmtKind::If(c) => {
                        let i = c.results.iter().position(|&r| r == v)?;
                        let then = f.block(Block::Then(s));
                        let y = then.get(f.yield_index(Block::Then(s))?)?;
                        let StmtKind::Yield(vals) = &f.stmts[*y].kind else {
                            return None;
                        };
                        vals.get(i)?.as_var()?
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        match &f.vars[next].ty {
            Some(t @ Type::Tile(..)) => return t.memref().cloned(),
            Some(_) if result => return None,
            Some(t) => return t.memref().cloned(),
            None => v = next,
        }
    }
    None
}

/// The source `y` of a bare alias `v = y` that follows its source's whole
/// type (see [`crate::ir::ObjectSharing::whole_type_aliases`]), while the
/// two types are equal.
fn pending_alias_source(f: &Function, v: VarId) -> Option<VarId> {
    if !f.sharing.whole_type_aliases.contains(&v) {
        return None;
    }
    let crate::ir::VarDef::Stmt(s) = f.vars[v].def else {
        return None;
    };
    match &f.stmts[s].kind {
        StmtKind::Assign {
            targets,
            value: Expr::Var(y),
        } if targets[..] == [v] && f.vars[*y].ty == f.vars[v].ty => Some(*y),
        _ => None,
    }
}

/// The items of a `pld.DistributedTensor[...]` type expression without a
/// trailing `pl.MemRef(...)`.
fn without_memref(e: &Expr) -> Option<Vec<Expr>> {
    let Expr::Index(_, items) = e else {
        return None;
    };
    let items = items.as_elems()?;
    let n = items.len() - usize::from(items.last().is_some_and(is_memref_call));
    Some(items[..n].to_vec())
}

fn is_memref_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if &*c.func == "pl.MemRef")
}

/// The MemRef of a `pld.DistributedTensor[..., pl.MemRef(...)]` type
/// expression: `Ok(None)` without one, `Err` for a form it cannot read.
fn other_memref(e: &Expr) -> Result<Option<MemRef>, ()> {
    let Expr::Index(_, items) = e else {
        return Err(());
    };
    let Some(Expr::Call(c)) = items
        .as_elems()
        .and_then(|i| i.last())
        .filter(|x| is_memref_call(x))
    else {
        return Ok(None);
    };
    let base = match c.args.first() {
        Some(Expr::Str(s, _)) => MemBase::Named((&**s).into()),
        Some(Expr::Var(v)) => MemBase::Var(*v),
        _ => return Err(()),
    };
    let size = c
        .args
        .get(2)
        .and_then(Expr::as_int)
        .and_then(|n| u64::try_from(n).ok());
    Ok(Some(
        crate::ir::MemRefParts {
            base,
            offset: c.args.get(1).cloned(),
            size,
            slots: None,
            slot_index: None,
        }
        .into(),
    ))
}

/// A MemRef's text in function `f` (its identity for sharing).
fn print_memref(f: &Function, m: &MemRef) -> String {
    let t = Type::Tile(
        crate::ir::TileType {
            shape: Vec::new().into(),
            dtype: crate::ir::DType::Int8,
            space: None,
            extras: Vec::new(),
        }
        .into(),
        Some(m.clone()),
    );
    print_type(f, &t)
}

/// PyPTO's `DataType` code of a dtype name.
fn dtype_code(name: &str) -> Option<i64> {
    (0..0x60).find(|c| dtype_name(*c) == Some(name))
}

/// Node -> node, dense (the document's ids are dense).
#[derive(Default)]
struct NodeMap(Vec<u32>);

impl NodeMap {
    fn get(&self, n: NodeId) -> Option<NodeId> {
        self.0
            .get(n.index())
            .filter(|&&m| m != u32::MAX)
            .map(|&m| NodeId(m))
    }

    fn insert(&mut self, n: NodeId, m: NodeId) {
        if self.0.len() <= n.index() {
            self.0.resize(n.index() + 1, u32::MAX);
        }
        self.0[n.index()] = m.0;
    }
}

/// The type of the first `Var` or `IterArg` of each name in a depth-first
/// walk of the document from its root (`None`: it has none).
fn first_var_types(og: &Graph) -> FxHashMap<Sym, Option<Value>> {
    let mut out = FxHashMap::default();
    let mut stack = vec![og.root];
    let mut seen = NodeSet::new(og);
    // Symbols absent from the document match no node.
    let sym = |t: &str| og.syms.get(t).unwrap_or(Sym(u32::MAX));
    let (var, iter_arg, name_hint, ty) =
        (sym("Var"), sym("IterArg"), sym("name_hint"), sym("type"));
    while let Some(n) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        let kind = og.node(n).kind;
        if kind == var || kind == iter_arg {
            if let Some(name) = og.field_sym(n, name_hint).and_then(Value::as_sym) {
                out.entry(name)
                    .or_insert_with(|| og.field_sym(n, ty).copied());
            }
        }
        for (_, x) in og.fields(n) {
            push_nodes(og, x, &mut stack);
        }
    }
    out
}

fn push_nodes(g: &Graph, v: &Value, out: &mut Vec<NodeId>) {
    match v {
        Value::Node(n) => out.push(*n),
        Value::Array(items) => g
            .items_of(*items)
            .iter()
            .for_each(|x| push_nodes(g, x, out)),
        Value::Map(entries) => g
            .entries_of(*entries)
            .iter()
            .for_each(|(_, x)| push_nodes(g, x, out)),
        _ => {}
    }
}
