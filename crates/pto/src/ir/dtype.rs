//! Element types.

use std::fmt;
use std::ops::Deref;
use std::sync::Mutex;

/// Element type, printed `pl.<NAME>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `pl.FP32`.
    Fp32,
    /// `pl.FP16`.
    Fp16,
    /// `pl.BF16`.
    Bf16,
    /// `pl.INT8`.
    Int8,
    /// `pl.INT16`.
    Int16,
    /// `pl.INT32`.
    Int32,
    /// `pl.INT64`.
    Int64,
    /// `pl.UINT8`.
    Uint8,
    /// `pl.UINT16`.
    Uint16,
    /// `pl.UINT32`.
    Uint32,
    /// `pl.UINT64`.
    Uint64,
    /// `pl.BOOL`.
    Bool,
    /// `pl.INDEX` (host index type, 64-bit).
    Index,
    /// Any other `pl.<NAME>` (FP8/INT4-style types among them); kept verbatim.
    Other(DTypeName),
}

/// The name of a dtype outside the known set, interned process-wide: 4
/// bytes, so a [`DType`] is 8 and `pl.const(N, pl.DTYPE)` fits the 24
/// bytes of an expression. Reads as a `&str`. Distinct names are few
/// (each spelling is stored once, for the life of the process).
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct DTypeName(u32);

/// Every name a [`DTypeName`] was made from, by id.
static DTYPE_NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

impl DTypeName {
    /// The id of `name` (interned on first use).
    pub fn new(name: &str) -> DTypeName {
        let mut names = DTYPE_NAMES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = names.iter().position(|&n| n == name) {
            return DTypeName(i as u32);
        }
        names.push(Box::leak(name.into()));
        DTypeName(u32::try_from(names.len() - 1).expect("fewer than 2^32 dtype names"))
    }

    /// The name as written.
    pub fn as_str(self) -> &'static str {
        DTYPE_NAMES.lock().unwrap_or_else(|e| e.into_inner())[self.0 as usize]
    }
}

impl Deref for DTypeName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for DTypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The dtypes of PyPTO's language, by name without the `pl.` prefix: the
/// `DataType` constants of PyPTO's `core_dtype.h` (FP64's code is reserved
/// there, with no constant and no printed name). The reader rejects any
/// other name where a dtype is expected.
pub const PYPTO_DTYPES: &[&str] = &[
    "BOOL",
    "INT4",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "INDEX",
    "UINT4",
    "UINT8",
    "UINT16",
    "UINT32",
    "UINT64",
    "FP4",
    "FP8E4M3FN",
    "FP8E5M2",
    "FP8E8M0",
    "FP16",
    "FP32",
    "BF16",
    "HF4",
    "HF8",
    "TASK_ID",
];

impl DType {
    /// Whether `name` (without the `pl.` prefix) is one of [`PYPTO_DTYPES`].
    pub fn is_pypto_name(name: &str) -> bool {
        PYPTO_DTYPES.contains(&name)
    }

    /// Reads a dtype from its name without the `pl.` prefix (`"FP32"`).
    pub fn from_name(name: &str) -> DType {
        match name {
            "FP32" => DType::Fp32,
            "FP16" => DType::Fp16,
            "BF16" => DType::Bf16,
            "INT8" => DType::Int8,
            "INT16" => DType::Int16,
            "INT32" => DType::Int32,
            "INT64" => DType::Int64,
            "UINT8" => DType::Uint8,
            "UINT16" => DType::Uint16,
            "UINT32" => DType::Uint32,
            "UINT64" => DType::Uint64,
            "BOOL" => DType::Bool,
            "INDEX" => DType::Index,
            other => DType::Other(DTypeName::new(other)),
        }
    }

    /// The name without the `pl.` prefix.
    pub fn name(&self) -> &str {
        match self {
            DType::Fp32 => "FP32",
            DType::Fp16 => "FP16",
            DType::Bf16 => "BF16",
            DType::Int8 => "INT8",
            DType::Int16 => "INT16",
            DType::Int32 => "INT32",
            DType::Int64 => "INT64",
            DType::Uint8 => "UINT8",
            DType::Uint16 => "UINT16",
            DType::Uint32 => "UINT32",
            DType::Uint64 => "UINT64",
            DType::Bool => "BOOL",
            DType::Index => "INDEX",
            DType::Other(n) => n.as_str(),
        }
    }

    /// Storage bits of one element, when known. 4-bit types (names containing
    /// `4` after the kind, e.g. `INT4`, `FP4...`) pack two per byte; 8-bit
    /// float formats (`FP8...`, `HF8`) take one byte.
    pub fn bits(&self) -> Option<u32> {
        Some(match self {
            DType::Fp32 | DType::Int32 | DType::Uint32 => 32,
            DType::Fp16 | DType::Bf16 | DType::Int16 | DType::Uint16 => 16,
            DType::Int8 | DType::Uint8 | DType::Bool => 8,
            DType::Int64 | DType::Uint64 | DType::Index => 64,
            DType::Other(n) => {
                let n = n.as_str();
                if n.starts_with("FP8") || n.starts_with("HF8") || n.starts_with("FLOAT8") {
                    8
                } else if n.starts_with("INT4")
                    || n.starts_with("UINT4")
                    || n.starts_with("FP4")
                    || n.starts_with("HF4")
                {
                    4
                } else {
                    return None;
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_dtypes_keep_their_spelling_in_eight_bytes() {
        let a = DType::from_name("FP8E4M3");
        let b = DType::from_name("FP8E4M3");
        assert_eq!(a, b);
        assert_eq!(a.name(), "FP8E4M3");
        assert_eq!(a.bits(), Some(8));
        assert_ne!(a, DType::from_name("HF4"));
        assert_eq!(DType::from_name("HF4").bits(), Some(4));
        assert_eq!(format!("{a:?}"), "Other(\"FP8E4M3\")");
        assert_eq!(std::mem::size_of::<DType>(), 8);
    }
}
