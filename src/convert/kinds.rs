//! The conversions: their parameters, their definition ([`Conversion::convert`]) and the vector
//! kernel each names for the engine.

use num_traits::AsPrimitive;

use super::{same, sealed::Sealed, Conversion};
use crate::copy::{Kernel, Step};
use crate::dialect::lower::OnnxNode;
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// Rust's `as` between the primitive numbers (NumPy's `astype` for every value `astype`
/// defines: integers wrap, floats to integers truncate toward zero and saturate, NaN is 0),
/// and with the `half` feature `f16`/`bf16` to and from the others as the `half` crate
/// converts them (round to nearest even; NaN and infinities kept).
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::Cast;
/// use ndarray_reshape::{Order, ReshapeExt};
/// let x = array![[1.7f32, -2.5], [300.0, f32::NAN]];
/// let y = x.convert_layout::<u8, _>(Order::C, &Cast)?;
/// assert_eq!(y, array![[1u8, 0], [255, 0]]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cast;

impl<A, B> Sealed<A, B> for Cast
where
    A: AsPrimitive<B> + Sync,
    B: Copy + 'static,
{
    fn step(&self) -> Step<'_> {
        let kernel = match same::<A, B>() {
            true => Kernel::Same,
            false => half_op::<A, B>(),
        };
        Step::of(kernel)
    }

    fn onnx(&self, rank: usize) -> Option<Vec<OnnxNode>> {
        let _ = rank;
        Some(vec![OnnxNode::Cast {
            to: onnx_type::<B>()?,
        }])
    }
}

impl<A, B> Conversion<A, B> for Cast
where
    A: AsPrimitive<B> + Sync,
    B: Copy + 'static,
{
    #[inline(always)]
    fn convert(&self, a: &A, _: usize) -> B {
        a.as_()
    }
}

/// The element itself, for copies that run on the conversion engine without converting (a
/// join of arrays): a clone, the bits of a plain type ([`Kernel::Same`]). Not public: a user
/// who wants a copy calls the copying methods.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Identity;

impl<A: Clone + Sync> Sealed<A, A> for Identity {
    fn step(&self) -> Step<'_> {
        match crate::copy::plain_by_name::<A>() {
            true => Step::of(Kernel::Same),
            false => Step::each(),
        }
    }
}

impl<A: Clone + Sync> Conversion<A, A> for Identity {
    #[inline(always)]
    fn convert(&self, a: &A, _: usize) -> A {
        a.clone()
    }
}

/// The half-precision kernel of a [`Cast`] from `A` to `B`, if any.
fn half_op<A: 'static, B: 'static>() -> Kernel {
    #[cfg(feature = "half")]
    {
        use half::{bf16, f16};
        if same::<A, f32>() && same::<B, bf16>() {
            return Kernel::F32ToBf16;
        }
        if same::<A, f32>() && same::<B, f16>() {
            return Kernel::F32ToF16;
        }
        if same::<A, bf16>() && same::<B, f32>() {
            return Kernel::Bf16ToF32;
        }
        if same::<A, f16>() && same::<B, f32>() {
            return Kernel::F16ToF32;
        }
    }
    Kernel::Each
}

/// The ONNX `TensorProto` data type name of `T`, if it has one.
pub(crate) fn onnx_type<T: 'static>() -> Option<&'static str> {
    macro_rules! names {
        ($($t:ty => $n:literal),*) => {
            $(if same::<T, $t>() { return Some($n); })*
        };
    }
    names!(f32 => "FLOAT", f64 => "DOUBLE", u8 => "UINT8", i8 => "INT8", u16 => "UINT16",
        i16 => "INT16", u32 => "UINT32", i32 => "INT32", u64 => "UINT64", i64 => "INT64",
        bool => "BOOL");
    #[cfg(feature = "half")]
    names!(half::f16 => "FLOAT16", half::bf16 => "BFLOAT16");
    None
}

