//! Random shape programs over random symbolic shapes, for the no-panic sweep and the
//! `shape_values` fuzz target: each step is a [`ShapeValue`] operation, evaluated symbolically
//! and, under several bindings of the symbols, on plain numbers by a slow reference written
//! from the ONNX and Paddle operator definitions. [`check`] asserts that nothing panics, that a
//! symbolic value that evaluates under a binding equals the reference's value, that the
//! structural errors (index, rank, length, step) agree, and that the last value, as an ONNX,
//! Paddle or NumPy spec, infers symbolically what the concrete spec infers.

use ndarray_reshape::{
    Np, Onnx, OpAttr, Order, Paddle, ReshapeError, ShapeSpec, ShapeValue, SymDim,
};

/// The symbols of the random shapes.
pub const SYMBOLS: [&str; 2] = ["B", "T"];

/// Sizes at the edges of the graphs' integer types, for the bindings.
const EDGES: [usize; 8] = [
    (1 << 15) - 1,
    1 << 15,
    (1 << 31) - 1,
    1 << 31,
    1 << 32,
    3_037_000_500, // about the square root of 2^63
    1 << 62,
    (1 << 63) - 1,
];

/// One step; operands are indices of earlier results.
#[derive(Debug, Clone)]
pub enum Step {
    ShapeOf(usize),
    Scalar(i64),
    Vector(Vec<i64>),
    Gather(usize, usize),
    Slice(usize, i64, i64, i64),
    Concat(Vec<usize>),
    Stack(Vec<usize>),
    Unsqueeze(usize, i64),
    Squeeze(usize, i64),
    /// An element-wise operation, called as a method (`via` 0), through the ONNX table (1) or
    /// the Paddle table (2) where the table has it.
    Bin(Bin, usize, usize, u8),
    Un(Un, usize, u8),
    Select(usize, usize, usize),
}

/// The element-wise operations on two values.
#[derive(Debug, Clone, Copy)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    FloorMod,
    TruncMod,
    Min,
    Max,
    Equal,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    NotEqual,
    And,
    Or,
    Xor,
}

const BINS: [Bin; 18] = [
    Bin::Add,
    Bin::Sub,
    Bin::Mul,
    Bin::Div,
    Bin::FloorDiv,
    Bin::FloorMod,
    Bin::TruncMod,
    Bin::Min,
    Bin::Max,
    Bin::Equal,
    Bin::Less,
    Bin::Greater,
    Bin::LessEqual,
    Bin::GreaterEqual,
    Bin::NotEqual,
    Bin::And,
    Bin::Or,
    Bin::Xor,
];

/// The operations on one value: a cast to `CASTS[i]`, Paddle's `scale` by integers.
#[derive(Debug, Clone, Copy)]
pub enum Un {
    Neg,
    Abs,
    Not,
    Cast(usize),
    ReduceProd,
    Scale(i64, i64, bool),
}

const CASTS: [&str; 8] = [
    "int64", "int32", "int16", "int8", "uint8", "uint32", "uint64", "bool",
];

/// A program: symbolic input shapes (each dim a coefficient and powers of `B` and `T`), its
/// steps, the dialect its last value is a spec of (0 ONNX, 1 Paddle, 2 NumPy), the index of the
/// input it reshapes, and the bindings to check.
#[derive(Debug, Clone)]
pub struct Program {
    pub inputs: Vec<Vec<(usize, u8, u8)>>,
    pub steps: Vec<Step>,
    pub dialect: u8,
    pub data: usize,
    pub bindings: Vec<[usize; 2]>,
}

