//! The data-flow check (regalloc2's checker is the model): the planned
//! function is run abstractly, every byte of every checked space holding
//! the value last written there, and every read must find its value
//! intact.
//!
//! - **values**: a tile written by an op is a value of its own; a view and
//!   a bare alias are its source's value (they write nothing); a loop iter
//!   arg, a loop result and an `if` result are values of their own (phis);
//! - **writes**: every assignment from an op that is not a view (in-place
//!   results included) writes its targets' bytes; reads of a statement come
//!   before its writes (a value read for the last time by the op that
//!   writes over it is fine);
//! - **reads**: every operand of an op that accesses memory (views, tile
//!   creation and block queries do not), every returned value;
//! - **control flow**: each branch of an `if` runs from the state before
//!   it; after the `if` a byte either branch wrote holds nothing known,
//!   except the result windows, which hold the results. A loop's body runs
//!   from the state at its header: the state before the loop with every
//!   byte the body writes cleared (the next iteration may have written it)
//!   and the iter-arg windows holding the iter args; after the loop the
//!   header state holds. At a yield (and at loop entry, from the init
//!   values) the carry's window must hold the yielded value; a value
//!   yielded from other bytes counts as copied there.
//!
//! A value whose window is computed at run time is not tracked (the rule
//! checks bound it by its allocation instead). Sound for every path of a
//! structured program; a read that fails names the tile, its bytes and
//! the value found there.

use std::collections::BTreeMap;

use super::families::yielded;
use super::windows::{Window, Windows};
use crate::ir::{Block, EntityRef, Expr, Function, StmtId, StmtKind, VarId};
use crate::ops::{self, Evidence};

/// No value (unknown bytes, or a variable that holds none).
const NONE: u32 = u32::MAX;

/// An interval's key: `(space, start)`.
type Start = (u32, u64);
/// What an interval holds: `(end, value)`.
type Held = (u64, u32);

/// The value held by every byte written so far: disjoint intervals per
/// space, with a journal of changes to roll back to a mark.
#[derive(Default)]
struct Bytes {
    /// `(space, start) -> (end, value)`.
    map: BTreeMap<Start, Held>,
    /// Each change since the outermost open mark: the key and what it
    /// held before.
    journal: Vec<(Start, Option<Held>)>,
    /// Marks not yet released (no journal is kept without one).
    open: usize,
    /// Scratch for [`assign`](Self::assign): the intervals it replaces
    /// (kept between calls, so that a write allocates nothing).
    inside: Vec<(u64, u64, u32)>,
}

impl Bytes {
    fn set(&mut self, k: (u32, u64), e: Option<(u64, u32)>) {
        let old = match e {
            Some(e) => self.map.insert(k, e),
            None => self.map.remove(&k),
        };
        if self.open > 0 {
            self.journal.push((k, old));
        }
    }

    /// A point to roll back to; [`release`](Self::release) it when done.
    fn mark(&mut self) -> usize {
        self.open += 1;
        self.journal.len()
    }

    fn release(&mut self) {
        self.open = self.open.saturating_sub(1);
        if self.open == 0 {
            self.journal.clear();
        }
    }

    fn rollback(&mut self, m: usize) {
        while self.journal.len() > m {
            let Some((k, old)) = self.journal.pop() else {
                break;
            };
            match old {
                Some(e) => self.map.insert(k, e),
                None => self.map.remove(&k),
            };
        }
    }

    /// Makes the bytes of `w` hold `v` (`NONE`: nothing known).
    fn assign(&mut self, w: Window, v: u32) {
        let (sp, lo, hi) = (w.space, w.start, w.end);
        if lo >= hi {
            return;
        }
        if let Some((&(s0, st), &(en, val))) = self.map.range(..(sp, lo)).next_back() {
            if s0 == sp && en > lo {
                self.set((sp, st), Some((lo, val)));
                if en > hi {
                    self.set((sp, hi), Some((en, val)));
                }
            }
        }
        let mut inside = std::mem::take(&mut self.inside);
        inside.clear();
        inside.extend(
            self.map
                .range((sp, lo)..(sp, hi))
                .map(|(&(_, st), &(en, val))| (st, en, val)),
        );
        for &(st, en, val) in &inside {
            self.set((sp, st), None);
            if en > hi {
                self.set((sp, hi), Some((en, val)));
            }
        }
        self.inside = inside;
        if v != NONE {
            self.set((sp, lo), Some((hi, v)));
        }
    }

    /// Whether every byte of `w` holds `v`; otherwise the first other
    /// value found (`NONE`: bytes holding nothing known).
    fn holds(&self, w: Window, v: u32) -> Result<(), u32> {
        let (sp, lo, hi) = (w.space, w.start, w.end);
        let mut pos = lo;
        let from = match self.map.range(..=(sp, lo)).next_back() {
            Some((&(s0, st), _)) if s0 == sp => st,
            _ => lo,
        };
        for (&(_, st), &(en, val)) in self.map.range((sp, from)..(sp, hi)) {
            if en <= pos {
                continue;
            }
            if st > pos {
                return Err(NONE);
            }
            if val != v {
                return Err(val);
            }
            pos = en;
            if pos >= hi {
                return Ok(());
            }
        }
        if pos >= hi {
            Ok(())
        } else {
            Err(NONE)
        }
    }
}

