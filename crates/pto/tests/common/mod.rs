//! Building blocks shared by the tests on the repository's own programs:
//! the program header, a one-function program builder, and a small
//! deterministic generator. Each test file uses a subset.
#![allow(dead_code)]

/// The header every test program starts with.
pub const HEAD: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n";

/// A program of one function `main` with the given decorator type,
/// signature (parameters through the return annotation) and body lines.
pub fn program(kind: &str, sig: &str, body: &[&str]) -> String {
    let mut s = String::from(HEAD);
    s.push_str(&format!(
        "    @pl.function(type=pl.FunctionType.{kind})\n    def main({sig}:\n"
    ));
    for l in body {
        s.push_str("        ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// xorshift64*: a small deterministic generator (no dependency needed).
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}
