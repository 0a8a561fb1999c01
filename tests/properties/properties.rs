//! Property tests against oracles: ndarray's own `to_shape` for plain C and F reshapes, the
//! stride solver for the view decision, and "never panics" for random specs of every dialect.

use ndarray::{
    Array, ArrayD, ArrayView, Axis, CowArray, Dimension, Ix0, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6, IxDyn,
    Slice,
};
use ndarray_reshape::layout::{resolve_order, view_strides};
use ndarray_reshape::{
    Like, Mx, Np, Npx, Onnx, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec,
};
use proptest::prelude::*;

type Infer<'a> = Box<dyn Fn() -> Result<Vec<usize>, ReshapeError> + 'a>;

/// How to derive a strided view from a contiguous parent `0..n`.
#[derive(Debug, Clone)]
struct Recipe {
    parent: Vec<usize>,
    /// Broadcast the parent's axis `.0` (made length 1) to length `.1` (stride 0).
    broadcast: Option<(usize, usize)>,
    /// Per axis: start, end, step (either sign); clamped to the axis.
    slices: Vec<(usize, usize, isize)>,
    perm: Vec<usize>,
    /// Index the first axis away (reaches 0-d and offset bases).
    index_first: bool,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        prop::collection::vec(1usize..6, 0..5),
        prop::option::of((0usize..8, 0usize..4)),
    )
        .prop_flat_map(|(parent, broadcast)| {
            let n = parent.len();
            let broadcast = broadcast
                .filter(|_| n > 0)
                .map(|(a, len)| (a % n.max(1), len));
            (
                Just(parent),
                Just(broadcast),
                // Whole axes half the time, so that contiguous (C or, permuted, F) inputs
                // are common, not a rare draw.
                prop::collection::vec(
                    prop_oneof![
                        Just((0usize, 6usize, 1isize)),
                        (0usize..6, 0usize..7, prop_oneof![-3isize..0, 1isize..4]),
                    ],
                    n,
                ),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                any::<bool>(),
            )
                .prop_map(|(parent, broadcast, slices, perm, index_first)| Recipe {
                    parent,
                    broadcast,
                    slices,
                    perm,
                    index_first,
                })
        })
}

fn parent_array(r: &Recipe) -> ArrayD<i64> {
    let mut shape = r.parent.clone();
    if let Some((a, _)) = r.broadcast {
        shape[a] = 1;
    }
    let n: usize = shape.iter().product();
    Array::from_iter(0..n as i64)
        .into_shape_with_order(IxDyn(&shape))
        .unwrap()
}

fn build<'a>(base: &'a ArrayD<i64>, r: &Recipe) -> ArrayView<'a, i64, IxDyn> {
    let mut v = match r.broadcast {
        Some((a, len)) => {
            let mut shape = base.shape().to_vec();
            shape[a] = len;
            base.broadcast(IxDyn(&shape)).unwrap()
        }
        None => base.view(),
    };
    for (k, &(s, e, step)) in r.slices.iter().enumerate() {
        let len = v.len_of(Axis(k));
        let s = s.min(len);
        let e = e.clamp(s, len);
        v.slice_axis_inplace(Axis(k), Slice::new(s as isize, Some(e as isize), step));
    }
    let mut v = v.permuted_axes(IxDyn(&r.perm));
    if r.index_first && v.ndim() > 0 && v.len_of(Axis(0)) > 0 {
        let last = v.len_of(Axis(0)) - 1;
        v = v.index_axis_move(Axis(0), last);
    }
    v
}

/// The rank-typed methods with dimension type `E` (of the target's rank) give what the
/// `IxDyn` ones give: the same view (pointer and strides) or the same contiguous copy, typed.
fn typed_agrees<E: Dimension + 'static>(
    x: &ArrayView<'_, i64, IxDyn>,
    spec: &[i64],
    order: Order,
    y: &CowArray<'_, i64, IxDyn>,
) -> Result<(), TestCaseError> {
    let t = x.reshape_with(Np::new(spec, order).dim::<E>()).unwrap();
    prop_assert_eq!(t.shape(), y.shape());
    prop_assert_eq!(t.strides(), y.strides());
    prop_assert_eq!(t.is_view(), y.is_view());
    if y.is_view() {
        prop_assert_eq!(t.as_ptr(), y.as_ptr());
    }
    prop_assert!(t.iter().eq(y.iter()));
    let v = x.reshape_view(Np::new(spec, order).dim::<E>());
    prop_assert_eq!(v.is_ok(), y.is_view());
    if let Ok(v) = v {
        prop_assert_eq!((v.as_ptr(), v.strides()), (y.as_ptr(), y.strides()));
    }
    let o = x.reshape_owned(Np::new(spec, order).dim::<E>()).unwrap();
    let want = x.reshape_owned(Np::new(spec, order)).unwrap();
    prop_assert_eq!(o.strides(), want.strides());
    prop_assert!(o.iter().eq(want.iter()));
    Ok(())
}

