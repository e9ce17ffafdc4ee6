//! The architecture notes explain the words they use: each term a newcomer
//! cannot look up elsewhere has an entry in their glossary.

#[test]
fn architecture_terms_are_in_its_glossary() {
    let doc = include_str!("../../docs/architecture.md");
    let (body, glossary) = doc
        .split_once("## Glossary")
        .expect("docs/architecture.md has a `## Glossary` section");
    let terms = [
        ("seed", "**seed**"),
        ("e2d0f78", "**PyPTO e2d0f78**"),
        ("HIVM", "**HIVM**"),
        ("MemRef", "**MemRef**"),
        ("root", "**root**"),
        ("view", "**view**"),
        ("phi", "**phi**"),
        ("yield fix-up", "**yield fix-up**"),
        ("DSA", "**DSA**"),
        ("reserve_buffer", "**reserve_buffer**"),
        ("Fixpipe", "**Fixpipe**"),
        ("planner", "**planner**"),
    ];
    let missing: Vec<&str> = terms
        .iter()
        .filter(|(word, _)| body.contains(word))
        .filter(|(_, entry)| !glossary.contains(entry))
        .map(|(word, _)| *word)
        .collect();
    assert!(
        missing.is_empty(),
        "terms used without a glossary entry: {missing:?}"
    );
}
