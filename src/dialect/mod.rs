//! The dialects: the [`ShapeSpec`] trait, its crate side ([`sealed`]), and [`Rules`], what a
//! dialect's type implements (its scan over the input, generic over concrete and symbolic dims,
//! and its name in errors), made a `ShapeSpec` by one [`dialect!`] line.
//!
//! One file per dialect (`mx`, `like`, `paddle`, `np`, `npx`, `onnx`), each a scan over the
//! resolved entries of `crate::entries` into the engine of `crate::infer`, and einops in
//! `einops/` (patterns, their recipes, `reduce`, `pack`, `parse_shape`); beside them MXNet
//! attribute maps (`attrs`), typed results (`ranked`), backward inference (`backward`) and
//! lowering to ONNX (`lower`). Nothing here touches array data.
#![forbid(unsafe_code)]

use std::fmt;

use ndarray::Dimension;

use crate::dims::Order;
use crate::entries::SpecList;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::explain::Explanation;
use crate::infer::Extent;
use crate::small::Small;
use crate::sym::{Condition, SymDim, SymShape};

pub(crate) mod attrs;
pub(crate) mod backward;
pub(crate) mod einops;
pub(crate) mod like;
pub(crate) mod lower;
pub(crate) mod mx;
pub(crate) mod np;
pub(crate) mod npx;
pub(crate) mod onnx;
pub(crate) mod paddle;
pub(crate) mod ranked;

/// What makes a type a dialect: its rules as one scan over an input shape, generic over
/// concrete and symbolic dims. [`dialect!`] makes it a [`ShapeSpec`], whose failures get the
/// input, the spec as written and the origin attached there, once.
pub(crate) trait Rules: fmt::Display {
    /// The target shape for `input` into `dims`, and the conditions the rules need.
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail>;

    /// The spec list whose shape value's conditions every result holds under, and whether its
    /// entries stand at the input's indices (a `0`'s copy reads the same as a 0 there); `None`
    /// for a dialect with no such list.
    fn list(&self) -> Option<(&SpecList, bool)> {
        None
    }

    /// [`rules`](Self::rules), then the conditions of [`list`](Self::list)'s shape value (for
    /// `usize`, a `needs_number` failure when it has any): the one place they are added, so
    /// no dialect can drop them.
    #[inline(always)]
    fn infer<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let conds = self.rules(input, dims)?;
        match self.list() {
            None => Ok(conds),
            Some((list, at_input)) => list.assume(input, at_input, conds),
        }
    }

    /// The reading order: C for every dialect but NumPy's.
    #[inline]
    fn order(&self) -> Order {
        Order::C
    }
}

pub use einops::{parse_shape, Pack, PackedDim, Reduce};

pub use ranked::Ranked;
pub(crate) use sealed::Planned;

/// The crate's side of the public spec traits: what the modes call and no user needs. The
/// module is private, so no type outside the crate implements [`ShapeSpec`], and
/// these methods can change without breaking anyone.
pub(crate) mod sealed {
    use crate::error::{Origin, ReshapeError};
    use crate::layout::Arrangement;
    use crate::small::Small;
    use crate::sym::{Condition, SymDim};

    /// Where a plan's inference writes: the target shape, and for a spec that splits and permutes
    /// the input's axes before the reshape reads them in C order (an einops pattern), that
    /// arrangement, from the same inference (left `None` when the reshape reads the input as it
    /// is). Two pointers, passed in registers.
    pub struct Planned<'p> {
        pub(crate) dims: &'p mut Small<usize>,
        pub(crate) arranged: &'p mut Option<Arrangement>,
    }

    impl<'p> Planned<'p> {
        #[inline(always)]
        pub(crate) fn new(
            dims: &'p mut Small<usize>,
            arranged: &'p mut Option<Arrangement>,
        ) -> Self {
            Planned { dims, arranged }
        }
    }

    /// The inference behind [`ShapeSpec`](super::ShapeSpec).
    pub trait Spec {
        /// [`infer_shape`](super::ShapeSpec::infer_shape) into a caller's small inline buffer
        /// (no allocation for up to 8 dims, nothing large returned by value): the view path.
        fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError>;

        /// [`infer_into`](Self::infer_into) on symbolic dims; gives the conditions. The
        /// dialect's own algorithm, run on [`SymDim`]s.
        fn infer_sym(
            &self,
            input: &[SymDim],
            dims: &mut Small<SymDim>,
        ) -> Result<Small<Condition>, ReshapeError>;

        /// The dialect and the spec as written, for error messages.
        fn describe(&self) -> (Origin, String);

        /// The plan's inference into `out` (see [`Planned`]): [`infer_into`](Self::infer_into)
        /// for every spec but an einops pattern, which also arranges the input's axes.
        #[inline(always)]
        fn plan_into(&self, input: &[usize], out: Planned<'_>) -> Result<(), ReshapeError> {
            self.infer_into(input, out.dims)
        }

        /// Whether [`plan_into`](Self::plan_into) moves or repeats axes for some input: then the
        /// spec is no reshape (no single ONNX `Reshape`, no axis groups).
        #[inline(always)]
        fn permutes(&self) -> bool {
            false
        }
    }
}

