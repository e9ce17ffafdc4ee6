//! The declarative op formats of the `hivm` and `ave` dialects, as the
//! reader and the printer interpret them.
//!
//! The rows ([`OdsOp`]) are generated from the dialects' ODS files into
//! `ods_table.rs` (`cargo xtask ods`). Each row keeps the op's
//! `assemblyFormat` text; [`elements`] parses it once into [`Elem`]s, the
//! same directives MLIR's `OpFormatGen` understands: literals, `$operand`,
//! `$attr`, `type(..)`, `functional-type(..)`, `attr-dict`,
//! `attr-dict-with-keyword`, optional groups `( .. $anchor^ .. )?` and the
//! custom directives `DynamicIndexList`, `EventID` and `FlagID`.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::ods::{OdsAttr, OdsOp};

/// A variable of a format: what `$name` refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    /// Operand (segment) `i`.
    Operand(usize),
    /// Result `i`.
    Result(usize),
    /// An attribute.
    Attr(&'static OdsAttr),
    /// Region `i`.
    Region(usize),
    /// Successor `i`.
    Successor(usize),
    /// All operands (`operands`).
    AllOperands,
    /// All results (`results`).
    AllResults,
}

/// One element of a parsed format.
#[derive(Clone, Debug, PartialEq)]
pub enum Elem {
    /// A literal: a keyword or punctuation; `""` is MLIR's `` `` `` (no
    /// space before the next element), `" "` forces a space.
    Literal(&'static str),
    /// `$name`.
    Var(Var),
    /// `type($x)`.
    Type(Var),
    /// `functional-type($inputs, $results)`.
    FunctionalType(Var, Var),
    /// `attr-dict` / `attr-dict-with-keyword` (`true`).
    AttrDict(bool),
    /// `custom<Name>(vars)`.
    Custom(&'static str, Vec<Var>),
    /// `( elems )?`: printed when the anchor is present.
    Optional {
        /// The group.
        elems: Vec<Elem>,
        /// The anchor variable (`$x^` or `type($x)^`).
        anchor: Var,
    },
}

/// Every row: the generated `hivm`/`ave` table, then the upstream ops
/// ([`crate::ir::upstream`]).
fn all_ops() -> impl Iterator<Item = &'static OdsOp> {
    crate::ir::ods_table::OPS
        .iter()
        .chain(crate::ir::upstream::OPS.iter())
        .chain(crate::ir::upstream::MORE.iter())
        .chain(std::iter::once(&crate::ir::upstream::PARALLEL_INSERT_SLICE))
}

/// The table row of `name`.
pub fn lookup(name: &str) -> Option<&'static OdsOp> {
    static INDEX: OnceLock<HashMap<&'static str, &'static OdsOp>> = OnceLock::new();
    INDEX
        .get_or_init(|| all_ops().map(|o| (o.name, o)).collect())
        .get(name)
        .copied()
}

/// The parsed format of `op` (`None` for ops with a custom parser or a
/// format this interpreter does not understand).
pub fn elements(op: &'static OdsOp) -> Option<&'static [Elem]> {
    static CACHE: OnceLock<HashMap<&'static str, Option<Vec<Elem>>>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            all_ops()
                .map(|o| (o.name, o.format.and_then(|f| parse_format(o, f))))
                .collect()
        })
        .get(op.name)
        .and_then(|e| e.as_deref())
}

/// The parsed format of the op named `name`, with its row.
pub fn op_format(name: &str) -> Option<(&'static OdsOp, &'static [Elem])> {
    let op = lookup(name)?;
    Some((op, elements(op)?))
}

/// The ODS operands written inside `keyword( .. )` of a format (`ins`,
/// `outs`, `temp_buffer`), in order; `None` when the format has no such
/// group.
pub fn group_operands(elems: &[Elem], keyword: &str) -> Option<Vec<usize>> {
    for (i, e) in elems.iter().enumerate() {
        if let Elem::Optional { elems, .. } = e {
            if let Some(r) = group_operands(elems, keyword) {
                return Some(r);
            }
        }
        if matches!(e, Elem::Literal(l) if *l == keyword)
            && elems.get(i + 1) == Some(&Elem::Literal("("))
        {
            let mut vars = Vec::new();
            for e in &elems[i + 2..] {
                match e {
                    Elem::Literal(")") => break,
                    Elem::Var(Var::Operand(k)) => vars.push(*k),
                    Elem::Optional { elems, .. } => {
                        for e in elems {
                            if let Elem::Var(Var::Operand(k)) = e {
                                vars.push(*k);
                            }
                        }
                    }
                    _ => {}
                }
            }
            return Some(vars);
        }
    }
    None
}

struct FmtParser<'a> {
    op: &'static OdsOp,
    s: &'static str,
    i: usize,
    _p: std::marker::PhantomData<&'a ()>,
}

