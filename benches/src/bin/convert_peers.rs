//! The Rust contestants of `python3 scripts/bench_peers.py convert`: relayouts that convert
//! element types (this crate; plain ndarray as users write it: `mapv` + `permuted_axes` +
//! `as_standard_layout`, and the `from_shape_fn` loop of the `ort`, `tract` and `candle`
//! examples), and memcpy of the larger side's bytes, the limit. The Python driver interleaves
//! them with OpenCV, torch, oneDNN and NumPy: it writes one request per line on stdin,
//! `<case> <threads> <contestant> <reps>`, and reads the median time of `reps` calls in
//! nanoseconds (the first call, a warm-up, not counted). `list` prints the cases, each with its
//! bytes read, bytes written and contestants.
//!
//! The crate runs on a rayon pool of `threads` (the calling thread one of them); memcpy in
//! `threads` pieces on the same pool; ndarray's code is serial.

use std::collections::HashMap;
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::Instant;

use half::{bf16, f16};
use ndarray::{Array, Array3, Array4, Array5, ArrayD, Dimension, IxDyn};
use ndarray_reshape::convert::{Affine, Blocked, Cast, Quantize};
use ndarray_reshape::{Np, Order, Rearrange, ReshapeExt};

const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];
const QSCALE: f32 = 0.02;

/// A case's inputs, made once.
enum Input {
    Image(Array4<u8>),
    F32x4(Array4<f32>),
    Bf16x4(Array4<bf16>),
    F16x4(Array4<f16>),
    F32x2(ndarray::Array2<f32>),
    F32x3(Array3<f32>),
    F32x5(Array5<f32>),
    U8x2(ndarray::Array2<u8>),
    F32xD(ndarray::ArrayD<f32>),
}

/// Deterministic values in [-4, 4).
fn value(i: usize) -> f32 {
    ((i.wrapping_mul(2_654_435_761) >> 7) % 8192) as f32 / 1024.0 - 4.0
}

fn make(case: &str) -> Input {
    match case {
        "image_norm" => Input::Image(Array::from_shape_fn((8, 224, 224, 3), |(n, h, w, c)| {
            ((n * 131 + h * 7 + w * 3 + c * 50) % 256) as u8
        })),
        "heads_bf16" | "heads_f16" => {
            Input::F32x4(Array::from_shape_fn((16, 512, 12, 64), |(a, b, c, d)| {
                value(((a * 512 + b) * 12 + c) * 64 + d)
            }))
        }
        "heads_bf16_back" => {
            Input::Bf16x4(Array::from_shape_fn((16, 12, 512, 64), |(a, b, c, d)| {
                bf16::from_f32(value(((a * 12 + b) * 512 + c) * 64 + d))
            }))
        }
        "heads_f16_back" => {
            Input::F16x4(Array::from_shape_fn((16, 12, 512, 64), |(a, b, c, d)| {
                f16::from_f32(value(((a * 12 + b) * 512 + c) * 64 + d))
            }))
        }
        "transpose_4096_bf16" => Input::F32x2(Array::from_shape_fn((4096, 4096), |(i, j)| {
            value(i * 4096 + j)
        })),
        "nchw16c" => Input::F32x4(Array::from_shape_fn((32, 64, 56, 56), |(a, b, c, d)| {
            value(((a * 64 + b) * 56 + c) * 56 + d)
        })),
        "nchw16c_back" => Input::F32x5(Array::from_shape_fn(
            (32, 4, 56, 56, 16),
            |(a, b, c, d, e)| value((((a * 4 + b) * 56 + c) * 56 + d) * 16 + e),
        )),
        "plain_transpose_4096_f32" | "plain_transpose_1024_f32" => {
            let n = if case.contains("4096") { 4096 } else { 1024 };
            Input::F32x2(Array::from_shape_fn((n, n), |(i, j)| value(i * n + j)))
        }
        "plain_transpose_4096_u8" => Input::U8x2(Array::from_shape_fn((4096, 4096), |(i, j)| {
            (i * 7 + j) as u8
        })),
        "plain_rank8_reversed_f32" => Input::F32xD(ArrayD::from_shape_fn(IxDyn(&[8; 8]), |i| {
            value(i.as_array_view().iter().fold(0, |a, &v| a * 8 + v))
        })),
        "quant_i8" => Input::F32x3(Array::from_shape_fn((16, 512, 768), |(a, b, c)| {
            value((a * 512 + b) * 768 + c)
        })),
        _ => panic!("unknown case {case}"),
    }
}