/// A reshape spec of some dialect: computes the target shape from an input shape, without data.
///
/// Implemented by [`Mx`](crate::Mx), [`MxTarget`](crate::MxTarget), [`Like`](crate::Like),
/// [`Paddle`](crate::Paddle), [`Np`](crate::Np), [`Npx`](crate::Npx), [`Onnx`](crate::Onnx)
/// and einops' [`Rearrange`](crate::Rearrange) (a pattern that may also move and repeat axes),
/// and by references to them. Graph compilers
/// and model converters can call [`infer_shape`](Self::infer_shape) on shapes alone. The trait
/// is sealed so that methods can be added without breaking users.
///
/// ```
/// use ndarray_reshape::{Mx, Np, Order, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// assert_eq!(Mx::new([-3, -2]).infer_shape(&[2, 3, 4])?, vec![6, 4]);
/// assert_eq!(Np::new([3, -1], Order::F).infer_shape(&[6])?, vec![3, 2]);
/// # Ok(())
/// # }
/// ```
pub trait ShapeSpec: sealed::Spec {
    /// The dimension type of the arrays a reshape with this spec returns: `IxDyn` for a
    /// dialect's spec, `E` for [`spec.dim::<E>()`](Self::dim).
    type Rank: Dimension + 'static;

    /// This spec with results of the dimension type `E` (`Ix1`, `Ix2`, ..., or `IxDyn`), as
    /// ndarray's `into_dimensionality` but checked before anything is built: every mode of
    /// [`ReshapeExt`](crate::ReshapeExt) returns arrays of dimension `E` for it, and every mode
    /// and [`infer_shape`](Self::infer_shape) give [`ReshapeError::RankMismatch`] when the spec
    /// gives a shape of another rank. Works on a spec by value or by reference (`(&spec).dim()`).
    ///
    /// ```
    /// use ndarray::{Array, ArrayView2, Ix2};
    /// use ndarray_reshape::{Mx, ReshapeError, ReshapeExt, ShapeSpec};
    ///
    /// # fn main() -> Result<(), ReshapeError> {
    /// let x = Array::<f32, _>::zeros((2, 3, 4));
    /// let v: ArrayView2<'_, f32> = x.reshape_view(Mx::new([-3, 0]).dim::<Ix2>())?;
    /// assert_eq!(v.dim(), (6, 4));
    /// let err = x.reshape_mx(Mx::new([-1]).dim::<Ix2>()).unwrap_err();
    /// assert!(matches!(err, ReshapeError::RankMismatch(_)));
    /// # Ok(())
    /// # }
    /// ```
    fn dim<E: Dimension + 'static>(self) -> Ranked<Self, E>
    where
        Self: Sized,
    {
        Ranked::new(self)
    }

    /// The target shape for an input of shape `input`.
    ///
    /// # Errors
    ///
    /// The [`ReshapeError`] variant of the first rule the spec breaks for this input, in the
    /// dialect's order (see each spec type).
    fn infer_shape(&self, input: &[usize]) -> Result<Vec<usize>, ReshapeError> {
        let mut dims = Small::new();
        self.infer_into(input, &mut dims)?;
        Ok(dims.to_vec())
    }

    /// The requested reading order. [`Order::C`] for every dialect but NumPy's.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Np, Order, ShapeSpec};
    /// assert_eq!(Mx::new([-1]).order(), Order::C);
    /// assert_eq!(Np::new([-1], Order::A).order(), Order::A);
    /// ```
    fn order(&self) -> Order {
        Order::C
    }

