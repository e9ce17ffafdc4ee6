//! The Fixpipe (L0C to UB) row-alignment tables of the regbase targets.
//!
//! The N table gives the alignment (in elements) of the N stride (the last
//! dim of the 2-D output), the M table the alignment of the M stride (dim
//! 0). A combination missing from a table needs no mark.

/// Data width of the Fixpipe output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataWidth {
    /// 4-bit elements.
    B4,
    /// 8-bit elements.
    B8,
    /// 16-bit elements.
    B16,
    /// 32-bit elements.
    B32,
}

impl DataWidth {
    /// The width class of an element width in bits.
    pub fn of_bits(bits: i64) -> Option<DataWidth> {
        Some(match bits {
            4 => DataWidth::B4,
            8 => DataWidth::B8,
            16 => DataWidth::B16,
            32 => DataWidth::B32,
            _ => return None,
        })
    }
}

/// Dual-destination mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DualDst {
    /// One destination.
    N,
    /// Split along N (`COLUMN_SPLIT`, or tiling dim = last).
    SplitN,
    /// Split along M (`ROW_SPLIT`, or tiling dim = second to last).
    SplitM,
}

/// The Fixpipe configuration the tables are keyed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixpipeKey {
    /// Output data width.
    pub width: DataWidth,
    /// `channel_split`.
    pub channel_split: bool,
    /// `dma_mode = nz2nd`.
    pub nz2nd: bool,
    /// `dma_mode = nz2dn`.
    pub nz2dn: bool,
    /// Loop enhancement (never set by HIVM today).
    pub loop_enhance: bool,
    /// Dual-destination mode.
    pub dual_dst: DualDst,
}

use DataWidth::*;
use DualDst::{SplitM, SplitN, N};

/// N table rows: (width, channel split, NZ2ND, loop enhance, dual dst) to
/// elements.
pub const N_TABLE: &[(DataWidth, bool, bool, bool, DualDst, i64)] = &[
    (B16, false, false, false, N, 16),
    (B16, false, false, true, N, 16),
    (B16, false, true, false, N, 16),
    (B16, false, true, true, N, 16),
    (B8, false, false, false, N, 16),
    (B8, false, false, true, N, 16),
    (B8, false, true, false, N, 32),
    (B8, false, true, true, N, 16),
    (B4, false, false, false, N, 16),
    (B4, false, true, false, N, 64),
    (B32, false, false, false, N, 16),
    (B32, false, true, false, N, 8),
    (B32, true, false, false, N, 8),
    (B32, false, false, false, SplitN, 32),
    (B32, false, true, false, SplitN, 32),
];

/// M table rows: (width, NZ2DN, dual dst) to elements.
pub const M_TABLE: &[(DataWidth, bool, DualDst, i64)] = &[
    (B16, true, N, 16),
    (B8, true, N, 32),
    (B4, true, N, 64),
    (B32, false, SplitM, 2),
    (B32, true, N, 8),
];

/// Alignment of the N stride in elements, if the configuration has one.
/// The dual-destination mode is looked up as `SplitN` only when it is
/// `SplitN` (otherwise as `N`).
pub fn n_align(k: &FixpipeKey) -> Option<i64> {
    let ddm = if k.dual_dst == SplitN { SplitN } else { N };
    N_TABLE
        .iter()
        .find(|r| {
            r.0 == k.width
                && r.1 == k.channel_split
                && r.2 == k.nz2nd
                && r.3 == k.loop_enhance
                && r.4 == ddm
        })
        .map(|r| r.5)
}

/// Alignment of the M stride in elements, if the configuration has one.
/// The dual-destination mode is looked up as `SplitM` only when it is
/// `SplitM`.
pub fn m_align(k: &FixpipeKey) -> Option<i64> {
    let ddm = if k.dual_dst == SplitM { SplitM } else { N };
    M_TABLE
        .iter()
        .find(|r| r.0 == k.width && r.1 == k.nz2dn && r.2 == ddm)
        .map(|r| r.3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(width: DataWidth, cs: bool, nd: bool, dn: bool, ddm: DualDst) -> FixpipeKey {
        FixpipeKey {
            width,
            channel_split: cs,
            nz2nd: nd,
            nz2dn: dn,
            loop_enhance: false,
            dual_dst: ddm,
        }
    }

    #[test]
    fn n_rows() {
        assert_eq!(n_align(&key(B16, false, false, false, N)), Some(16));
        assert_eq!(n_align(&key(B16, false, true, false, N)), Some(16));
        assert_eq!(n_align(&key(B8, false, false, false, N)), Some(16));
        assert_eq!(n_align(&key(B8, false, true, false, N)), Some(32));
        assert_eq!(n_align(&key(B4, false, false, false, N)), Some(16));
        assert_eq!(n_align(&key(B4, false, true, false, N)), Some(64));
        assert_eq!(n_align(&key(B32, false, false, false, N)), Some(16));
        assert_eq!(n_align(&key(B32, false, true, false, N)), Some(8));
        assert_eq!(n_align(&key(B32, true, false, false, N)), Some(8));
        assert_eq!(n_align(&key(B32, false, false, false, SplitN)), Some(32));
        assert_eq!(n_align(&key(B32, false, true, false, SplitN)), Some(32));
        // SplitM is looked up as N.
        assert_eq!(n_align(&key(B32, false, true, false, SplitM)), Some(8));
        // Loop-enhanced rows (HIVM never sets loop enhancement today).
        let le = |width, nd| FixpipeKey {
            loop_enhance: true,
            ..key(width, false, nd, false, N)
        };
        assert_eq!(n_align(&le(B16, false)), Some(16));
        assert_eq!(n_align(&le(B16, true)), Some(16));
        assert_eq!(n_align(&le(B8, false)), Some(16));
        assert_eq!(n_align(&le(B8, true)), Some(16));
        assert_eq!(n_align(&le(B32, true)), None);
        // Missing combinations.
        assert_eq!(n_align(&key(B16, true, false, false, N)), None);
        assert_eq!(n_align(&key(B16, false, false, false, SplitN)), None);
    }

    #[test]
    fn m_rows() {
        assert_eq!(m_align(&key(B16, false, false, true, N)), Some(16));
        assert_eq!(m_align(&key(B8, false, false, true, N)), Some(32));
        assert_eq!(m_align(&key(B4, false, false, true, N)), Some(64));
        assert_eq!(m_align(&key(B32, false, false, false, SplitM)), Some(2));
        assert_eq!(m_align(&key(B32, false, false, true, N)), Some(8));
        assert_eq!(m_align(&key(B16, false, true, false, N)), None);
        assert_eq!(m_align(&key(B32, false, false, false, SplitN)), None);
    }
}
