//! Shapes and strides only: contiguity, order-A resolution, and the no-copy stride solver
//! [`view_strides`], which decides view versus copy exactly as NumPy does.
//!
//! Strides are in elements and signed, as `ndarray`'s `strides()` gives them.

use crate::small::INLINE;

/// The order in which a reshape reads the input's elements and writes the output's.
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::{Order, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let a = array![[0, 1], [2, 3], [4, 5]];
/// assert_eq!(a.reshape_np(&[2, 3], Order::C)?, array![[0, 1, 2], [3, 4, 5]].into_dyn());
/// assert_eq!(a.reshape_np(&[2, 3], Order::F)?, array![[0, 4, 3], [2, 1, 5]].into_dyn());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Row-major: the last index changes fastest.
    #[default]
    C,
    /// Column-major (Fortran): the first index changes fastest.
    F,
    /// `F` if the input is F-contiguous and not C-contiguous, `C` otherwise (NumPy's `'A'`).
    A,
}

impl From<ndarray::Order> for Order {
    /// `RowMajor` is [`Order::C`], `ColumnMajor` is [`Order::F`].
    ///
    /// ```
    /// use ndarray_reshape::Order;
    /// assert_eq!(Order::from(ndarray::Order::ColumnMajor), Order::F);
    /// ```
    fn from(o: ndarray::Order) -> Self {
        match o {
            ndarray::Order::ColumnMajor => Order::F,
            _ => Order::C,
        }
    }
}

/// Whether `shape` with `strides` is C-contiguous in NumPy's relaxed sense: length-1 axes are
/// ignored, and an empty array is contiguous.
///
/// ```
/// use ndarray_reshape::layout::is_c_contiguous;
/// assert!(is_c_contiguous(&[2, 3], &[3, 1]));
/// assert!(is_c_contiguous(&[2, 1, 3], &[3, 99, 1]));
/// assert!(!is_c_contiguous(&[2, 3], &[1, 2]));
/// assert!(is_c_contiguous(&[2, 0], &[7, 7]));
/// ```
#[inline]
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    contiguous(shape.iter().rev().zip(strides.iter().rev()), shape)
}

/// Whether `shape` with `strides` is F-contiguous in NumPy's relaxed sense.
///
/// ```
/// use ndarray_reshape::layout::is_f_contiguous;
/// assert!(is_f_contiguous(&[2, 3], &[1, 2]));
/// assert!(is_f_contiguous(&[5], &[1]));
/// assert!(!is_f_contiguous(&[2, 3], &[3, 1]));
/// ```
#[inline]
pub fn is_f_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    contiguous(shape.iter().zip(strides.iter()), shape)
}

#[inline]
fn contiguous<'a>(axes: impl Iterator<Item = (&'a usize, &'a isize)>, shape: &[usize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    // `expected` is a product of dims of a non-empty layout; once it no longer fits in isize no
    // stride can equal it, so the layout is contiguous only if no longer axis follows.
    let mut expected: Option<isize> = Some(1);
    for (&d, &s) in axes {
        if d != 1 {
            if Some(s) != expected {
                return false;
            }
            expected = expected.and_then(|e| e.checked_mul(d as isize));
        }
    }
    true
}

/// Resolve [`Order::A`] for an input layout: `F` iff F-contiguous and not C-contiguous.
/// `C` and `F` are returned unchanged.
///
/// ```
/// use ndarray_reshape::{layout::resolve_order, Order};
/// assert_eq!(resolve_order(&[2, 3], &[1, 2], Order::A), Order::F);
/// assert_eq!(resolve_order(&[6], &[1], Order::A), Order::C);
/// assert_eq!(resolve_order(&[2, 3], &[1, 2], Order::C), Order::C);
/// ```
#[inline]
pub fn resolve_order(shape: &[usize], strides: &[isize], order: Order) -> Order {
    match order {
        Order::A if is_f_contiguous(shape, strides) && !is_c_contiguous(shape, strides) => Order::F,
        Order::A => Order::C,
        o => o,
    }
}

/// The strides of a contiguous array of `shape` in `order` (`A` is taken as `C`).
///
/// ```
/// use ndarray_reshape::{layout::contiguous_strides, Order};
/// assert_eq!(contiguous_strides(&[2, 3, 4], Order::C), vec![12, 4, 1]);
/// assert_eq!(contiguous_strides(&[2, 3, 4], Order::F), vec![1, 2, 6]);
/// ```
pub fn contiguous_strides(shape: &[usize], order: Order) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    fill_contiguous_strides(shape, order, &mut strides);
    strides
}

