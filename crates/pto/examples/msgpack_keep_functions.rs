//! Writes a PyPTO MessagePack document with only some of its functions (a
//! test-data aid: the memory passes plan each function on its own, so a
//! document cut to the functions a rule shows in still plans, function for
//! function, as PyPTO's whole document does):
//! `cargo run -p tilemem-pto --example msgpack_keep_functions -- IN OUT NAME...`
use tilemem_pto::msgpack::{self, graph::Value};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output, keep @ ..] = &args[..] else {
        eprintln!("usage: msgpack_keep_functions IN.msgpack OUT.msgpack NAME...");
        std::process::exit(2);
    };
    let bytes = std::fs::read(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    let mut g = msgpack::read(&bytes).unwrap_or_else(|e| panic!("{input}: {e}"));
    let root = g.root;
    let Some(Value::Array(entries)) = g.field(root, "functions").copied() else {
        panic!("{input}: not a program");
    };
    let name_of = |e: &Value| {
        let f = g.entry(e, "value").and_then(Value::as_node)?;
        g.field(f, "name").and_then(|v| g.str_of(v))
    };
    let kept: Vec<Value> = g
        .items_of(entries)
        .iter()
        .filter(|e| name_of(e).is_some_and(|n| keep.iter().any(|k| k == n)))
        .copied()
        .collect();
    let functions = g.new_array(&kept);
    let key = g.syms.intern("functions");
    g.root = g.with_fields(root, &[(key, functions)]);
    let out = msgpack::write(&g).unwrap_or_else(|e| panic!("{output}: {e}"));
    std::fs::write(output, out).unwrap_or_else(|e| panic!("{output}: {e}"));
}
