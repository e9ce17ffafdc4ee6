//! The table-free walk visits what `Function::walk` lists, in its order.

use std::path::Path;

use tilemem_pto::parse;
use tilemem_pto::passes::analysis::walk::stmts;

const NESTED: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration)\n    def main(self, x: pl.Tensor[[32], pl.FP32], c: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32], pl.FP32]:\n        with pl.scope(mode=pl.ScopeMode.MANUAL):\n            y: pl.Tensor[[32], pl.FP32] = self.k(x)\n            if c > 0:\n                for i in pl.range(4):\n                    z: pl.Tensor[[32], pl.FP32] = self.k(y)\n                    if c > 1:\n                        pass\n            elif c < 0:\n                w: pl.Tensor[[32], pl.FP32] = self.k(y)\n            else:\n                pass\n        v: pl.Tensor[[32], pl.FP32] = self.k(x)\n        return v\n";

#[test]
fn stmts_visits_what_walk_lists_in_its_order() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut sources = vec![NESTED.to_string()];
    for sub in ["canonical", "handwritten"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            sources.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
        }
    }
    let mut nested = 0;
    for src in &sources {
        let p = parse(src).unwrap();
        for f in &p.functions {
            let walked = f.walk();
            assert_eq!(stmts(f).collect::<Vec<_>>(), walked, "{}", f.name);
            nested += walked.iter().filter(|(b, _)| b.owner().is_some()).count();
        }
    }
    // Nested blocks (loops, both branches, a `with`) were walked.
    assert!(nested >= 15, "{nested}");
}