/// [`contiguous_strides`] into `out` (as long as `shape`). All zero for an empty shape.
#[inline]
pub(crate) fn fill_contiguous_strides(shape: &[usize], order: Order, out: &mut [isize]) {
    fill_strides(shape, order, out, |v| v as isize);
}

/// `shape` with ndarray's default strides for it in `order`, as ndarray dims built by `mk`
/// (`IxDyn`, or [`typed_dim`] for a rank-typed result): the layout of a contiguous view or
/// copy. A fixed rank takes ndarray's own default strides, computed in registers; an `IxDyn`
/// has them written in place into a zeroed dim ([`dim_filled`](crate::ext::dim_filled); ndarray's
/// `default_strides` measured slower on the `IxDyn` view path, 54 against 43 ns).
#[inline(always)]
pub(crate) fn contiguous_shape_in<E: ndarray::Dimension>(
    shape: &[usize],
    order: Order,
    mk: impl Fn(&[usize]) -> E,
) -> ndarray::StrideShape<E> {
    use ndarray::ShapeBuilder;
    if E::NDIM.is_some() {
        return mk(shape).set_f(order == Order::F).into();
    }
    let strides = crate::ext::dim_filled(shape.len(), |s| fill_strides(shape, order, s, |v| v));
    mk(shape).strides(strides)
}

/// `v` as a dimension of type `E`, whose rank the caller has checked to be `v.len()` (a fixed
/// rank is filled in registers; an `IxDyn` is built from the slice).
#[inline(always)]
pub(crate) fn typed_dim<E: ndarray::Dimension>(v: &[usize]) -> E {
    debug_assert!(E::NDIM.unwrap_or(v.len()) == v.len());
    crate::ext::dim_filled(v.len(), |d| d.copy_from_slice(v))
}

#[inline(always)]
fn fill_strides<T: Copy>(shape: &[usize], order: Order, out: &mut [T], of: impl Fn(usize) -> T) {
    if shape.contains(&0) {
        out.iter_mut().for_each(|s| *s = of(0));
        return;
    }
    // The products stay below `isize::MAX`: the shape's size was checked.
    let mut acc: usize = 1;
    let mut set = |i: usize| {
        out[i] = of(acc);
        acc = acc.wrapping_mul(shape[i]);
    };
    match order {
        Order::F => (0..shape.len()).for_each(&mut set),
        _ => (0..shape.len()).rev().for_each(&mut set),
    }
}

/// The offset (`<= 0`, in elements) from the element at index `[0, ..., 0]` to the lowest address
/// a non-empty layout touches: the sum of `stride * (len - 1)` over negative strides.
pub(crate) fn low_offset(shape: &[usize], strides: &[isize]) -> isize {
    shape
        .iter()
        .zip(strides)
        .filter(|&(&d, &s)| s < 0 && d > 1)
        .map(|(&d, &s)| s * (d as isize - 1))
        .sum()
}

/// The strides that make `new_shape` a view of an array with `shape` and `strides`, read in
/// `order`, or `None` when the reshape needs a copy (or the sizes differ).
///
/// This is NumPy's `_attempt_nocopy_reshape`: drop the input's length-1 axes, cut both shapes
/// into the smallest groups of consecutive axes with equal products, and require every group of
/// input axes to be evenly spaced in the reading order. Zero and negative strides can form
/// views. An empty array is always a view (its strides are then all zero). [`Order::A`] is
/// resolved from the input layout first.
///
/// ```text
/// (4, 3) strides (6, 2)  ->  (2, 2, 3): the 4 splits into 2 x 2 with strides 12, 6
///                                       the 3 keeps stride 2            => view (12, 6, 2)
/// (4, 3) strides (1, 4)  ->  (12,) in C order: 4 then 3 is not evenly spaced => copy
/// ```
///
/// ```
/// use ndarray_reshape::{layout::view_strides, Order};
/// assert_eq!(view_strides(&[4, 3], &[6, 2], &[2, 2, 3], Order::C), Some(vec![12, 6, 2]));
/// assert_eq!(view_strides(&[4, 3], &[1, 4], &[12], Order::C), None);
/// assert_eq!(view_strides(&[4, 3], &[1, 4], &[12], Order::F), Some(vec![1]));
/// assert_eq!(view_strides(&[3], &[0], &[3, 1], Order::C), Some(vec![0, 0]));
/// ```
pub fn view_strides(
    shape: &[usize],
    strides: &[isize],
    new_shape: &[usize],
    order: Order,
) -> Option<Vec<isize>> {
    let mut out = vec![0isize; new_shape.len()];
    view_strides_into(shape, strides, new_shape, order, &mut out).then_some(out)
}

