//! Value tests of the permute plans (grouped tiles, tiles of rows): permutes of every element
//! size and a `Clone`-only type, on ranks 3 to 8 with odd extents and reversed or stepped
//! axes, each checked element by element and for the plan the schedule took.

use super::tests::c_order;
use super::{gather_c, Schedule, Source};
use crate::dims::Reading;
use ndarray::{Array, ArrayView, Axis, IxDyn, Slice};

/// An element type built from an index, so that every element of the input is distinct.
trait Elem: Clone + PartialEq + std::fmt::Debug + Send + Sync {
    fn of(i: usize) -> Self;
    /// Whether the copy may move its bits (then the vector kernels run, where there are some).
    const PLAIN: bool = true;
}
macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn of(i: usize) -> Self {
                i as $t
            }
        }
    )*};
}
elem!(u8, u16, i16, u32, u64, u128);
impl Elem for [u8; 2] {
    fn of(i: usize) -> Self {
        [i as u8, (i >> 8) as u8]
    }
}
/// A 2-byte `Copy` type of the user's: cloned, as the copy cannot know it has no padding.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Pair(u16);
impl Elem for Pair {
    fn of(i: usize) -> Self {
        Pair(i as u16)
    }
    const PLAIN: bool = false;
}
impl Elem for [u8; 3] {
    fn of(i: usize) -> Self {
        [i as u8, (i >> 8) as u8, (i >> 16) as u8]
    }
}
impl Elem for half::f16 {
    fn of(i: usize) -> Self {
        // Finite values only (no NaN, which compares unequal to itself).
        half::f16::from_bits((i % 0x7c00) as u16)
    }
}
impl Elem for String {
    fn of(i: usize) -> Self {
        i.to_string()
    }
    const PLAIN: bool = false;
}

/// The kind of schedule a copy took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Rows,
    Tiles,
    RowTiles,
    Grouped,
}

/// The plan of a copy of `view` (read in C order).
fn plan<T: Elem>(view: &ArrayView<'_, T, IxDyn>) -> Plan {
    // The plan the copy took: the copy finds plain elements by their type's name.
    assert_eq!(super::simd::plain_by_name::<T>(), T::PLAIN);
    let source = Source::of(view, Reading::C);
    match Schedule::new(&source, view.len(), T::PLAIN) {
        Schedule::Rows { .. } => Plan::Rows,
        Schedule::Tiles(t) if t.of_rows() => Plan::RowTiles,
        Schedule::Tiles(_) => Plan::Tiles,
        Schedule::Grouped(_) => Plan::Grouped,
    }
}

/// `shape` permuted by `perm`, then each axis `k` of the result stepped by `steps[k]`, copied
/// in C order: checks the elements against ndarray's `assign` and returns the plan taken.
fn permute<T: Elem>(shape: &[usize], perm: &[usize], steps: &[isize]) -> Plan {
    let n = shape.iter().product();
    let base = Array::from_shape_vec(IxDyn(shape), (0..n).map(T::of).collect()).unwrap();
    let mut view = base.view().permuted_axes(IxDyn(perm));
    for (k, &s) in steps.iter().enumerate() {
        view.slice_axis_inplace(Axis(k), Slice::new(0, None, s));
    }
    let want = c_order(&view);
    let got = gather_c(&Source::of(&view, Reading::C), view.len());
    assert_eq!(
        got,
        want,
        "{} {shape:?} perm {perm:?} steps {steps:?}",
        std::any::type_name::<T>()
    );
    plan(&view)
}

/// The permute of [`permute`] on every element size and a `Clone`-only type; the plans taken,
/// from 1 byte to 16 bytes, then `String`.
fn every_size(shape: &[usize], perm: &[usize], steps: &[isize]) -> [Plan; 7] {
    [
        permute::<u8>(shape, perm, steps),
        permute::<u16>(shape, perm, steps),
        permute::<[u8; 3]>(shape, perm, steps),
        permute::<u32>(shape, perm, steps),
        permute::<u64>(shape, perm, steps),
        permute::<u128>(shape, perm, steps),
        permute::<String>(shape, perm, steps),
    ]
}

/// [`every_size`], asserting that the elements of 2 to 8 bytes took `want` (1-byte copies may
/// stay below the tiles' size; 16-byte elements and strings make runs long sooner).
fn every_size_plans(shape: &[usize], perm: &[usize], steps: &[isize], want: Plan) {
    let plans = every_size(shape, perm, steps);
    assert!(
        plans[1..5].iter().all(|&p| p == want),
        "{shape:?} {perm:?}: {plans:?}, want {want:?}"
    );
}

/// The reversed axes of a rank-8 tensor of 4s, and of 6s (parallel), on every element size:
/// both groups are several axes.
#[test]
#[cfg_attr(miri, ignore)]
fn grouped_rank_8_reversed() {
    let rev = [7, 6, 5, 4, 3, 2, 1, 0];
    every_size_plans(&[4; 8], &rev, &[1; 8], Plan::Grouped);
    every_size_plans(&[5, 3, 4, 2, 3, 4, 3, 5], &rev, &[1; 8], Plan::Grouped);
    assert_eq!(permute::<u32>(&[6; 8], &rev, &[1; 8]), Plan::Grouped);
}

