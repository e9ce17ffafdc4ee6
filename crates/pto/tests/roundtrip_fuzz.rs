//! Fuzz-style robustness: mutated and random programs must never make the
//! reader panic, and whatever it accepts must print to a fixed point
//! (`print(parse(print(p))) == print(p)`). Deterministic (fixed seeds), so
//! a failure reproduces.

mod common;

use common::Rng;
use tilemem_pto::{parse, print};

const SEEDS: [&str; 6] = [
    include_str!("data/canonical/vector_chain.py"),
    include_str!("data/canonical/control_flow.py"),
    include_str!("data/canonical/misc.py"),
    include_str!("data/handwritten/plain_tiles.py"),
    include_str!("data/handwritten/branches.py"),
    include_str!("data/handwritten/branches.fmt.py"),
];

/// Pieces inserted by mutations: tokens, brackets, indentation, oddities.
const PIECES: [&str; 40] = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "=",
    ".",
    "-",
    "**",
    "<",
    "==",
    "not ",
    " and ",
    "\n",
    "\n    ",
    "\n        ",
    "\t",
    "\\\n",
    "#",
    "# c\n",
    "'",
    "\"",
    "pl.",
    "pl.yield_(",
    "pl.MemRef(",
    "pl.Tile[[",
    "for ",
    "if ",
    "else:",
    "elif ",
    "return ",
    "0x",
    "1e",
    "-1",
    "é",
    "\r\n",
    "\0",
];

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut b = src.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(7) {
            0 => {
                let end = (at + 1 + rng.below(12)).min(b.len());
                b.drain(at.min(end)..end);
            }
            1 | 2 => {
                let p = PIECES[rng.below(PIECES.len())].as_bytes();
                b.splice(at..at, p.iter().copied());
            }
            3 => b.truncate(at),
            4 => {
                if at < b.len() {
                    b[at] = (rng.next() & 0x7f) as u8;
                }
            }
            5 => {
                // Duplicate a slice (a line or part of one) somewhere else.
                let end = (at + rng.below(80)).min(b.len());
                let piece = b[at..end].to_vec();
                let to = rng.below(b.len() + 1);
                b.splice(to..to, piece);
            }
            _ => {
                let j = rng.below(b.len());
                if at < b.len() {
                    b.swap(at, j);
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Returns whether the reader accepted `text`.
fn check(text: &str) -> bool {
    if let Ok(p) = parse(text) {
        let once = print(&p);
        let again = match parse(&once) {
            Ok(q) => print(&q),
            Err(e) => panic!(
                "printed output does not read back: {e}\n--- input ---\n{text}\n--- printed ---\n{once}"
            ),
        };
        assert_eq!(again, once, "not a fixed point\n--- input ---\n{text}");
        return true;
    }
    false
}

/// Mutants made of each seed.
const MUTANTS: usize = 2200;

#[test]
fn mutated_programs_never_panic_and_print_to_a_fixed_point() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    for seed in SEEDS {
        assert!(check(seed));
        // The reader rejects undefined names, unknown calls and types, so
        // most mutants are errors: enough of them for 500 accepted ones.
        for _ in 0..MUTANTS {
            accepted += usize::from(check(&mutate(seed, &mut rng)));
        }
    }
    println!(
        "mutated programs accepted: {accepted} of {}",
        SEEDS.len() * MUTANTS
    );
    // Enough mutants must be accepted for the fixed-point check to mean something.
    assert!(accepted > 500, "only {accepted} mutants accepted");
}

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let head = "@pl.program\nclass P:\n    @pl.function\n    def f(self, x):\n        ";
    for _ in 0..3000 {
        let mut s = String::from(head);
        for _ in 0..rng.below(40) {
            s.push_str(PIECES[rng.below(PIECES.len())]);
            if rng.below(3) == 0 {
                s.push_str(["x", "y", "1", "2.5", " ", "pl.tile.add(x, y)"][rng.below(6)]);
            }
        }
        check(&s);
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = Rng(42);
    for _ in 0..2000 {
        let n = rng.below(200);
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next() & 0xff) as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}
