//! Decimal text of a float as LLVM's `APFloat::toString` produces it, which
//! MLIR's printer uses: first 6 significant digits in scientific notation
//! (`1.000000e+00`, the last digit a zero pad), kept when it reads back to
//! the same value; otherwise the "natural" precision (`2 + p*59/196`
//! digits, here with the reference's floor-then-round digit reduction, so
//! `0.72134751 : f32` prints as written, not as `0.721347511`).

/// A finite, nonzero float as `significand * 2^exp` with its sign, and the
/// semantics' precision in bits.
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    /// Negative.
    pub negative: bool,
    /// The integer significand (with the implicit bit for normals).
    pub significand: u64,
    /// The binary exponent of the significand's last bit.
    pub exp: i32,
    /// Precision of the semantics (24 for f32, 53 for f64, ...).
    pub precision: u32,
}

/// Little-endian base-2^32 unsigned integer, just big enough for this.
#[derive(Clone, Debug)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bits(&self) -> u32 {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for d in &mut self.0 {
            let v = u64::from(*d) * u64::from(m) + carry;
            *d = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn shl(&mut self, n: u32) {
        for _ in 0..n / 32 {
            self.0.insert(0, 0);
        }
        let r = n % 32;
        if r > 0 {
            let mut carry = 0u32;
            for d in &mut self.0 {
                let nd = (*d << r) | carry;
                carry = *d >> (32 - r);
                *d = nd;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.trim();
    }

    /// Divides in place, returns the remainder.
    fn divrem_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for x in self.0.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*x);
            *x = (cur / u64::from(d)) as u32;
            rem = cur % u64::from(d);
        }
        self.trim();
        rem as u32
    }
}

/// `AdjustToPrecision(APInt&, ...)`: drops decimal digits by floor
/// division while the significand is much longer than needed.
fn adjust_int(sig: &mut Big, exp: &mut i32, format_precision: u32) {
    let bits = sig.bits();
    let required = (format_precision * 196).div_ceil(59);
    if bits <= required {
        return;
    }
    let removable = (bits - required) * 59 / 196;
    if removable == 0 {
        return;
    }
    *exp += removable as i32;
    let mut left = removable;
    while left >= 9 {
        sig.divrem_small(1_000_000_000);
        left -= 9;
    }
    if left > 0 {
        sig.divrem_small(10u32.pow(left));
    }
}

/// `AdjustToPrecision(SmallVectorImpl<char>&, ...)`: rounds (half up) the
/// least significant-first digit buffer to `format_precision` digits.
fn adjust_digits(buffer: &mut Vec<u8>, exp: &mut i32, format_precision: u32) {
    let n = buffer.len();
    let fp = format_precision as usize;
    if n <= fp {
        return;
    }
    let mut first = n - fp;
    if buffer[first - 1] < b'5' {
        while first < n && buffer[first] == b'0' {
            first += 1;
        }
        *exp += first as i32;
        buffer.drain(..first);
        return;
    }
    let start = first;
    for d in &mut buffer[start..n] {
        if *d == b'9' {
            first += 1;
        } else {
            *d += 1;
            break;
        }
    }
    if first == n {
        *exp += first as i32;
        buffer.clear();
        buffer.push(b'1');
        return;
    }
    *exp += first as i32;
    buffer.drain(..first);
}

