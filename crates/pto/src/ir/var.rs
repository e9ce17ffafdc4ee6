//! Variable ids: the id type expressions, statements and types name
//! variables by, below the functions that own them.

use super::entity::entity;

entity!(
    /// A variable of one function (index into
    /// [`Function::vars`](super::Function::vars)).
    VarId,
    "v"
);
