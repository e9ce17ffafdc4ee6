//! Per-variable facts of one function that the DSA_RP model needs: program
//! order indices, definition and (loop-extended) last use, whether a value is
//! touched inside control flow, and which statements read it.
//!
//! Numbering follows MemoryReuse's lifetime analysis: every statement of the
//! tree gets the next index in pre-order (allocs, yields and returns
//! included; a `for`/`if` header takes one index for its bounds, init values
//! or condition); comments and blank lines take none. A value defined before
//! a loop and read inside it lives until the loop's last index. Loop iter
//! args are defined at the loop header; loop and `if` results at the yield
//! that produces them.
//!
//! Assumes: a well-formed program model (every block owner exists).
//! Guarantees: deterministic, read-only.

use crate::ir::{Block, Function, StmtId, StmtKind, VarId};

/// Facts about one variable.
#[derive(Clone, Debug, Default)]
pub struct VarFacts {
    /// Program-order index of the definition (smallest when defined twice,
    /// e.g. an `if` result yielded by both branches).
    pub def: Option<u32>,
    /// Greatest (loop-extended) index of a read, if read at all.
    pub last_read: Option<u32>,
    /// The defining statement is an assignment inside a `for`/`if`, or the
    /// variable is a loop iter arg or a loop/`if` result.
    pub def_in_control_flow: bool,
    /// Defined or read inside a `for`/`if` (or a carried value).
    pub touched_in_control_flow: bool,
    /// Assignment or expression statements that read the variable.
    pub readers: Vec<StmtId>,
    /// For an `if` result (a phi): the last index of its `if`, where the
    /// branches join. Before it the value sits in the bytes of the value
    /// the taken branch yields, and only on that branch's path.
    pub join: Option<u32>,
}

impl VarFacts {
    /// Last index the value is needed at (its definition when never read).
    pub fn last(&self) -> Option<u32> {
        match (self.def, self.last_read) {
            (Some(d), Some(r)) => Some(d.max(r)),
            (d, r) => d.or(r),
        }
    }
}

/// Facts about every variable of a function, indexed by `VarId::index()`.
pub struct Facts {
    pub vars: Vec<VarFacts>,
}

impl Facts {
    /// The facts of `v`.
    pub fn var(&self, v: VarId) -> &VarFacts {
        &self.vars[crate::ir::EntityRef::index(v)]
    }
}

struct Walker<'f> {
    f: &'f Function,
    next: u32,
    depth: u32,
    /// Open loops, outermost first: (header index, end index when closed).
    loops: Vec<usize>,
    spans: Vec<(u32, u32)>,
    /// Reads to resolve once loop ends are known: (var, index, open loops).
    reads: Vec<(VarId, u32, Vec<usize>)>,
    vars: Vec<VarFacts>,
}

/// Computes the facts of `f`.
pub fn analyze(f: &Function) -> Facts {
    let mut w = Walker {
        f,
        next: 0,
        depth: 0,
        loops: Vec::new(),
        spans: Vec::new(),
        reads: Vec::new(),
        vars: vec![VarFacts::default(); f.vars.len()],
    };
    w.block(Block::Body);
    let Walker {
        spans,
        reads,
        mut vars,
        ..
    } = w;
    for (v, at, open) in reads {
        let i = crate::ir::EntityRef::index(v);
        let def = vars[i].def;
        let mut at_ext = at;
        // Outermost loop that contains the read but not the definition.
        for &l in &open {
            let (start, end) = spans[l];
            let inside = def.is_some_and(|d| d >= start && d <= end);
            if !inside {
                at_ext = at_ext.max(end);
                break;
            }
        }
        let last = &mut vars[i].last_read;
        *last = Some(last.map_or(at_ext, |x| x.max(at_ext)));
    }
    Facts { vars }
}

impl Walker<'_> {
    fn define(&mut self, v: VarId, at: u32, in_cf: bool) {
        let x = &mut self.vars[crate::ir::EntityRef::index(v)];
        x.def = Some(x.def.map_or(at, |d| d.min(at)));
        if in_cf {
            x.def_in_control_flow = true;
            x.touched_in_control_flow = true;
        }
    }

    fn read(&mut self, v: VarId, at: u32, reader: Option<StmtId>) {
        let in_cf = self.depth > 0;
        let x = &mut self.vars[crate::ir::EntityRef::index(v)];
        if in_cf {
            x.touched_in_control_flow = true;
        }
        if let Some(s) = reader {
            x.readers.push(s);
        }
        self.reads.push((v, at, self.loops.clone()));
    }

    fn block(&mut self, b: Block) {
        let stmts: Vec<StmtId> = self.f.block(b).to_vec();
        for s in stmts {
            self.stmt(b, s);
        }
    }

    fn stmt(&mut self, b: Block, s: StmtId) {
        let f = self.f;
        let at = self.next;
        match &f.stmts[s].kind {
            StmtKind::Comment(_) | StmtKind::Blank => {}
            StmtKind::Assign { targets, .. } => {
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, Some(s));
                }
                let in_cf = self.depth > 0;
                for &t in targets {
                    self.define(t, at, in_cf);
                }
                self.next += 1;
            }
            StmtKind::Expr(_) => {
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, Some(s));
                }
                self.next += 1;
            }
            StmtKind::Return(_) => {
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, None);
                }
                self.next += 1;
            }
            StmtKind::Yield(_) => {
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, None);
                }
                if let Some(owner) = b.owner() {
                    let results = match &f.stmts[owner].kind {
                        StmtKind::For(l) => l.results.clone(),
                        StmtKind::If(i) => i.results.clone(),
                        _ => Vec::new(),
                    };
                    for r in results {
                        self.define(r, at, true);
                    }
                }
                self.next += 1;
            }
            StmtKind::For(l) => {
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, None);
                }
                for &a in &l.iter_args {
                    self.define(a, at, true);
                }
                if let Some(lv) = l.loop_var {
                    self.define(lv, at, true);
                }
                self.next += 1;
                let span = self.spans.len();
                self.spans.push((at, at));
                self.loops.push(span);
                self.depth += 1;
                self.block(Block::Loop(s));
                self.depth -= 1;
                self.loops.pop();
                self.spans[span].1 = self.next.saturating_sub(1).max(at);
            }
            StmtKind::If(i) => {
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, None);
                }
                self.next += 1;
                self.depth += 1;
                self.block(Block::Then(s));
                if i.else_body.is_some() {
                    self.block(Block::Else(s));
                }
                self.depth -= 1;
                // Without an else branch there is no second path to exclude.
                let join = self.next.saturating_sub(1).max(at);
                for &r in i.results.iter().filter(|_| i.else_body.is_some()) {
                    self.vars[crate::ir::EntityRef::index(r)].join = Some(join);
                }
            }
            StmtKind::With(_) => {
                // Runs once, in place: its statements count as if inline.
                let mut used = Vec::new();
                f.stmts[s].for_each_use(&mut |v| used.push(v));
                for v in used {
                    self.read(v, at, None);
                }
                self.next += 1;
                self.block(Block::With(s));
            }
        }
    }
}
