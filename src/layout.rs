//! Shapes and strides only: contiguity, order-A resolution, and the no-copy stride solver
//! [`view_strides`], which decides view versus copy exactly as NumPy does.
//!
//! Strides are in elements and signed, as `ndarray`'s `strides()` gives them.

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
pub fn is_f_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    contiguous(shape.iter().zip(strides.iter()), shape)
}

fn contiguous<'a>(axes: impl Iterator<Item = (&'a usize, &'a isize)>, shape: &[usize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected: i128 = 1;
    for (&d, &s) in axes {
        if d != 1 {
            if s as i128 != expected {
                return false;
            }
            expected *= d as i128;
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
    if shape.contains(&0) {
        return strides;
    }
    let mut acc: isize = 1;
    let mut set = |i: usize| {
        strides[i] = acc;
        acc = acc.wrapping_mul(shape[i] as isize);
    };
    match order {
        Order::F => (0..shape.len()).for_each(&mut set),
        _ => (0..shape.len()).rev().for_each(&mut set),
    }
    strides
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
    let size = crate::spec::checked_size(shape.iter().map(|&d| d as u128));
    let new_size = crate::spec::checked_size(new_shape.iter().map(|&d| d as u128));
    if size.is_none() || size != new_size {
        return false;
    }
    if size == Some(0) {
        out.iter_mut().for_each(|s| *s = 0);
        return true;
    }
    let f = resolve_order(shape, strides, order) == Order::F;
    // The input without its length-1 axes.
    let old: Vec<(u128, i128)> = shape
        .iter()
        .zip(strides)
        .filter(|(&d, _)| d != 1)
        .map(|(&d, &s)| (d as u128, s as i128))
        .collect();
    let new: &[usize] = new_shape;
    let (oldnd, newnd) = (old.len(), new.len());
    let (mut oi, mut oj, mut ni, mut nj) = (0usize, 1usize, 0usize, 1usize);
    let mut wide = vec![0i128; newnd];
    while ni < newnd && oi < oldnd {
        let mut np = new[ni] as u128;
        let mut op = old[oi].0;
        while np != op {
            if np < op {
                if nj >= newnd {
                    return false;
                }
                np *= new[nj] as u128;
                nj += 1;
            } else {
                if oj >= oldnd {
                    return false;
                }
                op *= old[oj].0;
                oj += 1;
            }
        }
        // The input axes oi..oj must be evenly spaced in the reading order.
        for ok in oi..oj - 1 {
            let joined = if f {
                old[ok + 1].1 == old[ok].0 as i128 * old[ok].1
            } else {
                old[ok].1 == old[ok + 1].0 as i128 * old[ok + 1].1
            };
            if !joined {
                return false;
            }
        }
        if f {
            wide[ni] = old[oi].1;
            for nk in ni + 1..nj {
                wide[nk] = wide[nk - 1] * new[nk - 1] as i128;
            }
        } else {
            wide[nj - 1] = old[oj - 1].1;
            for nk in (ni + 1..nj).rev() {
                wide[nk - 1] = wide[nk] * new[nk] as i128;
            }
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    // Trailing length-1 axes of the new shape.
    let mut last = if ni >= 1 { wide[ni - 1] } else { 1 };
    if f && ni >= 1 {
        last *= new[ni - 1] as i128;
    }
    for w in wide.iter_mut().skip(ni) {
        *w = last;
    }
    for (o, &w) in out.iter_mut().zip(&wide) {
        match isize::try_from(w) {
            Ok(w) => *o = w,
            Err(_) => return false,
        }
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
