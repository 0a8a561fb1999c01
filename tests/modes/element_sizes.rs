//! The copy engine on every element size (1, 2, 4, 8 and 16 bytes, half precision, ndarray's
//! complex numbers, the user's types declared plain, an odd 3-byte array, and a `Clone`-only
//! `String`), on every stride pattern (negative, zero, stepped, length-1 axes,
//! empty, 0-d), through each copy path: the small-copy walk (under 16 KiB of output), strided
//! rows, the tiled plan from 16 KiB on strides of a multiple of 512 bytes and from 1 MiB on any,
//! and the larger tiles from 8 MiB, with the vector tiles for plain 1-, 2- and 4-byte elements
//! (the 4-byte in-L1 kernel up to 24 KiB); in C and F order, into a fresh array and (for `Copy`
//! elements) into a given buffer. Every result is compared with ndarray's own iteration of the
//! input in the reading order.

use std::fmt::Debug;

use ndarray::{s, Array, ArrayD, ArrayViewD, Axis, IxDyn, ShapeBuilder};
use ndarray_reshape::{Np, Order, PlainData, ReshapeExt};

/// An element type, with a value for each flat index (distinct as far as the type allows).
trait Elem: Clone + PartialEq + Debug + Send + Sync {
    fn of(i: usize) -> Self;
}

impl Elem for u8 {
    fn of(i: usize) -> u8 {
        (i % 251) as u8
    }
}
impl Elem for u16 {
    fn of(i: usize) -> u16 {
        (i % 65521) as u16
    }
}
impl Elem for u32 {
    fn of(i: usize) -> u32 {
        (i as u32).wrapping_mul(2_654_435_761)
    }
}
impl Elem for f32 {
    fn of(i: usize) -> f32 {
        i as f32
    }
}
impl Elem for f64 {
    fn of(i: usize) -> f64 {
        -(i as f64)
    }
}
impl Elem for u128 {
    fn of(i: usize) -> u128 {
        (i as u128) << 64 | (!i as u128 & 0xffff)
    }
}
impl Elem for [u8; 4] {
    fn of(i: usize) -> [u8; 4] {
        (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()
    }
}
impl Elem for num_complex::Complex<f64> {
    fn of(i: usize) -> num_complex::Complex<f64> {
        num_complex::Complex::new(i as f64, -(i as f64) * 0.5)
    }
}
impl Elem for num_complex::Complex<f32> {
    fn of(i: usize) -> num_complex::Complex<f32> {
        num_complex::Complex::new(i as f32, (i % 7) as f32)
    }
}

/// A pixel of the user's, declared plain ([`PlainData`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Rgba {
    r: u8,
    g: u8,
    b: u8,
    a: u8,
}
// SAFETY: four `u8` fields, `repr(C)`: no padding, any bytes a valid pixel.
unsafe impl PlainData for Rgba {}
impl Elem for Rgba {
    fn of(i: usize) -> Rgba {
        let [r, g, b, a] = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes();
        Rgba { r, g, b, a }
    }
}

/// A fixed-point pair of the user's, 8 bytes, declared plain.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Fixed {
    raw: i32,
    scale: u32,
}
// SAFETY: two 4-byte fields, `repr(C)`: no padding, any bytes a valid value.
unsafe impl PlainData for Fixed {}
impl Elem for Fixed {
    fn of(i: usize) -> Fixed {
        Fixed {
            raw: -(i as i32),
            scale: (i as u32) ^ 0x5555,
        }
    }
}

impl Elem for (u8, u16) {
    fn of(i: usize) -> (u8, u16) {
        (i as u8, (i >> 8) as u16)
    }
}
impl Elem for half::f16 {
    fn of(i: usize) -> half::f16 {
        // Finite values only (NaN compares unequal to itself).
        half::f16::from_bits((i % 0x7c00) as u16)
    }
}
impl Elem for half::bf16 {
    fn of(i: usize) -> half::bf16 {
        half::bf16::from_bits((i % 0x7f80) as u16)
    }
}
impl Elem for [u8; 3] {
    fn of(i: usize) -> [u8; 3] {
        [i as u8, (i >> 8) as u8, (i >> 16) as u8]
    }
}
impl Elem for String {
    fn of(i: usize) -> String {
        i.to_string()
    }
}

/// A C-contiguous array of `shape` holding `T::of(0..n)`.
fn parent<T: Elem>(shape: &[usize]) -> ArrayD<T> {
    let n = shape.iter().product();
    Array::from_iter((0..n).map(T::of))
        .into_shape_with_order(IxDyn(shape))
        .unwrap()
}

