//! Malformed and truncated MessagePack documents: errors that name the byte
//! offset and where in the document reading stopped, never a panic.

use tilemem_pto::msgpack;

/// Writes one value into a document.
type Encode<'a> = &'a dyn Fn(&mut Vec<u8>);

/// `{"fields": FIELDS, "id": ID, "type": KIND}` with FIELDS already encoded.
fn node(out: &mut Vec<u8>, id: u64, kind: &str, fields: &[(&str, Encode)]) {
    rmp::encode::write_map_len(out, 3).unwrap();
    rmp::encode::write_str(out, "fields").unwrap();
    rmp::encode::write_map_len(out, fields.len() as u32).unwrap();
    for (k, v) in fields {
        rmp::encode::write_str(out, k).unwrap();
        v(out);
    }
    rmp::encode::write_str(out, "id").unwrap();
    rmp::encode::write_uint(out, id).unwrap();
    rmp::encode::write_str(out, "type").unwrap();
    rmp::encode::write_str(out, kind).unwrap();
}

fn span(out: &mut Vec<u8>) {
    rmp::encode::write_map_len(out, 5).unwrap();
    for (k, v) in [
        ("begin_column", 1),
        ("begin_line", 2),
        ("end_column", 3),
        ("end_line", 2),
    ] {
        rmp::encode::write_str(out, k).unwrap();
        rmp::encode::write_sint(out, v).unwrap();
    }
    rmp::encode::write_str(out, "filename").unwrap();
    rmp::encode::write_str(out, "k.py").unwrap();
}

fn scalar(out: &mut Vec<u8>) {
    rmp::encode::write_map_len(out, 2).unwrap();
    rmp::encode::write_str(out, "dtype").unwrap();
    rmp::encode::write_uint(out, 21).unwrap();
    rmp::encode::write_str(out, "type_kind").unwrap();
    rmp::encode::write_str(out, "ScalarType").unwrap();
}

/// `Add(x, x)` where the second operand is a reference that comes first
/// in the bytes (`left` < `right`, but ids follow PyPTO's visiting order).
fn add_doc(ref_id: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let var = |o: &mut Vec<u8>| {
        node(
            o,
            1,
            "Var",
            &[
                ("name_hint", &|o| rmp::encode::write_str(o, "x").unwrap()),
                ("span", &span),
                ("type", &scalar),
            ],
        )
    };
    let reference = move |o: &mut Vec<u8>| {
        rmp::encode::write_map_len(o, 1).unwrap();
        rmp::encode::write_str(o, "ref").unwrap();
        rmp::encode::write_uint(o, ref_id).unwrap();
    };
    node(
        &mut out,
        0,
        "Add",
        &[
            ("left", &var),
            ("right", &reference),
            ("span", &span),
            ("type", &scalar),
        ],
    );
    out
}

#[test]
fn a_reference_may_come_before_nothing_but_must_name_a_node() {
    let good = add_doc(1);
    let g = msgpack::read(&good).unwrap();
    assert_eq!(g.kind(g.root), "Add");
    let left = g.field(g.root, "left").unwrap().as_node();
    assert_eq!(
        left,
        g.field(g.root, "right").unwrap().as_node(),
        "one object, two places"
    );
    assert_eq!(msgpack::write(&g).unwrap(), good);

    let bad = add_doc(7);
    let e = msgpack::read(&bad).unwrap_err();
    assert_eq!(e.offset, bad.len());
    assert!(e.message.contains("node id 7"), "{e}");
}

#[test]
fn every_truncation_is_an_error_at_the_end_of_the_input() {
    let good = add_doc(1);
    for cut in 0..good.len() {
        let e = msgpack::read(&good[..cut]).unwrap_err();
        // The offset is where the value that runs past the end starts.
        assert!(e.offset <= cut, "cut at {cut}: {e}");
        assert!(
            e.message.contains("unexpected end of input"),
            "cut at {cut}: {e}"
        );
    }
}

