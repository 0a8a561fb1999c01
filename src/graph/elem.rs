//! [`ElemType`]: an ONNX element type by its code, with its name and width; what the
//! whole-graph walk's facts carry and what a `Cast`'s `to` names.

use std::fmt;

/// An ONNX element type (`TensorProto.DataType`), by its code: `ElemType::FLOAT` is 1,
/// `ElemType::INT64` is 7. Any code is accepted (a newer type than the crate knows is shown
/// as `type 42`).
///
/// ```
/// use ndarray_reshape::ElemType;
///
/// assert_eq!(ElemType::from_code(7), ElemType::INT64);
/// assert_eq!(ElemType::INT64.name(), "int64");
/// assert!(ElemType::INT32.is_integer());
/// assert!(!ElemType::FLOAT16.is_integer());
/// assert_eq!(ElemType::from_code(42).to_string(), "type 42");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ElemType(i32);

impl ElemType {
    /// `float32` (1).
    pub const FLOAT: ElemType = ElemType(1);
    /// `uint8` (2).
    pub const UINT8: ElemType = ElemType(2);
    /// `int8` (3).
    pub const INT8: ElemType = ElemType(3);
    /// `uint16` (4).
    pub const UINT16: ElemType = ElemType(4);
    /// `int16` (5).
    pub const INT16: ElemType = ElemType(5);
    /// `int32` (6).
    pub const INT32: ElemType = ElemType(6);
    /// `int64` (7).
    pub const INT64: ElemType = ElemType(7);
    /// `string` (8).
    pub const STRING: ElemType = ElemType(8);
    /// `bool` (9).
    pub const BOOL: ElemType = ElemType(9);
    /// `float16` (10).
    pub const FLOAT16: ElemType = ElemType(10);
    /// `float64` (11).
    pub const DOUBLE: ElemType = ElemType(11);
    /// `uint32` (12).
    pub const UINT32: ElemType = ElemType(12);
    /// `uint64` (13).
    pub const UINT64: ElemType = ElemType(13);
    /// `bfloat16` (16).
    pub const BFLOAT16: ElemType = ElemType(16);

    /// The type of ONNX code `code`.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::ElemType::from_code(1), ndarray_reshape::ElemType::FLOAT);
    /// ```
    pub fn from_code(code: i32) -> ElemType {
        ElemType(code)
    }

    /// The type's ONNX code.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::ElemType::BOOL.code(), 9);
    /// ```
    pub fn code(self) -> i32 {
        self.0
    }

    /// The type of a NumPy-style name (`"float32"`, `"int64"`, `"bool"`), as graph records
    /// and [`ShapeValue::cast`](super::ShapeValue::cast) write them; `None` for another name.
    ///
    /// ```
    /// use ndarray_reshape::ElemType;
    /// assert_eq!(ElemType::from_name("int32"), Some(ElemType::INT32));
    /// assert_eq!(ElemType::from_name("float"), Some(ElemType::FLOAT));
    /// assert_eq!(ElemType::from_name("tensor"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ElemType> {
        let name = match name {
            "float" => "float32",
            "double" => "float64",
            "half" => "float16",
            n => n,
        };
        (1..=25)
            .map(ElemType)
            .find(|t| t.known_name() == Some(name))
    }

    fn known_name(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "float32",
            2 => "uint8",
            3 => "int8",
            4 => "uint16",
            5 => "int16",
            6 => "int32",
            7 => "int64",
            8 => "string",
            9 => "bool",
            10 => "float16",
            11 => "float64",
            12 => "uint32",
            13 => "uint64",
            14 => "complex64",
            15 => "complex128",
            16 => "bfloat16",
            17 => "float8e4m3fn",
            18 => "float8e4m3fnuz",
            19 => "float8e5m2",
            20 => "float8e5m2fnuz",
            21 => "uint4",
            22 => "int4",
            23 => "float4e2m1",
            24 => "float8e8m0",
            25 => "uint2",
            _ => return None,
        })
    }

    /// The type's name (`"float32"`, `"int64"`); `"?"` for a code the crate does not know.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::ElemType::FLOAT.name(), "float32");
    /// ```
    pub fn name(self) -> &'static str {
        self.known_name().unwrap_or("?")
    }

    /// The width of one element in bits (`string` has none); `None` for a code the crate
    /// does not know.
    ///
    /// ```
    /// use ndarray_reshape::ElemType;
    /// assert_eq!(ElemType::FLOAT16.bits(), Some(16));
    /// assert_eq!(ElemType::from_code(22).bits(), Some(4)); // int4
    /// assert_eq!(ElemType::STRING.bits(), None);
    /// ```
    pub fn bits(self) -> Option<u32> {
        Some(match self.0 {
            9 | 2 | 3 | 17..=20 | 24 => 8,
            4 | 5 | 10 | 16 => 16,
            1 | 6 | 12 => 32,
            7 | 11 | 13 | 14 => 64,
            15 => 128,
            21..=23 => 4,
            25 => 2,
            _ => return None,
        })
    }

    /// An integer type (`bool` included): one whose small tensors a walk follows as
    /// [`ShapeValue`](super::ShapeValue)s.
    ///
    /// ```
    /// assert!(ndarray_reshape::ElemType::BOOL.is_integer());
    /// ```
    pub fn is_integer(self) -> bool {
        matches!(self.0, 2..=7 | 9 | 12 | 13 | 21 | 22 | 25)
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.known_name() {
            Some(n) => f.write_str(n),
            None => write!(f, "type {}", self.0),
        }
    }
}
