//! The slow, obviously correct reference for a reshape of an array, shared by the no-panic
//! sweep (`tests/sweep.rs`) and the fuzz targets (`fuzz/fuzz_targets/common.rs`).

use ndarray::ArrayViewD;
use ndarray_reshape::{layout::resolve_order, Order, ReshapeError, ReshapeExt, ShapeSpec};

/// The input's elements in the reading order (`order` resolved for the input's layout).
pub fn in_reading_order(x: &ArrayViewD<'_, i64>, order: Order) -> Vec<i64> {
    match order {
        Order::F => x.t().iter().copied().collect(),
        _ => x.iter().copied().collect(),
    }
}

/// Checks `x.reshape_with(spec)` against the reference: `Ok(true)` for a success that passed,
/// `Ok(false)` for an error that `infer_shape` gives too, `Err` naming any disagreement:
///
/// - the array method and `infer_shape` on the shape alone agree, error for error, and an
///   error's message starts with its category;
/// - a success has the inferred shape and the input's element count;
/// - its values are the input's read in the reading order, written in that order;
/// - it is a view exactly when the strict `reshape_view` succeeds (which otherwise says
///   `NeedsCopy`), and a view of a non-empty input starts at the input's data;
/// - `reshape_owned` holds the same values;
/// - the consuming `into_reshape_clone` of the view gives the same array, a view exactly when
///   `reshape_with` gives one, and of an owned copy the same values.
pub fn check<P: ShapeSpec + Clone>(x: &ArrayViewD<'_, i64>, spec: P) -> Result<bool, String> {
    let inferred = spec.infer_shape(x.shape());
    let got = x.reshape_with(spec.clone());
    match (&got, &inferred) {
        (Ok(y), Ok(s)) => {
            if y.shape() != s.as_slice() {
                return Err(format!("array {:?} vs infer {s:?}", y.shape()));
            }
            if y.len() != x.len() {
                return Err("element count changed".into());
            }
            let order = resolve_order(x.shape(), x.strides(), spec.order());
            let have: Vec<i64> = match order {
                Order::F => y.t().iter().copied().collect(),
                _ => y.iter().copied().collect(),
            };
            if in_reading_order(x, order) != have {
                return Err("values differ from the reference".into());
            }
            let strict = x.reshape_view(spec.clone());
            if y.is_view() != strict.is_ok() {
                return Err("reshape_view disagrees on view or copy".into());
            }
            if let Err(e) = strict {
                if !matches!(e, ReshapeError::NeedsCopy(_)) {
                    return Err(format!("reshape_view failed with {e}, not needs_copy"));
                }
            }
            if y.is_view() && !x.is_empty() && y.as_ptr() != x.as_ptr() {
                return Err("a view that does not start at the input's data".into());
            }
            let owned = x
                .reshape_owned(spec.clone())
                .map_err(|e| format!("reshape_owned: {e}"))?;
            if !owned.iter().eq(y.iter()) {
                return Err("reshape_owned differs from reshape_with".into());
            }
            let consumed = x
                .clone()
                .into_reshape_clone(spec.clone())
                .map_err(|e| format!("into_reshape_clone: {e}"))?;
            if consumed.shape() != y.shape()
                || consumed.is_view() != y.is_view()
                || !consumed.iter().eq(y.iter())
                || (y.is_view() && consumed.as_ptr() != y.as_ptr())
            {
                return Err("into_reshape_clone of the view differs from reshape_with".into());
            }
            let from_owned = x
                .to_owned()
                .into_reshape_clone(spec)
                .map_err(|e| format!("into_reshape_clone of an owned copy: {e}"))?;
            if from_owned.shape() != y.shape() || !from_owned.iter().eq(y.iter()) {
                return Err("into_reshape_clone of an owned copy differs".into());
            }
            Ok(true)
        }
        (Err(a), Err(b)) if a == b => {
            if !a.to_string().starts_with(a.category()) {
                return Err(format!("message does not start with its category: {a}"));
            }
            Ok(false)
        }
        _ => Err(format!("array {got:?} vs infer {inferred:?}")),
    }
}
