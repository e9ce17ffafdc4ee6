//! Attributes and attribute dictionaries.

use crate::ir::Type;

/// An attribute value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Attribute {
    /// A unit attribute (a name alone in a dictionary, `unit` elsewhere).
    Unit,
    /// `true` / `false` (an `i1` integer attribute).
    Bool(bool),
    /// `16 : i64`, `0 : index`, `-1 : i32`; a bare integer is `i64`.
    Integer {
        /// Value (sign-extended).
        value: i128,
        /// Integer or index type.
        ty: Type,
    },
    /// `1.000000e+00 : f32`; a bare float is `f64`.
    Float {
        /// Value as `f64::to_bits` (bits keep the attribute `Eq + Hash`).
        bits: u64,
        /// Float type.
        ty: Type,
    },
    /// `"text"`
    String(String),
    /// A type used as an attribute (`function_type`, `i32`, ...).
    Type(Type),
    /// `[a, b, c]`
    Array(Vec<Attribute>),
    /// `array<i32: 1, 2>` / `array<i64: ...>` / `array<i1: true>`.
    DenseArray {
        /// Element type (an integer type).
        elem: Type,
        /// Values (booleans as 0/1).
        values: Vec<i64>,
    },
    /// `{name = value, ...}`
    Dict(NamedAttrs),
    /// `@sym` or `@root::@nested`.
    SymbolRef {
        /// Root symbol name.
        root: String,
        /// Nested references.
        nested: Vec<String>,
    },
    /// A dialect attribute in pretty form, `#dialect.mnemonic<params>`, e.g.
    /// `#hivm.address_space<ub>`; `params` is the text between the angle
    /// brackets (`None` without brackets).
    Dialect {
        /// Dialect namespace (`hivm`).
        dialect: String,
        /// Attribute mnemonic (`address_space`).
        mnemonic: String,
        /// Parameter text (`ub`).
        params: Option<String>,
    },
    /// Anything else (`dense<...>`, `affine_map<...>`, `#dialect<"...">`,
    /// `<sum>`-style enum keywords), kept as its exact text.
    Opaque(String),
}

impl Attribute {
    /// `value : i64`.
    pub fn i64(value: i64) -> Attribute {
        Attribute::Integer {
            value: value.into(),
            ty: Type::i64(),
        }
    }

    /// `value : i32`.
    pub fn i32(value: i32) -> Attribute {
        Attribute::Integer {
            value: value.into(),
            ty: Type::i32(),
        }
    }

    /// `value : index`.
    pub fn index(value: i64) -> Attribute {
        Attribute::Integer {
            value: value.into(),
            ty: Type::Index,
        }
    }

    /// `array<i32: ...>`.
    pub fn dense_i32(values: impl IntoIterator<Item = i64>) -> Attribute {
        Attribute::DenseArray {
            elem: Type::i32(),
            values: values.into_iter().collect(),
        }
    }

    /// `array<i64: ...>`.
    pub fn dense_i64(values: impl IntoIterator<Item = i64>) -> Attribute {
        Attribute::DenseArray {
            elem: Type::i64(),
            values: values.into_iter().collect(),
        }
    }

    /// A float attribute of type `ty`.
    pub fn float(value: f64, ty: Type) -> Attribute {
        Attribute::Float {
            bits: value.to_bits(),
            ty,
        }
    }

    /// The value of a float attribute.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Attribute::Float { bits, .. } => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// `"text"`.
    pub fn string(s: impl Into<String>) -> Attribute {
        Attribute::String(s.into())
    }

    /// `#dialect.mnemonic<params>`.
    pub fn dialect(dialect: &str, mnemonic: &str, params: Option<&str>) -> Attribute {
        Attribute::Dialect {
            dialect: dialect.to_string(),
            mnemonic: mnemonic.to_string(),
            params: params.map(str::to_string),
        }
    }

    /// `#hivm.address_space<space>`.
    pub fn hivm_address_space(space: &str) -> Attribute {
        Attribute::dialect("hivm", "address_space", Some(space))
    }

    /// The integer value of an integer attribute (also `true`/`false`).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
            Attribute::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// The boolean value of `true`/`false` (or an integer 0/1).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Attribute::Bool(b) => Some(*b),
            Attribute::Integer { value, .. } => Some(*value != 0),
            _ => None,
        }
    }

    /// The string of a string attribute.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String(s) => Some(s),
            _ => None,
        }
    }

    /// The values of a dense array, or of an array of integers.
    pub fn as_int_array(&self) -> Option<Vec<i64>> {
        match self {
            Attribute::DenseArray { values, .. } => Some(values.clone()),
            Attribute::Array(items) => items.iter().map(Attribute::as_int).collect(),
            _ => None,
        }
    }

    /// The elements of an array attribute.
    pub fn as_array(&self) -> Option<&[Attribute]> {
        match self {
            Attribute::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The dictionary of a dictionary attribute.
    pub fn as_dict(&self) -> Option<&NamedAttrs> {
        match self {
            Attribute::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The type of a type attribute.
    pub fn as_type(&self) -> Option<&Type> {
        match self {
            Attribute::Type(t) => Some(t),
            _ => None,
        }
    }

    /// The root name of a symbol reference (`@f` gives `f`).
    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            Attribute::SymbolRef { root, .. } => Some(root),
            _ => None,
        }
    }

    /// For `#dialect.mnemonic<params>` with the given dialect and mnemonic,
    /// the parameter text (`""` when there are no brackets).
    /// `#hivm.address_space<ub>` gives `Some("ub")` for `("hivm", "address_space")`.
    pub fn dialect_params(&self, dialect: &str, mnemonic: &str) -> Option<&str> {
        match self {
            Attribute::Dialect {
                dialect: d,
                mnemonic: m,
                params,
            } if d == dialect && m == mnemonic => Some(params.as_deref().unwrap_or("")),
            _ => None,
        }
    }
}

/// An attribute dictionary, kept sorted by name like MLIR's
/// `DictionaryAttr` (so printing is canonical and deterministic).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct NamedAttrs {
    entries: Vec<(String, Attribute)>,
}

impl NamedAttrs {
    /// An empty dictionary.
    pub fn new() -> NamedAttrs {
        NamedAttrs::default()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(n, _)| n.as_str().cmp(name))
    }

    /// The attribute called `name`.
    pub fn get(&self, name: &str) -> Option<&Attribute> {
        self.position(name).ok().map(|i| &self.entries[i].1)
    }

    /// Mutable access to the attribute called `name`.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Attribute> {
        match self.position(name) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    /// Whether `name` is present.
    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_ok()
    }

    /// Sets `name` (replacing any previous value); returns the old value.
    pub fn set(&mut self, name: impl Into<String>, value: Attribute) -> Option<Attribute> {
        let name = name.into();
        match self.position(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (name, value));
                None
            }
        }
    }

    /// Removes `name`; returns its value.
    pub fn remove(&mut self, name: &str) -> Option<Attribute> {
        match self.position(name) {
            Ok(i) => Some(self.entries.remove(i).1),
            Err(_) => None,
        }
    }

    /// Entries in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Attribute)> {
        self.entries.iter().map(|(n, a)| (n.as_str(), a))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, Attribute)> for NamedAttrs {
    fn from_iter<I: IntoIterator<Item = (String, Attribute)>>(iter: I) -> Self {
        let mut d = NamedAttrs::new();
        for (n, a) in iter {
            d.set(n, a);
        }
        d
    }
}
