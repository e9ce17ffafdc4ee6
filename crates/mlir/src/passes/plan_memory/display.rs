//! `enable-memory-display` (memory-based pass): the plan of each function
//! as JSON in `./memory_info.json` (`memory_info_aic.json` /
//! `memory_info_aiv.json` for cube / vector functions), as the reference's
//! `MemoryDisplay.cpp` writes it: per memory space its status and, per
//! storage entry, the buffer, byte offsets, extent (bits), lifetime in op
//! numbers, source location and whether it is a temporary buffer. Keys are
//! sorted and indented by two, as `llvm::json` prints them.

use crate::ir::{Module, OpId};

use super::op_facts::{extra_buffers, func_core_type};
use super::storage::align_up;
use super::MemPlan;

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

/// The temporary buffers (allocations) of `func`.
fn temp_buffers(m: &Module, func: OpId) -> Vec<crate::ir::ValueId> {
    let mut out = Vec::new();
    for op in m.walk(func) {
        for v in extra_buffers(m, op).unwrap_or_default() {
            if let Some(a) = crate::analysis::views::traceback_to_alloc_value(m, v) {
                out.push(a);
            }
        }
    }
    out
}

impl MemPlan<'_> {
    /// The JSON text and the file name (`createJsonForMemoryDisplay`).
    pub fn display_json(&self, error: Option<&str>) -> (String, String) {
        let m = self.m;
        let temps = temp_buffers(m, self.func);
        let mut records = Vec::new();
        for (scope, root) in &self.roots {
            let mut entries = vec![*root];
            entries.extend(self.se[*root].children.iter().copied());
            let mut infos = Vec::new();
            for e in entries {
                for &b in &self.se[e].inplace {
                    let Some(info) = self.lt.info(b) else {
                        continue;
                    };
                    if !m.op(info.op).is("memref.alloc") {
                        continue;
                    }
                    let life = self.se[e].lifes.first().copied();
                    let (a, f) = life.map_or((-1, -1), |l| (l.alloc, l.free));
                    let offsets: Vec<u64> = self.offsets.get(&b).cloned().unwrap_or_default();
                    let loc = m.op(info.op).loc;
                    let mut s = String::new();
                    s.push_str(&format!("{}{{\n", pad(8)));
                    s.push_str(&format!("{}\"alloc_time_in_ir\": {a},\n", pad(10)));
                    s.push_str(&format!(
                        "{}\"buffer\": {},\n",
                        pad(10),
                        quote(&crate::print::print_op(m, info.op))
                    ));
                    s.push_str(&format!(
                        "{}\"extent\": {},\n",
                        pad(10),
                        align_up(info.const_bits.max(0) as u64, 8)
                    ));
                    s.push_str(&format!(
                        "{}\"is_tmpbuf\": {},\n",
                        pad(10),
                        temps.contains(&b)
                    ));
                    s.push_str(&format!(
                        "{}\"life_time_in_ir\": [\n{}{a},\n{}{f}\n{}],\n",
                        pad(10),
                        pad(12),
                        pad(12),
                        pad(10)
                    ));
                    if offsets.is_empty() {
                        s.push_str(&format!("{}\"offset\": [],\n", pad(10)));
                    } else {
                        let o: Vec<String> =
                            offsets.iter().map(|x| format!("{}{x}", pad(12))).collect();
                        s.push_str(&format!(
                            "{}\"offset\": [\n{}\n{}],\n",
                            pad(10),
                            o.join(",\n"),
                            pad(10)
                        ));
                    }
                    s.push_str(&format!(
                        "{}\"source_location\": {}\n",
                        pad(10),
                        quote(&format!("loc({}:{})", loc.line, loc.col))
                    ));
                    s.push_str(&format!("{}}}", pad(8)));
                    infos.push(s);
                }
            }
            let status = if error.is_some() { "fail" } else { "success" };
            let mut r = String::new();
            r.push_str(&format!("{}{{\n", pad(4)));
            r.push_str(&format!(
                "{}\"error_info\": {},\n",
                pad(6),
                quote(error.unwrap_or(""))
            ));
            if infos.is_empty() {
                r.push_str(&format!("{}\"memory_info_array\": [],\n", pad(6)));
            } else {
                r.push_str(&format!(
                    "{}\"memory_info_array\": [\n{}\n{}],\n",
                    pad(6),
                    infos.join(",\n"),
                    pad(6)
                ));
            }
            r.push_str(&format!("{}\"scope\": {},\n", pad(6), quote(scope)));
            r.push_str(&format!("{}\"status\": {}\n", pad(6), quote(status)));
            r.push_str(&format!("{}}}", pad(4)));
            records.push(r);
        }
        let name = m.func_name(self.func).unwrap_or("");
        let mut s = String::from("{\n");
        s.push_str(&format!(
            "{}\"Header\": {{\n{}\"KernelName\": {}\n{}}},\n",
            pad(2),
            pad(4),
            quote(name),
            pad(2)
        ));
        if records.is_empty() {
            s.push_str(&format!("{}\"Record\": []\n", pad(2)));
        } else {
            s.push_str(&format!(
                "{}\"Record\": [\n{}\n{}]\n",
                pad(2),
                records.join(",\n"),
                pad(2)
            ));
        }
        s.push('}');
        let file = match func_core_type(m, self.func).as_deref() {
            Some("AIC") => "./memory_info_aic.json",
            Some("AIV") => "./memory_info_aiv.json",
            _ => "./memory_info.json",
        };
        (s, file.to_string())
    }
}
