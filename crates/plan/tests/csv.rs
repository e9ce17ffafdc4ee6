//! Problem files: aliases, pairs, directives, round trips and errors.

use tilemem_plan::csv::{parse, write_problem};
use tilemem_plan::{solve, Budget, BufferId, SolverKind};

#[test]
fn reads_minimalloc_files_and_aliases() {
    let f = parse("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", "m.csv").unwrap();
    assert_eq!(f.problem.len(), 2);
    assert_eq!(f.problem.buffers[1].lower, 3);
    assert_eq!(f.problem.buffers[1].upper, 9);
    assert_eq!(f.problem.buffers[0].name.as_deref(), Some("b1"));
    // `end` is inclusive; `begin`, `buffer` and `align` are aliases.
    let f = parse("Buffer,Begin,End,Size,Align\nx,2,4,8,32\n", "a.csv").unwrap();
    let b = &f.problem.buffers[0];
    assert_eq!((b.lower, b.upper, b.size, b.align), (2, 5, 8, 32));
}

#[test]
fn pairs_and_directives_round_trip() {
    let text =
        "# capacity=64\n# reserved=0-8\nid,lower,upper,size,alignment,fixed,conflicts,penalties\n\
                a,0,2,8,8,,c,b:3\nb,2,4,8,8,,,\nc,5,6,8,8,16,,a\n";
    let f = parse(text, "p.csv").unwrap();
    let p = &f.problem;
    assert_eq!(p.capacity, Some(64));
    assert_eq!(p.reserved, vec![(0, 8)]);
    assert_eq!(p.conflicts, vec![(BufferId(0), BufferId(2))]);
    assert_eq!(
        p.penalties,
        vec![(BufferId(0), BufferId(1), 3), (BufferId(0), BufferId(2), 1)]
    );
    assert_eq!(p.buffers[2].fixed_offset, Some(16));
    // Written and read again: the same problem, so replay gives the same
    // placement.
    let again = parse(&write_problem(p, None), "w.csv").unwrap();
    assert_eq!(&again.problem, p);
    let b = Budget::default();
    let x = solve(p, SolverKind::Canonical, &b).unwrap();
    let y = solve(&again.problem, SolverKind::Canonical, &b).unwrap();
    assert_eq!(x.solution, y.solution);
}

#[test]
fn writes_the_input_back_with_offsets() {
    let f = parse("id,lower,upper,size\nb1,0,3,4\nb2,1,9,4\n", "m.csv").unwrap();
    let out = solve(&f.problem, SolverKind::FirstFit, &Budget::default()).unwrap();
    assert_eq!(
        f.write_with(&out.solution.unwrap()),
        "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,1,9,4,4\n"
    );
}

/// An `offset` column already there is replaced in place (here between
/// other columns); cells come back trimmed, pair lists and the preamble as
/// they were.
#[test]
fn writes_offsets_into_an_existing_column() {
    let text = "# capacity=64\nid, lower,offset ,upper,size,conflicts\n\
                a ,0,,3,4,b c\nb,1, 7 ,9,4,\nc,5,,6,8,a\n";
    let f = parse(text, "o.csv").unwrap();
    assert_eq!(f.offsets, vec![None, Some(7), None]);
    let sol = tilemem_plan::Solution {
        offsets: vec![0, 4, 16],
    };
    assert_eq!(
        f.write_with(&sol),
        "# capacity=64\nid,lower,offset,upper,size,conflicts\n\
         a,0,0,3,4,b c\nb,1,4,9,4,\nc,5,16,6,8,a\n"
    );
    // The missing offset is reported at its cell (line 3, column 6).
    let e = f.solution_or_error("o.csv").unwrap_err();
    assert_eq!((e.line, e.col), (3, 6));
}

fn error(text: &str) -> String {
    parse(text, "bad.csv").unwrap_err().to_string()
}