    /// The target shape for an input whose dims may be symbolic (`[N, 3, 224, 224]`,
    /// `[B, T, 512]`), by the dialect's own algorithm: MXNet's `0` copies the dim at its read
    /// position, Paddle's and ONNX's `0` the dim at the same index, NumPy's and `npx`'s `0` is a
    /// literal zero, and so on, exactly as [`infer_shape`](Self::infer_shape) does on numbers.
    ///
    /// The answer is exact (`[8*N, 64]` with `[-1, 8, 64]` gives `N`), or it holds under
    /// [conditions](SymShape::conditions) on the symbols (`[N, 3]` with `[2, -1]` gives `3*N/2`
    /// when `3*N % 2 == 0`), or it is an error when no value of the symbols (each at least 1)
    /// makes the reshape valid. A division is never rounded down.
    ///
    /// # Errors
    ///
    /// The spec's own errors where they do not depend on the symbols' values, the errors that
    /// hold for every value (`infer_not_divisible` naming both products), and
    /// [`ReshapeError::SymbolLimit`] for a dim past the symbolic range.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray_reshape::{SymDim, Onnx, Paddle, ShapeSpec};
    ///
    /// let (n, k) = (SymDim::sym("N"), SymDim::from);
    /// // The 0 carries N; the -1 is exact.
    /// let s = Onnx::new([0, -1]).infer_symbolic(&[n.clone(), k(3), k(224), k(224)])?;
    /// assert_eq!(s.dims(), &[n.clone(), k(150528)]);
    /// // 15*N / (4*N) is 15/4 for every N: an error, never a floor.
    /// let err = Paddle::new([0, 4, -1]).infer_symbolic(&[n, k(3), k(5)]).unwrap_err();
    /// assert_eq!(err.category(), "infer_not_divisible");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn infer_symbolic(&self, input: &[SymDim]) -> Result<SymShape, ReshapeError> {
        if let Some(i) = input.iter().position(|d| !d.is_valid()) {
            let (dialect, written) = self.describe();
            let why = format!("input dim {i} is past the symbolic range");
            return Err(Fail::whole(Rule::SymbolLimit, why).attach_sym(dialect, input, written));
        }
        let mut dims = Small::new();
        let found = self.infer_sym(input, &mut dims)?;
        Ok(SymShape::new(dims, found.iter().cloned()))
    }

    /// The ONNX `Reshape` that means exactly this reshape for an input of shape `input`: an
    /// explicit shape of non-negative dims, with `allowzero` set when a dim is 0 (so the 0 is a
    /// literal zero). Exporters lower MXNet, Paddle and NumPy reshapes with it.
    ///
    /// ONNX reads elements in C order. A NumPy reshape in F order reads them in another order,
    /// unless each side has at most one dim above 1: then there is no single equivalent
    /// `Reshape`, and [`to_onnx_nodes`](Self::to_onnx_nodes) gives the node sequence. Order A
    /// is taken as C (the graph's tensors are C-contiguous).
    ///
    /// # Errors
    ///
    /// The spec's own errors for this input, or [`ReshapeError::OnnxInexpressible`] for an F
    /// order reshape that moves elements.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Np, Onnx, Order, Paddle, ShapeSpec};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let lowered = Mx::new([-4, 1, 2, -2]).to_onnx(&[2, 3, 4])?;
    /// assert_eq!(lowered, Onnx::new([1, 2, 3, 4]));
    /// let lowered = Paddle::new([0, -1]).to_onnx(&[2, 0, 3])?;
    /// assert_eq!(lowered, Onnx::new([0, 6]).allowzero(true));
    /// assert_eq!(lowered.infer_shape(&[2, 0, 3])?, vec![0, 6]);
    /// assert!(Np::new([3, 2], Order::F).to_onnx(&[2, 3]).is_err());
    /// # Ok(())
    /// # }
    /// ```
    fn to_onnx(&self, input: &[usize]) -> Result<crate::dialect::onnx::Onnx, ReshapeError> {
        lower::reshape_only(self, input, Rule::OnnxInexpressible)?;
        let shape = self.infer_shape(input)?;
        lower::check_order(self, input, &shape)?;
        let zero = shape.contains(&0);
        Ok(crate::dialect::onnx::Onnx::new(shape).allowzero(zero))
    }

    /// The ONNX nodes that compute exactly this reshape for an input of shape `input`: one
    /// `Reshape` ([`to_onnx`](Self::to_onnx)), or, for an F-order reshape that moves elements,
    /// `Transpose` (reversed axes), `Reshape` (the reversed target), `Transpose` (reversed
    /// axes).
    ///
    /// # Errors
    ///
    /// The spec's own errors for this input.
    ///
    /// ```
    /// use ndarray_reshape::{Np, Onnx, OnnxNode, Order, ShapeSpec};
    ///
    /// let nodes = Np::new([3, 2], Order::F).to_onnx_nodes(&[2, 3])?;
    /// assert_eq!(
    ///     nodes,
    ///     [
    ///         OnnxNode::Transpose { perm: vec![1, 0] },
    ///         OnnxNode::Reshape(Onnx::new([2, 3])),
    ///         OnnxNode::Transpose { perm: vec![1, 0] },
    ///     ]
    /// );
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn to_onnx_nodes(&self, input: &[usize]) -> Result<Vec<lower::OnnxNode>, ReshapeError> {
        lower::nodes(self, input)
    }

    /// One ONNX `Reshape` that computes this reshape for every value of the symbols in `input`
    /// (under the [conditions](SymShape::conditions) of
    /// [`infer_symbolic`](Self::infer_symbolic), where the spec itself is valid): known output
    /// dims written as numbers, a symbolic output dim equal to the input dim at the same index
    /// written as `0`, and at most one other symbolic dim written as `-1`. Exported graphs keep
    /// their dynamic dims.
    ///
    /// The result's `0`s copy input dims, so it is a `Reshape` with `allowzero = 0`, whatever
    /// the spec's own `allowzero`: a converter that writes it into a node also sets the node's
    /// `allowzero` to 0 (with `allowzero = 1` the same numbers would make zero-size dims).
    ///
    /// # Errors
    ///
    /// The errors of [`infer_symbolic`](Self::infer_symbolic), or
    /// [`ReshapeError::OnnxInexpressible`] when no single `Reshape` does it (two symbolic dims
    /// at new indices, a zero dim beside symbolic ones, an F-order reshape): a converter then
    /// computes the shape with `Shape`, `Gather` and `Concat`.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Onnx, Paddle, ShapeSpec, ShapeValue, SymDim};
    ///
    /// let (b, t, k) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::from);
    /// let x = [b.clone(), t.clone(), k(512)];
    /// assert_eq!(Paddle::new([0, 0, 8, 64]).to_onnx_symbolic(&x)?, Onnx::new([0, 0, 8, 64]));
    /// assert_eq!(Mx::new([-3, 0]).to_onnx_symbolic(&x)?, Onnx::new([-1, 512]));
    /// assert!(Mx::new([-4, 1, -1, -2]).to_onnx_symbolic(&x).is_err()); // B and T both move
    /// // A node with allowzero = 1 and a computed shape [B, T, 12, 32] folds to [0, 0, 12, 32],
    /// // right once the node's allowzero is 0.
    /// let y = [b.clone(), t.clone(), k(384)];
    /// let shape = ShapeValue::concat(&[ShapeValue::shape_of(&[b, t]), ShapeValue::from(vec![12, 32])])?;
    /// let fold = Onnx::new(&shape).allowzero(true).to_onnx_symbolic(&y)?;
    /// assert_eq!(fold, Onnx::new([0, 0, 12, 32]).allowzero(false));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn to_onnx_symbolic(
        &self,
        input: &[SymDim],
    ) -> Result<crate::dialect::onnx::Onnx, ReshapeError> {
        lower::reshape_only(self, input, Rule::OnnxInexpressible)?;
        let s = self.infer_symbolic(input)?;
        lower::symbolic(self, input, s.dims())
    }

    /// What the reshape of an input of shape `input` does to its axes: the groups of input
    /// and output axes it keeps, merges, splits, regroups, inserts or removes, for layout
    /// passes (the dims that pass through, a squeeze that is only a squeeze) and for moving a
    /// transpose through it ([`Explanation::transpose_through`]).
    ///
    /// # Errors
    ///
    /// The spec's own errors for this input ([`infer_shape`](Self::infer_shape)).
    ///
    /// ```
    /// use ndarray_reshape::{GroupKind, Onnx, ShapeSpec};
    ///
    /// // [B, S, 768] -> [B, S, 12, 64]: B and S pass through, 768 splits into heads.
    /// let e = Onnx::new([0, 0, 12, 64]).explain(&[8, 128, 768])?;
    /// assert_eq!(e.unmodified_dims(), [(0, 0), (1, 1)]);
    /// assert_eq!(e.groups()[2].kind, GroupKind::Split);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn explain(&self, input: &[usize]) -> Result<Explanation, ReshapeError> {
        lower::reshape_only(self, input, Rule::NotAReshape)?;
        let output = self.infer_shape(input)?;
        Ok(crate::explain::explain(input, &output, self.order()))
    }

    /// [`explain`](Self::explain) on symbolic dims, through
    /// [`infer_symbolic`](Self::infer_symbolic): dims group where their products are equal as
    /// products of symbols, for the values that meet the inference's conditions.
    ///
    /// # Errors
    ///
    /// The errors of [`infer_symbolic`](Self::infer_symbolic).
    ///
    /// ```
    /// use ndarray_reshape::{GroupKind, Onnx, ShapeSpec, SymDim};
    ///
    /// let (b, t, k) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::from);
    /// let e = Onnx::new([-1, 512]).explain_symbolic(&[b, t, k(8), k(64)])?;
    /// let kinds: Vec<GroupKind> = e.groups().iter().map(|g| g.kind).collect();
    /// assert_eq!(kinds, [GroupKind::Merge, GroupKind::Merge]); // B*T, then 8*64
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn explain_symbolic(&self, input: &[SymDim]) -> Result<Explanation<SymDim>, ReshapeError> {
        lower::reshape_only(self, input, Rule::NotAReshape)?;
        let shape = self.infer_symbolic(input)?;
        Ok(crate::explain::explain(input, shape.dims(), self.order()))
    }

    /// Backward inference: the input shape with its one unknown dim (`None`) filled in, given
    /// the output shape the reshape must produce. Exact: the unknown dim is the output's size
    /// divided by the known input dims, and the spec must then give exactly `output`.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::MultipleInfer`] for more than one unknown dim,
    /// [`ReshapeError::InferNotDivisible`] when the division is not exact,
    /// [`ReshapeError::InferAmbiguous`] when a known input dim is 0 (any value fits), and the
    /// spec's own errors or [`ReshapeError::SizeMismatch`] when the filled-in input does not
    /// give `output`.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    ///
    /// let spec = Mx::new([-1, 0]).reverse(true);
    /// assert_eq!(spec.infer_input(&[None, Some(5), Some(4)], &[50, 4])?, vec![10, 5, 4]);
    /// assert!(spec.infer_input(&[None, Some(3), Some(4)], &[50, 4]).is_err()); // 200 / 12
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn infer_input(
        &self,
        input: &[Option<usize>],
        output: &[usize],
    ) -> Result<Vec<usize>, ReshapeError> {
        backward::infer_input(self, input, output)
    }
}

