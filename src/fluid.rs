//! Paddle's legacy `fluid.layers.reshape(x, shape, actual_shape, act, inplace)`.
//!
//! The shape rules are [`Paddle`]'s; `actual_shape` is [`Paddle::actual_shape`]. What fluid adds
//! is an activation applied after the reshape, over the new shape ([`Act`]), and `inplace`,
//! which makes the output reuse the input's buffer.
//!
//! ```
//! use ndarray::{array, Array};
//! use ndarray_reshape::fluid::{Act, Reshape};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = Array::from_iter([-2.0f32, -1.0, 0.0, 1.0, 2.0, 3.0]);
//! let ptr = x.as_ptr();
//! let y = Reshape::new([2, -1]).act(Act::Relu).inplace(true).run(x)?;
//! assert_eq!(y, array![[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]].into_dyn());
//! assert_eq!(y.as_ptr(), ptr); // inplace: the same buffer
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

use std::fmt;
use std::sync::Arc;

use ndarray::{Array, ArrayRef, ArrayViewMut, Axis, CowArray, Dimension, IxDyn};
use num_traits::Float;

use crate::dialect::paddle::Paddle;
use crate::dialect::IntoSpec;
use crate::entries::IntoSpecList;
use crate::error::ReshapeError;
use crate::error::{Fail, Origin, Rule};
use crate::ext::ReshapeExt;

/// A user activation: a function over the reshaped array, in place.
pub type ActFn<A> = Arc<dyn Fn(ArrayViewMut<'_, A, IxDyn>) + Send + Sync>;

/// An activation applied after a fluid reshape, over the new shape.
///
/// ```
/// use ndarray::{array, ArrayViewMut, IxDyn};
/// use ndarray_reshape::fluid::Act;
///
/// let mut a = array![[1.0f64, 1.0], [0.0, 2.0f64.ln()]].into_dyn();
/// Act::Softmax.apply(a.view_mut());
/// assert!((a[[0, 0]] - 0.5).abs() < 1e-12 && (a[[1, 1]] - 2.0 / 3.0).abs() < 1e-12);
/// Act::map(|v: f64| v * 3.0).apply(a.view_mut());
/// assert!((a[[0, 1]] - 1.5).abs() < 1e-12);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum Act<A> {
    /// `max(x, 0)`.
    Relu,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `tanh(x)`.
    Tanh,
    /// Softmax over the last axis of the new shape (numerically stable: the row maximum is
    /// subtracted first). On a 0-d output it is over the single element.
    Softmax,
    /// Any function over the reshaped array, in place.
    Custom(ActFn<A>),
}

impl<A> fmt::Debug for Act<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Act::Relu => "Relu",
            Act::Sigmoid => "Sigmoid",
            Act::Tanh => "Tanh",
            Act::Softmax => "Softmax",
            Act::Custom(_) => "Custom(..)",
        })
    }
}

