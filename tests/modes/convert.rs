//! The converting copies (`convert_with`, `convert_layout`, `convert_into`, `Blocked`): values
//! against a reference (the plain copy, then `Conversion::convert` at each output index) for
//! every conversion, element size, stride pattern (steps, flips, broadcasts, permutations),
//! rank up to 8 and size (the row, tile and strip paths, one thread and the pool); the blocked
//! layouts against their einops pattern and their ONNX nodes; the errors.

use ndarray::{Array, ArrayD, ArrayView, Axis, IxDyn, Slice};
use ndarray_reshape::convert::{
    Affine, Blocked, Cast, Conversion, Dequantize, Map, Quantize, Saturate,
};
use ndarray_reshape::{Np, OnnxNode, Order, Rearrange, ReshapeExt, ShapeSpec};

use crate::rng::Rng;

/// What `convert_with(spec, conv)` must give: the plain reshape's elements, each converted at
/// its index along the conversion's axis.
fn reference<A, B, C, P>(x: &ArrayView<'_, A, IxDyn>, spec: &P, conv: &C) -> ArrayD<B>
where
    A: Clone + Send + Sync,
    C: Conversion<A, B>,
    P: ShapeSpec + Clone,
{
    let plain = x
        .reshape_with(spec.clone())
        .unwrap()
        .into_owned()
        .into_dyn();
    let axis = conv.axis().map(|(a, _)| a);
    Array::from_shape_fn(plain.raw_dim(), |i| {
        conv.convert(&plain[&i], axis.map_or(0, |a| i[a]))
    })
}

/// `convert_with`, `convert_into` and (for a same-shape spec) `convert_layout` against the
/// reference, compared by `bits`.
fn check<A, B, C, P>(
    x: &ArrayView<'_, A, IxDyn>,
    spec: &P,
    conv: &C,
    bits: impl Fn(&B) -> u64,
    what: &str,
) where
    A: Clone + Send + Sync,
    B: Copy + Send + Sync + Default,
    C: Conversion<A, B>,
    P: ShapeSpec + Clone,
{
    let want: Vec<u64> = reference(x, spec, conv).iter().map(&bits).collect();
    let got = x.convert_with(spec.clone(), conv).unwrap();
    assert_eq!(
        got.iter().map(&bits).collect::<Vec<_>>(),
        want,
        "{what}: {:?}",
        x.shape()
    );
    let mut buf = vec![B::default(); x.len()];
    let view = x.convert_into(spec.clone(), conv, &mut buf).unwrap();
    assert_eq!(view.shape(), got.shape(), "{what}");
    // The buffer holds the output in the reading order (as `convert_with`'s memory).
    let flat: Vec<u64> = got
        .as_slice_memory_order()
        .unwrap()
        .iter()
        .map(&bits)
        .collect();
    assert_eq!(
        buf.iter().map(&bits).collect::<Vec<_>>(),
        flat,
        "{what} into a buffer"
    );
}

/// A random view of `data` with `rank` axes: random lengths, then a random permutation, steps
/// and flips (broadcast inputs: `broadcast_inputs_convert`).
fn random_view<'a, T>(data: &'a [T], r: &mut Rng, rank: usize) -> ArrayView<'a, T, IxDyn> {
    loop {
        let dims: Vec<usize> = (0..rank)
            .map(|_| 1 + r.below(if rank > 4 { 4 } else { 12 }))
            .collect();
        let n: usize = dims.iter().product();
        if n > data.len() {
            continue;
        }
        let mut v = ArrayView::from_shape(IxDyn(&dims), &data[..n]).unwrap();
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            perm.swap(i, r.below(i + 1));
        }
        v = v.permuted_axes(IxDyn(&perm));
        for k in 0..rank {
            match r.below(5) {
                0 => v.invert_axis(Axis(k)),
                1 if v.shape()[k] > 2 => v.slice_axis_inplace(Axis(k), Slice::new(0, None, 2)),
                2 if v.shape()[k] > 3 => v.slice_axis_inplace(Axis(k), Slice::new(1, None, -3)),
                _ => {}
            }
        }
        return v;
    }
}

