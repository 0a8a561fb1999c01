//! Value tests of the copy paths: the walk and the schedule in both orders, rows and tiles,
//! serial and parallel, streaming stores, impossible outputs.

use super::*;
use ndarray::{s, Array, ArrayView, Axis, IxDyn};

/// The elements of `v` in C order, by ndarray's `assign`: it walks the innermost axis as a
/// strided loop, where an iterator over all axes costs some 100 ns per element in the
/// unoptimized test build.
pub(super) fn c_order<T: Clone, D: Dimension>(v: &ArrayView<'_, T, D>) -> Vec<T> {
    let Some(first) = v.first() else {
        return Vec::new();
    };
    let mut out = Array::from_elem(v.raw_dim(), first.clone());
    out.assign(v);
    out.into_raw_vec_and_offset().0
}

/// Both copy paths (the schedule of `gather_c`, and `gather`, which walks small outputs) in
/// both reading orders give the elements in that order.
fn check(view: ArrayView<'_, i64, IxDyn>) {
    let want = c_order(&view);
    let want_f = c_order(&view.t());
    let at = format!("shape {:?} strides {:?}", view.shape(), view.strides());
    assert_eq!(
        gather_c(&Source::of(&view, Reading::C), view.len()),
        want,
        "{at}"
    );
    assert_eq!(
        gather(RawArray::of(&view), Reading::C).unwrap(),
        want,
        "walk, C, {at}"
    );
    assert_eq!(
        gather(RawArray::of(&view), Reading::F).unwrap(),
        want_f,
        "walk, F, {at}"
    );
}

/// The walk of one and two axes (the rows of `two_axes`): every small 2-D layout, each axis
/// forward, reversed, stepped or broadcast, in both orders, merged or not, and 1-D ones.
#[test]
fn one_and_two_axes() {
    let a = Array::from_iter(0..64i64)
        .into_shape_with_order((8, 8))
        .unwrap();
    let slices = [
        ndarray::Slice::new(0, None, 1),
        ndarray::Slice::new(0, None, -1),
        ndarray::Slice::new(1, Some(6), 2),
        ndarray::Slice::new(2, Some(3), 1),
        ndarray::Slice::new(0, Some(0), 1),
    ];
    for r in slices {
        for c in slices {
            let v = a.slice_each_axis(|ax| if ax.axis.index() == 0 { r } else { c });
            check(v.into_dyn());
            check(v.t().into_dyn());
            if !v.is_empty() {
                check(v.row(0).into_dyn());
                check(v.column(0).into_dyn());
            }
        }
    }
    let row = Array::from_iter(0..5i64);
    check(row.broadcast((3, 5)).unwrap().into_dyn());
    check(row.broadcast((3, 5)).unwrap().t().into_dyn());
    check(row.view().insert_axis(ndarray::Axis(0)).into_dyn());
    check(row.slice(s![..;-1]).into_dyn());
}

/// More axes than `walk` takes (after merging): the schedule, with the same values.
#[test]
fn many_axes() {
    let a = Array::from_iter(0..1024i64)
        .into_shape_with_order(IxDyn(&[2; 10]))
        .unwrap();
    let mut v = a.view();
    v.swap_axes(0, 9);
    v.swap_axes(2, 5);
    check(v.clone());
    check(a.t());
    check(a.slice_each_axis(|ax| {
        ndarray::Slice::new(0, None, if ax.axis.index() % 3 == 0 { -1 } else { 1 })
    }));
    // Every other axis reversed: no two neighbours merge, so ten axes remain, more than
    // the walk takes; this small copy falls back to the schedule in the walk's buffer.
    let alternate = a.slice_each_axis(|ax| {
        ndarray::Slice::new(0, None, if ax.axis.index() % 2 == 0 { -1 } else { 1 })
    });
    let mut out = Vec::<i64>::with_capacity(alternate.len());
    // SAFETY: a live, non-empty view, and room for its elements in `out`.
    let walked = unsafe {
        kernels::walk(
            alternate.as_ptr(),
            alternate.shape(),
            alternate.strides(),
            Reading::C,
            out.as_mut_ptr(),
        )
    };
    assert!(!walked, "the walk must refuse ten unmergeable axes");
    check(alternate);
}