/// The nearest value of the output type: integers clamped to its range, floats rounded to the
/// nearest integer (ties to even, as OpenCV's `saturate_cast` with the default rounding) and
/// clamped, NaN to 0; to a float type, `as` (`f64` to `f32` past its range is an infinity).
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::Saturate;
/// use ndarray_reshape::{Order, ReshapeExt};
/// let x = array![-3i32, 70000, 200];
/// assert_eq!(x.convert_layout::<u8, _>(Order::C, &Saturate)?, array![0u8, 255, 200]);
/// let f = array![2.5f32, 3.5, -0.6, f32::NAN];
/// assert_eq!(f.convert_layout::<i8, _>(Order::C, &Saturate)?, array![2i8, 4, -1, 0]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Saturate;

/// A saturating conversion from `A` (the crate's, for [`Saturate`]; `pub` in a module users
/// cannot reach, so the bound is sealed).
pub trait SaturateFrom<A> {
    /// `a` clamped to this type's range (see [`Saturate`]).
    fn saturate_from(a: A) -> Self;
}

macro_rules! saturate_ints {
    ($($from:ty),*; $to:tt) => {$(
        impl SaturateFrom<$from> for $to {
            #[inline(always)]
            fn saturate_from(a: $from) -> $to {
                match $to::try_from(a) {
                    Ok(v) => v,
                    Err(_) if a < (0 as $from) => $to::MIN,
                    Err(_) => $to::MAX,
                }
            }
        }
    )*};
}

macro_rules! saturate_all {
    ($($to:tt),*) => {$(
        saturate_ints!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize; $to);
        impl SaturateFrom<f32> for $to {
            #[inline(always)]
            fn saturate_from(a: f32) -> $to {
                // `as` from a float saturates and takes NaN to 0.
                a.round_ties_even() as $to
            }
        }
        impl SaturateFrom<f64> for $to {
            #[inline(always)]
            fn saturate_from(a: f64) -> $to {
                a.round_ties_even() as $to
            }
        }
    )*};
}

saturate_all!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! saturate_floats {
    ($($to:ty),*) => {$(
        impl<A: AsPrimitive<$to>> SaturateFrom<A> for $to {
            #[inline(always)]
            fn saturate_from(a: A) -> $to {
                a.as_()
            }
        }
    )*};
}

saturate_floats!(f32, f64);

impl<A, B> Sealed<A, B> for Saturate
where
    A: Copy + Sync,
    B: SaturateFrom<A>,
{
}

impl<A, B> Conversion<A, B> for Saturate
where
    A: Copy + Sync,
    B: SaturateFrom<A>,
{
    #[inline(always)]
    fn convert(&self, a: &A, _: usize) -> B {
        B::saturate_from(*a)
    }
}

/// `a as f32 * scale + shift`, in `f32` (a product, then a sum: two roundings, on every machine),
/// with one scale and shift, or one per index along an output axis: per-channel normalization.
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::Affine;
/// use ndarray_reshape::{Order, ReshapeExt};
/// let x = array![[0u8, 255], [51, 102]];
/// let y = x.convert_layout(Order::C, &Affine::new(1.0 / 255.0, -0.5)?)?;
/// let want = array![[-0.5f32, 0.5], [-0.3, -0.1]];
/// assert!(y.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Affine {
    axis: Option<usize>,
    scale: Vec<f32>,
    shift: Vec<f32>,
}

impl Affine {
    /// One scale and shift for every element.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::ConversionAxis`]: a scale that is 0 or not finite (every output would
    /// be the shift, or NaN), or a shift that is not finite.
    ///
    /// ```
    /// use ndarray_reshape::convert::Affine;
    /// assert!(Affine::new(0.5, 1.0).is_ok());
    /// let e = Affine::new(0.0, 1.0).unwrap_err();
    /// assert!(e.to_string().contains("a scale of 0"));
    /// assert!(Affine::new(f32::NAN, 0.0).is_err());
    /// ```
    pub fn new(scale: f32, shift: f32) -> Result<Affine, ReshapeError> {
        Affine::checked(None, vec![scale], vec![shift])
    }