/// A random program from `pick(n)`, a choice in `0..n`.
pub fn generate(pick: &mut dyn FnMut(u64) -> u64) -> Program {
    let mut p = |n: u64| pick(n.max(1)) % n.max(1);
    let inputs: Vec<Vec<(usize, u8, u8)>> = (0..1 + p(3))
        .map(|_| {
            (0..p(5))
                .map(|_| match p(6) {
                    0 => (p(9) as usize, 0, 0),
                    1 => (1, 1, 0),
                    2 => (1, 0, 1),
                    3 => (1 + p(4) as usize, 1, 0),
                    4 => (1, 1, 1),
                    _ => (
                        [1, 2, 3, 4, 7, 8, 64][p(7) as usize],
                        p(2) as u8,
                        p(2) as u8,
                    ),
                })
                .collect()
        })
        .collect();
    let mut steps = vec![Step::ShapeOf(0)];
    let n = 2 + p(10) as usize;
    let int = |p: &mut dyn FnMut(u64) -> u64| match p(12) {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => -(p(4) as i64) - 1,
        _ => p(9) as i64,
    };
    for _ in 0..n {
        let k = steps.len() as u64;
        let mut r = || p(k) as usize;
        let (a, b, c) = (r(), r(), r());
        let step = match p(22) {
            0 => Step::ShapeOf(p(inputs.len() as u64) as usize),
            1 => Step::Scalar(int(&mut p)),
            2 => Step::Vector((0..p(4)).map(|_| int(&mut p)).collect()),
            3 | 4 => Step::Gather(a, b),
            5 => Step::Slice(
                a,
                int(&mut p).saturating_sub(2),
                int(&mut p),
                [1, 1, 2, -1, -2, 0][p(6) as usize],
            ),
            6 => Step::Concat((0..p(4)).map(|_| p(k) as usize).collect()),
            7 => Step::Stack((0..p(4)).map(|_| p(k) as usize).collect()),
            8 => Step::Unsqueeze(a, p(3) as i64 - 1),
            9 => Step::Squeeze(a, p(3) as i64 - 1),
            10..=17 => Step::Bin(BINS[p(BINS.len() as u64) as usize], a, b, p(3) as u8),
            18 | 19 => Step::Un(
                match p(6) {
                    0 => Un::Neg,
                    1 => Un::Abs,
                    2 => Un::Not,
                    3 => Un::Cast(p(8) as usize),
                    4 => Un::ReduceProd,
                    // Paddle's scale is a float attribute: integers it holds exactly.
                    _ => Un::Scale(
                        int(&mut p).clamp(-(1 << 53), 1 << 53),
                        p(3) as i64 - 1,
                        p(2) == 0,
                    ),
                },
                a,
                p(3) as u8,
            ),
            20 => Step::Select(a, b, c),
            _ => Step::Concat(vec![a, b]),
        };
        steps.push(step);
    }
    // Small sizes, and sizes at the edges of int32 and int64.
    let mut size = || match p(4) {
        0 => EDGES[p(EDGES.len() as u64) as usize],
        _ => 1 + p(9) as usize,
    };
    let bindings = (0..3).map(|_| [size(), size()]).collect();
    Program {
        dialect: p(3) as u8,
        data: p(inputs.len() as u64) as usize,
        inputs,
        steps,
        bindings,
    }
}

fn sym_dim(&(c, b, t): &(usize, u8, u8)) -> SymDim {
    let mut d = SymDim::from(c);
    for _ in 0..b {
        d = d * SymDim::sym(SYMBOLS[0]);
    }
    for _ in 0..t {
        d = d * SymDim::sym(SYMBOLS[1]);
    }
    d
}

/// The dim under `v`; `None` past `isize::MAX`.
fn dim(&(c, b, t): &(usize, u8, u8), v: [usize; 2]) -> Option<usize> {
    let mut d = c as u128;
    for _ in 0..b {
        d = d.checked_mul(v[0] as u128)?;
    }
    for _ in 0..t {
        d = d.checked_mul(v[1] as u128)?;
    }
    usize::try_from(d)
        .ok()
        .filter(|&d| d <= isize::MAX as usize)
}

/// The shape of an input under `v`; `None` where no tensor has it (a dim, or the product of
/// the non-zero dims, past `isize::MAX`).
fn shape(dims: &[(usize, u8, u8)], v: [usize; 2]) -> Option<Vec<usize>> {
    let shape: Option<Vec<usize>> = dims.iter().map(|d| dim(d, v)).collect();
    let shape = shape?;
    let mut size = 1usize;
    for &d in shape.iter().filter(|&&d| d != 0) {
        size = size.checked_mul(d).filter(|&s| s <= isize::MAX as usize)?;
    }
    Some(shape)
}

/// The integer type the graph computes a value in (the crate's `ShapeValue::dtype`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ty {
    /// A constant of the program, which takes the type of the value it meets.
    Literal,
    Bool,
    Int(u32, bool),
}

const INT64: Ty = Ty::Int(64, true);