/// The elements of `v` read in `order`, by ndarray: assigned into a fresh array of its shape,
/// contiguous in that order. Not an iterator over all axes: the test profile is unoptimized,
/// where a dynamic-rank iterator costs about 100 ns per element and these arrays reach 9 MiB;
/// `assign` walks the innermost axis as a strided loop.
fn read<T: Elem>(v: &ArrayViewD<'_, T>, order: Order) -> Vec<T> {
    let shape = v.raw_dim().set_f(order == Order::F);
    let mut out = ArrayD::from_elem(shape, T::of(0));
    out.assign(v);
    let (data, offset) = out.into_raw_vec_and_offset();
    assert_eq!(offset.unwrap_or(0), 0);
    data
}

/// A flatten and a reshape to two dims of `v`, in both orders, fresh: the values in the
/// reading order, and a contiguous result.
fn check<T: Elem>(v: ArrayViewD<'_, T>, what: &str) {
    for order in [Order::C, Order::F] {
        check_fresh(&v, order, &read(&v, order), what);
    }
}

/// [`check`] of `v` read in `order`, whose elements in that order are `want`.
fn check_fresh<T: Elem>(v: &ArrayViewD<'_, T>, order: Order, want: &[T], what: &str) {
    let n = v.len();
    let rows = (2..=n.min(9)).find(|d| n % d == 0).unwrap_or(1);
    let at = format!(
        "{what}: {} x {} bytes, shape {:?}, strides {:?}, {order:?}",
        n,
        std::mem::size_of::<T>(),
        v.shape(),
        v.strides()
    );
    let flat = v.reshape_owned(Np::new([-1], order)).unwrap();
    assert_eq!(flat.as_slice_memory_order().unwrap(), want, "flat, {at}");
    if n == 0 {
        return;
    }
    let two = v.reshape_owned(Np::new([rows, n / rows], order)).unwrap();
    assert_eq!(two.shape(), [rows, n / rows], "{at}");
    let contiguous = match order {
        Order::F => two.t().is_standard_layout(),
        _ => two.is_standard_layout(),
    };
    assert!(contiguous, "contiguous in the reading order, {at}");
    // Contiguous in the reading order: its memory order is that reading.
    assert_eq!(
        two.as_slice_memory_order().unwrap(),
        want,
        "({rows}, {}), {at}",
        n / rows
    );
}

/// [`check`], and the same copies into a given buffer.
fn check_copy<T: Elem + Copy>(v: ArrayViewD<'_, T>, what: &str) {
    for order in [Order::C, Order::F] {
        let want = read(&v, order);
        check_fresh(&v, order, &want, what);
        let mut out = vec![T::of(usize::MAX); v.len()];
        v.reshape_copy_into(Np::new([-1], order), &mut out).unwrap();
        assert_eq!(out, want, "{what}: into a buffer, {order:?}");
    }
}

