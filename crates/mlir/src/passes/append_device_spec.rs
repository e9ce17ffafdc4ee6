//! `-hacc-append-device-spec`: writes the device specification of the
//! target chip into the module (`AppendDeviceSpec.cpp`).
//!
//! The chip is the `target=NAME` option, else the module's `hacc.target`;
//! with neither the pass does nothing. The spec is the chip's row of the
//! table generated from `NPUTargetSpec.td` ([`tilemem_soc::DEVICE_SPECS`]),
//! every `DeviceSpec` entry in enum order but the register-based-only
//! `MINIMAL_D_CACHE_SIZE`, `MAXIMUM_D_CACHE_SIZE` and `ARCH` on memory-based
//! chips. `custom-aic-number` and `custom-aiv-number` (both needed) lower
//! the core counts; a larger value than the chip has is ignored.
//! Memory-based chips also get `hacc.hivmc_version` (the `hivmc-version`
//! option, `0.0.0` when it does not parse) and
//! `hacc.hivmc_compatible_print = false`.
//!
//! Assumes nothing; guarantees `hacc.target` and an NPU entry in
//! `dlti.target_system_spec` whenever a chip is known. Warns, as the
//! reference does, when the option overrides another chip in the IR
//! (`Overwriting the target by the pass option...`) and when a spec was
//! already present (`Overwriting the device spec...`).

use tilemem_soc::{DeviceSpec, DeviceSpecKey, DEVICE_SPECS};

use crate::ir::{Attribute, Diagnostic, Module};
use crate::pass::{parse_int_option, split_options, Pass, PassFailed};
use crate::passes::device_spec::{
    entries_of, npu_spec_entries, set_npu_spec, target_chip, EntryValue, TARGET,
};

/// The pass and its options.
#[derive(Clone, Debug)]
pub struct AppendDeviceSpec {
    /// `target=NAME` (`None`: `Unknown`, the default).
    pub target: Option<&'static DeviceSpec>,
    /// `custom-aic-number` (-1: no override).
    pub custom_aic_number: i64,
    /// `custom-aiv-number` (-1: no override).
    pub custom_aiv_number: i64,
    /// `hivmc-version`.
    pub hivmc_version: String,
}

impl Default for AppendDeviceSpec {
    fn default() -> Self {
        AppendDeviceSpec {
            target: None,
            custom_aic_number: -1,
            custom_aiv_number: -1,
            hivmc_version: String::new(),
        }
    }
}

const NAME: &str = "hacc-append-device-spec";

/// `llvm::VersionTuple::tryParse` then `getAsString`: up to four
/// dot-separated integers; anything else is `0.0.0`.
fn version_text(v: &str) -> String {
    let parts: Vec<&str> = v.split('.').collect();
    let ok = !v.is_empty()
        && parts.len() <= 4
        && parts.iter().all(|p| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u32>().is_ok()
        });
    if !ok {
        return "0.0.0".to_string();
    }
    parts
        .iter()
        .map(|p| p.parse::<u32>().unwrap_or(0).to_string())
        .collect::<Vec<_>>()
        .join(".")
}

impl AppendDeviceSpec {
    /// The spec value of `key` with the core-count overrides applied
    /// (`maybeOverrideSpecValue`).
    fn entry(&self, key: DeviceSpecKey, value: EntryValue) -> EntryValue {
        let EntryValue::Int(old) = value else {
            return value;
        };
        if self.custom_aic_number == -1 || self.custom_aiv_number == -1 {
            return value;
        }
        let new = match key {
            DeviceSpecKey::AiCoreCount | DeviceSpecKey::CubeCoreCount => self.custom_aic_number,
            DeviceSpecKey::VectorCoreCount => self.custom_aiv_number,
            _ => -1,
        };
        // The reference compares as int32.
        let (new, old32) = (new as i32, old as i32);
        if new == -1 || new > old32 {
            return value;
        }
        EntryValue::Int(i64::from(new))
    }
}