    /// The affine step of `scale` and `shift` (on `axis`), each checked.
    fn checked(
        axis: Option<usize>,
        scale: Vec<f32>,
        shift: Vec<f32>,
    ) -> Result<Affine, ReshapeError> {
        let fail = |why: String| {
            Err(Fail::new(Rule::ConversionAxis, axis, why)
                .attach_no_input(Origin::Convert, "affine"))
        };
        if let Some(s) = scale.iter().find(|s| !(s.is_finite() && **s != 0.0)) {
            return fail(format!(
                "a scale of {s}: affine scales are finite and not zero"
            ));
        }
        if let Some(s) = shift.iter().find(|s| !s.is_finite()) {
            return fail(format!("a shift of {s}: affine shifts are finite"));
        }
        Ok(Affine { axis, scale, shift })
    }

    /// A scale and shift per index along the output's `axis`.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::ConversionAxis`]: `scale` and `shift` differ in length, or hold a scale
    /// that is 0 or not finite or a shift that is not finite.
    pub fn per_axis(axis: usize, scale: Vec<f32>, shift: Vec<f32>) -> Result<Affine, ReshapeError> {
        if scale.len() != shift.len() {
            let why = format!(
                "{} scales and {} shifts: one of each per index",
                scale.len(),
                shift.len()
            );
            return Err(Fail::at(Rule::ConversionAxis, axis, why)
                .attach_no_input(Origin::Convert, "affine"));
        }
        Affine::checked(Some(axis), scale, shift)
    }

    /// torchvision's `normalize(to_tensor(x), mean, std)` along the output's `axis` (the
    /// channels): `(a / range - mean[c]) / std[c]`, folded into one scale and shift per channel
    /// (`1 / (range * std[c])` and `-mean[c] / std[c]`), as OpenCV's `blobFromImages` folds its
    /// `scalefactor` and `mean`; results within a few units in the last place of the two-step
    /// form. It multiplies by `1 / (range * std[c])` where the two-step form divides by `range`
    /// and then by `std[c]`: one multiplication per element instead of two divisions, which is
    /// what lets the vector kernels run at memory speed; an element can differ from the
    /// two-step form in its last bit or two (torchvision itself differs from NumPy there).
    ///
    /// # Errors
    ///
    /// [`ReshapeError::ConversionAxis`]: `mean` and `std` differ in length, a `std` or the
    /// `range` is 0 or not finite, or a `mean` is not finite.
    ///
    /// ```
    /// use ndarray_reshape::convert::Affine;
    /// assert!(Affine::normalize(1, 255.0, &[0.5], &[0.25]).is_ok());
    /// let e = Affine::normalize(1, 255.0, &[0.5], &[0.0]).unwrap_err();
    /// assert!(e.to_string().contains("std of 0"));
    /// assert!(Affine::normalize(1, 255.0, &[f32::NAN], &[0.25]).is_err());
    /// ```
    pub fn normalize(
        axis: usize,
        range: f32,
        mean: &[f32],
        std: &[f32],
    ) -> Result<Affine, ReshapeError> {
        let fail = |why: String| {
            Err(Fail::at(Rule::ConversionAxis, axis, why)
                .attach_no_input(Origin::Convert, "normalize"))
        };
        let divisor = |s: &f32| s.is_finite() && *s != 0.0;
        if let Some(s) = std.iter().find(|s| !divisor(s)) {
            return fail(format!(
                "a std of {s}: it divides, so it is finite and not zero"
            ));
        }
        if !divisor(&range) {
            return fail(format!(
                "a range of {range}: it divides, so it is finite and not zero"
            ));
        }
        if let Some(m) = mean.iter().find(|m| !m.is_finite()) {
            return fail(format!("a mean of {m}: means are finite"));
        }
        let scale = std.iter().map(|s| 1.0 / (range * s)).collect();
        let shift = mean.iter().zip(std).map(|(m, s)| -m / s).collect();
        if mean.len() != std.len() {
            return Affine::per_axis(axis, scale, vec![0.0; mean.len()]);
        }
        Affine::per_axis(axis, scale, shift)
    }
}