/// The one line a dialect's file adds: `dialect!(T as Origin::X)` makes the [`Rules`] type `T`
/// a `ShapeSpec` whose errors name `Origin::X`; `, new` also converts every
/// [`IntoSpecList`](crate::entries::IntoSpecList) into `T` through `T::new` ([`into_spec!`]);
/// `, list flag` writes `T` as its list, then ` flag` when the flag is set (`[2, -1] reverse`).
///
/// Not a blanket impl over `Rules`: that would overlap the impl for `&T` (coherence allows
/// `&T: Rules`), which generic code needs to pass `&spec` for any `P: ShapeSpec`.
macro_rules! dialect {
    ($t:ty as $origin:path, new $(, $list:ident $flag:ident)?) => {
        crate::dialect::dialect!($t as $origin $(, $list $flag)?);
        crate::dialect::into_spec!($t);
    };
    ($t:ty as $origin:path, $list:ident $flag:ident) => {
        crate::dialect::dialect!($t as $origin);

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                crate::dialect::write_flagged(f, &self.$list, self.$flag, stringify!($flag))
            }
        }
    };
    ($t:ty as $origin:path $(, arranged by $arrange:ident, $permutes:ident)?) => {
        impl crate::dialect::sealed::Spec for $t {
            #[inline]
            fn infer_into(
                &self,
                input: &[usize],
                dims: &mut crate::small::Small<usize>,
            ) -> Result<(), crate::error::ReshapeError> {
                crate::dialect::Rules::infer(self, input, dims)
                    .map_err(|f| f.attach($origin, input, self))
            }

            fn infer_sym(
                &self,
                input: &[crate::sym::SymDim],
                dims: &mut crate::small::Small<crate::sym::SymDim>,
            ) -> Result<crate::small::Small<crate::sym::Condition>, crate::error::ReshapeError>
            {
                crate::dialect::Rules::infer(self, input, dims)
                    .map_err(|f| f.attach_sym($origin, input, self))
            }

            fn describe(&self) -> (crate::error::Origin, String) {
                ($origin, self.to_string())
            }

            $(
            #[inline]
            fn plan_into(
                &self,
                input: &[usize],
                out: crate::dialect::Planned<'_>,
            ) -> Result<(), crate::error::ReshapeError> {
                self.$arrange(input, out.dims, out.arranged)
                    .map_err(|f| f.attach($origin, input, self))
            }

            fn permutes(&self) -> bool {
                self.$permutes()
            }
            )?
        }

        impl crate::dialect::ShapeSpec for $t {
            type Rank = ndarray::IxDyn;

            #[inline]
            fn order(&self) -> crate::dims::Order {
                crate::dialect::Rules::order(self)
            }
        }
    };
}
pub(crate) use dialect;

