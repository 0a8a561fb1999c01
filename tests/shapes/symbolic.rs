//! Symbolic inference against the concrete one, on every conformance case of `tests/data/`,
//! and the table of cases every reference system gets wrong.
//!
//! For each case, subsets of its input dims (each at least 1) become symbols bound to their
//! values, both with equal values sharing one symbol and with a symbol per position. Then:
//! - completeness: where the concrete `infer_shape` succeeds, `infer_symbolic` succeeds and
//!   evaluates under the binding to the same shape (its conditions hold);
//! - soundness: where the concrete call fails, the symbolic call fails or its evaluation does
//!   (a condition fails under the binding);
//! - lowering: where `to_onnx_symbolic` succeeds, its ONNX spec on the concrete input gives
//!   the concrete result;
//! - backward inference: any one input dim left unknown comes back from the output shape.

use ndarray_reshape::{Like, Mx, Np, Npx, Onnx, Order, Paddle, ShapeSpec, SymDim};
use serde_json::Value;

#[allow(dead_code)] // the array checks are for the sweep and the fuzz targets
#[path = "../common/oracle.rs"]
mod oracle;

use crate::json::{i64s, usizes};

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Completeness, soundness and lowering of `spec` on `input` (the shared oracle), for every
/// subset of symbols (or 64 spread subsets on inputs of rank above 6) in both naming schemes.
fn check<P: ShapeSpec>(spec: &P, input: &[usize]) -> Result<usize, String> {
    let rank = input.len().min(63);
    let all: u64 = if rank == 0 {
        0
    } else {
        u64::MAX >> (64 - rank)
    };
    let masks: Vec<u64> = if rank <= 6 {
        (0..=all).collect()
    } else {
        (0..64u64)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) & all)
            .chain([all])
            .collect()
    };
    let mut checked = 0;
    // Backward inference: each dim left unknown comes back from the output, unless another
    // dim is 0 (then any value fits and the call says so).
    if let Ok(output) = spec.infer_shape(input) {
        for i in 0..input.len() {
            let mut partial: Vec<Option<usize>> = input.iter().copied().map(Some).collect();
            partial[i] = None;
            let others_zero = input.iter().enumerate().any(|(j, &d)| j != i && d == 0);
            match spec.infer_input(&partial, &output) {
                Ok(back) if back == input => {}
                Err(e) if others_zero && e.category() == "infer_ambiguous" => {}
                other => return Err(format!("infer_input {partial:?} -> {output:?}: {other:?}")),
            }
        }
    }
    for mask in masks {
        for shared in [true, false] {
            if oracle::check_symbolic(spec, input, mask, shared)? {
                checked += 1;
            }
        }
    }
    Ok(checked)
}

