//! The operation arena: operations, values, blocks and regions of one
//! module, with use lists and block order kept in side tables.
//!
//! Operations of a block form a doubly linked list (`prev`/`next` ids, like
//! cranelift's `Layout`), so inserting or erasing is O(1) and ids stay
//! stable. Every value records its uses (`(op, operand index)`), so
//! "users of a value" and "replace all uses" are cheap.

use std::collections::HashMap;

use crate::ir::{Attribute, BlockId, Location, NamedAttrs, OpId, RegionId, Type, ValueId};

use super::src_loc::LocAlias;

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult {
        /// Defining operation.
        op: OpId,
        /// Result number.
        index: u32,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// Owning block.
        block: BlockId,
        /// Argument number.
        index: u32,
    },
}

/// One use of a value: operand `index` of `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    /// The using operation.
    pub op: OpId,
    /// The operand number.
    pub index: u32,
}

/// Where to put an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// First in the block.
    BlockStart(BlockId),
    /// Last in the block.
    BlockEnd(BlockId),
    /// Right before an operation.
    Before(OpId),
    /// Right after an operation.
    After(OpId),
}

/// How an operation is written, when it is not the plain generic form or a
/// fixed custom form: the HIVM structured family
/// (`hivm.hir.vadd ins(...) outs(...) attr = value`) records its pieces in
/// order so that it prints back the way it was written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Syntax {
    /// Pieces in textual order.
    pub pieces: Vec<Piece>,
}

/// One piece of a structured op's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Verbatim text, e.g. an enum keyword `<sum>`, `[<CUBE>, <PIPE_FIX>]`,
    /// a string or a bare keyword.
    Text(String),
    /// The next piece follows without a space (`pointer_cast(%a)`).
    NoSpace,
    /// The attribute dictionary (attributes not printed by other pieces);
    /// printed only when non-empty.
    AttrDict,
    /// Bare operands right after the op name: `%a, %b`.
    Operands {
        /// The operand segment.
        segment: usize,
    },
    /// `: T, U` giving the types of the bare operands.
    OperandTypes,
    /// `keyword(%a, %b : T, U)` over operand segment `segment` (`ins`,
    /// `outs`, `temp_buffer`; an empty keyword for `(%a)`).
    Group {
        /// The keyword before the parenthesis.
        keyword: String,
        /// The operand segment printed inside.
        segment: usize,
        /// Whether the types are written (`: T`).
        typed: bool,
    },
    /// `name %v : T` (a keyword then one operand): operand segment `segment`.
    KeywordOperand {
        /// The keyword.
        name: String,
        /// The operand segment.
        segment: usize,
        /// Whether the type is written.
        typed: bool,
    },
    /// `[%a, %b]`: operand segment `segment` in square brackets.
    Brackets {
        /// The operand segment.
        segment: usize,
    },
    /// `name = <attr>`: the op attribute `name`.
    AttrClause {
        /// Attribute name.
        name: String,
    },
    /// `<attr>` alone: the op attribute `name` written bare (the callee
    /// string of `hivm.hir.custom`, its ODS `StrAttr:$name`).
    AttrValue {
        /// Attribute name.
        name: String,
    },
    /// `name = %v : T`: operand segment `segment` (one value).
    OperandClause {
        /// Clause keyword.
        name: String,
        /// The operand segment.
        segment: usize,
        /// Whether the type is written.
        typed: bool,
    },
    /// The result types, `-> T, U` (`arrow`) or `: T, U`; parenthesised
    /// when `parens`.
    Results {
        /// `->` rather than `:`.
        arrow: bool,
        /// `(T, U)`.
        parens: bool,
    },
    /// `: (T, U) -> V`: the operand types (all operands) and result types.
    Signature,
    /// `to T, U`: the result types after bare operand types.
    ToResults,
    /// Region `index` of the op.
    Region(usize),
}

