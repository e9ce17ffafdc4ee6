//! The reader and printer never panic: mutated inputs either read (and then
//! print, and the printed text reads again) or give an error.

use proptest::prelude::*;
use tilemem_mlir::parse::{parse_module, split_input, ParseOptions};
use tilemem_mlir::print::print_module;

const SEED: &str = r#"#map = affine_map<(d0) -> (d0 * 16)>
module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf(%arg0: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<ub>>, %arg1: index) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %subview = memref.subview %arg0[%arg1, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<ub>> to memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>
    %0 = affine.apply #map(%arg1)
    %1 = vector.transfer_read %subview[%c0, %c0], %c0 {in_bounds = [true]} : memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>, vector<3xi32>
    return
  }
  func.func private @decl(memref<2x15xf16, #hivm.address_space<ub>>, i32) -> i32
  func.func @main(%arg0: memref<2x?xf16, #hivm.address_space<gm>>, %arg1: index) {
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc(%arg1) {alignment = 64 : i64} : memref<2x?xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<2x?xf16, #hivm.address_space<gm>>) outs(%alloc : memref<2x?xf16, #hivm.address_space<ub>>) left_padding_num = %c0 : index
    annotation.mark %alloc {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x?xf16, #hivm.address_space<ub>>
    %c1 = arith.constant 1 : index
    %2 = scf.for %arg2 = %c0 to %arg1 step %c1 iter_args(%arg3 = %alloc) -> (memref<2x?xf16, #hivm.address_space<ub>>) {
      %3 = arith.cmpi slt, %arg2, %c1 : index
      %4 = scf.if %3 -> (memref<2x?xf16, #hivm.address_space<ub>>) {
        scf.yield %arg3 : memref<2x?xf16, #hivm.address_space<ub>>
      } else {
        scf.yield %alloc : memref<2x?xf16, #hivm.address_space<ub>>
      }
      "some_use"(%4) : (memref<2x?xf16, #hivm.address_space<ub>>) -> ()
      scf.yield %4 : memref<2x?xf16, #hivm.address_space<ub>>
    } {unroll_for_vsstb}
    %collapse_shape = memref.collapse_shape %alloc [[0, 1]] : memref<2x?xf16, #hivm.address_space<ub>> into memref<?xf16, #hivm.address_space<ub>>
    hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>} ins(%alloc : memref<2x?xf16, #hivm.address_space<ub>>) outs(%alloc : memref<2x?xf16, #hivm.address_space<ub>>)
    hivm.hir.vpad ins(%alloc : memref<2x?xf16, #hivm.address_space<ub>>) outs(%alloc : memref<2x?xf16, #hivm.address_space<ub>>) low[%c0, %c0] high[%c0, %c1] pad_value %c0 : index
    hivm.hir.set_ctrl false at ctrl[60]
    %5 = hivm.hir.pointer_cast(%c0) : memref<2x16xf16, #hivm.address_space<ub>>
    scope.scope {
      scope.return
    }
    return
  }
}
// -----
func.func @g() {
  %0:2 = "t.two"() ({
  ^bb0(%x: i32):
    "t.yield"(%x) : (i32) -> ()
  }) {k = dense<1.0> : vector<2xf32>} : () -> (i32, f32)
  return
}
"#;

/// Tokens worth splicing in: brackets, sigils, keywords.
const TOKENS: &[&str] = &[
    "<",
    ">",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "%",
    "#",
    "@",
    "^",
    "\"",
    ":",
    ",",
    "=",
    "->",
    "?",
    "x",
    "0",
    "-1",
    "99999999999999999999",
    "memref<",
    "strided<[",
    "offset: ",
    "array<i32: ",
    "ins(",
    "outs(",
    "scf.for",
    "scf.yield",
    "func.func",
    "// -----\n",
    "\n",
    " ",
    "loc(",
    "dense<",
    "affine_map<(d0) -> (d0)>",
    "%c0",
    "%arg0",
    "!hivm.x<",
    "#hivm.address_space<",
    "i1",
    "f16",
    "index",
    "vector<[4]x",
    "tensor<*x",
    "0x7FC00000",
    "1.5e-3",
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut s: Vec<u8> = text.as_bytes().to_vec();
    for m in muts {
        let len = s.len().max(1);
        match *m {
            Mutation::Delete(at, n) => {
                let at = at % len;
                let end = (at + n % 16).min(s.len());
                s.drain(at.min(s.len())..end);
            }
            Mutation::Insert(at, tok) => {
                let at = (at % len).min(s.len());
                let t = TOKENS[tok % TOKENS.len()].as_bytes();
                s.splice(at..at, t.iter().copied());
            }
            Mutation::Duplicate(at, n) => {
                let at = (at % len).min(s.len());
                let end = (at + n % 64).min(s.len());
                let piece = s[at..end].to_vec();
                s.splice(at..at, piece);
            }
            Mutation::Truncate(at) => {
                s.truncate(at % len);
            }
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn check(text: &str) {
    for allow in [true, false] {
        for chunk in split_input(text) {
            let opts = ParseOptions {
                allow_unregistered_dialect: allow,
                line_offset: chunk.line_offset,
            };
            if let Ok(m) = parse_module(chunk.text, &opts) {
                let printed = print_module(&m);
                // What we print must read again and print the same.
                let again = parse_module(
                    &printed,
                    &ParseOptions {
                        allow_unregistered_dialect: true,
                        line_offset: 0,
                    },
                );
                match again {
                    Ok(m2) => assert_eq!(print_module(&m2), printed),
                    Err(d) => panic!(
                        "printed text does not read back: {}\n{printed}",
                        d.render("printed")
                    ),
                }
            }
        }
    }
}

#[test]
fn seed_reads_and_prints_stably() {
    check(SEED);
    for c in split_input(SEED) {
        let opts = ParseOptions {
            allow_unregistered_dialect: true,
            line_offset: c.line_offset,
        };
        assert!(parse_module(c.text, &opts).is_ok());
    }
}

proptest! {
    // 512 cases by default; PROPTEST_CASES raises it for longer runs.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
    ))]

    #[test]
    fn mutated_inputs_never_panic(muts in proptest::collection::vec(mutation(), 1..6)) {
        check(&apply(SEED, &muts));
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        check(&s);
    }
}