#[test]
fn random_layouts_convert_exactly() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let bytes: Vec<u8> = (0..1 << 16)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let floats: Vec<f32> = (0..1 << 16)
        .map(|i: u32| (i as f32 * 0.37).sin() * 300.0)
        .collect();
    let doubles: Vec<f64> = floats.iter().map(|&v| f64::from(v) * 1.5).collect();
    // 16-byte elements (a complex f64 as a pair), through a closure.
    let pairs: Vec<[u64; 2]> = (0..1u64 << 14)
        .map(|i| [i, i.wrapping_mul(0x9e37_79b9)])
        .collect();
    // Under Miri (the scalar twins, the unsafe engine) a sample of the rounds.
    let rounds = if cfg!(miri) { 2 } else { 300 };
    for round in 0..rounds {
        let rank = 1 + round % 8;
        let order = if round % 3 == 0 { Order::F } else { Order::C };
        let spec = Np::new([-1], order);
        let v = random_view(&floats, &mut r, rank);
        check(&v, &spec, &Cast, |b: &f64| b.to_bits(), "f32 as f64");
        check(
            &v,
            &spec,
            &Cast,
            |b: &f32| b.to_bits().into(),
            "f32 as itself",
        );
        check(
            &v,
            &spec,
            &Saturate,
            |b: &i8| *b as u64,
            "f32 saturated to i8",
        );
        check(
            &v,
            &spec,
            &Quantize::<u8>::new(1.7, 9).unwrap(),
            |b: &u8| u64::from(*b),
            "quantize u8",
        );
        let same = Np::new(
            v.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
            order,
        );
        let axis = r.below(rank);
        let n = v.shape()[axis];
        let scale: Vec<f32> = (0..n).map(|i| 0.5 + i as f32).collect();
        let shift: Vec<f32> = (0..n).map(|i| -(i as f32) * 0.25).collect();
        let per = Affine::per_axis(axis, scale.clone(), shift).unwrap();
        check(
            &v,
            &same,
            &per,
            |b: &f32| b.to_bits().into(),
            "affine per axis",
        );
        let q =
            Quantize::<i8>::per_axis(axis, scale, (0..n).map(|i| i as i8 - 3).collect()).unwrap();
        check(&v, &same, &q, |b: &i8| *b as u64, "quantize per axis");
        let b = random_view(&bytes, &mut r, rank);
        let same_b = Np::new(
            b.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
            order,
        );
        check(
            &b,
            &spec,
            &Affine::new(1.0 / 255.0, -0.5).unwrap(),
            |v: &f32| v.to_bits().into(),
            "affine u8",
        );
        check(
            &b,
            &same_b,
            &Dequantize::<u8>::new(0.1, 128).unwrap(),
            |v: &f32| v.to_bits().into(),
            "dequantize",
        );
        check(
            &b,
            &spec,
            &Map(|v: &u8| u16::from(*v) << 3),
            |v: &u16| u64::from(*v),
            "a closure",
        );
        let p = random_view(&pairs, &mut r, rank);
        check(
            &p,
            &spec,
            &Map(|v: &[u64; 2]| v[0] ^ v[1]),
            |v: &u64| *v,
            "16-byte elements",
        );
        let d = random_view(&doubles, &mut r, rank);
        check(&d, &spec, &Cast, |b: &f32| b.to_bits().into(), "f64 as f32");
        // `convert_layout` is `convert_with` of the same shape.
        let got = v.convert_layout(order, &Cast).unwrap();
        let want = v.convert_with(same.clone(), &Cast).unwrap();
        assert_eq!(
            got.mapv(|x: f64| x.to_bits()),
            want.mapv(|x: f64| x.to_bits())
        );
    }
}