impl FmtParser<'_> {
    fn ws(&mut self) {
        while self
            .s
            .as_bytes()
            .get(self.i)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.i += 1;
        }
    }

    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> &'static str {
        self.ws();
        let start = self.i;
        while self
            .s
            .as_bytes()
            .get(self.i)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            self.i += 1;
        }
        &self.s[start..self.i]
    }

    fn var(&mut self) -> Option<Var> {
        self.ws();
        if self.eat("$") {
            let name = self.word();
            if let Some(i) = self.op.operand_index(name) {
                return Some(Var::Operand(i));
            }
            if let Some(i) = self.op.result_index(name) {
                return Some(Var::Result(i));
            }
            if let Some(a) = self.op.attr(name) {
                return Some(Var::Attr(a));
            }
            if let Some(i) = self.op.successors.iter().position(|s| *s == name) {
                return Some(Var::Successor(i));
            }
            return None;
        }
        match self.word() {
            "operands" => Some(Var::AllOperands),
            "results" => Some(Var::AllResults),
            _ => None,
        }
    }

    /// Elements until `)` or the end; `anchor` collects a `^`.
    fn elems(&mut self, anchor: &mut Option<Var>) -> Option<Vec<Elem>> {
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.i >= self.s.len() || self.s[self.i..].starts_with(')') {
                return Some(out);
            }
            let e = if self.eat("`") {
                let end = self.s[self.i..].find('`')? + self.i;
                let lit = &self.s[self.i..end];
                self.i = end + 1;
                Elem::Literal(lit)
            } else if self.eat("(") {
                let mut inner_anchor = None;
                let elems = self.elems(&mut inner_anchor)?;
                if !self.eat(")") || !self.eat("?") {
                    return None;
                }
                Elem::Optional {
                    elems,
                    anchor: inner_anchor?,
                }
            } else if self.s[self.i..].starts_with('$') {
                Elem::Var(self.var()?)
            } else {
                let w = self.word();
                match w {
                    "attr-dict" => Elem::AttrDict(false),
                    "attr-dict-with-keyword" => Elem::AttrDict(true),
                    "type" => {
                        if !self.eat("(") {
                            return None;
                        }
                        let v = self.var()?;
                        if !self.eat(")") {
                            return None;
                        }
                        Elem::Type(v)
                    }
                    "functional-type" => {
                        if !self.eat("(") {
                            return None;
                        }
                        let a = self.var()?;
                        if !self.eat(",") {
                            return None;
                        }
                        let b = self.var()?;
                        if !self.eat(")") {
                            return None;
                        }
                        Elem::FunctionalType(a, b)
                    }
                    "custom" => {
                        if !self.eat("<") {
                            return None;
                        }
                        let name = self.word();
                        if !self.eat(">") || !self.eat("(") {
                            return None;
                        }
                        let mut vars = Vec::new();
                        loop {
                            vars.push(self.var()?);
                            if !self.eat(",") {
                                break;
                            }
                        }
                        if !self.eat(")") {
                            return None;
                        }
                        Elem::Custom(name, vars)
                    }
                    "operands" => Elem::Var(Var::AllOperands),
                    "results" => Elem::Var(Var::AllResults),
                    _ => return None,
                }
            };
            if self.eat("^") {
                *anchor = Some(match &e {
                    Elem::Var(v) | Elem::Type(v) => *v,
                    Elem::Custom(_, vars) => *vars.first()?,
                    _ => return None,
                });
            }
            out.push(e);
        }
    }
}

fn parse_format(op: &'static OdsOp, format: &'static str) -> Option<Vec<Elem>> {
    let mut p = FmtParser {
        op,
        s: format,
        i: 0,
        _p: std::marker::PhantomData,
    };
    let mut anchor = None;
    let elems = p.elems(&mut anchor)?;
    p.ws();
    (p.i == format.len()).then_some(elems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declarative_format_parses() {
        let bad: Vec<&str> = all_ops()
            .filter(|o| o.format.is_some() && elements(o).is_none())
            .map(|o| o.name)
            .collect();
        assert!(bad.is_empty(), "formats not understood: {bad:?}");
    }

    #[test]
    fn vadd_format_has_its_groups_in_order() {
        let (op, elems) = op_format("hivm.hir.vadd").unwrap();
        assert_eq!(op.operands.len(), 3);
        assert_eq!(elems[0], Elem::AttrDict(false));
        assert_eq!(elems[1], Elem::Literal("ins"));
        assert_eq!(elems[2], Elem::Literal("("));
        assert_eq!(elems[3], Elem::Var(Var::Operand(0)));
        assert!(matches!(
            elems.last(),
            Some(Elem::Optional {
                anchor: Var::Result(0),
                ..
            })
        ));
    }
}
