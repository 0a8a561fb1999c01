//! Heap allocations per call, counted by a global allocator on the calling thread: views
//! allocate nothing but the dims of an `IxDyn` result longer than ndarray keeps inline (4
//! axes), copies allocate their output exactly once, and a copy into a given buffer none.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ndarray::{s, Array, Array2, ArrayD, Ix1, Ix2, Ix4, IxDyn};
use ndarray_reshape::{Mx, Np, Order, ReshapeError, ReshapeExt, ShapeSpec};

/// The system allocator, counting on each thread the allocations made by it, and those of at
/// least [`BIG`] bytes (element buffers, never dims) among them.
struct Counting;

const BIG: usize = 512;

thread_local! {
    static ALL: Cell<usize> = const { Cell::new(0) };
    static BIG_ONES: Cell<usize> = const { Cell::new(0) };
}

fn count(size: usize) {
    // `try_with`: no counting (and no panic) while the thread's locals are torn down.
    let _ = ALL.try_with(|c| c.set(c.get() + 1));
    if size >= BIG {
        let _ = BIG_ONES.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees are ours; the counting touches only const-initialised thread locals without
// destructors, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract for `alloc`, forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract for `alloc_zeroed`, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: the caller's contract for `realloc`, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `(all allocations, allocations of at least BIG bytes)` made by `f` on this thread, and its
/// result (dropped by the caller, outside the count): the steady state, `f` having run once
/// before (the first parallel copy of the process starts rayon's pool, which allocates).
fn allocations<R>(mut f: impl FnMut() -> R) -> ((usize, usize), R) {
    drop(f());
    let (a0, b0) = (ALL.with(Cell::get), BIG_ONES.with(Cell::get));
    let r = f();
    let (a1, b1) = (ALL.with(Cell::get), BIG_ONES.with(Cell::get));
    ((a1 - a0, b1 - b0), r)
}

type R = Result<(), ReshapeError>;

#[test]
fn views_allocate_nothing_up_to_four_axes() -> R {
    let a = Array::from_iter(0..4096u32)
        .into_shape_with_order((8, 8, 8, 8))
        .unwrap();
    let v = a.view();
    let (n, r) = allocations(|| v.reshape_view(Np::new([64, 64], Order::C).dim::<Ix2>()));
    assert_eq!(
        (n, r?.as_ptr()),
        ((0, 0), a.as_ptr()),
        "typed contiguous view"
    );
    let (n, r) = allocations(|| v.reshape_view(Np::new([64, 64], Order::C)));
    assert_eq!(
        (n, r?.as_ptr()),
        ((0, 0), a.as_ptr()),
        "IxDyn contiguous view"
    );
    let (n, r) = allocations(|| v.reshape_mx([-3, -3]));
    assert_eq!((n, r?.is_view()), ((0, 0), true), "MXNet spec, IxDyn view");

    let b = Array::from_iter(0..32768u32)
        .into_shape_with_order((32, 32, 32))
        .unwrap();
    let strided = b.slice(s![..;-1, .., 1..;2]);
    let (n, r) =
        allocations(|| strided.reshape_with(Np::new([4, 8, 32, 16], Order::C).dim::<Ix4>()));
    let r = r?;
    assert_eq!((n, r.is_view()), ((0, 0), true), "typed strided view");
    assert_eq!(r.as_ptr(), strided.as_ptr());
    let (n, r) = allocations(|| strided.reshape_with(Mx::new([-4, 4, 8, -2])));
    assert_eq!((n, r?.is_view()), ((0, 0), true), "IxDyn strided view");
    Ok(())
}

#[test]
fn views_of_more_axes_allocate_only_their_dims() -> R {
    let a = ArrayD::from_shape_vec(IxDyn(&[2; 6]), (0..64u8).collect()).unwrap();
    let t = a.t();
    // The dims and the strides of a rank-6 `IxDyn`: two small allocations, no element data.
    let (n, r) = allocations(|| t.reshape_view(Np::new([2, 2, 2, 2, 2, 2], Order::C)));
    assert_eq!((n, r?.as_ptr()), ((2, 0), t.as_ptr()));
    Ok(())
}

#[test]
fn copies_allocate_their_output_once() -> R {
    // A small transpose (the walk), a large one (the tiled plan), and a small copy with ten
    // axes that do not merge (more than the walk takes: the plan, in the same buffer).
    for side in [16usize, 512] {
        let a = Array2::from_shape_fn((side, side), |(i, j)| (i * side + j) as f32);
        let t = a.t();
        let (n, r) = allocations(|| t.reshape_with(Np::new([-1], Order::C).dim::<Ix1>()));
        let r = r?;
        // Nothing but the output for a small copy; the plan of a large one keeps a few small
        // tables besides.
        let want = if side < 64 { (1, 1) } else { (n.0, 1) };
        assert_eq!(n, want, "typed copy, side {side}");
        assert!(r.is_owned() && r.iter().eq(t.iter()));
        let (n, r) = allocations(|| t.reshape_owned(Np::new([-1], Order::F)));
        assert_eq!(n.1, 1, "IxDyn copy, side {side}");
        assert!(r?.iter().eq(a.iter()));
    }
    let a = ArrayD::from_shape_vec(IxDyn(&[2; 10]), (0..1024i64).collect()).unwrap();
    let alternate = a.slice_each_axis(|ax| {
        ndarray::Slice::new(0, None, if ax.axis.index() % 2 == 0 { -1 } else { 1 })
    });
    let (n, r) = allocations(|| alternate.reshape_owned(Np::new([-1], Order::C)));
    assert_eq!(n.1, 1, "ten unmergeable axes: one 8 KiB output");
    assert!(r?.iter().eq(alternate.iter()));
    Ok(())
}

#[test]
fn a_copy_into_a_given_buffer_allocates_no_elements() -> R {
    let a = Array2::from_shape_fn((256, 256), |(i, j)| (i * 256 + j) as f64);
    let mut out = vec![0.0; 256 * 256];
    let (n, r) = allocations(|| {
        a.t()
            .reshape_copy_into(Np::new([-1], Order::C), &mut out)
            .map(|v| v.len())
    });
    assert_eq!((n.1, r?), (0, 256 * 256));
    assert!(out.iter().eq(a.t().iter()));
    Ok(())
}

/// Symbolic inference works on small interned expressions: no allocation of `BIG` bytes or more
/// for 8 dims and 4 symbols, conditions included.
#[test]
fn symbolic_inference_allocates_only_small_forms() -> R {
    use ndarray_reshape::{Npx, Onnx, Paddle, ShapeSpec, SymDim};
    let (b, t, h, n) = (
        SymDim::sym("B"),
        SymDim::sym("T"),
        SymDim::sym("H"),
        SymDim::sym("N"),
    );
    let k = SymDim::from;
    let input = [
        b.clone(),
        t.clone(),
        h.clone(),
        k(64),
        n.clone(),
        k(1),
        k(2),
        k(3),
    ];
    let (count, s) = allocations(|| Onnx::new([0, 0, 0, 0, -1]).infer_symbolic(&input));
    assert_eq!(count.1, 0);
    assert_eq!(s?.dims()[4], k(6) * n.clone());
    let (count, s) = allocations(|| Mx::new([-3, -3, -1]).infer_symbolic(&input));
    assert_eq!(count.1, 0);
    assert_eq!(s?.dims(), &[b * t.clone(), k(64) * h, k(6) * n.clone()]);
    // A condition (3*N % 2 == 0) and a division.
    let (count, s) = allocations(|| Paddle::new([2, -1]).infer_symbolic(&[n.clone(), k(3)]));
    assert_eq!(count.1, 0);
    assert_eq!(s?.conditions().len(), 1);
    let (count, s) =
        allocations(|| Npx::new([-6, 2, -1, -2]).infer_symbolic(&[n.clone(), t.clone()]));
    assert_eq!(count.1, 0);
    assert_eq!(s?.dims(), &[k(2), n / k(2), t]);
    Ok(())
}
