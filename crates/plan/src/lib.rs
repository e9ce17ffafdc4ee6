//! IR-free buffer placement core: problems, solvers, an independent
//! validator, lower bounds and problem files.
//!
//! A compiler pass lowers each (function, memory space) into a [`Problem`]:
//! buffers with size, alignment and half-open lifetime, plus an optional
//! capacity, reserved address ranges, hard conflict pairs, compatible pairs
//! (co-live buffers that may share bytes, such as the tiles of two exclusive
//! branches) and soft penalty pairs. [`solve()`] places it with one of the [`SolverKind`]s and returns an
//! [`Outcome`]; [`validate()`] checks any placement without sharing code with
//! the solvers; [`lower_bound`] gives the floor every result is compared to.
//!
//! # Solvers
//! | kind | what | proves |
//! |---|---|---|
//! | `sequential` | bump allocation in buffer order, no reuse | - |
//! | `first-fit`, `best-fit` | size-descending greedy | optimal when it meets the bound |
//! | `canonical` | penalty-aware canonical greedy over several orders (DSA_RP) | as above |
//! | `exact` | complete branch-and-bound, anytime | optimal / infeasible |
//! | `auto` | greedy, then `exact` where greedy misses the bound or capacity | as `exact` |
//!
//! # Use by a planner (DSA_RP and an optimal mode)
//! 1. Build one [`Problem`] per (function, memory space): buffers with size,
//!    alignment and lifetime; `capacity`; `reserved` ranges; hard
//!    separations that lifetimes do not already imply go in `conflicts`
//!    (pinned/declared allocations, pipeline stages, hazards, no-alias
//!    rules); soft unit-weight reuse penalties go in `penalties`; pairs of
//!    co-live buffers that are never used together (the two branches of an
//!    `if`) go in `compatible` ([`Problem::allow_sharing`]).
//! 2. DSA_RP: `solve(&p, SolverKind::Canonical, &budget)` with
//!    `Objective::PenaltyThenPeak` is what `tilemem plan --planner dsa-rp`
//!    runs: every penalty pair sharing a byte costs its weight, the best
//!    `(penalty, height)` over several orders, within the capacity.
//!    `SolverKind::Handoff` ([`solve::handoff`]) is a variant in which a
//!    pair costs only at a handoff.
//!    An optimal mode: the same with `SolverKind::Exact` and either
//!    objective; `proven_optimal` says whether the time limit cut it short
//!    (the canonical placement is its starting point, so it is never worse).
//! 3. Check the result with [`validate()`] before writing addresses.
//! 4. Export with [`csv::write_problem`]: hard, compatible and penalty pairs
//!    become the `conflicts` / `compatible` / `penalties` columns, capacity and reserved ranges
//!    `# capacity=` / `# reserved=` lines (see [`csv`]). `tilemem solve
//!    FILE.csv --solver canonical --penalty-first` then reproduces the planner's DSA_RP
//!    placement exactly (solvers are deterministic and independent of
//!    the order in which pairs are listed).
//!
//! ```
//! use tilemem_plan::{solve, validate, Buffer, Budget, Problem, SolverKind};
//!
//! let mut p = Problem::new();
//! let a = p.push(Buffer::new(64, 0, 2).with_align(32));
//! let b = p.push(Buffer::new(64, 1, 3).with_align(32));
//! let c = p.push(Buffer::new(128, 2, 4).with_align(32));
//! p.capacity = Some(192);
//! let out = solve(&p, SolverKind::Auto, &Budget::default()).unwrap();
//! let sol = out.solution.expect("fits");
//! let stats = validate(&p, &sol).unwrap();
//! assert_eq!(stats.height, 192);
//! assert_ne!(sol.offset(a), sol.offset(b));
//! # let _ = c;
//! ```

pub mod bench;
pub mod bound;
pub mod csv;
pub mod gen;
pub mod map;
pub mod minimize;
pub mod problem;
pub mod solve;
pub mod validate;

pub use bound::lower_bound;
pub use problem::{Buffer, BufferId, Problem, ProblemError, Solution};
pub use solve::{
    solve, solver, time_limit_from_secs, Budget, Goal, Objective, Outcome, Solver, SolverKind,
    LONGEST_TIME_LIMIT,
};
pub use validate::{validate, Separation, Stats, Violation};
