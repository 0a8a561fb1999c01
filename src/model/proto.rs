//! The messages of ONNX's `onnx.proto` (IR version 10) that a graph's shapes read, as `prost`
//! types written out by hand from the schema (no `protoc` at build time): field numbers and
//! packing as `onnx.proto` declares them. Fields a walk never reads (docs, metadata, training
//! info, functions) are left out of the decoded view; [`with_value_info`] writes a model back
//! byte for byte but for the graph's `value_info`, so nothing the view leaves out is lost.

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub(crate) struct ModelProto {
    #[prost(int64, tag = "1")]
    pub(crate) ir_version: i64,
    #[prost(message, repeated, tag = "8")]
    pub(crate) opset_import: Vec<OperatorSetIdProto>,
    #[prost(string, tag = "2")]
    pub(crate) producer_name: String,
    #[prost(message, optional, tag = "7")]
    pub(crate) graph: Option<GraphProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct OperatorSetIdProto {
    #[prost(string, tag = "1")]
    pub(crate) domain: String,
    #[prost(int64, tag = "2")]
    pub(crate) version: i64,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    pub(crate) node: Vec<NodeProto>,
    #[prost(string, tag = "2")]
    pub(crate) name: String,
    #[prost(message, repeated, tag = "5")]
    pub(crate) initializer: Vec<TensorProto>,
    #[prost(message, repeated, tag = "11")]
    pub(crate) input: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "12")]
    pub(crate) output: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "13")]
    pub(crate) value_info: Vec<ValueInfoProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    pub(crate) input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub(crate) output: Vec<String>,
    #[prost(string, tag = "3")]
    pub(crate) name: String,
    #[prost(string, tag = "4")]
    pub(crate) op_type: String,
    #[prost(string, tag = "7")]
    pub(crate) domain: String,
    #[prost(message, repeated, tag = "5")]
    pub(crate) attribute: Vec<AttributeProto>,
}

/// `AttributeProto.AttributeType`.
pub(crate) mod attr_type {
    pub(crate) const FLOAT: i32 = 1;
    pub(crate) const INT: i32 = 2;
    pub(crate) const STRING: i32 = 3;
    pub(crate) const TENSOR: i32 = 4;
    pub(crate) const GRAPH: i32 = 5;
    pub(crate) const FLOATS: i32 = 6;
    pub(crate) const INTS: i32 = 7;
    pub(crate) const STRINGS: i32 = 8;
    pub(crate) const GRAPHS: i32 = 10;
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct AttributeProto {
    #[prost(string, tag = "1")]
    pub(crate) name: String,
    #[prost(int32, tag = "20")]
    pub(crate) r#type: i32,
    #[prost(float, tag = "2")]
    pub(crate) f: f32,
    #[prost(int64, tag = "3")]
    pub(crate) i: i64,
    #[prost(bytes = "vec", tag = "4")]
    pub(crate) s: Vec<u8>,
    #[prost(message, optional, tag = "5")]
    pub(crate) t: Option<TensorProto>,
    #[prost(message, optional, boxed, tag = "6")]
    pub(crate) g: Option<Box<GraphProto>>,
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub(crate) floats: Vec<f32>,
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub(crate) ints: Vec<i64>,
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub(crate) strings: Vec<Vec<u8>>,
    #[prost(message, repeated, tag = "11")]
    pub(crate) graphs: Vec<GraphProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct ValueInfoProto {
    #[prost(string, tag = "1")]
    pub(crate) name: String,
    #[prost(message, optional, tag = "2")]
    pub(crate) r#type: Option<TypeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct TypeProto {
    #[prost(message, optional, tag = "1")]
    pub(crate) tensor_type: Option<TensorType>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct TensorType {
    #[prost(int32, tag = "1")]
    pub(crate) elem_type: i32,
    #[prost(message, optional, tag = "2")]
    pub(crate) shape: Option<TensorShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct TensorShapeProto {
    #[prost(message, repeated, tag = "1")]
    pub(crate) dim: Vec<Dimension>,
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct Dimension {
    #[prost(oneof = "DimValue", tags = "1, 2")]
    pub(crate) value: Option<DimValue>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub(crate) enum DimValue {
    #[prost(int64, tag = "1")]
    DimValue(i64),
    #[prost(string, tag = "2")]
    DimParam(String),
}

#[derive(Clone, PartialEq, Message)]
pub(crate) struct TensorProto {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub(crate) dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    pub(crate) data_type: i32,
    #[prost(float, repeated, tag = "4")]
    pub(crate) float_data: Vec<f32>,
    #[prost(int32, repeated, tag = "5")]
    pub(crate) int32_data: Vec<i32>,
    #[prost(int64, repeated, tag = "7")]
    pub(crate) int64_data: Vec<i64>,
    #[prost(string, tag = "8")]
    pub(crate) name: String,
    #[prost(bytes = "vec", tag = "9")]
    pub(crate) raw_data: Vec<u8>,
    #[prost(double, repeated, tag = "10")]
    pub(crate) double_data: Vec<f64>,
    #[prost(uint64, repeated, tag = "11")]
    pub(crate) uint64_data: Vec<u64>,
}

/// The model `bytes` with its graph's `value_info` replaced by `infos`: every other field of
/// the model and of the graph kept as it was, in order.
pub(crate) fn with_value_info(bytes: &[u8], infos: &[ValueInfoProto]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() + 64 * infos.len());
    let mut found = false;
    for (tag, field) in fields(bytes)? {
        if tag == 7 << 3 | 2 && !found {
            found = true;
            let graph = field_payload(field)?;
            let mut g = Vec::with_capacity(graph.len());
            for (gtag, gfield) in fields(graph)? {
                if gtag != (13 << 3 | 2) {
                    g.extend_from_slice(gfield);
                }
            }
            for info in infos {
                prost::encoding::message::encode(13, info, &mut g);
            }
            prost::encoding::encode_key(7, prost::encoding::WireType::LengthDelimited, &mut out);
            prost::encoding::encode_varint(g.len() as u64, &mut out);
            out.extend_from_slice(&g);
        } else {
            out.extend_from_slice(field);
        }
    }
    found.then_some(out)
}

/// The top-level fields of a message: each field's key and its whole encoding (key included).
fn fields(mut b: &[u8]) -> Option<Vec<(u64, &[u8])>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let start = b;
        let key = varint(&mut b)?;
        let len = match key & 7 {
            0 => {
                varint(&mut b)?;
                0
            }
            1 => 8,
            2 => usize::try_from(varint(&mut b)?).ok()?,
            5 => 4,
            _ => return None,
        };
        b = b.get(len..)?;
        let used = start.len() - b.len();
        out.push((key, &start[..used]));
    }
    Some(out)
}

/// The payload of a length-delimited field's encoding.
fn field_payload(mut f: &[u8]) -> Option<&[u8]> {
    varint(&mut f)?;
    let len = usize::try_from(varint(&mut f)?).ok()?;
    f.get(..len)
}

fn varint(b: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}