/// Bytes read, bytes written, and the contestants of a case.
fn about(case: &str) -> (usize, usize, &'static [&'static str]) {
    const ALL: &[&str] = &[
        "ours",
        "ours_into",
        "ndarray_mapv",
        "ndarray_from_shape_fn",
        "memcpy",
    ];
    const NO_INTO: &[&str] = &["ours", "ndarray_mapv", "ndarray_from_shape_fn", "memcpy"];
    let heads = 16 * 512 * 12 * 64;
    match case {
        "image_norm" => (8 * 224 * 224 * 3, 8 * 224 * 224 * 3 * 4, ALL),
        "heads_bf16" | "heads_f16" => (heads * 4, heads * 2, ALL),
        "heads_bf16_back" | "heads_f16_back" => (heads * 2, heads * 4, ALL),
        "transpose_4096_bf16" => (4096 * 4096 * 4, 4096 * 4096 * 2, ALL),
        "nchw16c" | "nchw16c_back" => (32 * 64 * 56 * 56 * 4, 32 * 64 * 56 * 56 * 4, NO_INTO),
        "quant_i8" => (16 * 512 * 768 * 4, 16 * 512 * 768, ALL),
        "plain_transpose_4096_f32" | "plain_rank8_reversed_f32" => (1 << 26, 1 << 26, ALL),
        "plain_transpose_1024_f32" => (1 << 22, 1 << 22, ALL),
        "plain_transpose_4096_u8" => (1 << 24, 1 << 24, ALL),
        _ => panic!("unknown case {case}"),
    }
}

const CASES: &[&str] = &[
    "image_norm",
    "heads_bf16",
    "heads_f16",
    "heads_bf16_back",
    "heads_f16_back",
    "transpose_4096_bf16",
    "nchw16c",
    "nchw16c_back",
    "quant_i8",
    "plain_transpose_1024_f32",
    "plain_transpose_4096_f32",
    "plain_transpose_4096_u8",
    "plain_rank8_reversed_f32",
];

/// Buffers reused by the `_into` contestants and memcpy, per case.
struct Buffers {
    src: Vec<u8>,
    dst: Vec<u8>,
    f32s: Vec<f32>,
    halves: Vec<u16>,
    bytes: Vec<i8>,
}

fn quant(v: f32) -> i8 {
    ((v / QSCALE).round_ties_even()).clamp(-128.0, 127.0) as i8
}