/// Permutes of ranks 3 to 7 whose contiguous axes are short, with odd extents (block edges on
/// both groups), reversed and stepped axes outside and inside the groups.
#[test]
#[cfg_attr(miri, ignore)]
fn grouped_short_axes_any_rank() {
    every_size_plans(&[7, 9, 5, 3, 40], &[4, 2, 0, 3, 1], &[1; 5], Plan::Grouped);
    every_size_plans(
        &[4, 8, 6, 8, 8, 16],
        &[5, 2, 0, 4, 1, 3],
        &[1; 6],
        Plan::Grouped,
    );
    every_size_plans(
        &[6, 5, 7, 3, 9, 5, 2],
        &[6, 1, 3, 0, 5, 2, 4],
        &[1; 7],
        Plan::Grouped,
    );
    every_size_plans(
        &[9, 5, 7, 11, 6],
        &[4, 3, 0, 2, 1],
        &[1, -1, 2, 1, -1],
        Plan::Grouped,
    );
    every_size(&[3, 60, 7, 13], &[3, 2, 1, 0], &[1, -1, 1, 1]);
    every_size(&[6, 7, 8, 9], &[2, 0, 3, 1], &[2, 1, -3, 1]);
}

/// The shapes the single-axis tiles keep: a 2-D transpose, long contiguous axes on both
/// sides, PixelShuffle (its output's last axis, of 2, joins no neighbour).
#[test]
#[cfg_attr(miri, ignore)]
fn long_runs_stay_single_axis_tiles() {
    let tiles = single_axis::<u32>();
    assert_eq!(permute::<u32>(&[300, 200], &[1, 0], &[1, 1]), tiles);
    let plan = permute::<u32>(&[64, 64, 64, 8], &[0, 2, 3, 1], &[1; 4]);
    assert_eq!(plan, Plan::Tiles);
    let plan = permute::<u32>(&[1, 4, 2, 2, 64, 64], &[0, 1, 4, 2, 5, 3], &[1; 6]);
    assert_eq!(plan, Plan::Tiles);
}

/// The plan of a single-axis transpose under `TILE_ALWAYS_BYTES` of `T`: tiles where the
/// machine has a vector kernel for its size, strided rows where only the scalar tiles would
/// run (they lose to rows there: BENCHMARKS.md, "The vector kernels").
fn single_axis<T>() -> Plan {
    let size = std::mem::size_of::<T>();
    match super::simd::kernel(size, 1 << 20, 4096, 4096) {
        Some(_) => Plan::Tiles,
        None => Plan::Rows,
    }
}

/// Head splits and merges, window partitions and channel shuffles with rows under a page:
/// tiles of rows, on every element size, with odd extents (block edges on both sides), a
/// reversed or stepped row axis, and ranks up to 8.
#[test]
#[cfg_attr(miri, ignore)]
fn row_tiles_any_rank() {
    let rows = Plan::RowTiles;
    // Heads split (and merged): rows of 64 elements.
    every_size_plans(&[3, 50, 12, 64], &[0, 2, 1, 3], &[1; 4], rows);
    every_size_plans(&[3, 12, 50, 64], &[0, 2, 1, 3], &[1; 4], rows);
    // Odd extents, a reversed and a stepped row axis, short rows.
    every_size_plans(&[5, 37, 19, 21], &[0, 2, 1, 3], &[1, -1, 1, 1], rows);
    every_size_plans(&[7, 41, 13, 9], &[2, 0, 1, 3], &[1, 1, 2, 1], rows);
    // Rank 6 and 8, the contiguous last axis kept and the row axes permuted.
    every_size_plans(&[3, 4, 5, 6, 7, 24], &[4, 2, 0, 3, 1, 5], &[1; 6], rows);
    every_size_plans(
        &[2, 3, 2, 3, 2, 3, 4, 17],
        &[6, 5, 4, 3, 2, 1, 0, 7],
        &[1, 1, -1, 1, 1, 1, 1, 1],
        rows,
    );
    // Rows in the input's order already: a row copy.
    assert_eq!(
        permute::<u32>(&[3, 50, 12, 64], &[0, 1, 2, 3], &[1, 2, 1, 1]),
        Plan::Rows
    );
    // Rows of a page or more: a row copy in the output's order.
    assert_eq!(
        permute::<u32>(&[2, 8, 6, 600], &[0, 2, 1, 3], &[1; 4]),
        Plan::Rows
    );
}

/// A head split past [`STREAM_MIN_BYTES`](super::simd::STREAM_MIN_BYTES): tiles of rows of
/// 524 bytes (and 993) written with streaming stores, every row at another alignment.
#[test]
#[cfg_attr(miri, ignore)]
fn streamed_row_tiles() {
    let plan = permute::<u32>(&[4, 700, 6, 131], &[0, 2, 1, 3], &[1; 4]);
    assert_eq!(plan, Plan::RowTiles);
    let plan = permute::<[u8; 3]>(&[2, 710, 6, 331], &[0, 2, 1, 3], &[1; 4]);
    assert_eq!(plan, Plan::RowTiles);
}