/// Conversion into a dialect's spec type, so the headline methods take both plain lists and
/// configured specs: `x.reshape_mx([-3, -2])`, `x.reshape_mx(Mx::new([-1, 0]).reverse(true))`,
/// and a spec with a rank type, `x.reshape_mx(Mx::new([-3, 0]).dim::<Ix2>())`.
///
/// ```
/// use ndarray_reshape::args::IntoSpec;
/// use ndarray_reshape::Mx;
/// let m = IntoSpec::<Mx>::into_spec([2, -1]);
/// assert_eq!(m, Mx::new([2, -1]));
/// ```
pub trait IntoSpec<P> {
    /// The spec it becomes: `P`, or `P` with a rank type ([`Ranked`]).
    type Spec: ShapeSpec;

    /// Convert into the spec.
    fn into_spec(self) -> Self::Spec;
}

/// `IntoSpec<$t>` for `$t`, `&$t`, `$t` with a rank type, and every
/// [`IntoSpecList`](crate::entries::IntoSpecList) (through `$t::new`).
macro_rules! into_spec {
    ($t:ty) => {
        impl<T: $crate::entries::IntoSpecList> $crate::dialect::IntoSpec<$t> for T {
            type Spec = $t;
            fn into_spec(self) -> $t {
                <$t>::new(self)
            }
        }
        impl $crate::dialect::IntoSpec<$t> for $t {
            type Spec = $t;
            fn into_spec(self) -> $t {
                self
            }
        }
        impl $crate::dialect::IntoSpec<$t> for &$t {
            type Spec = $t;
            fn into_spec(self) -> $t {
                self.clone()
            }
        }
        impl<E: ndarray::Dimension + 'static> $crate::dialect::IntoSpec<$t>
            for $crate::dialect::Ranked<$t, E>
        {
            type Spec = Self;
            fn into_spec(self) -> Self {
                self
            }
        }
    };
}
pub(crate) use into_spec;

