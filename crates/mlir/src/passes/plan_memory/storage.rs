//! Storage entries (`StorageEntry`): the units PlanMemory places. One entry
//! per gen'd buffer, in gen order; then
//! - in-place pairs merge (the gen'd buffer's entry folds into the killed
//!   one's: lifetimes merged, buffers listed, multi-buffer factor the
//!   larger) — [`MemPlan::merge_inplace`];
//! - an entry with a multi-buffer factor `n` gets `n - 1` copies appended
//!   ("other" slots, same buffers and lifetimes) —
//!   [`MemPlan::expand_multi_buffer`];
//! - entries group per memory space under a root (the first entry of the
//!   space; the others are its children) and the space's no-reuse size is
//!   the sum of the aligned sizes — [`MemPlan::merge_same_scope`].
//!
//! Sizes are the entry's first buffer's (`bufInfo`), aligned per space.

use crate::ir::ValueId;

use super::gen_kill::BufferLife;
use super::MemPlan;

/// Index of a storage entry in [`MemPlan::se`].
pub type SeId = usize;

/// One storage entry.
#[derive(Clone, Debug)]
pub struct StorageEntry {
    /// The buffer whose size and space the entry has.
    pub info: ValueId,
    /// Lifetimes (sorted, merged when entries merge).
    pub lifes: Vec<BufferLife>,
    /// The entries of the same space under this root.
    pub children: Vec<SeId>,
    /// Size to place, bits, aligned (set when planned).
    pub aligned: u64,
    /// Position among the root's children (-1: the root).
    pub child_idx: i32,
    /// Planned offset, bits.
    pub offset: u64,
    /// Every buffer of the entry.
    pub inplace: Vec<ValueId>,
    /// The other slots of a multi-buffered entry.
    pub others: Vec<SeId>,
    /// For an other slot: the first slot.
    pub first: Option<SeId>,
    /// The speculation level this entry was last placed at (-1: none).
    pub applied_level: i32,
    /// Multi-buffer factor.
    pub mb: u32,
}

/// `AlignUp`.
pub fn align_up(v: u64, a: u64) -> u64 {
    if a == 0 || v.is_multiple_of(a) {
        v
    } else {
        v + (a - v % a)
    }
}

/// `MergeBufferVec`: sorts lifetimes by `(alloc, free)` and merges the ones
/// that overlap or touch (`alloc <= end + 1`); a merged lifetime keeps the
/// buffer of its first member.
pub fn merge_lifes(lifes: &mut Vec<BufferLife>) {
    if lifes.is_empty() {
        return;
    }
    lifes.sort_by_key(|l| (l.alloc, l.free));
    // Compact in place: `w` is the merged lifetime being extended.
    let mut w = 0;
    for r in 1..lifes.len() {
        let l = lifes[r];
        if l.alloc <= lifes[w].free + 1 {
            lifes[w].free = lifes[w].free.max(l.free);
        } else {
            w += 1;
            lifes[w] = l;
        }
    }
    lifes.truncate(w + 1);
    // Outline bounds keep these for the whole plan (and its roll-backs).
    lifes.shrink_to_fit();
}

