//! Runs of a conversion: `n` elements read `s` apart, converted into `n` consecutive slots,
//! through the vector kernel of the conversion where the run is contiguous and the machine has
//! it, through [`Elementwise::each`] (its scalar twin) elsewhere and for the tail.

use std::marker::PhantomData;

use super::step::{Elementwise, Kernel, Step};

use super::arch::{self, Vector};

/// Runs that follow one another at fixed steps: `count` of them, each `src` source elements
/// and `dst` output slots after the one before; `stream` when the output is past the caches
/// (the vector kernels then write with streaming stores).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub(crate) count: usize,
    pub(crate) src: isize,
    pub(crate) dst: usize,
    // Read by the vector kernels only, which the portable build has none of.
    #[allow(dead_code)]
    pub(crate) stream: bool,
}

impl Rows {
    /// One run.
    pub(crate) const ONE: Rows = Rows {
        count: 1,
        src: 0,
        dst: 0,
        stream: false,
    };

    /// The source offset of run `r`.
    #[inline(always)]
    pub(crate) fn src_step(self, r: usize) -> isize {
        (r as isize).wrapping_mul(self.src)
    }
}

/// The runs of one conversion copy.
pub(super) struct Runs<'a, A, B, C: ?Sized> {
    pub(super) conv: &'a C,
    pub(super) step: Step<'a>,
    /// The output positions one index along the conversion's axis covers, and its length.
    pub(super) params: Option<(usize, usize)>,
    pub(super) vector: Vector,
    /// Whether the vector kernels write with streaming stores (see [`Rows`]).
    pub(super) stream: bool,
    pub(super) types: PhantomData<fn(&A) -> B>,
}

impl<A, B, C: Elementwise<A, B> + ?Sized> Runs<'_, A, B, C> {
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
                    dst.add(t).write(self.conv.each(a, (pos + t) % len));
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

    /// [`run`](Self::run) of `rows.count` runs, each `rows.src` source elements and `rows.dst`
    /// output slots after the one before, the first at output position `pos`: for the vector
    /// kernels one call for all of them (short runs cost their call otherwise; BENCHMARKS.md,
    /// "Conversions").
    ///
    /// # Safety
    ///
    /// As [`run`](Self::run), for every run.
    #[inline]
    pub(super) unsafe fn run_rows(
        &self,
        src: *const A,
        s: isize,
        dst: *mut B,
        n: usize,
        rows: Rows,
        pos: usize,
    ) {
        let batched = s == 1 && self.params.is_none() && self.vector != Vector::Scalar;
        if !batched || rows.count == 1 {
            for r in 0..rows.count {
                // SAFETY: the caller's contract, run by run.
                unsafe {
                    let d = r * rows.dst;
                    self.run(
                        src.wrapping_offset(rows.src_step(r)),
                        s,
                        dst.add(d),
                        n,
                        pos + d,
                    );
                }
            }
            return;
        }
        // SAFETY: the caller's contract; the kernel was chosen for this machine and the
        // conversion's op, whose element types are `A` and `B`.
        let done = unsafe { arch::run(self.vector, self.step, 0, src.cast(), dst.cast(), n, rows) };
        for r in 0..rows.count {
            // SAFETY: the tail of each run (the caller's contract).
            unsafe {
                let (src, dst) = (src.wrapping_offset(rows.src_step(r)), dst.add(r * rows.dst));
                for t in done..n {
                    dst.add(t).write(self.conv.each(&*src.wrapping_add(t), 0));
                }
            }
        }
    }

    /// [`run`](Self::run) of elements that share the index `at`.
    ///
    /// # Safety
    ///
    /// As [`run`](Self::run).
    #[inline(always)]
    unsafe fn fixed(&self, src: *const A, s: isize, dst: *mut B, n: usize, at: usize) {
        if s == 1 && self.step.kernel == Kernel::Same {
            // SAFETY: the caller's contract; `Kernel::Same` is a `Cast` of a primitive type to
            // itself (`A` is `B`, `Copy`), whose value is its bits.
            unsafe {
                let bytes = n * std::mem::size_of::<B>();
                match self.stream {
                    true => crate::copy::simd::stream(src.cast(), dst.cast(), bytes),
                    false => std::ptr::copy_nonoverlapping(src.cast::<B>(), dst, n),
                }
            }
            return;
        }
        let mut done = 0;
        if s == 1 && self.vector != Vector::Scalar {
            // SAFETY: the caller's contract; the kernel was chosen for this machine and the
            // conversion's op, whose element types are `A` and `B`.
            done = unsafe {
                let (s, d) = (src.cast(), dst.cast());
                let one = Rows {
                    stream: self.stream,
                    ..Rows::ONE
                };
                arch::run(self.vector, self.step, at, s, d, n, one)
            };
        }
        for t in done..n {
            // SAFETY: the caller's contract.
            unsafe {
                let a = &*src.wrapping_offset((t as isize).wrapping_mul(s));
                dst.add(t).write(self.conv.each(a, at));
            }
        }
    }
}