/// [`view_strides`] writing into `out` (of `new_shape.len()`), for callers that own a buffer.
pub(crate) fn view_strides_into(
    shape: &[usize],
    strides: &[isize],
    new_shape: &[usize],
    order: Order,
    out: &mut [isize],
) -> bool {
    if shape.len() != strides.len() || out.len() != new_shape.len() {
        return false;
    }
    let size = crate::spec::checked_size(shape.iter().copied());
    let new_size = crate::spec::checked_size(new_shape.iter().copied());
    if size.is_none() || size != new_size {
        return false;
    }
    let order = resolve_order(shape, strides, order);
    solve(shape, strides, new_shape, order, size == Some(0), out)
}

/// The solver proper. The sizes of `shape` and `new_shape` must be equal (and bounded),
/// `order` resolved (`C` or `F`), `empty` whether that size is 0, and `out` as long as
/// `new_shape`.
#[inline]
pub(crate) fn solve(
    shape: &[usize],
    strides: &[isize],
    new_shape: &[usize],
    order: Order,
    empty: bool,
    out: &mut [isize],
) -> bool {
    if empty {
        out.iter_mut().for_each(|s| *s = 0);
        return true;
    }
    if let [flat] = out {
        return solve_flat(shape, strides, order == Order::F, flat);
    }
    // The input's axes longer than 1, packed (length-1 axes address nothing and join any
    // neighbour): on the stack up to `INLINE` axes, which also spares the group loop below
    // from skipping them.
    let mut dims = [0usize; INLINE];
    let mut steps = [0isize; INLINE];
    let (mut heap_dims, mut heap_steps);
    let (dims, steps): (&mut [usize], &mut [isize]) = if shape.len() <= INLINE {
        (&mut dims[..shape.len()], &mut steps[..shape.len()])
    } else {
        heap_dims = vec![0usize; shape.len()];
        heap_steps = vec![0isize; shape.len()];
        (&mut heap_dims, &mut heap_steps)
    };
    let mut ond = 0;
    for (&d, &s) in shape.iter().zip(strides) {
        if d != 1 {
            dims[ond] = d;
            steps[ond] = s;
            ond += 1;
        }
    }
    solve_packed(
        &dims[..ond],
        &steps[..ond],
        new_shape,
        order == Order::F,
        out,
    )
}

/// [`solve`] into a 1-D shape (a flatten, the most common reshape), what [`solve_packed`] finds
/// for one group without its bookkeeping: a view when the input's axes longer than 1 are evenly
/// spaced in the reading order, its stride that of the one read fastest (1 when there is none).
#[inline]
fn solve_flat(shape: &[usize], strides: &[isize], f: bool, out: &mut isize) -> bool {
    let n = shape.len();
    let mut inner: Option<isize> = None;
    for i in 0..n {
        let k = if f { n - 1 - i } else { i };
        let (d, s) = (shape[k], strides[k]);
        if d == 1 {
            continue;
        }
        // The axis read before this one must step over it exactly.
        if inner.is_some() && inner != (d as isize).checked_mul(s) {
            return false;
        }
        inner = Some(s);
    }
    *out = inner.unwrap_or(1);
    true
}

