//! The x86-64 row kernels: streaming copies of rows (forwards, and reversed in 16-byte blocks)
//! and the strips ([`strip_loop`](super::super::strip_loop) built with AVX2), beside the tile kernels
//! of `x86.rs`.

use std::arch::x86_64::*;

/// [`stream`](super::stream): the bytes before the first 64-byte boundary of `dst` copied
/// plainly, then whole 64-byte lines through streaming stores (SSE2), then the rest plainly.
/// Only whole lines stream: a line that a streaming store writes in part (a row that does not
/// start or end on a line, as 1568-byte rows of `u16`) is flushed in part, and a plain store to
/// it after that waits for the flush (BENCHMARKS.md, "Flips and small elements").
///
/// # Safety
///
/// [`stream`](super::stream)'s contract.
#[inline]
pub(super) unsafe fn stream(src: *const u8, dst: *mut u8, n: usize) {
    let head = dst.align_offset(64).min(n);
    // SAFETY: the caller's contract; every copy below stays within `[..n]` on both sides, and
    // `dst + k` is 64-byte aligned from `head` on.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let mut k = head;
        while k + 64 <= n {
            let a = _mm_loadu_si128(src.add(k).cast());
            let b = _mm_loadu_si128(src.add(k + 16).cast());
            let c = _mm_loadu_si128(src.add(k + 32).cast());
            let d = _mm_loadu_si128(src.add(k + 48).cast());
            _mm_stream_si128(dst.add(k).cast(), a);
            _mm_stream_si128(dst.add(k + 16).cast(), b);
            _mm_stream_si128(dst.add(k + 32).cast(), c);
            _mm_stream_si128(dst.add(k + 48).cast(), d);
            k += 64;
        }
        std::ptr::copy_nonoverlapping(src.add(k), dst.add(k), n - k);
    }
}

/// [`stream_reversed`](super::stream_reversed) for elements of 1, 2, 4, 8 or 16 bytes: 16-byte
/// blocks of the output, each the source's block at the mirrored place with its elements
/// reversed in a register (SSE2 shuffles), written with streaming stores; the elements before
/// the output's first 16-byte boundary and after its last are copied one by one. `false`,
/// having written nothing, for other sizes or an output not aligned to its element size.
///
/// # Safety
///
/// [`stream_reversed`](super::stream_reversed)'s contract.
#[inline]
pub(super) unsafe fn stream_reversed(src: *const u8, dst: *mut u8, n: usize, size: usize) -> bool {
    let head = dst.align_offset(16);
    if !matches!(size, 1 | 2 | 4 | 8 | 16) || head % size != 0 {
        return false;
    }
    let bytes = n * size;
    let head = head.min(bytes);
    // The end of the source row in memory: one past the bytes of its first element, which
    // the output's last element mirrors from.
    // SAFETY: `src` is the row's element 0, at its highest address (the caller's contract).
    let end = unsafe { src.add(size) };
    // SAFETY: the caller's contract: output byte `k` of element `k / size` comes from the
    // element `n - 1 - k / size` below `end`; each block below stays within `[..bytes]` on
    // the output's side and within the row on the source's, and `dst + k` is 16-byte aligned
    // from `head` on.
    unsafe {
        let one = |k: usize| std::ptr::copy_nonoverlapping(end.sub(k + size), dst.add(k), size);
        let mut k = 0;
        while k < head {
            one(k);
            k += size;
        }
        // The blocks last to first: the source is read upwards, as the prefetchers expect.
        let blocks = (bytes - head) / 16;
        for b in (0..blocks).rev() {
            let k = head + 16 * b;
            let x = _mm_loadu_si128(end.sub(k + 16).cast());
            let x = match size {
                1 => {
                    let swapped = _mm_or_si128(_mm_slli_epi16::<8>(x), _mm_srli_epi16::<8>(x));
                    let lo = _mm_shufflelo_epi16::<0x1B>(swapped);
                    _mm_shuffle_epi32::<0x4E>(_mm_shufflehi_epi16::<0x1B>(lo))
                }
                2 => {
                    let lo = _mm_shufflelo_epi16::<0x1B>(x);
                    _mm_shuffle_epi32::<0x4E>(_mm_shufflehi_epi16::<0x1B>(lo))
                }
                4 => _mm_shuffle_epi32::<0x1B>(x),
                8 => _mm_shuffle_epi32::<0x4E>(x),
                _ => x,
            };
            _mm_stream_si128(dst.add(k).cast(), x);
        }
        let mut k = head + 16 * blocks;
        while k < bytes {
            one(k);
            k += size;
        }
    }
    true
}

/// The strip kernels ([`strip_loop`](super::super::strip_loop)): with `split`, the `n` groups of `k`
/// elements of `size` bytes at `src` into `k` rows `d` apart at `dst`; without, `k` rows of
/// `n` elements `d` apart at `src` into `n` groups at `dst`. Compiled with AVX2 where the
/// machine has it (about ten times the baseline's speed, BENCHMARKS.md, "Flips and small
/// elements"), for the baseline elsewhere.
///
/// # Safety
///
/// [`strip_loop`](super::super::strip_loop)'s contract; `size` 1 or 2 and `k` 2 to 4 (others copy
/// nothing).
#[inline]
pub(super) unsafe fn strip(
    split: bool,
    at: (u8, u8),
    src: *const u8,
    dst: *mut u8,
    d: usize,
    n: usize,
) {
    let avx2 = super::avx2();
    // SAFETY: the caller's contract; AVX2 only where the machine has it.
    unsafe {
        match (split, avx2) {
            (true, true) => strip_avx2::<true>(at, src, dst, d, n),
            (false, true) => strip_avx2::<false>(at, src, dst, d, n),
            (true, false) => strips::<true>(at, src, dst, d, n),
            (false, false) => strips::<false>(at, src, dst, d, n),
        }
    }
}

/// [`strips`] compiled with AVX2.
///
/// # Safety
///
/// [`strip`]'s contract, and AVX2 on this machine.
#[target_feature(enable = "avx2")]
unsafe fn strip_avx2<const SPLIT: bool>(
    at: (u8, u8),
    src: *const u8,
    dst: *mut u8,
    d: usize,
    n: usize,
) {
    // SAFETY: the caller's contract.
    unsafe { strips::<SPLIT>(at, src, dst, d, n) }
}

/// The strip loop of the right element type and group, in one direction (`SPLIT`: groups
/// into rows, or rows into groups).
///
/// # Safety
///
/// [`strip`]'s contract.
#[inline(always)]
unsafe fn strips<const SPLIT: bool>(
    (size, k): (u8, u8),
    src: *const u8,
    dst: *mut u8,
    d: usize,
    n: usize,
) {
    use super::super::strip_loop as l;
    let (s2, d2) = (src.cast::<u16>(), dst.cast::<u16>());
    // SAFETY: the caller's contract, the bytes read as elements of `size` bytes.
    unsafe {
        match (size, k) {
            (1, 2) => l::<u8, 2, SPLIT>(src, dst, d, n),
            (1, 3) => l::<u8, 3, SPLIT>(src, dst, d, n),
            (1, 4) => l::<u8, 4, SPLIT>(src, dst, d, n),
            (2, 2) => l::<u16, 2, SPLIT>(s2, d2, d, n),
            (2, 3) => l::<u16, 3, SPLIT>(s2, d2, d, n),
            (2, 4) => l::<u16, 4, SPLIT>(s2, d2, d, n),
            _ => {}
        }
    }
}