#[cfg(feature = "half")]
#[test]
#[cfg_attr(miri, ignore)]
fn half_precision_of_heads_and_transposes() {
    use half::{bf16, f16};
    let x = Array::from_shape_fn((2, 64, 6, 40), |(a, b, c, d)| {
        ((a * 7 + b * 3 + c * 11 + d) as f32).sin() * 1e3
    });
    let heads = Rearrange::new("b t h d -> b h t d").unwrap();
    let v = x.view().into_dyn();
    check(&v, &heads, &Cast, |b: &bf16| b.to_bits().into(), "to bf16");
    check(&v, &heads, &Cast, |b: &f16| b.to_bits().into(), "to f16");
    let t = Array::from_shape_fn((300, 700), |(i, j)| (i as f32 - j as f32) * 0.01);
    let tv = t.t().into_dyn();
    check(
        &tv,
        &Np::new([-1], Order::C),
        &Cast,
        |b: &bf16| b.to_bits().into(),
        "transpose to bf16",
    );
    let back: ArrayD<bf16> = v.convert_with(&heads, &Cast).unwrap();
    let bv = back.view();
    check(
        &bv,
        &Rearrange::new("b h t d -> b t h d").unwrap(),
        &Cast,
        |b: &f32| b.to_bits().into(),
        "bf16 back",
    );
}

/// The tile and strip paths at sizes that take the pool: HWC to CHW images (the `u8`
/// deinterleave), CHW to HWC, a large transpose, on a pool of one and of three.
#[test]
#[cfg_attr(miri, ignore)]
fn large_layouts_on_one_thread_and_on_a_pool() {
    let img = Array::from_shape_fn((3, 97, 131, 3), |(n, h, w, c)| {
        (n * 31 + h * 7 + w * 3 + c) as u8
    });
    let norm = Affine::normalize(1, 255.0, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225]).unwrap();
    let big = Array::from_shape_fn((523, 611), |(i, j)| (i * 611 + j) as f32);
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let v = img.view().into_dyn();
            check(
                &v,
                &Rearrange::new("n h w c -> n c h w").unwrap(),
                &norm,
                |b: &f32| b.to_bits().into(),
                "hwc to chw",
            );
            let chw = img.view().permuted_axes([0, 3, 1, 2]).to_owned().into_dyn();
            let cv = chw.view();
            let last = Affine::per_axis(3, vec![1.0, 2.0, 3.0], vec![0.0; 3]).unwrap();
            check(
                &cv,
                &Rearrange::new("n c h w -> n h w c").unwrap(),
                &last,
                |b: &f32| b.to_bits().into(),
                "chw to hwc",
            );
            let t = big.t().into_dyn();
            check(
                &t,
                &Np::new([-1], Order::C),
                &Quantize::<i8>::new(40.0, 1).unwrap(),
                |b: &i8| *b as u64,
                "transpose",
            );
        });
    }
}

#[test]
fn broadcast_inputs_convert() {
    // Under Miri, smaller (the same paths).
    let (m, n, k) = if cfg!(miri) {
        (6, 10, 12)
    } else {
        (40, 50, 64)
    };
    let row = Array::from_shape_fn(n, |i| i as f32);
    let b = row.broadcast((m, n)).unwrap().into_dyn();
    check(
        &b,
        &Np::new([-1], Order::F),
        &Cast,
        |v: &u8| u64::from(*v),
        "broadcast rows read in F",
    );
    let col = row.view().insert_axis(Axis(1));
    let c = col.broadcast((n, k)).unwrap().into_dyn();
    check(
        &c,
        &Np::new([-1], Order::C),
        &Affine::new(2.0, 1.0).unwrap(),
        |v: &f32| v.to_bits().into(),
        "broadcast columns",
    );
}

