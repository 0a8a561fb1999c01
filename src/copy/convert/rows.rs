//! Runs of a conversion: `n` elements read `s` apart, converted into `n` consecutive slots,
//! through the vector kernel of the conversion where the run is contiguous and the machine has
//! it, through [`Conversion::convert`] (its scalar twin) elsewhere and for the tail.

use std::marker::PhantomData;

use crate::convert::{Conversion, Op, Step};

/// The vector kernels this machine runs for a conversion, chosen once per copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vector {
    /// None: the scalar twin (other machines, Miri, conversions without a kernel).
    Scalar,
    /// AVX2 (with F16C for `f16`).
    Avx2,
    /// AVX-512F with AVX-512 BF16 (`f32` to `bf16`).
    #[cfg(all(target_arch = "x86_64", not(miri), avx512))]
    Avx512,
}

impl Vector {
    /// The kernels this machine has for `op`.
    pub(crate) fn of(op: Op) -> Vector {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            super::x86::level(op)
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        {
            let _ = op;
            Vector::Scalar
        }
    }
}

/// The runs of one conversion copy.
pub(super) struct Runs<'a, A, B, C: ?Sized> {
    pub(super) conv: &'a C,
    pub(super) step: Step<'a>,
    /// The output positions one index along the conversion's axis covers, and its length.
    pub(super) params: Option<(usize, usize)>,
    pub(super) vector: Vector,
    pub(super) types: PhantomData<fn(&A) -> B>,
}

impl<A, B, C: Conversion<A, B> + ?Sized> Runs<'_, A, B, C> {
    /// `dst[t] = convert(src[t * s], at)` for `t < n`, where `at` is the index along the
    /// conversion's axis of output position `pos + t`.
    ///
    /// # Safety
    ///
    /// `src + t * s` readable for `t < n`, `dst[..n]` writable and disjoint from them.
    #[inline]
    pub(super) unsafe fn run(&self, src: *const A, s: isize, dst: *mut B, n: usize, pos: usize) {
        let Some((stride, len)) = self.params else {
            // SAFETY: the caller's contract.
            return unsafe { self.fixed(src, s, dst, n, 0) };
        };
        if stride == 1 {
            // The parameters change from element to element (the axis is the output's last).
            for t in 0..n {
                // SAFETY: the caller's contract.
                unsafe {
                    let a = &*src.wrapping_offset((t as isize).wrapping_mul(s));
                    dst.add(t).write(self.conv.convert(a, (pos + t) % len));
                }
            }
            return;
        }
        let mut t = 0;
        while t < n {
            let p = pos + t;
            let seg = (stride - p % stride).min(n - t);
            // SAFETY: a piece of the caller's run.
            unsafe {
                self.fixed(
                    src.wrapping_offset((t as isize).wrapping_mul(s)),
                    s,
                    dst.add(t),
                    seg,
                    (p / stride) % len,
                );
            }
            t += seg;
        }
    }

    /// [`run`](Self::run) of elements that share the index `at`.
    ///
    /// # Safety
    ///
    /// As [`run`](Self::run).
    #[inline(always)]
    unsafe fn fixed(&self, src: *const A, s: isize, dst: *mut B, n: usize, at: usize) {
        if s == 1 && self.step.op == Op::Same {
            // SAFETY: the caller's contract; `Op::Same` is a `Cast` of a primitive type to
            // itself (`A` is `B`, `Copy`), whose value is its bits.
            return unsafe { std::ptr::copy_nonoverlapping(src.cast::<B>(), dst, n) };
        }
        let mut done = 0;
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if s == 1 && self.vector != Vector::Scalar {
            // SAFETY: the caller's contract; the kernel was chosen for this machine and the
            // conversion's op, whose element types are `A` and `B`.
            done =
                unsafe { super::x86::run(self.vector, self.step, at, src.cast(), dst.cast(), n) };
        }
        for t in done..n {
            // SAFETY: the caller's contract.
            unsafe {
                let a = &*src.wrapping_offset((t as isize).wrapping_mul(s));
                dst.add(t).write(self.conv.convert(a, at));
            }
        }
    }
}
