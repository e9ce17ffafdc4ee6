//! Checking one call of a registered op against its registry signature
//! ([`Signature`]): the positional arguments (`add_argument`), the keywords
//! (`set_attr`) and which arguments a call must give.
//!
//! PyPTO's rules, from `op-registry.md` §7-8: a call passes at most the
//! registered arguments; an op that declares keyword attributes rejects any
//! other key, while an op that declares none validates no keyword at all.
//! PyPTO's printer also writes two things as keywords that are not
//! attributes: an argument passed by name (`tile.full(shape, value=0.0)`,
//! `tile.matmul_acc(acc, lhs, rhs, init_cond=...)`) and the call's `attrs`
//! dictionary; both are accepted.

use super::{signature, Signature};

/// The keyword under which PyPTO prints a call's attribute dictionary
/// (`attrs={"pipeline_membership": "0:0"}`); not an op attribute.
pub const CALL_ATTRS: &str = "attrs";

/// Where in the call a [`CallError`] belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// The callee (`pl.tile.add`).
    Callee,
    /// The keyword argument with this index among the call's keywords.
    Kwarg(usize),
}

/// A call that breaks its op's registry signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    /// The message: the op, the rule and what to change.
    pub message: String,
    /// The short label under the offending text.
    pub label: &'static str,
    /// Where it belongs.
    pub at: At,
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// What a call of `info` may pass by keyword, for a message.
fn accepted(info: &Signature) -> String {
    let mut parts = Vec::new();
    if !info.attrs.is_empty() {
        let attrs: Vec<String> = info
            .attrs
            .iter()
            .map(|(k, t)| format!("{k} ({t})"))
            .collect();
        parts.push(format!("the attributes {}", attrs.join(", ")));
    }
    if !info.args.is_empty() {
        parts.push(format!("the arguments {} by name", info.args.join(", ")));
    }
    parts.push(format!("`{CALL_ATTRS}=`"));
    parts.join(", ")
}

/// Checks a call of `name` with `n_pos` positional arguments and the
/// keywords `kwargs` (in call order) against the registry's signature of
/// the op (any namespace). Unregistered names (the table's deviations,
/// non-op callees such as `pl.range`) pass.
pub fn check_call(name: &str, n_pos: usize, kwargs: &[&str]) -> Result<(), CallError> {
    let bare = name.strip_prefix("pl.").unwrap_or(name);
    let Some(info) = signature(bare) else {
        return Ok(());
    };
    let n_args = info.args.len();
    if n_pos > n_args {
        return Err(CallError {
            message: format!(
                "'{bare}' takes at most {} ({}), found {n_pos}",
                plural(n_args, "positional argument"),
                info.args.join(", ")
            ),
            label: "too many arguments",
            at: At::Callee,
        });
    }
    for (k, &kw) in kwargs.iter().enumerate() {
        if kwargs[..k].contains(&kw) {
            return Err(CallError {
                message: format!("keyword argument '{kw}' repeated in a call of '{bare}'"),
                label: "repeated keyword",
                at: At::Kwarg(k),
            });
        }
        if let Some(i) = info.args.iter().position(|&a| a == kw) {
            if i < n_pos {
                return Err(CallError {
                    message: format!(
                        "'{bare}' gets argument '{kw}' twice: as positional argument {i} and \
                         as `{kw}=`; drop one of them"
                    ),
                    label: "given twice",
                    at: At::Kwarg(k),
                });
            }
            continue;
        }
        let declared = info.attrs.iter().any(|(a, _)| *a == kw);
        // An op without attributes validates no keyword (PyPTO's
        // `CreateImpl`); `attrs=` is the call's attribute dictionary.
        if declared || info.attrs.is_empty() || kw == CALL_ATTRS {
            continue;
        }
        return Err(CallError {
            message: format!(
                "'{bare}' has no keyword argument '{kw}': PyPTO e2d0f78 accepts {}",
                accepted(info)
            ),
            label: "unknown keyword",
            at: At::Kwarg(k),
        });
    }
    let missing = (n_pos..info.min_args).find(|&i| !kwargs.contains(&info.args[i]));
    if let Some(i) = missing {
        let a = info.args[i];
        return Err(CallError {
            message: format!(
                "'{bare}' needs argument '{a}' (position {i} of {}), found {}: pass it \
                 positionally or as `{a}=`",
                info.args.join(", "),
                plural(n_pos, "positional argument")
            ),
            label: "missing argument",
            at: At::Callee,
        });
    }
    Ok(())
}

/// What the reader found as a keyword's value, as far as the attribute
/// type check needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// `pl.Mem.X` naming a space PyPTO has.
    KnownSpace,
    /// `True` / `False`.
    Bool,
    /// Anything else.
    Other,
}

/// Checks the value of keyword `key` of a call of `name` against the
/// attribute's registered type, for the types the planner reads
/// (`MemorySpace`: where a result lives) and the unambiguous `bool`; other
/// types (PyPTO prints an `int` attribute as a number, a string or an
/// enum) are not checked. `Err` is the message.
pub fn check_attr_value(name: &str, key: &str, value: AttrValue) -> Result<(), String> {
    let bare = name.strip_prefix("pl.").unwrap_or(name);
    let Some(info) = signature(bare) else {
        return Ok(());
    };
    let Some(&(_, ty)) = info.attrs.iter().find(|(k, _)| *k == key) else {
        return Ok(());
    };
    let want = match (ty, value) {
        ("MemorySpace", AttrValue::KnownSpace) | ("bool", AttrValue::Bool) => return Ok(()),
        ("MemorySpace", _) => {
            "a memory space (`pl.Mem.Vec`, `pl.Mem.Mat`, `pl.Mem.Left`, `pl.Mem.Right`, \
             `pl.Mem.Acc`, `pl.Mem.Bias`, ...)"
        }
        ("bool", _) => "`True` or `False`",
        _ => return Ok(()),
    };
    Err(format!(
        "'{bare}' keyword '{key}' is registered as {ty} (set_attr<{ty}>): write {want}"
    ))
}
