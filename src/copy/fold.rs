//! The element types einops' `reduce` takes ([`Reducible`]) and the arithmetic of each
//! reduction on them: NumPy's values (64-bit integers wrap, narrower sums and products are
//! refused with the widening NumPy makes, `max`/`min` of floats propagate NaN,
//! `max`/`min` of `bool` are `any`/`all`), accumulated in `f32` for the half types.

use crate::reduction::Reduction;

/// An element type einops' `reduce` takes: the integers (`i8` to `i64`, `u8` to `u64`,
/// `isize`, `usize`), `f32`, `f64`, `bool`, and with the `half` feature `half::f16` and
/// `half::bf16`. Sealed.
///
/// Which [`Reduction`]s apply follows NumPy: all but [`Mean`](Reduction::Mean) on integers
/// (einops refuses a mean of integers), all but [`Any`](Reduction::Any) and
/// [`All`](Reduction::All) on floats (convert with `mapv(|v| v != 0.0)` first), and
/// [`Max`](Reduction::Max), [`Min`](Reduction::Min), [`Any`](Reduction::Any) and
/// [`All`](Reduction::All) on `bool` (convert to an integer type to count).
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::{Reduction, ReshapeExt};
///
/// let t = array![[true, false], [true, true]];
/// assert_eq!(t.reduce("a b -> b", Reduction::All, &[])?, array![true, false].into_dyn());
/// assert!(t.reduce("a b -> b", Reduction::Sum, &[]).is_err()); // count with integers
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
pub trait Reducible: sealed::Element {}

pub(crate) mod sealed {
    use super::Acc;
    use crate::reduction::Reduction;

    /// The crate's side of [`Reducible`](super::Reducible).
    pub trait Element: Copy + Send + Sync + 'static {
        /// What a reduction accumulates in.
        type Acc: Acc;

        fn load(self) -> Self::Acc;

        fn store(a: Self::Acc) -> Self;

        /// Why `r` does not apply to this type, if it does not.
        fn refuses(r: Reduction) -> Option<&'static str>;
    }
}

/// The arithmetic of an accumulator type: the identities and operations of the reductions.
/// (`pub` only because the sealed element trait names it; the module is private, so it
/// cannot be named outside the crate.)
pub trait Acc: Copy + Default + PartialOrd + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
    /// The identity of `max`: the lowest value (`-inf` for floats).
    const LOWEST: Self;
    /// The identity of `min`.
    const HIGHEST: Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// The larger (on `bool`, `false < true`: `or`, as NumPy's).
    #[inline(always)]
    fn max_of(self, o: Self) -> Self {
        if o > self {
            o
        } else {
            self
        }
    }
    /// The smaller.
    #[inline(always)]
    fn min_of(self, o: Self) -> Self {
        if o < self {
            o
        } else {
            self
        }
    }
    /// The mean of a sum of `n` elements (floats only; never called on others).
    #[inline(always)]
    fn mean(self, _n: usize) -> Self {
        self
    }
}

/// [`Acc`] of a number type: its identities (`0`, `1`, and the bounds its associated
/// constants `$lowest` and `$highest` name), `add` and `mul` by the functions `$add` and `$mul`
/// (wrapping on the integers), and the extra methods `$more` (the floats' NaN-aware `max` and `min`, `mean`).
macro_rules! number_acc {
    ($t:ty: $zero:literal, $one:literal, $lowest:ident, $highest:ident, $add:expr, $mul:expr, {$($more:tt)*}) => {
        impl Acc for $t {
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const LOWEST: Self = <$t>::$lowest;
            const HIGHEST: Self = <$t>::$highest;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                $add(self, o)
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                $mul(self, o)
            }
            $($more)*
        }
    };
}

macro_rules! int_acc {
    ($($t:ty => $wide:literal),*) => {$(
        number_acc!($t: 0, 1, MIN, MAX, <$t>::wrapping_add, <$t>::wrapping_mul, {});

        impl sealed::Element for $t {
            type Acc = $t;
            #[inline(always)]
            fn load(self) -> $t { self }
            #[inline(always)]
            fn store(a: $t) -> $t { a }
            fn refuses(r: Reduction) -> Option<&'static str> {
                match r {
                    Reduction::Mean => Some("a mean needs a floating-point element type, as in einops; convert the integers first"),
                    Reduction::Any | Reduction::All => Some("any and all take bool elements; compare the numbers with zero first"),
                    // NumPy sums and multiplies integers narrower than 64 bits in 64 bits;
                    // this type's own would wrap where NumPy's does not.
                    Reduction::Sum | Reduction::Prod if $wide != "" => Some(concat!(
                        "NumPy sums and multiplies ", stringify!($t), " in ", $wide,
                        "; widen first: x.mapv(", $wide, "::from).reduce(..)"
                    )),
                    _ => None,
                }
            }
        }

        impl Reducible for $t {}
    )*};
}

