//! Transparent huge pages for large fresh outputs (Linux): fewer, cheaper page faults when the
//! output is first touched.

/// Outputs at least this large are advised to use huge pages.
pub(super) const MIN_BYTES: usize = 4 << 20;

const HUGE: usize = 2 << 20;

/// Ask the kernel to back the 2 MiB-aligned part of `v`'s spare capacity with huge pages.
/// Advisory: a refusal changes nothing but speed.
pub(crate) fn advise<A>(v: &mut Vec<A>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<A>());
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = v.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > aligned {
            // The advised range's start, derived from `v`'s own pointer (no integer-to-pointer
            // cast); `aligned - start < HUGE <= bytes`, so it stays inside the allocation.
            let from = v.as_mut_ptr().cast::<u8>().wrapping_add(aligned - start);
            // SAFETY: the range lies inside `v`'s own allocation; MADV_HUGEPAGE only changes how
            // the kernel backs those pages, never their contents or validity.
            unsafe {
                libc::madvise(from.cast(), end - aligned, libc::MADV_HUGEPAGE);
            }
        }
    }
}