impl MemPlan<'_> {
    /// The size in bits of entry `e` (its buffer's).
    pub fn bits(&self, e: SeId) -> u64 {
        self.lt
            .info(self.se[e].info)
            .map_or(0, |i| i.const_bits.max(0) as u64)
    }

    /// The memory space of entry `e`.
    pub fn scope(&self, e: SeId) -> String {
        self.lt
            .info(self.se[e].info)
            .map(|i| i.scope.clone())
            .unwrap_or_default()
    }

    /// `GenerateStorageEntry`.
    pub fn generate_entries(&mut self) {
        for seq in 0..self.lt.linear.len() {
            let Some(gk) = &self.lt.gen_kill[seq] else {
                continue;
            };
            for &g in &gk.gen.clone() {
                if self.lt.info(g).is_none() {
                    continue;
                }
                let Some(&life) = self.lt.lifes.get(&g) else {
                    continue;
                };
                let id = self.se.len();
                self.se.push(StorageEntry {
                    info: g,
                    lifes: vec![life],
                    children: Vec::new(),
                    aligned: 0,
                    child_idx: 0,
                    offset: 0,
                    inplace: vec![g],
                    others: Vec::new(),
                    first: None,
                    applied_level: -1,
                    mb: self.lt.multi_num.get(&g).copied().unwrap_or(1),
                });
                self.buffer2se.insert(g, id);
                self.entries.push(id);
            }
        }
    }

    /// `MergeInplaceSE`: the gen'd buffer's entry folds into the killed
    /// buffer's.
    pub fn merge_inplace(&mut self) {
        let list = self.generate_inplace_list();
        for (g, k) in list {
            let (Some(&gse), Some(&kse)) = (self.buffer2se.get(&g), self.buffer2se.get(&k)) else {
                continue;
            };
            if gse == kse {
                continue;
            }
            let mut merged = self.se[gse].lifes.clone();
            merged.extend(self.se[kse].lifes.iter().copied());
            merge_lifes(&mut merged);
            self.se[kse].lifes = merged;
            let mut inplace = self.se[gse].inplace.clone();
            inplace.extend(self.se[kse].inplace.iter().copied());
            self.se[kse].inplace = inplace;
            self.se[kse].mb = self.se[gse].mb.max(self.se[kse].mb);
            for b in self.se[gse].inplace.clone() {
                self.buffer2se.insert(b, kse);
            }
            self.entries.retain(|&e| e != gse);
        }
    }

    /// `ExpandMultiBufferStorageEntry`.
    pub fn expand_multi_buffer(&mut self) {
        let n = self.entries.len();
        for i in 0..n {
            let e = self.entries[i];
            let mb = self.se[e].mb;
            for _ in 1..mb.max(1) {
                let src = &self.se[e];
                let copy = StorageEntry {
                    info: src.info,
                    lifes: src.lifes.clone(),
                    children: Vec::new(),
                    aligned: src.aligned,
                    child_idx: 0,
                    offset: 0,
                    inplace: src.inplace.clone(),
                    others: Vec::new(),
                    first: Some(e),
                    applied_level: -1,
                    mb,
                };
                let id = self.se.len();
                self.se.push(copy);
                self.se[e].others.push(id);
                self.entries.push(id);
            }
        }
    }

    /// `MergeSameScopeSE`: roots per space and the no-reuse sizes.
    pub fn merge_same_scope(&mut self) -> Result<(), String> {
        for i in 0..self.entries.len() {
            let e = self.entries[i];
            let scope = self.scope(e);
            match self.roots.iter().find(|(s, _)| *s == scope) {
                Some(&(_, root)) => self.se[root].children.push(e),
                None => self.roots.push((scope, e)),
            }
        }
        for (scope, root) in self.roots.clone() {
            let (align, _) = self.space_info(&scope)?;
            let mut acc = align_up(self.bits(root), align);
            for c in self.se[root].children.clone() {
                acc += align_up(self.bits(c), align);
            }
            self.required.insert(scope, acc);
        }
        Ok(())
    }

    /// `PlanBuffersWithoutReuse`: entries one after another. The reference
    /// keeps the running offset in an unsigned 32-bit integer.
    pub fn plan_without_reuse(&mut self, root: SeId, align: u64) {
        self.se[root].offset = 0;
        let mut offset = align_up(self.bits(root), align) as u32;
        if self.regbase() {
            self.se[root].aligned = u64::from(offset);
        }
        for c in self.se[root].children.clone() {
            self.se[c].offset = u64::from(offset);
            let a = align_up(self.bits(c), align);
            offset = offset.wrapping_add(a as u32);
            if self.regbase() {
                self.se[c].aligned = a;
            }
        }
    }

    /// `UpdateBuffer2Offsets`: byte offsets per buffer, entries in order,
    /// then the extra slots of single buffers upgraded at level 1.
    pub fn buffer_offsets(&mut self) {
        for i in 0..self.entries.len() {
            let e = self.entries[i];
            let off = self.se[e].offset.div_ceil(8);
            for b in self.se[e].inplace.clone() {
                self.offsets.entry(b).or_default().push(off);
            }
        }
        let extra: Vec<(SeId, Vec<SeId>)> = self
            .relation_others
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        for (_, others) in extra {
            for o in others {
                let off = self.se[o].offset.div_ceil(8);
                for b in self.se[o].inplace.clone() {
                    self.offsets.entry(b).or_default().push(off);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(a: i64, f: i64) -> BufferLife {
        BufferLife {
            buffer: None,
            alloc: a,
            free: f,
        }
    }

    #[test]
    fn lifetimes_merge_when_they_touch() {
        let mut v = vec![life(5, 7), life(0, 2), life(3, 4), life(9, 9)];
        merge_lifes(&mut v);
        assert_eq!(v, vec![life(0, 7), life(9, 9)]);
        assert_eq!(align_up(0, 256), 0);
        assert_eq!(align_up(257, 256), 512);
    }
}
