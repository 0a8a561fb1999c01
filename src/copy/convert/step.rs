//! The engine's word for what a converting copy does to each element: [`Elementwise`], the
//! definition every kernel matches, and [`Step`], the vector kernel that computes it over a
//! contiguous run with its parameters. The conversions of `crate::convert` implement it.

/// A per-element step the converting copies run: `each` is the definition (the scalar twin of
/// every kernel), `step` the vector kernel that gives the same bits over a run.
pub(crate) trait Elementwise<A, B>: Sync {
    /// `a`, at index `at` along the parameters' axis (0 without one), converted.
    fn each(&self, a: &A, at: usize) -> B;

    /// The vector kernel and its parameters ([`Step::each`] for none).
    fn step(&self) -> Step<'_>;
}

/// The vector kernel that computes [`Elementwise::each`] over a contiguous run, and its
/// parameters (one `scale` and `shift` per index along the parameters' axis, or one in all).
/// `pub` in a room users cannot reach, for the sealed side of `crate::convert::Conversion`.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    pub(crate) kernel: Kernel,
    // Read by the vector kernels only, which the portable build has none of.
    #[allow(dead_code)]
    pub(crate) scale: &'a [f32],
    #[allow(dead_code)]
    pub(crate) shift: &'a [f32],
}

impl Step<'_> {
    /// The element by element step: [`Elementwise::each`] for each.
    pub(crate) fn each() -> Step<'static> {
        Step::of(Kernel::Each)
    }

    /// `kernel` with no parameters.
    pub(crate) fn of(kernel: Kernel) -> Step<'static> {
        Step {
            kernel,
            scale: &[],
            shift: &[],
        }
    }
}

/// The vector kernels of the converting copies. Each names the element types it reads and
/// writes: a step names one only for those types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "half"), allow(dead_code))]
pub(crate) enum Kernel {
    /// No kernel: [`Elementwise::each`] element by element.
    Each,
    /// A type to itself: the bits copied (`memcpy` of contiguous runs).
    Same,
    /// `f32` to `half::bf16`, rounded to nearest even.
    F32ToBf16,
    /// `f32` to `half::f16`, rounded to nearest even.
    F32ToF16,
    /// `half::bf16` to `f32`.
    Bf16ToF32,
    /// `half::f16` to `f32`.
    F16ToF32,
    /// `u8` to `f32`: `a * scale + shift`.
    AffineU8,
    /// `f32` to `f32`: `a * scale + shift`.
    AffineF32,
    /// `f32` to `i8`: `saturate(round_half_even(a / scale) + shift)` (`shift` the zero points).
    QuantizeI8,
    /// `f32` to `u8`, as [`Kernel::QuantizeI8`].
    QuantizeU8,
    /// `i8` to `f32`: `(a - shift) * scale`.
    DequantizeI8,
    /// `u8` to `f32`, as [`Kernel::DequantizeI8`].
    DequantizeU8,
}
