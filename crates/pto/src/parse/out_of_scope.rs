//! The error for a name read outside the loop body or `if` branch that
//! defines it (see [`super::scope`] for the rule), saying where the name
//! was defined and what to read instead: the loop's or the `if`'s result.

use crate::diag::ParseError;
use crate::ir::{EntityRef as _, Expr, StmtId, StmtKind, VarDef, VarId};

use super::lexer::Token;
use super::Parser;

impl Parser<'_> {
    /// The error for token `t` when it names a variable of this function
    /// whose loop body or `if` branch has ended; `None` when the function
    /// defines no variable of that name (the name is undefined).
    ///
    /// Called only on the error path: it walks the whole function once.
    pub(super) fn out_of_scope(&self, t: Token) -> Option<Box<ParseError>> {
        let name = self.text(t);
        let (v, data) =
            self.f.vars.iter().rev().find(|(_, d)| {
                &*d.name == name && !matches!(d.def, VarDef::Free | VarDef::Param(_))
            })?;
        let line = self.def_line(v).unwrap_or(0);
        // The block a use must be inside of to see `v`: its loop for a
        // loop or loop-carried variable, else the statement's own block.
        let (start, mut ending) = match data.def {
            VarDef::LoopVar(s) | VarDef::IterArg(s) => (s, Some(s)),
            VarDef::Stmt(s) => (s, None),
            VarDef::Param(_) | VarDef::Free => return None,
        };
        // Parents of the statements of finished blocks (those still open
        // have no kind yet, so a walk up stops at them).
        let mut parent: Vec<Option<StmtId>> = vec![None; self.f.stmts.len()];
        for (s, stmt) in self.f.stmts.iter() {
            let mut set = |body: &[StmtId]| {
                for &c in body {
                    if let Some(p) = parent.get_mut(c.index()) {
                        *p = Some(s);
                    }
                }
            };
            match &stmt.kind {
                StmtKind::For(l) => set(&l.body),
                StmtKind::If(i) => {
                    set(&i.then_body);
                    set(i.else_body.as_deref().unwrap_or(&[]));
                }
                StmtKind::With(w) => set(&w.body),
                _ => {}
            }
        }
        // The outermost finished loop or `if` around the definition: the
        // block whose end took the name away (a `with` block keeps names).
        let mut cur = start;
        while let Some(p) = parent.get(cur.index()).copied().flatten() {
            if matches!(self.f.stmts[p].kind, StmtKind::For(_) | StmtKind::If(_)) {
                ending = Some(p);
            }
            cur = p;
        }
        // The block `v` belongs to directly: its own loop, or the block
        // its statement stands in.
        let innermost = match data.def {
            VarDef::Stmt(s) => parent.get(s.index()).copied().flatten(),
            _ => Some(start),
        };
        let what = match data.def {
            VarDef::LoopVar(_) => "the loop variable",
            VarDef::IterArg(_) => "the loop-carried variable",
            _ => "",
        };
        let Some(end) = ending else {
            // A sibling `if` branch, or a block of an `elif` chain still
            // being read.
            return Some(self.err(
                t,
                format!(
                    "`{name}` (defined at line {line}) is not visible here: a name a loop body \
                     or an `if` branch defines ends with that block"
                ),
                &format!("read `{name}` inside its block, or yield it out of the block"),
            ));
        };
        let at = self.f.pos_of(end).line;
        // The result that carries `v` out of its innermost block, if any.
        let result = innermost
            .filter(|&b| b == end)
            .and_then(|b| self.result_of(b, v));
        let result_hint = |what: &str| match result {
            Some((r, yield_line)) => format!(
                "read the {what}'s result `{}` (line {yield_line}) instead, which holds \
                 `{name}`'s last value",
                self.f.vars[r].name
            ),
            None => String::new(),
        };
        let (message, label) = match &self.f.stmts[end].kind {
            StmtKind::For(l) => {
                let message = if what.is_empty() {
                    format!(
                        "`{name}` is not visible after its loop: it is defined at line {line}, \
                         in the body of the loop at line {at}, and a name a loop body defines \
                         ends with the loop"
                    )
                } else {
                    // `line` is its own loop's.
                    format!(
                        "`{name}` is not visible after its loop: it is {what} of the loop at \
                         line {line}, and ends with the loop"
                    )
                };
                let label = if result.is_some() {
                    result_hint("loop")
                } else if matches!(data.def, VarDef::LoopVar(_)) {
                    "compute the value from the loop's bounds after the loop".to_string()
                } else if let Some(&r) = l.results.first() {
                    format!(
                        "only the loop's results (`{}`...) are visible after it: carry `{name}` \
                         out as one more loop-carried value yielded by `pl.yield_`",
                        self.f.vars[r].name
                    )
                } else {
                    format!(
                        "carry `{name}` out of the loop: give the loop `init_values=(...)`, \
                         yield `{name}` (`r: T = pl.yield_({name})`) and read the result `r`"
                    )
                };
                (message, label)
            }
            _ => {
                let message = format!(
                    "`{name}` is not visible after its `if`: it is defined at line {line}, in a \
                     branch of the `if` at line {at}, and a name a branch defines ends with the \
                     branch"
                );
                let label = if result.is_some() {
                    result_hint("`if`")
                } else {
                    format!(
                        "yield it from every branch (`r: T = pl.yield_({name})`) and read the \
                         `if`'s result `r`"
                    )
                };
                (message, label)
            }
        };
        Some(self.err(t, message, &label))
    }

    /// The result of loop or `if` `block` that carries `v` out of it (a
    /// loop-carried variable: its own result; a body's name: the result
    /// its block's final `pl.yield_` sets from it), with the line of that
    /// yield.
    fn result_of(&self, block: StmtId, v: VarId) -> Option<(VarId, u32)> {
        let (bodies, results, carried): (Vec<&[StmtId]>, &[VarId], _) =
            match &self.f.stmts[block].kind {
                StmtKind::For(l) => (
                    vec![&l.body],
                    &l.results,
                    l.iter_args.iter().position(|&a| a == v),
                ),
                StmtKind::If(i) => {
                    let mut b: Vec<&[StmtId]> = vec![&i.then_body];
                    b.extend(i.else_body.as_deref());
                    (b, &i.results, None)
                }
                _ => return None,
            };
        bodies.into_iter().find_map(|body| {
            let last = body.iter().rev().find(|&&s| {
                !matches!(self.f.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank)
            })?;
            let StmtKind::Yield(vals) = &self.f.stmts[*last].kind else {
                return None;
            };
            let k = carried.or_else(|| {
                vals.iter()
                    .position(|e| matches!(e, Expr::Var(w) if *w == v))
            })?;
            Some((*results.get(k)?, self.f.pos_of(*last).line))
        })
    }
}