impl<A: 'static> Act<A> {
    /// The activation Paddle names `name` in a program's `act` attribute: `"relu"`,
    /// `"sigmoid"`, `"tanh"` or `"softmax"`; `None` for the empty name (no activation).
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadAttribute`] for any other name.
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::fluid::{Act, Reshape};
    ///
    /// let act = Act::<f32>::from_name("relu")?.expect("an activation");
    /// let y = Reshape::new([2]).act(act).run(array![-1.0f32, 2.0])?;
    /// assert_eq!(y, array![0.0, 2.0].into_dyn());
    /// assert!(Act::<f32>::from_name("")?.is_none());
    /// assert_eq!(Act::<f32>::from_name("gelu").unwrap_err().category(), "bad_attribute");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn from_name(name: &str) -> Result<Option<Self>, ReshapeError> {
        Ok(Some(match name {
            "" => return Ok(None),
            "relu" => Act::Relu,
            "sigmoid" => Act::Sigmoid,
            "tanh" => Act::Tanh,
            "softmax" => Act::Softmax,
            _ => {
                let detail = format!("{name:?} is not relu, sigmoid, tanh or softmax");
                return Err(Fail::new(Rule::BadAttribute, None, detail)
                    .attach_no_input(Origin::Paddle, format!("act={name:?}")));
            }
        }))
    }

    /// A user function over the whole reshaped array.
    ///
    /// ```
    /// use ndarray_reshape::fluid::Act;
    /// let clip = Act::<f32>::custom(|mut a| a.mapv_inplace(|v| v.clamp(-1.0, 1.0)));
    /// assert_eq!(format!("{clip:?}"), "Custom(..)");
    /// ```
    pub fn custom(f: impl Fn(ArrayViewMut<'_, A, IxDyn>) + Send + Sync + 'static) -> Self {
        Act::Custom(Arc::new(f))
    }

    /// A user function applied to every element.
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::fluid::Act;
    /// let mut a = array![1.0f32, 2.0].into_dyn();
    /// Act::map(|v: f32| v * v).apply(a.view_mut());
    /// assert_eq!(a, array![1.0, 4.0].into_dyn());
    /// ```
    pub fn map(f: impl Fn(A) -> A + Send + Sync + 'static) -> Self
    where
        A: Clone,
    {
        Act::custom(move |mut a| a.mapv_inplace(&f))
    }
}

impl<A: Float> Act<A> {
    /// Apply the activation in place.
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::fluid::Act;
    /// let mut a = array![-1.0f32, 0.5].into_dyn();
    /// Act::Relu.apply(a.view_mut());
    /// assert_eq!(a, array![0.0, 0.5].into_dyn());
    /// ```
    pub fn apply(&self, mut a: ArrayViewMut<'_, A, IxDyn>) {
        match self {
            Act::Relu => a.mapv_inplace(|v| if v > A::zero() { v } else { A::zero() }),
            Act::Sigmoid => a.mapv_inplace(|v| A::one() / (A::one() + (-v).exp())),
            Act::Tanh => a.mapv_inplace(Float::tanh),
            Act::Softmax => {
                if a.ndim() == 0 {
                    a.mapv_inplace(|_| A::one());
                    return;
                }
                let last = Axis(a.ndim() - 1);
                for mut lane in a.lanes_mut(last) {
                    let max = lane.fold(A::neg_infinity(), |m, &v| m.max(v));
                    lane.mapv_inplace(|v| (v - max).exp());
                    let sum = lane.fold(A::zero(), |s, &v| s + v);
                    lane.mapv_inplace(|v| v / sum);
                }
            }
            Act::Custom(f) => f(a),
        }
    }
}

/// `fluid.layers.reshape`: a [`Paddle`] spec (with `actual_shape`), an optional [`Act`], and
/// `inplace`.
///
/// # Errors
///
/// The [`Paddle`] spec's errors.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array};
/// use ndarray_reshape::fluid::{Act, Reshape};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::<f32, _>::zeros((2, 6));
/// let shape_tensor = array![3i32, -1];
/// let r = Reshape::new([0, -1]).actual_shape(&shape_tensor).act(Act::Sigmoid);
/// let y = r.run_view(&x)?; // borrowed input: an activation always gives a fresh array
/// assert_eq!(y.shape(), &[3, 4]);
/// assert!(y.iter().all(|&v| v == 0.5));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Reshape<A> {
    spec: Paddle,
    act: Option<Act<A>>,
    inplace: bool,
}

impl<A: Float + Send + Sync> Reshape<A> {
    /// The `shape` argument: a list, a shape tensor, a list with [`ShapeItem`](crate::args::ShapeItem)s,
    /// or a [`Paddle`] spec.
    ///
    /// ```
    /// use ndarray_reshape::fluid::Reshape;
    /// let r = Reshape::<f32>::new([-1, 4]);
    /// let y = r.run(ndarray::Array::zeros(8)).unwrap();
    /// assert_eq!(y.shape(), &[2, 4]);
    /// ```
    pub fn new(shape: impl IntoSpec<Paddle, Spec = Paddle>) -> Self {
        Reshape {
            spec: shape.into_spec(),
            act: None,
            inplace: false,
        }
    }

    /// `actual_shape`: a shape tensor that takes priority over `shape`.
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::fluid::Reshape;
    /// let r = Reshape::<f64>::new([8]).actual_shape(&array![2i64, 4]);
    /// assert_eq!(r.run(ndarray::Array::zeros(8)).unwrap().shape(), &[2, 4]);
    /// ```
    pub fn actual_shape(mut self, shape: impl IntoSpecList) -> Self {
        self.spec = self.spec.actual_shape(shape);
        self
    }

    /// `act`: an activation applied after the reshape.
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::fluid::{Act, Reshape};
    /// let y = Reshape::new([1, 2]).act(Act::Tanh).run(array![0.0f64, 0.0]).unwrap();
    /// assert_eq!(y, array![[0.0, 0.0]].into_dyn());
    /// ```
    pub fn act(mut self, act: Act<A>) -> Self {
        self.act = Some(act);
        self
    }

    /// `inplace`: the output reuses the input's buffer (when the strides permit a view; a
    /// non-contiguous owned input is copied as Paddle would make it contiguous first).
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::fluid::Reshape;
    /// let x = Array::<f32, _>::zeros((3, 4));
    /// let p = x.as_ptr();
    /// assert_eq!(Reshape::new([-1]).inplace(true).run(x).unwrap().as_ptr(), p);
    /// ```
    pub fn inplace(mut self, inplace: bool) -> Self {
        self.inplace = inplace;
        self
    }

    /// The Paddle spec this reshape uses.
    ///
    /// ```
    /// use ndarray_reshape::{fluid::Reshape, Paddle};
    /// assert_eq!(Reshape::<f32>::new([2, 3]).spec(), &Paddle::new([2, 3]));
    /// ```
    pub fn spec(&self) -> &Paddle {
        &self.spec
    }

