//! The shared fuzz harness. From the fuzzer's bytes it builds an input (a strided view of a small
//! array: steps of either sign, a permutation, a broadcast axis, an axis indexed away), a spec
//! of the target dialect (any i64 values), an order and ranges, and asserts:
//!
//! - nothing panics (libFuzzer reports a panic as a crash);
//! - `infer_shape` on the shape alone agrees with the array method, error for error;
//! - a success has exactly the input's number of elements;
//! - the values equal a slow reference: the input read in the order, the output written in it;
//! - `is_view()` agrees with the strict `reshape_view`, and a view starts at the input's data;
//! - `infer_shape` on arbitrary shapes (huge dims included) never panics and keeps the size;
//! - `infer_symbolic` on those shapes with random dims as symbols agrees with `infer_shape`
//!   under the binding, and `to_onnx_symbolic`'s spec gives the concrete result.

// Each target uses part of this module.
#![allow(dead_code)]

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
    Ok(if u.arbitrary::<bool>()? {
        Some(u.int_in_range(-7i64..=7)?)
    } else {
        None
    })
}

fn size(s: &[usize]) -> Option<usize> {
    s.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

/// How a fuzz input is laid out: a parent array, an optional broadcast axis, a slice of every
/// axis (steps of either sign), a permutation, and whether the first axis is indexed away.
pub struct Recipe {
    pub parent: Vec<usize>,
    broadcast: Option<(usize, usize)>,
    slices: Vec<Slice>,
    perm: Vec<usize>,
    index_away: bool,
}

impl Recipe {
    /// A recipe of up to 4 axes whose parent has at most `max_len` elements.
    pub fn arbitrary(u: &mut Unstructured<'_>, max_dim: usize, max_len: usize) -> Result<Self> {
        let nd = u.int_in_range(0usize..=4)?;
        let mut parent = Vec::with_capacity(nd);
        let mut len = 1usize;
        for _ in 0..nd {
            let d = u.int_in_range(1usize..=max_dim.min(max_len / len).max(1))?;
            len *= d;
            parent.push(d);
        }
        let broadcast = if nd > 0 && u.arbitrary::<bool>()? {
            let axis = u.int_in_range(0..=nd - 1)?;
            parent[axis] = 1;
            Some((axis, u.int_in_range(0usize..=3)?))
        } else {
            None
        };
        let mut slices = Vec::with_capacity(nd);
        for k in 0..nd {
            let len = match broadcast {
                Some((axis, b)) if axis == k => b,
                _ => parent[k],
            } as isize;
            let step = *u.choose(&[1isize, 1, 2, 3, -1, -2])?;
            let start = u.int_in_range(0..=len)?;
            let end = u.int_in_range(start..=len)?;
            slices.push(Slice::new(start, Some(end), step));
        }
        let mut perm: Vec<usize> = (0..nd).collect();
        for i in (1..nd).rev() {
            let j = u.int_in_range(0..=i)?;
            perm.swap(i, j);
        }
        let index_away = nd > 0 && u.arbitrary::<bool>()?;
        Ok(Recipe {
            parent,
            broadcast,
            slices,
            perm,
            index_away,
        })
    }

    /// The parent's element count.
    pub fn parent_len(&self) -> usize {
        self.parent.iter().product()
    }

    /// The strided view of `base` (of the parent's shape) this recipe describes.
    pub fn view<'a, T>(&self, base: &'a ArrayD<T>) -> ArrayViewD<'a, T> {
        let mut x: ArrayViewD<'a, T> = match self.broadcast {
            Some((axis, len)) => {
                let mut s = self.parent.clone();
                s[axis] = len;
                base.broadcast(IxDyn(&s)).unwrap()
            }
            None => base.view(),
        };
        for (k, &slice) in self.slices.iter().enumerate() {
            x.slice_axis_inplace(Axis(k), slice);
        }
        let mut x = x.permuted_axes(IxDyn(&self.perm));
        if self.index_away && x.len_of(Axis(0)) > 0 {
            x = x.index_axis_move(Axis(0), 0);
        }
        x
    }
}

fn one(u: &mut Unstructured<'_>, target: Target) -> Result<()> {
    // The parent array and the strided view of it.
    let recipe = Recipe::arbitrary(u, 5, 625)?;
    let n = recipe.parent_len();
    let base = ArrayD::from_shape_vec(IxDyn(&recipe.parent), (0..n as i64).collect()).unwrap();
    let x = recipe.view(&base);

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
                check(
                    &x,
                    Mx::target_shape(spec.as_slice()).keep_highest(u.arbitrary()?),
                );
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
        Target::Onnx => Onnx::new(spec.as_slice())
            .allowzero(flag)
            .infer_shape(&shape),
        Target::Like => Like::new(shape.as_slice())
            .lhs(bound(u)?, bound(u)?)
            .infer_shape(&shape),
    };
    if let Ok(s) = r {
        assert_eq!(size(&s), size(&shape), "{shape:?} -> {s:?}");
    }

    // Symbolic inference on the same shape with some dims as symbols: agrees with the concrete
    // inference (the shared oracle) and never panics.
    let (mask, shared) = (u.arbitrary::<u64>()?, u.arbitrary::<bool>()?);
    let symbolic = match target {
        Target::Mx => oracle::check_symbolic(
            &Mx::new(spec.as_slice()).reverse(flag),
            &shape,
            mask,
            shared,
        ),
        Target::Paddle => {
            oracle::check_symbolic(&Paddle::new(spec.as_slice()), &shape, mask, shared)
        }
        Target::Np => {
            oracle::check_symbolic(&Np::new(spec.as_slice(), order), &shape, mask, shared)
        }
        Target::Npx => oracle::check_symbolic(
            &Npx::new(spec.as_slice()).reverse(flag),
            &shape,
            mask,
            shared,
        ),
        Target::Onnx => oracle::check_symbolic(
            &Onnx::new(spec.as_slice()).allowzero(flag),
            &shape,
            mask,
            shared,
        ),
        Target::Like => {
            let like = Like::new(
                spec.iter()
                    .map(|&v| v.clamp(0, 64) as usize)
                    .collect::<Vec<_>>(),
            )
            .lhs(bound(u)?, bound(u)?)
            .rhs(bound(u)?, bound(u)?);
            oracle::check_symbolic(&like, &shape, mask, shared)
        }
    };
    if let Err(why) = symbolic {
        panic!("{why}");
    }
    Ok(())
}

fn check<P: ShapeSpec<Rank = ndarray::IxDyn> + Clone>(x: &ArrayViewD<'_, i64>, spec: P) {
    if let Err(why) = oracle::check(x, spec) {
        panic!("{why}");
    }
}

/// An element type built from an index, so that every element of an input is distinct (the
/// copy targets).
pub trait Elem: Clone + PartialEq + std::fmt::Debug + Send + Sync {
    fn of(i: usize) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn of(i: usize) -> Self {
                i as $t
            }
        }
    )*};
}
elem!(u8, u16, u32, u64, u128);

impl Elem for [u8; 3] {
    fn of(i: usize) -> Self {
        [i as u8, (i >> 8) as u8, (i >> 16) as u8]
    }
}

impl Elem for String {
    fn of(i: usize) -> Self {
        i.to_string()
    }
}
