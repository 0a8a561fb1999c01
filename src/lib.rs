//! MXNet, Paddle and NumPy reshape semantics for [`ndarray`] arrays, with zero-copy views
//! whenever the strides permit (exactly when NumPy would give one) and parallel copies otherwise.
//!
//! # Quick start
//!
//! ```
//! use ndarray::Array;
//! use ndarray_reshape::{Like, Mx, Np, Order, Paddle, ReshapeExt, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
//!
//! // MXNet Reshape: -4 splits a dim, -2 copies the rest.
//! let y = x.reshape_mx(&[-4, 1, 2, -2])?;
//! assert_eq!(y.shape(), &[1, 2, 3, 4]);
//! assert!(y.is_view());
//!
//! // Paddle: 0 copies the dim at the same index, -1 is inferred.
//! assert_eq!(x.reshape_paddle(&[0, -1])?.shape(), &[2, 12]);
//!
//! // NumPy with an order: a transposed input read in C order is copied.
//! let t = x.t();
//! let c = t.reshape_np(&[-1], Order::C)?;
//! assert!(!c.is_view());
//! assert!(t.reshape_np(&[-1], Order::F)?.is_view());
//!
//! // reshape_like, and shape inference without data.
//! assert_eq!(Like::new(&[6, 4]).infer_shape(&[2, 3, 4])?, vec![6, 4]);
//! assert_eq!(Mx::new(&[-1, 0]).reverse(true).infer_shape(&[10, 5, 4])?, vec![50, 4]);
//! # Ok(())
//! # }
//! ```
//!
//! # Which call is which
//!
//! | you know | here |
//! |---|---|
//! | `mx.nd.reshape(x, shape=s, reverse=r)` | `x.reshape_mx(Mx::new(s).reverse(r))` |
//! | `mx.nd.reshape(x, target_shape=t, keep_highest=k)` | `x.reshape_with(Mx::target_shape(t).keep_highest(k))` |
//! | `mx.nd.reshape_like(x, y, lhs_begin=.., ...)` | `x.reshape_like(&y)`, `x.reshape_with(Like::new(y.shape()).lhs(b, e).rhs(b, e))` |
//! | `paddle.reshape(x, shape)` (list or tensor) | `x.reshape_paddle(shape)` |
//! | `fluid.layers.reshape(x, shape, actual_shape, act, inplace)` | [`fluid::Reshape`] |
//! | `np.reshape(a, s, order=o)`, `a.reshape(s, order=o)` | `a.reshape_np(s, o)` |
//! | NumPy `a.shape = s` (never copies) | `a.reshape_view(Np::new(s, Order::C))` |
//! | ndarray `to_shape` | `reshape_with(Np::new(s, Order::C))` |
//!
//! # Special values
//!
//! | value | MXNet [`Mx`] | Paddle [`Paddle`] | NumPy [`Np`] |
//! |---|---|---|---|
//! | `d > 0` | `d` | `d` | `d` |
//! | `0` | input dim at the read position | input dim at the same index (literal 0 on empty input) | literal 0 |
//! | `-1` | inferred | inferred | inferred |
//! | `-2` | all remaining input dims | error | error |
//! | `-3` | product of the next two input dims | error | error |
//! | `-4 a b` | split the next input dim into `a, b` | error | error |
//!
//! # Views and copies
//!
//! Every method first computes the target shape, then asks [`layout::view_strides`] whether the
//! input's strides can express it. A view keeps the input's data pointer and allocates no
//! element data. Otherwise the data is copied, contiguous in the reading order, in parallel for
//! large arrays. The strict methods ([`ReshapeExt::reshape_view`],
//! [`ReshapeExt::reshape_view_mut`], [`ReshapeExt::into_reshape`]) never copy and return
//! [`ReshapeError::NeedsCopy`] instead.
//!
//! # Features
//!
//! - `rayon` (default): large copies run on the caller's rayon pool. Without it every copy is
//!   serial.
//!
//! # Minimum Rust version
//!
//! 1.80.
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Table-driven unit tests use tuple-typed tables.
#![cfg_attr(test, allow(clippy::type_complexity))]

mod copy;
pub mod error;
mod ext;
pub mod fluid;
pub mod layout;
mod small;
mod spec;

pub use error::{Dialect, ErrorContext, ReshapeError};
pub use ext::{IntoReshapeData, ReshapeExt};
pub use layout::Order;
pub use spec::like::{IntoLike, Like};
pub use spec::mx::{Mx, MxTarget};
pub use spec::np::Np;
pub use spec::paddle::Paddle;
pub use spec::{IntoSpec, ShapeItem, ShapeSpec, SpecInt, SpecList, SpecValues};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