/// `APFloat::toString(Str, FormatPrecision, FormatMaxPadding, TruncateZero)`
/// of a finite nonzero value.
pub fn to_string(p: Parts, format_precision: u32, max_padding: u32, truncate_zero: bool) -> String {
    let mut out = String::new();
    if p.negative {
        out.push('-');
    }
    let fp = if format_precision == 0 {
        2 + p.precision * 59 / 196
    } else {
        format_precision
    };
    let mut exp = p.exp;
    let mut s = p.significand;
    let tz = s.trailing_zeros().min(63);
    s >>= tz;
    exp += tz as i32;
    let mut sig = Big::from_u64(s);
    if exp > 0 {
        sig.shl(exp as u32);
        exp = 0;
    } else if exp < 0 {
        for _ in 0..(-exp) {
            sig.mul_small(5);
        }
    }
    adjust_int(&mut sig, &mut exp, fp);
    let mut buffer: Vec<u8> = Vec::new();
    let mut in_trail = true;
    while !sig.is_zero() {
        let d = sig.divrem_small(10) as u8;
        if in_trail && d == 0 {
            exp += 1;
        } else {
            buffer.push(b'0' + d);
            in_trail = false;
        }
    }
    if buffer.is_empty() {
        buffer.push(b'0');
    }
    adjust_digits(&mut buffer, &mut exp, fp);
    let nd = buffer.len();
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as u32 > max_padding || nd as u32 + exp as u32 > fp
    } else {
        let msd = exp + nd as i32 - 1;
        msd < 0 && (-msd) as u32 > max_padding
    };
    let digit = |i: usize| buffer[nd - 1 - i] as char;
    if scientific {
        let e = exp + nd as i32 - 1;
        out.push(digit(0));
        out.push('.');
        if nd == 1 && truncate_zero {
            out.push('0');
        } else {
            for i in 1..nd {
                out.push(digit(i));
            }
        }
        if !truncate_zero && fp + 1 > nd as u32 {
            for _ in 0..(fp + 1 - nd as u32) {
                out.push('0');
            }
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if e >= 0 { '+' } else { '-' });
        let ea = e.unsigned_abs();
        if !truncate_zero && ea < 10 {
            out.push('0');
        }
        out.push_str(&ea.to_string());
        return out;
    }
    if exp >= 0 {
        for i in 0..nd {
            out.push(digit(i));
        }
        for _ in 0..exp {
            out.push('0');
        }
        return out;
    }
    let whole = exp + nd as i32;
    let mut i = 0usize;
    if whole > 0 {
        while i < whole as usize {
            out.push(digit(i));
            i += 1;
        }
        out.push('.');
    } else {
        out.push_str("0.");
        for _ in 0..(-whole) {
            out.push('0');
        }
    }
    while i < nd {
        out.push(digit(i));
        i += 1;
    }
    out
}

/// The parts of an IEEE binary value given its bits, exponent width and
/// fraction width (`None` for zero, infinities and NaNs).
pub fn parts(bits: u64, exp_bits: u32, frac_bits: u32) -> Option<Parts> {
    let frac = bits & ((1u64 << frac_bits) - 1);
    let e = (bits >> frac_bits) & ((1u64 << exp_bits) - 1);
    let negative = (bits >> (frac_bits + exp_bits)) & 1 == 1;
    let bias = (1i32 << (exp_bits - 1)) - 1;
    if e == (1u64 << exp_bits) - 1 {
        return None;
    }
    let (significand, exponent) = if e == 0 {
        if frac == 0 {
            return None;
        }
        (frac, 1 - bias)
    } else {
        (frac | (1u64 << frac_bits), e as i32 - bias)
    };
    Some(Parts {
        negative,
        significand,
        exp: exponent - frac_bits as i32,
        precision: frac_bits + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_parts(v: f32) -> Parts {
        parts(u64::from(v.to_bits()), 8, 23).unwrap()
    }

    fn f64_parts(v: f64) -> Parts {
        parts(v.to_bits(), 11, 52).unwrap()
    }

    #[test]
    fn scientific_six_digits_with_a_pad() {
        assert_eq!(to_string(f32_parts(1.0), 6, 0, false), "1.000000e+00");
        // Digits beyond the precision are dropped by floor division first.
        assert_eq!(
            to_string(f32_parts(0.721_347_5), 6, 0, false),
            "7.213470e-01"
        );
        assert_eq!(to_string(f32_parts(-1.5e10), 6, 0, false), "-1.500000e+10");
    }

    #[test]
    fn natural_precision_floors_then_rounds() {
        assert_eq!(to_string(f32_parts(0.721_347_5), 0, 3, true), "0.72134751");
        assert_eq!(
            to_string(f64_parts(1.2345678912), 0, 3, true),
            "1.2345678912"
        );
        assert_eq!(to_string(f64_parts(0.1), 0, 3, true), "0.10000000000000001");
    }
}
