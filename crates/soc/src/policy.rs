//! The allocator policy: which spaces get addresses, how addresses are
//! aligned, and in which order buffers are laid out.

use crate::space::MemSpace;

/// One allocation root handed to [`MemoryAllocatorPolicy::order_memrefs`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocEntry {
    /// The allocation's name (`mem_vec_3`).
    pub name: String,
    /// The allocation's numeric id (the trailing number of the name).
    pub id: u64,
    /// Bytes the allocation occupies.
    pub size: u64,
}

/// Placement decisions of the sequential address allocator, replaceable by
/// a backend (PyPTO's `MemoryAllocatorPolicy`). Shared by the threads that
/// plan the functions of one program, hence `Send + Sync`.
pub trait MemoryAllocatorPolicy: Send + Sync {
    /// Whether buffers of `space` get addresses at all.
    fn should_allocate(&self, space: MemSpace) -> bool;
    /// Rounds a raw address up to the alignment required in `space`.
    fn align_address(&self, addr: u64, space: MemSpace) -> u64;
    /// Orders the allocations of one space before sequential placement.
    fn order_memrefs(&self, refs: &mut [AllocEntry]);
    /// The alignment of addresses in `space`, in bytes: the smallest
    /// positive address [`align_address`](Self::align_address) keeps.
    fn alignment(&self, space: MemSpace) -> u64 {
        self.align_address(1, space).max(1)
    }
}

/// PyPTO's default policy: skip DDR (and unknown spaces), 32-byte alignment
/// everywhere, order by name string.
///
/// PyPTO sorts MemRefs through their printed names, so `mem_vec_10` comes
/// before `mem_vec_2`; the reference outputs depend on it, so it is kept.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultPolicy;

impl DefaultPolicy {
    /// The alignment of every space, in bytes.
    pub const ALIGNMENT: u64 = 32;
}

impl MemoryAllocatorPolicy for DefaultPolicy {
    fn should_allocate(&self, space: MemSpace) -> bool {
        space.is_on_chip()
    }

    fn align_address(&self, addr: u64, _space: MemSpace) -> u64 {
        addr.div_ceil(Self::ALIGNMENT) * Self::ALIGNMENT
    }

    fn order_memrefs(&self, refs: &mut [AllocEntry]) {
        refs.sort_by(|a, b| a.name.cmp(&b.name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, id: u64) -> AllocEntry {
        AllocEntry {
            name: name.to_string(),
            id,
            size: 64,
        }
    }

    #[test]
    fn default_orders_by_name_string() {
        let mut refs = vec![
            entry("mem_vec_2", 2),
            entry("mem_vec_10", 10),
            entry("mem_vec_1", 1),
        ];
        DefaultPolicy.order_memrefs(&mut refs);
        let names: Vec<_> = refs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["mem_vec_1", "mem_vec_10", "mem_vec_2"]);
    }

    #[test]
    fn default_aligns_to_32_and_skips_ddr() {
        let p = DefaultPolicy;
        assert_eq!(p.align_address(0, MemSpace::Vec), 0);
        assert_eq!(p.align_address(1, MemSpace::Acc), 32);
        assert_eq!(p.align_address(64, MemSpace::Mat), 64);
        assert_eq!(p.align_address(65, MemSpace::Mat), 96);
        assert!(!p.should_allocate(MemSpace::Ddr));
        assert!(p.should_allocate(MemSpace::Left));
    }

    /// A backend policy: 512-byte alignment in L0, id order, no Bias.
    struct L0Policy;

    impl MemoryAllocatorPolicy for L0Policy {
        fn should_allocate(&self, space: MemSpace) -> bool {
            !matches!(space, MemSpace::Ddr | MemSpace::Bias)
        }
        fn align_address(&self, addr: u64, space: MemSpace) -> u64 {
            let a = match space {
                MemSpace::Left | MemSpace::Right | MemSpace::Acc => 512,
                _ => 32,
            };
            addr.div_ceil(a) * a
        }
        fn order_memrefs(&self, refs: &mut [AllocEntry]) {
            refs.sort_by_key(|r| r.id);
        }
    }

    #[test]
    fn a_custom_policy_replaces_every_decision() {
        let p: &dyn MemoryAllocatorPolicy = &L0Policy;
        let mut refs = vec![entry("mem_acc_10", 10), entry("mem_acc_2", 2)];
        p.order_memrefs(&mut refs);
        assert_eq!(refs[0].name, "mem_acc_2");
        assert_eq!(p.align_address(33, MemSpace::Acc), 512);
        assert_eq!(p.align_address(33, MemSpace::Vec), 64);
        assert_eq!(p.alignment(MemSpace::Acc), 512);
        assert_eq!(p.alignment(MemSpace::Vec), 32);
        assert!(!p.should_allocate(MemSpace::Bias));
    }
}