/// The scalar grouped tiles and tiles of rows (the twins Miri runs): 16-byte elements and
/// strings, 16 KiB, groups of several axes, an odd group and reversed axes.
#[test]
fn scalar_twins() {
    let plan = permute::<u128>(&[4; 5], &[4, 3, 2, 1, 0], &[1; 5]);
    assert_eq!(plan, Plan::Grouped);
    let plan = permute::<u128>(&[3, 4, 5, 4, 5], &[4, 3, 0, 2, 1], &[1, 1, -1, 1, 1]);
    assert_eq!(plan, Plan::Grouped);
    let plan = permute::<String>(&[4; 5], &[4, 3, 2, 1, 0], &[1; 5]);
    assert_eq!(plan, Plan::Grouped);
    let plan = permute::<u128>(&[2, 8, 4, 16], &[0, 2, 1, 3], &[1, 1, -1, 1]);
    assert_eq!(plan, Plan::RowTiles);
    let plan = permute::<String>(&[2, 8, 4, 16], &[2, 0, 1, 3], &[1; 4]);
    assert_eq!(plan, Plan::RowTiles);
}

/// The strips (HWC to CHW and back, `k` of 2 to 4 to a group, 1- and 2-byte elements; AVX2
/// where the machine has it, element tiles elsewhere): odd lengths, a batch axis, reversed
/// batches and rows, and outputs whose groups are not packed (no strip then).
#[test]
#[cfg_attr(miri, ignore)]
fn strips() {
    for k in 2..=4 {
        for (batch, pixels) in [(3, 2731), (1, 20_000)] {
            // Tiles where the machine has the strips, rows where it has none (`single_axis`).
            let strip = |plan: Plan| {
                let want = match super::simd::strip(1, (k, pixels), k as isize, pixels) {
                    Some(_) => Plan::Tiles,
                    None => single_axis::<u8>(),
                };
                assert_eq!(plan, want, "k {k}, {batch} x {pixels}");
            };
            // HWC to CHW: the group is the input's contiguous axis.
            strip(permute::<u8>(&[batch, pixels, k], &[0, 2, 1], &[1, 1, 1]));
            strip(permute::<u16>(&[batch, pixels, k], &[0, 2, 1], &[-1, 1, 1]));
            // CHW to HWC: the group is the output's contiguous axis.
            strip(permute::<u8>(&[batch, k, pixels], &[0, 2, 1], &[1, 1, 1]));
            strip(permute::<u16>(&[batch, k, pixels], &[0, 2, 1], &[-1, 1, 1]));
            // Reversed pixels or channels: no strip, the values still right.
            permute::<u8>(&[batch, pixels, k], &[0, 2, 1], &[1, -1, 1]);
            permute::<u16>(&[batch, k, pixels], &[0, 2, 1], &[1, -1, 1]);
            permute::<u16>(&[batch, k, pixels], &[0, 2, 1], &[1, 1, -1]);
        }
    }
    // The PixelShuffle of the permutes bench, shrunk: groups of 2 in the output.
    let strip = |plan: Plan| assert_eq!(plan, Plan::Tiles);
    strip(permute::<u8>(
        &[2, 8, 2, 2, 64, 64],
        &[0, 1, 4, 2, 5, 3],
        &[1; 6],
    ));
    // Strided pixels in the input (a crop): the groups are not packed, element tiles.
    permute::<u8>(&[2, 3000, 3], &[0, 2, 1], &[1, 2, 1]);
}

/// `half::f16` and the other plain 2-byte elements (`i16`, `[u8; 2]`) take the plans of `u16`:
/// the vector tiles, the tiles of rows and the strips, with the same values. A 2-byte `Copy`
/// struct is cloned element by element, with the same values.
#[test]
#[cfg_attr(miri, ignore)]
fn two_byte_elements_as_u16() {
    for (shape, perm) in [
        (&[1, 20_000, 3][..], &[0, 2, 1][..]),
        (&[2, 3, 9000], &[0, 2, 1]),
        (&[300, 200], &[1, 0]),
        (&[4, 700, 6, 64], &[0, 2, 1, 3]),
        (&[4, 5, 6, 7, 8, 9], &[5, 3, 1, 0, 2, 4]),
    ] {
        let steps = vec![1; shape.len()];
        let plans = [
            permute::<u16>(shape, perm, &steps),
            permute::<half::f16>(shape, perm, &steps),
            permute::<i16>(shape, perm, &steps),
            permute::<[u8; 2]>(shape, perm, &steps),
        ];
        assert!(
            plans.iter().all(|&p| p == plans[0]),
            "{shape:?} {perm:?}: {plans:?}"
        );
        permute::<Pair>(shape, perm, &steps);
    }
    assert!(super::simd::plain_by_name::<half::bf16>());
}
