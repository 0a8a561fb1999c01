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
    let bindings = (0..3)
        .map(|_| [1 + p(9) as usize, 1 + p(9) as usize])
        .collect();
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

fn dim(&(c, b, t): &(usize, u8, u8), v: [usize; 2]) -> usize {
    c * v[0].pow(b as u32) * v[1].pow(t as u32)
}

/// A value of the reference: rank 0 or 1, and its entries.
#[derive(Debug, Clone, PartialEq)]
struct Num {
    scalar: bool,
    v: Vec<i64>,
}

/// The reference's failures, by the rule's category name.
type NumResult = Result<Num, &'static str>;

fn vector(v: Vec<i64>) -> Num {
    Num { scalar: false, v }
}

/// The ONNX / Paddle definitions on numbers, entry by entry.
fn reference(step: &Step, regs: &[NumResult], shapes: &[Vec<usize>]) -> Option<NumResult> {
    let get = |i: usize| regs[i].clone().ok();
    Some(match step {
        Step::ShapeOf(i) => Ok(vector(shapes[*i].iter().map(|&d| d as i64).collect())),
        Step::Scalar(x) => Ok(Num {
            scalar: true,
            v: vec![*x],
        }),
        Step::Vector(v) => Ok(vector(v.clone())),
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
            Ok(Num {
                scalar: idx.scalar,
                v: out,
            })
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
            Ok(vector(out))
        }
        Step::Concat(parts) | Step::Stack(parts) => {
            let stack = matches!(step, Step::Stack(_));
            let mut out = Vec::new();
            for &i in parts {
                let x = get(i)?;
                if x.scalar != stack {
                    return Some(Err("value_rank"));
                }
                out.extend(x.v);
            }
            Ok(vector(out))
        }
        Step::Unsqueeze(a, axis) => {
            let x = get(*a)?;
            if !x.scalar {
                return Some(Err("value_rank"));
            }
            if *axis != 0 && *axis != -1 {
                return Some(Err("index_out_of_range"));
            }
            Ok(vector(x.v))
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
            Ok(Num {
                scalar: true,
                v: x.v,
            })
        }
        Step::Bin(op, a, b, _) => {
            let (x, y) = (get(*a)?, get(*b)?);
            let len = broadcast(&[x.v.len(), y.v.len()])?;
            let mut out = Vec::new();
            for i in 0..len {
                match bin(*op, at(&x.v, i), at(&y.v, i)) {
                    Ok(r) => out.push(r),
                    Err(e) => return Some(Err(e)),
                }
            }
            Ok(Num {
                scalar: x.scalar && y.scalar,
                v: out,
            })
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
            Ok(Num {
                scalar: c.scalar && x.scalar && y.scalar,
                v,
            })
        }
        Step::Un(Un::ReduceProd, a, _) => {
            let x = get(*a)?;
            match x.v.iter().try_fold(1i64, |p, &q| p.checked_mul(q)) {
                Some(p) => Ok(Num {
                    scalar: true,
                    v: vec![p],
                }),
                None => Err("overflow"),
            }
        }
        Step::Un(op, a, _) => {
            let x = get(*a)?;
            let mut out = Vec::new();
            for &p in &x.v {
                match un(*op, p) {
                    Ok(r) => out.push(r),
                    Err(e) => return Some(Err(e)),
                }
            }
            Ok(Num {
                scalar: x.scalar,
                v: out,
            })
        }
    })
}

/// The broadcast length of operands of `lens` (each the length or 1), or the reference's
/// length error.
fn broadcast(lens: &[usize]) -> Option<usize> {
    let len = lens.iter().copied().max().unwrap_or(1);
    Some(len).filter(|&n| lens.iter().all(|&m| m == n || m == 1))
}

fn at(v: &[i64], i: usize) -> i64 {
    v[if v.len() == 1 { 0 } else { i }]
}