/// [`typed_agrees`] at the dimension type of `y`'s rank, and `RankMismatch` at another.
fn typed_at_rank(
    x: &ArrayView<'_, i64, IxDyn>,
    spec: &[i64],
    order: Order,
    y: &CowArray<'_, i64, IxDyn>,
) -> Result<(), TestCaseError> {
    match y.ndim() {
        0 => typed_agrees::<Ix0>(x, spec, order, y)?,
        1 => typed_agrees::<Ix1>(x, spec, order, y)?,
        2 => typed_agrees::<Ix2>(x, spec, order, y)?,
        3 => typed_agrees::<Ix3>(x, spec, order, y)?,
        4 => typed_agrees::<Ix4>(x, spec, order, y)?,
        5 => typed_agrees::<Ix5>(x, spec, order, y)?,
        6 => typed_agrees::<Ix6>(x, spec, order, y)?,
        _ => {}
    }
    typed_agrees::<IxDyn>(x, spec, order, y)?;
    let wrong = if y.ndim() == 2 {
        x.reshape_with(Np::new(spec, order).dim::<Ix3>())
            .map(|_| ())
    } else {
        x.reshape_with(Np::new(spec, order).dim::<Ix2>())
            .map(|_| ())
    };
    prop_assert!(matches!(wrong, Err(ReshapeError::RankMismatch(_))));
    Ok(())
}

