//! SoC descriptions (memory spaces, capacities, alignment) and the allocator-policy trait.