/// A read that found its bytes overwritten.
pub(super) struct Clobber {
    /// The tile read.
    pub read: VarId,
    /// The statement reading it.
    pub at: StmtId,
    /// Its bytes.
    pub window: Window,
    /// The value found there instead (`None`: none known on some path).
    pub found: Option<VarId>,
    /// The value the read expected: the variable that wrote it (a view
    /// or alias reads its source's).
    pub expected: VarId,
}

struct Flow<'a> {
    f: &'a Function,
    w: &'a Windows,
    /// The value each variable holds.
    val: Vec<u32>,
    bytes: Bytes,
}

/// Runs the check over `f`.
pub(super) fn check(f: &Function, w: &Windows) -> Result<(), Clobber> {
    let mut flow = Flow {
        f,
        w,
        val: vec![NONE; f.vars.len()],
        bytes: Bytes::default(),
    };
    flow.block(Block::Body)
}

impl Flow<'_> {
    fn window(&self, v: VarId) -> Option<Window> {
        self.w.place[v.index()].exact()
    }

    /// `v`'s bytes hold its value (or `v` is not tracked).
    fn read(&self, v: VarId, at: StmtId) -> Result<(), Clobber> {
        let val = self.val[v.index()];
        let Some(w) = self.window(v) else {
            return Ok(());
        };
        if val == NONE {
            return Ok(());
        }
        self.bytes.holds(w, val).map_err(|found| Clobber {
            read: v,
            at,
            window: w,
            found: (found != NONE).then(|| VarId::new(found as usize)),
            expected: VarId::new(val as usize),
        })
    }

    fn reads(&self, s: StmtId) -> Result<(), Clobber> {
        let mut out = Ok(());
        self.f.stmts[s].for_each_use(&mut |u| {
            if out.is_ok() {
                out = self.read(u, s);
            }
        });
        out
    }

    fn write(&mut self, v: VarId) {
        self.val[v.index()] = v.index() as u32;
        if let Some(w) = self.window(v) {
            self.bytes.assign(w, v.index() as u32);
        }
    }

    fn block(&mut self, b: Block) -> Result<(), Clobber> {
        let f = self.f;
        for &s in f.block(b) {
            match &f.stmts[s].kind {
                StmtKind::Assign { targets, value } => match value {
                    // A bare alias names its source's bytes.
                    Expr::Var(y) => {
                        for &t in targets.iter() {
                            self.val[t.index()] = self.val[y.index()];
                        }
                    }
                    Expr::Call(call) => {
                        let info = ops::lookup_or_default(call.op_name());
                        if info.evidence != Evidence::NoAccess {
                            self.reads(s)?;
                        }
                        if info.is_view() {
                            let src = call.args.first().and_then(Expr::as_var);
                            let v = src.map_or(NONE, |x| self.val[x.index()]);
                            for &t in targets.iter() {
                                self.val[t.index()] = v;
                            }
                        } else {
                            for &t in targets.iter() {
                                self.write(t);
                            }
                        }
                    }
                    _ => {
                        self.reads(s)?;
                        for &t in targets.iter() {
                            self.write(t);
                        }
                    }
                },
                StmtKind::Expr(e) => {
                    let access = e.as_call().is_none_or(|c| {
                        ops::lookup_or_default(c.op_name()).evidence != Evidence::NoAccess
                    });
                    if access {
                        self.reads(s)?;
                    }
                }
                StmtKind::Return(_) => self.reads(s)?,
                StmtKind::For(_) => self.for_loop(s)?,
                StmtKind::If(_) => self.if_stmt(s)?,
                StmtKind::With(_) => {
                    self.reads(s)?;
                    self.block(Block::With(s))?;
                }
                // Checked by the loop or `if` that owns it.
                StmtKind::Yield(_) => {}
                StmtKind::Alloc { .. } | StmtKind::Comment(_) | StmtKind::Blank => {}
            }
        }
        Ok(())
    }

    /// The windows the statements of block `b` (nested blocks included)
    /// write, the phis of nested loops and `if`s too.
    fn written(&self, b: Block, out: &mut Vec<Window>) {
        let f = self.f;
        for &s in f.block(b) {
            match &f.stmts[s].kind {
                StmtKind::Assign {
                    targets,
                    value: Expr::Call(call),
                } if !ops::lookup_or_default(call.op_name()).is_view() => {
                    out.extend(targets.iter().filter_map(|&t| self.window(t)));
                }
                StmtKind::Assign {
                    targets,
                    value: Expr::Index(..),
                } => out.extend(targets.iter().filter_map(|&t| self.window(t))),
                StmtKind::For(l) => {
                    out.extend(
                        l.iter_args
                            .iter()
                            .chain(&l.results)
                            .filter_map(|&a| self.window(a)),
                    );
                }
                StmtKind::If(i) => out.extend(i.results.iter().filter_map(|&r| self.window(r))),
                _ => {}
            }
            for c in f.child_blocks(s) {
                self.written(c, out);
            }
        }
    }

    /// The value `y` a block yields for a carry of window `carry`: in the
    /// carry's bytes, or (from other bytes) intact where it is, as a copy
    /// reads it.
    fn yield_into(&self, y: VarId, carry: Option<Window>, at: StmtId) -> Result<(), Clobber> {
        let v = self.val[y.index()];
        let (Some(wc), true) = (carry, v != NONE) else {
            return self.read(y, at);
        };
        if self.window(y) != Some(wc) {
            return self.read(y, at);
        }
        self.bytes.holds(wc, v).map_err(|found| Clobber {
            read: y,
            at,
            window: wc,
            found: (found != NONE).then(|| VarId::new(found as usize)),
            expected: VarId::new(v as usize),
        })
    }

    fn yield_stmt(&self, b: Block) -> StmtId {
        let f = self.f;
        f.yield_index(b)
            .map(|i| f.block(b)[i])
            .or_else(|| f.block(b).last().copied())
            .unwrap_or_else(|| match b {
                Block::Loop(s) | Block::Then(s) | Block::Else(s) | Block::With(s) => s,
                Block::Body => StmtId::new(0),
            })
    }

    /// A loop: its body's write set (a walk of the body that runs
    /// nothing), then the body run once from the header state.
    ///
    /// The first walk is what makes one run enough: the header state of
    /// iteration 2 and later is the state before the loop joined with the
    /// state at the body's end, and the two differ exactly on the bytes the
    /// body writes on some path (the body writes only values it defines,
    /// never one held before the loop, and the iter-arg windows are set at
    /// the header). So "every byte the body writes cleared" is the fixed
    /// point of that join, reached without iterating, and it must be known
    /// before the body's first read is checked against it. Doing without
    /// the walk would mean deferring every read of a value from before the
    /// loop to the loop's end and checking it there against the writes
    /// seen, which moves errors out of program order for no saving (the
    /// walk only collects windows; the run does the interval work).
    fn for_loop(&mut self, s: StmtId) -> Result<(), Clobber> {
        let f = self.f;
        let StmtKind::For(l) = &f.stmts[s].kind else {
            return Ok(());
        };
        // Bounds and init values are read at the `for`.
        self.reads(s)?;
        let inits: Vec<Option<VarId>> = l.init_values().iter().map(Expr::as_var).collect();
        for (k, &a) in l.iter_args.iter().enumerate() {
            // An iter arg in other bytes than its init is a copy of it.
            if let Some(Some(x)) = inits.get(k) {
                if self.window(a) != self.window(*x) {
                    self.read(*x, s)?;
                }
            }
            self.val[a.index()] = a.index() as u32;
        }
        let mut written = Vec::new();
        self.written(Block::Loop(s), &mut written);
        for w in written {
            self.bytes.assign(w, NONE);
        }
        for &a in &l.iter_args {
            if let Some(w) = self.window(a) {
                self.bytes.assign(w, a.index() as u32);
            }
        }
        let header = self.bytes.mark();
        self.block(Block::Loop(s))?;
        let at = self.yield_stmt(Block::Loop(s));
        let ys = yielded(f, Block::Loop(s));
        for (k, &a) in l.iter_args.iter().enumerate() {
            if let Some(y) = ys.get(k).and_then(Expr::as_var) {
                self.yield_into(y, self.window(a), at)?;
            }
        }
        self.bytes.rollback(header);
        self.bytes.release();
        // After the loop its results hold the last iteration's carries.
        for (k, &r) in l.results.iter().enumerate() {
            let Some(&a) = l.iter_args.get(k) else {
                continue;
            };
            self.val[r.index()] = a.index() as u32;
            if let (Some(wr), wa) = (self.window(r), self.window(a)) {
                if Some(wr) != wa {
                    self.bytes.assign(wr, a.index() as u32);
                }
            }
        }
        Ok(())
    }

    fn if_stmt(&mut self, s: StmtId) -> Result<(), Clobber> {
        let f = self.f;
        let StmtKind::If(i) = &f.stmts[s].kind else {
            return Ok(());
        };
        self.reads(s)?;
        let before = self.bytes.mark();
        let mut written = Vec::new();
        for b in f.child_blocks(s) {
            self.block(b)?;
            let at = self.yield_stmt(b);
            let ys = yielded(f, b);
            for (k, &r) in i.results.iter().enumerate() {
                if let Some(y) = ys.get(k).and_then(Expr::as_var) {
                    self.yield_into(y, self.window(r), at)?;
                }
            }
            self.bytes.rollback(before);
            self.written(b, &mut written);
        }
        self.bytes.release();
        for w in written {
            self.bytes.assign(w, NONE);
        }
        for &r in &i.results {
            self.val[r.index()] = r.index() as u32;
            if let Some(w) = self.window(r) {
                self.bytes.assign(w, r.index() as u32);
            }
        }
        Ok(())
    }
}
