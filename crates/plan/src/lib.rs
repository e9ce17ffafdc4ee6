//! IR-free buffer placement core: problems, solvers, an independent
//! validator, lower bounds and problem files.
//!
//! A compiler pass lowers each (function, memory space) into a [`Problem`]:
//! buffers with size, alignment and half-open lifetime, plus an optional
//! capacity, reserved address ranges, hard conflict pairs and soft penalty
//! pairs. [`solve`] places it with one of the [`SolverKind`]s and returns an
//! [`Outcome`]; [`validate`] checks any placement without sharing code with
//! the solvers; [`lower_bound`] gives the floor every result is compared to.
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
pub mod problem;
pub mod solve;
pub mod validate;

pub use bound::lower_bound;
pub use problem::{Buffer, BufferId, Problem, ProblemError, Solution};
pub use solve::{solve, solver, Budget, Goal, Objective, Outcome, Solver, SolverKind};
pub use validate::{validate, Separation, Stats, Violation};
