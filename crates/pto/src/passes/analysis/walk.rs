//! Program-order walks without a table of every statement.
//!
//! [`Function::walk`] collects every statement of a function with its
//! block: 12 bytes a statement, 2 MB for a 100k-statement kernel, built
//! anew by each analysis that walks. [`stmts`] visits the same statements
//! in the same order holding only one cursor per open block (the nesting
//! depth), for the walks that do not change the function while walking.
//!
//! Guarantees: yields exactly the pairs `f.walk()` returns, in the same
//! order (pre-order: a `for`/`if`/`with` before the statements of its
//! blocks, an `if`'s then branch before its else branch).

use crate::ir::{Block, Function, StmtId, StmtKind};

/// The statements of `f` in program order, with their blocks, as
/// [`Function::walk`] lists them.
pub fn stmts(f: &Function) -> Stmts<'_> {
    Stmts {
        f,
        open: vec![(Block::Body, f.block(Block::Body).iter())],
    }
}

/// The iterator of [`stmts`].
pub struct Stmts<'a> {
    f: &'a Function,
    /// The blocks being walked, innermost last, each with its cursor.
    open: Vec<(Block, std::slice::Iter<'a, StmtId>)>,
}

impl Stmts<'_> {
    /// Whether `s`, the statement just returned, is inside a loop (a
    /// `for` is not inside its own body).
    pub fn in_loop(&self, s: StmtId) -> bool {
        self.open
            .iter()
            .any(|(b, _)| matches!(*b, Block::Loop(l) if l != s))
    }
}

impl Stmts<'_> {
    /// The blocks enclosing `s`, the statement just returned, outermost
    /// first: neither the blocks of `s` itself nor an `if`'s else branch
    /// while its then branch is walked (both wait on the stack).
    pub fn enclosing(&self, s: StmtId) -> impl Iterator<Item = Block> + '_ {
        self.open
            .iter()
            .enumerate()
            .filter(move |&(k, &(b, _))| {
                let pending_else = matches!(
                    (b, self.open.get(k + 1)),
                    (Block::Else(i), Some(&(Block::Then(j), _))) if i == j
                );
                b.owner() != Some(s) && !pending_else
            })
            .map(|(_, &(b, _))| b)
    }
}

impl Iterator for Stmts<'_> {
    type Item = (Block, StmtId);

    fn next(&mut self) -> Option<(Block, StmtId)> {
        loop {
            let (b, cursor) = self.open.last_mut()?;
            let Some(&s) = cursor.next() else {
                self.open.pop();
                continue;
            };
            let b = *b;
            let mut open = |child: Block| self.open.push((child, self.f.block(child).iter()));
            match &self.f.stmts[s].kind {
                StmtKind::For(_) => open(Block::Loop(s)),
                StmtKind::With(_) => open(Block::With(s)),
                StmtKind::If(i) => {
                    // Innermost first: the then branch is walked before
                    // the else branch.
                    if i.else_body.is_some() {
                        open(Block::Else(s));
                    }
                    open(Block::Then(s));
                }
                _ => {}
            }
            return Some((b, s));
        }
    }
}
