//! The shared fuzz harness. From the fuzzer's bytes it builds an input (a strided view of a small
//! array: steps of either sign, a permutation, a broadcast axis, an axis indexed away), a spec
//! of the target dialect (any i64 values), an order and ranges, and asserts:
//!
//! - nothing panics (libFuzzer reports a panic as a crash);
//! - `infer_shape` on the shape alone agrees with the array method, error for error;
//! - a success has exactly the input's number of elements;
//! - the values equal a slow reference: the input read in the order, the output written in it;
//! - `is_view()` agrees with the strict `reshape_view`, and a view starts at the input's data;
//! - `infer_shape` on arbitrary shapes (huge dims included) never panics and keeps the size.

#[path = "../../tests/common/oracle.rs"]
mod oracle;

use arbitrary::{Result, Unstructured};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{Like, Mx, Np, Npx, Onnx, Order, Paddle, ShapeSpec};

/// The dialect a target fuzzes (each binary constructs one of them).
#[derive(Clone, Copy)]
#[allow(dead_code)]
pub enum Target {
    Mx,
    Like,
    Paddle,
    Np,
    Npx,
    Onnx,
}

pub fn run(data: &[u8], target: Target) {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u, target);
}

fn value(u: &mut Unstructured<'_>) -> Result<i64> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => u.arbitrary::<i64>()?,
        1 => *u.choose(&[i64::MIN, i64::MAX, 1 << 32, 1 << 62, -(1 << 40)])?,
        _ => u.int_in_range(-8i64..=8)?,
    })
}

fn bound(u: &mut Unstructured<'_>) -> Result<Option<i64>> {
    Ok(if u.arbitrary::<bool>()? { Some(u.int_in_range(-7i64..=7)?) } else { None })
}

fn size(s: &[usize]) -> Option<usize> {
    s.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

fn one(u: &mut Unstructured<'_>, target: Target) -> Result<()> {
    // The parent array and the strided view of it.
    let nd = u.int_in_range(0usize..=4)?;
    let mut parent = Vec::with_capacity(nd);
    for _ in 0..nd {
        parent.push(u.int_in_range(1usize..=5)?);
    }
    let broadcast = if nd > 0 && u.arbitrary::<bool>()? {
        let axis = u.int_in_range(0..=nd - 1)?;
        parent[axis] = 1;
        Some((axis, u.int_in_range(0usize..=3)?))
    } else {
        None
    };
    let n = size(&parent).unwrap_or(0);
    let base = ArrayD::from_shape_vec(IxDyn(&parent), (0..n as i64).collect()).unwrap();
    let mut x: ArrayViewD<'_, i64> = match broadcast {
        Some((axis, len)) => {
            let mut s = parent.clone();
            s[axis] = len;
            base.broadcast(IxDyn(&s)).unwrap()
        }
        None => base.view(),
    };
    for k in 0..nd {
        let len = x.len_of(Axis(k)) as isize;
        let step = *u.choose(&[1isize, 1, 2, 3, -1, -2])?;
        let start = u.int_in_range(0..=len)?;
        let end = u.int_in_range(start..=len)?;
        x.slice_axis_inplace(Axis(k), Slice::new(start, Some(end), step));
    }
    let mut perm: Vec<usize> = (0..nd).collect();
    for i in (1..nd).rev() {
        let j = u.int_in_range(0..=i)?;
        perm.swap(i, j);
    }
    let mut x = x.permuted_axes(IxDyn(&perm));
    if nd > 0 && u.arbitrary::<bool>()? && x.len_of(Axis(0)) > 0 {
        x = x.index_axis_move(Axis(0), 0);
    }

    // The spec.
    let len = u.int_in_range(0usize..=7)?;
    let mut spec = Vec::with_capacity(len);
    for _ in 0..len {
        spec.push(value(u)?);
    }
    let flag = u.arbitrary::<bool>()?;
    let order = *u.choose(&[Order::C, Order::F, Order::A])?;
    match target {
        Target::Mx => {
            if flag && u.arbitrary::<bool>()? {
                check(&x, Mx::target_shape(spec.as_slice()).keep_highest(u.arbitrary()?));
            } else {
                check(&x, Mx::new(spec.as_slice()).reverse(flag));
            }
        }
        Target::Paddle => check(&x, Paddle::new(spec.as_slice())),
        Target::Np => check(&x, Np::new(spec.as_slice(), order)),
        Target::Npx => check(&x, Npx::new(spec.as_slice()).reverse(flag)),
        Target::Onnx => check(&x, Onnx::new(spec.as_slice()).allowzero(flag)),
        Target::Like => {
            let rhs: Vec<usize> = spec.iter().map(|&v| v.clamp(0, 64) as usize).collect();
            let like = Like::new(rhs.as_slice())
                .lhs(bound(u)?, bound(u)?)
                .rhs(bound(u)?, bound(u)?);
            check(&x, like);
        }
    }

    // Shape-only inference on an arbitrary (possibly impossible) shape.
    let nd = u.int_in_range(0usize..=5)?;
    let mut shape = Vec::with_capacity(nd);
    for _ in 0..nd {
        shape.push(match u.int_in_range(0u8..=7)? {
            0 => usize::MAX,
            1 => 1 << 40,
            _ => u.int_in_range(0usize..=6)?,
        });
    }
    let r = match target {
        Target::Mx => Mx::new(spec.as_slice()).reverse(flag).infer_shape(&shape),
        Target::Paddle => Paddle::new(spec.as_slice()).infer_shape(&shape),
        Target::Np => Np::new(spec.as_slice(), order).infer_shape(&shape),
        Target::Npx => Npx::new(spec.as_slice()).reverse(flag).infer_shape(&shape),
        Target::Onnx => Onnx::new(spec.as_slice()).allowzero(flag).infer_shape(&shape),
        Target::Like => Like::new(shape.as_slice()).lhs(bound(u)?, bound(u)?).infer_shape(&shape),
    };
    if let Ok(s) = r {
        assert_eq!(size(&s), size(&shape), "{shape:?} -> {s:?}");
    }
    Ok(())
}

fn check<P: ShapeSpec + Clone>(x: &ArrayViewD<'_, i64>, spec: P) {
    if let Err(why) = oracle::check(x, spec) {
        panic!("{why}");
    }
}
