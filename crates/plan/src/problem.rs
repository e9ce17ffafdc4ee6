//! The placement problem and its solution.
//!
//! A [`Problem`] is a set of buffers, each with a size, an alignment and a
//! half-open lifetime `[lower, upper)`. A [`Solution`] gives every buffer a
//! byte offset. Two buffers *interfere* when their lifetimes intersect or when
//! they form a hard conflict pair; interfering buffers of non-zero size must
//! not share a byte. A *compatible* pair lifts the lifetime rule for two
//! buffers that are never used at the same time although their lifetimes
//! intersect (tiles of two exclusive branches of one `if`): they may share
//! bytes. A hard conflict pair wins over a compatible pair. Soft penalty
//! pairs cost their weight when the two buffers share at least one byte
//! (whatever their lifetimes).

use std::fmt;

/// Dense index of a buffer inside its [`Problem`] (`problem.buffers[id.0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BufferId(pub u32);

impl BufferId {
    /// The index into `Problem::buffers` / `Solution::offsets`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BufferId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One buffer to place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Bytes. Zero-size buffers occupy no byte and never overlap anything.
    pub size: u64,
    /// The offset must be a multiple of this (>= 1; 1 means unaligned).
    pub align: u64,
    /// First instant the buffer is live.
    pub lower: u64,
    /// First instant it is dead again (half-open: live on `[lower, upper)`).
    /// `lower == upper` means never live: it interferes only through
    /// conflict pairs.
    pub upper: u64,
    /// When set, the buffer must sit exactly here (pinned by the caller).
    pub fixed_offset: Option<u64>,
    /// Name used in messages and files (the CSV `id`); `#index` when absent.
    pub name: Option<String>,
}

impl Buffer {
    /// An unaligned, unpinned, unnamed buffer live on `[lower, upper)`.
    pub fn new(size: u64, lower: u64, upper: u64) -> Buffer {
        Buffer {
            size,
            align: 1,
            lower,
            upper,
            fixed_offset: None,
            name: None,
        }
    }

    /// Sets the alignment.
    pub fn with_align(mut self, align: u64) -> Buffer {
        self.align = align;
        self
    }

    /// Pins the buffer at `offset`.
    pub fn with_fixed_offset(mut self, offset: u64) -> Buffer {
        self.fixed_offset = Some(offset);
        self
    }

    /// Names the buffer.
    pub fn with_name(mut self, name: impl Into<String>) -> Buffer {
        self.name = Some(name.into());
        self
    }

    /// True when the two lifetimes share an instant (an empty lifetime
    /// shares none).
    pub fn lifetime_overlaps(&self, other: &Buffer) -> bool {
        self.lower < self.upper
            && other.lower < other.upper
            && self.lower < other.upper
            && other.lower < self.upper
    }
}

/// A placement problem: buffers plus the constraints of the address space.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    /// The buffers, indexed by [`BufferId`].
    pub buffers: Vec<Buffer>,
    /// Every buffer must end at or below this many bytes, when set.
    pub capacity: Option<u64>,
    /// Address ranges `[start, end)` nobody may use, at any time. An empty
    /// range (`start == end`) reserves nothing: solvers and validator skip it.
    pub reserved: Vec<(u64, u64)>,
    /// Hard pairs: must not share a byte even when their lifetimes do not
    /// intersect.
    pub conflicts: Vec<(BufferId, BufferId)>,
    /// Soft pairs `(a, b, weight)`: the placement costs `weight` when `a` and
    /// `b` share at least one byte.
    pub penalties: Vec<(BufferId, BufferId, u64)>,
    /// Compatible pairs: may share bytes even when their lifetimes
    /// intersect (mutually exclusive uses, such as the two branches of an
    /// `if`). Order within a pair and repeats do not matter; a pair that is
    /// also in `conflicts` stays apart.
    pub compatible: Vec<(BufferId, BufferId)>,
}

/// Why a [`Problem`] is malformed (see [`Problem::check`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProblemError {
    /// Alignment 0.
    ZeroAlign(BufferId),
    /// `lower > upper`.
    BackwardLifetime(BufferId),
    /// A pinned offset that is not a multiple of the alignment.
    MisalignedFixed(BufferId),
    /// `offset + size` or similar overflows 64 bits.
    Overflow(BufferId),
    /// A reserved range with `start > end`.
    BackwardReserved(u64, u64),
    /// A pair names a buffer that does not exist.
    UnknownBuffer(BufferId),
    /// Sizes and alignments add up to more than 2^62 bytes.
    TooLarge,
}

impl fmt::Display for ProblemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemError::ZeroAlign(b) => write!(f, "buffer {b}: alignment must be at least 1"),
            ProblemError::BackwardLifetime(b) => {
                write!(f, "buffer {b}: lifetime ends before it starts")
            }
            ProblemError::MisalignedFixed(b) => {
                write!(
                    f,
                    "buffer {b}: fixed offset is not a multiple of its alignment"
                )
            }
            ProblemError::Overflow(b) => write!(f, "buffer {b}: size or offset too large"),
            ProblemError::BackwardReserved(s, e) => {
                write!(f, "reserved range [{s}, {e}) ends before it starts")
            }
            ProblemError::UnknownBuffer(b) => write!(f, "pair names unknown buffer {b}"),
            ProblemError::TooLarge => write!(f, "sizes add up to more than 2^62 bytes"),
        }
    }
}