/// `pack` and `unpack` of blocked layouts against the padded array's einops pattern, with
/// conversions, on several channel counts, block sizes and channel axes; and through the ONNX
/// nodes.
#[test]
fn blocked_layouts_pack_and_unpack() {
    for (channels, block, axis) in [
        (3, 16, 1),
        (16, 16, 1),
        (64, 16, 1),
        (37, 8, 1),
        (5, 4, 0),
        (9, 8, 2),
    ] {
        let mut shape = if cfg!(miri) {
            vec![1, 2, 3]
        } else {
            vec![2, 6, 5]
        };
        shape.insert(axis, channels);
        let x = ArrayD::from_shape_fn(IxDyn(&shape), |i| {
            (0..shape.len()).fold(0, |a, k| a * 64 + i[k]) as f32
        });
        let blocked = Blocked::new(block).unwrap().axis(axis);
        let packed: ArrayD<f32> = blocked.pack(&x, &Cast, -1.0).unwrap();
        // The reference: pad with -1, then the einops pattern.
        let padded_c = channels.div_ceil(block) * block;
        let mut padded_shape = shape.clone();
        padded_shape[axis] = padded_c;
        let padded = ArrayD::from_shape_fn(IxDyn(&padded_shape), |i| {
            if i[axis] < channels {
                x[&i]
            } else {
                -1.0
            }
        });
        let names = ["a", "b", "d", "e"];
        let mut left: Vec<String> = names[..shape.len()].iter().map(|s| s.to_string()).collect();
        let mut right = left.clone();
        left[axis] = "(C c)".into();
        right[axis] = "C".into();
        right.push("c".into());
        let pattern = format!("{} -> {}", left.join(" "), right.join(" "));
        let spec = Rearrange::new(&pattern).unwrap().axis("c", block);
        let want = padded.reshape_with(&spec).unwrap().into_owned();
        assert_eq!(packed, want, "{pattern} {channels} {block}");
        let back: ArrayD<f32> = blocked.unpack(&packed, channels, &Cast).unwrap();
        assert_eq!(back, x, "unpack {channels} {block}");
        // Conversions on both ways, and a packed array read through a flipped view.
        let quant = Quantize::<i8>::new(100.0, 0).unwrap();
        let q: ArrayD<i8> = blocked.pack(&x, &quant, 0).unwrap();
        // The padding: -1 quantizes to 0, the fill.
        assert_eq!(q, want.mapv(|v| quant.convert(&v, 0)), "{channels}");
        // A flipped axis other than the channels' (the same index in both layouts).
        let other = Axis(usize::from(axis == 0));
        let mut flipped = packed.view();
        flipped.invert_axis(other);
        let u: ArrayD<f64> = blocked.unpack(&flipped, channels, &Cast).unwrap();
        let mut xf = x.view();
        xf.invert_axis(other);
        assert_eq!(
            u,
            xf.mapv(f64::from),
            "flipped unpack {channels} {block} {axis}"
        );
        // The ONNX nodes, run with ndarray.
        let nodes = blocked.pack_onnx_nodes(&shape, -1.0, &[]).unwrap();
        assert_eq!(
            run_nodes(x.clone(), &nodes),
            packed,
            "onnx pack {channels} {block}"
        );
        let nodes = blocked
            .unpack_onnx_nodes(packed.shape(), channels, &[])
            .unwrap();
        assert_eq!(
            run_nodes(packed.clone(), &nodes),
            x,
            "onnx unpack {channels} {block}"
        );
    }
}