/// An operation.
#[derive(Clone, Debug)]
pub struct OpData {
    name: String,
    operands: Vec<ValueId>,
    results: Vec<ValueId>,
    /// Attributes (inherent and discardable), sorted by name.
    pub attrs: NamedAttrs,
    regions: Vec<RegionId>,
    /// Successor blocks (`cf.br ^bb1`), in order.
    successors: Vec<BlockId>,
    /// Lengths of the operand segments (empty: one segment of all operands).
    pub segments: Vec<u32>,
    /// Textual layout of structured ops; `None` for other ops.
    pub syntax: Option<Box<Syntax>>,
    /// Source position (for diagnostics).
    pub loc: Location,
    parent: Option<BlockId>,
    prev: Option<OpId>,
    next: Option<OpId>,
    erased: bool,
}

impl OpData {
    /// Full name, `dialect.op` (e.g. `memref.alloc`, `hivm.hir.vadd`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the op's name is `name`.
    pub fn is(&self, name: &str) -> bool {
        self.name == name
    }

    /// The dialect prefix (`memref` for `memref.alloc`).
    pub fn dialect(&self) -> &str {
        self.name.split('.').next().unwrap_or("")
    }

    /// Operands in order.
    pub fn operands(&self) -> &[ValueId] {
        &self.operands
    }

    /// Operand `i`.
    pub fn operand(&self, i: usize) -> Option<ValueId> {
        self.operands.get(i).copied()
    }

    /// Results in order.
    pub fn results(&self) -> &[ValueId] {
        &self.results
    }

    /// Result `i`.
    pub fn result(&self, i: usize) -> Option<ValueId> {
        self.results.get(i).copied()
    }

    /// Owned regions in order.
    pub fn regions(&self) -> &[RegionId] {
        &self.regions
    }

    /// Successor blocks in order (branch targets).
    pub fn successors(&self) -> &[BlockId] {
        &self.successors
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        self.attrs.get(name)
    }

    /// Whether the attribute `name` is present.
    pub fn has_attr(&self, name: &str) -> bool {
        self.attrs.contains(name)
    }

    /// The block holding this op (`None` when detached or for the module).
    pub fn parent_block(&self) -> Option<BlockId> {
        self.parent
    }

    /// Whether the op was erased.
    pub fn is_erased(&self) -> bool {
        self.erased
    }

    /// Operand segment `i` (segments come from `segments`; without them the
    /// only segment, 0, is all operands). Empty when out of range.
    pub fn segment(&self, i: usize) -> &[ValueId] {
        if self.segments.is_empty() {
            return if i == 0 { &self.operands } else { &[] };
        }
        let start: usize = self.segments.iter().take(i).map(|&n| n as usize).sum();
        match self.segments.get(i) {
            Some(&n) if start + n as usize <= self.operands.len() => {
                &self.operands[start..start + n as usize]
            }
            _ => &[],
        }
    }

    /// Operand index range of segment `i`.
    pub fn segment_range(&self, i: usize) -> std::ops::Range<usize> {
        if self.segments.is_empty() {
            return if i == 0 { 0..self.operands.len() } else { 0..0 };
        }
        let start: usize = self.segments.iter().take(i).map(|&n| n as usize).sum();
        let n = self.segments.get(i).copied().unwrap_or(0) as usize;
        start..start + n
    }

    /// For structured ops, the operands of the group `keyword`
    /// (`ins`, `outs`, `temp_buffer`, ...) or of the clause `keyword`.
    pub fn group(&self, keyword: &str) -> Option<&[ValueId]> {
        self.group_range(keyword).map(|r| &self.operands[r])
    }

    /// The operand index range of [`OpData::group`] `keyword`.
    pub fn group_range(&self, keyword: &str) -> Option<std::ops::Range<usize>> {
        let Some(syntax) = self.syntax.as_ref() else {
            return self.ods_group_range(keyword);
        };
        let r = syntax.pieces.iter().find_map(|p| match p {
            Piece::Group {
                keyword: k,
                segment,
                ..
            }
            | Piece::OperandClause {
                name: k, segment, ..
            } if k == keyword => Some(self.segment_range(*segment)),
            _ => None,
        })?;
        (r.end <= self.operands.len()).then_some(r)
    }
}