impl Ty {
    /// The values of the type held in `i64`.
    fn range(self) -> (i128, i128) {
        match self {
            Ty::Bool => (0, 1),
            Ty::Literal => Ty::range(INT64),
            Ty::Int(b, true) => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
            Ty::Int(b, false) => (0, ((1i128 << b) - 1).min(i64::MAX.into())),
        }
    }

    fn holds(self, o: Ty) -> bool {
        let ((a, b), (c, d)) = (self.range(), o.range());
        a <= c && d <= b
    }

    /// `x` as the graph holds it: its low bits read in the type.
    fn wrap(self, x: i128) -> i128 {
        match self {
            Ty::Bool => i128::from(x != 0),
            Ty::Literal => Ty::wrap(INT64, x),
            Ty::Int(b, signed) => {
                let m = x.rem_euclid(1i128 << b);
                match signed && m >= 1i128 << (b - 1) {
                    true => m - (1i128 << b),
                    false => m,
                }
            }
        }
    }
}

/// The type an operation on `values` computes in: the integer types promote to the one that
/// holds both (`int64` if neither does), `bool` takes part as an integer, a constant takes the
/// others' type where its numbers fit it.
fn joined(values: &[&Num]) -> Ty {
    let typed = values
        .iter()
        .map(|v| v.ty)
        .filter(|&t| t != Ty::Literal && t != Ty::Bool);
    let ty = match typed.reduce(|a, b| match (a.holds(b), b.holds(a)) {
        (true, _) => a,
        (_, true) => b,
        _ => INT64,
    }) {
        Some(t) => t,
        None if values.iter().all(|v| v.ty == Ty::Literal) => return Ty::Literal,
        None => INT64,
    };
    let (lo, hi) = ty.range();
    let fits = values
        .iter()
        .filter(|v| v.ty == Ty::Literal)
        .all(|v| v.v.iter().all(|&x| (lo..=hi).contains(&i128::from(x))));
    match fits {
        true => ty,
        false => INT64,
    }
}

/// A value of the reference: rank 0 or 1, its entries as the graph holds them (wrapped into
/// its type), whether the graph failed on the way to it (a division by zero, `MIN / -1`) and
/// whether an intermediate on the way wrapped.
#[derive(Debug, Clone, PartialEq)]
struct Num {
    scalar: bool,
    v: Vec<i64>,
    ty: Ty,
    failed: bool,
    wrapped: bool,
}

/// The reference's structural failures, by the rule's category name.
type NumResult = Result<Num, &'static str>;

fn num(scalar: bool, v: Vec<i64>, ty: Ty) -> Num {
    Num {
        scalar,
        v,
        ty,
        failed: false,
        wrapped: false,
    }
}

/// `out` computed from `from`: it inherits their failures and wraps.
fn derived(mut out: Num, from: &[&Num]) -> Num {
    out.failed |= from.iter().any(|n| n.failed);
    out.wrapped |= from.iter().any(|n| n.wrapped);
    out
}

/// An exact result `x` stored in `out`'s type: wrapped as the graph wraps it.
fn store(out: &mut Num, x: i128) {
    let w = out.ty.wrap(x);
    out.wrapped |= w != x;
    out.v.push(w as i64);
}

