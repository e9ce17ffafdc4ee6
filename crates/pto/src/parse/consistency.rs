//! Consistency of a program as a whole, checked once it is read: facts a
//! single statement cannot contradict but two can. PyPTO's IR verifier
//! rejects each of these; accepted, they made the planner work from
//! contradictory facts (a Vec tile in an Acc allocation moved on every
//! re-plan).
//!
//! - function names are unique in the program;
//! - a tile with a MemRef on an allocation variable lives in that
//!   allocation's space, and the allocation holds the tile's bytes (its
//!   MemRef's size and its static shape's bytes; a slotted MemRef names
//!   one slot of the allocation);
//! - the constant dimensions of a tile or tensor are positive (InitMemRef
//!   gives it storage of that shape);
//! - a bare alias of a tile (`x: T = y`) holds no more bytes than its
//!   source, whose storage it shares;
//! - a loop with `init_values` starts each carry from one init value,
//!   a value the function defines, ends its body with a `pl.yield_` of one value per
//!   carry, and the values a loop carries or an `if` joins
//!   (one buffer) have one size.
//!
//! Each violation is an error at the defining statement (line and column
//! of its first character); the first one in program order is reported.
//! A call whose target is no op path (`FP32.tile.alloc`) is rejected where
//! the call is read ([`crate::ops::check_known`]).
//!
//! Costs one walk over the statements and one over the variables per
//! function, after the program is read.

use std::collections::HashMap;

use crate::diag::ParseError;
use crate::ir::{Alloc, Expr, Function, Pos, Program, Type, VarDef, VarId};

/// Checks `program`; the first violation as a reader error.
pub(super) fn check(program: &Program) -> Result<(), ParseError> {
    let mut seen: HashMap<&str, Pos> = HashMap::new();
    for f in &program.functions {
        if let Some(first) = seen.insert(&f.name, f.pos) {
            return Err(error(
                f.pos,
                f.name.chars().count() + 4,
                format!(
                    "function `{}` is defined twice (first at line {}): function names are unique in a program",
                    f.name, first.line
                ),
                "rename one of them",
            ));
        }
    }
    for f in &program.functions {
        check_function(f)?;
    }
    Ok(())
}