    /// Run on an owned input, which is consumed. With `inplace` the output reuses its buffer
    /// whenever the strides permit; without, the output is a fresh array.
    ///
    /// # Errors
    ///
    /// The [`Paddle`] spec's errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::fluid::{Act, Reshape};
    /// let x = Array::from_iter([-1.0f32, 1.0]);
    /// let y = Reshape::new([2, 1]).act(Act::Relu).run(x).unwrap();
    /// assert_eq!(y.iter().copied().collect::<Vec<_>>(), vec![0.0, 1.0]);
    /// ```
    pub fn run<D: Dimension>(&self, x: Array<A, D>) -> Result<Array<A, IxDyn>, ReshapeError> {
        let mut y = if self.inplace {
            // One plan: the buffer with the new layout when the strides permit, else a copy.
            x.into_reshape_clone(&self.spec)?
        } else {
            x.reshape_owned(&self.spec)?
        };
        if let Some(act) = &self.act {
            act.apply(y.view_mut());
        }
        Ok(y)
    }

    /// Run on a borrowed input: a view when there is no activation and the strides permit,
    /// otherwise a fresh array with the activation applied. `inplace` needs ownership and is
    /// ignored here (use [`run`](Self::run)).
    ///
    /// # Errors
    ///
    /// The [`Paddle`] spec's errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::fluid::Reshape;
    /// let x = Array::<f32, _>::zeros((2, 3));
    /// assert!(Reshape::new([3, 2]).run_view(&x).unwrap().is_view());
    /// ```
    pub fn run_view<'a, D>(
        &self,
        x: &'a ArrayRef<A, D>,
    ) -> Result<CowArray<'a, A, IxDyn>, ReshapeError>
    where
        D: Dimension,
    {
        match &self.act {
            None => x.reshape_with(&self.spec),
            Some(act) => {
                let mut y = x.reshape_owned(&self.spec)?;
                act.apply(y.view_mut());
                Ok(CowArray::from(y))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use ndarray::array;

    #[test]
    fn activations() {
        let x = array![[-1.0f64, 0.0, 1.0], [2.0, -3.0, 0.5]];
        let y = Reshape::new([3, 2])
            .act(Act::Sigmoid)
            .run(x.clone())
            .unwrap();
        assert_abs_diff_eq!(y[[0, 0]], 1.0 / (1.0 + 1.0f64.exp()), epsilon = 1e-12);
        let y = Reshape::new([-1]).act(Act::Tanh).run(x.clone()).unwrap();
        assert_abs_diff_eq!(y[[2]], 1.0f64.tanh(), epsilon = 1e-12);
        let y = Reshape::new([2, 3])
            .act(Act::Softmax)
            .run(x.clone())
            .unwrap();
        for row in y.rows() {
            assert_abs_diff_eq!(row.sum(), 1.0, epsilon = 1e-12);
        }
        // Softmax over the *new* last axis: (3, 2) rows pair different elements.
        let y = Reshape::new([3, 2])
            .act(Act::Softmax)
            .run(x.clone())
            .unwrap();
        assert_abs_diff_eq!(y[[0, 0]], 1.0 / (1.0 + 1.0f64.exp()), epsilon = 1e-12);
        let big = array![1000.0f32, 1000.0];
        let y = Reshape::new([2]).act(Act::Softmax).run(big).unwrap();
        assert_eq!(y, array![0.5f32, 0.5].into_dyn());
        let y = Reshape::new([0usize; 0])
            .act(Act::Softmax)
            .run(array![7.0f32])
            .unwrap();
        assert_eq!(y.shape(), &[] as &[usize]);
        assert_eq!(y[[]], 1.0);
    }

    #[test]
    fn inplace_and_not() {
        let x = Array::from_iter((0..6).map(f64::from));
        let p = x.as_ptr();
        let y = Reshape::new([2, 3]).inplace(true).run(x).unwrap();
        assert_eq!(y.as_ptr(), p);
        let x = Array::from_iter((0..6).map(f64::from));
        let p = x.as_ptr();
        let y = Reshape::new([2, 3]).run(x).unwrap();
        assert_ne!(y.as_ptr(), p);
        // A non-contiguous owned input cannot be reused: it is copied, values right.
        let x = Array::from_iter((0..6).map(f64::from))
            .into_shape_with_order((2, 3))
            .unwrap();
        let xt = x.reversed_axes();
        let y = Reshape::new([-1]).inplace(true).run(xt).unwrap();
        assert_eq!(y, array![0.0, 3.0, 1.0, 4.0, 2.0, 5.0].into_dyn());
        // A sliced owned input keeps its buffer.
        let x = Array::from_iter((0..12).map(f64::from))
            .slice_axis_move(ndarray::Axis(0), ndarray::Slice::from(4..));
        let y = Reshape::new([2, 4])
            .inplace(true)
            .act(Act::Relu)
            .run(x)
            .unwrap();
        assert_eq!(
            y,
            array![[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]].into_dyn()
        );
        // Errors come through.
        let x = Array::<f32, _>::zeros(6);
        assert_eq!(
            Reshape::new([4, -1]).run(x).unwrap_err().category(),
            "infer_not_divisible"
        );
    }
}