/// The ONNX / Paddle definitions on numbers, entry by entry, as the graph computes them.
fn reference(step: &Step, regs: &[NumResult], shapes: &[Vec<usize>]) -> Option<NumResult> {
    let get = |i: usize| regs[i].clone().ok();
    Some(match step {
        Step::ShapeOf(i) => Ok(num(
            false,
            shapes[*i].iter().map(|&d| d as i64).collect(),
            INT64,
        )),
        Step::Scalar(x) => Ok(num(true, vec![*x], Ty::Literal)),
        Step::Vector(v) => Ok(num(false, v.clone(), Ty::Literal)),
        Step::Gather(a, b) => {
            let (data, idx) = (get(*a)?, get(*b)?);
            if data.scalar {
                return Some(Err("value_rank"));
            }
            let n = data.v.len() as i128;
            let mut out = Vec::new();
            for &i in &idx.v {
                let j = if i < 0 { i as i128 + n } else { i as i128 };
                if j < 0 || j >= n {
                    return Some(Err("index_out_of_range"));
                }
                out.push(data.v[j as usize]);
            }
            Ok(derived(num(idx.scalar, out, data.ty), &[&data, &idx]))
        }
        Step::Slice(a, start, end, step) => {
            let data = get(*a)?;
            if data.scalar {
                return Some(Err("value_rank"));
            }
            if *step == 0 {
                return Some(Err("zero_step"));
            }
            // ONNX Slice: negative bounds count from the end, then clamp.
            let n = data.v.len() as i128;
            let (mut s, mut e) = (*start as i128, *end as i128);
            if s < 0 {
                s += n;
            }
            if e < 0 {
                e += n;
            }
            let mut out = Vec::new();
            if *step > 0 {
                s = s.clamp(0, n);
                e = e.clamp(0, n);
                while s < e {
                    out.push(data.v[s as usize]);
                    s += *step as i128;
                }
            } else if n > 0 {
                s = s.clamp(0, n - 1);
                e = e.clamp(-1, n - 1);
                while s > e {
                    out.push(data.v[s as usize]);
                    s += *step as i128;
                }
            }
            // What the dropped entries failed on, the slice fails on: the graph computed them.
            Ok(derived(num(false, out, data.ty), &[&data]))
        }
        Step::Concat(parts) | Step::Stack(parts) => {
            let stack = matches!(step, Step::Stack(_));
            let mut vals = Vec::new();
            for &i in parts {
                let x = get(i)?;
                if x.scalar != stack {
                    return Some(Err("value_rank"));
                }
                vals.push(x);
            }
            let all: Vec<&Num> = vals.iter().collect();
            let v = vals.iter().flat_map(|x| x.v.iter().copied()).collect();
            Ok(derived(num(false, v, joined(&all)), &all))
        }
        Step::Unsqueeze(a, axis) => {
            let x = get(*a)?;
            if !x.scalar {
                return Some(Err("value_rank"));
            }
            if *axis != 0 && *axis != -1 {
                return Some(Err("index_out_of_range"));
            }
            Ok(Num { scalar: false, ..x })
        }
        Step::Squeeze(a, axis) => {
            let x = get(*a)?;
            if x.scalar {
                return Some(Err("value_rank"));
            }
            if *axis != 0 && *axis != -1 {
                return Some(Err("index_out_of_range"));
            }
            if x.v.len() != 1 {
                return Some(Err("length_mismatch"));
            }
            Ok(Num { scalar: true, ..x })
        }
        Step::Bin(op, a, b, _) => {
            let (x, y) = (get(*a)?, get(*b)?);
            let len = broadcast(&[x.v.len(), y.v.len()])?;
            let mut out = derived(
                num(x.scalar && y.scalar, Vec::new(), joined(&[&x, &y])),
                &[&x, &y],
            );
            for i in 0..len {
                match bin(*op, at(&x.v, i), at(&y.v, i)) {
                    Some(r) => store(&mut out, r),
                    None => {
                        out.failed = true;
                        out.v.push(0);
                    }
                }
            }
            Ok(out)
        }
        Step::Select(c, a, b) => {
            let (c, x, y) = (get(*c)?, get(*a)?, get(*b)?);
            let len = broadcast(&[c.v.len(), x.v.len(), y.v.len()])?;
            let v = (0..len)
                .map(|i| match at(&c.v, i) != 0 {
                    true => at(&x.v, i),
                    false => at(&y.v, i),
                })
                .collect();
            let scalar = c.scalar && x.scalar && y.scalar;
            Ok(derived(num(scalar, v, joined(&[&x, &y])), &[&c, &x, &y]))
        }
        Step::Un(Un::ReduceProd, a, _) => {
            let x = get(*a)?;
            let mut out = derived(num(true, Vec::new(), joined(&[&x])), &[&x]);
            // Step by step as the graph multiplies, each partial product wrapped.
            let mut p: i128 = 1;
            for &q in &x.v {
                let exact = p * i128::from(q);
                p = out.ty.wrap(exact);
                out.wrapped |= p != exact;
            }
            out.v.push(p as i64);
            Ok(out)
        }
        Step::Un(Un::Cast(t), a, _) => {
            let x = get(*a)?;
            let ty = match CASTS[*t] {
                "bool" => Ty::Bool,
                "uint64" if x.v.iter().any(|&p| p < 0) => return Some(Err("overflow")),
                name => {
                    let signed = !name.starts_with('u');
                    let bits = name.trim_start_matches(['u', 'i', 'n', 't']).parse().ok()?;
                    Ty::Int(bits, signed)
                }
            };
            // A cast wraps as a C++ static_cast: by definition, not a wrap on the way.
            let v = x.v.iter().map(|&p| ty.wrap(p.into()) as i64).collect();
            Ok(derived(num(x.scalar, v, ty), &[&x]))
        }
        Step::Un(op, a, _) => {
            let x = get(*a)?;
            let mut out = derived(num(x.scalar, Vec::new(), joined(&[&x])), &[&x]);
            for &p in &x.v {
                store(&mut out, un(*op, p));
            }
            Ok(out)
        }
    })
}