/// The nodes of a blocked layout applied with ndarray (`Pad` at the ends, `Reshape`,
/// `Transpose`, `Slice`).
fn run_nodes(mut x: ArrayD<f32>, nodes: &[OnnxNode]) -> ArrayD<f32> {
    for node in nodes {
        x = match node {
            OnnxNode::Pad { pads, value } => {
                let r = x.ndim();
                let shape: Vec<usize> = (0..r)
                    .map(|k| x.shape()[k] + pads[k] + pads[r + k])
                    .collect();
                let mut out = ArrayD::from_elem(IxDyn(&shape), *value as f32);
                let region: Vec<ndarray::SliceInfoElem> = (0..r)
                    .map(|k| (pads[k]..pads[k] + x.shape()[k]).into())
                    .collect();
                out.slice_mut(region.as_slice()).assign(&x);
                out
            }
            OnnxNode::Reshape(o) => x.reshape_onnx(o).unwrap().into_owned(),
            OnnxNode::Transpose { perm } => x
                .permuted_axes(IxDyn(perm))
                .as_standard_layout()
                .into_owned(),
            OnnxNode::Slice { axis, end } => {
                x.slice_axis(Axis(*axis), Slice::from(..*end)).to_owned()
            }
            other => panic!("unexpected node {other:?}"),
        };
    }
    x
}

#[test]
fn errors_name_the_rule_and_leave_the_buffer_alone() {
    let x = Array::from_shape_fn((2, 3, 4), |(a, b, c)| (a + b + c) as f32);
    let three = Affine::per_axis(1, vec![1.0; 3], vec![0.0; 3]).unwrap();
    // The pattern moves the channels to the last axis: three parameters for an axis of 4.
    let err = x
        .convert_with(Rearrange::new("a b c -> a c b").unwrap(), &three)
        .unwrap_err();
    assert_eq!(err.category(), "conversion_axis");
    assert_eq!(
        err.to_string(),
        "conversion_axis: 3 conversion parameters for the output's axis 1 of length 4 \
         (output shape [2, 4, 3]); input shape [2, 3, 4], convert \"a b c -> a c b\", axis 1"
    );
    let far = Affine::per_axis(5, vec![1.0], vec![0.0]).unwrap();
    assert_eq!(
        x.convert_layout(Order::C, &far).unwrap_err().category(),
        "conversion_axis"
    );
    assert_eq!(
        Affine::per_axis(0, vec![1.0], vec![])
            .unwrap_err()
            .category(),
        "conversion_axis"
    );
    assert_eq!(
        Quantize::<u8>::new(0.0, 0).unwrap_err().category(),
        "conversion_axis"
    );
    assert_eq!(
        Dequantize::<i8>::new(f32::NAN, 0).unwrap_err().category(),
        "conversion_axis"
    );
    let mut buf = [7u8; 5];
    let err = x
        .convert_into(Np::new([-1], Order::C), &Cast, &mut buf)
        .unwrap_err();
    assert_eq!(err.category(), "output_length");
    assert_eq!(buf, [7; 5]);
    let mut buf = [7.0f32; 24];
    let err = x
        .convert_into(Np::new([2, 4, 3], Order::C), &three, &mut buf)
        .unwrap_err();
    assert_eq!(err.category(), "conversion_axis");
    assert_eq!(buf, [7.0; 24]);
    assert_eq!(Blocked::new(0).unwrap_err().category(), "blocked_layout");
    let b = Blocked::new(8).unwrap();
    assert_eq!(
        b.axis(3).pack(&x, &Cast, 0.0f32).unwrap_err().category(),
        "blocked_layout"
    );
    let packed: ArrayD<f32> = b.pack(&x, &Cast, 0.0).unwrap();
    assert_eq!(
        b.unpack::<f32, f32, _, _>(&packed, 9, &Cast)
            .unwrap_err()
            .category(),
        "blocked_layout"
    );
    assert_eq!(
        b.unpack::<f32, f32, _, _>(&x, 3, &Cast)
            .unwrap_err()
            .category(),
        "blocked_layout"
    );
    let err = Blocked::onnx_nodes::<u8, u8, _>(&Map(|v: &u8| *v), 3).unwrap_err();
    assert_eq!(err.category(), "onnx_inexpressible");
}