impl<T: ShapeSpec + ?Sized> sealed::Spec for &T {
    #[inline]
    fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError> {
        (**self).infer_into(input, dims)
    }
    fn infer_sym(
        &self,
        input: &[SymDim],
        dims: &mut Small<SymDim>,
    ) -> Result<Small<Condition>, ReshapeError> {
        (**self).infer_sym(input, dims)
    }
    fn describe(&self) -> (Origin, String) {
        (**self).describe()
    }
    #[inline(always)]
    fn plan_into(&self, input: &[usize], out: Planned<'_>) -> Result<(), ReshapeError> {
        (**self).plan_into(input, out)
    }
    #[inline(always)]
    fn permutes(&self) -> bool {
        (**self).permutes()
    }
}
impl<T: ShapeSpec + ?Sized> ShapeSpec for &T {
    type Rank = T::Rank;

    #[inline]
    fn order(&self) -> Order {
        (**self).order()
    }
}

/// A rule broken by a whole reshape of `input` with `spec` (not by one of its entries), as a
/// [`ReshapeError`] with the spec's dialect and text: the modes' errors (`NeedsCopy`,
/// `RankMismatch`, `OutputLength`).
#[cold]
pub(crate) fn reject<P: ShapeSpec + ?Sized>(
    rule: Rule,
    spec: &P,
    input: &[usize],
    why: &str,
) -> ReshapeError {
    let (dialect, written) = spec.describe();
    Fail::whole(rule, why).attach(dialect, input, written)
}

/// A spec list as written, then ` word` when `flag` is set (`[2, -1] reverse`).
pub(crate) fn write_flagged(
    f: &mut fmt::Formatter<'_>,
    list: &crate::entries::SpecList,
    flag: bool,
    word: &str,
) -> fmt::Result {
    write!(f, "{list}")?;
    if flag {
        write!(f, " {word}")?;
    }
    Ok(())
}

/// Format `Option<i64>` bounds as `begin..end`.
pub(crate) fn fmt_range(b: Option<i64>, e: Option<i64>) -> String {
    let s = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
    format!("{}..{}", s(b), s(e))
}
