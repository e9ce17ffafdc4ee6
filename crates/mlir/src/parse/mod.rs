//! The reader of MLIR's textual format: the generic form of any op (with
//! successors and regions), ops with a declarative format
//! ([`crate::ir::format`], read by `ods.rs`), the custom forms of the
//! upstream dialects (`src/dialect/`, one module per dialect holding each
//! op's reader beside its printer), `^bb` blocks referenced before their label,
//! values used before their definition (resolved when it is read),
//! `#alias`/`!alias` definitions, `loc(..)`, and `// -----` split markers.
//!
//! Errors stop reading and carry the location of the offending token; the
//! reader never panics, whatever the input.

pub(crate) mod affine_map;
pub(crate) mod cursor;
pub(crate) mod dense;
mod ods;
pub(crate) mod ops;
mod terminators;
mod types;

use std::collections::HashMap;

use crate::ir::{Attribute, BlockId, Diagnostic, InsertPoint, Module, RegionId, Type, ValueId};
use cursor::{Cursor, PResult};

/// Reader options.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Accept ops of dialects the reader does not know (mlir-opt's
    /// `-allow-unregistered-dialect`).
    pub allow_unregistered_dialect: bool,
    /// Lines before the text (for split chunks: locations stay those of the
    /// whole file).
    pub line_offset: u32,
}

/// Dialects whose ops are accepted without `-allow-unregistered-dialect`.
pub const KNOWN_DIALECTS: &[&str] = &[
    "builtin",
    "func",
    "arith",
    "math",
    "memref",
    "memref_ext",
    "scf",
    "cf",
    "affine",
    "vector",
    "tensor",
    "linalg",
    "bufferization",
    "annotation",
    "scope",
    "hivm",
    "ave",
    "transform",
    "hacc",
    "hfusion",
    "bishengir_test",
    "index",
    "llvm",
    "gpu",
    "symbol",
];

/// Ops of registered dialects that have no entry in the op-format tables
/// yet and are read by the lenient structured reader (the ops the
/// AscendNPU-IR corpus and the lit suite use: custom parsers of
/// `hivm.hir.fixpipe`/`custom`/`custom_macro`, `ins`/`outs` forms of
/// linalg/hfusion/test ops, ...). Any other unknown op of a registered
/// dialect in custom form is a read error, as in MLIR, unless
/// `-allow-unregistered-dialect`; it then prints in generic form.
/// Sorted (binary searched).
pub const LENIENT_OPS: &[&str] = &[
    "bishengir_test.broadcastableOTF",
    "bishengir_test.element_type_only_f16_i32",
    "bishengir_test.element_type_only_f16f32_i8i32",
    "bishengir_test.element_type_only_int_float",
    "bishengir_test.elementwise_binary",
    "bishengir_test.elementwise_unary",
    "bishengir_test.transposableOTF",
    "bishengir_test.vector_scalar_only",
    "hfusion.cast",
    "hfusion.compare",
    "hfusion.cumprod",
    "hfusion.cumsum",
    "hfusion.deinterleave",
    "hfusion.elemwise_binary",
    "hfusion.elemwise_unary",
    "hfusion.gather",
    "hfusion.interleave",
    "hfusion.reduce_with_index",
    "hfusion.select",
    "hivm.hir.custom",
    "hivm.hir.custom_macro",
    "hivm.hir.fixpipe",
    "linalg.elemwise_binary",
    "linalg.elemwise_unary",
    "linalg.fill",
    "linalg.generic",
    "linalg.matmul",
    "llvm.func",
    "llvm.inttoptr",
    "llvm.mlir.global",
    "memref.extract_strided_metadata",
    "scope.scope",
    "vector.mask",
];

/// Whether `name` is one of [`LENIENT_OPS`].
pub fn is_lenient_op(name: &str) -> bool {
    LENIENT_OPS.binary_search(&name).is_ok()
}

/// A static entry of a mixed static/dynamic list (`[%a, 4]`, sizes,
/// offsets, `output_shape`): an `i64` other than `i64::MIN`, which is
/// MLIR's marker of a dynamic entry (`ShapedType::kDynamic`) and, read as
/// a number, would print back as `?` or as the next SSA value.
pub(crate) fn static_index(v: i128) -> Result<i64, String> {
    match i64::try_from(v) {
        Ok(crate::ir::DYNAMIC) => Err(format!(
            "{v} is the marker of a dynamic entry, not a static value: write an SSA value"
        )),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("{v} does not fit a 64-bit index")),
    }
}