#[test]
fn errors_name_the_offset_and_the_field_being_read() {
    let mut bytes = add_doc(1);
    // The string "x" (name_hint) becomes the reserved byte 0xc1.
    let at = bytes.windows(2).position(|w| w == [0xa1, b'x']).unwrap();
    bytes[at] = 0xc1;
    let e = msgpack::read(&bytes).unwrap_err();
    assert_eq!(e.offset, at);
    assert_eq!(e.context, "left.name_hint");
    assert_eq!(
        e.to_string(),
        format!("byte {at}: byte 0xc1 is not a MessagePack value (reading left.name_hint)")
    );
    // Trailing bytes after the document.
    let mut long = add_doc(1);
    long.push(0xc0);
    let e = msgpack::read(&long).unwrap_err();
    assert_eq!(
        (e.offset, e.message.as_str()),
        (long.len() - 1, "1 bytes after the end of the document")
    );
    // A document that is not a node.
    let e = msgpack::read(&[0x80]).unwrap_err();
    assert_eq!(
        (e.offset, e.message.as_str()),
        (0, "the document is not an IR node")
    );
}

#[test]
fn text_and_documents_are_told_apart_by_their_first_byte() {
    assert!(msgpack::looks_like_msgpack(&add_doc(1)));
    for text in [
        "# pypto.program: k\n",
        "import pypto.language as pl\n",
        "\u{feff}@pl.program",
        " ",
        "",
    ] {
        assert!(!msgpack::looks_like_msgpack(text.as_bytes()), "{text:?}");
    }
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let mut bytes = vec![0x91; 100_000];
    bytes.push(0xc0);
    let e = msgpack::read(&bytes).unwrap_err();
    assert!(e.message.contains("nested more than"), "{e}");
    assert_eq!(e.offset, msgpack::MAX_DEPTH);
}

/// A graph whose two `Var` nodes hold `shape` arrays with one `ConstInt`:
/// one array shared by both (`shared`) or each its own copy.
fn two_vars(shared: bool) -> msgpack::Graph {
    use msgpack::graph::Value;
    let mut g = msgpack::Graph::new("Program");
    let (const_int, var, shape, value) = (
        g.syms.intern("ConstInt"),
        g.syms.intern("Var"),
        g.syms.intern("shape"),
        g.syms.intern("value"),
    );
    let c = g.add(const_int, &mut [(value, Value::Int(128))]);
    let dims = g.new_array(&[Value::Node(c)]);
    let a = g.add(var, &mut [(shape, dims)]);
    let other = if shared { dims } else { g.copy(dims) };
    let b = g.add(var, &mut [(shape, other)]);
    let vars = g.new_array(&[Value::Node(a), Value::Node(b)]);
    let kind = g.node(g.root).kind;
    let functions = g.syms.intern("functions");
    g.root = g.add(kind, &mut [(functions, vars)]);
    g
}

#[test]
fn nodes_may_share_an_array_but_one_node_may_not_hold_it_twice() {
    // Shared between two nodes: the same document as with copies, the
    // constant defined once (in the first variable) and referenced after.
    let shared = msgpack::write(&two_vars(true)).unwrap();
    assert_eq!(shared, msgpack::write(&two_vars(false)).unwrap());
    let g = msgpack::read(&shared).unwrap();
    let vars = g.items(g.field(g.root, "functions").unwrap()).unwrap();
    let dim = |v: &msgpack::graph::Value| {
        let shape = g.field(v.as_node().unwrap(), "shape").unwrap();
        g.items(shape).unwrap()[0].as_node().unwrap()
    };
    assert_eq!(dim(&vars[0]), dim(&vars[1]), "one constant object");

    // One node holding one array twice: the writer cannot tell the two
    // places apart, which is an error, never a document with the constant
    // defined twice or not at all.
    use msgpack::graph::Value;
    let mut g = msgpack::Graph::new("Program");
    let (const_int, add) = (g.syms.intern("ConstInt"), g.syms.intern("Add"));
    let (left, right, value) = (
        g.syms.intern("left"),
        g.syms.intern("right"),
        g.syms.intern("value"),
    );
    let c = g.add(const_int, &mut [(value, Value::Int(1))]);
    let both = g.new_array(&[Value::Node(c)]);
    g.root = g.add(add, &mut [(left, both), (right, both)]);
    let e = msgpack::write(&g).unwrap_err();
    assert!(e.0.contains("defined twice"), "{e}");
}
