#![no_main]
//! cargo fuzz target: see [`tilemem_fuzz::pto_msgpack`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| tilemem_fuzz::pto_msgpack(data));
