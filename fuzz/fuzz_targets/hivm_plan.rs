#![no_main]
//! cargo fuzz target: see [`tilemem_fuzz::hivm_plan`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| tilemem_fuzz::hivm_plan(data));