/// The broadcast length of operands of `lens` (each the length or 1), or the reference's
/// length error.
fn broadcast(lens: &[usize]) -> Option<usize> {
    // NumPy's rule: the one length that is not 1 (0 included), else 1.
    let len = lens.iter().copied().find(|&n| n != 1).unwrap_or(1);
    Some(len).filter(|&n| lens.iter().all(|&m| m == n || m == 1))
}

fn at(v: &[i64], i: usize) -> i64 {
    v[if v.len() == 1 { 0 } else { i }]
}

/// A binary operation as the frameworks define it, exactly (the caller wraps the result into
/// the type); `None` where the graph fails: a division by zero, or a quotient past the type
/// (`MIN / -1`, a trap on the runtimes' hardware).
fn bin(op: Bin, p: i64, q: i64) -> Option<i128> {
    let (p, q) = (i128::from(p), i128::from(q));
    let b = |c: bool| Some(i128::from(c));
    let divides = matches!(op, Bin::Div | Bin::FloorDiv | Bin::FloorMod | Bin::TruncMod);
    if divides && q == 0 {
        return None;
    }
    let quotient_fits = |t: i128| (i128::from(i64::MIN)..=i128::from(i64::MAX)).contains(&t);
    match op {
        Bin::Add => Some(p + q),
        Bin::Sub => Some(p - q),
        Bin::Mul => Some(p * q),
        // ONNX Div truncates.
        Bin::Div => Some(p / q).filter(|&t| quotient_fits(t)),
        // Paddle floor_divide: the quotient rounded toward negative infinity.
        Bin::FloorDiv => Some(p / q - i128::from(p % q != 0 && ((p < 0) != (q < 0))))
            .filter(|&t| quotient_fits(t)),
        // ONNX Mod fmod = 0: the divisor's sign; fmod = 1: the dividend's.
        Bin::FloorMod => Some(p.rem_euclid(q) + if q < 0 && p.rem_euclid(q) != 0 { q } else { 0 }),
        Bin::TruncMod => Some(p % q),
        Bin::Min => Some(p.min(q)),
        Bin::Max => Some(p.max(q)),
        Bin::Equal => b(p == q),
        Bin::Less => b(p < q),
        Bin::Greater => b(p > q),
        Bin::LessEqual => b(p <= q),
        Bin::GreaterEqual => b(p >= q),
        Bin::NotEqual => b(p != q),
        Bin::And => b(p != 0 && q != 0),
        Bin::Or => b(p != 0 || q != 0),
        Bin::Xor => b((p != 0) != (q != 0)),
    }
}

/// A unary operation, exactly (the caller wraps the result into the type).
fn un(op: Un, p: i64) -> i128 {
    let p = i128::from(p);
    match op {
        Un::Neg => -p,
        Un::Abs => p.abs(),
        Un::Not => i128::from(p == 0),
        Un::Scale(s, b, true) => p * i128::from(s) + i128::from(b),
        Un::Scale(s, b, false) => (p + i128::from(b)) * i128::from(s),
        Un::Cast(_) | Un::ReduceProd => unreachable!("computed whole"),
    }
}

