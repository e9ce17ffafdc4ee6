//! Element types.

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
    Other(Box<str>),
}

impl DType {
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
            other => DType::Other(other.into()),
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
            DType::Other(n) => n,
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
                let n: &str = n;
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
