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

fn error(text: &str) -> String {
    parse(text, "bad.csv").unwrap_err().to_string()
}

#[test]
fn errors_say_where_and_what() {
    assert_eq!(
        error(""),
        "bad.csv: empty file: expected a header such as `id,lower,upper,size`"
    );
    assert_eq!(
        error("id,lower,size\n"),
        "bad.csv:1: missing column `upper` (or `end`)"
    );
    assert_eq!(
        error("id,lower,upper\n"),
        "bad.csv:1: missing column `size`; the header needs id, lower, upper (or end) and size"
    );
    assert_eq!(
        error("id,lower,upper,size\na,0,1\n"),
        "bad.csv:2: 3 fields, but the header has 4"
    );
    assert_eq!(
        error("id,lower,upper,size\na,0,1,-4\n"),
        "bad.csv:2: `size` must be a non-negative integer, found `-4`"
    );
    assert_eq!(
        error("id,lower,upper,size\na,5,1,4\n"),
        "bad.csv:2: buffer a: lifetime ends (1) before it starts (5); `upper` is exclusive"
    );
    assert_eq!(
        error("id,lower,upper,size\na,0,1,4\n\na,1,2,4\n"),
        "bad.csv:4: duplicate id `a`; ids must be unique"
    );
    assert_eq!(
        error("id,lower,upper,size,alignment\na,0,1,4,0\n"),
        "bad.csv:2: buffer a: alignment must be at least 1"
    );
    assert_eq!(
        error("id,lower,upper,size,conflicts\na,0,1,4,zz\n"),
        "bad.csv:2: unknown buffer `zz` in a pair list"
    );
    assert_eq!(
        error("# capacity=lots\nid,lower,upper,size\n"),
        "bad.csv:1: `capacity` wants a non-negative integer, found `lots`"
    );
    assert_eq!(
        error("id,lower,upper,size,upper\n"),
        "bad.csv:1: column `upper` appears twice (or with an alias)"
    );
}