/// The ops of registered dialects with MLIR's `IsolatedFromAbove` trait:
/// their regions are name scopes of their own.
const ISOLATED_FROM_ABOVE: &[&str] = &[
    "builtin.module",
    "func.func",
    "gpu.func",
    "gpu.module",
    "llvm.func",
    "llvm.mlir.global",
    "transform.named_sequence",
];

/// Whether the op `name` is isolated from above (its regions neither see
/// names defined around it nor define names seen there).
pub(crate) fn is_isolated_from_above(name: &str) -> bool {
    ISOLATED_FROM_ABOVE.contains(&name)
}

/// Reads a module. Errors carry the location of the offending token.
pub fn parse_module(text: &str, options: &ParseOptions) -> Result<Module, Diagnostic> {
    let mut p = Parser {
        c: Cursor::new(text, options.line_offset),
        m: Module::new(),
        attr_aliases: HashMap::new(),
        type_aliases: HashMap::new(),
        scopes: vec![HashMap::new()],
        isolated_from: 0,
        depth: 0,
        opts: options.clone(),
        default_dialect: Vec::new(),
        type_memo: HashMap::new(),
        labels: Vec::new(),
        forward: HashMap::new(),
        arg_locs: HashMap::new(),
    };
    p.parse_top()?;
    p.check_forward()?;
    Ok(p.m)
}

/// One chunk of a `// -----` separated input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The chunk text.
    pub text: &'a str,
    /// Number of lines of the input before the chunk.
    pub line_offset: u32,
}

/// Splits an input at lines starting with `// -----` (mlir-opt's
/// `-split-input-file`).
pub fn split_input(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 0u32;
    let mut pos = 0usize;
    for (line, l) in text.split_inclusive('\n').enumerate() {
        let line = line as u32;
        if l.trim_start().starts_with("// -----") {
            chunks.push(Chunk {
                text: &text[start..pos],
                line_offset: start_line,
            });
            start = pos + l.len();
            start_line = line + 1;
        }
        pos += l.len();
    }
    chunks.push(Chunk {
        text: &text[start..],
        line_offset: start_line,
    });
    chunks
}

/// A value reference as written: the value and where it is spelled
/// (`pos..end` in the source, for error messages).
#[derive(Clone, Debug)]
pub(crate) struct Operand {
    pub v: ValueId,
    pub pos: usize,
    pub end: usize,
}

/// The reader state.
pub(crate) struct Parser<'a> {
    pub(crate) c: Cursor<'a>,
    pub(crate) m: Module,
    pub(crate) attr_aliases: HashMap<String, Attribute>,
    pub(crate) type_aliases: HashMap<String, Type>,
    /// Visible names per region scope: `%name` to its values (`%name#i`).
    scopes: Vec<HashMap<String, Vec<ValueId>>>,
    /// The first of `scopes` visible: the scope of the innermost region
    /// isolated from above (MLIR's `IsolatedSSANameScope`), whose names
    /// neither see nor are seen by the scopes around it.
    isolated_from: usize,
    pub(crate) depth: usize,
    pub(crate) opts: ParseOptions,
    pub(crate) default_dialect: Vec<&'static str>,
    /// Shaped types already read, by their exact text: programs repeat the
    /// same few memref types thousands of times.
    pub(crate) type_memo: HashMap<&'a str, Type>,
    /// Block labels of the regions being read (innermost last): each
    /// label's block and whether its definition has been read (a branch
    /// may name a block defined further down).
    labels: Vec<(RegionId, HashMap<String, Label>)>,
    /// Values used before their definition (`%name`, result number) in
    /// the innermost name scope isolated from above: a placeholder and
    /// where it was first used. The definition replaces it; one left at
    /// the end of its isolated scope is an undeclared name.
    forward: HashMap<(String, usize), Forward>,
    /// The `loc(...)` of block arguments read but not yet bound, by the
    /// argument's source position.
    arg_locs: HashMap<usize, u32>,
}

/// A block label: its block, whether its definition was read, and where
/// it was first named.
type Label = (BlockId, bool, usize);

/// A forward reference's placeholder value.
pub(crate) struct Forward {
    value: ValueId,
    op: crate::ir::OpId,
    pos: usize,
    end: usize,
    typed: bool,
}