fn check_function(f: &Function) -> Result<(), ParseError> {
    let mut allocs: HashMap<VarId, Alloc> = HashMap::new();
    let mut errors = Vec::new();
    for (_, s) in f.walk() {
        if let Some(a) = f.alloc_at(s) {
            allocs.insert(a.var, a);
        }
        errors.extend(check_alias(f, s));
        errors.extend(check_carry(f, s));
        errors.extend(check_alloc_size(f, s));
        errors.extend(check_branch_yields(f, s));
        errors.extend(check_joined(f, s));
    }
    let vars = f
        .vars
        .iter()
        .filter_map(|(v, d)| check_var(f, v, d.ty.as_ref(), &allocs));
    // The violation reported is the earliest in the text.
    let mut first: Option<(Pos, ParseError)> = None;
    for e in errors.into_iter().chain(vars) {
        let at = Pos {
            line: e.line,
            col: e.col,
        };
        if first
            .as_ref()
            .is_none_or(|(p, _)| (at.line, at.col) < (p.line, p.col))
        {
            first = Some((at, e));
        }
    }
    match first {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// A bare alias `x: T = y` of a tile names `y`'s data, so it cannot hold
/// more bytes than `y` (the planner would give it `y`'s storage).
fn check_alias(f: &Function, s: crate::ir::StmtId) -> Option<ParseError> {
    let crate::ir::StmtKind::Assign {
        targets,
        value: Expr::Var(y),
    } = &f.stmts[s].kind
    else {
        return None;
    };
    let [x] = targets[..] else { return None };
    let bytes = |v: VarId| f.vars[v].ty.as_ref()?.as_tile()?.static_bytes();
    let (bx, by) = (bytes(x)?, bytes(*y)?);
    if bx <= by {
        return None;
    }
    let (nx, ny) = (&f.vars[x].name, &f.vars[*y].name);
    Some(error(
        f.pos_of(s),
        nx.chars().count(),
        format!(
            "tile `{nx}` is an alias of `{ny}` but declares {bx} bytes where `{ny}` has {by}: \
             an alias names its source's data"
        ),
        "give the alias its source's shape and dtype",
    ))
}

/// An allocation holds a non-negative number of bytes: `pl.tile.alloc`
/// with a negative size was read as some other call, so its tiles had no
/// storage and nothing was planned, without a word.
fn check_alloc_size(f: &Function, s: crate::ir::StmtId) -> Option<ParseError> {
    let call = f.stmts[s].call()?;
    if !crate::ops::has_class(call.op_name(), crate::ops::OpClass::Alloc) {
        return None;
    }
    let size = call.args.get(1)?.as_int().filter(|&n| n < 0)?;
    let name = f.stmts[s]
        .def()
        .map_or_else(String::new, |v| f.vars[v].name.to_string());
    Some(error(
        f.pos_of(s),
        name.chars().count(),
        format!(
            "allocation `{name}` has size {size}: an allocation holds a non-negative number of \
             bytes"
        ),
        "give the bytes its tiles need",
    ))
}

/// A loop that carries values (`init_values=`) yields one value per
/// carry at the end of its body: without the yield the carried values
/// have no next iteration, and the planners' lifetimes of them disagree.
fn check_carry(f: &Function, s: crate::ir::StmtId) -> Option<ParseError> {
    let crate::ir::StmtKind::For(l) = &f.stmts[s].kind else {
        return None;
    };
    if l.iter_args.is_empty() {
        return None;
    }
    // Each carry starts from one init value (ForStmt: as many iter_args as
    // init values); without `init_values=` (a misspelt keyword) the
    // carries would start from nothing.
    let inits = l.init_values().len();
    if inits != l.iter_args.len() {
        return Some(error(
            f.pos_of(s),
            3,
            format!(
                "the loop carries {} value(s) but `init_values` gives {inits}: each \
                 loop-carried variable starts from one init value",
                l.iter_args.len()
            ),
            "give `init_values=(...)` one value per loop-carried variable",
        ));
    }
    // A carry starts from a value of the function: a name defined nowhere
    // in it (a misspelling) has no storage to carry.
    let undefined = l
        .init_values()
        .iter()
        .filter_map(Expr::as_var)
        .find(|&v| matches!(f.vars[v].def, VarDef::Free));
    if let Some(v) = undefined {
        let name = &f.vars[v].name;
        return Some(error(
            f.pos_of(s),
            3,
            format!(
                "the loop's init value `{name}` is defined nowhere in the function: a loop \
                 carries a value the function defines or takes as a parameter"
            ),
            "define it before the loop, or fix the name",
        ));
    }
    let b = crate::ir::Block::Loop(s);
    let yielded = f
        .yield_index(b)
        .and_then(|i| match &f.stmts[f.block(b)[i]].kind {
            crate::ir::StmtKind::Yield(v) => Some(v.len()),
            _ => None,
        });
    if yielded == Some(l.iter_args.len()) {
        // The yield's targets are the loop's results: one per carry, or
        // none (results not taken).
        let n = l.results.len();
        if n == 0 || n == l.iter_args.len() {
            return None;
        }
        let at = f
            .yield_index(b)
            .map_or(f.pos_of(s), |i| f.pos_of(f.block(b)[i]));
        return Some(error(
            at,
            1,
            format!(
                "the loop carries {} value(s) but its yield assigns {n} result(s): a \
                 loop's results are its carries after the last iteration, one each",
                l.iter_args.len()
            ),
            "give the yield one target per loop-carried variable",
        ));
    }
    Some(error(
        f.pos_of(s),
        3,
        format!(
            "the loop carries {} value(s) but its body {}: a loop with `init_values` \
             ends its body with `pl.yield_` of one value per carry",
            l.iter_args.len(),
            yielded.map_or("yields nothing".to_string(), |n| format!("yields {n}"))
        ),
        "end the body with `pl.yield_(...)`",
    ))
}

/// A branch of an `if` that yields gives one value per result (the
/// results are the yield's targets): a branch that yields more or fewer
/// values leaves a result without a value on that path, or a value
/// without a result.
fn check_branch_yields(f: &Function, s: crate::ir::StmtId) -> Option<ParseError> {
    use crate::ir::{Block, StmtKind};
    let StmtKind::If(i) = &f.stmts[s].kind else {
        return None;
    };
    let n = i.results.len();
    for b in f.child_blocks(s) {
        let (Block::Then(_) | Block::Else(_)) = b else {
            continue;
        };
        let at = f.yield_index(b).map(|k| f.block(b)[k]);
        let yielded = at.and_then(|y| match &f.stmts[y].kind {
            StmtKind::Yield(v) => Some(v.len()),
            _ => None,
        });
        // A branch that yields nothing is left alone (its results are
        // not used on that path in the programs PyPTO's parser accepts).
        if yielded.is_none_or(|k| k == n) {
            continue;
        }
        let branch = if matches!(b, Block::Then(_)) {
            "then"
        } else {
            "else"
        };
        return Some(error(
            at.map_or(f.pos_of(s), |y| f.pos_of(y)),
            1,
            format!(
                "the `if` has {n} result(s) but its {branch} branch yields {}: a branch \
                 yields one value per result",
                yielded.unwrap_or(0)
            ),
            "yield one value per result in every branch",
        ));
    }
    None
}

/// The values a loop carries (init value, iter arg, yielded value,
/// result) and an `if` joins (branch yields, result) hold the same data in
/// one buffer, so their tiles have one size: a result declared larger than
/// its carry would be given the carry's storage.
fn check_joined(f: &Function, s: crate::ir::StmtId) -> Option<ParseError> {
    use crate::ir::{Block, StmtKind};
    let yields = |b: Block| -> Vec<Option<VarId>> {
        f.yield_index(b)
            .and_then(|i| match &f.stmts[f.block(b)[i]].kind {
                StmtKind::Yield(v) => Some(v.iter().map(Expr::as_var).collect()),
                _ => None,
            })
            .unwrap_or_default()
    };
    let mut groups: Vec<Vec<Option<VarId>>> = Vec::new();
    match &f.stmts[s].kind {
        StmtKind::For(l) => {
            let ys = yields(Block::Loop(s));
            let inits = l.init_values();
            for (k, &a) in l.iter_args.iter().enumerate() {
                groups.push(vec![
                    inits.get(k).and_then(Expr::as_var),
                    Some(a),
                    ys.get(k).copied().flatten(),
                    l.results.get(k).copied(),
                ]);
            }
        }
        StmtKind::If(i) => {
            let then = yields(Block::Then(s));
            let other = if i.else_body.is_some() {
                yields(Block::Else(s))
            } else {
                Vec::new()
            };
            for (k, &r) in i.results.iter().enumerate() {
                groups.push(vec![
                    then.get(k).copied().flatten(),
                    other.get(k).copied().flatten(),
                    Some(r),
                ]);
            }
        }
        _ => return None,
    }
    let bytes = |v: VarId| f.vars[v].ty.as_ref()?.as_tile()?.static_bytes();
    for group in groups {
        let sized: Vec<(VarId, u64)> = group
            .into_iter()
            .flatten()
            .filter_map(|v| Some((v, bytes(v)?)))
            .collect();
        let Some(&(a, ba)) = sized.first() else {
            continue;
        };
        let Some(&(b, bb)) = sized.iter().find(|&&(_, bb)| bb != ba) else {
            continue;
        };
        let (na, nb) = (&f.vars[a].name, &f.vars[b].name);
        return Some(error(
            f.pos_of(s),
            2,
            format!(
                "`{nb}` declares {bb} bytes but `{na}` declares {ba}, and the {} joins them \
                 into one buffer: the values a loop carries or an `if` joins have one size",
                if matches!(f.stmts[s].kind, StmtKind::For(_)) {
                    "loop"
                } else {
                    "`if`"
                }
            ),
            "give them one shape and dtype",
        ));
    }
    None
}

/// Where variable `v` is defined: its statement, else the function header.
fn def_pos(f: &Function, v: VarId) -> Pos {
    let p = match f.vars[v].def {
        VarDef::Stmt(s) | VarDef::LoopVar(s) | VarDef::IterArg(s) => f.pos_of(s),
        VarDef::Param(_) | VarDef::Free => f.pos,
    };
    if p.line == 0 {
        f.pos
    } else {
        p
    }
}

fn check_var(
    f: &Function,
    v: VarId,
    ty: Option<&Type>,
    allocs: &HashMap<VarId, Alloc>,
) -> Option<ParseError> {
    let name = &f.vars[v].name;
    let (shape, memref) = match ty? {
        Type::Tile(t, m) => (&t.shape, m.as_ref()),
        Type::Tensor(t, m) => (&t.shape, (**m).as_ref()),
        _ => return None,
    };
    let at = def_pos(f, v);
    let width = name.chars().count();
    if let Some(d) = shape.iter().filter_map(Expr::as_int).find(|&d| d <= 0) {
        return Some(error(
            at,
            width,
            format!(
                "`{name}` has dimension {d} in its shape: the dimensions of stored data \
                 are positive"
            ),
            "give the shape's real extent",
        ));
    }
    let (Type::Tile(t, _), Some(memref)) = (ty?, memref) else {
        return None;
    };
    let root = memref.base_var()?;
    // A MemRef's base is an allocation (a `pl.Ptr`): one naming a tile, a
    // tensor or a scalar was dropped by InitMemRef, which then gave the
    // tile storage of its own without a word (a scalar one was kept in the
    // output, and nothing was planned).
    if matches!(
        f.vars[root].ty,
        Some(Type::Tile(..) | Type::Tensor(..) | Type::Scalar(_) | Type::Tuple(_))
    ) {
        let base = &f.vars[root].name;
        return Some(error(
            at,
            width,
            format!(
                "the MemRef of tile `{name}` names `{base}`, which is not an allocation but \
                 data: a MemRef's base is a `pl.tile.alloc` result"
            ),
            "name the allocation the tile lives in, or drop the MemRef",
        ));
    }
    let a = allocs.get(&root)?;
    let alloc_name = &f.vars[root].name;
    let alloc_line = f.pos_of(a.stmt).line;
    if let Some(space) = t.space.as_ref().filter(|&&s| s != a.space) {
        return Some(error(
            at,
            width,
            format!(
                "tile `{name}` is declared in pl.Mem.{} but its MemRef names `{alloc_name}`, \
                 an allocation in pl.Mem.{} (line {alloc_line}): a tile lives in its \
                 allocation's space",
                space.name(),
                a.space.name()
            ),
            "make the tile's space and its allocation's space the same",
        ));
    }
    let bytes = [
        ("its MemRef's size", memref.size()),
        ("its shape", t.static_bytes()),
    ];
    for (what, b) in bytes {
        let Some(b) = b.filter(|&b| b > a.size) else {
            continue;
        };
        return Some(error(
            at,
            width,
            format!(
                "tile `{name}` needs {b} bytes ({what}) but its allocation `{alloc_name}` \
                 (line {alloc_line}) holds {}: an allocation holds the bytes of its tiles",
                a.size
            ),
            "enlarge the allocation or shrink the tile",
        ));
    }
    None
}

fn error(at: Pos, len: usize, message: String, label: &str) -> ParseError {
    ParseError {
        line: at.line.max(1),
        col: at.col.max(1),
        len: len.clamp(1, 80) as u32,
        message,
        label: label.into(),
    }
}