/// One call of `contestant` on `input`; returns something to keep alive (black-boxed).
fn call(case: &str, contestant: &str, input: &Input, buf: &mut Buffers, threads: usize) -> usize {
    let norm = || Affine::normalize(1, 255.0, &MEAN, &STD).unwrap();
    match (contestant, input) {
        ("memcpy", _) => {
            let (src, dst) = (&buf.src, &mut buf.dst);
            let piece = dst.len().div_ceil(threads);
            rayon::scope(|s| {
                for (d, c) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
                    s.spawn(move |_| d.copy_from_slice(c));
                }
            });
            dst.len()
        }
        ("ours", Input::Image(x)) => {
            let r = Rearrange::new("n h w c -> n c h w").unwrap();
            x.convert_with(&r, &norm()).unwrap().len()
        }
        ("ours_into", Input::Image(x)) => {
            let r = Rearrange::new("n h w c -> n c h w").unwrap();
            x.convert_into(&r, &norm(), &mut buf.f32s).unwrap().len()
        }
        ("ndarray_mapv", Input::Image(x)) => {
            let mean = Array::from(MEAN.to_vec());
            let std = Array::from(STD.to_vec());
            let f = (x.mapv(|v| f32::from(v) / 255.0) - &mean) / &std;
            f.permuted_axes([0, 3, 1, 2])
                .as_standard_layout()
                .into_owned()
                .len()
        }
        ("ndarray_from_shape_fn", Input::Image(x)) => {
            let (n, h, w, _) = x.dim();
            Array::from_shape_fn((n, 3, h, w), |(n, c, y, z)| {
                (f32::from(x[[n, y, z, c]]) / 255.0 - MEAN[c]) / STD[c]
            })
            .len()
        }
        ("ours", Input::F32x4(x)) if case == "nchw16c" => Blocked::new(16)
            .unwrap()
            .pack(x, &Cast, 0.0f32)
            .unwrap()
            .len(),
        ("ndarray_mapv", Input::F32x4(x)) if case == "nchw16c" => {
            let split = x.view().into_shape_with_order((32, 4, 16, 56, 56)).unwrap();
            split
                .permuted_axes([0, 1, 3, 4, 2])
                .as_standard_layout()
                .into_owned()
                .len()
        }
        ("ndarray_from_shape_fn", Input::F32x4(x)) if case == "nchw16c" => {
            Array::from_shape_fn((32, 4, 56, 56, 16), |(n, b, h, w, c)| {
                x[[n, b * 16 + c, h, w]]
            })
            .len()
        }
        ("ours", Input::F32x5(x)) => Blocked::new(16)
            .unwrap()
            .unpack::<f32, f32, _, _>(x, 64, &Cast)
            .unwrap()
            .len(),
        ("ndarray_mapv", Input::F32x5(x)) => {
            let t = x
                .view()
                .permuted_axes([0, 1, 4, 2, 3])
                .as_standard_layout()
                .into_owned();
            t.into_shape_with_order((32, 64, 56, 56)).unwrap().len()
        }
        ("ndarray_from_shape_fn", Input::F32x5(x)) => {
            Array::from_shape_fn((32, 64, 56, 56), |(n, c, h, w)| {
                x[[n, c / 16, h, w, c % 16]]
            })
            .len()
        }
        (_, Input::F32x4(x)) => {
            let heads = Rearrange::new("b t h d -> b h t d").unwrap();
            let to_bf16 = case == "heads_bf16";
            match contestant {
                "ours" if to_bf16 => x.convert_with::<_, bf16, _>(&heads, &Cast).unwrap().len(),
                "ours" => x.convert_with::<_, f16, _>(&heads, &Cast).unwrap().len(),
                "ours_into" if to_bf16 => {
                    let out: &mut [bf16] = bytemuck_halves(&mut buf.halves);
                    x.convert_into(&heads, &Cast, out).unwrap().len()
                }
                "ours_into" => {
                    let out: &mut [f16] = bytemuck_halves(&mut buf.halves);
                    x.convert_into(&heads, &Cast, out).unwrap().len()
                }
                "ndarray_mapv" if to_bf16 => {
                    let p = x.view().permuted_axes([0, 2, 1, 3]);
                    p.mapv(bf16::from_f32)
                        .as_standard_layout()
                        .into_owned()
                        .len()
                }
                "ndarray_mapv" => {
                    let p = x.view().permuted_axes([0, 2, 1, 3]);
                    p.mapv(f16::from_f32)
                        .as_standard_layout()
                        .into_owned()
                        .len()
                }
                _ if to_bf16 => Array::from_shape_fn((16, 12, 512, 64), |(b, h, t, d)| {
                    bf16::from_f32(x[[b, t, h, d]])
                })
                .len(),
                _ => Array::from_shape_fn((16, 12, 512, 64), |(b, h, t, d)| {
                    f16::from_f32(x[[b, t, h, d]])
                })
                .len(),
            }
        }
        (_, Input::Bf16x4(x)) => {
            let back = Rearrange::new("b h t d -> b t h d").unwrap();
            match contestant {
                "ours" => x.convert_with::<_, f32, _>(&back, &Cast).unwrap().len(),
                "ours_into" => x.convert_into(&back, &Cast, &mut buf.f32s).unwrap().len(),
                "ndarray_mapv" => {
                    let p = x.view().permuted_axes([0, 2, 1, 3]);
                    p.mapv(f32::from).as_standard_layout().into_owned().len()
                }
                _ => Array::from_shape_fn((16, 512, 12, 64), |(b, t, h, d)| {
                    f32::from(x[[b, h, t, d]])
                })
                .len(),
            }
        }
        (_, Input::F16x4(x)) => {
            let back = Rearrange::new("b h t d -> b t h d").unwrap();
            match contestant {
                "ours" => x.convert_with::<_, f32, _>(&back, &Cast).unwrap().len(),
                "ours_into" => x.convert_into(&back, &Cast, &mut buf.f32s).unwrap().len(),
                "ndarray_mapv" => {
                    let p = x.view().permuted_axes([0, 2, 1, 3]);
                    p.mapv(f32::from).as_standard_layout().into_owned().len()
                }
                _ => Array::from_shape_fn((16, 512, 12, 64), |(b, t, h, d)| {
                    f32::from(x[[b, h, t, d]])
                })
                .len(),
            }
        }
        (_, Input::F32x2(x)) if case.starts_with("plain") => {
            let n = x.nrows();
            match contestant {
                "ours" => x.t().to_layout(Order::C).unwrap().len(),
                "ours_into" => x.t().to_layout_into(Order::C, &mut buf.f32s).unwrap().len(),
                "ndarray_mapv" => x.t().as_standard_layout().into_owned().len(),
                _ => Array::from_shape_fn((n, n), |(i, j)| x[[j, i]]).len(),
            }
        }
        (_, Input::U8x2(x)) => match contestant {
            "ours" => x.t().to_layout(Order::C).unwrap().len(),
            "ours_into" => x.t().to_layout_into(Order::C, &mut buf.dst).unwrap().len(),
            "ndarray_mapv" => x.t().as_standard_layout().into_owned().len(),
            _ => Array::from_shape_fn((4096, 4096), |(i, j)| x[[j, i]]).len(),
        },
        (_, Input::F32xD(x)) => {
            let p = x.view().permuted_axes(IxDyn(&[7, 6, 5, 4, 3, 2, 1, 0]));
            match contestant {
                "ours" => p.to_layout(Order::C).unwrap().len(),
                "ours_into" => p.to_layout_into(Order::C, &mut buf.f32s).unwrap().len(),
                "ndarray_mapv" => p.as_standard_layout().into_owned().len(),
                _ => ArrayD::from_shape_fn(IxDyn(&[8; 8]), |i| p[i]).len(),
            }
        }
        (_, Input::F32x2(x)) => match contestant {
            "ours" => x
                .t()
                .convert_with::<_, bf16, _>(Np::new([4096, 4096], Order::C), &Cast)
                .unwrap()
                .len(),
            "ours_into" => {
                let out: &mut [bf16] = bytemuck_halves(&mut buf.halves);
                x.t()
                    .convert_into(Np::new([4096, 4096], Order::C), &Cast, out)
                    .unwrap()
                    .len()
            }
            "ndarray_mapv" => x
                .t()
                .mapv(bf16::from_f32)
                .as_standard_layout()
                .into_owned()
                .len(),
            _ => Array::from_shape_fn((4096, 4096), |(i, j)| bf16::from_f32(x[[j, i]])).len(),
        },
        (_, Input::F32x3(x)) => {
            let q = Quantize::<i8>::new(QSCALE, 0).unwrap();
            let swap = Rearrange::new("b t d -> b d t").unwrap();
            match contestant {
                "ours" => x.convert_with(&swap, &q).unwrap().len(),
                "ours_into" => x.convert_into(&swap, &q, &mut buf.bytes).unwrap().len(),
                "ndarray_mapv" => x
                    .view()
                    .permuted_axes([0, 2, 1])
                    .mapv(quant)
                    .as_standard_layout()
                    .into_owned()
                    .len(),
                _ => Array::from_shape_fn((16, 768, 512), |(b, d, t)| quant(x[[b, t, d]])).len(),
            }
        }
        _ => panic!("no contestant {contestant} for {case}"),
    }
}