impl<A: AsPrimitive<f32> + Sync> Sealed<A, f32> for Affine {
    fn step(&self) -> Step<'_> {
        let kernel = match () {
            _ if same::<A, u8>() => Kernel::AffineU8,
            _ if same::<A, f32>() => Kernel::AffineF32,
            _ => Kernel::Each,
        };
        Step {
            kernel,
            scale: &self.scale,
            shift: &self.shift,
        }
    }

    fn onnx(&self, rank: usize) -> Option<Vec<OnnxNode>> {
        // Values along `axis`: `[n, 1, ..., 1]`, broadcast against the output's later axes.
        let shape: Vec<usize> = match self.axis {
            Some(axis) => std::iter::once(self.scale.len())
                .chain(std::iter::repeat(1).take(rank.saturating_sub(axis + 1)))
                .collect(),
            None => Vec::new(),
        };
        Some(vec![
            OnnxNode::Cast { to: "FLOAT" },
            OnnxNode::Mul {
                value: self.scale.clone(),
                shape: shape.clone(),
            },
            OnnxNode::Add {
                value: self.shift.clone(),
                shape,
            },
        ])
    }
}

impl<A: AsPrimitive<f32> + Sync> Conversion<A, f32> for Affine {
    #[inline(always)]
    fn convert(&self, a: &A, at: usize) -> f32 {
        let k = index(self.axis, at, self.scale.len());
        a.as_() * pick(&self.scale, k, 1.0) + pick(&self.shift, k, 0.0)
    }

    fn axis(&self) -> Option<(usize, usize)> {
        self.axis.map(|a| (a, self.scale.len()))
    }
}

/// The parameters' index of the element at index `at` along the axis (0 without an axis): `at`
/// past the `n` parameters wraps around (a copy never asks for one: it checks the counts).
#[inline(always)]
fn index(axis: Option<usize>, at: usize, n: usize) -> usize {
    match axis {
        Some(_) if at < n => at,
        Some(_) => at.checked_rem(n).unwrap_or(0),
        None => 0,
    }
}

/// `p[k]`, or `default` for no parameters (a per-axis conversion of an empty axis).
#[inline(always)]
fn pick(p: &[f32], k: usize, default: f32) -> f32 {
    p.get(k).copied().unwrap_or(default)
}

/// The integer types of [`Quantize`] and [`Dequantize`]: `i8`, `u8`, `i16`, `u16` (sealed: the
/// crate implements it for these four).
///
/// ```
/// use ndarray_reshape::convert::Quantized;
/// fn bounds<T: Quantized>() -> (f32, f32) {
///     (T::LOW, T::HIGH)
/// }
/// assert_eq!(bounds::<i8>(), (-128.0, 127.0));
/// ```
pub trait Quantized:
    super::sealed::Integer + Copy + Sync + Send + std::fmt::Debug + PartialEq + 'static
{
    /// The smallest value, as `f32`.
    const LOW: f32;
    /// The largest value, as `f32`.
    const HIGH: f32;
    /// A value of the range `LOW..=HIGH` holding an integer, as `Self`.
    ///
    /// ```
    /// use ndarray_reshape::convert::Quantized;
    /// assert_eq!(<u8 as Quantized>::from_f32(200.0), 200);
    /// ```
    fn from_f32(v: f32) -> Self;
    /// The value, exactly.
    ///
    /// ```
    /// use ndarray_reshape::convert::Quantized;
    /// assert_eq!(Quantized::to_f32(-3i8), -3.0);
    /// ```
    fn to_f32(self) -> f32;
}

macro_rules! quantized {
    ($($t:ty),*) => {$(
        impl super::sealed::Integer for $t {}
        impl Quantized for $t {
            const LOW: f32 = <$t>::MIN as f32;
            const HIGH: f32 = <$t>::MAX as f32;
            #[inline(always)]
            fn from_f32(v: f32) -> $t {
                v as $t
            }
            #[inline(always)]
            fn to_f32(self) -> f32 {
                self as f32
            }
        }
    )*};
}