impl Pass for AppendDeviceSpec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Write the target chip's device specification (core counts, buffer sizes and alignments) into the module"
    }

    fn options(&self) -> &'static [(&'static str, &'static str)] {
        &[
            (
                "target",
                "Device target name (Ascend910B1, Ascend950PR_9589, ...; default Unknown)",
            ),
            ("custom-aic-number", "Custom AIC core count (-1: none)"),
            ("custom-aiv-number", "Custom AIV core count (-1: none)"),
            (
                "hivmc-version",
                "HIVMC version written on memory-based chips",
            ),
        ]
    }

    fn set_options(&mut self, text: &str) -> Result<(), String> {
        for (name, value) in split_options(text)? {
            match name.as_str() {
                "target" => {
                    if value == "Unknown" {
                        self.target = None;
                    } else {
                        self.target = Some(DeviceSpec::lookup(&value).ok_or_else(|| {
                            let names: Vec<&str> = DEVICE_SPECS.iter().map(|s| s.name).collect();
                            format!(
                                "pass '-{NAME}': unknown target '{value}'; known targets: {}, Unknown",
                                names.join(", ")
                            )
                        })?);
                    }
                }
                "custom-aic-number" => {
                    self.custom_aic_number = parse_int_option(NAME, &name, &value)?
                }
                "custom-aiv-number" => {
                    self.custom_aiv_number = parse_int_option(NAME, &name, &value)?
                }
                "hivmc-version" => self.hivmc_version = value,
                _ => {
                    return Err(format!(
                        "pass '-{NAME}' has no option '{name}'; options: target, custom-aic-number, custom-aiv-number, hivmc-version"
                    ))
                }
            }
        }
        Ok(())
    }

    fn run(&self, module: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        let from_ir = target_chip(module);
        let Some(chip) = self.target.or(from_ir) else {
            return Ok(());
        };
        let top = module.top();
        let loc = module.op(top).loc;
        if let (Some(opt), Some(ir)) = (self.target, from_ir) {
            if opt.name != ir.name {
                diags.push(Diagnostic::warning(
                    loc,
                    "Overwriting the target by the pass option...",
                ));
            }
        }
        if npu_spec_entries(module).is_some() {
            diags.push(Diagnostic::warning(loc, "Overwriting the device spec..."));
        }
        module.set_attr(
            top,
            TARGET,
            Attribute::Dialect {
                dialect: "hacc".to_string(),
                mnemonic: "target".to_string(),
                params: Some(format!("\"{}\"", chip.name)),
            },
        );
        let entries: Vec<(String, EntryValue)> = entries_of(chip)
            .into_iter()
            .map(|(k, v)| {
                let key = DeviceSpecKey::from_name(&k).expect("table keys are DeviceSpec keys");
                (k, self.entry(key, v))
            })
            .collect();
        set_npu_spec(module, &entries);
        if chip.is_membase() {
            module.set_attr(
                top,
                "hacc.hivmc_version",
                Attribute::Dialect {
                    dialect: "hacc".to_string(),
                    mnemonic: "hivmc_version".to_string(),
                    params: Some(format!("\"{}\"", version_text(&self.hivmc_version))),
                },
            );
            module.set_attr(top, "hacc.hivmc_compatible_print", Attribute::Bool(false));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_like_llvm_version_tuple() {
        assert_eq!(version_text(""), "0.0.0");
        assert_eq!(version_text("0.2.0"), "0.2.0");
        assert_eq!(version_text("1.2"), "1.2");
        assert_eq!(version_text("1.x"), "0.0.0");
        assert_eq!(version_text("1.2.3.4.5"), "0.0.0");
    }

    #[test]
    fn overrides_lower_core_counts_only_with_both_options() {
        let mut p = AppendDeviceSpec::default();
        p.set_options("target=Ascend950PR_9589 custom-aic-number=5")
            .unwrap();
        assert_eq!(
            p.entry(DeviceSpecKey::AiCoreCount, EntryValue::Int(32)),
            EntryValue::Int(32)
        );
        p.set_options("custom-aiv-number=100").unwrap();
        assert_eq!(
            p.entry(DeviceSpecKey::CubeCoreCount, EntryValue::Int(32)),
            EntryValue::Int(5)
        );
        assert_eq!(
            p.entry(DeviceSpecKey::VectorCoreCount, EntryValue::Int(64)),
            EntryValue::Int(64)
        );
        assert!(p
            .set_options("target=Ascend999")
            .unwrap_err()
            .contains("unknown target"));
        assert!(p
            .set_options("bogus=1")
            .unwrap_err()
            .contains("no option 'bogus'"));
    }
}