/// The ONNX and Paddle names of `op` (with ONNX attributes), where the table has it.
fn names(op: Bin) -> (Option<(&'static str, Option<i64>)>, Option<&'static str>) {
    match op {
        Bin::Add => (Some(("Add", None)), Some("pd_op.add")),
        Bin::Sub => (Some(("Sub", None)), Some("pd_op.subtract")),
        Bin::Mul => (Some(("Mul", None)), Some("pd_op.multiply")),
        Bin::Div => (Some(("Div", None)), None),
        Bin::FloorDiv => (None, Some("pd_op.floor_divide")),
        Bin::FloorMod => (Some(("Mod", Some(0))), Some("pd_op.remainder")),
        Bin::TruncMod => (Some(("Mod", Some(1))), None),
        Bin::Min => (Some(("Min", None)), Some("pd_op.minimum")),
        Bin::Max => (Some(("Max", None)), Some("pd_op.maximum")),
        Bin::Equal => (Some(("Equal", None)), Some("pd_op.equal")),
        Bin::Less => (Some(("Less", None)), Some("pd_op.less_than")),
        Bin::Greater => (Some(("Greater", None)), Some("pd_op.greater_than")),
        Bin::LessEqual => (Some(("LessOrEqual", None)), Some("pd_op.less_equal")),
        Bin::GreaterEqual => (Some(("GreaterOrEqual", None)), Some("pd_op.greater_equal")),
        Bin::NotEqual => (None, Some("pd_op.not_equal")),
        Bin::And => (Some(("And", None)), Some("pd_op.logical_and")),
        Bin::Or => (Some(("Or", None)), Some("pd_op.logical_or")),
        Bin::Xor => (Some(("Xor", None)), Some("pd_op.logical_xor")),
    }
}

fn method(op: Bin) -> fn(&ShapeValue, &ShapeValue) -> Result<ShapeValue, ReshapeError> {
    match op {
        Bin::Add => ShapeValue::add,
        Bin::Sub => ShapeValue::sub,
        Bin::Mul => ShapeValue::mul,
        Bin::Div => ShapeValue::div,
        Bin::FloorDiv => ShapeValue::floor_div,
        Bin::FloorMod => ShapeValue::floor_mod,
        Bin::TruncMod => ShapeValue::trunc_mod,
        Bin::Min => ShapeValue::min,
        Bin::Max => ShapeValue::max,
        Bin::Equal => ShapeValue::equal,
        Bin::Less => ShapeValue::less,
        Bin::Greater => ShapeValue::greater,
        Bin::LessEqual => ShapeValue::less_equal,
        Bin::GreaterEqual => ShapeValue::greater_equal,
        Bin::NotEqual => ShapeValue::not_equal,
        Bin::And => ShapeValue::logical_and,
        Bin::Or => ShapeValue::logical_or,
        Bin::Xor => ShapeValue::logical_xor,
    }
}

/// `op` on `x`, as a method or through a table by name.
fn unary(op: Un, x: &ShapeValue, via: u8) -> Result<ShapeValue, ReshapeError> {
    let one = std::slice::from_ref(x);
    match (op, via) {
        (Un::Neg, 1) => ShapeValue::onnx_op("Neg", one, &[], 17),
        (Un::Neg, _) => x.neg(),
        (Un::Abs, 1) => ShapeValue::onnx_op("Abs", one, &[], 17),
        (Un::Abs, 2) => ShapeValue::paddle_op("pd_op.abs", one, &[]),
        (Un::Abs, _) => x.abs(),
        (Un::Not, 1) => ShapeValue::onnx_op("Not", one, &[], 17),
        (Un::Not, 2) => ShapeValue::paddle_op("pd_op.logical_not", one, &[]),
        (Un::Not, _) => Ok(x.logical_not()),
        (Un::Cast(t), 1) => ShapeValue::onnx_op("Cast", one, &[("to", OpAttr::from(CASTS[t]))], 17),
        (Un::Cast(t), 2) => {
            ShapeValue::paddle_op("pd_op.cast", one, &[("dtype", OpAttr::from(CASTS[t]))])
        }
        (Un::Cast(t), _) => x.cast(CASTS[t]),
        (Un::ReduceProd, 1) => {
            ShapeValue::onnx_op("ReduceProd", one, &[("keepdims", OpAttr::from(0))], 17)
        }
        (Un::ReduceProd, _) => x.reduce_prod(),
        (Un::Scale(s, b, after), 2) => ShapeValue::paddle_op(
            "pd_op.scale",
            one,
            &[
                ("scale", OpAttr::from(s as f64)),
                ("bias", OpAttr::from(b as f64)),
                ("bias_after_scale", OpAttr::from(after)),
            ],
        ),
        (Un::Scale(s, b, after), _) => x.scale(s as f64, b as f64, after),
    }
}

/// A symbolic step's result; `None` when an operand failed (then the step is not run).
type SymResult = Option<Result<ShapeValue, ReshapeError>>;

fn symbolic(step: &Step, regs: &[SymResult], shapes: &[Vec<SymDim>]) -> SymResult {
    let get = |i: usize| regs[i].as_ref()?.as_ref().ok();
    Some(match step {
        Step::ShapeOf(i) => Ok(ShapeValue::shape_of(&shapes[*i])),
        Step::Scalar(x) => Ok(ShapeValue::scalar(*x)),
        Step::Vector(v) => Ok(ShapeValue::from(v.clone())),
        Step::Gather(a, b) => get(*a)?.gather(get(*b)?),
        Step::Slice(a, s, e, st) => get(*a)?.slice(*s, *e, *st),
        Step::Concat(parts) | Step::Stack(parts) => {
            let vals: Option<Vec<ShapeValue>> = parts.iter().map(|&i| get(i).cloned()).collect();
            let vals = vals?;
            match step {
                Step::Stack(_) => ShapeValue::stack(&vals),
                _ => ShapeValue::concat(&vals),
            }
        }
        Step::Unsqueeze(a, axis) => get(*a)?.unsqueeze(*axis),
        Step::Squeeze(a, axis) => get(*a)?.squeeze(*axis),
        Step::Bin(op, a, b, via) => {
            let (x, y) = (get(*a)?, get(*b)?);
            let both = [x.clone(), y.clone()];
            match (names(*op), via) {
                ((Some((name, fmod)), _), 1) => {
                    let at: Vec<(&str, OpAttr)> = fmod
                        .map(|f| ("fmod", OpAttr::from(f)))
                        .into_iter()
                        .collect();
                    ShapeValue::onnx_op(name, &both, &at, 17)
                }
                ((_, Some(name)), 2) => ShapeValue::paddle_op(name, &both, &[]),
                _ => method(*op)(x, y),
            }
        }
        Step::Un(op, a, via) => unary(*op, get(*a)?, *via),
        Step::Select(c, a, b) => ShapeValue::select(get(*c)?, get(*a)?, get(*b)?),
    })
}

/// The earlier steps `step` reads.
fn operands(step: &Step) -> Vec<usize> {
    match step {
        Step::ShapeOf(_) | Step::Scalar(_) | Step::Vector(_) => Vec::new(),
        Step::Gather(a, b) | Step::Bin(_, a, b, _) => vec![*a, *b],
        Step::Slice(a, ..) | Step::Unsqueeze(a, _) | Step::Squeeze(a, _) | Step::Un(_, a, _) => {
            vec![*a]
        }
        Step::Concat(parts) | Step::Stack(parts) => parts.clone(),
        Step::Select(c, a, b) => vec![*c, *a, *b],
    }
}

/// The failures decided by ranks, lengths and concrete operands alone, which the symbolic and
/// the numeric evaluation must agree on.
const STRUCTURAL: [&str; 4] = [
    "index_out_of_range",
    "value_rank",
    "length_mismatch",
    "zero_step",
];

/// The failures a symbolic step may have where the same step on numbers succeeds: a symbol
/// where a number is needed (an index, an axis), and a form past the symbolic range. Any other
/// failure of a step the reference computes is a wrong error.
const SYMBOLIC_ONLY: [&str; 2] = ["needs_number", "symbol_limit"];

/// Runs `prog` symbolically and, per binding, on numbers as the graph computes them (each
/// value wrapped into its integer type); `Err` names the first disagreement. A symbolic value
/// that evaluates must be the graph's value, and the graph must not have failed on the way to
/// it; one that does not evaluate must have a failing condition, unless the graph wrapped or
/// failed on the way. Returns how many (step, binding) pairs were compared on values.
pub fn check(prog: &Program) -> Result<usize, String> {
    let sym_shapes: Vec<Vec<SymDim>> = prog
        .inputs
        .iter()
        .map(|s| s.iter().map(sym_dim).collect())
        .collect();
    let mut sym: Vec<SymResult> = Vec::new();
    for step in &prog.steps {
        let r = symbolic(step, &sym, &sym_shapes);
        match &r {
            Some(Ok(v)) => drop((v.to_string(), format!("{v:?}"), v.eval(&[]))),
            Some(Err(e)) => drop(e.to_string()),
            None => {}
        }
        sym.push(r);
    }
    let mut compared = 0;
    for &b in &prog.bindings {
        let bind = [(SYMBOLS[0], b[0]), (SYMBOLS[1], b[1])];
        // Sizes no tensor has are not inputs of any graph.
        let shapes: Option<Vec<Vec<usize>>> = prog.inputs.iter().map(|s| shape(s, b)).collect();
        let Some(shapes) = shapes else { continue };
        let mut num: Vec<NumResult> = Vec::new();
        // Whether each symbolic value evaluates under the binding: a symbolic step that
        // decided on an operand that does not (its conditions fail here) decided for other
        // bindings, and its error is not compared.
        let mut defined: Vec<bool> = Vec::new();
        for (k, step) in prog.steps.iter().enumerate() {
            let r = reference(step, &num, &shapes);
            let operand_failed = r.is_none();
            let r = r.unwrap_or(Err("operand"));
            let decided_here = operands(step).iter().all(|&i| defined[i]);
            defined.push(matches!(&sym[k], Some(Ok(v)) if v.eval(&bind).is_some()));
            if let (false, Some(s)) = (operand_failed, &sym[k]) {
                match (s, &r) {
                    (Ok(v), _) => match v.eval(&bind) {
                        Some(got) => {
                            let want = r.as_ref().map_err(|e| format!("step {k} {step:?}: {v} = {got:?} under {bind:?}, the reference fails: {e}"))?;
                            if want.failed {
                                return Err(format!("step {k} {step:?}: {v} = {got:?} under {bind:?}, where the graph fails on the way: {want:?}"));
                            }
                            if got != want.v || (v.rank() == 0) != want.scalar {
                                return Err(format!("step {k} {step:?}: {v} = {got:?} under {bind:?}, the graph computes {want:?}"));
                            }
                            compared += 1;
                        }
                        None => {
                            // A condition that fails, or that cannot be decided here (its
                            // sides past i128 on the way): the value claims nothing.
                            let fails = v.conditions().iter().any(|c| c.holds(&bind) != Some(true));
                            let graph_off = r.as_ref().map_or(true, |w| w.failed || w.wrapped);
                            if !fails && !graph_off {
                                return Err(format!("step {k} {step:?}: {v} does not evaluate under {bind:?}, yet no condition fails and the graph computes {r:?}"));
                            }
                        }
                    },
                    (Err(e), Ok(want)) => {
                        let allowed = !decided_here
                            || SYMBOLIC_ONLY.contains(&e.category())
                            || (want.wrapped && e.category() == "overflow")
                            || (want.failed
                                && ["overflow", "division_by_zero"].contains(&e.category()));
                        if !allowed {
                            return Err(format!(
                                "step {k} {step:?}: symbolic {e}, the reference gives {want:?}"
                            ));
                        }
                    }
                    (Err(e), Err(want))
                        if decided_here
                            && STRUCTURAL.contains(&e.category())
                            && e.category() != *want =>
                    {
                        return Err(format!(
                            "step {k} {step:?}: symbolic {e}, the reference fails with {want}"
                        ));
                    }
                    _ => {}
                }
            }
            num.push(r);
        }
        // The last value as a spec of the program's dialect, on the data input.
        let last = prog.steps.len() - 1;
        if let (Some(Ok(v)), Ok(want)) = (&sym[last], &num[last]) {
            if want.failed || want.wrapped {
                continue;
            }
            let data = &sym_shapes[prog.data];
            let symbolic = match prog.dialect {
                0 => Onnx::new(v).infer_symbolic(data),
                1 => Paddle::new(v).infer_symbolic(data),
                _ => Np::new(v, Order::C).infer_symbolic(data),
            };
            let concrete = match prog.dialect {
                0 => Onnx::new(&want.v).infer_shape(&shapes[prog.data]),
                1 => Paddle::new(&want.v).infer_shape(&shapes[prog.data]),
                _ => Np::new(&want.v, Order::C).infer_shape(&shapes[prog.data]),
            };
            if want.scalar {
                if symbolic.is_ok() {
                    return Err(format!("a 0-D spec {v} was accepted"));
                }
            } else if let Ok(out) = &symbolic {
                if let Some(got) = out.eval(&bind) {
                    match &concrete {
                        Ok(c) if *c == got => compared += 1,
                        other => {
                            return Err(format!("spec {v} on {data:?}: symbolic {out} = {got:?} under {bind:?}, concrete {other:?}"))
                        }
                    }
                }
            }
        }
    }
    Ok(compared)
}
