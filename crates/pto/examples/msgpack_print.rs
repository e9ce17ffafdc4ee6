//! Prints a PyPTO MessagePack document as program text (a debugging aid:
//! `cargo run -p tilemem-pto --example msgpack_print -- K.msgpack`).
fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: msgpack_print FILE.msgpack");
    let g = tilemem_pto::msgpack::read(&std::fs::read(path).expect("read")).expect("decode");
    match tilemem_pto::msgpack::to_text(&g) {
        Ok(t) => println!("{t}"),
        Err(e) => eprintln!("{e}"),
    }
}
