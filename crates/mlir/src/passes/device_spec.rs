//! The NPU device specification a module carries, read and written as
//! HACC writes it:
//!
//! ```text
//! module attributes {dlti.target_system_spec = #dlti.target_system_spec<"NPU" :
//!     #hacc.target_device_spec<#dlti.dl_entry<"UB_SIZE", 1572864 : i32>, ...>>,
//!   hacc.target = #hacc.target<"Ascend910B1">}
//! ```
//!
//! The values themselves come from [`tilemem_soc::DeviceSpec`] (the table
//! generated from `NPUTargetSpec.td`); passes that need a capacity read
//! the module's entries, as the reference passes do through
//! `hacc::utils::getNPUTargetSpec`, so a hand-written spec is honoured.

use tilemem_soc::{DeviceSpec, DeviceSpecKey, SpecValue};

use crate::ir::{Attribute, Module};

/// The module attribute holding the target system spec.
pub const TARGET_SYSTEM_SPEC: &str = "dlti.target_system_spec";
/// The module attribute naming the chip.
pub const TARGET: &str = "hacc.target";
/// The device id of the NPU in the target system spec.
pub const NPU: &str = "NPU";

/// One entry of a device spec as the IR holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryValue {
    /// `24 : i32`
    Int(i64),
    /// `"dav-c310"`
    Str(String),
}

/// The entries of a module's NPU device spec, in order (`None`: the
/// module has no NPU spec).
pub fn npu_spec_entries(module: &Module) -> Option<Vec<(String, EntryValue)>> {
    let devices = system_spec_devices(module)?;
    let (_, spec) = devices.into_iter().find(|(id, _)| id == NPU)?;
    let inner = spec
        .trim()
        .strip_prefix("#hacc.target_device_spec<")?
        .strip_suffix('>')?;
    let mut out = Vec::new();
    for item in split_top(inner, ',') {
        let item = item.trim();
        let Some(body) = item
            .strip_prefix("#dlti.dl_entry<")
            .and_then(|s| s.strip_suffix('>'))
        else {
            continue;
        };
        let parts = split_top(body, ',');
        if parts.len() != 2 {
            continue;
        }
        let key = parts[0].trim().trim_matches('"').to_string();
        let v = parts[1].trim();
        let value = if let Some(s) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            EntryValue::Str(s.to_string())
        } else {
            let num = v.split(':').next().unwrap_or("").trim();
            match num.parse::<i64>() {
                Ok(n) => EntryValue::Int(n),
                Err(_) => continue,
            }
        };
        out.push((key, value));
    }
    Some(out)
}

/// The integer entry `key` of the module's NPU spec.
pub fn npu_spec_int(module: &Module, key: DeviceSpecKey) -> Option<i64> {
    npu_spec_entries(module)?
        .into_iter()
        .find_map(|(k, v)| match v {
            EntryValue::Int(n) if k == key.name() => Some(n),
            _ => None,
        })
}

/// The `(device id, spec text)` pairs of the module's target system spec.
fn system_spec_devices(module: &Module) -> Option<Vec<(String, String)>> {
    let Some(Attribute::Dialect {
        dialect,
        mnemonic,
        params: Some(params),
    }) = module.module_attr(TARGET_SYSTEM_SPEC)
    else {
        return None;
    };
    if dialect != "dlti" || mnemonic != "target_system_spec" {
        return None;
    }
    let mut out = Vec::new();
    for item in split_top(params, ',') {
        let item = item.trim();
        let Some(rest) = item.strip_prefix('"') else {
            continue;
        };
        let Some(end) = rest.find('"') else { continue };
        let id = rest[..end].to_string();
        let spec = rest[end + 1..].trim_start().strip_prefix(':').unwrap_or("");
        out.push((id, spec.trim().to_string()));
    }
    Some(out)
}

/// Splits `text` at `sep` outside brackets and strings.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut start = 0;
    let mut prev = '\0';
    for (i, c) in text.char_indices() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '<' | '(' | '[' | '{' if !in_str => depth += 1,
            '>' | ')' | ']' | '}' if !in_str => depth -= 1,
            c if c == sep && depth == 0 && !in_str => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
        prev = c;
    }
    if start < text.len() || !out.is_empty() {
        out.push(&text[start..]);
    }
    out
}