/// A binary operation on int64 as the frameworks define it; where the int64 arithmetic wraps,
/// `overflow` (the crate must not claim a value there).
fn bin(op: Bin, p: i64, q: i64) -> Result<i64, &'static str> {
    let wraps = |r: Option<i64>| r.ok_or("overflow");
    let b = |c: bool| Ok(i64::from(c));
    let divides = matches!(op, Bin::Div | Bin::FloorDiv | Bin::FloorMod | Bin::TruncMod);
    if divides && q == 0 {
        return Err("division_by_zero");
    }
    match op {
        Bin::Add => wraps(p.checked_add(q)),
        Bin::Sub => wraps(p.checked_sub(q)),
        Bin::Mul => wraps(p.checked_mul(q)),
        // ONNX Div truncates.
        Bin::Div => wraps(p.checked_div(q)),
        // Paddle floor_divide: the quotient rounded toward negative infinity.
        Bin::FloorDiv => wraps(p.checked_div(q)).map(|t| {
            if t * q != p && ((p < 0) != (q < 0)) {
                t - 1
            } else {
                t
            }
        }),
        // ONNX Mod fmod = 0: the divisor's sign; fmod = 1: the dividend's.
        Bin::FloorMod => Ok(((p as i128).rem_euclid(q as i128)
            + if q < 0 && (p as i128).rem_euclid(q as i128) != 0 {
                q as i128
            } else {
                0
            }) as i64),
        Bin::TruncMod => Ok(p.wrapping_rem(q)),
        Bin::Min => Ok(p.min(q)),
        Bin::Max => Ok(p.max(q)),
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

/// A unary operation on int64; a cast wraps as a C++ `static_cast`.
fn un(op: Un, p: i64) -> Result<i64, &'static str> {
    match op {
        Un::Neg => p.checked_neg().ok_or("overflow"),
        Un::Abs => p.checked_abs().ok_or("overflow"),
        Un::Not => Ok(i64::from(p == 0)),
        Un::Cast(t) => match CASTS[t] {
            "int64" => Ok(p),
            "int32" => Ok(p as i32 as i64),
            "int16" => Ok(p as i16 as i64),
            "int8" => Ok(p as i8 as i64),
            "uint8" => Ok(p as u8 as i64),
            "uint32" => Ok(p as u32 as i64),
            "uint64" => u64::try_from(p).map(|_| p).map_err(|_| "overflow"),
            _ => Ok(i64::from(p != 0)),
        },
        Un::Scale(s, b, true) => p
            .checked_mul(s)
            .and_then(|x| x.checked_add(b))
            .ok_or("overflow"),
        Un::Scale(s, b, false) => p
            .checked_add(b)
            .and_then(|x| x.checked_mul(s))
            .ok_or("overflow"),
        Un::ReduceProd => unreachable!("reduced whole"),
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

/// Runs `prog` symbolically and, per binding, on numbers; `Err` names the first disagreement.
/// Returns how many (step, binding) pairs were compared on values.
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
        let shapes: Vec<Vec<usize>> = prog
            .inputs
            .iter()
            .map(|s| s.iter().map(|d| dim(d, b)).collect())
            .collect();
        let mut num: Vec<NumResult> = Vec::new();
        let mut consistent = true;
        for (k, step) in prog.steps.iter().enumerate() {
            let r = reference(step, &num, &shapes);
            let operand_failed = r.is_none();
            let r = r.unwrap_or(Err("operand"));
            if let (true, false, Some(s)) = (consistent, operand_failed, &sym[k]) {
                match (s, &r) {
                    (Ok(v), _) => match v.eval(&bind) {
                        Some(got) => {
                            let want = r.as_ref().map_err(|e| format!("step {k} {step:?}: {v} = {got:?} under {bind:?}, the reference fails: {e}"))?;
                            if got != want.v || (v.rank() == 0) != want.scalar {
                                return Err(format!("step {k} {step:?}: {v} = {got:?} under {bind:?}, the reference {want:?}"));
                            }
                            compared += 1;
                        }
                        None => {
                            // A condition fails, or an entry passes i64::MAX: then the numbers
                            // overflow.
                            let fails =
                                v.conditions().iter().any(|c| c.holds(&bind) == Some(false));
                            if !fails && r != Err("overflow") && r != Err("division_by_zero") {
                                return Err(format!("step {k} {step:?}: {v} does not evaluate under {bind:?}, yet no condition fails"));
                            }
                            // From here on the symbolic values claim nothing at this binding.
                            consistent = false;
                        }
                    },
                    (Err(e), Ok(want)) if !SYMBOLIC_ONLY.contains(&e.category()) => {
                        return Err(format!(
                            "step {k} {step:?}: symbolic {e}, the reference gives {want:?}"
                        ));
                    }
                    (Err(e), Err(want))
                        if STRUCTURAL.contains(&e.category()) && e.category() != *want =>
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
        if let (true, Some(Ok(v)), Ok(want)) = (consistent, &sym[last], &num[last]) {
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