quantized!(i8, u8, i16, u16);

/// The checked scales and zero points of [`Quantize`] and [`Dequantize`] (the zero points as
/// `f32` too, for the kernels), per tensor or along `axis`.
#[derive(Debug, Clone, PartialEq)]
struct QuantParams<T> {
    axis: Option<usize>,
    scale: Vec<f32>,
    zero_point: Vec<T>,
    zero_f32: Vec<f32>,
}

impl<T: Quantized> QuantParams<T> {
    /// The parameters, or the error naming `name` for lengths that differ or a scale that is 0
    /// or not finite.
    fn checked(
        name: &str,
        axis: Option<usize>,
        scale: Vec<f32>,
        zero_point: Vec<T>,
    ) -> Result<QuantParams<T>, ReshapeError> {
        let fail = |why: String| {
            Err(Fail::new(Rule::ConversionAxis, axis, why).attach_no_input(Origin::Convert, name))
        };
        if scale.len() != zero_point.len() {
            return fail(format!(
                "{} scales and {} zero points: one of each per index",
                scale.len(),
                zero_point.len()
            ));
        }
        if let Some(s) = scale.iter().find(|s| !(s.is_finite() && **s != 0.0)) {
            return fail(format!(
                "a scale of {s}: scales are finite and not zero (ONNX)"
            ));
        }
        let zero_f32 = zero_point.iter().map(|z| z.to_f32()).collect();
        Ok(QuantParams {
            axis,
            scale,
            zero_point,
            zero_f32,
        })
    }

    /// The scale and zero point of index `at` along the axis.
    #[inline(always)]
    fn at(&self, at: usize) -> (f32, f32) {
        let k = index(self.axis, at, self.scale.len());
        (pick(&self.scale, k, 1.0), pick(&self.zero_f32, k, 0.0))
    }

    fn axis(&self) -> Option<(usize, usize)> {
        self.axis.map(|a| (a, self.scale.len()))
    }

    /// The step with these parameters: the vector kernel `for_i8` or `for_u8` where `T` is
    /// that type, else the element-wise one.
    fn step(&self, for_i8: Kernel, for_u8: Kernel) -> Step<'_> {
        let kernel = match () {
            _ if same::<T, i8>() => for_i8,
            _ if same::<T, u8>() => for_u8,
            _ => Kernel::Each,
        };
        Step {
            kernel,
            scale: &self.scale,
            shift: &self.zero_f32,
        }
    }

    /// The zero points as ONNX holds them.
    fn zero_i64(&self) -> Vec<i64> {
        self.zero_f32.iter().map(|&z| z as i64).collect()
    }
}

/// The constructors of a conversion over [`QuantParams`]: `new` (per tensor) and `per_axis`.
macro_rules! quant_constructors {
    ($name:ident, $word:literal) => {
        impl<T: Quantized> $name<T> {
            /// One scale and zero point for every element.
            ///
            /// # Errors
            ///
            /// [`ReshapeError::ConversionAxis`]: a scale that is 0 or not finite.
            pub fn new(scale: f32, zero_point: T) -> Result<$name<T>, ReshapeError> {
                QuantParams::checked($word, None, vec![scale], vec![zero_point]).map($name)
            }

            /// A scale and zero point per index along the output's `axis`.
            ///
            /// # Errors
            ///
            /// [`ReshapeError::ConversionAxis`]: lengths that differ, a scale that is 0 or not
            /// finite.
            pub fn per_axis(
                axis: usize,
                scale: Vec<f32>,
                zero_point: Vec<T>,
            ) -> Result<$name<T>, ReshapeError> {
                QuantParams::checked($word, Some(axis), scale, zero_point).map($name)
            }
        }
    };
}