impl std::error::Error for ProblemError {}

/// Largest byte value tilemem handles; keeps `offset + size` arithmetic safe.
pub const MAX_BYTES: u64 = 1 << 60;

impl Problem {
    /// An empty problem without capacity.
    pub fn new() -> Problem {
        Problem::default()
    }

    /// Appends a buffer and returns its id.
    pub fn push(&mut self, buffer: Buffer) -> BufferId {
        self.buffers.push(buffer);
        BufferId(self.buffers.len() as u32 - 1)
    }

    /// Number of buffers.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// True when there is no buffer.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    /// The buffer with this id.
    pub fn buffer(&self, id: BufferId) -> &Buffer {
        &self.buffers[id.index()]
    }

    /// The name of a buffer for messages: its `name`, else `#index`.
    pub fn label(&self, id: BufferId) -> String {
        match self.buffers.get(id.index()).and_then(|b| b.name.as_deref()) {
            Some(n) => n.to_string(),
            None => id.to_string(),
        }
    }

    /// Checks that the problem is well formed; solvers assume it is.
    pub fn check(&self) -> Result<(), ProblemError> {
        for (i, b) in self.buffers.iter().enumerate() {
            let id = BufferId(i as u32);
            if b.align == 0 {
                return Err(ProblemError::ZeroAlign(id));
            }
            if b.lower > b.upper {
                return Err(ProblemError::BackwardLifetime(id));
            }
            if b.size > MAX_BYTES || b.align > MAX_BYTES {
                return Err(ProblemError::Overflow(id));
            }
            if let Some(o) = b.fixed_offset {
                if o > MAX_BYTES {
                    return Err(ProblemError::Overflow(id));
                }
                if o % b.align != 0 {
                    return Err(ProblemError::MisalignedFixed(id));
                }
            }
        }
        // Keeps every offset a solver can produce (a stack of all buffers,
        // above pinned ones and reserved ranges) far below 2^64.
        let total: u128 = self
            .buffers
            .iter()
            .map(|b| b.size as u128 + b.align as u128)
            .sum();
        if total > MAX_BYTES as u128 * 4 {
            return Err(ProblemError::TooLarge);
        }
        for &(s, e) in &self.reserved {
            if s > e {
                return Err(ProblemError::BackwardReserved(s, e));
            }
        }
        let n = self.buffers.len();
        let known = |b: BufferId| {
            if b.index() < n {
                Ok(())
            } else {
                Err(ProblemError::UnknownBuffer(b))
            }
        };
        for &(a, b) in &self.conflicts {
            known(a)?;
            known(b)?;
        }
        for &(a, b, _) in &self.penalties {
            known(a)?;
            known(b)?;
        }
        for &(a, b) in &self.compatible {
            known(a)?;
            known(b)?;
        }
        Ok(())
    }

    /// Declares that `a` and `b` may share bytes although their lifetimes
    /// intersect (see [`Problem::compatible`]).
    pub fn allow_sharing(&mut self, a: BufferId, b: BufferId) {
        self.compatible.push((a, b));
    }

    /// Compatible partners of every buffer, sorted and deduplicated,
    /// without self pairs and without pairs that are also hard conflicts
    /// (those stay apart). Empty lists when the problem has no compatible
    /// pair.
    pub fn compatible_lists(&self) -> Vec<Vec<u32>> {
        let n = self.buffers.len();
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        if self.compatible.is_empty() {
            return adj;
        }
        let mut hard: Vec<(u32, u32)> = self
            .conflicts
            .iter()
            .map(|&(a, b)| (a.0.min(b.0), a.0.max(b.0)))
            .collect();
        hard.sort_unstable();
        for &(a, b) in &self.compatible {
            let key = (a.0.min(b.0), a.0.max(b.0));
            if a != b && hard.binary_search(&key).is_err() {
                adj[a.index()].push(b.0);
                adj[b.index()].push(a.0);
            }
        }
        for l in &mut adj {
            l.sort_unstable();
            l.dedup();
        }
        adj
    }

    /// True when the problem has no conflict pair, compatible pair, penalty,
    /// reserved range or pinned buffer: the plain
    /// dynamic-storage-allocation problem.
    pub fn is_plain(&self) -> bool {
        self.compatible.is_empty()
            && self.conflicts.is_empty()
            && self.penalties.is_empty()
            && self.reserved.iter().all(|&(s, e)| s == e)
            && self.buffers.iter().all(|b| b.fixed_offset.is_none())
    }
}

/// A placement: `offsets[id.0]` is the byte offset of buffer `id`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Solution {
    /// One offset per buffer, in buffer order.
    pub offsets: Vec<u64>,
}

impl Solution {
    /// The offset of a buffer.
    pub fn offset(&self, id: BufferId) -> u64 {
        self.offsets[id.index()]
    }

    /// Highest end (`offset + size`) over all buffers, 0 when empty.
    pub fn height(&self, problem: &Problem) -> u64 {
        self.offsets
            .iter()
            .zip(&problem.buffers)
            .map(|(&o, b)| o.saturating_add(b.size))
            .max()
            .unwrap_or(0)
    }
}