fn run(
    file: &str,
    spec_of: impl Fn(&Value) -> (Box<dyn Fn(&[usize]) -> Result<usize, String>>, Vec<usize>),
) {
    let cases = load(file);
    let mut failures = Vec::new();
    let mut checks = 0;
    for c in &cases {
        let (f, input) = spec_of(c);
        match f(&input) {
            Ok(n) => checks += n,
            Err(e) => failures.push(format!("{}: {e}", c["id"])),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases of {file} failed:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    eprintln!("{file}: {} cases, {checks} symbolic inputs", cases.len());
}

type Case = (Box<dyn Fn(&[usize]) -> Result<usize, String>>, Vec<usize>);

fn boxed<P: ShapeSpec + 'static>(spec: P, input: Vec<usize>) -> Case {
    (Box::new(move |i: &[usize]| check(&spec, i)), input)
}

#[test]
#[cfg_attr(miri, ignore)] // a quarter of a million inferences
fn every_conformance_case() {
    let b = |v: &Value| v.as_bool().unwrap();
    run("mxnet.jsonl", |c| {
        boxed(
            Mx::new(i64s(&c["spec"])).reverse(b(&c["reverse"])),
            usizes(&c["in"]),
        )
    });
    run("mxnet_legacy.jsonl", |c| {
        boxed(
            Mx::target_shape(i64s(&c["target_shape"])).keep_highest(b(&c["keep_highest"])),
            usizes(&c["in"]),
        )
    });
    run("like.jsonl", |c| {
        let like = Like::new(usizes(&c["rhs"]))
            .lhs(c["lhs_begin"].as_i64(), c["lhs_end"].as_i64())
            .rhs(c["rhs_begin"].as_i64(), c["rhs_end"].as_i64());
        boxed(like, usizes(&c["lhs"]))
    });
    run("paddle.jsonl", |c| {
        boxed(Paddle::new(i64s(&c["spec"])), usizes(&c["in"]))
    });
    run("numpy.jsonl", |c| {
        let order = match c["order"].as_str().unwrap() {
            "F" => Order::F,
            "A" => Order::A,
            _ => Order::C,
        };
        boxed(Np::new(i64s(&c["spec"]), order), usizes(&c["shape"]))
    });
    run("npx.jsonl", |c| {
        boxed(
            Npx::new(i64s(&c["spec"])).reverse(b(&c["reverse"])),
            usizes(&c["in"]),
        )
    });
    run("onnx.jsonl", |c| {
        boxed(
            Onnx::new(i64s(&c["spec"])).allowzero(b(&c["allowzero"])),
            usizes(&c["in"]),
        )
    });
}

fn n() -> SymDim {
    SymDim::sym("N")
}

fn k(v: usize) -> SymDim {
    SymDim::from(v)
}

/// The cases where reference systems floor, give up or copy the wrong dim, per dialect.
#[test]
fn where_reference_systems_guess() -> Result<(), ndarray_reshape::ReshapeError> {
    let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
    // MXNet 1.x and Paddle's static graph make every -1 unknown once a dim is: not here.
    let image = [n(), k(3), k(224), k(224)];
    assert_eq!(
        Mx::new([0, -1]).infer_symbolic(&image)?.dims(),
        &[n(), k(150528)]
    );
    assert_eq!(
        Paddle::new([0, -1]).infer_symbolic(&image)?.dims(),
        &[n(), k(150528)]
    );
    // ONNX's own inference has no arithmetic: [8N, 64] with [-1, 8, 64] is N.
    let s = Np::new([-1, 8, 64], Order::C).infer_symbolic(&[k(8) * n(), k(64)])?;
    assert_eq!(s.dims(), &[n(), k(8), k(64)]);
    // onnxruntime, TVM and rten floor 15N / 4N to 3: here an error naming both products and
    // the position of the -1.
    let err = Onnx::new([0, 4, -1])
        .infer_symbolic(&[n(), k(3), k(5)])
        .unwrap_err();
    assert_eq!(err.category(), "infer_not_divisible");
    assert_eq!(err.context().position(), Some(2));
    let text = err.to_string();
    assert!(
        text.contains("4*N") && text.contains("15*N") && text.contains("[N, 3, 5]"),
        "{text}"
    );
    // MXNet's 0 copies the dim at the read position, after -3 merged two.
    let s = Mx::new([-3, 0]).infer_symbolic(&[b.clone(), t.clone(), k(512)])?;
    assert_eq!(s.dims(), &[b * t, k(512)]);
    // Conditions, printable as asserts.
    let s = Onnx::new([2, -1]).infer_symbolic(&[n(), k(3)])?;
    assert_eq!(s.conditions()[0].to_string(), "3*N % 2 == 0");
    assert_eq!(s.dims()[1].to_string(), "3*N/2");
    let s = Onnx::new([3, 4]).infer_symbolic(&[n(), k(4)])?;
    assert_eq!(s.conditions()[0].to_string(), "N == 3");
    let s = Mx::new([-4, 2, -1, -2]).infer_symbolic(&[n(), k(5)])?;
    assert_eq!(s.dims(), &[k(2), n() / k(2), k(5)]);
    assert_eq!(s.conditions()[0].to_string(), "N % 2 == 0");
    let s = Npx::new([-3, -2]).infer_symbolic(&[n(), k(4)])?;
    assert_eq!(s.dims(), &[k(4)]);
    assert_eq!(s.conditions()[0].to_string(), "N == 1");
    assert!(Npx::new([-3, -2])
        .infer_symbolic(&[k(2) * n(), k(4)])
        .is_err()); // 2N is never 1
    Ok(())
}

/// The zero-size rules with symbols: known zeros stay known, symbols are at least 1.
#[test]
fn zero_size_rules() -> Result<(), ndarray_reshape::ReshapeError> {
    // ONNX's 0 copies N: [N, 0] with [0, -1] is [N, 0].
    let s = Onnx::new([0, -1]).infer_symbolic(&[n(), k(0)])?;
    assert_eq!(s.dims(), &[n(), k(0)]);
    // ONNX [0, 4] on [N, 0, 4] copies N, and N*4 is never 0; NumPy's 0 is literal.
    assert!(Onnx::new([0, 4])
        .infer_symbolic(&[n(), k(0), k(4)])
        .is_err());
    assert_eq!(
        Np::new([0, 4], Order::C)
            .infer_symbolic(&[n(), k(0), k(4)])?
            .dims(),
        &[k(0), k(4)]
    );
    assert_eq!(
        Npx::new([0, 4]).infer_symbolic(&[n(), k(0), k(4)])?.dims(),
        &[k(0), k(4)]
    );
    // allowzero: a literal zero; with a -1 beside it, the ONNX error.
    let s = Onnx::new([0, 4])
        .allowzero(true)
        .infer_symbolic(&[n(), k(0), k(4)])?;
    assert_eq!(s.dims(), &[k(0), k(4)]);
    let err = Onnx::new([0, -1])
        .allowzero(true)
        .infer_symbolic(&[n(), k(0)])
        .unwrap_err();
    assert_eq!(err.category(), "allowzero_with_infer");
    // Paddle on a zero-size input: its 0 is literal, and the -1 takes the non-zero product.
    let s = Paddle::new([0, -1]).infer_symbolic(&[n(), k(0), k(3)])?;
    assert_eq!(s.dims(), &[k(0), k(3) * n()]);
    assert_eq!(s.eval(&[("N", 2)]), Some(vec![0, 6]));
    // More zeros in the spec than in the input: an error for every N (which one depends on
    // whether N is 1: ambiguous then, a mismatch otherwise). Fewer: always ambiguous.
    let err = Paddle::new([0, 0, -1])
        .infer_symbolic(&[n(), k(0)])
        .unwrap_err();
    assert!(["infer_ambiguous", "zero_size_mismatch"].contains(&err.category()));
    let err = Paddle::new([0, -1])
        .infer_symbolic(&[n(), k(0), k(0)])
        .unwrap_err();
    assert_eq!(err.category(), "infer_ambiguous");
    Ok(())
}

/// Paddle's `actual_shape` (and fluid's, which is Paddle's) takes part in symbolic inference.
#[test]
fn actual_shape_and_fluid() -> Result<(), ndarray_reshape::ReshapeError> {
    let spec = Paddle::new([0, 0, -1]).actual_shape([0, -1]);
    assert_eq!(
        spec.infer_symbolic(&[n(), k(4), k(5)])?.dims(),
        &[n(), k(20)]
    );
    let fluid = ndarray_reshape::fluid::Reshape::<f32>::new([8, -1]).actual_shape([0, -1]);
    assert_eq!(
        fluid.spec().infer_symbolic(&[n(), k(6)])?.dims(),
        &[n(), k(6)]
    );
    Ok(())
}

/// Limits are errors, never panics: too many symbols in one product, coefficients past
/// `isize::MAX`.
#[test]
fn limits_are_errors() {
    let syms: Vec<SymDim> = ["A", "B", "C", "D", "E"]
        .iter()
        .map(|s| SymDim::sym(s))
        .collect();
    // Any number of symbols in one product.
    let s = Mx::new([-1]).infer_symbolic(&syms).unwrap();
    assert_eq!(s.to_string(), "[A*B*C*D*E]");
    // A sum of more than 64 terms, or a power past 127, is past the range.
    let sum = syms.iter().fold(k(1), |p, d| p + d.clone());
    let err = Mx::new([-1]).infer_symbolic(&[sum.clone(), sum.clone(), sum.clone(), sum]);
    assert_eq!(err.unwrap_err().category(), "symbol_limit");
    let mut power = syms[0].clone();
    for _ in 0..7 {
        power = power.clone() * power;
    }
    assert!(!power.is_valid());
    assert_eq!(
        Mx::new([-1])
            .infer_symbolic(&[power.clone()])
            .unwrap_err()
            .category(),
        "symbol_limit"
    );
    // An input past isize::MAX for every value of its symbols: no array has it.
    let big = k(1 << 40);
    let err = Onnx::new([-1])
        .infer_symbolic(&[big.clone(), big, n()])
        .unwrap_err();
    assert_eq!(err.category(), "overflow");
    // Four symbols are fine.
    let s = Mx::new([-1]).infer_symbolic(&syms[..4]).unwrap();
    assert_eq!(s.dims()[0].to_string(), "A*B*C*D");
}

#[test]
fn through_references_and_typed_specs() {
    use ndarray::Ix2;
    let spec = Onnx::new([0, -1]);
    let input = [n(), k(3), k(4)];
    let by_value = spec.infer_symbolic(&input).unwrap();
    assert!(by_value.conditions().is_empty(), "{by_value}"); // 12*N / N is exact
                                                             // Through the impls for references (named, or method calls would pick the value's).
    let by_ref = <&Onnx as ShapeSpec>::infer_symbolic(&&spec, &input).unwrap();
    assert_eq!(by_ref, by_value);
    let by_ref_ref = <&&Onnx as ShapeSpec>::infer_symbolic(&&&spec, &input).unwrap();
    assert_eq!(by_ref_ref, by_value);
    // A typed spec of the right rank infers the same; of another rank, RankMismatch.
    assert_eq!(
        spec.clone().dim::<Ix2>().infer_symbolic(&input).unwrap(),
        by_value
    );
    let err = spec
        .clone()
        .dim::<ndarray::Ix3>()
        .infer_symbolic(&input)
        .unwrap_err();
    assert_eq!(err.category(), "rank_mismatch");
    assert_ne!(spec.clone().dim::<Ix2>(), Onnx::new([0, 12]).dim::<Ix2>());
    assert_eq!(spec.clone().dim::<Ix2>(), Onnx::new([0, -1]).dim::<Ix2>());
}

#[test]
fn display_of_quotients_and_shapes() {
    let m = SymDim::sym("M");
    assert_eq!((n() / m.clone()).to_string(), "N/M");
    assert_eq!((k(3) / (n() * m)).to_string(), "3/(M*N)");
    assert_eq!((k(3) * n() / k(2)).to_string(), "3*N/2");
    assert_eq!(format!("{:?}", k(3) * n()), "3*N");
    let s = Np::new([2, -1], Order::C)
        .infer_symbolic(&[n(), k(3)])
        .unwrap();
    assert_eq!(s.to_string(), "[2, 3*N/2] if 3*N % 2 == 0");
    assert_eq!(s.conditions()[0].holds(&[("N", 3)]), Some(false));
    assert_eq!(s.conditions()[0].holds(&[("N", 4)]), Some(true));
    let s = Np::new([-1], Order::C)
        .infer_symbolic(&[n(), k(3)])
        .unwrap();
    assert_eq!(s.to_string(), "[3*N]");
}

#[test]
fn zero_size_mismatch_on_known_dims() {
    // As the concrete inference: two zeros in the spec, one in the input, products 1 and 6.
    let err = Paddle::new([0, 0, -1])
        .infer_symbolic(&[k(2), k(0), k(3)])
        .unwrap_err();
    assert_eq!(err.category(), "zero_size_mismatch");
}

#[test]
fn conditions_with_symbols_on_the_dividing_side() {
    let m = SymDim::sym("M");
    // 12 == 4*N, and 12 == 4*M*N: a symbol (or two) on the side that divides.
    let s = Onnx::new([3, 4]).infer_symbolic(&[n(), k(4)]).unwrap();
    assert_eq!(s.conditions()[0].to_string(), "N == 3");
    let s = Onnx::new([3, 4])
        .infer_symbolic(&[n(), m.clone(), k(4)])
        .unwrap();
    assert_eq!(s.conditions()[0].to_string(), "M*N == 3");
    assert_eq!(s.conditions()[0].holds(&[("N", 3), ("M", 1)]), Some(true));
    assert_eq!(s.conditions()[0].holds(&[("N", 3), ("M", 3)]), Some(false));
    assert_eq!((k(1) / n()).to_string(), "1/N");
    // 4*N == N*M and 4*N == N*M*L: the symbols left over are on the dividing side.
    let s = Onnx::new([0, 4]).infer_symbolic(&[n(), m.clone()]).unwrap();
    assert_eq!(s.conditions()[0].to_string(), "M == 4");
    let l = SymDim::sym("L");
    let s = Onnx::new([0, 4]).infer_symbolic(&[n(), m, l]).unwrap();
    assert_eq!(s.conditions()[0].to_string(), "L*M == 4");
    assert_eq!(s.conditions()[0].holds(&[("L", 2), ("M", 2)]), Some(true));
}
