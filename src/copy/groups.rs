//! Tiles of grouped axes, for permutes whose contiguous axes are short (the reversed axes of
//! a rank-8 tensor of 8s, windows of 7 or 8 elements): the input's fastest axes that lie
//! contiguous together form one tile axis `P`, the output's last axes the other, `Q`, and a
//! tile addresses its rows through offset tables. Source rows and output rows are then whole
//! cache lines or more, where [`Tiles`](super::kernels::Tiles) of the two single axes would
//! read and write runs of a few elements, each line revisited long after (BENCHMARKS.md,
//! "How the copy works").

use super::{kernels, simd, Source};
use crate::small::Small;

/// A group grows while its run stays within this many bytes: long enough for whole lines and
/// hardware prefetch, short enough that a tile of both groups stays in L2.
const GROUP_BYTES: usize = 1024;

/// Single axes whose runs are at least this many bytes on both sides are left to
/// [`Tiles`](super::kernels::Tiles): their rows are whole lines already.
const SHORT_RUN_BYTES: usize = 256;

/// A blocked transpose of two axis groups: `P`, axes of the input contiguous together (the
/// input offset of index `i` of `P` is `i`), and `Q`, the output's last axes (the output
/// offset of index `j` of `Q` is `j`), for every index of the other axes.
pub(super) struct Grouped {
    /// The output offset of each index of `P`.
    out_p: Vec<usize>,
    /// The input offset of each index of `Q`.
    in_q: Vec<isize>,
    /// Block sides along `P` and `Q`, in elements: a unit is one block of each.
    pb: usize,
    qb: usize,
    p_blocks: usize,
    q_blocks: usize,
    /// The other axes, outermost first: extents, input and output strides.
    rest: Small<usize>,
    rest_in: Small<isize>,
    rest_out: Small<usize>,
    rest_count: usize,
    /// The vector kernel ([`simd::tile_tabled`]), when the elements may be moved as bits.
    vector: Option<simd::Kernel>,
}

impl Grouped {
    /// The grouped tiles of a copy of `elem`-byte elements from `source`, with a vector kernel
    /// when they are `plain` (may be moved as bits); `None` where grouping lengthens no run (the
    /// single axes already read and write long rows, or no neighbour axis joins them).
    pub(super) fn plan<A>(source: &Source<A>, elem: usize, plain: bool) -> Option<Grouped> {
        let (shape, strides) = (&source.shape[..], &source.strides[..]);
        let nd = shape.len();
        let q = nd.checked_sub(1)?;
        let p = (0..q).find(|&k| strides[k] == 1)?;
        if shape[p] * elem >= SHORT_RUN_BYTES && shape[q] * elem >= SHORT_RUN_BYTES {
            return None;
        }
        let mut in_group = Small::filled(false, nd);
        // `Q`: the output's last axes, innermost first, while the run stays short.
        let mut nq = shape[q];
        in_group[q] = true;
        let mut q_axes: Small<usize> = Small::new();
        q_axes.push(q);
        for k in (0..q).rev() {
            if k == p || nq * shape[k] * elem > GROUP_BYTES {
                break;
            }
            nq *= shape[k];
            in_group[k] = true;
            q_axes.push(k);
        }
        // `P`: the input's contiguous axes from `p`, each the next run of the last.
        let mut np = shape[p];
        in_group[p] = true;
        let mut p_axes: Small<usize> = Small::new();
        p_axes.push(p);
        while let Some(k) = (0..nd).find(|&k| !in_group[k] && strides[k] == np as isize) {
            if np * shape[k] * elem > GROUP_BYTES {
                break;
            }
            np *= shape[k];
            in_group[k] = true;
            p_axes.push(k);
        }
        if np == shape[p] && nq == shape[q] {
            return None;
        }
        let out_strides = kernels::out_strides(shape);
        // Index `t * len + x` of a table grown by axis `k` is index `t` along `k` and `x` of the
        // axes before it (innermost first).
        let mut out_p = vec![0usize];
        for &k in p_axes.iter() {
            let step = out_strides[k];
            out_p = (0..shape[k])
                .flat_map(|t| out_p.iter().map(move |&o| o + t * step))
                .collect();
        }
        let mut in_q = vec![0isize];
        for &k in q_axes.iter() {
            let step = strides[k];
            in_q = (0..shape[k])
                .flat_map(|t| in_q.iter().map(move |&o| o + t as isize * step))
                .collect();
        }
        let (pb, qb) = (
            np.min(GROUP_BYTES / elem).max(1),
            nq.min(GROUP_BYTES / elem).max(1),
        );
        let mut rest = Small::new();
        let mut rest_in = Small::new();
        let mut rest_out = Small::new();
        for k in (0..nd).filter(|&k| !in_group[k]) {
            rest.push(shape[k]);
            rest_in.push(strides[k]);
            rest_out.push(out_strides[k]);
        }
        Some(Grouped {
            out_p,
            in_q,
            pb,
            qb,
            p_blocks: np.div_ceil(pb),
            q_blocks: nq.div_ceil(qb),
            rest_count: rest.iter().product(),
            rest,
            rest_in,
            rest_out,
            vector: plain.then(|| simd::kernel_tabled(elem)).flatten(),
        })
    }

    pub(super) fn units(&self) -> usize {
        self.rest_count * self.p_blocks * self.q_blocks
    }

    /// Copy unit `u`: one block along `Q` (innermost, so consecutive units continue the same
    /// output rows), one along `P`, at one index of the other axes.
    ///
    /// # Safety
    ///
    /// `source` must be the live view these tiles were planned for and `dst` its C-contiguous
    /// output buffer. Units write pairwise disjoint output slots: unit `u` writes exactly the
    /// slots of its blocks of `P` and `Q` at its index of the other axes.
    pub(super) unsafe fn run_unit<A: Clone>(&self, source: &Source<A>, u: usize, dst: *mut A) {
        let jb = u % self.q_blocks;
        let ib = u / self.q_blocks % self.p_blocks;
        let mut rest = u / self.q_blocks / self.p_blocks;
        let (mut src_off, mut dst_off) = (0isize, 0usize);
        for k in (0..self.rest.len()).rev() {
            let t = rest % self.rest[k];
            rest /= self.rest[k];
            src_off += t as isize * self.rest_in[k];
            dst_off += t * self.rest_out[k];
        }
        let (i0, j0) = (ib * self.pb, jb * self.qb);
        let out_p = &self.out_p[i0..(i0 + self.pb).min(self.out_p.len())];
        let in_q = &self.in_q[j0..(j0 + self.qb).min(self.in_q.len())];
        // The input offset of index `i0` of `P` is `i0`; the output offset of `j0` of `Q`, `j0`.
        // SAFETY: both offsets address the block's first element and slot, inside the view and
        // the buffer (every index of the other axes, `P` and `Q` is within its axis).
        let (src, dst) = unsafe {
            (
                source.ptr().offset(src_off + i0 as isize),
                dst.add(dst_off + j0),
            )
        };
        if let Some(kernel) = self.vector {
            // SAFETY: the block's elements are `src + i + in_q[j]`, in the view, and its slots
            // `dst + out_p[i] + j`, this unit's; the elements are plain data of the size the
            // kernel was chosen for.
            unsafe { simd::tile_tabled(kernel, src.cast(), in_q, dst.cast(), out_p) };
            return;
        }
        for (i, &o) in out_p.iter().enumerate() {
            for (j, &s) in in_q.iter().enumerate() {
                // SAFETY: as above, for one element and its slot.
                unsafe { dst.add(o + j).write((*src.offset(s + i as isize)).clone()) };
            }
        }
    }
}