impl OpData {
    /// [`OpData::group_range`] of an op read by its ODS format: the
    /// operands written between `keyword(` and `)` (consecutive ODS
    /// operands), when the op has that group and it is written.
    fn ods_group_range(&self, keyword: &str) -> Option<std::ops::Range<usize>> {
        let (ods, elems) = crate::ir::format::op_format(&self.name)?;
        let n = ods.operands.len();
        if self.segments.len() != n {
            return None;
        }
        let vars = crate::ir::format::group_operands(elems, keyword)?;
        let (&first, &last) = (vars.first()?, vars.last()?);
        if vars.windows(2).any(|w| w[1] != w[0] + 1) {
            return None;
        }
        let start: usize = self.segments[..first].iter().map(|&k| k as usize).sum();
        let end: usize = self.segments[..=last].iter().map(|&k| k as usize).sum();
        // An optional group that was not written is no group.
        (end > start && end <= self.operands.len()).then_some(start..end)
    }
}

/// A value (op result or block argument).
#[derive(Clone, Debug)]
pub struct ValueData {
    ty: Type,
    def: ValueDef,
    uses: Vec<Use>,
}

/// A block: arguments and a list of operations.
#[derive(Clone, Debug)]
pub struct BlockData {
    args: Vec<ValueId>,
    first: Option<OpId>,
    last: Option<OpId>,
    parent: RegionId,
}

/// A region: a list of blocks owned by an operation.
#[derive(Clone, Debug)]
pub struct RegionData {
    blocks: Vec<BlockId>,
    parent: OpId,
}

/// Everything needed to create an operation (see [`Module::create_op`]).
#[derive(Clone, Debug, Default)]
pub struct OpSpec {
    /// Full op name.
    pub name: String,
    /// Operands.
    pub operands: Vec<ValueId>,
    /// Result types (one result value is made per type).
    pub result_types: Vec<Type>,
    /// Attributes.
    pub attrs: NamedAttrs,
    /// Number of (empty) regions to create.
    pub num_regions: usize,
    /// Operand segment lengths (empty: one segment).
    pub segments: Vec<u32>,
    /// Successor blocks.
    pub successors: Vec<BlockId>,
    /// Structured syntax, if any.
    pub syntax: Option<Box<Syntax>>,
    /// Location.
    pub loc: Location,
}

impl OpSpec {
    /// A spec with a name and location; fill the rest with the builder methods.
    pub fn new(name: impl Into<String>, loc: Location) -> OpSpec {
        OpSpec {
            name: name.into(),
            loc,
            ..OpSpec::default()
        }
    }

    /// Sets the operands.
    pub fn operands(mut self, operands: impl IntoIterator<Item = ValueId>) -> OpSpec {
        self.operands = operands.into_iter().collect();
        self
    }

    /// Sets the result types.
    pub fn results(mut self, types: impl IntoIterator<Item = Type>) -> OpSpec {
        self.result_types = types.into_iter().collect();
        self
    }

    /// Adds an attribute.
    pub fn attr(mut self, name: impl Into<String>, value: Attribute) -> OpSpec {
        self.attrs.set(name, value);
        self
    }

    /// Sets the number of regions.
    pub fn regions(mut self, n: usize) -> OpSpec {
        self.num_regions = n;
        self
    }

    /// Sets the operand segment lengths.
    pub fn segments(mut self, segments: Vec<u32>) -> OpSpec {
        self.segments = segments;
        self
    }
}

