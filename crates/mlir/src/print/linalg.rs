//! Printing `linalg.reduce` as `ReduceOp::print` does: the short form
//! `{ arith.addf }` when the combiner is one op applied to (init, inputs)
//! whose result is yielded, else the block arguments on a new line and the
//! region.

use crate::ir::{Attribute, OpId};
use crate::print::ops::OpPrinter;

impl OpPrinter<'_> {
    pub(crate) fn print_linalg_reduce(&mut self, op: OpId) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(&r), 2) = (d.regions().first(), d.segments.len()) else {
            return false;
        };
        let Some(body) = m.region_blocks(r).first().copied() else {
            return false;
        };
        let Some(dims) = d.attr("dimensions").and_then(Attribute::as_int_array) else {
            return false;
        };
        let args = m.block_args(body).to_vec();
        let ops: Vec<OpId> = m.block_ops(body).collect();
        // The payload of the short form: operands (init, inputs...).
        let payload = match ops.as_slice() {
            [p, y] if !args.is_empty() => {
                let pd = m.op(*p);
                let mut expected = vec![args[args.len() - 1]];
                expected.extend_from_slice(&args[..args.len() - 1]);
                let yields_it = m.op(*y).is("linalg.yield") && m.op(*y).operands() == pd.results();
                (pd.operands() == expected.as_slice()
                    && pd.results().len() == 1
                    && pd.attrs.is_empty()
                    && pd.regions().is_empty()
                    && yields_it)
                    .then_some(*p)
            }
            _ => None,
        };
        self.push("linalg.reduce");
        if let Some(p) = payload {
            self.push(" { ");
            self.push(m.op(p).name());
            self.push(" }");
        }
        for (kw, seg) in [("ins", 0), ("outs", 1)] {
            let vs = d.segment(seg).to_vec();
            self.push(&format!(" {kw}("));
            self.print_values(&vs);
            if !vs.is_empty() {
                self.push(" : ");
                self.print_types_of(&vs);
            }
            self.push(")");
        }
        let list: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
        self.push(&format!(" dimensions = [{}]", list.join(", ")));
        self.print_attr_dict(op, &["dimensions"]);
        if payload.is_none() {
            self.indent_in();
            self.print_newline();
            self.push("(");
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    self.push(", ");
                }
                self.print_values(&[a]);
                self.push(": ");
                let t = m.value_type(a).clone();
                let mut s = String::new();
                crate::print::write_type(&mut s, &t);
                self.push(&s);
            }
            self.push(") ");
            self.print_region(r, false, true);
            self.indent_out();
        }
        true
    }
}