/// A random target shape with the same size: factors of `size` spread over up to 5 dims, ones
/// sprinkled in, and (for an empty input) a 0 and arbitrary other dims.
fn target(size: usize, seed: &[usize]) -> Vec<usize> {
    let mut dims = Vec::new();
    let mut rest = size.max(1);
    for &s in seed {
        let divisors: Vec<usize> = (1..=rest).filter(|d| rest % d == 0).collect();
        let d = divisors[s % divisors.len()];
        dims.push(d);
        rest /= d;
    }
    if rest > 1 || dims.is_empty() && size != 1 {
        dims.push(rest);
    }
    if size == 0 {
        let at = seed.first().copied().unwrap_or(0) % (dims.len() + 1);
        dims.insert(at, 0);
    }
    dims
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Values equal ndarray's `to_shape` in the resolved order; a view exactly when the solver
    /// says so, at the input's pointer; a copy contiguous in the reading order.
    #[test]
    fn reshape_matches_ndarray(r in recipe(), seed in prop::collection::vec(0usize..16, 0..5),
                               infer in prop::option::of(0usize..6), order in 0u8..3) {
        let base = parent_array(&r);
        let x = build(&base, &r);
        let new = target(x.len(), &seed);
        let order = [Order::C, Order::F, Order::A][order as usize];
        let mut spec: Vec<i64> = new.iter().map(|&d| d as i64).collect();
        if let Some(i) = infer {
            let others: usize = new.iter().enumerate().filter(|&(j, _)| j != i % new.len().max(1)).map(|(_, &d)| d).product();
            if !new.is_empty() && others != 0 {
                spec[i % new.len()] = -1;
            }
        }
        let y = x.reshape_np(spec.as_slice(), order).unwrap();
        prop_assert_eq!(y.shape(), new.as_slice());
        let read = resolve_order(x.shape(), x.strides(), order);
        let nd_order = if read == Order::F { ndarray::Order::ColumnMajor } else { ndarray::Order::RowMajor };
        let want = x.to_shape((IxDyn(&new), nd_order)).unwrap();
        prop_assert!(y.iter().eq(want.iter()), "values differ from to_shape");
        let solver = view_strides(x.shape(), x.strides(), &new, order);
        prop_assert_eq!(y.is_view(), solver.is_some());
        if let Some(s) = solver {
            if !x.is_empty() {
                prop_assert_eq!(y.as_ptr(), x.as_ptr());
                for (k, &d) in new.iter().enumerate() {
                    if d > 1 { prop_assert_eq!(y.strides()[k], s[k]); }
                }
            }
        } else {
            let contiguous = if read == Order::F { y.t().is_standard_layout() } else { y.is_standard_layout() };
            prop_assert!(contiguous);
        }
        // The strict view agrees; reshape_owned is always a fresh, equal, contiguous copy.
        prop_assert_eq!(x.reshape_view(Np::new(spec.as_slice(), order)).is_ok(), y.is_view());
        let o = x.reshape_owned(Np::new(spec.as_slice(), order)).unwrap();
        prop_assert!(o.iter().eq(want.iter()));
        let contiguous = if read == Order::F { o.t().is_standard_layout() } else { o.is_standard_layout() };
        prop_assert!(contiguous);
        // reshape_copy_into writes the same copy into a caller's buffer, and views it.
        let mut buf = vec![-1i64; x.len()];
        let c = x.reshape_copy_into(Np::new(spec.as_slice(), order), &mut buf).unwrap();
        prop_assert_eq!(c.shape(), new.as_slice());
        prop_assert!(c.iter().eq(want.iter()));
        prop_assert!(buf.iter().eq(o.as_slice_memory_order().unwrap().iter()));
        // The rank-typed methods agree with the dynamic-rank ones.
        typed_at_rank(&x, &spec, order, &y)?;
    }

    /// MXNet and Paddle read in C order: the same engine, the same answers as `to_shape`.
    #[test]
    fn c_order_dialects_match_ndarray(r in recipe(), seed in prop::collection::vec(0usize..16, 0..5)) {
        let base = parent_array(&r);
        let x = build(&base, &r);
        let new = target(x.len(), &seed);
        let spec: Vec<i64> = new.iter().map(|&d| d as i64).collect();
        let want = x.to_shape((IxDyn(&new), ndarray::Order::RowMajor)).unwrap();
        let solver = view_strides(x.shape(), x.strides(), &new, Order::C).is_some();
        // In MXNet and Paddle 0 means "copy a dim": only zero-free specs are literal here.
        if !spec.contains(&0) {
            let m = x.reshape_mx(spec.as_slice()).unwrap();
            prop_assert!(m.iter().eq(want.iter()));
            prop_assert_eq!(m.is_view(), solver);
            let p = x.reshape_paddle(spec.as_slice()).unwrap();
            prop_assert!(p.iter().eq(want.iter()));
            prop_assert_eq!(p.is_view(), solver);
        }
        let l = x.reshape_like(&Array::<u8, _>::zeros(IxDyn(&new))).unwrap();
        prop_assert!(l.iter().eq(want.iter()));
    }

    /// No spec of random i64 values (extremes included), on any input shape (huge dims
    /// included), makes any dialect panic; `infer_shape` and the array method agree.
    #[test]
    fn random_specs_never_panic(
        input in prop::collection::vec(prop_oneof![0usize..5, Just(usize::MAX), Just(1usize << 40)], 0..5),
        spec in prop::collection::vec(prop_oneof![-7i64..8, Just(i64::MIN), Just(i64::MAX), Just(1i64 << 32), any::<i64>()], 0..7),
        bounds in prop::array::uniform4(prop::option::of(-6i64..7)),
        flag in any::<bool>(),
    ) {
        let specs: Vec<Infer> = vec![
            Box::new(|| Mx::new(spec.as_slice()).reverse(flag).infer_shape(&input)),
            Box::new(|| Mx::target_shape(spec.as_slice()).keep_highest(flag).infer_shape(&input)),
            Box::new(|| Paddle::new(spec.as_slice()).infer_shape(&input)),
            Box::new(|| Np::new(spec.as_slice(), Order::A).infer_shape(&input)),
            Box::new(|| Like::new(spec.as_slice()).lhs(bounds[0], bounds[1]).rhs(bounds[2], bounds[3]).infer_shape(&input)),
            Box::new(|| Npx::new(spec.as_slice()).reverse(flag).infer_shape(&input)),
            Box::new(|| Onnx::new(spec.as_slice()).allowzero(flag).infer_shape(&input)),
        ];
        for f in &specs {
            if let Ok(shape) = f() {
                // A success has the input's element count.
                let size = |s: &[usize]| s.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
                prop_assert_eq!(size(&shape), size(&input));
            }
        }
        // The array methods on a real (small) input agree with infer_shape.
        let small: Vec<usize> = input.iter().map(|&d| d.min(4)).collect();
        let x = ArrayD::<u8>::zeros(IxDyn(&small));
        let a = x.reshape_mx(Mx::new(spec.as_slice()).reverse(flag)).map(|y| y.shape().to_vec());
        prop_assert_eq!(a, Mx::new(spec.as_slice()).reverse(flag).infer_shape(&small));
        let p = x.reshape_paddle(spec.as_slice()).map(|y| y.shape().to_vec());
        prop_assert_eq!(p, Paddle::new(spec.as_slice()).infer_shape(&small));
        let n = x.reshape_np(spec.as_slice(), Order::F).map(|y| y.shape().to_vec());
        prop_assert_eq!(n, Np::new(spec.as_slice(), Order::F).infer_shape(&small));
        let v = x.reshape_npx(Npx::new(spec.as_slice()).reverse(flag)).map(|y| y.shape().to_vec());
        prop_assert_eq!(v, Npx::new(spec.as_slice()).reverse(flag).infer_shape(&small));
        let o = x.reshape_onnx(Onnx::new(spec.as_slice()).allowzero(flag)).map(|y| y.shape().to_vec());
        prop_assert_eq!(o, Onnx::new(spec.as_slice()).allowzero(flag).infer_shape(&small));
    }

    /// The solver never panics on arbitrary shapes and strides, and agrees with itself on sizes.
    #[test]
    fn solver_never_panics(
        shape in prop::collection::vec(prop_oneof![0usize..5, Just(usize::MAX)], 0..5),
        strides in prop::collection::vec(prop_oneof![-5isize..6, Just(isize::MIN), Just(isize::MAX)], 0..5),
        new in prop::collection::vec(prop_oneof![0usize..7, Just(usize::MAX)], 0..5),
        order in 0u8..3,
    ) {
        let order = [Order::C, Order::F, Order::A][order as usize];
        if let Some(s) = view_strides(&shape, &strides, &new, order) {
            prop_assert_eq!(s.len(), new.len());
        }
    }
}