#[test]
fn errors_say_where_and_what() {
    // Every message carries `file:line:col`; the column is 1-based and
    // points at the offending field (or name, or value).
    let cases: &[(&str, &str)] = &[
        // No header: at the end of the file (line 1 of an empty one).
        (
            "",
            "bad.csv:1:1: no header: expected a header such as `id,lower,upper,size` \
             (the file is empty or holds only comments)",
        ),
        (
            "# a comment\n\n# another\n",
            "bad.csv:4:1: no header: expected a header such as `id,lower,upper,size` \
             (the file is empty or holds only comments)",
        ),
        (
            "id,lower,size\n",
            "bad.csv:1:1: missing column `upper` (or `end`)",
        ),
        (
            "id,lower,upper\n",
            "bad.csv:1:1: missing column `size`; the header needs id, lower, upper (or end) and size",
        ),
        // Too few fields: where the first missing one would start.
        (
            "id,lower,upper,size\na,0,1\n",
            "bad.csv:2:6: 3 fields, but the header has 4",
        ),
        // Too many: the first extra one.
        (
            "id,lower,upper,size\na,0,1,4,  9\n",
            "bad.csv:2:11: 5 fields, but the header has 4",
        ),
        (
            "id,lower,upper,size\na,0,1,-4\n",
            "bad.csv:2:7: `size` must be a non-negative integer, found `-4`",
        ),
        (
            "id,lower,upper,size\nlong_name, 0 ,1,99999999999999999999\n",
            "bad.csv:2:17: `size` must be a non-negative integer, found `99999999999999999999`",
        ),
        (
            "id,lower,upper,size\na,0,1,2000000000000000000\n",
            "bad.csv:2:7: `size` 2000000000000000000 is too large (limit 2^60)",
        ),
        (
            "id,lower,upper,size\n ,0,1,4\n",
            "bad.csv:2:1: empty `id`",
        ),
        (
            "id,lower,upper,size\na,5,1,4\n",
            "bad.csv:2:5: buffer a: lifetime ends (1) before it starts (5); `upper` is exclusive",
        ),
        (
            "id,lower,upper,size\na,0,1,4\n\n  a,1,2,4\n",
            "bad.csv:4:3: duplicate id `a`; ids must be unique",
        ),
        (
            "id,lower,upper,size,alignment\na,0,1,4,0\n",
            "bad.csv:2:9: buffer a: alignment must be at least 1",
        ),
        (
            "id,lower,upper,size,alignment,fixed\na,0,1,4,8,12\n",
            "bad.csv:2:11: buffer a: fixed offset 12 is not a multiple of its alignment 8",
        ),
        (
            "id,lower,upper,size,conflicts\na,0,1,4,zz\n",
            "bad.csv:2:9: unknown buffer `zz` in a pair list",
        ),
        // The second name of a pair list.
        (
            "id,lower,upper,size,conflicts\na,0,1,4,b  zz\nb,0,1,4,\n",
            "bad.csv:2:12: unknown buffer `zz` in a pair list",
        ),
        (
            "id,lower,upper,size,conflicts\na,0,1,4,a\n",
            "bad.csv:2:9: buffer `a` lists itself as a conflict",
        ),
        (
            "id,lower,upper,size,penalties\na,0,1,4,b:x\nb,0,1,4,\n",
            "bad.csv:2:11: penalty `b:x`: weight must be a non-negative integer",
        ),
        (
            "id,lower,upper,size,penalties\na,0,1,4,b:2 a\nb,0,1,4,\n",
            "bad.csv:2:13: buffer `a` lists itself as a penalty",
        ),
        (
            "# capacity=lots\nid,lower,upper,size\n",
            "bad.csv:1:12: `capacity` wants a non-negative integer, found `lots`",
        ),
        (
            "# reserved=8\nid,lower,upper,size\n",
            "bad.csv:1:12: `reserved` wants START-END, found `8`",
        ),
        (
            "# reserved=0-x\nid,lower,upper,size\n",
            "bad.csv:1:14: `reserved` wants a non-negative integer, found `x`",
        ),
        (
            "# reserved=9-4\nid,lower,upper,size\n",
            "bad.csv:1:12: reserved range 9-4 ends before it starts",
        ),
        (
            "id,lower,upper,size,upper\n",
            "bad.csv:1:21: column `upper` appears twice (or with an alias)",
        ),
        (
            "id,lower,end,size,upper\n",
            "bad.csv:1:19: columns `upper` and `end` both given; keep one",
        ),
        // Columns count characters, not bytes.
        (
            "id,lower,upper,size\nµ,0,1,x\n",
            "bad.csv:2:7: `size` must be a non-negative integer, found `x`",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(error(text), *want, "input {text:?}");
    }
}

#[test]
fn a_missing_offset_names_its_cell_or_the_end_of_the_row() {
    let f = parse("id,lower,upper,size,offset\na,0,1,4,0\nb,0,1,4,\n", "v.csv").unwrap();
    assert_eq!(
        f.solution_or_error("v.csv").unwrap_err().to_string(),
        "v.csv:3:9: no offset; every row needs an `offset` to validate"
    );
    let f = parse("id,lower,upper,size\na,0,1,4\n", "v.csv").unwrap();
    assert_eq!(
        f.solution_or_error("v.csv").unwrap_err().to_string(),
        "v.csv:2:8: no offset; every row needs an `offset` to validate"
    );
}

#[test]
fn a_non_utf8_byte_is_named_by_line_and_column() {
    let dir = std::env::temp_dir().join(format!("tilemem-csv-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    std::fs::write(&path, b"id,lower,upper,size\n\xc3\xa9a,0,1,\xff4\n").unwrap();
    let e = tilemem_plan::csv::read(&path).unwrap_err();
    assert_eq!((e.line, e.col), (2, 8));
    assert_eq!(
        e.message,
        "byte 0xff is not UTF-8 text; save the file as UTF-8"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A problem the reader accepts but `Problem::check` refuses is reported
/// at the row concerned: for sizes that add up past 2^62 bytes, the row at
/// which the running sum passes it.
#[test]
fn problem_errors_are_located_at_their_row() {
    let big = 1u64 << 60;
    let mut text = String::from("# a comment\nid,lower,upper,size\n");
    for i in 0..6 {
        text.push_str(&format!("b{i},0,1,{big}\n"));
    }
    let file = parse(&text, "big.csv").unwrap();
    let e = file.problem.check().unwrap_err();
    assert_eq!(
        file.locate("big.csv", &e).to_string(),
        "big.csv:6:1: sizes add up to more than 2^62 bytes"
    );
}

/// Ids that number the rows (`0,1,2`, or from any first number) are read
/// without a table: a pair list finds them by value, a name written
/// another way (`01`, `+1`) or past the last row is unknown, and a repeat
/// is a duplicate. An id that breaks the numbering mid-file turns the
/// table on with every id read before it, so earlier rows stay findable.
#[test]
fn numbered_ids_are_found_and_checked_like_any_other() {
    let f = parse(
        "id,lower,upper,size,conflicts\n1,0,1,4,3\n2,0,1,4,\n3,2,3,4,1 2\n",
        "n.csv",
    )
    .unwrap();
    assert_eq!(
        f.problem.conflicts,
        vec![(BufferId(0), BufferId(2)), (BufferId(1), BufferId(2))]
    );
    for (name, col) in [("01", 9), ("+1", 9), ("4", 9), ("0", 9)] {
        assert_eq!(
            error(&format!(
                "id,lower,upper,size,conflicts\n1,0,1,4,{name}\n2,0,1,4,\n"
            )),
            format!("bad.csv:2:{col}: unknown buffer `{name}` in a pair list")
        );
    }
    assert_eq!(
        error("id,lower,upper,size\n0,0,1,4\n1,0,1,4\n0,0,1,4\n"),
        "bad.csv:4:1: duplicate id `0`; ids must be unique"
    );
    // `x` breaks the numbering at the third row; the fourth names the
    // first two rows and `x`, and the fifth repeats row 1's id.
    let f = parse(
        "id,lower,upper,size,conflicts\n0,0,1,4,\n1,0,1,4,\nx,0,1,4,\ny,5,6,4,0 x 1\n",
        "m.csv",
    )
    .unwrap();
    assert_eq!(
        f.problem.conflicts,
        vec![
            (BufferId(0), BufferId(3)),
            (BufferId(1), BufferId(3)),
            (BufferId(2), BufferId(3))
        ]
    );
    assert_eq!(
        error("id,lower,upper,size\n0,0,1,4\nx,0,1,4\n 0,0,1,4\n"),
        "bad.csv:4:2: duplicate id `0`; ids must be unique"
    );
}

/// Rows with blanks around their cells come back trimmed when the offset
/// column is added; rows without come back as they were.
#[test]
fn rows_are_written_back_trimmed() {
    let f = parse(
        "id,lower,upper,size\n0,0,3,4\n 1 ,\t1, 9 ,4\r\n2,0,1,µ4\n",
        "t.csv",
    );
    assert!(f.is_err(), "µ4 is no number");
    let f = parse(
        "id,lower,upper,size\n0,0,3,4\n 1 ,\t1, 9 ,4\r\n2,0,1,4\n",
        "t.csv",
    )
    .unwrap();
    let sol = tilemem_plan::Solution {
        offsets: vec![0, 4, 12345678901234],
    };
    assert_eq!(
        f.write_with(&sol),
        "id,lower,upper,size,offset\n0,0,3,4,0\n1,1,9,4,4\n2,0,1,4,12345678901234\n"
    );
}

/// A placement longer than the writer's megabyte chunks comes out whole,
/// rows in order, into a file as into a string.
#[test]
fn long_placements_are_written_whole() {
    let mut text = String::from("# capacity=99999999\nid,lower,upper,size\n");
    let mut want = String::from("# capacity=99999999\nid,lower,upper,size,offset\n");
    let n = 80_000u64;
    for i in 0..n {
        text.push_str(&format!("{i},{i},{},4\n", i + 1));
        want.push_str(&format!("{i},{i},{},4,{}\n", i + 1, 4 * (i % 7)));
    }
    let f = parse(&text, "long.csv").unwrap();
    let sol = tilemem_plan::Solution {
        offsets: (0..n).map(|i| 4 * (i % 7)).collect(),
    };
    assert!(want.len() > 1 << 20);
    let mut file = Vec::new();
    f.write_to(&sol, &mut file).unwrap();
    assert_eq!(String::from_utf8(file).unwrap(), want);
    assert_eq!(f.write_with(&sol), want);
}