impl Parser<'_> {
    fn parse_top(&mut self) -> PResult<()> {
        let body = self.m.body();
        loop {
            if self.c.at_end() {
                break;
            }
            if self.c.looking_at("{-#") {
                // Dialect resources: kept as written, printed back.
                match self.c.rest().find("#-}") {
                    Some(i) => {
                        let start = self.c.pos();
                        let p = start + i + 3;
                        self.m.resources.push(self.c.slice(start, p).to_string());
                        self.c.reset(p);
                        continue;
                    }
                    None => return self.c.err("unterminated '{-#' section"),
                }
            }
            match self.c.peek() {
                Some(b'#') => self.parse_alias_def(true)?,
                Some(b'!') => self.parse_alias_def(false)?,
                _ => self.parse_op(body)?,
            }
        }
        // A file holding a single `module` is that module; anything else is
        // wrapped in an implicit one.
        let tops: Vec<_> = self.m.block_ops(body).collect();
        if let [only] = tops[..] {
            if self.m.op(only).is("builtin.module") && self.m.op(only).regions().len() == 1 {
                let attrs = self.m.op(only).attrs.clone();
                let loc = self.m.op(only).loc;
                let top = self.m.top();
                self.m.op_mut(top).attrs = attrs;
                self.m.op_mut(top).loc = loc;
                if let Some(inner) = self.m.entry_block(only, 0) {
                    self.m.splice_block(inner, body);
                }
                self.m.erase_op(only);
            }
        }
        Ok(())
    }

    fn parse_alias_def(&mut self, is_attr: bool) -> PResult<()> {
        let start = self.c.pos();
        self.c.expect(if is_attr { "#" } else { "!" })?;
        let Some(name) = self.c.suffix_id() else {
            return self.c.err("expected alias name");
        };
        let name = name.to_string();
        self.c.expect("=")?;
        if is_attr && self.c.looking_at_keyword("loc") {
            // `#loc3 = loc(...)`: kept as written, printed back in place.
            let src = self.parse_trailing_loc()?;
            if src == 0 {
                return self.c.err("expected '(' in location");
            }
            if self.m.loc_aliases.iter().any(|a| a.name == name) {
                return self.c.err_at(
                    start,
                    format!("redefinition of attribute alias id '{name}'"),
                );
            }
            let body = self.m.src_locs.pop().unwrap_or_default();
            // A location is an attribute too: a reference elsewhere than
            // after an op (inside another attribute) reads it as before.
            self.attr_aliases
                .insert(name.clone(), Attribute::Opaque(format!("loc({body})")));
            let trailing = self.m.block_ops(self.m.body()).next().is_some();
            self.m.loc_aliases.push(crate::ir::LocAlias {
                name,
                body,
                trailing,
            });
            return Ok(());
        }
        if is_attr {
            let a = self.parse_attribute()?;
            if self.attr_aliases.insert(name.clone(), a).is_some() {
                return self.c.err_at(
                    start,
                    format!("redefinition of attribute alias id '{name}'"),
                );
            }
        } else {
            let t = self.parse_type()?;
            if self.type_aliases.insert(name.clone(), t).is_some() {
                return self
                    .c
                    .err_at(start, format!("redefinition of type alias id '{name}'"));
            }
        }
        Ok(())
    }

    /// Reads `%name` / `%name#N` and resolves it.
    pub(crate) fn parse_operand(&mut self) -> PResult<Operand> {
        self.c.skip_ws();
        let pos = self.c.pos();
        self.c.expect("%")?;
        let Some(name) = self.c.suffix_id() else {
            return self.c.err("expected SSA value name after '%'");
        };
        let mut index = 0u64;
        if self.c.peek_raw(0) == Some(b'#') {
            self.c.reset(self.c.pos() + 1);
            match self.c.integer() {
                Some(i) if i >= 0 => index = i as u64,
                _ => return self.c.err("expected result number after '#'"),
            }
        }
        for scope in self.scopes[self.isolated_from..].iter().rev() {
            if let Some(vs) = scope.get(name) {
                let Some(&v) = vs.get(index as usize) else {
                    return self.c.err_at(
                        pos,
                        format!("result number {index} is out of range for '%{name}'"),
                    );
                };
                return Ok(Operand {
                    v,
                    pos,
                    end: self.c.pos(),
                });
            }
        }
        // A use before the definition (MLIR resolves names when the
        // definition is read): a placeholder the definition replaces.
        let key = (name.to_string(), index as usize);
        if let Some(f) = self.forward.get(&key) {
            return Ok(Operand {
                v: f.value,
                pos,
                end: self.c.pos(),
            });
        }
        let op = self.m.create_op(
            crate::ir::OpSpec::new("builtin.unresolved", self.c.loc_at(pos)).results([Type::None]),
        );
        let v = self.m.op(op).results()[0];
        self.forward.insert(
            key,
            Forward {
                value: v,
                op,
                pos,
                end: self.c.pos(),
                typed: false,
            },
        );
        Ok(Operand {
            v,
            pos,
            end: self.c.pos(),
        })
    }

    /// Fails on the first (in the text) forward reference not defined.
    fn check_forward(&mut self) -> PResult<()> {
        let first = self
            .forward
            .iter()
            .min_by_key(|(_, f)| f.pos)
            .map(|((name, _), f)| (name.clone(), f.pos));
        match first {
            Some((name, pos)) => self
                .c
                .err_at(pos, format!("use of undeclared SSA value name '%{name}'")),
            None => Ok(()),
        }
    }

    /// Replaces the placeholder of a forward reference to `%name#index`
    /// by its definition `v`.
    fn resolve_forward(&mut self, name: &str, index: usize, v: ValueId) -> PResult<()> {
        let Some(f) = self.forward.remove(&(name.to_string(), index)) else {
            return Ok(());
        };
        let placeholder_ty = self.m.value_type(f.value).clone();
        if f.typed && placeholder_ty != *self.m.value_type(v) {
            return self.c.err_at(
                f.pos,
                format!(
                    "use of value '{}' expects different type than prior uses: '{}' vs '{}'",
                    self.c.slice(f.pos, f.end),
                    placeholder_ty,
                    self.m.value_type(v)
                ),
            );
        }
        self.m.replace_all_uses(f.value, v);
        self.m.erase_op(f.op);
        Ok(())
    }

    /// Reads `%a, %b, ...` (possibly empty when the next token is not `%`).
    pub(crate) fn parse_operand_list(&mut self) -> PResult<Vec<Operand>> {
        let mut out = Vec::new();
        if self.c.peek() != Some(b'%') {
            return Ok(out);
        }
        loop {
            out.push(self.parse_operand()?);
            if !self.c.eat(",") {
                return Ok(out);
            }
        }
    }

    /// Binds `%name` to `v` in the innermost scope.
    ///
    /// A name is defined once in its isolated name scope: as in MLIR
    /// (`OperationParser::addDefinition`, whose table of visible names
    /// spans the nested regions of one isolated scope), a nested region
    /// may not define a name visible from a region around it. A nested
    /// region's names end with the region, so sibling regions may reuse
    /// them, and a region isolated from above starts afresh.
    pub(crate) fn define(
        &mut self,
        name: &str,
        index: usize,
        v: ValueId,
        pos: usize,
    ) -> PResult<()> {
        if index == 0
            && self.scopes[self.isolated_from..]
                .iter()
                .any(|s| s.contains_key(name))
        {
            return self
                .c
                .err_at(pos, format!("redefinition of SSA value '%{name}'"));
        }
        let scope = self.scopes.last_mut().expect("scope stack never empty");
        match scope.get_mut(name) {
            Some(vs) => vs.push(v),
            None => {
                scope.insert(name.to_string(), vec![v]);
            }
        }
        if !self.forward.is_empty() {
            self.resolve_forward(name, index, v)?;
        }
        Ok(())
    }

    /// Checks that operands have the written types (MLIR's message).
    pub(crate) fn check_types(&mut self, operands: &[Operand], types: &[Type]) -> PResult<()> {
        if operands.len() != types.len() {
            let pos = operands.first().map(|o| o.pos).unwrap_or(self.c.pos());
            return self.c.err_at(
                pos,
                format!(
                    "{} operands present, but expected {}",
                    operands.len(),
                    types.len()
                ),
            );
        }
        for (o, t) in operands.iter().zip(types) {
            if let Some(f) = self.forward.values_mut().find(|f| f.value == o.v) {
                if !f.typed {
                    f.typed = true;
                    self.m.set_type(o.v, t.clone());
                    continue;
                }
            }
            let actual = self.m.value_type(o.v);
            if actual != t {
                return self.c.err_at(
                    o.pos,
                    format!(
                        "use of value '{}' expects different type than prior uses: '{}' vs '{}'",
                        self.c.slice(o.pos, o.end),
                        t,
                        actual
                    ),
                );
            }
        }
        Ok(())
    }

    /// Reads a region `{ ... }` into `region`; `entry_args` are the names,
    /// types and positions of the entry block arguments given by the op's
    /// syntax (empty: the region may use `^bb(...)` labels).
    pub(crate) fn parse_region(
        &mut self,
        region: RegionId,
        entry_args: &[(String, Type, usize)],
    ) -> PResult<()> {
        self.depth += 1;
        if self.depth > cursor::MAX_DEPTH {
            return self.c.err("nesting too deep");
        }
        self.scopes.push(HashMap::new());
        self.labels.push((region, HashMap::new()));
        let mut r = self.parse_region_body(region, entry_args);
        if let Some((_, labels)) = self.labels.pop() {
            if r.is_ok() {
                let mut undefined: Vec<(usize, &String)> = labels
                    .iter()
                    .filter(|(_, (_, defined, _))| !defined)
                    .map(|(n, (_, _, pos))| (*pos, n))
                    .collect();
                undefined.sort();
                if let Some((pos, name)) = undefined.first() {
                    r = self
                        .c
                        .err_at(*pos, format!("reference to an undefined block '^{name}'"));
                }
            }
        }
        self.scopes.pop();
        self.depth -= 1;
        r
    }

    /// Reads the region of an op isolated from above (a function body, a
    /// module, a global's initializer): a name scope of its own, as in
    /// MLIR. Names defined around it are not visible inside; a name used
    /// inside must be defined inside (its definition elsewhere is not
    /// this value), and a definition inside does not resolve a use
    /// outside that is still waiting for its definition.
    pub(crate) fn parse_isolated_region(
        &mut self,
        region: RegionId,
        entry_args: &[(String, Type, usize)],
    ) -> PResult<()> {
        let outer_forward = std::mem::take(&mut self.forward);
        let outer_from = std::mem::replace(&mut self.isolated_from, self.scopes.len());
        let r = self
            .parse_region(region, entry_args)
            .and_then(|()| self.check_forward());
        self.forward = outer_forward;
        self.isolated_from = outer_from;
        r
    }

    /// Reads a region of an op named `op` in generic or lenient form:
    /// isolated from above when the op is ([`is_isolated_from_above`]).
    pub(crate) fn parse_region_of(&mut self, op: &str, region: RegionId) -> PResult<()> {
        if is_isolated_from_above(op) {
            self.parse_isolated_region(region, &[])
        } else {
            self.parse_region(region, &[])
        }
    }

    fn parse_region_body(
        &mut self,
        region: RegionId,
        entry_args: &[(String, Type, usize)],
    ) -> PResult<()> {
        self.c.expect("{")?;
        if self.c.eat("}") {
            if !entry_args.is_empty() {
                let types: Vec<Type> = entry_args.iter().map(|a| a.1.clone()).collect();
                let b = self.m.add_block(region, &types);
                self.bind_block_args(b, entry_args)?;
            }
            return Ok(());
        }
        if self.c.peek() != Some(b'^') || !entry_args.is_empty() {
            let types: Vec<Type> = entry_args.iter().map(|a| a.1.clone()).collect();
            let b = self.m.add_block(region, &types);
            self.bind_block_args(b, entry_args)?;
            self.parse_block_ops(b)?;
        }
        while self.c.peek() == Some(b'^') {
            self.parse_labeled_block(region)?;
        }
        self.c.expect("}")
    }

    fn bind_block_args(&mut self, b: BlockId, args: &[(String, Type, usize)]) -> PResult<()> {
        let values = self.m.block_args(b).to_vec();
        for ((name, _, pos), v) in args.iter().zip(values) {
            if let Some(src) = self.arg_locs.remove(pos) {
                self.m.arg_locs.insert(v, src);
            }
            self.define(name, 0, v, *pos)?;
        }
        Ok(())
    }

    /// Reads `^name` naming a block of the innermost region; a block not
    /// yet defined is created and placed when its label is read.
    pub(crate) fn parse_successor(&mut self) -> PResult<BlockId> {
        self.c.skip_ws();
        let pos = self.c.pos();
        self.c.expect("^")?;
        let Some(name) = self.c.suffix_id() else {
            return self.c.err("expected block name after '^'");
        };
        let name = name.to_string();
        let Some((region, labels)) = self.labels.last_mut() else {
            return self.c.err_at(pos, "block reference outside a region");
        };
        if let Some(&(b, _, _)) = labels.get(&name) {
            return Ok(b);
        }
        let region = *region;
        let b = self.m.add_block(region, &[]);
        if let Some((_, labels)) = self.labels.last_mut() {
            labels.insert(name, (b, false, pos));
        }
        Ok(b)
    }

    /// `(%a: T, %b: U loc(..))`: block argument names, types and positions.
    pub(crate) fn parse_block_arg_list(&mut self) -> PResult<Vec<(String, Type, usize)>> {
        self.c.expect("(")?;
        let mut args = Vec::new();
        if self.c.eat(")") {
            return Ok(args);
        }
        loop {
            self.c.skip_ws();
            let pos = self.c.pos();
            self.c.expect("%")?;
            let Some(name) = self.c.suffix_id() else {
                return self.c.err("expected block argument name");
            };
            let name = name.to_string();
            self.c.expect(":")?;
            let ty = self.parse_type()?;
            self.parse_arg_loc(pos)?;
            args.push((name, ty, pos));
            if self.c.eat(")") {
                return Ok(args);
            }
            self.c.expect(",")?;
        }
    }

    fn parse_labeled_block(&mut self, region: RegionId) -> PResult<()> {
        self.c.skip_ws();
        let label_pos = self.c.pos();
        self.c.expect("^")?;
        let Some(label) = self.c.suffix_id() else {
            return self.c.err("expected block name after '^'");
        };
        let label = label.to_string();
        let mut args = Vec::new();
        if self.c.peek() == Some(b'(') {
            args = self.parse_block_arg_list()?;
        }
        self.c.expect(":")?;
        let types: Vec<Type> = args.iter().map(|a| a.1.clone()).collect();
        let known = self.labels.last().and_then(|(_, l)| l.get(&label).copied());
        let b = match known {
            Some((_, true, _)) => {
                return self
                    .c
                    .err_at(label_pos, format!("redefinition of block '^{label}'"))
            }
            Some((b, false, _)) => {
                // Referenced before: put it here, in textual order.
                self.m.move_block_to_end(b);
                for t in types {
                    self.m.add_block_arg(b, t);
                }
                b
            }
            None => self.m.add_block(region, &types),
        };
        if let Some((_, l)) = self.labels.last_mut() {
            l.insert(label, (b, true, label_pos));
        }
        self.bind_block_args(b, &args)?;
        self.parse_block_ops(b)
    }

    fn parse_block_ops(&mut self, b: BlockId) -> PResult<()> {
        loop {
            match self.c.peek() {
                None => {
                    return self
                        .c
                        .err("expected '}' to end the region, found end of input")
                }
                Some(b'}') | Some(b'^') => return Ok(()),
                _ => self.parse_op(b)?,
            }
        }
    }

    /// Reads a trailing `loc(...)`, if any, into the module's source
    /// locations: the [`crate::ir::Location::src`] value (0: none).
    pub(crate) fn parse_trailing_loc(&mut self) -> PResult<u32> {
        if !self.c.looking_at_keyword("loc") {
            return Ok(0);
        }
        let p = self.c.pos();
        self.c.eat_keyword("loc");
        if self.c.peek_raw(0) != Some(b'(') {
            self.c.reset(p);
            return Ok(0);
        }
        let group = self.c.balanced()?;
        let body = group[1..group.len() - 1].trim();
        Ok(self.m.add_src_loc(body))
    }

    /// Reads the `loc(...)` of a block argument declared at `pos`: kept
    /// until the argument's value exists ([`Self::bind_block_args`]).
    pub(crate) fn parse_arg_loc(&mut self, pos: usize) -> PResult<()> {
        let src = self.parse_trailing_loc()?;
        if src != 0 {
            self.arg_locs.insert(pos, src);
        }
        Ok(())
    }

    /// Places an op made by a form reader at the end of `block`.
    pub(crate) fn place(&mut self, op: crate::ir::OpId, block: BlockId) {
        self.m.insert_op(op, InsertPoint::BlockEnd(block));
    }
}