/// An MXNet tuple attribute written the ways MXNet's parser accepts: either bracket pair (or a
/// mixed one), any whitespace around tokens, Python 2's `L` after any entry, a trailing comma.
fn mxnet_tuple() -> impl Strategy<Value = (Vec<i64>, String)> {
    let entry = (
        prop_oneof![-4i64..64, Just(i64::MIN), Just(i64::MAX)],
        prop::sample::select(vec!["", " ", "\t", "\n "]),
        prop::sample::select(vec!["", " ", "  "]),
        any::<bool>(),
    );
    (
        prop::collection::vec(entry, 1..7),
        prop::sample::select(vec!['(', '[']),
        prop::sample::select(vec![')', ']']),
        any::<bool>(),
    )
        .prop_map(|(entries, open, close, trailing)| {
            let values = entries.iter().map(|e| e.0).collect();
            let items: Vec<String> = entries
                .iter()
                .map(|(v, before, after, long)| {
                    format!("{before}{v}{after}{}", if *long { "L" } else { "" })
                })
                .collect();
            let comma = if trailing { "," } else { "" };
            (values, format!("{open}{}{comma}{close}", items.join(",")))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Every way of writing a tuple that MXNet reads gives its values.
    #[test]
    fn mxnet_tuples_read_back((values, text) in mxnet_tuple()) {
        let got = Mx::from_attrs([("shape", text.as_str())]);
        prop_assert_eq!(got, Ok(Mx::new(values)), "{:?}", text);
    }

    /// Any text is a spec or a `BadAttribute` naming the attribute, never a panic.
    #[test]
    fn mxnet_attribute_text_never_panics(text in "[ (\\[\\])0-9L,+\\-Nonex\t\u{e9}]{0,16}") {
        match Mx::from_attrs([("shape", text.as_str()), ("reverse", "0")]) {
            Ok(_) => {}
            Err(ReshapeError::BadAttribute(c)) => prop_assert!(c.spec().starts_with("shape="), "{}", c.spec()),
            Err(e) => prop_assert!(false, "{:?}: {}", text, e),
        }
        let _ = Npx::from_attrs([("newshape", text.as_str())]);
        let _ = Like::from_attrs([2], [("lhs_begin", text.as_str())]);
    }
}

/// `perm` applied to `dims`: the shape of `permuted_axes(perm)`.
fn permuted(dims: &[usize], perm: &[usize]) -> Vec<usize> {
    perm.iter().map(|&p| dims[p]).collect()
}

/// A permutation of `0..n` from a seed (Fisher-Yates on a small linear congruential stream).
fn shuffle(n: usize, mut seed: u64) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        p.swap(i, (seed >> 33) as usize % (i + 1));
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Whenever a permutation passes through a reshape, the reshape of the permuted array is
    /// the reshape of the original to the target, permuted after. Permutations that move whole
    /// groups always pass; random ones pass when they do not cut a group.
    #[test]
    fn transpose_through_gives_the_same_array(
        dims in prop::collection::vec(1usize..5, 0..5),
        seed in prop::collection::vec(0usize..16, 0..5),
        perm_seed in any::<u64>(),
        f in any::<bool>(),
        groupwise in any::<bool>(),
    ) {
        let n: usize = dims.iter().product();
        let x = Array::from_iter(0..n as i64).into_shape_with_order(IxDyn(&dims)).unwrap();
        let order = if f { Order::F } else { Order::C };
        let (perm, new) = if groupwise {
            // Reorder the groups of a reshape of x: the permuted input and its target.
            let t = target(n, &seed);
            let e = Np::new(t.as_slice(), order).explain(&dims).unwrap();
            let moved = shuffle(e.groups().len(), perm_seed);
            let perm: Vec<usize> = moved.iter().flat_map(|&g| e.groups()[g].input.clone()).collect();
            let new: Vec<usize> = moved.iter().flat_map(|&g| t[e.groups()[g].output.clone()].to_vec()).collect();
            (perm, new)
        } else {
            (shuffle(dims.len(), perm_seed), target(n, &seed))
        };
        let xp = x.view().permuted_axes(IxDyn(&perm));
        let shape = permuted(&dims, &perm);
        prop_assert_eq!(xp.shape(), shape.as_slice());
        let e = Np::new(new.as_slice(), order).explain(xp.shape()).unwrap();
        let through = e.transpose_through(&perm);
        prop_assert!(through.is_some() || !groupwise, "{:?} -> {:?} by {:?}", dims, new, perm);
        if let Some((t, after)) = through {
            let before = xp.reshape_np(new.as_slice(), order).unwrap();
            let y = x.reshape_np(t.as_slice(), order).unwrap();
            let y = y.view().permuted_axes(IxDyn(&after));
            prop_assert_eq!(before.shape(), y.shape());
            prop_assert!(before.iter().eq(y.iter()), "{:?} -> {:?} by {:?}: values differ", dims, new, perm);
        }
    }

    /// Symbolic groups are unions of the concrete groups of the same reshape with the symbols
    /// bound: a symbolic boundary is always a concrete one.
    #[test]
    fn symbolic_groups_are_unions_of_concrete_ones(
        dims in prop::collection::vec(1usize..5, 1..5),
        seed in prop::collection::vec(0usize..16, 0..5),
        mask in any::<u8>(),
    ) {
        use ndarray_reshape::SymDim;
        let n: usize = dims.iter().product();
        let t = target(n, &seed);
        let spec = Np::new(t.as_slice(), Order::C);
        let names = ["A", "B", "C", "D", "E"];
        let input: Vec<SymDim> = dims
            .iter()
            .enumerate()
            .map(|(i, &d)| if mask >> i & 1 == 1 && d > 1 { SymDim::sym(names[i]) } else { SymDim::from(d) })
            .collect();
        let Ok(sym) = spec.explain_symbolic(&input) else { return Ok(()) };
        let concrete = spec.explain(&dims).unwrap();
        let starts: Vec<(usize, usize)> = concrete.groups().iter().map(|g| (g.input.start, g.output.start)).collect();
        for g in sym.groups() {
            prop_assert!(
                starts.contains(&(g.input.start, g.output.start)) || g.input.is_empty() || g.output.is_empty(),
                "{:?} -> {:?}: symbolic group {:?} starts inside a concrete one", input, t, g
            );
        }
    }
}