/// [`solve`] on an input without length-1 axes (`shape`, `strides`), in F order if `f`.
#[inline]
fn solve_packed(
    shape: &[usize],
    strides: &[isize],
    new: &[usize],
    f: bool,
    out: &mut [isize],
) -> bool {
    // Every product of dims below stays within the (bounded, equal) sizes; strides are
    // multiplied checked, and a stride that does not fit in isize means no view.
    let ond = shape.len();
    let newnd = new.len();
    let mut ni = 0usize;
    let mut oi = 0usize;
    while ni < newnd && oi < ond {
        // Grow the groups new[ni..nj] and old[oi..oj] until their products agree.
        let mut nj = ni + 1;
        let mut oj = oi + 1;
        let mut np = new[ni];
        let mut op = shape[oi];
        while np != op {
            if np < op {
                if nj >= newnd {
                    return false;
                }
                np *= new[nj];
                nj += 1;
            } else {
                if oj >= ond {
                    return false;
                }
                op *= shape[oj];
                oj += 1;
            }
        }
        // The input axes of the group must be evenly spaced in the reading order.
        for k in oi + 1..oj {
            let joined = if f {
                Some(strides[k]) == (shape[k - 1] as isize).checked_mul(strides[k - 1])
            } else {
                Some(strides[k - 1]) == (shape[k] as isize).checked_mul(strides[k])
            };
            if !joined {
                return false;
            }
        }
        // The strides of the new axes ni..nj, written straight into `out`.
        if f {
            out[ni] = strides[oi];
            for nk in ni + 1..nj {
                match out[nk - 1].checked_mul(new[nk - 1] as isize) {
                    Some(w) => out[nk] = w,
                    None => return false,
                }
            }
        } else {
            out[nj - 1] = strides[oj - 1];
            for nk in (ni + 1..nj).rev() {
                match out[nk].checked_mul(new[nk] as isize) {
                    Some(w) => out[nk - 1] = w,
                    None => return false,
                }
            }
        }
        ni = nj;
        oi = oj;
    }
    // Trailing length-1 axes of the new shape (their stride computed only when there are any:
    // an F-order product that overflows otherwise rejected a view needing none).
    if ni == newnd {
        return true;
    }
    let mut last = if ni >= 1 { out[ni - 1] } else { 1 };
    if f && ni >= 1 {
        match last.checked_mul(new[ni - 1] as isize) {
            Some(l) => last = l,
            None => return false,
        }
    }
    for w in out.iter_mut().skip(ni) {
        *w = last;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_table() {
        // (shape, strides, new, order, expected)
        type Case<'a> = (
            &'a [usize],
            &'a [isize],
            &'a [usize],
            Order,
            Option<&'a [isize]>,
        );
        let table: &[Case] = &[
            (&[2, 3, 4], &[12, 4, 1], &[6, 4], Order::C, Some(&[4, 1])),
            (&[2, 3, 4], &[12, 4, 1], &[24], Order::F, None),
            (&[2, 3], &[1, 2], &[6], Order::F, Some(&[1])),
            (&[2, 3], &[1, 2], &[6], Order::A, Some(&[1])),
            (&[2, 3], &[1, 2], &[6], Order::C, None),
            (&[4], &[-1], &[2, 2], Order::C, Some(&[-2, -1])),
            (&[4], &[0], &[2, 2], Order::C, Some(&[0, 0])),
            (&[2, 1, 3], &[3, 100, 1], &[6], Order::C, Some(&[1])),
            (&[2, 0], &[5, 5], &[0, 7], Order::C, Some(&[0, 0])),
            (&[], &[], &[1, 1], Order::C, Some(&[1, 1])),
            (&[1], &[9], &[], Order::C, Some(&[])),
            (&[6], &[2], &[2, 3, 1], Order::C, Some(&[6, 2, 2])),
            (&[6], &[2], &[2, 3, 1], Order::F, Some(&[2, 4, 12])),
            (&[2, 3], &[3, 1], &[7], Order::C, None),
        ];
        for &(shape, strides, new, order, want) in table {
            assert_eq!(
                view_strides(shape, strides, new, order).as_deref(),
                want,
                "{shape:?} {strides:?} -> {new:?} {order:?}"
            );
        }
    }

    /// The flatten shortcut finds what the general solver finds, on every layout of up to 4
    /// axes of lengths 1 to 3 with strides from a set that includes zero, negative,
    /// chained and overflowing ones.
    #[test]
    fn flat_solver_matches_the_general_one() {
        let steps = [
            0isize,
            1,
            -1,
            2,
            3,
            -3,
            6,
            9,
            -9,
            18,
            isize::MAX,
            isize::MIN,
        ];
        let mut checked = 0;
        for nd in 0..=4usize {
            for code in 0..3usize.pow(nd as u32) * steps.len().pow(nd as u32) {
                let (mut c, mut shape, mut strides) = (code, vec![], vec![]);
                for _ in 0..nd {
                    shape.push(1 + c % 3);
                    c /= 3;
                    strides.push(steps[c % steps.len()]);
                    c /= steps.len();
                }
                let size: usize = shape.iter().product();
                for f in [false, true] {
                    let (dims, st): (Vec<usize>, Vec<isize>) = shape
                        .iter()
                        .zip(&strides)
                        .filter(|(&d, _)| d != 1)
                        .map(|(&d, &s)| (d, s))
                        .unzip();
                    let mut general = [0isize];
                    let g = solve_packed(&dims, &st, &[size], f, &mut general);
                    let mut flat = 0isize;
                    let q = solve_flat(&shape, &strides, f, &mut flat);
                    assert_eq!(
                        (q, q.then_some(flat)),
                        (g, g.then_some(general[0])),
                        "{shape:?} {strides:?} f={f}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn never_panics_on_extreme_input() {
        assert_eq!(
            view_strides(&[usize::MAX, 2], &[1, 1], &[2, usize::MAX], Order::C),
            None
        );
        assert_eq!(
            view_strides(&[2, 2], &[isize::MAX, isize::MIN], &[4], Order::C),
            None
        );
        assert_eq!(view_strides(&[2], &[1, 1], &[2], Order::C), None);
        let _ = view_strides(&[3, 3], &[isize::MAX, 1], &[9], Order::F);
    }
}