/// ONNX `QuantizeLinear` from `f32`: `saturate(round_half_even(a / scale) + zero_point)` into
/// `T` (`i8`, `u8`, `i16`, `u16`), per tensor or per index along an output axis; NaN gives
/// `T`'s minimum. A negative scale is taken as ONNX defines the operator, whose formula holds
/// for any scale that is not 0 (onnxruntime computes it so): the values are mirrored; a scale
/// of 0 or one that is not finite is refused.
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::Quantize;
/// use ndarray_reshape::{Order, ReshapeExt};
/// let x = array![[0.5f32, -0.25], [1.0, 100.0]];
/// // One scale and zero point per output column.
/// let q = Quantize::<u8>::per_axis(1, vec![0.25, 0.5], vec![10, 128])?;
/// assert_eq!(x.convert_layout(Order::C, &q)?, array![[12u8, 128], [14, 255]]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Quantize<T>(QuantParams<T>);

quant_constructors!(Quantize, "quantize");

impl<T: Quantized> Sealed<f32, T> for Quantize<T> {
    fn step(&self) -> Step<'_> {
        self.0.step(Kernel::QuantizeI8, Kernel::QuantizeU8)
    }

    fn onnx(&self, _: usize) -> Option<Vec<OnnxNode>> {
        Some(vec![OnnxNode::QuantizeLinear {
            axis: self.0.axis,
            scale: self.0.scale.clone(),
            zero_point: self.0.zero_i64(),
            to: onnx_type::<T>()?,
        }])
    }
}

impl<T: Quantized> Conversion<f32, T> for Quantize<T> {
    #[inline(always)]
    fn convert(&self, a: &f32, at: usize) -> T {
        let (scale, zero) = self.0.at(at);
        let v = (a / scale).round_ties_even() + zero;
        // The vector kernels' `max` and `min`: a NaN takes the bound.
        let v = if v > T::LOW { v } else { T::LOW };
        let v = if v < T::HIGH { v } else { T::HIGH };
        T::from_f32(v)
    }

    fn axis(&self) -> Option<(usize, usize)> {
        self.0.axis()
    }
}

/// ONNX `DequantizeLinear` to `f32`: `(a - zero_point) as f32 * scale` (the difference exact,
/// one rounding), per tensor or per index along an output axis.
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::Dequantize;
/// use ndarray_reshape::{Order, ReshapeExt};
/// let q = array![[12u8, 128], [14, 255]];
/// let x = q.t().convert_layout(Order::C, &Dequantize::new(0.25, 10)?)?;
/// assert_eq!(x, array![[0.5f32, 1.0], [29.5, 61.25]]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Dequantize<T>(QuantParams<T>);

quant_constructors!(Dequantize, "dequantize");

impl<T: Quantized> Sealed<T, f32> for Dequantize<T> {
    fn step(&self) -> Step<'_> {
        self.0.step(Kernel::DequantizeI8, Kernel::DequantizeU8)
    }

    fn onnx(&self, _: usize) -> Option<Vec<OnnxNode>> {
        Some(vec![OnnxNode::DequantizeLinear {
            axis: self.0.axis,
            scale: self.0.scale.clone(),
            zero_point: self.0.zero_i64(),
        }])
    }
}

impl<T: Quantized> Conversion<T, f32> for Dequantize<T> {
    #[inline(always)]
    fn convert(&self, a: &T, at: usize) -> f32 {
        let (scale, zero) = self.0.at(at);
        (a.to_f32() - zero) * scale
    }

    fn axis(&self) -> Option<(usize, usize)> {
        self.0.axis()
    }
}

/// Any closure from `&A` to `B`, element by element (no vector kernel; the copy's tiles and
/// threads still apply).
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::Map;
/// use ndarray_reshape::{Order, ReshapeExt};
/// let x = array![[1u16, 2], [3, 4]];
/// let y = x.t().convert_layout(Order::C, &Map(|v: &u16| u32::from(*v) * 1000))?;
/// assert_eq!(y, array![[1000u32, 3000], [2000, 4000]]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Map<F>(pub F);

impl<A, B, F: Fn(&A) -> B + Sync> Sealed<A, B> for Map<F> {}

impl<A, B, F: Fn(&A) -> B + Sync> Conversion<A, B> for Map<F> {
    #[inline(always)]
    fn convert(&self, a: &A, _: usize) -> B {
        (self.0)(a)
    }
}
