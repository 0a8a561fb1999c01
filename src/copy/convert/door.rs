//! The safe calls of the conversion engine: an array read in an order into a fresh buffer or
//! the caller's, and the blocked layouts (a channel axis split into blocks, padded or cropped),
//! each building the engine's axes from the array's own shape and strides.

use super::step::Elementwise;
use super::{run, Axis, Job, Limit};
use crate::copy::{buffer, AllocError, RawArray, Src};
use crate::dims::Reading;
use crate::small::Small;

/// The axes of an array of `shape` and `strides` read in `reading` into an output contiguous in
/// that order.
fn read_axes(shape: &[usize], strides: &[isize], reading: Reading) -> Small<Axis> {
    let n = shape.len();
    let mut axes: Small<Axis> = (0..n)
        .map(|i| {
            let k = reading.axis(i, n);
            Axis {
                len: shape[k],
                src: strides[k],
                dst: 0,
            }
        })
        .collect();
    let mut d = 1usize;
    for a in axes.iter_mut().rev() {
        a.dst = d;
        d = d.saturating_mul(a.len);
    }
    axes
}

/// A fresh buffer of `n` elements written by `job` (which writes every slot once).
///
/// # Safety
///
/// [`run`]'s contract for the `n` slots of a fresh buffer.
unsafe fn fresh<A, B, C>(job: &Job<'_, A, B, C>, n: usize) -> Result<Vec<B>, AllocError>
where
    A: Sync,
    B: Clone + Send + Sync,
    C: Elementwise<A, B> + ?Sized,
{
    let mut out: Vec<B> = buffer(n)?;
    if n == 0 {
        return Ok(out);
    }
    #[cfg(feature = "hugepages")]
    crate::copy::hugepages::advise(&mut out);
    // SAFETY: the caller's contract; `out` has room for the `n` slots.
    unsafe {
        run(job, out.as_mut_ptr());
        // Every slot written (the caller's contract). A panicking conversion never gets here:
        // the buffer drops at length 0.
        out.set_len(n);
    }
    Ok(out)
}

/// The elements of `a` read in `reading`, converted by `conv` (its parameters found as
/// `params` says), in a fresh buffer.
pub(crate) fn gather<A, B, C>(
    a: RawArray<'_, A>,
    reading: Reading,
    conv: &C,
    params: Option<(usize, usize)>,
) -> Result<Vec<B>, AllocError>
where
    A: Sync,
    B: Clone + Send + Sync,
    C: Elementwise<A, B> + ?Sized,
{
    let axes = read_axes(a.shape, a.strides, reading);
    let job = Job::reading(a.ptr, &axes, conv, params);
    // SAFETY: `a` addresses a live array of `a.len()` elements (its constructors' contract),
    // read into a fresh buffer of as many, contiguous in `reading`: each slot once.
    unsafe { fresh(&job, a.len()) }
}

/// [`gather`] into `out` (as long as `a`, and apart from it: `out` is borrowed mutably while
/// `a` is read).
pub(crate) fn gather_into<A, B, C>(
    a: RawArray<'_, A>,
    reading: Reading,
    conv: &C,
    params: Option<(usize, usize)>,
    out: &mut [B],
) where
    A: Sync,
    B: Copy + Send + Sync,
    C: Elementwise<A, B> + ?Sized,
{
    assert_eq!(out.len(), a.len(), "the caller checks the output length");
    if out.is_empty() {
        return;
    }
    let axes = read_axes(a.shape, a.strides, reading);
    let job = Job::reading(a.ptr, &axes, conv, params);
    // SAFETY: `a`'s live array read into `out`, apart from it and of its length, contiguous in
    // `reading`; overwriting `Copy` elements drops nothing.
    unsafe { run(&job, out.as_mut_ptr()) };
}

/// The arrays `parts` joined into a fresh C-order buffer, each converted by `conv` (einops'
/// `pack`): each part's dims are `at` leading dims, its own run of dims flattened into one
/// axis of the output (the joined axis, the parts' runs in order), and `after` trailing dims;
/// the leading and trailing dims are the same in every part (the caller's check) and the
/// output's. Each part is one job of the engine, its output axes strided by the joined
/// axis' length.
pub(crate) fn joined<A, B, C>(
    parts: &[RawArray<'_, A>],
    at: usize,
    after: usize,
    conv: &C,
) -> Result<Vec<B>, AllocError>
where
    A: Sync,
    B: Clone + Send + Sync,
    C: Elementwise<A, B> + ?Sized,
{
    let Some(first) = parts.first() else {
        return buffer(0);
    };
    let rank = first.shape.len();
    let inner: usize = first.shape[rank - after..].iter().product();
    let outer: usize = first.shape[..at].iter().product();
    let runs: Small<usize> = parts
        .iter()
        .map(|p| p.shape[at..p.shape.len() - after].iter().product())
        .collect();
    let joined: usize = runs.iter().sum();
    let n = outer * joined * inner;
    let mut out: Vec<B> = buffer(n)?;
    if n == 0 {
        return Ok(out);
    }
    let mut offset = 0usize;
    for (part, &run_len) in parts.iter().zip(runs.iter()) {
        let r = part.shape.len();
        // The output strides of the part's axes, last to first: C order within the trailing
        // dims, then within the part's run, then the leading dims over the whole joined axis.
        let mut axes: Small<Axis> = (0..r)
            .map(|i| Axis {
                len: part.shape[i],
                src: part.strides[i],
                dst: 0,
            })
            .collect();
        let mut d = 1usize;
        for (i, a) in axes.iter_mut().enumerate().rev() {
            if i + 1 == at {
                d = joined * inner;
            }
            a.dst = d;
            d *= a.len;
        }
        if part.len > 0 {
            let job = Job::reading(part.ptr, &axes, conv, None);
            // SAFETY: each part addresses a live array of `part.len` elements (its
            // constructors' contract); its positions are the output's slots `offset * inner +`
            // its axes' offsets, inside the buffer of `n` (`offset + run_len <= joined`) and
            // apart from every other part's (their runs along the joined axis do not meet).
            unsafe { run(&job, out.as_mut_ptr().add(offset * inner)) };
        }
        offset += run_len;
    }
    // SAFETY: the parts' runs cover the joined axis, so every one of the `n` slots was written
    // once. A panicking conversion never gets here: the buffer drops at length 0.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// A blocked layout of `a`: with `pack`, its axis `axis` (of `channels`) padded with `fill` to
/// `blocks * block` and split into `blocks` there and `block` as a new last axis; without,
/// the reverse (`a`'s axis `axis` holds the blocks, its last the block, and the output has
/// `channels` there, cropped). Converted by `conv`, into a fresh C-contiguous buffer.
/// The caller checked the shapes: `blocks * block >= channels > (blocks - 1) * block`.
pub(crate) fn blocked<A: Sync, B: Clone + Send + Sync, C: Elementwise<A, B> + ?Sized>(
    a: RawArray<'_, A>,
    (axis, block, blocks, channels): (usize, usize, usize, usize),
    pack: bool,
    fill: B,
    conv: &C,
    params: Option<(usize, usize)>,
) -> Result<Vec<B>, AllocError> {
    let (shape, strides) = (a.shape, a.strides);
    // The output's shape and its C-contiguous strides.
    let mut out: Small<usize> = shape[..shape.len() - usize::from(!pack)]
        .iter()
        .copied()
        .collect();
    if pack {
        out[axis] = blocks;
        out.push(block);
    } else {
        out[axis] = channels;
    }
    let mut out_strides = Small::filled(1usize, out.len());
    for k in (0..out.len().saturating_sub(1)).rev() {
        out_strides[k] = out_strides[k + 1].saturating_mul(out[k + 1]);
    }
    let n = out.iter().product::<usize>();
    // The engine's axes: every axis of the output, the channels as the pair (blocks, block),
    // each with the source's stride and the output's (the engine orders them itself).
    let (channel_src, block_dst) = match pack {
        true => (strides[axis], 1),
        false => (strides[shape.len() - 1], out_strides[axis]),
    };
    let blocks_dst = match pack {
        true => out_strides[axis],
        false => out_strides[axis].saturating_mul(block),
    };
    let mut axes: Small<Axis> = Small::new();
    for k in 0..shape.len() - usize::from(!pack) {
        if k == axis {
            axes.push(Axis {
                len: blocks,
                src: channel_src.wrapping_mul(block as isize),
                dst: blocks_dst,
            });
            axes.push(Axis {
                len: block,
                src: channel_src,
                dst: block_dst,
            });
        } else {
            axes.push(Axis {
                len: shape[k],
                src: strides[k],
                dst: out_strides[k],
            });
        }
    }
    if !pack {
        // Unpacking reads the blocks axis with its own stride, the block along the last axis.
        axes[axis].src = strides[axis];
    }
    // The pair read as one number is the channel: below `channels` it is read; past it,
    // padding when packing, and no slot at all when cropping back.
    let limits = [Limit {
        first: axis,
        count: 2,
        limit: channels,
        fill: pack,
    }];
    let job = Job {
        src: Src(a.ptr),
        axes: &axes,
        limits: &limits,
        fill: Some(fill),
        conv,
        params,
    };
    // SAFETY: every position below the limit reads channel `b * block + c < channels` of `a`
    // at its own indices (an element of the live array), every output position is a slot of
    // the fresh buffer of `n` (the output strides are the output's C-contiguous strides),
    // each once; positions past the limit are filled (pack) or absent (crop).
    unsafe { fresh(&job, n) }
}