/// A module: the arenas plus the top `builtin.module` operation, whose
/// attributes are the module attributes (e.g. `hacc.target`).
#[derive(Clone, Debug)]
pub struct Module {
    ops: Vec<OpData>,
    values: Vec<ValueData>,
    blocks: Vec<BlockData>,
    regions: Vec<RegionData>,
    top: OpId,
    /// The `{-# dialect_resources: ... #-}` sections of the file, as
    /// written (`dense_resource<..>` attributes name their blobs); printed
    /// back after the module.
    pub resources: Vec<String>,
    /// The source locations of the input, as written inside `loc(...)`
    /// (`"kernel.py":12:24`, `#loc3`, `fused[...]`, ...); a
    /// [`Location::src`] indexes them.
    pub src_locs: Vec<String>,
    /// The `#name = loc(...)` aliases of the input, in order, printed back
    /// where they were (see [`LocAlias`]).
    pub loc_aliases: Vec<LocAlias>,
    /// The `loc(...)` of block arguments (`%a: T loc(...)`), as
    /// [`Location::src`] values.
    pub arg_locs: HashMap<ValueId, u32>,
}

impl Default for Module {
    fn default() -> Self {
        Module::new()
    }
}

impl Module {
    /// An empty module (`builtin.module` with one empty block).
    pub fn new() -> Module {
        let mut m = Module {
            ops: Vec::new(),
            values: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
            top: OpId(0),
            resources: Vec::new(),
            src_locs: Vec::new(),
            loc_aliases: Vec::new(),
            arg_locs: HashMap::new(),
        };
        let top = m.create_op(OpSpec::new("builtin.module", Location::unknown()).regions(1));
        m.top = top;
        let region = m.ops[top.index()].regions[0];
        m.add_block(region, &[]);
        m
    }

    // ----- access -------------------------------------------------------

    /// The top `builtin.module` operation.
    pub fn top(&self) -> OpId {
        self.top
    }

    /// The block holding the module's top-level operations.
    pub fn body(&self) -> BlockId {
        let region = self.ops[self.top.index()].regions[0];
        self.regions[region.index()].blocks[0]
    }

    /// Module attribute `name` (e.g. `hacc.target`).
    pub fn module_attr(&self, name: &str) -> Option<&Attribute> {
        self.op(self.top).attr(name)
    }