/// The text of one entry value.
fn value_text(v: &EntryValue) -> String {
    match v {
        EntryValue::Int(n) => format!("{n} : i32"),
        EntryValue::Str(s) => format!("\"{s}\""),
    }
}

/// The `#hacc.target_device_spec<...>` text of `entries`.
pub fn device_spec_text(entries: &[(String, EntryValue)]) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("#dlti.dl_entry<\"{k}\", {}>", value_text(v)))
        .collect();
    format!("#hacc.target_device_spec<{}>", items.join(", "))
}

/// Sets the module's NPU device spec to `entries`, keeping the specs of
/// other devices the target system spec may hold.
pub fn set_npu_spec(module: &mut Module, entries: &[(String, EntryValue)]) {
    let spec = device_spec_text(entries);
    let mut devices = system_spec_devices(module).unwrap_or_default();
    match devices.iter_mut().find(|(id, _)| id == NPU) {
        Some(d) => d.1 = spec,
        None => devices.push((NPU.to_string(), spec)),
    }
    let params: Vec<String> = devices
        .iter()
        .map(|(id, s)| format!("\"{id}\" : {s}"))
        .collect();
    let top = module.top();
    module.set_attr(
        top,
        TARGET_SYSTEM_SPEC,
        Attribute::Dialect {
            dialect: "dlti".to_string(),
            mnemonic: "target_system_spec".to_string(),
            params: Some(params.join(", ")),
        },
    );
}

/// The entries of `spec` as the IR holds them.
pub fn entries_of(spec: &DeviceSpec) -> Vec<(String, EntryValue)> {
    spec.entries()
        .map(|(k, v)| {
            (
                k.name().to_string(),
                match v {
                    SpecValue::Int(n) => EntryValue::Int(n),
                    SpecValue::Str(s) => EntryValue::Str(s.to_string()),
                },
            )
        })
        .collect()
}

/// The chip named by the module's `hacc.target` (`None` when absent or
/// not a chip of the table).
pub fn target_chip(module: &Module) -> Option<&'static DeviceSpec> {
    let name = match module.module_attr(TARGET)? {
        Attribute::Dialect {
            params: Some(p), ..
        } => p.trim().trim_matches('"').to_string(),
        Attribute::String(s) => s.clone(),
        Attribute::Opaque(s) => s.clone(),
        _ => return None,
    };
    DeviceSpec::lookup(&name)
}

/// Whether the module's chip is register-based: by its `ARCH` entry when
/// the spec carries one, else by the chip named in `hacc.target`
/// (`hacc::utils::isRegBasedArch`).
pub fn is_regbase_module(module: &Module) -> bool {
    if let Some(entries) = npu_spec_entries(module) {
        if let Some((_, EntryValue::Str(arch))) = entries.iter().find(|(k, _)| k == "ARCH") {
            return matches!(arch.as_str(), "dav-c310" | "dav-m300");
        }
    }
    target_chip(module).is_some_and(DeviceSpec::is_regbase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_module, ParseOptions};
    use crate::print::print_module;

    #[test]
    fn entries_round_trip_through_the_module_attribute() {
        let mut m = parse_module(
            r#"module attributes {dlti.target_system_spec = #dlti.target_system_spec<"CPU" : #dlti.target_device_spec<#dlti.dl_entry<"x", 1 : i32>>, "NPU" :
    #hacc.target_device_spec<#dlti.dl_entry<"AI_CORE_COUNT", 24 : i32>>>} {
}"#,
            &ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(
            npu_spec_entries(&m).unwrap(),
            vec![("AI_CORE_COUNT".to_string(), EntryValue::Int(24))]
        );
        let spec = DeviceSpec::lookup("Ascend950PR_950z").unwrap();
        set_npu_spec(&mut m, &entries_of(spec));
        assert_eq!(npu_spec_int(&m, DeviceSpecKey::UbSize), Some(2_031_616));
        let text = print_module(&m);
        assert!(text.contains(r#""CPU" : #dlti.target_device_spec<#dlti.dl_entry<"x", 1 : i32>>, "NPU" : #hacc.target_device_spec<#dlti.dl_entry<"AI_CORE_COUNT", 4 : i32>"#), "{text}");
        assert!(
            text.contains(r#"#dlti.dl_entry<"ARCH", "dav-c310">>>"#),
            "{text}"
        );
        assert!(is_regbase_module(&m));
    }
}