/// The `u16` buffer as half-precision elements (both are 2-byte plain numbers).
fn bytemuck_halves<T>(v: &mut [u16]) -> &mut [T] {
    assert_eq!(std::mem::size_of::<T>(), 2);
    assert_eq!(std::mem::align_of::<T>(), 2);
    // SAFETY: `T` is `half::f16` or `half::bf16`: `repr(transparent)` wrappers of a `u16`,
    // any bits valid; same length, same alignment.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<T>(), v.len()) }
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut inputs: HashMap<String, (Input, Buffers)> = HashMap::new();
    let mut pools: HashMap<usize, rayon::ThreadPool> = HashMap::new();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let words: Vec<&str> = line.split_whitespace().collect();
        if words == ["list"] {
            for case in CASES {
                let (read, written, who) = about(case);
                writeln!(out, "{case} {read} {written} {}", who.join(",")).unwrap();
            }
            writeln!(out, "end").unwrap();
            out.flush().unwrap();
            continue;
        }
        let [case, threads, contestant, reps] = words[..] else {
            panic!("a request is `<case> <threads> <contestant> <reps>`, not {line:?}");
        };
        let (threads, reps): (usize, usize) = (threads.parse().unwrap(), reps.parse().unwrap());
        let (read, written, _) = about(case);
        let (input, buf) = inputs.entry(case.to_string()).or_insert_with(|| {
            let n = read.max(written);
            let buf = Buffers {
                src: vec![1u8; n],
                dst: vec![0u8; n],
                f32s: vec![0.0; written / 4],
                halves: vec![0; written / 2],
                bytes: vec![0; written],
            };
            (make(case), buf)
        });
        let pool = pools
            .entry(threads)
            .or_insert_with(|| ndarray_reshape_bench::pool(threads));
        let mut times: Vec<u128> = pool.install(|| {
            black_box(call(case, contestant, input, buf, threads));
            (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    black_box(call(case, contestant, input, buf, threads));
                    t.elapsed().as_nanos()
                })
                .collect()
        });
        times.sort_unstable();
        writeln!(out, "{}", times[times.len() / 2]).unwrap();
        out.flush().unwrap();
    }
}
