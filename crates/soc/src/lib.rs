//! SoC descriptions (memory spaces, capacities, alignment) and the
//! allocator-policy trait.
//!
//! Capacities follow the notes in `spec/targets.md`: the byte counts usable
//! by the planner for 910B (A2/A3), 950 (A5), 310B, and a "no backend" target
//! with unlimited capacity. The address policy (which spaces are addressed,
//! how addresses are aligned, in which order buffers are laid out) is a
//! trait so that a backend can replace PyPTO's default behaviour.

mod device_spec;
mod policy;
mod soc;
mod space;

pub use device_spec::{DeviceSpec, DeviceSpecKey, SpecValue, DEVICE_SPECS};
pub use policy::{AllocEntry, DefaultPolicy, MemoryAllocatorPolicy};
pub use soc::{Family, Soc};
pub use space::{MemSpace, SpaceName};
