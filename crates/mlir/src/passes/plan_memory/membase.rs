//! `-hivm-plan-memory`: memory planning for memory-based chips
//! (`PlanMemory.cpp`). The rules are in [`super`]; this file is the pass.

use crate::ir::{Diagnostic, Module};
use crate::pass::{Pass, PassContext, PassFailed};

use super::{Options, Variant, MEMBASE_OPTIONS};

/// The pass with its options.
#[derive(Clone, Debug, Default)]
pub struct PlanMemory {
    /// Options (`Passes.td`).
    pub options: Options,
}

const NAME: &str = "hivm-plan-memory";

impl Pass for PlanMemory {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Plan the addresses of local buffers (memref.alloc -> hivm.hir.pointer_cast), memory-based chips"
    }

    fn options(&self) -> &'static [(&'static str, &'static str)] {
        MEMBASE_OPTIONS
    }

    fn set_options(&mut self, text: &str) -> Result<(), String> {
        self.options.set(NAME, Variant::Membase, text)
    }

    fn run(&self, module: &mut Module, diags: &mut Vec<Diagnostic>) -> Result<(), PassFailed> {
        let mut cx = PassContext::default();
        let r = self.run_in(module, &mut cx);
        diags.append(&mut cx.diags);
        r
    }

    fn run_in(&self, module: &mut Module, cx: &mut PassContext) -> Result<(), PassFailed> {
        super::run(module, &self.options, Variant::Membase, cx)
    }
}