// Each type with the type NumPy sums it in, where that is wider ("" for the 64-bit ones).
int_acc!(
    i8 => "i64", i16 => "i64", i32 => "i64", i64 => "", isize => "",
    u8 => "u64", u16 => "u64", u32 => "u64", u64 => "", usize => ""
);

macro_rules! float_acc {
    ($($t:ty),*) => {$(
        number_acc!($t: 0.0, 1.0, NEG_INFINITY, INFINITY, std::ops::Add::add, std::ops::Mul::mul, {
        // NumPy's maximum: a NaN on either side is the result. Both comparisons always
        // run (`|`, not `||`): a select without branches, which the compiler vectorizes.
        #[inline(always)]
        #[allow(clippy::eq_op)]
        fn max_of(self, o: Self) -> Self { if (o > self) | (o != o) { o } else { self } }
        #[inline(always)]
        #[allow(clippy::eq_op)]
        fn min_of(self, o: Self) -> Self { if (o < self) | (o != o) { o } else { self } }
        #[inline(always)]
        fn mean(self, n: usize) -> Self { self / n as $t }
        });
    )*};
}

float_acc!(f32, f64);

/// `refuses` of a floating-point type.
fn float_refuses(r: Reduction) -> Option<&'static str> {
    match r {
        Reduction::Any | Reduction::All => {
            Some("any and all take bool elements; compare the numbers with zero first")
        }
        _ => None,
    }
}

macro_rules! float_element {
    ($t:ty, $acc:ty, $load:expr, $store:expr) => {
        impl sealed::Element for $t {
            type Acc = $acc;
            #[inline(always)]
            fn load(self) -> $acc {
                $load(self)
            }
            #[inline(always)]
            fn store(a: $acc) -> $t {
                $store(a)
            }
            fn refuses(r: Reduction) -> Option<&'static str> {
                float_refuses(r)
            }
        }

        impl Reducible for $t {}
    };
}

float_element!(f32, f32, |v| v, |a| a);
float_element!(f64, f64, |v| v, |a| a);
#[cfg(feature = "half")]
float_element!(half::f16, f32, half::f16::to_f32, half::f16::from_f32);
#[cfg(feature = "half")]
float_element!(half::bf16, f32, half::bf16::to_f32, half::bf16::from_f32);

impl Acc for bool {
    const ZERO: Self = false;
    const ONE: Self = true;
    const LOWEST: Self = false;
    const HIGHEST: Self = true;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self & o
    }
}

impl sealed::Element for bool {
    type Acc = bool;
    #[inline(always)]
    fn load(self) -> bool {
        self
    }
    #[inline(always)]
    fn store(a: bool) -> bool {
        a
    }
    fn refuses(r: Reduction) -> Option<&'static str> {
        match r {
            Reduction::Sum | Reduction::Prod => Some(
                "NumPy sums and multiplies bools as int64; convert them to an integer type first",
            ),
            Reduction::Mean => Some(
                "a mean needs a floating-point element type, as in einops; convert the bools first",
            ),
            _ => None,
        }
    }
}

impl Reducible for bool {}

/// One reduction as a binary operation with its identity, for the kernels to be generic over.
pub(crate) trait Fold<T: Acc>: Copy + Send + Sync {
    const ID: T;
    fn f(a: T, b: T) -> T;
}

macro_rules! op {
    ($name:ident, $id:ident, $f:ident) => {
        #[derive(Clone, Copy)]
        pub(crate) struct $name;
        impl<T: Acc> Fold<T> for $name {
            const ID: T = T::$id;
            #[inline(always)]
            fn f(a: T, b: T) -> T {
                a.$f(b)
            }
        }
    };
}

op!(SumFold, ZERO, add);
op!(ProdFold, ONE, mul);
op!(MaxFold, LOWEST, max_of);
op!(MinFold, HIGHEST, min_of);