/// Empty inputs give empty outputs of the target shape; a zero-length axis anywhere.
#[test]
fn empty_arrays_convert_to_empty_arrays() {
    let x = Array::<f32, _>::zeros((3, 0, 4));
    let y: ArrayD<f64> = x.convert_with(Np::new([4, -1], Order::C), &Cast).unwrap();
    assert_eq!(y.shape(), &[4, 0]);
    let y: ArrayD<u8> = x.convert_layout(Order::F, &Saturate).unwrap().into_dyn();
    assert_eq!(y.shape(), &[3, 0, 4]);
    let packed = Blocked::new(4)
        .unwrap()
        .pack(&x.view().permuted_axes([1, 0, 2]), &Cast, 0.0f32)
        .unwrap();
    assert_eq!(packed.shape(), &[0, 1, 4, 4]);
}

/// Elements that are not plain data (a `String`) take the tiles without the scratch buffer,
/// cloned nowhere: read in place and converted.
#[test]
fn clone_only_elements_convert_in_place() {
    let (m, n) = if cfg!(miri) { (9, 14) } else { (40, 70) };
    let x = Array::from_shape_fn((m, n), |(i, j)| format!("{i}-{j}"));
    let t = x.t();
    let lens = t
        .convert_layout(Order::C, &Map(|s: &String| s.len()))
        .unwrap();
    assert_eq!(lens, t.mapv(|s| s.len()));
    let owned = t
        .convert_layout(Order::F, &Map(|s: &String| s.clone() + "!"))
        .unwrap();
    assert_eq!(owned, t.mapv(|s| s + "!"));
    assert!(owned.t().is_standard_layout());
}

/// einops' `repeat` (a broadcast arrangement) and the copying reshape modes convert too.
#[test]
fn repeat_and_reshapes_convert() {
    let x = Array::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as u8);
    let spec = Rearrange::repeat("h w -> h w c").unwrap().axis("c", 3);
    let rgb: ArrayD<f32> = x.convert_with(&spec, &Cast).unwrap();
    assert_eq!(
        rgb,
        x.repeat("h w -> h w c", &[("c", 3)])
            .unwrap()
            .mapv(f32::from)
    );
    let flat = x
        .t()
        .convert_with(Np::new([-1], Order::C), &Saturate)
        .unwrap();
    let flat: Vec<i8> = flat.iter().copied().collect();
    assert_eq!(flat, x.t().iter().map(|&v| v as i8).collect::<Vec<_>>());
}

/// `Blocked`'s shapes of numbers and of symbols are one rule: for every small shape, block and
/// channel count, the symbolic answer bound to the numbers is the numeric one, and each
/// refuses what the other refuses.
#[test]
fn blocked_shapes_agree_for_numbers_and_symbols() {
    use ndarray_reshape::SymDim;
    for block in [1, 3, 8, 16] {
        for axis in 0..4 {
            let b = Blocked::new(block).unwrap().axis(axis);
            for c in [1usize, 2, 7, 8, 16, 17, 33] {
                let input = [2, c, 5];
                let names = [("N", 2), ("C", c), ("W", 5)];
                let syms: Vec<SymDim> = names.iter().map(|(n, _)| SymDim::sym(n)).collect();
                let num = b.packed_shape(&input).ok();
                let sym = b.packed_symbolic(&syms).ok().and_then(|s| s.eval(&names));
                assert_eq!(num, sym, "pack {input:?} by {block} along {axis}");
                let Some(packed) = num else { continue };
                for channels in [c.saturating_sub(block), c, c + 1, c + block] {
                    let num = b.unpacked_shape(&packed, channels).ok();
                    let p: Vec<SymDim> = packed.iter().map(|&d| SymDim::from(d)).collect();
                    let sym = b
                        .unpacked_symbolic(&p, &SymDim::from(channels))
                        .ok()
                        .and_then(|s| s.eval(&[]));
                    assert_eq!(num, sym, "unpack {packed:?} to {channels} by {block}");
                }
            }
        }
    }
}