/// Small layouts (the walk): transposed, reversed and stepped, broadcast (stride 0), with
/// length-1 axes, empty, 0-d, and more axes than the walk merges into.
fn small<T: Elem>(each: impl Fn(ArrayViewD<'_, T>, &str)) {
    let a = parent::<T>(&[9, 10]);
    each(a.t(), "transpose");
    each(
        a.slice(s![..;-1, ..;2]).into_dyn(),
        "reversed rows, stepped columns",
    );
    each(
        a.slice(s![1..8;3, ..;-3]).into_dyn(),
        "stepped rows, reversed columns",
    );
    let row = parent::<T>(&[1, 7]);
    each(row.broadcast(IxDyn(&[4, 7])).unwrap().t(), "broadcast");
    let b = parent::<T>(&[3, 1, 5]);
    each(b.t(), "length-1 axis");
    let mut p = b.view();
    p.swap_axes(0, 2);
    each(p, "permuted");
    let e = parent::<T>(&[0, 5]);
    each(e.t(), "empty");
    let z = parent::<T>(&[4, 6]);
    each(z.index_axis(Axis(0), 2).index_axis_move(Axis(0), 3), "0-d");
    // More axes than the walk's 8 remain after merging (9 under Miri, to halve its work).
    let many = parent::<T>(if cfg!(miri) { &[2; 9] } else { &[2; 10] });
    each(
        many.slice_each_axis(|ax| {
            ndarray::Slice::new(0, None, if ax.axis.index() % 2 == 0 { -1 } else { 1 })
        }),
        "unmergeable axes",
    );
}

/// Side lengths of a roughly square array of about `bytes` of `T`, both odd.
fn sides<T>(bytes: usize) -> (usize, usize) {
    let n = bytes / std::mem::size_of::<T>();
    let r = ((n as f64).sqrt() as usize) | 1;
    (r, (n / r) | 1)
}

/// Larger layouts: strided rows (64 KiB), tiles on a 512-byte stride (32 KiB) and on a 1 KiB
/// stride (264 KiB), tiles from
/// 1 MiB (odd sides: partial edge tiles), a stepped, reversed 3-D permutation (about 2 MiB),
/// and, when `huge`, the larger tiles from 8 MiB.
/// Not under Miri: the lib's unit tests run the tile kernel there, on a size Miri can walk.
fn large<T: Elem>(each: impl Fn(ArrayViewD<'_, T>, &str), huge: bool) {
    if cfg!(miri) {
        return;
    }
    let size = std::mem::size_of::<T>();
    let cols = 512usize.div_ceil(size).max(1);
    let b = parent::<T>(&[(32 << 10) / (cols * size), cols]);
    each(b.t(), "transpose on a 512-byte stride");
    // Source rows a multiple of 1 KiB apart into output rows of 264 elements past 24 KiB (for
    // 4-byte elements the AVX-512 kernel, with tiles of 16 and of 8 along the output's rows).
    let w = parent::<T>(&[264, 1024usize.div_ceil(size)]);
    each(w.t(), "transpose on a 1 KiB stride");
    let (r, c) = sides::<T>(20 << 10);
    each(parent::<T>(&[r, c]).t(), "transpose, 20 KiB");
    let (r, c) = sides::<T>(64 << 10);
    let a = parent::<T>(&[r, c]);
    each(a.slice(s![.., ..;-2]).into_dyn(), "strided rows, 32 KiB");
    each(a.t(), "transpose, 64 KiB");
    let (r, c) = sides::<T>(1200 << 10);
    let m = parent::<T>(&[r, c]);
    each(m.t(), "transpose, 1.2 MiB");
    let k = ((2usize << 20) / size / 16).max(8);
    let side = (k as f64).cbrt() as usize + 2;
    let cube = parent::<T>(&[side, side + 1, side + 3]);
    let mut p = cube.slice(s![..;-1, 1.., ..;2]).into_dyn();
    p = p.permuted_axes(IxDyn(&[2, 0, 1]));
    each(p, "stepped, reversed 3-D permutation");
    if huge {
        let (r, c) = sides::<T>(9 << 20);
        let h = parent::<T>(&[r, c]);
        each(h.t(), "transpose, 9 MiB");
        // A batched permute whose tiles write short output rows (the dense case).
        let n = (9 << 20) / size / (64 * 33 * 31);
        let q = parent::<T>(&[n.max(1), 64, 33, 31]);
        each(
            q.view().permuted_axes(IxDyn(&[0, 2, 3, 1])),
            "batched permute [0, 2, 3, 1], 9 MiB",
        );
    }
}

/// The copies of small shapes and of large ones (the huge cases too) of `T`.
fn small_and_large<T: Elem + Copy>() {
    small::<T>(check_copy);
    large::<T>(check_copy, true);
}

/// A test of `small_and_large` per plain element size.
macro_rules! plain_sizes {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() {
            small_and_large::<$t>();
        }
    )*};
}

plain_sizes!(one_byte: u8, two_bytes: u16, eight_bytes: f64, sixteen_bytes: u128);

/// Half precision (`half`'s `f16` and `bf16`) moves as 2-byte plain elements, as `u16` does.
#[test]
fn half_precision() {
    small_and_large::<half::f16>();
    large::<half::bf16>(check_copy, false);
}

#[test]
fn four_bytes() {
    // Plain 4-byte elements (f32, u32) take the vector tiles.
    small_and_large::<f32>();
    large::<u32>(check_copy, false);
    // An array of 4 bytes (no padding: the vector tiles), and a `Copy` tuple of 4 bytes with a
    // padding byte (the generic path, which never reads the padding).
    large::<[u8; 4]>(check_copy, false);
    large::<(u8, u16)>(check_copy, false);
}

#[test]
fn three_bytes() {
    small::<[u8; 3]>(check_copy);
    large::<[u8; 3]>(check_copy, false);
}

#[test]
fn clone_only() {
    small::<String>(check);
    large::<String>(check, false);
}

/// ndarray's complex numbers move as plain 8- and 16-byte elements, as `u64` and `u128` do.
#[test]
fn complex_numbers() {
    small::<num_complex::Complex<f64>>(check_copy);
    large::<num_complex::Complex<f64>>(check_copy, true);
    large::<num_complex::Complex<f32>>(check_copy, false);
}

/// The user's plain types, declared ([`PlainData::declare`]), move as the primitives of their
/// size do; before the declaration they take the generic path, right too.
#[test]
fn declared_plain_types() {
    large::<Fixed>(check_copy, false);
    Rgba::declare();
    Fixed::declare();
    Rgba::declare();
    small_and_large::<Rgba>();
    small_and_large::<Fixed>();
}