    /// The operation `op`.
    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op.index()]
    }

    /// Mutable access to attributes, location, syntax of `op` (operands and
    /// results change through [`Module`] methods to keep use lists right).
    pub fn op_mut(&mut self, op: OpId) -> &mut OpData {
        &mut self.ops[op.index()]
    }

    /// Number of operations ever created (ids are below this).
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    /// Number of values ever created.
    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    /// The attribute `name` of `op`.
    pub fn attr(&self, op: OpId, name: &str) -> Option<&Attribute> {
        self.ops[op.index()].attrs.get(name)
    }

    /// Sets attribute `name` of `op`.
    pub fn set_attr(&mut self, op: OpId, name: impl Into<String>, value: Attribute) {
        self.ops[op.index()].attrs.set(name, value);
    }

    /// Removes attribute `name` of `op`, returning it.
    pub fn remove_attr(&mut self, op: OpId, name: &str) -> Option<Attribute> {
        self.ops[op.index()].attrs.remove(name)
    }

    /// Type of a value.
    pub fn value_type(&self, v: ValueId) -> &Type {
        &self.values[v.index()].ty
    }

    /// Changes the type of a value (uses are not touched).
    pub fn set_type(&mut self, v: ValueId, ty: Type) {
        self.values[v.index()].ty = ty;
    }

    /// Where a value comes from.
    pub fn value_def(&self, v: ValueId) -> ValueDef {
        self.values[v.index()].def
    }

    /// The op defining `v`, if it is an op result.
    pub fn defining_op(&self, v: ValueId) -> Option<OpId> {
        match self.values[v.index()].def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// The block owning `v`, if it is a block argument.
    pub fn block_arg_owner(&self, v: ValueId) -> Option<(BlockId, usize)> {
        match self.values[v.index()].def {
            ValueDef::BlockArg { block, index } => Some((block, index as usize)),
            ValueDef::OpResult { .. } => None,
        }
    }

    /// The block a value is defined in (its op's block, or its own block).
    pub fn value_block(&self, v: ValueId) -> Option<BlockId> {
        match self.values[v.index()].def {
            ValueDef::OpResult { op, .. } => self.ops[op.index()].parent,
            ValueDef::BlockArg { block, .. } => Some(block),
        }
    }

    /// Uses of `v` (in the order they were made; parsing makes them in
    /// program order).
    pub fn uses(&self, v: ValueId) -> &[Use] {
        &self.values[v.index()].uses
    }

    /// Distinct operations using `v`, in use order.
    pub fn users(&self, v: ValueId) -> Vec<OpId> {
        let mut out: Vec<OpId> = Vec::new();
        for u in &self.values[v.index()].uses {
            if !out.contains(&u.op) {
                out.push(u.op);
            }
        }
        out
    }

    /// Whether `v` has any use.
    pub fn has_uses(&self, v: ValueId) -> bool {
        !self.values[v.index()].uses.is_empty()
    }

    /// Arguments of a block.
    pub fn block_args(&self, b: BlockId) -> &[ValueId] {
        &self.blocks[b.index()].args
    }

    /// The region holding a block.
    pub fn block_region(&self, b: BlockId) -> RegionId {
        self.blocks[b.index()].parent
    }

    /// The op owning the region of a block.
    pub fn block_parent_op(&self, b: BlockId) -> OpId {
        self.regions[self.blocks[b.index()].parent.index()].parent
    }

    /// Blocks of a region.
    pub fn region_blocks(&self, r: RegionId) -> &[BlockId] {
        &self.regions[r.index()].blocks
    }

    /// The op owning a region.
    pub fn region_parent_op(&self, r: RegionId) -> OpId {
        self.regions[r.index()].parent
    }

    /// The first block of region `i` of `op`.
    pub fn entry_block(&self, op: OpId, i: usize) -> Option<BlockId> {
        let r = *self.ops[op.index()].regions.get(i)?;
        self.regions[r.index()].blocks.first().copied()
    }

    /// The op whose region holds `op` (`None` for the module or detached ops).
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op.index()].parent.map(|b| self.block_parent_op(b))
    }

    /// The nearest ancestor of `op` (excluding `op`) named `name`.
    pub fn ancestor_named(&self, op: OpId, name: &str) -> Option<OpId> {
        let mut cur = self.parent_op(op);
        while let Some(p) = cur {
            if self.ops[p.index()].name == name {
                return Some(p);
            }
            cur = self.parent_op(p);
        }
        None
    }

    /// Whether `ancestor` is `op` or contains it.
    pub fn is_ancestor(&self, ancestor: OpId, op: OpId) -> bool {
        let mut cur = Some(op);
        while let Some(p) = cur {
            if p == ancestor {
                return true;
            }
            cur = self.parent_op(p);
        }
        false
    }

    /// First op of a block.
    pub fn first_op(&self, b: BlockId) -> Option<OpId> {
        self.blocks[b.index()].first
    }

    /// Last op of a block (the terminator, when there is one).
    pub fn last_op(&self, b: BlockId) -> Option<OpId> {
        self.blocks[b.index()].last
    }

    /// The op after `op` in its block.
    pub fn next_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op.index()].next
    }

    /// The op before `op` in its block.
    pub fn prev_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op.index()].prev
    }

    /// Ops of a block in order.
    pub fn block_ops(&self, b: BlockId) -> BlockOps<'_> {
        BlockOps {
            module: self,
            next: self.blocks[b.index()].first,
        }
    }

    /// All ops nested in `root` (excluding `root`), in program order
    /// (pre-order: an op comes before the ops of its regions).
    pub fn walk(&self, root: OpId) -> Vec<OpId> {
        let mut out = Vec::new();
        self.walk_into(root, &mut out);
        out
    }

    fn walk_into(&self, op: OpId, out: &mut Vec<OpId>) {
        for &r in &self.ops[op.index()].regions {
            for &b in &self.regions[r.index()].blocks {
                let mut cur = self.blocks[b.index()].first;
                while let Some(o) = cur {
                    out.push(o);
                    self.walk_into(o, out);
                    cur = self.ops[o.index()].next;
                }
            }
        }
    }

    /// Every op of the module in program order (excluding the module op).
    pub fn all_ops(&self) -> Vec<OpId> {
        self.walk(self.top)
    }

    /// The top-level `func.func` ops, in order.
    pub fn funcs(&self) -> Vec<OpId> {
        self.block_ops(self.body())
            .filter(|&o| self.ops[o.index()].name == "func.func")
            .collect()
    }

    /// The top-level `func.func` called `name`.
    pub fn lookup_func(&self, name: &str) -> Option<OpId> {
        self.block_ops(self.body()).find(|&o| {
            let d = &self.ops[o.index()];
            d.name == "func.func"
                && d.attrs.get("sym_name").and_then(Attribute::as_str) == Some(name)
        })
    }

    /// Whether `a` comes before `b` in the same block (false otherwise).
    pub fn is_before_in_block(&self, a: OpId, b: OpId) -> bool {
        if a == b || self.ops[a.index()].parent != self.ops[b.index()].parent {
            return false;
        }
        let mut cur = self.ops[a.index()].next;
        while let Some(o) = cur {
            if o == b {
                return true;
            }
            cur = self.ops[o.index()].next;
        }
        false
    }

    /// Program-order position of every op reachable from the module: the
    /// index in [`Module::all_ops`], `u32::MAX` for detached/erased ops.
    /// Valid until the IR changes.
    pub fn program_order(&self) -> Vec<u32> {
        let mut pos = vec![u32::MAX; self.ops.len()];
        for (i, o) in self.all_ops().into_iter().enumerate() {
            pos[o.index()] = i as u32;
        }
        pos
    }

    // ----- creation -----------------------------------------------------

    /// Creates a detached operation with fresh result values and empty
    /// regions; place it with [`Module::insert_op`].
    pub fn create_op(&mut self, spec: OpSpec) -> OpId {
        let id = OpId::from_index(self.ops.len());
        let results = spec
            .result_types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| {
                self.new_value(
                    ty,
                    ValueDef::OpResult {
                        op: id,
                        index: i as u32,
                    },
                )
            })
            .collect();
        for (i, &v) in spec.operands.iter().enumerate() {
            self.values[v.index()].uses.push(Use {
                op: id,
                index: i as u32,
            });
        }
        let regions = (0..spec.num_regions)
            .map(|i| RegionId::from_index(self.regions.len() + i))
            .collect::<Vec<_>>();
        for _ in 0..spec.num_regions {
            self.regions.push(RegionData {
                blocks: Vec::new(),
                parent: id,
            });
        }
        self.ops.push(OpData {
            name: spec.name,
            operands: spec.operands,
            results,
            attrs: spec.attrs,
            regions,
            segments: spec.segments,
            successors: spec.successors,
            syntax: spec.syntax,
            loc: spec.loc,
            parent: None,
            prev: None,
            next: None,
            erased: false,
        });
        id
    }

    /// Creates a region not yet owned by any op (the reader fills regions
    /// before it knows everything about their op).
    pub(crate) fn new_detached_region(&mut self) -> RegionId {
        let r = RegionId::from_index(self.regions.len());
        self.regions.push(RegionData {
            blocks: Vec::new(),
            parent: OpId(u32::MAX),
        });
        r
    }

    /// Gives detached regions to `op` (appended after its own regions).
    pub(crate) fn adopt_regions(&mut self, op: OpId, regions: &[RegionId]) {
        for &r in regions {
            self.regions[r.index()].parent = op;
            self.ops[op.index()].regions.push(r);
        }
    }

    /// Moves block `b` to the end of its region's block list (the reader
    /// creates blocks at their first reference, `^bb2` before `^bb1`'s
    /// definition, and puts them in place when they are defined).
    pub(crate) fn move_block_to_end(&mut self, b: BlockId) {
        let r = self.blocks[b.index()].parent;
        let list = &mut self.regions[r.index()].blocks;
        if let Some(i) = list.iter().position(|&x| x == b) {
            list.remove(i);
            list.push(b);
        }
    }

    /// Moves all ops of block `from` to the end of block `to`.
    pub fn splice_block(&mut self, from: BlockId, to: BlockId) {
        let ops: Vec<OpId> = self.block_ops(from).collect();
        for o in ops {
            self.move_op(o, InsertPoint::BlockEnd(to));
        }
    }

    /// Creates an op and inserts it at `at`; returns it.
    pub fn build(&mut self, spec: OpSpec, at: InsertPoint) -> OpId {
        let op = self.create_op(spec);
        self.insert_op(op, at);
        op
    }

    fn new_value(&mut self, ty: Type, def: ValueDef) -> ValueId {
        let id = ValueId::from_index(self.values.len());
        self.values.push(ValueData {
            ty,
            def,
            uses: Vec::new(),
        });
        id
    }

    /// Adds a block at the end of `region` with arguments of the given types.
    pub fn add_block(&mut self, region: RegionId, arg_types: &[Type]) -> BlockId {
        let b = BlockId::from_index(self.blocks.len());
        self.blocks.push(BlockData {
            args: Vec::new(),
            first: None,
            last: None,
            parent: region,
        });
        self.regions[region.index()].blocks.push(b);
        for ty in arg_types {
            self.add_block_arg(b, ty.clone());
        }
        b
    }

    /// Appends an argument to a block.
    pub fn add_block_arg(&mut self, b: BlockId, ty: Type) -> ValueId {
        let index = self.blocks[b.index()].args.len() as u32;
        let v = self.new_value(ty, ValueDef::BlockArg { block: b, index });
        self.blocks[b.index()].args.push(v);
        v
    }

    /// Inserts a detached op at `at`.
    pub fn insert_op(&mut self, op: OpId, at: InsertPoint) {
        debug_assert!(self.ops[op.index()].parent.is_none(), "op already placed");
        let (block, prev, next) = match at {
            InsertPoint::BlockStart(b) => (b, None, self.blocks[b.index()].first),
            InsertPoint::BlockEnd(b) => (b, self.blocks[b.index()].last, None),
            InsertPoint::Before(o) => {
                let b = self.ops[o.index()]
                    .parent
                    .expect("insert before a detached op");
                (b, self.ops[o.index()].prev, Some(o))
            }
            InsertPoint::After(o) => {
                let b = self.ops[o.index()]
                    .parent
                    .expect("insert after a detached op");
                (b, Some(o), self.ops[o.index()].next)
            }
        };
        let d = &mut self.ops[op.index()];
        d.parent = Some(block);
        d.prev = prev;
        d.next = next;
        match prev {
            Some(p) => self.ops[p.index()].next = Some(op),
            None => self.blocks[block.index()].first = Some(op),
        }
        match next {
            Some(n) => self.ops[n.index()].prev = Some(op),
            None => self.blocks[block.index()].last = Some(op),
        }
    }

    /// Unlinks `op` from its block (it keeps operands, results, regions).
    pub fn detach_op(&mut self, op: OpId) {
        let Some(block) = self.ops[op.index()].parent else {
            return;
        };
        let (prev, next) = (self.ops[op.index()].prev, self.ops[op.index()].next);
        match prev {
            Some(p) => self.ops[p.index()].next = next,
            None => self.blocks[block.index()].first = next,
        }
        match next {
            Some(n) => self.ops[n.index()].prev = prev,
            None => self.blocks[block.index()].last = prev,
        }
        let d = &mut self.ops[op.index()];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }

    /// Moves `op` to `at`.
    pub fn move_op(&mut self, op: OpId, at: InsertPoint) {
        self.detach_op(op);
        self.insert_op(op, at);
    }

    /// Erases `op` and everything nested in it. Its results must have no
    /// uses left outside the erased ops (replace them first); remaining
    /// uses are dropped.
    pub fn erase_op(&mut self, op: OpId) {
        let nested = self.walk(op);
        self.detach_op(op);
        for o in nested.into_iter().rev().chain(std::iter::once(op)) {
            let operands = std::mem::take(&mut self.ops[o.index()].operands);
            for (i, v) in operands.into_iter().enumerate() {
                self.remove_use(v, o, i as u32);
            }
            let results = self.ops[o.index()].results.clone();
            for r in results {
                self.values[r.index()].uses.clear();
            }
            self.ops[o.index()].erased = true;
        }
    }

    fn remove_use(&mut self, v: ValueId, op: OpId, index: u32) {
        let uses = &mut self.values[v.index()].uses;
        if let Some(p) = uses.iter().position(|u| u.op == op && u.index == index) {
            uses.remove(p);
        }
    }

    // ----- operand and value editing -------------------------------------

    /// Sets operand `index` of `op` to `v`.
    pub fn set_operand(&mut self, op: OpId, index: usize, v: ValueId) {
        let old = self.ops[op.index()].operands[index];
        if old == v {
            return;
        }
        self.remove_use(old, op, index as u32);
        self.ops[op.index()].operands[index] = v;
        self.values[v.index()].uses.push(Use {
            op,
            index: index as u32,
        });
    }

    /// Replaces all operands of `op` (segments are left as they are; set
    /// them with [`OpData::segments`] when the structure changes).
    pub fn set_operands(&mut self, op: OpId, operands: Vec<ValueId>) {
        let old = std::mem::take(&mut self.ops[op.index()].operands);
        for (i, v) in old.into_iter().enumerate() {
            self.remove_use(v, op, i as u32);
        }
        for (i, &v) in operands.iter().enumerate() {
            self.values[v.index()].uses.push(Use {
                op,
                index: i as u32,
            });
        }
        self.ops[op.index()].operands = operands;
    }

    /// Appends an operand to `op`.
    pub fn push_operand(&mut self, op: OpId, v: ValueId) {
        let index = self.ops[op.index()].operands.len() as u32;
        self.ops[op.index()].operands.push(v);
        self.values[v.index()].uses.push(Use { op, index });
    }

    /// Replaces every use of `old` with `new`.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        self.replace_uses_if(old, new, |_, _| true);
    }

    /// Replaces every use of `old` with `new` except in `except`.
    pub fn replace_all_uses_except(&mut self, old: ValueId, new: ValueId, except: OpId) {
        self.replace_uses_if(old, new, |_, u| u.op != except);
    }

    /// Replaces the uses of `old` for which `pred` holds with `new`.
    pub fn replace_uses_if(
        &mut self,
        old: ValueId,
        new: ValueId,
        mut pred: impl FnMut(&Module, Use) -> bool,
    ) {
        if old == new {
            return;
        }
        let uses = self.values[old.index()].uses.clone();
        let mut kept = Vec::new();
        for u in uses {
            if pred(self, u) {
                self.ops[u.op.index()].operands[u.index as usize] = new;
                self.values[new.index()].uses.push(u);
            } else {
                kept.push(u);
            }
        }
        self.values[old.index()].uses = kept;
    }

    /// Replaces the results of `op` with `new` values (one per result) and
    /// erases `op`.
    pub fn replace_op(&mut self, op: OpId, new: &[ValueId]) {
        let results = self.ops[op.index()].results.clone();
        for (r, &n) in results.iter().zip(new) {
            self.replace_all_uses(*r, n);
        }
        self.erase_op(op);
    }

    /// Changes the function type of a `func.func` and the types of its
    /// entry-block arguments to match.
    pub fn set_function_type(&mut self, func: OpId, ty: crate::ir::FunctionType) {
        if let Some(entry) = self.entry_block(func, 0) {
            let args = self.blocks[entry.index()].args.clone();
            for (a, t) in args.iter().zip(&ty.inputs) {
                self.values[a.index()].ty = t.clone();
            }
        }
        self.set_attr(func, "function_type", Attribute::Type(Type::Function(ty)));
    }
}

/// Iterator over the ops of a block.
pub struct BlockOps<'a> {
    module: &'a Module,
    next: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;

    fn next(&mut self) -> Option<OpId> {
        let cur = self.next?;
        self.next = self.module.ops[cur.index()].next;
        Some(cur)
    }
}