#[test]
fn odd_strides() {
    let a = Array::from_iter(0..720i64)
        .into_shape_with_order((6, 5, 4, 6))
        .unwrap();
    check(a.view().into_dyn());
    check(a.t().into_dyn());
    check(a.slice(s![..;-2, 1..4, ..;3, ..;-1]).into_dyn());
    check(a.slice(s![2..3, .., 1..2, ..]).into_dyn());
    check(a.slice(s![.., 0..0, .., ..]).into_dyn());
    check(a.slice(s![1, 2, 3, 4]).into_dyn());
    let mut p = a.view();
    p.swap_axes(1, 3);
    check(p.into_dyn());
    let b = Array::from_iter(0..5i64);
    check(b.broadcast((3, 5)).unwrap().into_dyn());
    check(
        b.view()
            .insert_axis(Axis(1))
            .broadcast((5, 4))
            .unwrap()
            .into_dyn(),
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn large_parallel_copy_is_exact() {
    let a = Array::from_iter(0..(600 * 700) as i64)
        .into_shape_with_order((600, 700))
        .unwrap();
    check(a.t().into_dyn());
    check(a.slice(s![..;-1, 3..]).into_dyn());
}

/// Tiles only for large outputs or conflict strides; the values are right either way,
/// serial and parallel.
#[test]
fn tiles_or_rows_by_size_and_stride() {
    let tiled = |v: &ArrayView<'_, i64, IxDyn>| {
        matches!(
            Schedule::new(&Source::of(v, Reading::C), v.len(), false),
            Schedule::Tiles(_)
        )
    };
    for (side, want) in [
        (40, false),
        (64, true),
        (90, false),
        (150, false),
        (400, true),
    ] {
        // i64: 40^2 = 12.5 KiB (rows), 64 (512-byte stride: tiles), 90 and 150 (rows, the
        // latter parallel), 400 (1.2 MiB: tiles). Miri runs the small ones.
        if cfg!(miri) && side > 64 {
            continue;
        }
        let a = Array::from_iter(0..(side * side) as i64)
            .into_shape_with_order((side, side))
            .unwrap();
        let t = a.t().into_dyn();
        assert_eq!(tiled(&t), want, "side {side}");
        check(t);
        // Reversed rows are not transposes: never tiled.
        let r = a.slice(s![..;-1, ..]).into_dyn();
        assert!(!tiled(&r));
        check(r);
    }
}

/// Just over [`PARALLEL_MIN_BYTES`] in a two-thread pool: the units of rows and of tiles run
/// on both threads and write disjoint parts of one output. Sized for Miri, which runs it
/// under Tree Borrows.
#[cfg(feature = "rayon")]
#[test]
fn parallel_split_is_exact() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // i64, 129 x 128: 129 KiB of output.
    let a = Array::from_iter(0..(129 * 128) as i64)
        .into_shape_with_order((129, 128))
        .unwrap();
    let rows = a.slice(s![..;-1, ..]).into_dyn();
    let tiles = a.t().into_dyn();
    let n = a.len();
    assert!(n * 8 >= PARALLEL_MIN_BYTES);
    let source = Source::of(&tiles, Reading::C);
    assert!(matches!(
        Schedule::new(&source, n, false),
        Schedule::Tiles(_)
    ));
    assert!(Schedule::new(&source, n, false).units(n) > 1);
    let source = Source::of(&rows, Reading::C);
    assert!(matches!(
        Schedule::new(&source, n, false),
        Schedule::Rows { .. }
    ));
    assert!(Schedule::new(&source, n, false).units(n) > 1);
    pool.install(|| {
        assert_eq!(rayon::current_num_threads(), 2);
        for v in [rows, tiles] {
            let want = c_order(&v);
            assert_eq!(gather(RawArray::of(&v), Reading::C).unwrap(), want);
        }
    });
}

/// Outputs past [`kernels::LARGE_TILE_BYTES`] use the larger tiles: edges that are not
/// multiples of the tile, a negative stride, and a third axis.
#[test]
#[cfg_attr(miri, ignore)]
fn large_tiles_are_exact() {
    let a = Array::from_iter(0..(1030 * 1031) as i64)
        .into_shape_with_order((1030, 1031))
        .unwrap(); // 8.1 MiB of i64
    check(a.t().into_dyn());
    check(a.slice(s![..;-1, ..]).reversed_axes().into_dyn());
    // Reversed rows past `STREAM_MIN_BYTES`: the streaming reversed copy, rows of an odd
    // length (so most rows start off a 16-byte boundary), and all of it reversed.
    check(a.slice(s![.., ..;-1]).into_dyn());
    check(a.slice(s![..;-1, ..;-1]).into_dyn());
    // Rows going down in memory, read last to first within each unit.
    check(a.slice(s![..;-1, ..]).into_dyn());
    check(a.slice(s![..;-1, 1..]).into_dyn());
    let b = Array::from_iter(0..(3 * 700 * 521) as i64)
        .into_shape_with_order((3, 700, 521))
        .unwrap(); // 8.3 MiB
    let mut p = b.view();
    p.swap_axes(1, 2);
    check(p.into_dyn());
}

/// Tiles of whole-line rows past `STREAM_MIN_BYTES` into an output on a 64-byte boundary
/// (streaming stores) and off one (plain copies of the rows), with the same values.
#[test]
#[cfg_attr(miri, ignore)]
fn row_tiles_stream_whole_lines() {
    let a = Array::from_iter(0..(4 * 700 * 6 * 128) as u32)
        .into_shape_with_order((4, 700, 6, 128))
        .unwrap();
    let v = a.view().permuted_axes([0, 2, 1, 3]).into_dyn();
    let want = c_order(&v);
    let mut buf = vec![0u32; want.len() + 32];
    let at = buf.as_ptr().align_offset(64);
    for off in [at, at + 1] {
        let out = &mut buf[off..off + want.len()];
        copy_into(RawArray::of(&v), Reading::C, out);
        assert_eq!(out, &want[..], "offset {off}");
        out.fill(0);
    }
}

#[test]
fn impossible_outputs_are_errors() {
    assert!(buffer::<u8>(0).is_ok());
    // Past usize::MAX bytes: refused before any allocator is asked.
    let e = buffer::<f32>(usize::MAX / 2).unwrap_err();
    assert_eq!(
        e.detail(),
        format!(
            "cannot allocate the copy's output: {} elements of 4 bytes, more than {} bytes",
            usize::MAX / 2,
            usize::MAX
        )
    );
    // Zero-sized elements need no memory, whatever their count.
    assert!(buffer::<()>(usize::MAX).is_ok());
}

/// An allocation the system refuses. (Miri reports it as resource exhaustion instead.)
#[test]
#[cfg_attr(miri, ignore)]
fn refused_allocations_are_errors() {
    let e = buffer::<u8>(isize::MAX as usize).unwrap_err();
    assert!(
        e.detail().ends_with(&format!("{} bytes", isize::MAX)),
        "{e:?}"
    );
}

#[test]
fn clone_types() {
    let a = Array::from_shape_fn((7, 9), |(i, j)| format!("{i}-{j}"));
    let v = a.t().into_dyn();
    let want = c_order(&v);
    assert_eq!(gather_c(&Source::of(&v, Reading::C), v.len()), want);
}
