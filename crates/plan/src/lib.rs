//! IR-free buffer placement core: problems, solvers, validator, lower bounds, problem files.
