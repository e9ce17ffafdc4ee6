//! `-hivm-plan-memory-regbase`: memory planning for register-based chips
//! (`regbase/PlanMemory.cpp`). The rules are in [`super`]; this file is the pass.

use crate::ir::{Diagnostic, Module};
use crate::pass::{Pass, PassContext, PassFailed};

use super::{Options, Variant, REGBASE_OPTIONS};

/// The pass with its options.
#[derive(Clone, Debug, Default)]
pub struct PlanMemoryRegbase {
    /// Options (`Passes.td`).
    pub options: Options,
}

const NAME: &str = "hivm-plan-memory-regbase";

impl Pass for PlanMemoryRegbase {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Plan the addresses of local buffers (memref.alloc -> hivm.hir.pointer_cast), register-based chips (Ascend950)"
    }

    fn options(&self) -> &'static [(&'static str, &'static str)] {
        REGBASE_OPTIONS
    }

    fn set_options(&mut self, text: &str) -> Result<(), String> {
        self.options.set(NAME, Variant::Regbase, text)
    }

    fn run(&self, module: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        let mut cx = PassContext::default();
        let r = self.run_in(module, &mut cx);
        diags.append(&mut cx.diags);
        r
    }

    fn run_in(&self, module: &mut Module, cx: &mut PassContext) -> Result<(), PassFailed> {
        super::run(module, &self.options, Variant::Regbase, cx)
    }
}
