//! Random shape programs over random symbolic shapes, for the no-panic sweep and the
//! `shape_values` fuzz target: each step is a [`ShapeValue`] operation, evaluated symbolically
//! and, under several bindings of the symbols, on plain numbers by a slow reference written
//! from the ONNX and Paddle operator definitions. [`check`] asserts that nothing panics, that a
//! symbolic value that evaluates under a binding equals the reference's value, that the
//! structural errors (index, rank, length, step) agree, and that the last value, as an ONNX,
//! Paddle or NumPy spec, infers symbolically what the concrete spec infers.

use ndarray_reshape::{Np, Onnx, Order, Paddle, ReshapeError, ShapeSpec, ShapeValue, SymDim};

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
    Mul(usize, usize),
    Div(usize, usize),
    FloorDiv(usize, usize),
}

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
        let (a, b) = (r(), r());
        let step = match p(14) {
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
            10 => Step::Mul(a, b),
            11 => Step::Div(a, b),
            12 => Step::FloorDiv(a, b),
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
        Step::Mul(a, b) | Step::Div(a, b) | Step::FloorDiv(a, b) => {
            let (x, y) = (get(*a)?, get(*b)?);
            let (m, n) = (x.v.len(), y.v.len());
            let len = if m == n || n == 1 {
                m
            } else if m == 1 {
                n
            } else {
                return Some(Err("length_mismatch"));
            };
            let mut out = Vec::new();
            for i in 0..len {
                let p = x.v[if m == 1 { 0 } else { i }];
                let q = y.v[if n == 1 { 0 } else { i }];
                let r = match step {
                    Step::Mul(..) => p.checked_mul(q),
                    _ if q == 0 => return Some(Err("division_by_zero")),
                    Step::Div(..) => p.checked_div(q),
                    // Floor: the quotient rounded toward negative infinity.
                    _ => p.checked_div(q).map(|t| {
                        if t * q != p && ((p < 0) != (q < 0)) {
                            t - 1
                        } else {
                            t
                        }
                    }),
                };
                match r {
                    Some(r) => out.push(r),
                    None => return Some(Err("overflow")),
                }
            }
            Ok(Num {
                scalar: x.scalar && y.scalar,
                v: out,
            })
        }
    })
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
        Step::Mul(a, b) => get(*a)?.mul(get(*b)?),
        Step::Div(a, b) => get(*a)?.div(get(*b)?),
        Step::FloorDiv(a, b) => get(*a)?.floor_div(get(*b)?),
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
                    (Err(e), Ok(want)) if STRUCTURAL.contains(&e.category()) => {
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
